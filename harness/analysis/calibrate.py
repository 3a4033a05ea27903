"""Fit the estimated terms from measured rows, then predict the points not yet measured.

What is exact (budget, weights, fraction, block arithmetic) stays exact; what the formulas
cannot know - vLLM's O + A + G, SGLang's other memory - is fitted per (engine, engine
version, model, card) from rows that started:

* vLLM:   upper_bound - measured KV = other + per_token x max_num_batched_tokens
  (least squares; a constant when the rows have one max_num_batched_tokens);
* SGLang: free x f - W - measured KV = other + per_fraction x mem_fraction_static (the memory
  gone before SGLang's own pre-load reading is scaled by the fraction; a constant for one fraction).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from harness.engines import get_engine
from harness.engines.predicting import predict_point
from harness.errors import InputError
from harness.predict import Calibration, Prediction, prediction_error_pct
from harness.predict.model import GiB, ModelDescription
from harness.results.io import measured_only


@dataclass
class FittedRow:
    point_id: str
    repeat: int
    axis_value: int | None  # the engine's calibration axis (e.g. max_num_batched_tokens), None: constant fit
    measured_kv_gib: float
    measured_kv_tokens: int | None
    overhead_gib: float  # upper bound - measured
    calibrated_kv_tokens: int | None = None
    residual_gib: float | None = None
    error_pct: float | None = None


@dataclass
class GroupFit:
    engine: str
    engine_version: str
    model: str
    device_total_mib: float
    calibration: Calibration
    rows: list[FittedRow] = field(default_factory=list)
    device: str = "cuda"
    # The free reading to predict with: the engines' own as they began loading (the latest launch's: what the
    # next engine will most likely see on a host whose memory still moves), else the median before launch.
    device_free_mib: float | None = None
    device_free_at_load: bool = False

    @property
    def key(self) -> tuple[str, str, str, float]:
        return (self.engine, self.engine_version, self.model, self.device_total_mib)

    def describe(self) -> str:
        c = self.calibration
        terms = f"other {c.other_gib:.3f} GiB"
        axis = get_engine(self.engine).require("formulas", "predict").calibration_axis
        if axis:
            terms += f" + {c.per_axis_gib * 1024 * 1024:.1f} KiB x {axis}" if abs(c.per_axis_gib) < 1 / 1024 else \
                f" + {c.per_axis_gib:.3f} GiB x {axis}"
        rms = math.sqrt(sum((r.residual_gib or 0) ** 2 for r in self.rows) / len(self.rows)) if self.rows else 0.0
        return (f"{self.engine} {self.engine_version} on {self.device_total_mib:.0f} MiB ({self.model}): {terms}; "
                f"{len(self.rows)} rows, RMS residual {rms * 1024:.1f} MiB")


def base_version(version: Any) -> str:
    """A release without its local build tag ("0.32.0+cpu" -> "0.32.0"); "" when none."""
    return "" if version is None or (isinstance(version, float) and math.isnan(version)) else str(version).split("+")[0]


def number(value: Any) -> float | None:
    """A cell as a float; None when empty, NaN or not a number."""
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def row_device(row: Mapping[str, Any]) -> str:
    """cpu | cuda: what the row's engine ran on (a results row: a Series or its dict)."""
    return "cpu" if str(row.get("device_name") or "").startswith("cpu") else "cuda"


def row_card_name(row: Mapping[str, Any]) -> str | None:
    """The card's name the row recorded (NVML's, e.g. "NVIDIA A100-SXM4-80GB"); None on a CPU or where not recorded."""
    name = row.get("device_name")
    return str(name) if row_device(row) == "cuda" and isinstance(name, str) and name else None


def row_free(row: pd.Series) -> float | None:
    """Free device memory before the launch: the total less what was in use (the baseline reading)."""
    total, busy = number(row.get("device_total_mib")), number(row.get("gpu_busy_before_mib"))
    return None if total is None or busy is None else total - busy


def _free_readings(members: list[tuple[Any, pd.Series]]) -> tuple[dict[tuple[str, int], float | None], bool]:
    """Each row's free reading, and whether they are the engines' own as they began loading: the rows of a
    group use one kind or the other (a fit over both would mix what the terms mean), the engines' own
    where every row keeps one - the only readings taken when the pool was sized."""
    engine_free = {(p.point_id, int(row["repeat"])): number(row.get("engine_free_mib")) for p, row in members}
    if all(free is not None for free in engine_free.values()):
        return engine_free, True
    return {(p.point_id, int(row["repeat"])): row_free(row) for p, row in members}, False


def _measured_bytes(engine: str, row: pd.Series, prediction: Prediction) -> float | None:
    """The logged KV GiB for an engine that logs its pool size; else tokens x bytes/token."""
    kv_gib = number(row.get("kv_gib"))
    tokens = number(row.get("kv_tokens"))
    if get_engine(engine).require("formulas", "predict").measured_kv_from_gib and kv_gib is not None:
        # The logged GiB has two decimals (5 MiB); tokens x bytes per token is exact to a block, and when
        # the two agree to that rounding (one uniform KV group), the tokens are the finer measurement.
        if tokens is not None and prediction.kv_bytes_per_token and \
                abs(tokens * prediction.kv_bytes_per_token / GiB - kv_gib) <= 0.005 + 1e-9:
            return tokens * prediction.kv_bytes_per_token
        return kv_gib * GiB
    if tokens is not None and prediction.kv_bytes_per_token:
        return tokens * prediction.kv_bytes_per_token
    return kv_gib * GiB if kv_gib is not None else None


def _axis_value(engine: str, prediction: Prediction) -> int | None:
    axis = get_engine(engine).require("formulas", "predict").calibration_axis
    return getattr(prediction, axis) if axis else None


def _fit(engine: str, rows: list[FittedRow], fit_axis: bool = True) -> Calibration:
    xs = [float(r.axis_value or 0) for r in rows]
    ys = [r.overhead_gib for r in rows]
    if fit_axis and get_engine(engine).require("formulas", "predict").calibration_axis and len(set(xs)) >= 2:
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
        return Calibration(other_gib=my - slope * mx, per_axis_gib=slope, source="fitted")
    return Calibration(other_gib=sum(ys) / len(ys), source="fitted")


def fit_calibrations(points: Iterable[Any], results: pd.DataFrame, model: ModelDescription,
                     tp: int | None = None, fit_axis: bool = True) -> list[GroupFit]:
    """One fit per (engine, engine version, model, card) over the rows that started and sized a KV pool;
    `fit_axis` False: a constant only, where the formulas' estimates do not move with the calibration axis."""
    by_id = {}
    for point in points:
        by_id.setdefault(point.point_id, point)
    groups: dict[tuple, list[tuple[Any, pd.Series]]] = {}
    for _, row in measured_only(results).iterrows():  # a sparse run's predicted rows measured nothing
        point = by_id.get(row["point_id"])
        total = number(row.get("device_total_mib"))
        if point is None or row["status"] != "ok" or total is None:
            continue
        if number(row.get("kv_tokens")) is None and number(row.get("kv_gib")) is None:
            continue
        key = (point.engine, base_version(row.get("engine_version")), str(row.get("model") or point.model), total,
               row_device(row))
        groups.setdefault(key, []).append((point, row))

    fits = []
    for (engine, version, model_name, total, device), members in sorted(groups.items(), key=lambda kv: kv[0]):
        fitted: list[FittedRow] = []
        free_of, at_load = _free_readings(members)
        for point, row in members:
            free = free_of[(point.point_id, int(row["repeat"]))]
            prediction = predict_point(point, model, total, tp=tp, device=device, free_at_load=at_load,
                                       gpu_free_mib=free, gpu_name=row_card_name(row))
            if prediction.kv_gib_upper_bound is None and free is not None and not at_load:
                # It started: a free reading that says it could not was the harness's, taken at another moment
                # than the engine's (memory still settling, another job's engine ending), not what sized it.
                free = free_of[(point.point_id, int(row["repeat"]))] = None
                prediction = predict_point(point, model, total, tp=tp, device=device, gpu_free_mib=None,
                                           gpu_name=row_card_name(row))
            if prediction.kv_gib_upper_bound is None or any(n.startswith("KV size given explicitly")
                                                            for n in prediction.notes):
                continue  # an explicit KV size has nothing to fit
            measured = _measured_bytes(engine, row, prediction)
            if measured is None:
                continue
            tokens = number(row.get("kv_tokens"))
            fitted.append(FittedRow(point_id=point.point_id, repeat=int(row["repeat"]),
                                    axis_value=_axis_value(engine, prediction),
                                    measured_kv_gib=measured / GiB,
                                    measured_kv_tokens=None if tokens is None else int(tokens),
                                    overhead_gib=prediction.kv_gib_upper_bound - measured / GiB))
        if not fitted:
            continue
        frees = [f for f in free_of.values() if f is not None]
        free = (frees[-1] if at_load else float(pd.Series(frees).median())) if frees else None
        fit = GroupFit(engine, version, model_name, total, _fit(engine, fitted, fit_axis), fitted, device=device,
                       device_free_mib=free, device_free_at_load=at_load)
        by_point = {p.point_id: p for p, _ in members}
        names = {p.point_id: row_card_name(row) for p, row in members}
        for r in fitted:
            again = predict_point(by_point[r.point_id], model, total, tp=tp, calibration=fit.calibration,
                                  device=device, gpu_free_mib=free_of.get((r.point_id, r.repeat)), free_at_load=at_load,
                                  gpu_name=names[r.point_id])
            r.calibrated_kv_tokens = again.kv_tokens
            r.residual_gib = (again.kv_gib or 0) - r.measured_kv_gib
            r.error_pct = prediction_error_pct(again.kv_tokens, r.measured_kv_tokens)
        fits.append(fit)
    if not fits:
        raise InputError("calibration: no row with status ok, a measured KV size and device_total_mib matches "
                         "a point of this scenario (rows with an explicit KV size have nothing to fit)")
    return fits


def choose_fit(fits: list[GroupFit], engine: str, engine_version: str | None,
               gpu_total_mib: float | None) -> GroupFit | None:
    """The fit for a point: same engine (and version when both say), nearest card, most rows."""
    wanted = base_version(engine_version)
    same = [f for f in fits
            if f.engine == engine and (not wanted or not f.engine_version or f.engine_version == wanted)]
    if not same:
        return None
    if gpu_total_mib is not None:
        return min(same, key=lambda f: (abs(f.device_total_mib - gpu_total_mib), -len(f.rows)))
    return max(same, key=lambda f: len(f.rows))
