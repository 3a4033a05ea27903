"""One results row, made once at the CSV edge from a point, its launch outcome and the run context."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.engines import get_engine
from harness.results.columns import COLUMNS, MEASURED

# Knob columns are engine-neutral names; an engine may spell one otherwise (its aliases).
KNOB_COLUMNS = ("gpu_memory_utilization", "max_num_batched_tokens", "mem_fraction_static", "chunked_prefill_size",
                "max_model_len", "kv_cache_dtype")


@dataclass
class RowContext:
    run_id: str
    engine_version: str | None  # what the engine environment reports
    torch_version: str | None
    device_name: str | None
    device_total_mib: float | None
    driver_version: str | None
    compile_cache: str  # cold | warm | unknown
    gpu_busy_before_mib: float | None = None
    engine_free_mib: float | None = None  # the engine's own free-memory reading as it began loading, where logged
    gpu_indices: str | None = None  # "0,1": the GPUs the point held; None on a CPU host
    node: str | None = None  # host name of the machine the engine ran on


def knob_fields(engine: str, args: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    used = set()
    native = get_engine(engine).native_name
    for column in KNOB_COLUMNS:
        for name in dict.fromkeys((column, native(column))):
            if args.get(name) is not None:
                fields[column] = args[name]
                used.add(name)
                break
    extra = {k: v for k, v in sorted(args.items()) if v is not None and k not in used}
    fields["extra_args"] = json.dumps(extra, sort_keys=True, default=str) if extra else None
    return fields


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def make_row(point, outcome, ctx: RowContext, started_at: str, log_path: str,
             prediction: dict[str, Any] | None = None) -> dict[str, Any]:
    record = outcome.record.to_dict() if outcome.record is not None else {}
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        run_id=ctx.run_id, scenario=point.scenario, point_id=point.point_id, repeat=point.repeat,
        engine=point.engine, engine_version=record.get("engine_version") or ctx.engine_version,
        model=point.model, started_at=started_at,
        device_name=ctx.device_name, device_total_mib=ctx.device_total_mib, driver_version=ctx.driver_version,
        torch_version=ctx.torch_version, compile_cache=ctx.compile_cache, gpu_busy_before_mib=ctx.gpu_busy_before_mib,
        engine_free_mib=_round(ctx.engine_free_mib, 1),
        status=outcome.status, error_kind=outcome.error_kind, error_message=outcome.error_message,
        t_kv_s=_round(outcome.t_kv_s), t_ready_s=_round(outcome.t_ready_s), wall_s=_round(outcome.wall_s),
        log_path=log_path, gpu_indices=ctx.gpu_indices, node=ctx.node,
    )
    row.update(knob_fields(point.engine, point.args))
    row.update({k: record.get(k) for k in MEASURED if k in record})
    if prediction:
        row.update({k: prediction.get(k) for k in ("predicted_kv_tokens", "predicted_kv_gib", "prediction_error_pct")})
    return row
