"""A sparse run against the full grid of the same scenario: every predicted row beside the grid's measured row.

For an engine that sizes its pool from the host's free memory as it reads it at load (SGLang on a CPU), a predicted
row is the prediction at the group's reading (the last launch's, kept in the row's `engine_free_mib`); a launch at
another moment reads another figure. So each predicted row is also moved to the grid row's own recorded reading by
the formulas alone (their prediction there less their prediction at the row's reading): the run's own claim,
conditional on the reading, as harness.analysis.repredict treats a measured row. Nothing is fitted again, so a
committed run is judged on what it predicted, whatever the loop does now.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from harness.analysis.calibrate import base_version, number, row_device
from harness.predict.model import ModelDescription
from harness.scenario import Point
from harness.sparse.groups import Reading, predict_at


def _key(row: Any) -> tuple[str, str, int]:
    return str(row["point_id"]), base_version(row.get("engine_version")), int(row["repeat"])


def _at_grid_reading(point: Point, model: ModelDescription, row: dict, predicted: float | None,
                     grid_free_mib: float | None) -> int | None:
    """The row's predicted tokens moved from the engine reading it was predicted at to `grid_free_mib` (the grid row's);
    None where either reading is missing (an engine that logs none) or the formulas see no pool at one of them."""
    run_free_mib, total_mib = number(row.get("engine_free_mib")), number(row.get("device_total_mib"))
    if predicted is None or run_free_mib is None or grid_free_mib is None:
        return None
    device = row_device(row)
    at_run, at_grid = (predict_at(point, model, Reading(total_mib, free, True, device))
                       for free in (run_free_mib, grid_free_mib))
    if not (at_run.will_start and at_grid.will_start and at_run.kv_tokens and at_grid.kv_tokens):
        return None
    return int(predicted + at_grid.kv_tokens - at_run.kv_tokens)


def against_grid(points: list[Point], model: ModelDescription, sparse: pd.DataFrame,
                 grid: pd.DataFrame) -> pd.DataFrame:
    """One line per predicted row of `sparse`: its knobs, outcome and tokens as predicted with the bound, and the grid's
    measured outcome and tokens; error % (measured - predicted) / predicted, and at the grid row's own reading."""
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
        again = _at_grid_reading(point, model, row, predicted, number(g.get("engine_free_mib")))
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
