"""`compare --explain`: why each changed point changed. A KV change is split into named terms that add up to it
(each from the rows and their logs where they state it, else from the predictor's release rules) plus a residual
that is never hidden; every other changed figure is named by the release rules that moved it, each with its source.

The split itself is the engine's (`BudgetFormulas.split_kv`, harness/engines/<engine>/explain.py); this module
gathers each side's facts (row, re-read log, prediction), adds the residual and judges:

- explained: |residual| is at most one block/page (none where every term is exact: a pool given in bytes or capped
  by --max-total-tokens) and so is what the logs' rounding can move between the terms (KV), or a changed rule is
  named and the predictor gives both figures (other figures; an outcome from each side's own logged memory where its
  engine pins it). A term solved from a side's own log (SGLang's memory taken after loading) is bounded by the
  predictor's estimate of it and the logs' printed precision: what its change has beyond that is residual;
- within the logs' rounding: a KV residual no larger than what the logs' rounded figures can hide, or within a
  page but with terms the logs' rounding leaves uncertain by more (the figure is shown);
- rule named: a changed rule is named, but the predictor does not give that figure to check it;
- a crash outside the budget: an outcome that changed because a side stopped with an exception no budget rule is
  about (its own line is shown), while the predictor gives the other side's outcome as logged: the budget did not
  decide the change, and it is not counted as explained;
- unexplained: anything else - the residual is shown, and no rule is claimed.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis.compare import Comparison, PointComparison, settings_columns
from harness.engines import get_engine
from harness.engines.explaining import KvSplit, SideFacts, Term, pool_split
from harness.engines.predicting import predict
from harness.envs.dists import changed_versions
from harness.errors import InputError
from harness.formatting import number as _num
from harness.predict import load_model_description
from harness.results.columns import COLUMNS
from harness.results.io import knob_values, release_key
from harness.scenario import expand, parse_scenario
from parsers import parse_log, read_log

EXPLAINED = "explained"
WITHIN_LOG_ROUNDING = "within the logs' rounding"
RULE_NAMED = "rule named (not checked)"
CRASH_OUTSIDE_BUDGET = "a crash outside the budget"
UNEXPLAINED = "unexplained"
STATUSES = (EXPLAINED, WITHIN_LOG_ROUNDING, RULE_NAMED, CRASH_OUTSIDE_BUDGET, UNEXPLAINED)

# Figures besides the KV size that are explained when they change (the compared settings come from compare).
EXTRA_FIGURES = ("estimated_max_model_len",)
# The dependency versions shown beside the releases (a change there moves figures too).
DEPENDENCY_COLUMNS = ("torch_version", "dependency_versions")
# The inputs a figure depends on besides the release: shown when they differ between the sides.
INPUT_COLUMNS = ("device_total_mib", "engine_free_mib")


@dataclass
class RunSource:
    """One results file as --explain reads it: its rows, its folder (logs are relative to it) and the scenario its
    run.json recorded (None without one: the points' settings then come from the rows' knobs)."""

    frame: pd.DataFrame
    folder: Path | None = None
    scenario: Any = None

    def __post_init__(self) -> None:
        # in-memory tables (run --baseline, tests) may lack columns a CSV always has
        self.frame = self.frame.reindex(columns=list(dict.fromkeys([*COLUMNS, *self.frame.columns])))

    @classmethod
    def from_csv(cls, path: str | Path, frame: pd.DataFrame) -> RunSource:
        folder = Path(path).parent
        scenario = None
        run_json = folder / "run.json"
        if run_json.is_file():
            try:
                scenario = parse_scenario(json.loads(run_json.read_text()).get("scenario"), run_json)
            except (InputError, ValueError, TypeError):
                scenario = None  # an unreadable scenario leaves the rows' knobs, which every row has
        return cls(frame, folder, scenario)

    def with_rows(self, frame: pd.DataFrame) -> RunSource:
        """The same run read through a part of its rows (one release of a release-axis run)."""
        return RunSource(frame, self.folder, self.scenario)

    @functools.cached_property
    def points(self) -> dict[str, Any]:
        if self.scenario is None:
            return {}
        return {p.point_id: p for p in expand(self.scenario)}


@dataclass
class KvExplanation:
    kv_delta_tokens: int
    terms: list[Term]
    residual_tokens: int
    grain_tokens: int
    log_rounding_tokens: int
    modelled: bool
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    uncertainty_tokens: int = 0  # how far the logs' rounding can move tokens between pinned terms
    bytes_per_token: float | None = None
    exact: bool = False  # every term exact: no residual is allowed, not even one block

    @property
    def residual_gib(self) -> float | None:
        return None if self.bytes_per_token is None else self.residual_tokens * self.bytes_per_token / 2**30

    @property
    def allowed_tokens(self) -> int:
        """The residual the split's arithmetic allows: one block/page, none where every term is exact."""
        return 0 if self.exact else self.grain_tokens

    @property
    def status(self) -> str:
        if not self.modelled:
            return UNEXPLAINED
        within_grain = abs(self.residual_tokens) <= self.allowed_tokens
        if within_grain and self.uncertainty_tokens <= self.allowed_tokens:
            return EXPLAINED
        if within_grain or abs(self.residual_tokens) <= self.log_rounding_tokens:
            return WITHIN_LOG_ROUNDING
        return UNEXPLAINED

    def to_json(self) -> dict[str, Any]:
        return {"kv_delta_tokens": self.kv_delta_tokens, "terms": [t.to_json() for t in self.terms],
                "residual_tokens": self.residual_tokens, "residual_gib": self.residual_gib,
                "grain_tokens": self.grain_tokens, "exact": self.exact,
                "log_rounding_tokens": self.log_rounding_tokens, "uncertainty_tokens": self.uncertainty_tokens,
                "modelled": self.modelled, "reason": self.reason, "status": self.status, "notes": self.notes}


@dataclass
class FigureExplanation:
    """A changed figure other than the KV size, and the rules that changed between the two releases for it."""

    column: str
    before: Any
    after: Any
    rules: list[str]
    predicted_before: Any = None
    predicted_after: Any = None
    checked: bool = False  # the predictor gives this figure on both sides
    reproduced: bool = False  # ... and it gives the measured values
    crashed: list[str] = field(default_factory=list)  # releases whose side crashed outside the budget (outcome only)
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.crashed:
            return CRASH_OUTSIDE_BUDGET
        if self.checked:
            return EXPLAINED if self.reproduced else UNEXPLAINED
        return RULE_NAMED if self.rules else UNEXPLAINED

    def to_json(self) -> dict[str, Any]:
        return {"column": self.column, "before": self.before, "after": self.after, "rules": self.rules,
                "predicted_before": self.predicted_before, "predicted_after": self.predicted_after,
                "crashed": self.crashed, "status": self.status, "notes": self.notes}


@dataclass
class PointExplanation:
    point_id: str
    engine: str
    label: str
    before_release: str
    after_release: str
    versions: dict[str, list[Any]] = field(default_factory=dict)  # dependency column -> [before, after]
    kv: KvExplanation | None = None
    figures: list[FigureExplanation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def statuses(self) -> list[str]:
        return ([self.kv.status] if self.kv else []) + [f.status for f in self.figures]

    def to_json(self) -> dict[str, Any]:
        # the KV split's keys (kv_delta_tokens, terms, residual_tokens, status, ...) sit on the point itself
        return {"point_id": self.point_id, "engine": self.engine, "label": self.label,
                "releases": [self.before_release, self.after_release], "versions": self.versions,
                **(self.kv.to_json() if self.kv else {"kv_delta_tokens": None}),
                "figures": [f.to_json() for f in self.figures],
                "notes": self.notes + (self.kv.notes if self.kv else [])}


@dataclass
class Explanation:
    points: list[PointExplanation]

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for point in self.points:
            for status in point.statuses:
                counts[status] += 1
        return counts

    @property
    def unexplained(self) -> int:
        return self.counts()[UNEXPLAINED]

    def summary(self) -> str:
        counts = self.counts()
        total = sum(counts.values())
        if not total:
            return "explain: no changed figure to explain"
        return f"explain: {total} change{'s' if total != 1 else ''}: " + ", ".join(
            f"{n} {status}" for status, n in counts.items() if n or status in (EXPLAINED, UNEXPLAINED))

    def to_json(self) -> dict[str, Any]:
        return {"summary": self.summary(), "counts": self.counts(), "points": [p.to_json() for p in self.points]}


# --- gathering ---------------------------------------------------------------------------------------------------


def explain_comparison(comparison: Comparison, base: RunSource, new: RunSource) -> Explanation:
    """Every point of `comparison` whose KV size, a compared setting, an extra figure or its outcome changed."""
    models: dict[str, Any] = {}
    points = []
    for point in comparison.points:
        if point.base is None or point.new is None or not (point.base.measured and point.new.measured):
            continue
        before, after = _facts(point, base, models), _facts(point, new, models)
        if before is None or after is None:
            continue
        explained = _explain_point(point, before, after)
        explained.notes += dependency_cause(explained, comparison.package_changes)
        if explained.kv is not None or explained.figures:
            points.append(explained)
    return Explanation(points)


def dependency_cause(point: PointExplanation, package_changes: list[Any], shown: int = 4) -> list[str]:
    """Where no release rule covers a change of the point and the runs' envs differ in packages of its engine
    (their locks): those packages named as a possible cause, the memory-moving ones first."""
    if UNEXPLAINED not in point.statuses:
        return []
    changes = [c for c in package_changes if c.engine == point.engine]
    if not changes:
        return []
    named = ", ".join(c.change.text() + (" (moves memory)" if c.change.moves_memory else "") for c in changes[:shown])
    more = f" and {len(changes) - shown} more" if len(changes) > shown else ""
    return [f"possible cause: no release rule covers this change, and the envs' packages differ: {named}{more}"]


def _row(source: RunSource, point_id: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The point's row on one side (an ok repeat first), with its knobs and extra args as columns, and those knobs
    alone (the ones set)."""
    rows = source.frame[source.frame["point_id"] == point_id]
    rows = rows[rows["status"] != "harness_error"]
    if rows.empty:
        return None
    # the repeat nearest the median compare judged (an ok one first)
    kv = pd.to_numeric(rows["kv_tokens"], errors="coerce")
    ok_kv = kv[rows["status"] == "ok"].dropna()
    distance = (kv - ok_kv.median()).abs() if len(ok_kv) else kv * 0
    rows = rows.assign(_ok=rows["status"] != "ok", _d=distance.fillna(float("inf"))).sort_values(
        ["_ok", "_d", "repeat"])
    row = rows.iloc[0]
    knobs = knob_values(rows.iloc[:1].reset_index(drop=True)).iloc[0].to_dict()
    out = {**row.to_dict(), **{k: v for k, v in knobs.items() if k not in row.index or _missing(row.get(k))}}
    return ({k: (None if _missing(v) else v) for k, v in out.items() if k not in ("_ok", "_d")},
            {k: _plain_knob(v) for k, v in knobs.items() if not _missing(v)})


def _plain_knob(value: Any) -> Any:
    """A knob as the scenario gave it: a whole float read from the CSV is the integer it was."""
    if hasattr(value, "item"):
        value = value.item()
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _facts(point: PointComparison, source: RunSource, models: dict[str, Any]) -> SideFacts | None:
    found = _row(source, point.point_id)
    if found is None:
        return None
    row, knobs = found
    release = release_key(row.get("engine_version"))
    record = None
    if source.folder is not None and isinstance(row.get("log_path"), str):
        path = source.folder / row["log_path"]
        if path.is_file():
            record = parse_log(read_log(path), point.engine)
    facts = SideFacts(release=release, row=row, record=record)
    facts.prediction = _prediction(point, source, facts, knobs, models)
    return facts


def _prediction(point: PointComparison, source: RunSource, facts: SideFacts, knobs: dict[str, Any],
                models: dict[str, Any]):
    """The predictor's terms for this side: the point's settings and env (run.json's scenario, else the row's
    knobs), the device as the engine read it, the side's release."""
    name = str(facts.row.get("model") or "")
    if name not in models:
        try:
            models[name] = load_model_description(name)
        except InputError:
            models[name] = None
    model = models[name]
    if model is None:
        return None
    scenario_point = source.points.get(point.point_id)
    if scenario_point is not None:
        settings, env = scenario_point.settings, scenario_point.env
    else:
        settings, env = knobs, {}
    free = facts.number("engine_free_mib")

    def again(**inputs):
        inputs = {"gpu_free_mib": free, "free_at_load": free is not None, **inputs}
        try:
            return predict(point.engine, settings, model, facts.number("device_total_mib"), device=facts.device,
                           env=env, point_id=point.point_id, engine_version=facts.release or None, **inputs)
        except (InputError, ValueError, TypeError, ZeroDivisionError):
            return None

    facts.repredict = again
    return again()


# --- judging -----------------------------------------------------------------------------------------------------


def _explain_point(point: PointComparison, before: SideFacts, after: SideFacts) -> PointExplanation:
    formulas = get_engine(point.engine).formulas
    out = PointExplanation(point.point_id, point.engine, point.label, before.release, after.release)
    for column in DEPENDENCY_COLUMNS:
        pair = [before.row.get(column), after.row.get(column)]
        if pair[0] is not None or pair[1] is not None:
            out.versions[column] = pair
    moved = [change for c, (a, b) in out.versions.items() if a != b for change in _version_changes(c, a, b)]
    if moved:
        out.notes.append(f"the engine release did not change, its dependencies did: {'; '.join(moved)}"
                         if before.release == after.release else f"its dependencies changed too: {'; '.join(moved)}")
    for side in (before, after):
        if side.prediction is not None and not side.prediction.modelled:
            out.notes.append(side.prediction.reason)
    kv = point.kv
    if kv is not None and kv.base is not None and kv.new is not None and kv.changed and formulas is not None:
        try:
            split = formulas.split_kv(before, after)
        except (TypeError, ValueError, ZeroDivisionError, KeyError) as exc:
            # a pair whose facts the split cannot take: say so, and leave the whole change as residual
            split = KvSplit(modelled=False, reason=f"the split failed on these rows: {exc!r}")
        if not split.modelled:
            # the engine's formulas do not split it: the pools both logs state may (what went where)
            by_pools = pool_split(before, after)
            if by_pools is not None:
                by_pools.notes.insert(0, f"not split by the engine's formulas: {split.reason}")
                split = by_pools
        out.kv = _explain_kv(split, int(kv.new - kv.base))
    # the effective settings as each side's row states them, failed startups included (compare leaves those out)
    figures = []
    for column in (*settings_columns(point.engine), *EXTRA_FIGURES):
        pair = before.number(column), after.number(column)
        if None not in pair and pair[0] != pair[1]:  # a figure a failed startup never logged is no change
            figures.append((column, *pair))
    for name, attr in (formulas.logged_figures.items() if formulas is not None else ()):
        pair = before.logged(attr), after.logged(attr)
        if None not in pair and pair[0] != pair[1]:
            figures.append((name, *pair))
    if sorted(set(point.base.outcomes)) != sorted(set(point.new.outcomes)):
        figures.append(("error_kind", point.base.outcome_text(), point.new.outcome_text()))
    for column, was, now in figures:
        out.figures.append(_explain_figure(formulas, column, was, now, before, after))
    return out


def _explain_kv(split: KvSplit, delta: int) -> KvExplanation:
    terms = split.terms if split.modelled else []
    residual = delta - sum(t.delta_tokens for t in terms)
    return KvExplanation(delta, terms, residual, split.grain_tokens, split.log_rounding_tokens, split.modelled,
                         split.reason, list(split.notes), split.uncertainty_tokens if split.modelled else 0,
                         split.bytes_per_token, split.exact and split.modelled)


def _explain_figure(formulas, column: str, was: Any, now: Any, before: SideFacts,
                    after: SideFacts) -> FigureExplanation:
    rules = formulas.figure_rules(before, after, column) if formulas is not None else []
    figure = FigureExplanation(column, was, now, [r.cite(before.release, after.release) for r in rules])
    if formulas is not None:
        figure.notes += formulas.figure_notes(before, after, column)
    predicted = [formulas.predicted_figure(s.prediction, column)
                 if formulas is not None and s.prediction is not None and s.prediction.modelled else None
                 for s in (before, after)]
    from_logs = False
    if column == "error_kind" and formulas is not None:
        # the outcome from each side's own log where it states the memory the predictor otherwise estimates
        given = [formulas.logged_outcome(s) for s in (before, after)]
        if None not in given and None not in (g[0] for g in given):
            predicted, from_logs = [g[0] for g in given], True
            figure.notes.append("the predictor given each side's own log: " + "; ".join(g[1] for g in given))
    if None not in predicted:
        figure.predicted_before, figure.predicted_after = predicted
        figure.checked = True
        figure.reproduced = _same(predicted[0], was) and _same(predicted[1], now)
        if figure.reproduced and not rules and from_logs:
            figure.notes.append("no release rule changed for it: the predictor gives both from what each side's log "
                                "states of its memory")
        elif figure.reproduced and not rules:
            moved = [f"{c} {_num(before.number(c))} -> {_num(after.number(c))}" for c in INPUT_COLUMNS
                     if before.number(c) != after.number(c)]
            figure.notes.append("no release rule changed for it: the predictor gives both from the sides' inputs"
                                + (f" ({'; '.join(moved)})" if moved else ""))
        elif not figure.reproduced:
            figure.notes.append("the predictor does not give what was measured"
                                + ("" if rules else "; no release rule the predictor knows changed for it"
                                   + _host_moved(formulas, before, after)))
    elif not rules:
        figure.notes.append("no release rule the predictor knows changed for it" + _host_moved(formulas, before, after))
    if column == "error_kind":
        figure.notes += _unruled_failures(before, after)
        if not figure.reproduced:
            _attribute_to_crashes(figure, predicted, (before, after), (was, now))
    return figure


def _attribute_to_crashes(figure: FigureExplanation, predicted: list[Any], sides: tuple[SideFacts, SideFacts],
                          outcomes: tuple[Any, Any]) -> None:
    """An outcome change that a crash no budget rule is about made: a side stopped with an exception the format
    tables name no kind for (`other`, with its line), the predictor gives that side a budget outcome, and every
    side that did not crash has the outcome the predictor gives it. Then the budget did not decide the change."""
    crashed = [s.row.get("error_kind") == "other" and not _missing(s.row.get("error_message")) for s in sides]
    if not any(crashed) or None in predicted:
        return
    if all(_same(p, outcome) for p, outcome, c in zip(predicted, outcomes, crashed) if not c):
        figure.crashed = [s.release for s, c in zip(sides, crashed) if c]
        figure.notes.append("the budget did not decide this change: " + "; ".join(
            f"{s.release} crashed where the predictor gives {_show(p)}" if c else f"{s.release} {_show(p)} as predicted"
            for s, p, c in zip(sides, predicted, crashed)))


def _unruled_failures(before: SideFacts, after: SideFacts) -> list[str]:
    """A side that stopped with an exception no rule names (`other`): no budget rule is about it, so its own line
    is what there is to say, beside the dependencies it ran with."""
    notes = []
    for side in (before, after):
        if side.row.get("error_kind") != "other":
            continue
        message = side.row.get("error_message")
        torch = side.row.get("torch_version")
        notes.append(f"{side.release} stopped with an exception no budget rule is about"
                     + (f" (torch {torch})" if not _missing(torch) else "")
                     + (f": {str(message).splitlines()[0][:200]}" if not _missing(message) else ""))
    return notes


def _version_changes(column: str, before: Any, after: Any) -> list[str]:
    if column == "dependency_versions":  # one cell of name=version pairs: each dependency that moved
        # a side that recorded none (a v5 row) says nothing of what its env had
        return [] if _missing(before) or _missing(after) else changed_versions(before, after)
    return [f"{column} {before} -> {after}"]


def _host_moved(formulas, before: SideFacts, after: SideFacts) -> str:
    """The inputs and the engine's own logged memory readings that differ between the sides ("" if none)."""
    moved = [f"{c} {_num(before.number(c))} -> {_num(after.number(c))}" for c in INPUT_COLUMNS
             if before.number(c) != after.number(c)]
    for name in (formulas.logged_readings if formulas is not None else ()):
        if before.logged(name) != after.logged(name):
            moved.append(f"{name} {_num(before.logged(name))} -> {_num(after.logged(name))}")
    return f"; the host moved: {'; '.join(moved)}" if moved else ""


def _same(predicted: Any, measured: Any) -> bool:
    """A logged figure against the predictor's: the logs round fractions and concurrency to two or three decimals."""
    if isinstance(predicted, (int, float)) and isinstance(measured, (int, float)):
        return abs(float(predicted) - float(measured)) <= max(0.006, 1e-6 * abs(float(measured)))
    return predicted == measured


# --- rendering ---------------------------------------------------------------------------------------------------


def _show(value: Any) -> str:
    return _num(value) if isinstance(value, (int, float)) or value is None else str(value)


def _term_value(value: Any, unit: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "none"
    text = _num(value) if isinstance(value, (int, float)) else str(value)
    return f"{text} {unit}".strip() if unit and unit != "tokens" else text


def common_notes(explanation: Explanation) -> list[str]:
    """The notes every point carries (the same text under each): said once, above the points."""
    if len(explanation.points) < 2:
        return []
    per_point = [_point_notes(p) for p in explanation.points]
    return [n for n in per_point[0] if all(n in notes for notes in per_point[1:])]


def _point_notes(p: PointExplanation) -> list[str]:
    return list(dict.fromkeys(p.notes + (p.kv.notes if p.kv is not None else [])))


def _residual(kv: KvExplanation) -> str:
    gib = kv.residual_gib
    return f"{kv.residual_tokens:+,} tokens" + (f", {gib:+.4f} GiB" if gib is not None and kv.residual_tokens else "")


def _kv_verdict(kv: KvExplanation) -> str:
    """The KV change's verdict in one line, with what it rests on."""
    allowed = "none: every term is exact" if kv.exact else f"one block/page = {kv.grain_tokens:,}"
    return (f"  kv_tokens {kv.kv_delta_tokens:+,}: {kv.status} (residual {_residual(kv)}; allowed {allowed}"
            + (f", the logs' rounding hides up to {kv.log_rounding_tokens:,}" if kv.log_rounding_tokens else "")
            + (f", the terms known to {kv.uncertainty_tokens:,}" if kv.uncertainty_tokens else "") + ")")


def explain_lines(explanation: Explanation) -> list[str]:
    """The plain-text section: the notes that hold for every point once, then per point the KV split (verdict,
    terms, residual) and the other figures."""
    shared = common_notes(explanation)
    out = [f"note (every point): {n}" for n in shared]
    for p in explanation.points:
        versions = "; ".join(f"{c} {a} -> {b}" for c, (a, b) in p.versions.items() if a != b)
        out.append(f"{p.label}: {p.before_release} -> {p.after_release}" + (f" ({versions})" if versions else ""))
        out += [f"  note: {n}" for n in p.notes if n not in shared]
        if p.kv is not None:
            kv = p.kv
            out.append(_kv_verdict(kv))
            if kv.status == UNEXPLAINED and kv.modelled:
                out.append(f"    no rule and no rounding covers {_residual(kv)}: look at what else differed between "
                           "the runs (host memory, env, args, the logs themselves)")
            if not kv.modelled:
                out.append(f"    not split: {kv.reason}")
            for t in kv.terms:
                out.append(f"    {t.delta_tokens:+,} {t.name}: {_term_value(t.before, t.unit)} -> "
                           f"{_term_value(t.after, t.unit)} [{t.source}]" + (f" rule: {t.rule}" if t.rule else ""))
            out.append(f"    {kv.residual_tokens:+,} residual (what the terms do not explain"
                       + (f": {kv.residual_gib:+.4f} GiB" if kv.residual_gib is not None and kv.residual_tokens else "")
                       + ")")
            out += [f"    note: {n}" for n in kv.notes if n not in shared]
        for f in p.figures:
            predicted = (f"; predictor {_show(f.predicted_before)} -> {_show(f.predicted_after)}"
                         if f.checked else "")
            out.append(f"  {f.column} {_show(f.before)} -> {_show(f.after)}: {f.status}{predicted}")
            out += [f"    rule: {r}" for r in f.rules]
            out += [f"    note: {n}" for n in f.notes]
    out.append(explanation.summary())
    return out


def render_explain_text(explanation: Explanation) -> str:
    return "\n".join(["", "why:", *explain_lines(explanation)]) + "\n"


def render_explain_markdown(explanation: Explanation) -> str:
    out = ["", "### Why", ""]
    shared = common_notes(explanation)
    out += [f"- note (every point): {n}" for n in shared] + ([""] if shared else [])
    for p in explanation.points:
        out.append(f"**{p.label}**: {p.before_release} -> {p.after_release}")
        out.append("")
        own = [n for n in p.notes if n not in shared]
        out += [f"- note: {n}" for n in own] + ([""] if own else [])
        if p.kv is not None:
            kv = p.kv
            out.append(f"kv_tokens {kv.kv_delta_tokens:+,}: *{kv.status}*" + (f" (not split: {kv.reason})"
                                                                               if not kv.modelled else "")
                       + (f" (the terms known to {kv.uncertainty_tokens:,} tokens)" if kv.uncertainty_tokens else ""))
            out += ["", "| term | before | after | tokens | source | rule |", "|---|---|---|---:|---|---|"]
            for t in kv.terms:
                out.append(f"| {t.name} | {_term_value(t.before, t.unit)} | {_term_value(t.after, t.unit)} | "
                           f"{t.delta_tokens:+,} | {t.source} | {(t.rule or '').replace('|', '/')} |")
            out.append(f"| residual | | | {kv.residual_tokens:+,} | | |")
            out.append("")
        for f in p.figures:
            out.append(f"- {f.column} {_show(f.before)} -> {_show(f.after)}: *{f.status}*"
                       + "".join(f"; rule: {r}" for r in f.rules) + "".join(f"; {n}" for n in f.notes))
        out.append("")
    out.append(f"**{explanation.summary()}**")
    return "\n".join(out) + "\n"
