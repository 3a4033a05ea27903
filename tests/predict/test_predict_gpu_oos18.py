"""Two more real public GPU startup logs with pinned inputs (issue #40, eighteenth round): the cases, their sources
and each one's first look and final error are in tests/fixtures/predict/gpu-oos18/SOURCES.md.

Which were fitted and which were checked: v70 was marked held out when the set was collected, before any prediction
(SOURCES.md, this module's first commit 4ab2e90); v71 is fitted. The fitted one was first predicted with the code of
the branch's base 65e59e1: +2.43 %, within; its remainder is the activation a cold compile cache adds, which no input
sizes (docs/predict.md, "A first start"), so no rule was changed. The held-out v70 was then predicted once, with that
same code, and is locked here as it came: +3.47 %, not within (the same first-start remainder, 0.76 GiB of the 0.83).
Both pools come from server logs one repository (vireshkoli/LLM-Inference-Optimization) commits whole: vLLM 0.26.0 on
the same A40, bf16 and GPTQ int4."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
# The A40 as its own 0.26.0 logs give it: "Free memory on device (44.17/44.43 GiB) on startup" (both logs; SOURCES.md)
A40_MIB = 44.43 * GIB_MIB
A40 = "NVIDIA A40"  # the repository's README, "NVIDIA A40 (GA102), compute capability 8.6"
AMPERE_GA102 = 8.6
SHARED_FLAGS = {"max_model_len": 4096, "gpu_memory_utilization": 0.9, "max_num_seqs": 256}
LLAMA8B = "meta-llama/Llama-3.1-8B-Instruct"

CASES = {
    "v70 llama-3.1-8b a40 4k u0.9 0.26.0 mrv2": Case(
        "vllm", "gpu-oos18/v70-a40-llama31-8b-4k-u0.9-v0.26.0-mrv2-excerpt.log", LLAMA8B, "0.26.0", A40_MIB,
        AMPERE_GA102, dict(SHARED_FLAGS), "held_out", 195760, gpu_name=A40),
    "v71 llama-3.1-8b w4a16 gptq a40 4k u0.9 0.26.0 mrv2": Case(
        "vllm", "gpu-oos18/v71-a40-llama31-8b-w4a16-gptq-4k-u0.9-v0.26.0-mrv2-excerpt.log",
        "gpu-oos18/Meta-Llama-3.1-8B-Instruct-quantized.w4a16.json", "0.26.0", A40_MIB, AMPERE_GA102,
        dict(SHARED_FLAGS), "fit", 274672, gpu_name=A40),
}
V70, V71 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [V70]


# What each case came to with the final code (SOURCES.md): the held-out one scored once, both locked so a later change
# shows.
FINAL_TOKENS = {
    V70: 202560,  # +3.47 %, held out, scored once: a first start (cold compile cache), SOURCES.md
    V71: 281360,  # +2.43 %, fitted (the first look; nothing changed)
}
WITHIN = {V71}


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)


@pytest.mark.parametrize("name", list(CASES))
def test_both_are_first_starts_that_compile_in_the_profile(name):
    # the remainder of both: what Inductor allocated compiling, inside the profile's peak (docs/predict.md)
    text = CASES[name].text(HERE)
    assert "Compiling a graph for compile range (1, 2048)" in text and "Directly load" not in text
    assert "1.01 GiB for peak activation, 0.08 GiB for non-torch memory" in text


@pytest.mark.parametrize("name", list(CASES))
def test_each_log_is_0_26_0_model_runner_v2_on_the_a40(name):
    text = CASES[name].text(HERE)
    assert "version 0.26.0" in text and "Using V2 Model Runner" in text
    assert "Free memory on device (44.17/44.43 GiB)" in text
    assert "'max_model_len': 4096, 'gpu_memory_utilization': 0.9, 'max_num_seqs': 256" in text


def test_the_gptq_start_runs_marlin():
    assert "Using MarlinLinearKernel for AutoGPTQLinearMethod" in CASES[V71].text(HERE)
