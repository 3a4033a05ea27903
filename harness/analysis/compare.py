"""The engine-upgrade check: two results tables in, what changed per point out.

Rows join on (point_id, repeat): the point id hashes engine, model and resolved args but
not the engine version, so the same scenario run under two engine releases lines up.
Repeats of a point are summarised by their median (and spread) before comparing.

Every point gets a mark. Findings (what makes `compare` exit 1) are the marks and
setting changes beyond tolerance, every change of outcome (a point that started and now
fails, or the reverse, or fails differently, a server that no longer survives its probe)
whatever the tolerance, points present on one side only, and for probed points (`run
--stop-after probe`) a change in what the server did under load: the longest request
served, the length refused (exactly), the requests run at once and the requests that
failed (within the probe's own tolerance). `Comparison.regressions` is the subset that got
worse.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from harness.engines import engine_names, get_engine
from harness.errors import EXIT_FINDING, EXIT_OK, InputError
from harness.formatting import number as _num
from harness.formatting import pct as _pct
from harness.results.columns import COLUMNS
from harness.results.io import knob_values, machine_of, measured_only, predicted_rows, scenario_of, swept_knobs
from harness.results.probe import read_waves
from harness.scenario.point import knob_label

PRIMARY = "kv_tokens"
DEFAULT_TOLERANCE_PCT = 1.0
# A different card, memory size, driver or compile-cache state changes KV sizes by itself.
MACHINE_WARNINGS = ("device_name", "device_total_mib", "driver_version", "compile_cache")
# Host memory sizes closer than this are the same host (memory hot-plug moves MemTotal a little).
HOST_MEMORY_TOLERANCE_PCT = 0.5

# What the probe measured (harness/results/probe.py) that a release may change. Lengths are limits: one token
# more or less is a different limit, so they are compared exactly. Counts of requests have a tolerance of their
# own: with pools of a few requests, one request more or less is already 10-25 %.
PROBE_LENGTHS = ("probe_longest_served_tokens", "probe_refused_tokens")
# A wave's figures (probe_waves) are compared with the same wave of the other file (same shape, same length),
# each named "<wave> <figure>" (decode_heavy@512 peak_running); a threshold names the figure with the probe_
# prefix (probe_peak_running:20%) and holds for every wave.
PROBE_COUNTS = ("probe_peak_running", "probe_failed_requests")
# shown when they change, never a finding: how many requests a scheduler preempts moves with timing
PROBE_NOTED = ("probe_preemptions",)
_WAVE_FIGURES = tuple(c.removeprefix("probe_") for c in (*PROBE_COUNTS, *PROBE_NOTED))
_LOWER_BOUND = "peaks_lower_bound"  # a wave sampled too sparsely (or cut short): its peaks are lower bounds
DEFAULT_PROBE_TOLERANCE_PCT = 10.0


class Mark(str, enum.Enum):
    SAME = "same"
    NOISE = "within tolerance"
    BETTER = "more KV"
    WORSE = "less KV"
    SETTINGS_CHANGED = "settings changed"
    BEHAVIOUR_CHANGED = "behaviour changed"
    NEW_FAILURE = "new failure"
    FIXED = "fixed"
    STILL_FAILING = "still failing"
    ERROR_CHANGED = "error changed"
    NOT_COMPARABLE = "not comparable"
    REMOVED = "only in base"
    ADDED = "only in new"


QUIET_MARKS = frozenset({Mark.SAME, Mark.NOISE, Mark.STILL_FAILING})
WORSE_MARKS = frozenset({Mark.WORSE, Mark.NEW_FAILURE, Mark.REMOVED})


# --- thresholds: `kv_tokens:1%` ------------------------------------------------------

_THRESHOLD_RE = re.compile(r"^\s*([a-z_]+)\s*:\s*([0-9]*\.?[0-9]+)\s*%?\s*$")


@dataclass(frozen=True)
class Threshold:
    column: str
    pct: float

    def __str__(self) -> str:
        return f"{self.column}:{self.pct:g}%"


def settings_columns(engine: str | None = None) -> tuple[str, ...]:
    """Effective settings an engine picks at startup (every engine's for None or an unknown engine):
    a change means the upgrade sizes differently."""
    if engine in engine_names():
        return get_engine(engine).logs.effective_columns
    return tuple(dict.fromkeys(c for name in engine_names() for c in get_engine(name).logs.effective_columns))


def compared_columns() -> tuple[str, ...]:
    return (PRIMARY, *settings_columns(), *PROBE_LENGTHS, *PROBE_COUNTS)


def parse_threshold(text: str) -> Threshold:
    """`COLUMN:P%` -> Threshold; ValueError with a sentence saying what is wrong."""
    match = _THRESHOLD_RE.match(text)
    if not match:
        raise ValueError(f"threshold {text!r} is not COLUMN:PERCENT (for example kv_tokens:1%)")
    column, pct = match.group(1), float(match.group(2))
    if column not in compared_columns():
        raise ValueError(f"threshold {text!r}: {column} is not compared; use one of {', '.join(compared_columns())}")
    return Threshold(column, pct)


def resolve_thresholds(tolerance_pct: float, overrides: list[Threshold] = (),
                       probe_tolerance_pct: float = DEFAULT_PROBE_TOLERANCE_PCT) -> dict[str, float]:
    """Every compared column's tolerance: `tolerance_pct` for what the engine logged, `probe_tolerance_pct` for
    the probe's request counts, 0 for the probe's lengths, unless a threshold names the column."""
    for option, value in (("--tolerance-pct", tolerance_pct), ("--probe-tolerance-pct", probe_tolerance_pct)):
        if value < 0 or math.isnan(value):
            raise InputError(f"{option} must be >= 0, got {value}")
    limits = {column: float(tolerance_pct) for column in (PRIMARY, *settings_columns())}
    limits.update(dict.fromkeys(PROBE_LENGTHS, 0.0))
    limits.update({column: float(probe_tolerance_pct) for column in PROBE_COUNTS})
    limits.update({t.column: t.pct for t in overrides})
    return limits


# --- result model ----------------------------------------------------------------------


@dataclass
class Side:
    """One point's repeats in one file."""

    repeats: list[int]
    outcomes: list[str]  # per repeat: "ok" or "status/error_kind"
    messages: list[str]
    kv: list[float]  # kv_tokens of the ok repeats that logged it
    settings: dict[str, float | None]
    engine_version: str | None
    # Repeats the harness itself failed (busy GPU, no engine env): they say nothing about
    # the engine, so they are left out of `repeats` and `outcomes`.
    harness_errors: list[str] = field(default_factory=list)
    # On a CPU host: the memory the engine sized its pool from (device_total_mib), None elsewhere.
    host_memory_mib: float | None = None
    # What the probe measured on the ok repeats (median per column); empty where the point was not probed.
    probe: dict[str, float | None] = field(default_factory=dict)

    @property
    def measured(self) -> bool:
        return bool(self.repeats)

    @property
    def failed(self) -> bool:
        return any(o != "ok" for o in self.outcomes)

    @property
    def all_failed(self) -> bool:
        return bool(self.outcomes) and all(o != "ok" for o in self.outcomes)

    @property
    def kv_median(self) -> float | None:
        return float(pd.Series(self.kv).median()) if self.kv else None

    @property
    def kv_spread_pct(self) -> float | None:
        """(max - min) / median of the repeats, in %; None with fewer than two."""
        if len(self.kv) < 2 or not self.kv_median:
            return None
        return (max(self.kv) - min(self.kv)) / self.kv_median * 100

    def outcome_text(self) -> str:
        distinct = list(dict.fromkeys(self.outcomes))
        if len(distinct) == 1:
            return distinct[0]
        return ", ".join(f"r{r}:{o}" for r, o in zip(self.repeats, self.outcomes))

    def to_json(self) -> dict[str, Any]:
        return {
            "repeats": self.repeats,
            "outcomes": self.outcomes,
            "error_messages": self.messages,
            "kv_tokens": self.kv,
            "kv_tokens_median": self.kv_median,
            "kv_spread_pct": self.kv_spread_pct,
            "settings": self.settings,
            "engine_version": self.engine_version,
            "harness_errors": self.harness_errors, "probe": self.probe,
        }


@dataclass
class Change:
    """One compared number before and after."""

    column: str
    base: float | None
    new: float | None
    tolerance_pct: float

    @property
    def delta(self) -> float | None:
        return None if self.base is None or self.new is None else self.new - self.base

    @property
    def pct(self) -> float | None:
        if self.delta is None:
            return None
        if self.base == 0:
            return 0.0 if self.new == 0 else math.inf
        return self.delta / abs(self.base) * 100

    @property
    def ratio(self) -> float | None:
        if self.delta is None or self.base == 0:
            return None
        return self.new / self.base

    @property
    def changed(self) -> bool:
        return self.base != self.new

    @property
    def beyond(self) -> bool:
        """Outside tolerance; a value that appeared or vanished always is."""
        if (self.base is None) != (self.new is None):
            return True
        return self.pct is not None and abs(self.pct) > self.tolerance_pct

    def text(self) -> str:
        before, after = _num(self.base), _num(self.new)
        if self.pct is None:
            return f"{self.column} {before} -> {after}"
        return f"{self.column} {before} -> {after} ({_pct(self.pct)})"

    def to_json(self) -> dict[str, Any]:
        return {"column": self.column, "base": self.base, "new": self.new, "delta": self.delta,
                "pct": self.pct, "ratio": self.ratio, "tolerance_pct": self.tolerance_pct, "beyond": self.beyond}


@dataclass
class PointComparison:
    point_id: str
    engine: str
    knobs: dict[str, Any]
    base: Side | None
    new: Side | None
    mark: Mark = Mark.SAME
    kv: Change | None = None
    settings: list[Change] = field(default_factory=list)  # the ones that changed
    behaviour: list[Change] = field(default_factory=list)  # what the probe measured, the ones that changed
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        knobs = knob_label(self.knobs, sep=", ", empty="")
        return f"{self.engine} {self.point_id}" + (f" ({knobs})" if knobs else "")

    @property
    def ratio(self) -> float | None:
        return self.kv.ratio if self.kv else None

    def to_json(self) -> dict[str, Any]:
        return {
            "point_id": self.point_id, "engine": self.engine, "knobs": self.knobs, "label": self.label,
            "mark": self.mark.value, "ratio": self.ratio,
            "kv_tokens": self.kv.to_json() if self.kv else None,
            "settings_changed": [c.to_json() for c in self.settings],
            "behaviour_changed": [c.to_json() for c in self.behaviour],
            "base": self.base.to_json() if self.base else None,
            "new": self.new.to_json() if self.new else None,
            "findings": self.findings, "notes": self.notes,
        }


@dataclass
class SideInfo:
    """What one file says about where and with what it ran."""

    name: str
    scenario: str | None
    run_ids: list[str]
    engine_versions: dict[str, list[str]]
    machine: dict[str, list[str]]
    rows: int

    def to_json(self) -> dict[str, Any]:
        return {"file": self.name, "scenario": self.scenario, "run_ids": self.run_ids,
                "engine_versions": self.engine_versions, "machine": self.machine, "rows": self.rows}


@dataclass
class Comparison:
    base: SideInfo
    new: SideInfo
    thresholds: dict[str, float]
    points: list[PointComparison]
    warnings: list[str]
    # the packages that differ between the two runs' envs (their locks; harness/analysis/package_changes.py)
    package_changes: list[Any] = field(default_factory=list)

    @property
    def findings(self) -> list[str]:
        return [f for p in self.points for f in p.findings]

    @property
    def regressions(self) -> list[PointComparison]:
        """Points that got worse: less KV, a new failure, or gone from the new file."""
        return [p for p in self.points if p.mark in WORSE_MARKS]

    @property
    def changed(self) -> list[PointComparison]:
        return [p for p in self.points if p.findings]

    @property
    def probed(self) -> bool:
        """Whether any point was probed on either side (else the probe's tolerances are not worth a mention)."""
        return any(side.probe for p in self.points for side in (p.base, p.new) if side is not None)

    @property
    def exit_code(self) -> int:
        return EXIT_FINDING if self.findings else EXIT_OK

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for p in self.points:
            counts[p.mark.value] = counts.get(p.mark.value, 0) + 1
        return counts

    def summary(self) -> str:
        host = sum(1 for p in self.points if p.mark is Mark.NOT_COMPARABLE and not p.findings)
        unjudged = f"; {host} not comparable (other host memory)" if host else ""
        if not self.findings:
            return f"no change beyond tolerance in {len(self.points)} points{unjudged}"
        marks = ", ".join(f"{n} {m}" for m, n in self.counts().items() if Mark(m) not in QUIET_MARKS)
        return f"{len(self.changed)} of {len(self.points)} points changed ({marks}){unjudged}"

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base.to_json(), "new": self.new.to_json(), "thresholds_pct": self.thresholds,
            "warnings": self.warnings, "exit_code": self.exit_code, "summary": self.summary(),
            "package_changes": [c.to_json() for c in self.package_changes],
            "findings": self.findings, "regressions": [p.point_id for p in self.regressions],
            "points": [p.to_json() for p in self.points],
        }


# --- the comparison ----------------------------------------------------------------------


def compare_results(
    base: pd.DataFrame,
    new: pd.DataFrame,
    tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
    thresholds: list[Threshold] = (),
    base_name: str = "base",
    new_name: str = "new",
    probe_tolerance_pct: float = DEFAULT_PROBE_TOLERANCE_PCT,
) -> Comparison:
    """Compare two checked results tables (see harness.results.io.read_results).

    Raises InputError when they are about different scenarios.
    """
    limits = resolve_thresholds(tolerance_pct, list(thresholds), probe_tolerance_pct)
    # In-memory tables (run --baseline) may lack columns a CSV always has.
    base, new = base.reindex(columns=list(COLUMNS)), new.reindex(columns=list(COLUMNS))
    left_out = [f"{name}: {n} predicted rows of a sparse run left out (never launched: no measurement to compare)"
                for name, n in ((base_name, int(predicted_rows(base).sum())),
                                (new_name, int(predicted_rows(new).sum()))) if n]
    base, new = measured_only(base), measured_only(new)
    base_info, new_info = _side_info(base, base_name), _side_info(new, new_name)
    if base_info.scenario and new_info.scenario and base_info.scenario != new_info.scenario:
        raise InputError(
            f"different scenarios: {base_name} is {base_info.scenario!r}, {new_name} is {new_info.scenario!r}"
        )
    labels = point_knobs(pd.concat([base, new], ignore_index=True))
    base_sides, new_sides = _sides(base), _sides(new)
    engines = {**dict(zip(new["point_id"], new["engine"])), **dict(zip(base["point_id"], base["engine"]))}
    points = [
        _compare_point(pid, str(engines[pid]), labels.get(pid, {}), base_sides.get(pid), new_sides.get(pid),
                       limits, base_name, new_name)
        for pid in _ordered_ids(base, new)
    ]
    return Comparison(base_info, new_info, limits, points,
                      _machine_warnings(base_info, new_info) + _probe_warnings(base, new, base_name, new_name)
                      + left_out)


def _probe_warnings(base: pd.DataFrame, new: pd.DataFrame, base_name: str, new_name: str) -> list[str]:
    """A probed run against one that was not. Their points join: a point is its settings (point_id), and the
    probe is a stage like `ready`, not a setting; what the probe adds to a launch (the serving role's flags,
    SGLang's --enable-metrics) serves the probe and does not size the pool, so the KV figures compare. But the
    launches were not the same, and that is said here, once, rather than left to a note per point."""
    probed = {name: bool(frame["probe_limits"].notna().any()) for name, frame in ((base_name, base),
                                                                                  (new_name, new))}
    if probed[base_name] == probed[new_name]:
        return []
    yes, no = (base_name, new_name) if probed[base_name] else (new_name, base_name)
    return [(f"{yes} was probed (stop_after: probe), {no} was not: the same points, launched with the probe's "
            "serving flags on one side only (SGLang: --enable-metrics); the KV figures are compared, "
            "the behaviour under load is not")]


def _ordered_ids(base: pd.DataFrame, new: pd.DataFrame) -> list[str]:
    # Base order first (the sweep order), then points only the new file has.
    return list(dict.fromkeys(list(base["point_id"]) + list(new["point_id"])))


def _side_info(frame: pd.DataFrame, name: str) -> SideInfo:
    versions: dict[str, list[str]] = {}
    for engine, group in frame.groupby("engine", sort=True):
        versions[str(engine)] = sorted({str(v) for v in group["engine_version"].dropna()})
    return SideInfo(
        name=name, scenario=scenario_of(frame, name), run_ids=sorted({str(v) for v in frame["run_id"].dropna()}),
        engine_versions=versions, machine=machine_of(frame), rows=len(frame),
    )


def _machine_warnings(base: SideInfo, new: SideInfo) -> list[str]:
    warnings = []
    for column in MACHINE_WARNINGS:
        before, after = base.machine.get(column, []), new.machine.get(column, [])
        if before and after and before != after:
            warnings.append(
                f"{column} differs: {', '.join(before)} ({base.name}) vs {', '.join(after)} ({new.name}): "
                "KV numbers may not be comparable"
            )
    return warnings


def point_knobs(frame: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per point, the knobs that tell it apart from the engine's other points."""
    knobs = knob_values(frame)
    out: dict[str, dict[str, Any]] = {}
    for _engine, rows in frame.groupby("engine", sort=False):
        engine_knobs = knobs.loc[rows.index]
        names = swept_knobs(engine_knobs)
        for index in rows.index:
            pid = frame.at[index, "point_id"]
            if pid not in out:
                out[pid] = {n: _plain(engine_knobs.at[index, n]) for n in names}
    return out


def _sides(frame: pd.DataFrame) -> dict[str, Side]:
    sides = {}
    for pid, all_rows in frame.sort_values("repeat").groupby("point_id", sort=False):
        harness = all_rows[all_rows["status"] == "harness_error"]
        rows = all_rows[all_rows["status"] != "harness_error"]
        ok = rows[rows["status"] == "ok"]
        versions = sorted({str(v) for v in rows["engine_version"].dropna()})
        engines = all_rows["engine"].dropna().unique()
        columns = settings_columns(str(engines[0]) if len(engines) == 1 else None)
        sides[pid] = Side(
            repeats=[int(r) for r in rows["repeat"]],
            outcomes=[_outcome(s, k) for s, k in zip(rows["status"], rows["error_kind"])],
            messages=[str(m) for m in rows["error_message"].dropna()],
            kv=[float(v) for v in ok[PRIMARY].dropna()],
            settings={c: _median(ok[c]) for c in columns},
            engine_version=", ".join(versions) or None,
            harness_errors=[f"r{int(r)}: {m if isinstance(m, str) and m else 'harness_error'}"
                            for r, m in zip(harness["repeat"], harness["error_message"])],
            host_memory_mib=_host_memory(rows),
            probe=_probed(ok),
        )
    return sides


def _probed(ok: pd.DataFrame) -> dict[str, float | None]:
    """The probe's lengths, and each wave's figures as "<wave> <figure>", medians over the repeats."""
    probed = ok[ok["probe_limits"].notna()] if "probe_limits" in ok else ok.iloc[:0]
    if probed.empty:
        return {}
    out = {c: _median(pd.to_numeric(probed[c], errors="coerce")) for c in PROBE_LENGTHS}
    figures: dict[str, list] = {}
    for text in probed["probe_waves"]:
        for wave in read_waves(text):
            for name in _WAVE_FIGURES:
                figures.setdefault(f"{wave['wave']} {name}", []).append(wave.get(name))
            bound = bool(wave.get(_LOWER_BOUND) or wave.get("cut"))
            figures.setdefault(f"{wave['wave']} {_LOWER_BOUND}", []).append(float(bound))
    out.update({key: _median(pd.to_numeric(pd.Series(values, dtype=object), errors="coerce"))
                for key, values in figures.items()})
    return out


def _wave_names(probe: dict[str, float | None]) -> list[str]:
    return list(dict.fromkeys(k.split(" ")[0] for k in probe if k.endswith(f" {_LOWER_BOUND}")))


def _host_memory(rows: pd.DataFrame) -> float | None:
    cpu = rows[rows["device_name"].astype(str).str.startswith("cpu")]
    return _median(pd.to_numeric(cpu["device_total_mib"], errors="coerce"))


def _host_memory_differs(base: Side, new: Side) -> bool:
    a, b = base.host_memory_mib, new.host_memory_mib
    return a is not None and b is not None and abs(a - b) > HOST_MEMORY_TOLERANCE_PCT / 100 * max(a, b)


def _not_comparable_host(point: PointComparison, base: Side, new: Side) -> None:
    """A CPU engine sizes its pool from host memory: on a host with other memory, a KV or outcome change
    says nothing about the engine. The point is marked, with the two sizes, and is not a finding."""
    point.mark = Mark.NOT_COMPARABLE
    point.findings.clear()
    point.notes.append(f"not comparable: host memory {base.host_memory_mib:,.0f} MiB vs "
                       f"{new.host_memory_mib:,.0f} MiB (the CPU backend sizes KV from it)"
                       + (f"; {point.kv.text()}" if point.kv and point.kv.changed else ""))


def _outcome(status: str, error_kind: Any) -> str:
    if status == "ok":
        return "ok"
    return f"{status}/{error_kind}" if isinstance(error_kind, str) and error_kind else str(status)


def _median(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.median()) if len(values) else None


def _compare_point(pid, engine, knobs, base: Side | None, new: Side | None, limits, base_name,
                   new_name) -> PointComparison:
    point = PointComparison(pid, engine, knobs, base, new)
    if base is None or new is None:
        point.mark = Mark.ADDED if base is None else Mark.REMOVED
        where, missing = (new_name, base_name) if base is None else (base_name, new_name)
        point.findings.append(f"{point.label}: only in {where} (no row in {missing})")
        return point
    if not (base.measured and new.measured):
        # The harness, not the engine, failed: the point was not checked, which must not pass silently.
        point.mark = Mark.NOT_COMPARABLE
        for name, side in ((base_name, base), (new_name, new)):
            if not side.measured:
                point.findings.append(f"{point.label}: not measured in {name} "
                                      f"(harness error: {side.harness_errors[0][:160]})")
        return point
    point.kv = Change(PRIMARY, base.kv_median, new.kv_median, limits[PRIMARY])
    _note_repeats(point, base, new, limits[PRIMARY])
    for name, side in (("base", base), ("new", new)):
        if side.harness_errors:
            point.notes.append(f"{name}: repeats left out after a harness error: {'; '.join(side.harness_errors)}")
    if base.failed or new.failed:
        _compare_outcomes(point, base, new)
    else:
        _compare_kv(point)
        _compare_settings(point, base, new, limits)
        _compare_probe(point, base, new, limits)
    if point.findings and _host_memory_differs(base, new):
        _not_comparable_host(point, base, new)
    return point


def _compare_outcomes(point: PointComparison, base: Side, new: Side) -> None:
    was, now = base.outcome_text(), new.outcome_text()
    detail = f" ({new.messages[0][:160]})" if new.failed and new.messages else ""
    if not base.failed:
        point.mark = Mark.NEW_FAILURE
        point.findings.append(f"{point.label}: started before, fails now: {was} -> {now}{detail}")
    elif not new.failed:
        point.mark = Mark.FIXED
        point.findings.append(f"{point.label}: failed before, starts now: {was} -> {now}")
    elif sorted(set(base.outcomes)) != sorted(set(new.outcomes)):
        point.mark = Mark.ERROR_CHANGED
        point.findings.append(f"{point.label}: fails differently: {was} -> {now}{detail}")
    else:
        point.mark = Mark.STILL_FAILING


def _compare_kv(point: PointComparison) -> None:
    kv = point.kv
    if kv.base is None and kv.new is None:
        point.mark = Mark.NOT_COMPARABLE
        point.notes.append("kv_tokens logged on neither side")
        return
    if kv.base is None or kv.new is None:
        point.mark = Mark.NOT_COMPARABLE
        side = "base" if kv.base is None else "new"
        point.findings.append(f"{point.label}: {kv.text()}: no kv_tokens in the {side} file although the point started")
        return
    if not kv.changed:
        point.mark = Mark.SAME
    elif not kv.beyond:
        point.mark = Mark.NOISE
    else:
        point.mark = Mark.BETTER if kv.new > kv.base else Mark.WORSE
        point.findings.append(f"{point.label}: {kv.text()}, beyond the {kv.tolerance_pct:g}% tolerance")


def _compare_settings(point: PointComparison, base: Side, new: Side, limits: dict[str, float]) -> None:
    for column in [c for c in base.settings if c in new.settings]:
        change = Change(column, base.settings[column], new.settings[column], limits[column])
        if not change.changed:
            continue
        point.settings.append(change)
        if not change.beyond and point.mark is Mark.SAME:
            point.mark = Mark.NOISE
        if change.beyond:
            point.findings.append(f"{point.label}: {change.text()}, beyond the {change.tolerance_pct:g}% tolerance")
            if point.mark in QUIET_MARKS:
                point.mark = Mark.SETTINGS_CHANGED


def _compare_probe(point: PointComparison, base: Side, new: Side, limits: dict[str, float]) -> None:
    """What the server did under the probe, where both sides probed it (a wave against a wave of its length)."""
    if not (base.probe or new.probe):
        return
    if not (base.probe and new.probe):
        point.notes.append(f"probed in the {'base' if base.probe else 'new'} file only: behaviour not compared")
        return
    base_waves, new_waves = _wave_names(base.probe), _wave_names(new.probe)
    for side, waves, other in (("base", base_waves, new_waves), ("new", new_waves, base_waves)):
        alone = [w for w in waves if w not in other]
        if alone:
            point.notes.append(f"waves in the {side} file only, not compared: {', '.join(alone)}")
    shared = [w for w in base_waves if w in new_waves]
    sparse = [w for w in shared if base.probe[f"{w} {_LOWER_BOUND}"] or new.probe[f"{w} {_LOWER_BOUND}"]]
    if sparse:
        point.notes.append(f"sampled sparsely or cut short: {', '.join(sparse)} (its peaks are lower bounds)")
    figures = [(c, c) for c in PROBE_LENGTHS] + [(f"{w} {c.removeprefix('probe_')}", c) for w in shared
                                                 for c in (*PROBE_COUNTS, *PROBE_NOTED)]
    for key, column in figures:
        change = Change(key, base.probe.get(key), new.probe.get(key), limits.get(column, 0.0))
        if not change.changed:
            continue
        point.behaviour.append(change)
        if column in PROBE_NOTED:
            point.notes.append(f"under the probe: {change.text()}")
        elif change.beyond:
            point.findings.append(f"{point.label}: under the probe, {change.text()}, beyond the "
                                  f"{change.tolerance_pct:g}% tolerance")
            if point.mark in QUIET_MARKS:
                point.mark = Mark.BEHAVIOUR_CHANGED
        elif point.mark is Mark.SAME:
            point.mark = Mark.NOISE


def _note_repeats(point: PointComparison, base: Side, new: Side, tolerance_pct: float) -> None:
    if base.repeats != new.repeats:
        point.notes.append(f"repeats differ: {base.repeats} (base) vs {new.repeats} (new); medians compared")
    for name, side in (("base", base), ("new", new)):
        spread = side.kv_spread_pct
        if spread is not None and spread > tolerance_pct:
            point.notes.append(f"{name} repeats spread {spread:.2f}% > tolerance {tolerance_pct:g}%: the runs disagree")


# --- formatting helpers shared by the renderers -----------------------------------------


def _plain(value: Any) -> Any:
    """NaN -> None and whole floats -> int, so labels and JSON read like the scenario."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if hasattr(value, "item"):  # numpy scalar
        return _plain(value.item())
    return value
