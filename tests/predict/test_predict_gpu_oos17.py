"""Five more real public GPU startup logs with pinned inputs (issue #40, seventeenth round): the cases, their sources
and each one's first look and final error are in tests/fixtures/predict/gpu-oos17/SOURCES.md.

Which were fitted and which were checked: v65, v67 and v69 were marked held out when the set was collected, before any
prediction (SOURCES.md, this module's first commit 65fc1cd); v66 and v68 are fitted. The fitted two were first
predicted with the code of the branch's base 5e747c1: v68 within (+0.44 %), v66 not (+24.27 %: 0.25.1's first runner
measures its CUDA-graph estimate on the card, 1.27 GiB logged against the predictor's 0.43; one log of that class with
its sizing subtracted, so no rule was changed, SOURCES.md). The held-out three were then predicted once, with that same
code, and are locked here as they came: v65 (-1.72 %), v67 (+1.20 %), v69 (+2.15 %), all within. Every case's pool
comes from a server log one repository (lyell0710/vllmExperience) commits whole: vLLM 0.25.1 on the same host's RTX
4090s."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
# The host's RTX 4090 as its own 0.25.1 logs it: "Free memory on device cuda:0 (7.64/23.54 GiB)" (the same repository's
# moe_perf/raw/EXP-017/server.log, a start that failed on that line; SOURCES.md)
RTX_4090_MIB = 23.54 * GIB_MIB
RTX_4090 = "NVIDIA GeForce RTX 4090"  # named by the MoE and FP8 kernel-config paths its logs print (SOURCES.md)
ADA = 8.9  # its own "SymmMemCommunicator: Device capability 8.9 not supported"

CASES = {
    "v65 qwen15-moe-a2.7b tp 2 ep 2x rtx 4090 8k u0.88 0.25.1 mrv2": Case(
        "vllm", "gpu-oos17/v65-2x4090-tp2-ep-qwen15-moe-a2.7b-8k-u0.88-v0.25.1-mrv2-excerpt.log",
        "gpu-oos17/Qwen1.5-MoE-A2.7B-Chat.json", "0.25.1", RTX_4090_MIB, ADA,
        {"max_model_len": 8192, "tensor_parallel_size": 2, "enable_expert_parallel": True,
         "gpu_memory_utilization": 0.88}, "held_out", 76160, gpu_name=RTX_4090),
    "v66 qwen3-30b-a3b-fp8 tp 2 ep 2x rtx 4090 8k u0.88 0.25.1": Case(
        "vllm", "gpu-oos17/v66-2x4090-tp2-ep-qwen3-30b-a3b-fp8-8k-u0.88-v0.25.1-excerpt.log",
        "gpu-oos2/Qwen3-30B-A3B-FP8.json", "0.25.1", RTX_4090_MIB, ADA,
        {"max_model_len": 8192, "tensor_parallel_size": 2, "enable_expert_parallel": True,
         "gpu_memory_utilization": 0.88}, "fit", 89248, gpu_name=RTX_4090),
    "v67 qwen2-7b tp 2 2x rtx 4090 8k u0.88 0.25.1 mrv2": Case(
        "vllm", "gpu-oos17/v67-2x4090-tp2-qwen2-7b-8k-u0.88-v0.25.1-mrv2-excerpt.log",
        "gpu-oos9/Qwen2-7B-Instruct.json", "0.25.1", RTX_4090_MIB, ADA,
        {"max_model_len": 8192, "tensor_parallel_size": 2, "gpu_memory_utilization": 0.88}, "held_out", 484160,
        gpu_name=RTX_4090),
    "v68 qwen25-0.5b eager rtx 4090 2k 0.25.1 mrv2": Case(
        "vllm", "gpu-oos17/v68-4090-qwen25-0.5b-eager-2k-v0.25.1-mrv2-excerpt.log",
        "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.25.1", RTX_4090_MIB, ADA,
        {"max_model_len": 2048, "enforce_eager": True}, "fit", 1782848, gpu_name=RTX_4090),
    # the NIXL connector is made after the pool is sized (its own factory.py line follows the KV lines): no flag of it
    "v69 qwen2-7b nixl producer rtx 4090 16k 0.25.1 mrv2": Case(
        "vllm", "gpu-oos17/v69-4090-qwen2-7b-nixl-producer-16k-v0.25.1-mrv2-excerpt.log",
        "gpu-oos9/Qwen2-7B-Instruct.json", "0.25.1", RTX_4090_MIB, ADA,
        {"max_model_len": 16384}, "held_out", 131152, gpu_name=RTX_4090),
}
V65, V66, V67, V68, V69 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [V65, V67, V69]


# What each case came to with the final code (SOURCES.md): the held-out three scored once, all locked so a later change
# shows.
FINAL_TOKENS = {
    V65: 74848,  # -1.72 %, held out, scored once
    V66: 110912,  # +24.27 %, fitted (the first look; nothing changed): the measured CUDA-graph estimate, SOURCES.md
    V67: 489952,  # +1.20 %, held out, scored once
    V68: 1790608,  # +0.44 %, fitted (the first look; nothing changed)
    V69: 133968,  # +2.15 %, held out, scored once
}
WITHIN = {V65, V67, V68, V69}


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)


@pytest.mark.parametrize("name", list(CASES))
def test_each_log_is_0_25_1_on_capability_8_9(name):
    text = CASES[name].text(HERE)
    assert "version 0.25.1" in text
    assert "Device capability 8.9" in text or "tcp://10.42.91.42" in text


@pytest.mark.parametrize("name", [V65, V66])
def test_the_moe_logs_name_the_rtx_4090_in_their_kernel_config_path(name):
    assert "device_name=NVIDIA_GeForce_RTX_4090" in CASES[name].text(HERE)


@pytest.mark.parametrize("name", [V65, V67, V68, V69])
def test_model_runner_v2_runs_the_dense_and_the_bf16_moe_starts(name):
    assert "Using V2 Model Runner" in CASES[name].text(HERE)


def test_the_fp8_moe_start_runs_the_first_runner_with_its_graph_estimate():
    text = CASES[V66].text(HERE)
    assert "Using V2 Model Runner" not in text
    assert re.search(r"Estimated CUDA graph memory: 1\.27 GiB total", text)


def test_the_nixl_connector_is_made_after_the_pool_is_sized():
    text = CASES[V69].text(HERE)
    assert text.index("GPU KV cache size: 131,152 tokens") < text.index("Creating v1 connector")
