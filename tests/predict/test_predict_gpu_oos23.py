"""Three real public vLLM startup logs with pinned inputs (issue #40, twenty-third round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos23/SOURCES.md.

Which were fitted and which were checked: v79 and v81 were marked held out when the set was collected, before any
prediction (SOURCES.md, the round's first commit b3064c6); v80 is fitted. The fitted one was first predicted with the
code of the branch's base a60ebcb: +12.35 %; the release's profile, read in its source, gave no rule, so nothing was
changed. The held-out v79 and v81 were then predicted once, with that same code, and are locked here as they came:
+6.01 % and +3.90 %, neither within. The logs are ones the project held for its parsers
(gpu-logs-9 vllm/03 and 08, gpu-logs-54 vllm/01) that no predictor round had taken: Qwen2.5-7B AWQ on a Tesla T4 on
0.22.1, Llama-3.1-70B AWQ on Marlin on an RTX PRO 6000 Blackwell on a 0.14.0 rc build, TinyLlama on an H100 PCIe on
0.16.0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
# A T4 whose nvidia-smi total is 15,360 MiB (v79's README), as vLLM reads one: a Colab T4's own "Free memory on device
# (14.63/14.74 GiB)" (SOURCES.md; ../gpu-oos11 takes a T4 so)
T4_MIB = 14.74 * GIB_MIB
TURING = 7.5
PRO6000_MIB = 94.97 * GIB_MIB  # the RTX PRO 6000's torch total, as ../gpu-oos13 and ../gpu-oos14 take it
BLACKWELL_SM120 = 12.0
# an H100 80GB's torch total, as ../gpu-oos13 takes it (the PCIe card's nvidia-smi total is the same 81,559 MiB)
H100_MIB = 79.19 * GIB_MIB
HOPPER = 9.0
# The LLM class's batch defaults on a card of 70 GiB or more that is not an A100 (0.14.0 vllm/engine/arg_utils.py:
# 1846-1855; v81's own "max_num_batched_tokens=16384" on 0.16.0)
LLM_CLASS_BIG_CARD = {"max_num_batched_tokens": 16384, "max_num_seqs": 1024}

CASES = {
    "v79 qwen2.5-7b awq t4 eager 4k u0.9 0.22.1": Case(
        "vllm", "gpu-oos23/v79-t4-aks-qwen25-7b-awq-eager-4k-u0.9-v0.22.1-excerpt.log",
        "gpu-oos7/Qwen2.5-7B-Instruct-AWQ.json", "0.22.1", T4_MIB, TURING,
        {"quantization": "awq", "dtype": "float16", "enforce_eager": True, "gpu_memory_utilization": 0.9,
         "max_model_len": 4096, "max_num_seqs": 8},
        "held_out", 137072, gpu_name="Tesla T4"),
    "v80 llama-3.1-70b awq-marlin rtx pro 6000 eager 4k 0.14.0rc2 offline": Case(
        "vllm", "gpu-oos23/v80-rtxpro6000-llama31-70b-awq-marlin-eager-4k-v0.14.0rc2-excerpt.log",
        "gpu-oos16/Meta-Llama-3.1-70B-Instruct-AWQ-INT4.json", "0.14.0", PRO6000_MIB, BLACKWELL_SM120,
        {"max_model_len": 4096, "quantization": "awq_marlin", "enforce_eager": True, **LLM_CLASS_BIG_CARD},
        "fit", 126832, env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"},
        gpu_name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition"),
    "v81 tinyllama-1.1b h100 pcie eager u0.8 0.16.0 offline": Case(
        "vllm", "gpu-oos23/v81-h100-pcie-tinyllama-1.1b-eager-u0.8-v0.16.0-excerpt.log",
        "gpu-oos23/TinyLlama-1.1B-Chat-v1.0.json", "0.16.0", H100_MIB, HOPPER,
        {"dtype": "float16", "gpu_memory_utilization": 0.8, "enforce_eager": True, **LLM_CLASS_BIG_CARD},
        "held_out", 2755216, gpu_name="NVIDIA H100 PCIe"),
}
V79, V80, V81 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [V79, V81]


# What each case came to with the final code (SOURCES.md): the held-out ones scored once, all locked so a later change
# shows.
FINAL_TOKENS = {
    V79: 145312,  # +6.01 %, held out, scored once
    V80: 142496,  # +12.35 %, fitted (the first look; nothing changed)
    V81: 2862640,  # +3.90 %, held out, scored once
}
WITHIN: set[str] = set()


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)


def test_v79_is_the_t4_start_the_readme_sizes():
    assert "Available KV cache memory: 7.32 GiB" in CASES[V79].text(HERE)
    readme = (HERE / "gpu-oos23" / "SOURCES.md").read_text()
    assert "Tesla T4, 15360 MiB, 7.5" in readme


def test_v80_is_the_eager_marlin_start_of_the_report():
    text = CASES[V80].text(HERE)
    assert "Model loading took 37.09 GiB memory" in text and "Available KV cache memory: 38.71 GiB" in text
    assert "SYSTEM FREEZE" not in text  # the author's marker is left out of the excerpt


def test_v81_is_the_eager_0_16_0_offline_start_the_case_pins():
    text = CASES[V81].text(HERE)
    assert "Initializing a V1 LLM engine (v0.16.0)" in text
    assert "'dtype': 'float16', 'gpu_memory_utilization': 0.8" in text and "'enforce_eager': True" in text
    assert "Chunked prefill is enabled with max_num_batched_tokens=16384." in text
    assert "Using max model len 2048" in text and "Model loading took 2.05 GiB memory" in text


@pytest.mark.parametrize("name", list(CASES))
def test_each_case_names_its_card(name):
    assert CASES[name].gpu_name and CASES[name].capability
