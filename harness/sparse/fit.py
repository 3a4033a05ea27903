"""The group's fit: calibrate's overheads (what each launch held beside its pool, from its own reading) fitted by
least squares over the group's unknown terms - a constant, the calibration axis, and a slope per other swept knob -
and the 95 % prediction interval of a new launch at any point, leverage included (an extrapolated point gets a wider
interval than one among the launches).

The knob slopes go into the calibration's constant per point (other + sum of slope x knob), so the engines'
predictors apply them unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from harness.analysis.calibrate import GroupFit
from harness.predict import Calibration, Prediction
from harness.scenario import Point
from harness.sparse.terms import AXIS, OTHER, axis_value, by_pool, knob_value

# Two-sided 95 % quantiles of Student's t by degrees of freedom (any statistics table; 1.96 beyond 30): a
# prediction interval from few launches is wide, and narrows as the loop's launches add degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042}


def t95(dof: int) -> float:
    """The quantile for `dof` degrees of freedom (the next smaller tabled one: never narrower)."""
    if dof > 30:
        return 1.96
    return T95[max(d for d in T95 if d <= dof)]


def features(engine: str, terms: tuple[str, ...], point: Point, prediction: Prediction) -> list[float] | None:
    """The point's row of the design matrix: 1, then each term's value (None where one has none)."""
    out = [1.0]
    for term in terms:
        if term == OTHER:
            continue
        value = axis_value(engine, prediction) if term == AXIS else knob_value(point, prediction, term)
        if value is None:
            return None
        out.append(float(value))
    return out


@dataclass
class LinearFit:
    """The fitted terms of a group, over calibrate's fit (its reading and rows)."""

    base: GroupFit
    engine: str
    terms: tuple[str, ...]
    coef: np.ndarray
    xtx_inv: np.ndarray | None  # None: the launches do not pin every term
    spread_gib: float | None  # the residuals' standard error; None with no degree of freedom
    dof: int

    @property
    def pinned(self) -> bool:
        return self.xtx_inv is not None

    def calibration(self, x: list[float]) -> Calibration:
        """The engines' calibration at a point: the axis slope as theirs, every knob slope in the constant."""
        other = float(self.coef[0])
        per_axis = 0.0
        for i, term in enumerate(t for t in self.terms if t != OTHER):
            if term == AXIS:
                per_axis = float(self.coef[i + 1])
            else:
                other += float(self.coef[i + 1]) * x[i + 1]
        return Calibration(other_gib=other, per_axis_gib=per_axis, source="sparse fit")

    def launch_scatter_gib(self) -> float | None:
        """Half the 95 % interval of one launch about the fitted mean (interval_gib at no leverage): what launches of
        one point scatter by, the part of every bound that no further launch narrows; None with no degree of freedom."""
        return None if self.spread_gib is None else t95(self.dof) * self.spread_gib

    def interval_gib(self, x: list[float]) -> float | None:
        """Half the 95 % prediction interval of a new launch at `x`; None without a degree of freedom."""
        if self.spread_gib is None or self.xtx_inv is None:
            return None
        vec = np.asarray(x)
        leverage = float(vec @ self.xtx_inv @ vec)
        return t95(self.dof) * self.spread_gib * math.sqrt(1.0 + max(0.0, leverage))


def fit_terms(base: GroupFit, engine: str, terms: tuple[str, ...], rows_x: list[list[float]]) -> LinearFit:
    """Least squares of the rows' overheads (GiB) on `rows_x` (each launch's features, in base.rows' order)."""
    x = np.asarray(rows_x, dtype=float)
    y = np.asarray([r.overhead_gib for r in base.rows], dtype=float)
    p = x.shape[1]
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    rank = np.linalg.matrix_rank(x)
    if rank < p:
        return LinearFit(base, engine, terms, coef, None, None, 0)
    dof = len(y) - p
    xtx_inv = np.linalg.inv(x.T @ x)
    spread = math.sqrt(float(np.sum((y - x @ coef) ** 2)) / dof) if dof > 0 else None
    return LinearFit(base, engine, terms, coef, xtx_inv, spread, dof)


def moved(calibration: Calibration, by_gib: float) -> Calibration:
    return dataclasses.replace(calibration, other_gib=calibration.other_gib + by_gib)


def rank_with(rows_x: list[list[float]], candidate: list[float]) -> int:
    return int(np.linalg.matrix_rank(np.asarray([*rows_x, candidate], dtype=float))) if rows_x else 1


def rows_features(engine: str, terms: tuple[str, ...], base: GroupFit, by_id: dict[str, Point],
                  predictions: dict[str, Prediction]) -> list[list[float]] | None:
    out = []
    for r in base.rows:
        x = features(engine, terms, by_id[r.point_id], predictions[r.point_id])
        if x is None:
            return None
        out.append(x)
    return out



def pins(engine: str, terms: tuple[str, ...], candidates: list[tuple[Point, Prediction]],
         rows_x: list[list[float]]) -> list[Point]:
    """The launches still needed so that the measured rows pin every term: each raises the rank of what is measured
    (largest pool first); the first launch of a group, the largest pool."""
    current, chosen = list(rows_x), []
    size = len(terms)
    for point, prediction in by_pool(candidates):
        if current and int(np.linalg.matrix_rank(np.asarray(current))) >= size:
            break
        if current and not prediction.will_start:
            continue  # a refusal measures no pool: it pins nothing
        x = features(engine, terms, point, prediction)
        if x is None:
            continue
        if not current or rank_with(current, x) > int(np.linalg.matrix_rank(np.asarray(current))):
            chosen.append(point)
            current.append(x)
    return chosen
