"""Reading and checking a results CSV, and the format-version line.

A results file starts with one comment line naming its format version,
`# kv-budget-harness results v1`, then a CSV header with exactly `COLUMNS`. A file of
another version, a file without that line, or one missing a column is refused with a
one-line `InputError`: a misread table would make `compare` report changes that are
not there.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from harness.errors import InputError
from harness.results.columns import (
    COLUMNS,
    KNOBS,
    LATE_COLUMNS,
    MACHINE,
    MEASURED,
    PREDICTED,
    RESULTS_FORMAT_VERSION,
    STATUSES,
    TIMING,
)

log = logging.getLogger(__name__)

FORMAT_PREFIX = "# kv-budget-harness results v"
FORMAT_LINE = f"{FORMAT_PREFIX}{RESULTS_FORMAT_VERSION}"
_FORMAT_RE = re.compile(r"^# kv-budget-harness results v(\d+)\s*$")

# Columns holding numbers; an unparsable value there is a corrupt file, not a zero.
NUMERIC_COLUMNS = ("repeat", "device_total_mib", "gpu_busy_before_mib") + MEASURED + PREDICTED + TIMING
# Knobs are numbers except where a scenario used an engine spelling ("auto", "32k").
_TEXT_KNOBS = ("kv_cache_dtype", "extra_args")


def format_version(first_line: str) -> int | None:
    """The version a first line declares, or None when it is not our format line."""
    match = _FORMAT_RE.match(first_line.strip("\ufeff\r\n"))
    return int(match.group(1)) if match else None


def read_results(path: str | Path) -> pd.DataFrame:
    """Load and check one results CSV; raises InputError naming the file and the cause."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a results CSV (results/<scenario>/<run_id>/results.csv)") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a results CSV (not UTF-8 text)") from None
    return parse_results(text, source=str(path))


def parse_results(text: str, source: str = "<results>") -> pd.DataFrame:
    """Check and type the text of a results CSV; `source` names it in errors."""
    first, _, body = text.partition("\n")
    version = format_version(first)
    if version is None:
        raise InputError(
            f"{source}: not a kv-budget-harness results CSV (first line should be {FORMAT_LINE!r}, "
            f"found {first.strip()[:60]!r})"
        )
    if version != RESULTS_FORMAT_VERSION:
        newer = version > RESULTS_FORMAT_VERSION
        raise InputError(
            f"{source}: results format v{version}, this harness reads v{RESULTS_FORMAT_VERSION}: "
            + ("upgrade kv-budget-harness to read it" if newer else "re-run the scenario with this harness to get a v1 file")
        )
    try:
        frame = pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False, na_values=[""])
    except pd.errors.EmptyDataError:
        raise InputError(f"{source}: no CSV header after the format line") from None
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


def _line(index: int) -> int:
    # +3: the format line, the header, and 1-based numbering.
    return index + 3


def _check_values(frame: pd.DataFrame, source: str) -> None:
    for column in ("point_id", "repeat", "engine", "scenario", "status"):
        empty = frame.index[frame[column].isna()]
        if len(empty):
            raise InputError(f"{source}: line {_line(empty[0])}: column {column} is empty")
    bad = frame.index[~frame["status"].isin(STATUSES)]
    if len(bad):
        value = frame.at[bad[0], "status"]
        raise InputError(f"{source}: line {_line(bad[0])}: status {value!r} is not one of {', '.join(STATUSES)}")
    duplicated = frame.index[frame.duplicated(["point_id", "repeat"], keep="first")]
    if len(duplicated):
        row = frame.loc[duplicated[0]]
        raise InputError(f"{source}: line {_line(duplicated[0])}: point {row['point_id']} repeat {row['repeat']} appears twice")


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


# What identifies the machine (gpu_busy_before_mib is a per-launch reading, not the machine).
MACHINE_IDENTITY = tuple(c for c in MACHINE if c != "gpu_busy_before_mib")


def machine_of(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Each machine column's distinct values, as text (a run normally has one of each)."""
    return {c: sorted({_text(v) for v in frame[c].dropna() if _text(v) != ""}) for c in MACHINE_IDENTITY}


def _text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def to_csv_text(rows: Iterable[Mapping]) -> str:
    """A whole results file: the format line, then the header and one line per row.

    Keys outside COLUMNS are an error (a typo would otherwise vanish silently); missing
    keys are written empty.
    """
    out = io.StringIO()
    out.write(FORMAT_LINE + "\n")
    writer = csv.DictWriter(out, fieldnames=COLUMNS, extrasaction="raise", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return int(value)  # token counts read back through pandas arrive as floats
    return value


def write_results(rows: Iterable[Mapping], path: str | Path) -> Path:
    """Write a complete results file (tests, tools); the run command appends row by row."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_csv_text(rows), encoding="utf-8")
    return path


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
