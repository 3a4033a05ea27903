"""Five more real public GPU startup logs with pinned inputs (issue #40, fifteenth round): the cases, their sources
and each one's first look and final error are in tests/fixtures/predict/gpu-oos15/SOURCES.md.

Which were fitted and which were checked: v56, v58 and v60 were marked held out when the set was collected, before any
prediction (SOURCES.md, commit 41c45c0); v57 and v59 are fitted. The fitted two were first predicted with the code of
main 2896de2 and came within 3 % (v57 +0.42 %, v59 +0.15 %), so nothing changed; the held-out three were predicted once,
with that same code, and are locked here as they came: v56 (+1.05 %) and v60 (-0.63 %) within, v58 (+5.73 %) not. Every
case is a log file a repository commits whole (`vllm.log`, `logs/vllm_server.log`) beside the project that ran it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
CARD_39_49_MIB = 39.49 * GIB_MIB  # v56's own "Free memory on device (39.08/39.49 GiB)"
CARD_48GB_MIB = 47.53 * GIB_MIB  # the 48 GB cards' total as ../gpu-oos5, gpu-oos6 and gpu-oos14 take it (SOURCES.md)
A100_80G_MIB = 79.25 * GIB_MIB  # ../gpu-oos v01's A100 80GB total, as ../gpu-oos9 and gpu-oos14 take it
H200_MIB = 139.80 * GIB_MIB  # the same repository's TensorRT-LLM log on its H200s: "total memory 139.80084228515625GiB"
T4_MIB = 14.56 * GIB_MIB  # v60's own "Free memory on device (14.46/14.56 GiB)"

CASES = {
    "v56 qwen25-coder-1.5b fp16 a100 40gb 16k 0.31.0": Case(
        "vllm", "gpu-oos15/v56-a100-40gb-qwen25-coder-1.5b-fp16-16k-v0.31.0-excerpt.log",
        "gpu-oos15/Qwen2.5-Coder-1.5B-Instruct.json", "0.31.0", CARD_39_49_MIB, 8.0,
        {"dtype": "half", "max_model_len": 16384}, "held_out", 1207072),
    "v57 r1-distill-qwen-7b 48 GB card 16k 0.11.0": Case(
        "vllm", "gpu-oos15/v57-48gb-r1-distill-qwen7b-16k-v0.11.0-excerpt.log",
        "gpu-oos2/DeepSeek-R1-Distill-Qwen-7B.json", "0.11.0", CARD_48GB_MIB, None,
        {"max_model_len": 16384}, "fit", 506224),
    "v58 llama3-8b tp 4 a100 80gb 0.13.0": Case(
        "vllm", "gpu-oos15/v58-a100-80gb-tp4-llama3-8b-defaults-v0.13.0-excerpt.log",
        "gpu-oos15/Meta-Llama-3-8B-Instruct.json", "0.13.0", A100_80G_MIB, 8.0,
        {"tensor_parallel_size": 4}, "held_out", 2048704),
    "v59 llama3-8b h200 1k 0.11.2": Case(
        "vllm", "gpu-oos15/v59-h200-llama3-8b-1k-v0.11.2-excerpt.log",
        "gpu-oos15/Meta-Llama-3-8B-Instruct.json", "0.11.2", H200_MIB, 9.0,
        {"dtype": "bfloat16", "max_model_len": 1024}, "fit", 868080, gpu_name="NVIDIA H200"),
    "v60 qwen25-1.5b fp16 t4 u0.85 no prefix caching 0.30.0": Case(
        "vllm", "gpu-oos15/v60-t4-qwen25-1.5b-fp16-u0.85-nopc-v0.30.0-excerpt.log",
        "gpu-oos12/Qwen2.5-1.5B-Instruct.json", "0.30.0", T4_MIB, 7.5,
        {"dtype": "float16", "max_model_len": 4096, "gpu_memory_utilization": 0.85, "enable_prefix_caching": False},
        "held_out", 324704),
}
V56, V57, V58, V59, V60 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [V56, V58, V60]


# What each case came to with the final code (SOURCES.md): the held-out three scored once, all locked so a later change
# shows.
FINAL_TOKENS = {
    V56: 1219744,  # +1.05 %, held out, scored once
    V57: 508352,  # +0.42 %, fitted (the first look; nothing changed)
    V58: 2166144,  # +5.73 %, held out, scored once: outside (the A100's batch taken for a card vLLM ran as non-A100)
    V59: 869408,  # +0.15 %, fitted (the first look; nothing changed)
    V60: 322656,  # -0.63 %, held out, scored once
}
WITHIN = {V56, V57, V59, V60}


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)


@pytest.mark.parametrize("name", [V56, V60])
def test_the_card_total_is_the_one_the_log_states(name):
    case = CASES[name]
    total_gib = float(re.search(r"Free memory on device \([0-9.]+/([0-9.]+) GiB\)", case.text(HERE)).group(1))
    assert case.card_mib == total_gib * GIB_MIB


def test_v57_weights_and_pool_exclude_the_next_smaller_card():
    # utilization 0.9 x an L40S's 44.42 GiB holds less than the log's own weights and KV pool: a 48 GB card (SOURCES.md)
    text = CASES[V57].text(HERE)
    weights_gib = float(re.search(r"Model loading took ([0-9.]+) GiB", text).group(1))
    pool_gib = float(re.search(r"Available KV cache memory: ([0-9.]+) GiB", text).group(1))
    assert 0.9 * 44.42 < weights_gib + pool_gib < 0.9 * CARD_48GB_MIB / GIB_MIB


def test_v58_logs_capability_8_0_and_the_large_card_batch():
    # capability 8.0 with vLLM's > 70 GiB batch (8,192 tokens) leaves an A100/A800 80GB (SOURCES.md)
    text = CASES[V58].text(HERE)
    assert "Device capability 8.0" in text
    assert "max_num_batched_tokens=8192" in text


def test_v60_logs_capability_7_5():
    assert "unsupported compute capability 7.5" in CASES[V60].text(HERE)
