"""Three real public SGLang startup logs with pinned inputs (issue #40, twenty-first round): the cases, their sources
and each one's first look and final error are in tests/fixtures/predict/gpu-oos21/SOURCES.md.

Which were fitted and which were checked: s21 and s23 were marked held out when the set was collected, before any
prediction (SOURCES.md, the round's first commit); s22 is fitted. The logs are ones the project held for its parsers
(tests/fixtures/gpu-logs-22 and -27) that no predictor test, rule or doc had used: SGLang 0.5.6 on a Colab L4, 0.5.9
on an A100-PCIE-40GB, 0.4.3.post2 on a Colab T4, dense Qwen2 models each."""

from __future__ import annotations

from pathlib import Path

from tests.support.oos_cases import Case, held_out

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
