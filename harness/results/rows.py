"""What one point produced (`PointResult`, frozen) and the results row it is written as (`make_row`).

The execute stage returns a PointResult and never builds a row: the row is made from it here, at the
CSV edge, by one function. Rounding and the column names live here, so a reading keeps its full
precision until it is written down.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from harness.engines import get_engine
from harness.predict import prediction_error_pct
from harness.results.columns import COLUMNS, MEASURED, NEUTRAL_KNOBS, POOLS
from harness.results.probe import ProbeResult, probe_fields
from harness.scenario.point import Point
from parsers.record import StartupRecord


@dataclass(frozen=True)
class EngineBuild:
    """What the point's engine environment reports about itself; the log's own version wins on the row."""

    engine_version: str | None = None
    torch_version: str | None = None
    dependency_versions: str | None = None  # the engine's key dependencies ("transformers=4.57.1 triton=3.5.0")
    lock_digest: str | None = None  # the env's lock (harness/envs/lock.py): every distribution it holds

    @classmethod
    def of(cls, env: Any) -> EngineBuild:
        # A point whose node lacks the engine has no env at all (a Ray placeholder row).
        return cls(getattr(env, "engine_version", None), getattr(env, "torch_version", None),
                   getattr(env, "dependency_versions", None) or None, getattr(env, "lock_digest", None) or None)


@dataclass(frozen=True)
class DeviceReading:
    """The memory the engine sized from, as the row states it; None where nothing was read.

    Totals and busy memory are whole MiB: that is the precision of the readings the engines size from."""

    name: str | None = None  # the card's name, or "cpu (<arch>)"
    total_mib: int | None = None  # the total the engine sizes from (CUDA's, the smallest card's, the host's)
    driver_version: str | None = None
    busy_before_mib: int | None = None  # what other processes held before the launch (total - free on a CPU)
    engine_free_mib: float | None = None  # the engine's own free reading as it began loading, where it logs one


@dataclass(frozen=True)
class Timings:
    """Seconds from the launch: to the KV line, to ready, and until nothing of the engine was left;
    of that wall time, the engine's own (to its stop condition) and its stop (not written to the row:
    benchmarks/overhead.py reads them to tell the harness's time from the engine's)."""

    t_kv_s: float | None = None
    t_ready_s: float | None = None
    wall_s: float = 0.0
    engine_s: float | None = None  # launch -> the stop condition (None: no launch)
    stop_s: float | None = None  # stopping the engine's process group


@dataclass(frozen=True)
class PredictedKv:
    """The formulas' KV pool for the point, from the same memory reading the engine sized from."""

    kv_tokens: int | None
    kv_gib: float | None


@dataclass(frozen=True)
class PointResult:
    """Everything one launch of one point produced; plain data, so it crosses to the run's process whole."""

    point: Point
    run_id: str
    status: str  # ok | engine_error | timeout | crashed | harness_error
    error_kind: str | None
    error_message: str | None
    record: StartupRecord | None  # the parsed startup log; None when the engine never started
    timings: Timings
    started_at: str
    log_path: str | None  # relative to the run folder; None when no log of the point reached it
    build: EngineBuild
    compile_cache: str  # cold | warm | unknown
    device: DeviceReading
    gpus: tuple[int | str, ...] | None  # the GPUs the point held (Ray names its own ids); None on a CPU host
    node: str | None  # the host the engine ran on
    prediction: PredictedKv | None = None  # None when the predictor could not say
    survivors: tuple[str, ...] = ()  # processes of the engine's group still there after the stop
    probe: ProbeResult | None = None  # stop_after=probe: what the probe measured on the ready server


def knob_fields(engine: str, args: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    used = set()
    eng = get_engine(engine)
    # a neutral column may be spelt otherwise by the engine (its aliases)
    native = eng.native_name
    for column in (*eng.knob_columns, *NEUTRAL_KNOBS):
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


def _measured(record: StartupRecord | None) -> dict[str, Any]:
    # the record's own CSV fields: the neutral ones and its engine's, and its pools as text
    return {} if record is None else {k: v for k, v in record.csv_values().items() if k in MEASURED or k in POOLS}


def _predicted(prediction: PredictedKv | None, record: StartupRecord | None) -> dict[str, Any]:
    if prediction is None:
        return {}
    error = prediction_error_pct(prediction.kv_tokens, record.kv_tokens if record is not None else None)
    return {"predicted_kv_tokens": prediction.kv_tokens, "predicted_kv_gib": _round(prediction.kv_gib, 4),
            "prediction_error_pct": _round(error, 3)}


def make_row(result: PointResult) -> dict[str, Any]:
    """The one place a results row is made: every column of columns.COLUMNS, in order, None where empty."""
    point, record, device, timings = result.point, result.record, result.device, result.timings
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(
        run_id=result.run_id, scenario=point.scenario, point_id=point.point_id, repeat=point.repeat,
        engine=point.engine, engine_version=(record.engine_version if record else None) or result.build.engine_version,
        model=point.model, started_at=result.started_at,
        device_name=device.name, device_total_mib=device.total_mib, driver_version=device.driver_version,
        torch_version=result.build.torch_version, dependency_versions=result.build.dependency_versions,
        env_lock=result.build.lock_digest,
        compile_cache=result.compile_cache,
        gpu_busy_before_mib=device.busy_before_mib, engine_free_mib=_round(device.engine_free_mib, 1),
        status=result.status, error_kind=result.error_kind, error_message=result.error_message,
        t_kv_s=_round(timings.t_kv_s), t_ready_s=_round(timings.t_ready_s), wall_s=_round(timings.wall_s),
        log_path=result.log_path, node=result.node,
        gpu_indices=None if result.gpus is None else ",".join(map(str, result.gpus)),
        source="measured",
    )
    row.update(knob_fields(point.engine, point.args))
    row.update(_measured(record))
    row.update(_predicted(result.prediction, record))
    row.update(probe_fields(result.probe))
    return row
