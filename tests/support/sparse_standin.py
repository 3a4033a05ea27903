"""The GPU stand-in's arithmetic answering launches in-process (no engine, no process): Llama-3.1-8B on an RTX 4090
(24,216 MiB as CUDA reports it), each launch's row what tests/support/gpu_host/vllm_rules.py and sglang_rules.py
(read from the releases' source, never the predictor) give - for the sparse loop's tests and benchmarks/sparse.py."""

from __future__ import annotations

import random
from pathlib import Path

from harness.predict import load_model_description
from harness.scenario import expand, load_scenario
from harness.sparse.groups import Reading
from tests.support.gpu_host import sglang_rules, vllm_rules

GiB = 1 << 30
CARD_MIB = 24216  # an RTX 4090 as CUDA reports it
NVML_MIB = 24564
KV_BYTES = 131072  # Llama-3.1-8B in bf16
WEIGHTS_GIB = 14.99
MODEL = load_model_description("meta-llama/Llama-3.1-8B-Instruct")


def scenario_points(tmp_path: Path, vllm_version: str = '"0.32.0"', repeats: int = 1, vllm_only: bool = False) -> list:
    """scenarios/24g_8b.yaml's sweep (Llama-3.1-8B on a 24 GiB card) as points; `vllm_only`: its vLLM part."""
    path = tmp_path / "s.yaml"
    path.write_text(f"""
name: s
model: meta-llama/Llama-3.1-8B-Instruct
gpu: {{memory_gib: 24}}
defaults: {{max_model_len: 8192, dtype: bfloat16}}
engines:
  vllm:
    version: {vllm_version}
    sweep:
      gpu_memory_utilization: [0.80, 0.85, 0.90, 0.92]
      max_num_batched_tokens: [2048, 4096, 8192]
  sglang:
    version: "0.5.22"
    sweep:
      mem_fraction_static: [null, 0.65, 0.70, 0.75, 0.80]
      chunked_prefill_size: [2048, 4096, 8192]
run: {{timeout_s: 30, stop_after: ready, repeats: {repeats}}}
""")
    points = expand(load_scenario(path))
    return [p for p in points if p.engine == "vllm"] if vllm_only else points


def _vllm(point, jitter_mib: float) -> tuple[str | None, int]:
    util = point.settings.get("gpu_memory_utilization")
    requested = vllm_rules.requested_bytes(CARD_MIB * (1 << 20), util, "0.32.0")
    non_kv = (WEIGHTS_GIB + 0.30 + 0.58 + 0.41) * GiB + jitter_mib * (1 << 20)
    sizing = vllm_rules.size_kv(vllm_rules.available_bytes(requested, non_kv, "0.32.0"),
                                KV_BYTES * vllm_rules.BLOCK_SIZE_CUDA, vllm_rules.BLOCK_SIZE_CUDA, 8192, "0.32.0")
    return sizing.error, sizing.kv_tokens


def _sglang(point, jitter_mib: float) -> tuple[str | None, int, float]:
    settings = sglang_rules.memory_settings(NVML_MIB, 1, point.settings.get("chunked_prefill_size"),
                                            point.settings.get("mem_fraction_static"))
    pre = (CARD_MIB - 500) / 1024
    rest = sglang_rules.rest_gib(pre, pre - WEIGHTS_GIB - jitter_mib / 1024, settings.mem_fraction_static)
    if rest <= 0:
        return "weights_leave_no_memory", 0, pre * 1024
    return None, sglang_rules.pool_tokens(rest, KV_BYTES, 1), pre * 1024


class StandIn:
    """Launches answered by the stand-ins' arithmetic; `jitter_mib`: each launch's memory beside the pool moves by up
    to that much (a seeded draw), as a real engine's does from launch to launch."""

    def __init__(self, jitter_mib: float = 0.0, seed: int = 0):
        self.jitter_mib, self.random, self.launched = jitter_mib, random.Random(seed), []

    def oracle(self, point, jitter_mib: float = 0.0) -> dict:
        row = {"point_id": point.point_id, "repeat": point.repeat, "engine": point.engine, "model": point.model,
               "engine_version": point.engine_version, "device_name": "NVIDIA GeForce RTX 4090",
               "device_total_mib": CARD_MIB, "gpu_busy_before_mib": 0, "engine_free_mib": None}
        if point.engine == "vllm":
            error, tokens = _vllm(point, jitter_mib)
        else:
            error, tokens, free = _sglang(point, jitter_mib)
            row.update(device_total_mib=NVML_MIB, engine_free_mib=free)
        row.update(status="ok" if error is None else "engine_error", error_kind=error,
                   kv_tokens=tokens if error is None else None,
                   kv_gib=round(tokens * KV_BYTES / GiB, 2) if error is None else None)
        return row

    def __call__(self, points) -> list[dict]:
        self.launched += points
        return [self.oracle(p, self.random.uniform(-self.jitter_mib, self.jitter_mib)) for p in points]


def initial(point) -> Reading:
    return Reading(CARD_MIB if point.engine == "vllm" else NVML_MIB, CARD_MIB - 500, False, "cuda")


