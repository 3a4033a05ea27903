"""The sparse sweep's loop: pin, calibrate, bound, launch what the bound leaves open, repeat; then verify.

Pure of the execute stage: `launch` runs points (all their repeats) and returns their measured rows, so the
sequential and parallel executors and Ray run a sparse sweep as they run a grid (batches of `batch` points).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.analysis.calibrate import base_version, number
from harness.errors import InputError
from harness.predict import Prediction
from harness.predict.model import ModelDescription
from harness.scenario import Point
from harness.sparse.bounds import Estimate, estimate, outcome
from harness.sparse.fit import LinearFit, fit_terms, pins, rows_features
from harness.sparse.groups import GroupKey, Reading, fit_group, free_spread_mib, grouped, predict_at
from harness.sparse.terms import describe, unknown_terms

Row = dict[str, Any]
DEFAULT_TOLERANCE_PCT = 1.0  # the scenario schema's run.tolerance_pct default


@dataclass(frozen=True)
class SparseOptions:
    tolerance_pct: float | None = None  # None: the scenario's run.tolerance_pct
    budget: int | None = None  # at most this many launches (repeats count)
    verify: int = 0  # launch this many predicted points at random, each reported against its bound
    seed: str = ""  # the verify draw's seed (the run id: a resume draws the same)


@dataclass
class Verified:
    estimate: Estimate
    launch_row: Row  # the verifying launch's row

    @property
    def measured_tokens(self) -> float | None:
        value = self.launch_row.get("kv_tokens")
        return None if value in (None, "") or (isinstance(value, float) and math.isnan(value)) else float(value)

    @property
    def error_pct(self) -> float | None:
        predicted, measured = self.estimate.prediction.kv_tokens, self.measured_tokens
        if not self.estimate.prediction.will_start or not predicted or measured is None:
            return None
        return (measured - predicted) / predicted * 100.0

    @property
    def inside(self) -> bool:
        said = outcome(self.estimate.prediction)
        status = str(self.launch_row.get("status"))
        kind = self.launch_row.get("error_kind")
        got = "ok" if status == "ok" else f"{status}/{kind}"
        if said != got and not (said != "ok" and status != "ok"):
            return False
        if said != "ok":
            return True
        return self.error_pct is not None and abs(self.error_pct) <= (self.estimate.bound_pct or 0.0)


@dataclass
class SparseOutcome:
    estimates: list[Estimate] = field(default_factory=list)  # every unlaunched point at the end
    launches: int = 0  # launches this run made (repeats count)
    unresolved: list[str] = field(default_factory=list)  # per point: what the budget left open
    verified: list[Verified] = field(default_factory=list)
    terms: dict[GroupKey, tuple[str, ...]] = field(default_factory=dict)  # each group's, as last fitted
    scatter: list[str] = field(default_factory=list)  # per group: what one launch scatters by, against the tolerance


def _rows_of(key: GroupKey, group: list[Point], rows: list[Row]) -> list[Row]:
    ids = {p.point_id for p in group}
    return [r for r in rows if r.get("point_id") in ids and r.get("status") != "harness_error"
            and (not key.release or base_version(r.get("engine_version")) in ("", key.release))]


@dataclass
class _GroupState:
    key: GroupKey
    points: list[Point]
    rows: list[Row]
    terms: tuple[str, ...]
    fit: LinearFit | None  # None before a launch of the group started
    reading: Reading
    unmeasured: list[tuple[Point, Prediction]]  # with its prediction at the reading, before any fit
    pins: list[Point]

    def estimates(self, model: ModelDescription) -> list[Estimate]:
        if self.fit is None:
            return [Estimate(p, pred, None, None, False, "no launch of this group started: nothing calibrated")
                    for p, pred in self.unmeasured]
        spread = free_spread_mib(self.rows)
        return [estimate(p, model, self.fit, pred, spread) for p, pred in self.unmeasured]

    @property
    def unpinned(self) -> bool:
        return self.fit is None or not self.fit.pinned or self.fit.dof == 0


def _state(key: GroupKey, group: list[Point], rows: list[Row], model: ModelDescription,
           initial: Callable[[Point], Reading], tried: frozenset = frozenset()) -> _GroupState:
    """The group now: its reading, unknown terms, fit, unlaunched points and the pins still needed (never a point in
    `tried`: launched by this run already, a harness error left unmeasured)."""
    mine = _rows_of(key, group, rows)
    base = fit_group(group, mine, model, fit_axis=True)  # calibrate's overheads, each from its launch's own reading
    reading = Reading.of_fit(base) if base is not None else initial(group[0])
    predicted = [(p, predict_at(p, model, reading)) for p in group]
    terms = unknown_terms(key.engine, predicted, base.device_free_at_load if base is not None else None)
    by_id = {p.point_id: p for p in group}
    predictions = {p.point_id: pred for p, pred in predicted}
    rows_x = rows_features(key.engine, terms, base, by_id, predictions) if base is not None else None
    fit = fit_terms(base, key.engine, terms, rows_x) if rows_x else None
    measured = {r.get("point_id") for r in mine}
    unmeasured = [(p, pred) for p, pred in predicted if p.point_id not in measured]
    open_ = [c for c in unmeasured if (c[0].point_id, c[0].engine_version) not in tried]
    needed = pins(key.engine, terms, open_, rows_x or [])
    return _GroupState(key, group, mine, terms, fit, reading, unmeasured, needed)


def _check_point(state: _GroupState, estimates: list[Estimate]) -> list[Point]:
    """With no degree of freedom left, the launch that tests the fit: the smallest pool predicted to start (where a
    wrong term shows most) by the fit and by the formulas alone, else any unlaunched point. A fit through exactly as
    many launches as terms follows their scatter: extrapolated it may predict a start where the formulas see a
    refusal, and a refusal measures no pool, so the fit would stay where it was and ask again (on
    cpu_sparse_sglang_xl one launch 1 % above its neighbours made the fit start every 0.06 point, and the loop
    launched all six)."""
    formulas_start = {p.point_id for p, pred in state.unmeasured if pred.will_start}
    starting = [e for e in estimates if e.prediction.will_start and e.prediction.kv_tokens
                and e.point.point_id in formulas_start]
    if starting:
        return [min(starting, key=lambda e: e.prediction.kv_tokens).point]
    pools = [e for e in estimates if e.point.point_id in formulas_start]
    return [(pools or estimates)[0].point] if estimates else []


def _next(state: _GroupState, model: ModelDescription, tolerance_pct: float) -> list[Point]:
    if state.pins:
        return state.pins
    estimates = state.estimates(model)
    if state.fit is not None and state.fit.pinned and state.fit.dof == 0:
        return _check_point(state, estimates)
    open_ = [e for e in estimates if not e.resolved(tolerance_pct)]
    # Points predicted to start first: a launch that measures a pool narrows every bound of the group, and a point
    # predicted to refuse, undecided under a wide bound, is often decided once it narrows; a launched refusal
    # measures no pool and decides that point alone (on cpu_sparse_sglang_xl, refusals first launched all six 0.06
    # points under a ± 661 MiB interval of one degree of freedom, where three more pools decided them). Among each,
    # undecided outcomes first, then the widest bounds.
    open_.sort(key=lambda e: (not e.prediction.will_start, e.decided,
                              -(e.bound_pct if e.bound_pct is not None else math.inf)))
    return [e.point for e in open_]


def check_budget(points: list[Point], rows: list[Row], model: ModelDescription,
                 initial: Callable[[Point], Reading], budget: int | None, repeats: int) -> dict[GroupKey, tuple]:
    """Each group's unknown terms; a budget below the launches that pin them is refused before any launch."""
    terms, need = {}, 0
    for key, group in grouped(points).items():
        state = _state(key, group, rows, model, initial)
        terms[key] = state.terms
        need += len(state.pins) if state.fit is not None else len(state.terms)
    if budget is not None and budget < need * repeats:
        said = ", ".join(f"{k.describe()}: {describe(k.engine, t)}" for k, t in terms.items())
        raise InputError(f"--budget {budget}: pinning the unknown terms ({said}) takes at least {need * repeats} "
                         f"launches; give --budget {need * repeats} or more, or run the full grid without --sparse")
    return terms


def run_sparse(points: list[Point], model: ModelDescription, launch: Callable[[list[Point]], list[Row]],
               rows: list[Row], initial: Callable[[Point], Reading], options: SparseOptions,
               batch: int = 1) -> SparseOutcome:
    """The loop (the module's docstring). `rows`: the measured rows so far (a resume's); `initial`: the reading a
    group is first predicted at, before any of its launches."""
    result = SparseOutcome()
    if options.tolerance_pct is None:
        options = dataclasses.replace(options, tolerance_pct=DEFAULT_TOLERANCE_PCT)
    repeats = max((p.repeat for p in points), default=0) + 1
    result.terms = check_budget(points, rows, model, initial, options.budget, repeats)
    measured = list(rows)
    all_repeats = _repeats_of(points)
    tried: set[tuple[str, str | None]] = set()  # launched by this run: never again (a harness error stays one)
    while True:
        todo = [p for p in _todo(points, measured, model, initial, options.tolerance_pct, frozenset(tried))
                if (p.point_id, p.engine_version) not in tried]
        left = None if options.budget is None else options.budget - result.launches
        if not todo or (left is not None and left < repeats):
            break
        take = todo[:max(1, min(batch, left // repeats if left is not None else batch))]
        tried.update((p.point_id, p.engine_version) for p in take)
        launched = [q for p in take for q in all_repeats[(p.point_id, p.engine_version)]]
        measured += launch(launched)
        result.launches += len(launched)
    _verify(points, measured, model, initial, options, launch, result, all_repeats)
    states = [_state(key, group, measured, model, initial) for key, group in grouped(points).items()]
    result.terms = {state.key: state.terms for state in states}
    result.estimates = [e for state in states for e in state.estimates(model)]
    result.scatter = [line for state in states if (line := _scatter_line(state, options.tolerance_pct))]
    result.unresolved = [f"{e.point.engine} {e.point.point_id} {e.point.label}: {e.note}"
                         for e in result.estimates if not e.resolved(options.tolerance_pct)]
    return result


def _scatter_line(state: _GroupState, tolerance_pct: float) -> str | None:
    """What one launch of the group scatters by about the fit, against the tolerance. Below a pool of scatter /
    tolerance no bound can reach the tolerance (its one-launch part alone is wider), and launching such a point
    gives a figure that a second launch of it reproduces no closer: a tolerance to choose above the engine's own
    scatter (SGLang-CPU: what its other processes hold at its two free-memory readings moves by tens of MiB,
    results/cpu_sparse/README.md)."""
    scatter_gib = state.fit.launch_scatter_gib() if state.fit is not None else None
    if scatter_gib is None:
        return None
    floor_gib = scatter_gib / (tolerance_pct / 100.0)
    pools = [number(r.get("kv_gib")) for r in state.rows if r.get("status") == "ok"]
    pools = [p for p in pools if p is not None]
    small = sum(1 for p in pools if p < floor_gib)
    return (f"{state.key.describe()}: one launch scatters by ± {scatter_gib * 1024:.1f} MiB about the fit "
            f"({len(state.rows)} launches): a pool under {floor_gib:.2f} GiB is not bounded within "
            f"{tolerance_pct:g} %, nor does a launch of it reproduce to that ({small} of the {len(pools)} pools "
            "launched)")


def _repeats_of(points: list[Point]) -> dict[tuple[str, str | None], list[Point]]:
    out: dict[tuple[str, str | None], list[Point]] = {}
    for p in points:
        out.setdefault((p.point_id, p.engine_version), []).append(p)
    return out


def _todo(points: list[Point], measured: list[Row], model: ModelDescription, initial: Callable[[Point], Reading],
          tolerance_pct: float, tried: frozenset) -> list[Point]:
    todo: list[Point] = []
    for key, group in grouped(points).items():
        state = _state(key, group, measured, model, initial, tried)
        todo += [p for p in _next(state, model, tolerance_pct) if (p.point_id, p.engine_version) not in tried]
    return todo


def _verify(points: list[Point], measured: list[Row], model: ModelDescription, initial: Callable[[Point], Reading],
            options: SparseOptions, launch: Callable[[list[Point]], list[Row]], result: SparseOutcome,
            all_repeats: dict) -> None:
    """--verify K: K predicted points at random, launched; each kept with the estimate it had before."""
    if options.verify <= 0:
        return
    estimates = [e for key, group in grouped(points).items()
                 for e in _state(key, group, measured, model, initial).estimates(model)]
    drawn = random.Random(options.seed).sample(estimates, min(options.verify, len(estimates)))
    for e in drawn:
        new = launch(all_repeats[(e.point.point_id, e.point.engine_version)])
        measured += new
        result.launches += len(new)
        result.verified += [Verified(e, row) for row in new]



