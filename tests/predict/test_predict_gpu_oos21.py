"""Three real public SGLang startup logs with pinned inputs (issue #40, twenty-first round): the cases, their sources
and each one's first look and final error are in tests/fixtures/predict/gpu-oos21/SOURCES.md.

Which were fitted and which were checked: s21 and s23 were marked held out when the set was collected, before any
prediction (SOURCES.md, the round's first commit 29e00a9); s22 is fitted. The fitted one was first predicted with the
code of the branch's base b8b9629: -0.01 %, within, so no rule was sought. The held-out s21 and s23 were then
predicted once, with that same code, and are locked here as they came: -0.13 % and -1.07 %, both within. The logs are
ones the project held for its parsers (tests/fixtures/gpu-logs-22 and -27) that no predictor test, rule or doc had
used: SGLang 0.5.6 on a Colab L4, 0.5.9 on an A100-PCIE-40GB, 0.4.3.post2 on a Colab T4, dense Qwen2 models each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
# Each card as SGLang reads its size: nvidia-smi's memory.total in MiB (0.4.3.post2 sglang/srt/utils.py:893-899,
# 0.5.6 sglang/srt/utils/common.py:1610-1618, 0.5.9 :1724); SOURCES.md gives where each figure comes from
L4_MIB, L4 = 23034, "NVIDIA L4"
A100_PCIE_40GB_MIB, A100_PCIE_40GB = 40960, "NVIDIA A100-PCIE-40GB"
T4_MIB, T4 = 15360, "Tesla T4"

CASES = {
    "s21 qwen2.5-1.5b l4 defaults 0.5.6": Case(
        "sglang", "gpu-oos21/s21-l4-colab-qwen25-1.5b-defaults-v0.5.6-excerpt.log",
        "gpu-oos12/Qwen2.5-1.5B-Instruct.json", "0.5.6", L4_MIB, 8.9, {}, "held_out", 570166, gpu_name=L4,
        free_before_gib=21.84),
    "s22 r1-distill-qwen-1.5b a100-pcie-40gb f0.9 0.5.9": Case(
        "sglang", "gpu-oos21/s22-a100-pcie-40gb-r1-distill-qwen-1.5b-f0.9-v0.5.9-excerpt.log",
        "gpu-oos21/DeepSeek-R1-Distill-Qwen-1.5B.json", "0.5.9", A100_PCIE_40GB_MIB, 8.0,
        {"context_length": 5120, "mem_fraction_static": 0.9, "max_running_requests": 32, "chunked_prefill_size": 4096},
        "fit", 1178703, gpu_name=A100_PCIE_40GB, free_before_gib=38.87),
    "s23 qwen2.5-0.5b t4 defaults 0.4.3.post2": Case(
        "sglang", "gpu-oos21/s23-t4-colab-qwen25-0.5b-defaults-v0.4.3.post2-excerpt.log",
        "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.4.3.post2", T4_MIB, 7.5, {}, "held_out", 1038939,
        gpu_name=T4, free_before_gib=14.64),
}
S21, S22, S23 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [S21, S23]


# What each case came to with the final code (SOURCES.md): the held-out ones scored once, all locked so a later change
# shows.
FINAL_TOKENS = {
    S21: 569402,  # -0.13 %, held out, scored once
    S22: 1178633,  # -0.01 %, fitted (the first look; nothing changed)
    S23: 1027865,  # -1.07 %, held out, scored once
}
WITHIN = {S21, S22, S23}


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)

# Each log's release, card and pre-load reading as the case pins them (SOURCES.md)
PINNED_LINES = {
    S21: ("Load weight begin. avail mem=21.84 GB", "model_path='Qwen/Qwen2.5-1.5B-Instruct'",
          "mem_fraction_static=0.837"),
    S22: ("GPU 0: NVIDIA A100-PCIE-40GB", "Load weight begin. avail mem=38.87 GB", "#tokens: 1178703"),
    S23: ("Load weight begin. avail mem=14.64 GB", "Compute capability below sm80. Use float16",
          "mem_fraction_static=0.88"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_log_gives_the_pre_load_reading_the_case_pins(name):
    text = CASES[name].text(HERE)
    assert all(line in text for line in PINNED_LINES[name]), name
    assert f"avail mem={CASES[name].free_before_gib:.2f} GB" in text


@pytest.mark.parametrize("name", [S21, S23])
def test_the_default_settings_the_log_resolved_are_the_predicted_ones(name):
    # the two started at the release's defaults: its server_args line is a check of what predict chose for the card
    case = CASES[name]
    text, p = case.text(HERE), case.predict(HERE)
    assert f"mem_fraction_static={p.mem_fraction_static}," in text
    assert f"chunked_prefill_size={p.chunked_prefill_size}," in text
    assert f"cuda_graph_max_bs={p.cuda_graph_max_bs}," in text
