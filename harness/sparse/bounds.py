"""A predicted point's bound, from the fit: its residuals, the terms it could not pin, block rounding, and (for the
outcome) what the host's own free reading may move.

The bound is computed by the formulas themselves: the point is predicted again with the fitted constant moved by
the residual term either way (and, for the outcome, the free reading moved by its observed spread), so block
rounding, the length check and every refusal the formulas know move with it. The KV bound is conditional on the
group's reading (what the engines size from); what a launch at another moment may add through its own free reading
is stated apart (`host_pct`).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.engines import get_engine
from harness.predict import Prediction
from harness.predict.model import ModelDescription
from harness.scenario import Point
from harness.sparse.fit import LinearFit, features, moved
from harness.sparse.groups import Reading, predict_at
from harness.sparse.terms import describe


@dataclass(frozen=True)
class Estimate:
    """One unlaunched point: its prediction at the group's fit, the bound on its KV tokens (% of them; None when
    there is no bound yet or no pool), whether its outcome (starts / refuses, and why) holds across the bound."""

    point: Point
    prediction: Prediction
    bound_pct: float | None
    host_pct: float | None
    decided: bool
    note: str

    def resolved(self, tolerance_pct: float) -> bool:
        if not self.decided:
            return False
        if not self.prediction.will_start:
            return True
        return self.bound_pct is not None and self.bound_pct <= tolerance_pct


def outcome(prediction: Prediction) -> str:
    """ok, or the refusal as the engine names it (engine_error/KIND), else the predictor's own reason code."""
    if prediction.will_start:
        return "ok"
    named = get_engine(prediction.engine).require("formulas", "predict").predicted_figure(prediction, "error_kind")
    return str(named) if named else "engine_error/" + (prediction.reason or "?").split(":")[0]


def _tokens(prediction: Prediction) -> int:
    return int(prediction.kv_tokens or 0) if prediction.will_start else 0


def _block_tokens(prediction: Prediction) -> int:
    # the logged pool is whole blocks (pages); SGLang's token pool has none
    return int(prediction.block_size or 1)


def estimate(point: Point, model: ModelDescription, fit: LinearFit, uncalibrated: Prediction,
             free_spread_mib: float) -> Estimate:
    """`point` predicted from `fit`, with its bound (see the module's docstring); `uncalibrated`: its prediction at
    the group's reading before any fit (what its features are read from)."""
    reading = Reading.of_fit(fit.base)
    x = features(fit.engine, fit.terms, point, uncalibrated)
    if x is None or not uncalibrated.modelled:
        return Estimate(point, uncalibrated, None, None, False, f"not modelled: {uncalibrated.reason}")
    calibration = fit.calibration(x)
    base = predict_at(point, model, reading, calibration)
    residual = fit.interval_gib(x)
    if residual is None:
        said = "no degree of freedom yet" if fit.pinned else "the launches do not pin every term yet"
        return Estimate(point, base, None, None, False, f"no bound: {said}")
    low = predict_at(point, model, reading, moved(calibration, residual))
    high = predict_at(point, model, reading, moved(calibration, -residual))
    free = reading.free_mib
    spread = free_spread_mib if free is not None else 0.0
    worst = predict_at(point, model, reading, moved(calibration, residual),
                       free_mib=None if free is None else free - spread)
    best = predict_at(point, model, reading, moved(calibration, -residual),
                      free_mib=None if free is None else free + spread)
    outcomes = {outcome(p) for p in (base, low, high, worst, best)}
    decided = len(outcomes) == 1
    note = (f"95 % interval of a launch ± {residual * 1024:.1f} MiB ({len(fit.base.rows)} launches, terms "
            f"{describe(fit.engine, fit.terms)})")
    if not base.will_start:
        return Estimate(point, base, None, None, decided,
                        note + ("" if decided else f"; outcome undecided ({' / '.join(sorted(outcomes))})"))
    tokens = _tokens(base)
    kv_bound = max(abs(_tokens(high) - tokens), abs(tokens - _tokens(low))) + _block_tokens(base)
    host = max(abs(_tokens(best) - _tokens(high)), abs(_tokens(low) - _tokens(worst))) if spread else 0
    bound_pct = 100.0 * kv_bound / tokens if tokens else None
    host_pct = 100.0 * host / tokens if tokens and spread else None
    if spread:
        note += f"; host reading moved {spread:.0f} MiB between launches"
    if not decided:
        note += f"; outcome undecided ({' / '.join(sorted(outcomes))})"
    return Estimate(point, base, bound_pct, host_pct, decided, note)
