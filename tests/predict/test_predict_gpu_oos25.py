"""Two real public vLLM-CPU startup logs with pinned inputs (issue #40, twenty-fifth round: the CPU predictor on other
people's hosts): the cases, their sources and each one's first look and final error are in
tests/fixtures/predict/gpu-oos25/SOURCES.md.

Which were fitted and which were checked: c01 was marked held out when the set was collected, before any prediction
(SOURCES.md, the round's first commit 02668286); c02 is fitted. Both are Apple silicon hosts under macOS, where the
worker's budget line ('Auto set (KV/TOTAL) GiB for KV cache on node N, ...') prints the pool it sized; the CPU
path's target is 2 %."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oos_cases import CPU_TOLERANCE, Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
# vllm serve's and the LLM class's CPU batch defaults (0.22.1 vllm/engine/arg_utils.py:2355-2360)
SERVE_CPU_BATCH = {"max_num_batched_tokens": 2048, "max_num_seqs": 128}
LLM_CLASS_CPU_BATCH = {"max_num_batched_tokens": 4096, "max_num_seqs": 256}

CASES = {
    "c01 qwen2.5-1.5b apple cpu compiled u0.3 0.22.1rc1.dev495": Case(
        "vllm", "gpu-oos25/c01-apple-cpu-qwen25-1.5b-compiled-u0.3-v0.22.1rc1dev-auto-set.log",
        "gpu-oos12/Qwen2.5-1.5B-Instruct.json", "0.22.1", 18.0 * GIB_MIB, None,
        {"gpu_memory_utilization": 0.3, "max_model_len": 32768, "dtype": "bfloat16", **SERVE_CPU_BATCH},
        "held_out", 55424, device="cpu"),
    "c02 qwen2.5-0.5b mac mini m4 cpu eager u0.2 main bf578e1 offline": Case(
        "vllm", "gpu-oos25/c02-mac-mini-m4-cpu-qwen25-0.5b-eager-u0.2-main-bf578e1-auto-set.log",
        "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.22.1", 16.0 * GIB_MIB, None,
        {"gpu_memory_utilization": 0.2, "max_model_len": 2048, "enforce_eager": True, "dtype": "bfloat16",
         **LLM_CLASS_CPU_BATCH},
        "fit", 109440, device="cpu"),
}
C01, C02 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [C01]
