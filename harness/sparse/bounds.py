"""A predicted point's bound, from the fit: its residuals, the terms it could not pin, block rounding, and (for the
outcome) what the host's own free reading may move.

The bound is computed by the formulas themselves: the point is predicted again with the fitted constant moved by
the residual term either way (and, for the outcome, the free reading moved by its observed spread), so block
rounding, the length check and every refusal the formulas know move with it. The KV bound is conditional on the
group's reading (what the engines size from); what a launch at another moment may add through its own free reading
is stated apart (`host_pct`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from harness.analysis.calibrate import GroupFit
from harness.engines import get_engine
from harness.predict import Calibration, Prediction
from harness.predict.model import ModelDescription
from harness.scenario import Point
from harness.sparse.groups import Reading, predict_at

# Two-sided 95 % quantiles of Student's t by degrees of freedom (any statistics table; 1.96 beyond 30): a
# prediction interval from few launches is wide, and narrows as the loop's launches add degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(dof: int) -> float:
    """The quantile for `dof` degrees of freedom (the next smaller tabled one: never narrower)."""
    if dof > 30:
        return 1.96
    return T95[max(d for d in T95 if d <= dof)]


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


def residual_gib(fit: GroupFit, params: int) -> float | None:
    """The fit's term of a new launch's 95 % prediction interval: t(dof) x the residuals' standard error x
    sqrt(1 + 1/n), dof = launches - fitted parameters; None with no degree of freedom."""
    n = len(fit.rows)
    if n <= params:
        return None
    dof = n - params
    spread = math.sqrt(sum((r.residual_gib or 0.0) ** 2 for r in fit.rows) / dof)
    return t95(dof) * spread * math.sqrt(1 + 1 / n)


def _moved(calibration: Calibration, by_gib: float) -> Calibration:
    return dataclasses.replace(calibration, other_gib=calibration.other_gib + by_gib)


def _tokens(prediction: Prediction) -> int:
    return int(prediction.kv_tokens or 0) if prediction.will_start else 0


def _block_tokens(prediction: Prediction) -> int:
    # the logged pool is whole blocks (pages); SGLang's token pool has none
    return int(prediction.block_size or 1)


def estimate(point: Point, model: ModelDescription, fit: GroupFit, residual: float | None,
             free_spread_mib: float) -> Estimate:
    """`point` predicted from `fit`, with its bound (see the module's docstring)."""
    reading = Reading.of_fit(fit)
    base = predict_at(point, model, reading, fit.calibration)
    if not base.modelled:
        return Estimate(point, base, None, None, False, f"not modelled: {base.reason}")
    if residual is None:
        return Estimate(point, base, None, None, False, "no residual yet: the fit has no degree of freedom")
    low = predict_at(point, model, reading, _moved(fit.calibration, residual))
    high = predict_at(point, model, reading, _moved(fit.calibration, -residual))
    free = reading.free_mib
    spread = free_spread_mib if free is not None else 0.0
    worst = predict_at(point, model, reading, _moved(fit.calibration, residual),
                       free_mib=None if free is None else free - spread)
    best = predict_at(point, model, reading, _moved(fit.calibration, -residual),
                      free_mib=None if free is None else free + spread)
    outcomes = {outcome(p) for p in (base, low, high, worst, best)}
    decided = len(outcomes) == 1
    note = f"fit's 95 % interval ± {residual * 1024:.1f} MiB from {len(fit.rows)} launches"
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

