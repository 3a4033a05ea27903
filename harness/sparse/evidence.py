"""A sparse run against the full grid of the same scenario: every predicted row beside the grid's measured row.

For an engine that sizes its pool from the host's free memory as it reads it at load (SGLang on a CPU), a predicted
row is the prediction at the group's reading (the last launch's); a launch at another moment reads another figure.
So each predicted row is also predicted again at the grid row's own recorded reading (`engine_free_mib`), from the
sparse run's own fit (its measured rows, the same terms): the prediction conditional on the reading, as
harness.analysis.repredict treats a measured row.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pandas as pd

from harness.analysis.calibrate import base_version, number
from harness.predict.model import ModelDescription
from harness.scenario import Point
from harness.sparse.bounds import estimate
from harness.sparse.groups import Reading, free_spread_mib, grouped, predict_at
from harness.sparse.loop import _state


def _key(row: Any) -> tuple[str, str, int]:
    return str(row["point_id"]), base_version(row.get("engine_version")), int(row["repeat"])


def _at_grid_reading(state, point: Point, model: ModelDescription, free_mib: float | None) -> int | None:
    """The predicted tokens at `free_mib` (the grid row's engine reading), from the sparse fit."""
    if state.fit is None or free_mib is None or not state.fit.base.device_free_at_load:
        return None
    fit = replace(state.fit, base=replace(state.fit.base, device_free_mib=free_mib))
    uncalibrated = predict_at(point, model, Reading.of_fit(fit.base))
    again = estimate(point, model, fit, uncalibrated, free_spread_mib(state.rows))
    return again.prediction.kv_tokens if again.prediction.will_start else 0


def against_grid(points: list[Point], model: ModelDescription, sparse: pd.DataFrame,
                 grid: pd.DataFrame) -> pd.DataFrame:
    """One line per predicted row of `sparse`: its knobs, outcome and tokens as predicted with the bound, and the grid's
    measured outcome and tokens; error % (measured - predicted) / predicted, and at the grid row's own reading."""
    measured = sparse[sparse["source"].fillna("measured") != "predicted"].to_dict("records")
    states = {p.point_id: state for key, group in grouped(points).items()
              for state in [_state(key, group, measured, model, lambda _p: Reading(None, None, False, "cpu"))]
              for p in group}
    by_id = {p.point_id: p for p in points if p.repeat == 0}
    truth = {_key(r): r for r in grid.to_dict("records")}
    lines = []
    for row in sparse[sparse["source"] == "predicted"].to_dict("records"):
        g = truth.get(_key(row))
        if g is None:
            continue
        point = by_id[row["point_id"]]
        predicted = number(row.get("predicted_kv_tokens"))
        measured_tokens = number(g.get("kv_tokens"))
        again = _at_grid_reading(states[row["point_id"]], point, model, number(g.get("engine_free_mib")))
        lines.append({
            "engine": row["engine"], "knobs": point.label, "predicted_status": row["status"],
            "predicted_kind": row.get("error_kind"), "grid_status": g["status"], "grid_kind": g.get("error_kind"),
            "predicted_kv_tokens": predicted, "bound_pct": number(row.get("bound_pct")),
            "host_bound_pct": number(row.get("host_bound_pct")), "grid_kv_tokens": measured_tokens,
            "error_pct": _error(predicted, measured_tokens), "at_grid_reading_kv_tokens": again,
            "at_grid_reading_error_pct": _error(again, measured_tokens),
        })
    return pd.DataFrame(lines)


def _error(predicted: float | None, measured: float | None) -> float | None:
    if not predicted or measured is None or (isinstance(measured, float) and math.isnan(measured)):
        return None
    return round((measured - predicted) / predicted * 100.0, 3)
