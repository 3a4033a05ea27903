"""The groups a sparse sweep calibrates separately, and the device reading each group is predicted from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.analysis.calibrate import GroupFit, base_version, fit_calibrations
from harness.engines import get_engine
from harness.engines.predicting import predict_point
from harness.errors import InputError
from harness.predict import Calibration, Prediction
from harness.predict.model import ModelDescription
from harness.scenario import Point


@dataclass(frozen=True)
class GroupKey:
    """Points that share engine, release, model and device (tensor-parallel size) and, within one scenario, the
    engine's fixed arguments and env: one set of unknown terms."""

    engine: str
    release: str
    tp: int

    def describe(self) -> str:
        return f"{self.engine} {self.release or '(default release)'}" + (f" TP={self.tp}" if self.tp > 1 else "")


def group_key(point: Point) -> GroupKey:
    return GroupKey(point.engine, base_version(point.engine_version),
                    get_engine(point.engine).launch.tp_size(point.settings.raw))


def grouped(points: list[Point]) -> dict[GroupKey, list[Point]]:
    """Each group's distinct points (repeat 0: the formulas give every repeat the same numbers), in order."""
    out: dict[GroupKey, list[Point]] = {}
    for point in points:
        if point.repeat == 0:
            out.setdefault(group_key(point), []).append(point)
    return out


@dataclass(frozen=True)
class Reading:
    """What a group's predictions size from: the device total, the free memory and whether the engine read it as
    it began loading (then nothing of its start-up is left to estimate)."""

    total_mib: float | None
    free_mib: float | None
    at_load: bool
    device: str  # cpu | cuda

    @classmethod
    def of_fit(cls, fit: GroupFit) -> Reading:
        return cls(fit.device_total_mib, fit.device_free_mib, fit.device_free_at_load, fit.device)


# The loop asks the same predictions again at every turn; a prediction is a pure function of these keys.
_PREDICTIONS: dict[tuple, Prediction] = {}
_PREDICTIONS_KEPT = 50_000


def predict_at(point: Point, model: ModelDescription, reading: Reading, calibration: Calibration | None = None,
               free_mib: float | None = None) -> Prediction:
    """The formulas' prediction for `point` at `reading` (`free_mib` in place of its free memory, where given)."""
    free = reading.free_mib if free_mib is None else free_mib
    key = (id(model), point.point_id, point.engine_version, reading.total_mib, free, reading.at_load, reading.device,
           None if calibration is None else (calibration.other_gib, calibration.per_axis_gib))
    if key not in _PREDICTIONS:
        if len(_PREDICTIONS) > _PREDICTIONS_KEPT:
            _PREDICTIONS.clear()
        _PREDICTIONS[key] = predict_point(point, model, reading.total_mib, device=reading.device,
                                          calibration=calibration, gpu_free_mib=free, free_at_load=reading.at_load)
    return _PREDICTIONS[key]


def fit_group(points: list[Point], rows: list[dict[str, Any]], model: ModelDescription,
              fit_axis: bool) -> GroupFit | None:
    """calibrate's fit over the group's measured rows (the one with the most rows), None before any started."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        return None
    try:
        fits = fit_calibrations(points, frame, model, fit_axis=fit_axis)
    except InputError:  # no row started and sized a pool yet
        return None
    return max(fits, key=lambda f: len(f.rows)) if fits else None


def free_spread_mib(rows: list[dict[str, Any]]) -> float:
    """How far the engine's own free readings moved between the group's launches (0 with fewer than two): what a
    launch at another moment may read otherwise, on a host whose memory moves."""
    frees = [float(r["engine_free_mib"]) for r in rows
             if r.get("engine_free_mib") not in (None, "") and not pd.isna(r.get("engine_free_mib"))]
    return max(frees) - min(frees) if len(frees) >= 2 else 0.0
