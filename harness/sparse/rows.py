"""A predicted point as a results row: every column a launch would fill that the formulas give, in the predicted
columns; nothing in the measured ones, no log, `source` predicted (results format v9)."""

from __future__ import annotations

import math
from typing import Any

from harness.results.columns import COLUMNS
from harness.results.rows import knob_fields
from harness.scenario import Point
from harness.sparse.bounds import Estimate, outcome


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def rounded_up(bound_pct: float | None) -> float | None:
    """A bound as written: up to the next millionth of a percent, so that the written bound never understates it."""
    return None if bound_pct is None else math.ceil(bound_pct * 1e6) / 1e6


def predicted_row(estimate: Estimate, point: Point, run_id: str, machine: dict[str, Any]) -> dict[str, Any]:
    """The row of `point` (one repeat of the estimate's point), predicted at the group's reading; `machine` is the
    group's last measured row's device columns (what the prediction was made for)."""
    p = estimate.prediction
    said = outcome(p)
    status, _, kind = said.partition("/")
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        run_id=run_id, scenario=point.scenario, point_id=point.point_id, repeat=point.repeat, engine=point.engine,
        engine_version=point.engine_version, model=point.model,
        device_name=machine.get("device_name"), device_total_mib=_round(p.gpu_total_mib, 0),
        engine_free_mib=_round(p.gpu_free_mib, 1) if p.free_at_load else None,
        status=status, error_kind=kind or None, error_message=None if p.will_start else f"predicted: {p.reason}",
        predicted_kv_tokens=p.kv_tokens if p.will_start else None,
        predicted_kv_gib=_round(p.kv_gib, 4) if p.will_start else None,
        source="predicted", bound_pct=rounded_up(estimate.bound_pct), host_bound_pct=rounded_up(estimate.host_pct),
        bound_note=estimate.note,
    )
    row.update(knob_fields(point.engine, point.args))
    return row
