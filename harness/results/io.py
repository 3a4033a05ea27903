"""Reading and checking a results CSV, and migrating older formats to the current one.

A results file is a plain CSV whose first line is the header, with exactly `COLUMNS`.
Its format version lives in the run.json beside it (`results_format`); a file without
run.json (another tool wrote it to the DESIGN contract) is read as the current format.
A newer format is refused; an older one is migrated step by step (`MIGRATIONS`). A file
missing a column, or with a bad value, is refused with a one-line `InputError`: a misread
table would make `compare` report changes that are not there.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pandas as pd

from harness.atomic import write_text
from harness.errors import InputError
from harness.results.columns import (
    COLUMNS,
    DEPENDENCIES,
    ENV_LOCK,
    IDENTITY,
    KNOBS,
    LATE_COLUMNS,
    MACHINE,
    MEASURED,
    POOLS,
    PREDICTED,
    RESULTS_FORMAT_VERSION,
    SOURCES,
    SPARSE,
    SPARSE_NUMERIC,
    STATUSES,
    TIMING,
)
from harness.results.probe import PROBE_NUMERIC
from harness.results.probe_migration import V4_PROBE_COLUMNS, v6_to_v7
from harness.scenario import expand, parse_scenario

log = logging.getLogger(__name__)

# The first line of a v1 file; read (and migrated) by every command, never written.
FORMAT_PREFIX = "# kv-budget-harness results v"
FORMAT_LINE = f"{FORMAT_PREFIX}1"
_FORMAT_RE = re.compile(r"^# kv-budget-harness results v(\d+)\s*$")
MAX_RESULTS_BYTES = 1 << 30

# Columns holding numbers; an unparsable value there is a corrupt file, not a zero.
NUMERIC_COLUMNS = (("repeat", "device_total_mib", "gpu_busy_before_mib", "engine_free_mib")
                   + MEASURED + PREDICTED + TIMING + PROBE_NUMERIC + SPARSE_NUMERIC)
# Knobs are numbers except where a scenario used an engine spelling ("auto", "32k").
_TEXT_KNOBS = ("kv_cache_dtype", "extra_args")


def format_version(first_line: str) -> int | None:
    """The version a v1-style first line declares, or None when it is not such a line."""
    match = _FORMAT_RE.match(first_line.strip("\ufeff\r\n"))
    return int(match.group(1)) if match else None


def declared_version(csv_path: Path) -> int | None:
    """`results_format` from the run.json beside a results file (None: no readable run.json)."""
    info_path = csv_path.parent / "run.json"
    try:
        info = json.loads(info_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict):
        return None
    version = info.get("results_format", info.get("results_format_version"))
    return version if isinstance(version, int) else None


def _v1_to_v2(text: str, context: dict) -> str:
    """Drop the format line; lengthen 10-digit point ids where run.json's scenario gives the full ones."""
    first, _, body = text.partition("\n")
    if format_version(first) is not None:
        text = body
    full_ids = context.get("full_ids")
    if full_ids:
        text = _lengthen_ids(text, full_ids)
    return text


def _lengthen_ids(text: str, full_ids: Iterable[str]) -> str:
    by_prefix: dict[str, str | None] = {}
    for pid in full_ids:
        short = pid[:10]
        by_prefix[short] = None if by_prefix.get(short, pid) != pid else pid  # ambiguous prefix: keep the old id
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "point_id" not in rows[0]:
        return text
    column = rows[0].index("point_id")
    for row in rows[1:]:
        if len(row) > column and by_prefix.get(row[column]):
            row[column] = by_prefix[row[column]]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _v2_to_v3(text: str, context: dict) -> str:
    """An empty `engine_free_mib` after `gpu_busy_before_mib`: older rows kept no reading of the engine's."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "gpu_busy_before_mib" not in rows[0] or "engine_free_mib" in rows[0]:
        return text
    at = rows[0].index("gpu_busy_before_mib") + 1
    rows[0].insert(at, "engine_free_mib")
    for row in rows[1:]:
        if len(row) >= at:
            row.insert(at, "")
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _columns_at_the_end(text: str, columns: tuple[str, ...]) -> str:
    """`columns`, empty, appended to the header and every whole row (once: a file that has them is left as is)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or columns[-1] in rows[0]:
        return text
    width = len(rows[0])
    rows[0].extend(columns)
    for row in rows[1:]:
        if len(row) == width:  # a row cut short stays short: the writer re-runs it
            row.extend([""] * len(columns))
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _v3_to_v4(text: str, context: dict) -> str:
    """The probe's columns (as v4 named them), empty, at the end: a v3 run probed nothing."""
    return _columns_at_the_end(text, V4_PROBE_COLUMNS)


def _v4_to_v5(text: str, context: dict) -> str:
    """An empty `kv_pools` at the end: a v4 row kept no pools."""
    return _columns_at_the_end(text, POOLS)


def _v5_to_v6(text: str, context: dict) -> str:
    """An empty `dependency_versions` at the end: a v5 row recorded torch's version only."""
    return _columns_at_the_end(text, DEPENDENCIES)


def add_env_lock_column(text: str, context: dict) -> str:
    """An empty `env_lock` at the end: a row written before locks names no env lock."""
    return _columns_at_the_end(text, ENV_LOCK)


def add_sparse_columns(text: str, context: dict) -> str:
    """The sparse columns (SPARSE), empty, at the end: every earlier row was launched (an empty source is measured)."""
    return _columns_at_the_end(text, SPARSE)


# version -> the step to the next version (text in, text out), applied in turn.
MIGRATIONS: dict[int, Callable[[str, dict], str]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4, 4: _v4_to_v5,
                                                     5: _v5_to_v6, 6: v6_to_v7, 7: add_env_lock_column,
                                                     8: add_sparse_columns}


def migrate(text: str, version: int, source: str, context: dict | None = None) -> str:
    """The text of a results file of `version`, as the current format."""
    if version > RESULTS_FORMAT_VERSION:
        raise InputError(
            f"{source}: results format v{version}, this harness reads up to v{RESULTS_FORMAT_VERSION}: "
            "upgrade kv-budget-harness to read it")
    while version < RESULTS_FORMAT_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise InputError(f"{source}: results format v{version} is too old to migrate; re-run the scenario")
        text = step(text, context or {})
        version += 1
    return text


def file_version(text: str, csv_path: Path | None) -> int:
    """The format a results file's text is in: its v1 line, else its run.json, else the current one."""
    first = text.partition("\n")[0]
    in_line = format_version(first)
    if in_line is not None:
        return in_line
    declared = declared_version(csv_path) if csv_path is not None else None
    return declared if declared is not None else RESULTS_FORMAT_VERSION


def read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_RESULTS_BYTES:
            raise InputError(f"{path}: {size:,} bytes; a results CSV is at most {MAX_RESULTS_BYTES:,}")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a results CSV "
                         "(results/<scenario>/<run_id>/results.csv)") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a results CSV (not UTF-8 text)") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


def current_text(path: str | Path, context: dict | None = None) -> str:
    """A results file's text in the current format (migrated in memory when older)."""
    path = Path(path)
    text = read_text(path)
    version = file_version(text, path)
    if version != RESULTS_FORMAT_VERSION:
        context = dict(context or {})
        context.setdefault("full_ids", _scenario_ids(path))
        text = migrate(text, version, str(path), context)
    return text


def _scenario_ids(csv_path: Path) -> list[str]:
    """The current point ids of the scenario run.json records (empty when it cannot be expanded)."""
    try:
        info = json.loads((csv_path.parent / "run.json").read_text(encoding="utf-8"))

        return [p.point_id for p in expand(parse_scenario(info["scenario"]))]
    except Exception:  # noqa: BLE001 - migration of ids is best effort; the rows are still read
        return []


def read_results(path: str | Path) -> pd.DataFrame:
    """Load and check one results CSV; raises InputError naming the file and the cause."""
    return parse_results(current_text(path), source=str(path))


def parse_results(text: str, source: str = "<results>") -> pd.DataFrame:
    """Check and type the text of a current-format results CSV; `source` names it in errors."""
    first = text.partition("\n")[0]
    legacy = format_version(first)
    if legacy is not None:  # text handed over directly, not through read_results
        text = migrate(text, legacy, source)
        first = text.partition("\n")[0]
    header = next(csv.reader([first.lstrip("\ufeff")]), [])
    if not set(IDENTITY) & set(header):
        raise InputError(
            f"{source}: not a kv-budget-harness results CSV (its first line should be the header "
            f"{','.join(COLUMNS[:4])},..., found {first.strip()[:60]!r})")
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise InputError(f"{source}: empty, no CSV header") from None
    except (pd.errors.ParserError, csv.Error) as exc:
        raise InputError(f"{source}: malformed CSV: {str(exc).strip()}") from None
    for column in LATE_COLUMNS:  # a v1 file from before these columns existed
        if column not in frame.columns:
            frame[column] = None
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(f"{source}: missing columns: {', '.join(missing)}")
    extra = [c for c in frame.columns if c not in COLUMNS]
    if extra:
        log.warning("%s: ignoring unknown columns: %s", source, ", ".join(extra))
    frame = frame[list(COLUMNS)].copy()
    _check_values(frame, source)
    return _typed(frame, source)


def predicted_rows(frame: pd.DataFrame) -> pd.Series:
    """True for the rows a sparse run predicted and never launched (source `predicted`): no measurement."""
    if "source" not in frame:
        return pd.Series(False, index=frame.index)
    return frame["source"].eq("predicted")  # empty (every row before v9) is measured


def measured_only(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows that are measurements: what compare, report and advise read (a predicted row is none)."""
    return frame[~predicted_rows(frame)]


def release_key(version) -> str:
    """The release a row's engine_version names, without a local build tag (`0.32.0+cpu` is 0.32.0)."""
    return str(version).split("+")[0] if isinstance(version, str) and version else ""


def _line(index: int) -> int:
    # +2: the header, and 1-based numbering.
    return index + 2


def _check_values(frame: pd.DataFrame, source: str) -> None:
    for column in ("point_id", "repeat", "engine", "scenario", "status"):
        empty = frame.index[frame[column].isna()]
        if len(empty):
            raise InputError(f"{source}: line {_line(empty[0])}: column {column} is empty")
    bad = frame.index[~frame["status"].isin(STATUSES)]
    if len(bad):
        value = frame.at[bad[0], "status"]
        raise InputError(f"{source}: line {_line(bad[0])}: status {value!r} is not one of {', '.join(STATUSES)}")
    sources = frame["source"].dropna()
    bad = sources.index[~sources.isin(SOURCES)]
    if len(bad):
        raise InputError(f"{source}: line {_line(bad[0])}: source {frame.at[bad[0], 'source']!r} is not one of "
                         f"{', '.join(SOURCES)}")
    # A row is (point, release, repeat): one file may hold the same points run on several releases.
    releases = frame["engine_version"].map(release_key) if "engine_version" in frame else ""
    duplicated = frame.index[frame.assign(_release=releases).duplicated(["point_id", "_release", "repeat"],
                                                                        keep="first")]
    if len(duplicated):
        row = frame.loc[duplicated[0]]
        release = f" on {row['engine_version']}" if isinstance(row.get("engine_version"), str) else ""
        raise InputError(f"{source}: line {_line(duplicated[0])}: point {row['point_id']}{release} "
                         f"repeat {row['repeat']} appears twice")


def _typed(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    for column in NUMERIC_COLUMNS:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = frame.index[values.isna() & frame[column].notna()]
        if len(bad):
            raise InputError(f"{source}: line {_line(bad[0])}: {column} {frame.at[bad[0], column]!r} is not a number")
        frame[column] = values
    frame["repeat"] = frame["repeat"].astype(int)
    for column in KNOBS:
        if column in _TEXT_KNOBS:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        if not (values.isna() & frame[column].notna()).any():
            frame[column] = values
    return frame


def scenario_of(frame: pd.DataFrame, source: str) -> str | None:
    """The one scenario a results file is about (None for a file with no rows)."""
    names = sorted(frame["scenario"].dropna().unique())
    if len(names) > 1:
        raise InputError(f"{source}: mixes scenarios {', '.join(names)}; a results CSV holds one scenario's run")
    return names[0] if names else None


# What identifies the machine (gpu_busy_before_mib and engine_free_mib are per-launch readings, not the machine).
MACHINE_IDENTITY = (tuple(c for c in MACHINE if c not in ("gpu_busy_before_mib", "engine_free_mib")) + DEPENDENCIES
                    + ENV_LOCK)


def machine_of(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Each machine column's distinct values, as text (a run normally has one of each)."""
    return {c: sorted({_text(v) for v in frame[c].dropna() if _text(v) != ""}) for c in MACHINE_IDENTITY}


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_csv_text(rows: Iterable[Mapping]) -> str:
    """A whole results file: the header, then one line per row.

    Keys outside COLUMNS are an error (a typo would otherwise vanish silently); missing
    keys are written empty.
    """
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="raise", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: csv_cell(v) for k, v in row.items()})
    return out.getvalue()


def csv_cell(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)  # token counts read back through pandas arrive as floats
    return value


def write_results(rows: Iterable[Mapping], path: str | Path) -> Path:
    """Write a complete results file (tests, tools); the run command appends row by row."""
    return write_text(path, to_csv_text(rows))


def knob_values(frame: pd.DataFrame) -> pd.DataFrame:
    """The knobs of each row as columns: the knob columns plus the keys of `extra_args`.

    `extra_args` holds the engine flags a scenario set outside the named knobs (JSON
    object); a swept one (e.g. vLLM's kv_cache_memory_bytes) must name a point as much as
    a named knob does.
    """
    knobs = frame[[c for c in KNOBS if c != "extra_args"]].copy()
    extras = [_json_object(v) for v in frame["extra_args"]]
    for key in sorted({k for extra in extras for k in extra}):
        if key in knobs.columns:
            continue
        knobs[key] = [extra.get(key) for extra in extras]
    return knobs


def _json_object(text) -> dict:
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        log.warning("extra_args is not JSON, ignored: %.60s", text)
        return {}
    return value if isinstance(value, dict) else {}


def swept_knobs(knobs: pd.DataFrame) -> list[str]:
    """Knob columns with more than one distinct value (empty = engine default counts as one)."""
    return [c for c in knobs.columns if knobs[c].astype(str).nunique(dropna=False) > 1]
