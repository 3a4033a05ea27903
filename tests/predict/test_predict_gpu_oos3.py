"""vLLM's non-torch term against every figure the project's real GPU logs print, and new public logs predicted out of
sample (issue #40, third round): the cases, their sources and the first looks are in
tests/fixtures/predict/gpu-oos3/SOURCES.md.

Which were fitted and which were checked. The non-torch function (harness/engines/vllm/non_torch.py) was fitted on
gpu-oos/v03 (one rank, 0.10.2), the 8x L40S log (TP 8, 0.10.2) and gpu-oos/v01 + v02 (0.27+, consumed beyond the
weights); every other logged figure (v09, v10, nt01, nt02, v07) was held out and is checked here as it came out,
misses included. Of the new KV cases, v09 was read to find causes (its sampler, pinned by its own log line); v07 and
v08 were held out and scored once with the final code."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.engines.vllm import non_torch
from harness.engines.vllm.non_torch import non_torch_gib, penalty_buffers_bytes
from harness.predict import load_model_description
from harness.predict.model import GiB
from parsers import parse_log, read_log
from tests.support.fixture_configs import config_model

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS3 = HERE / "gpu-oos3"
L40S_8X = HERE.parent / "gpu-logs-2" / "vllm" / "03-8x-l40s-qwen3-235b-fp8-tp8-ep-per-rank-kv-lines-v0.10.2.log"
TOLERANCE = 0.03


def _logged_non_torch(log: Path) -> float:
    return parse_log(read_log(log), "vllm").non_torch_gib


def _consumed_beyond_weights(log: Path, weights_gib: float) -> float:
    # from 0.27.0 the line states weights + non-torch together ("consumed memory"); less the weights vLLM held
    consumed = re.search(r"Actual usage is ([\d.]+) GiB for consumed memory", read_log(log))
    return float(consumed.group(1)) - weights_gib


def _held_weights(model, release: str) -> float:
    return predict("vllm", {}, model, 80 * 1024, engine_version=release).weights_gib


QWEN25_05B = HERE / "sglang-gpu-public" / "Qwen2.5-0.5B-Instruct.json"
LLAMA8B = "meta-llama/Llama-3.1-8B-Instruct"


def test_one_rank_before_0_27_is_the_fitted_figure_and_the_held_out_logs_agree():
    # fitted: gpu-oos/v03 (0.10.2) prints 0.02; held out: v09 (0.10.0 dev) 0.02, v10 (0.10.2, a vision model) 0.07
    fitted = _logged_non_torch(HERE / "gpu-oos" / "v03-24g-qwen3-8b-fp8-v0.10.2.log")
    assert non_torch_gib("0.10.2", 1)[0] == fitted == non_torch.ONE_RANK_GIB
    for log, release in (("v09-44g-llama32-1b-dev-0.10.0.log", "0.10.0"),
                         ("v10-a100-llava-v1.6-mistral-7b-v0.10.2.log", "0.10.2")):
        assert abs(_logged_non_torch(OOS3 / log) - non_torch_gib(release, 1)[0]) <= 0.05, log


def test_the_one_rank_0_26_log_is_a_held_out_miss_of_0_14_gib():
    # nt02: a Mamba hybrid with online INT4 and FlashInfer on a 16 GiB card, 0.26: 0.16 GiB where one rank is 0.02.
    # Locked as it came out (0.9 % of that log's 13.33 GiB pool)
    logged = _logged_non_torch(OOS3 / "nt02-16g-hybrid-int4-tp1-v0.26.log")
    assert logged == 0.16 and round(logged - non_torch_gib("0.26.0", 1)[0], 2) == 0.14


def test_the_communicators_before_0_11_are_the_8_ranks_mean():
    # fitted on this log: each rank of the 8x L40S TP 8 run prints its own figure (0.17-0.21 GiB, PCIe)
    ranks = [float(x) for x in re.findall(r"([\d.]+) GiB for non-torch memory", read_log(L40S_8X))]
    assert len(ranks) >= 8 and min(ranks) == 0.17 and max(ranks) == 0.21
    mean = sum(ranks) / len(ranks)
    assert abs(non_torch_gib("0.10.2", 8)[0] - mean) <= 0.01


def test_the_nvswitch_tp2_log_is_outside_what_the_function_knows():
    # gpu-oos/v04, 2x H200 TP 2, 0.10.2: 1.38 GiB (NCCL's buffers over NVSwitch); the predictor does not know the
    # card's links and says the PCIe-fitted figure is what it uses
    logged = _logged_non_torch(HERE / "gpu-oos" / "v04-2xh200-qwen3-next-80b-tp2-v0.10.2.log")
    gib, basis = non_torch_gib("0.10.2", 2)
    assert logged == 1.38 and gib == non_torch.COMMUNICATORS_GIB and "NVSwitch" in basis


def test_from_0_11_the_communicators_are_in_the_baseline():
    # 0.11.0 gpu_worker.py:165-182 creates them before the snapshot: a TP 4 estimate is not the communicators' one.
    # nt01 (held out: GLM on 4x B200, 0.26.0, FlashInfer's all-reduce fusion workspace made at compile time, after
    # the snapshot) prints 0.95 GiB: a miss of 0.65 GiB
    gib, basis = non_torch_gib("0.26.0", 4)
    assert gib == non_torch.LAZY_COLLECTIVES_GIB and "before it" in basis
    logged = _logged_non_torch(OOS3 / "nt01-b200-glm52-nvfp4-tp4-ep-v0.26.0.log")
    assert "FlashInfer Allreduce norm fusion workspace" in read_log(OOS3 / "nt01-b200-glm52-nvfp4-tp4-ep-v0.26.0.log")
    assert round(logged - gib, 2) == 0.65


def test_from_0_27_consumed_beyond_the_weights_fitted_on_two_logs_and_a_held_out_third():
    qwen05, llama = config_model(QWEN25_05B), load_model_description(LLAMA8B)
    fitted = [_consumed_beyond_weights(HERE / "gpu-oos" / "v01-a100-llama31-8b-v0.31.0.log",
                                       _held_weights(llama, "0.31.0")),
              _consumed_beyond_weights(HERE / "gpu-oos" / "v02-rtx4090-qwen25-0.5b-v0.27.1.log",
                                       _held_weights(qwen05, "0.27.1"))]
    assert [round(f, 2) for f in fitted] == [0.27, 0.31]
    # gpu-oos5: Model Runner V2's penalty counts (256 sequences x the vocabulary x int32) are sized apart, the rest is
    # the fitted constant: 0.144 and 0.161 beside 0.126 and 0.149 GiB of those buffers
    buffers = [penalty_buffers_bytes(256, m.vocab_size) / GiB for m in (llama, qwen05)]
    assert [round(b, 3) for b in buffers] == [0.126, 0.149]
    assert abs(non_torch_gib("0.31.0", 1)[0] - sum(f - b for f, b in zip(fitted, buffers)) / 2) <= 0.01
    # held out: the same card and release, another run (max_model_len 2048, 0.85): 0.57 GiB, a miss of 0.28 GiB
    # (0.27 with the buffers sized apart: the same 256 sequences)
    held = _consumed_beyond_weights(OOS3 / "v07-rtx4090-qwen25-0.5b-maxlen2048-v0.27.1.log",
                                    _held_weights(qwen05, "0.27.1"))
    assert round(held - non_torch_gib("0.27.1", 1)[0] - buffers[1], 2) == 0.27


@dataclass(frozen=True)
class Case:
    log: str
    model: str  # a fixture config (a path under fixtures/predict) or a bundled card
    release: str
    card_gib: float
    args: dict
    part: str  # "fit" (read to find causes) or "held_out" (scored once with the final code)
    env: dict = field(default_factory=dict)


CASES = {
    "qwen2.5-0.5b-rtx4090-0.27.1-maxlen2048": Case(
        "v07-rtx4090-qwen25-0.5b-maxlen2048-v0.27.1.log", "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.27.1",
        23.99, {"max_model_len": 2048, "gpu_memory_utilization": 0.85}, "held_out"),
    # the card is not named: A100 40GB (a GCP notebook; 0.9 x 39.49 less its figures leaves its 19.25 GiB), whose
    # CUDA total another 0.10.2 log prints as 39.49 GiB (vllm#25970); 39.39 would move the pool by -0.5 %
    "llama3.1-8b-a100-40g-0.10.1.1-fp16": Case(
        "v08-a100-40g-llama31-8b-fp16-v0.10.1.1.log", LLAMA8B, "0.10.1", 39.49, {"dtype": "float16"}, "held_out"),
    # a dev build of 2025-08-06 (0.1.dev8168+g475c1a0: after 0.10.0, before 0.10.1); the card's total is the log's
    # own 39.88 GiB requested at 0.90; its sampler is FlashInfer's ("Using FlashInfer for top-p & top-k sampling")
    "llama3.2-1b-44g-0.10.0-dev": Case(
        "v09-44g-llama32-1b-dev-0.10.0.log", "gpu-oos3/Llama-3.2-1B.json", "0.10.0", 39.88 / 0.9, {}, "fit",
        {"VLLM_USE_FLASHINFER_SAMPLER": "1"}),
}


def _model(name: str):
    return config_model(HERE / name) if name.endswith(".json") else load_model_description(name)


@pytest.mark.parametrize("name", list(CASES))
def test_within_3_percent_of_the_logged_kv(name):
    case = CASES[name]
    logged = parse_log(read_log(OOS3 / case.log), "vllm").kv_tokens
    p = predict("vllm", case.args, _model(case.model), case.card_gib * 1024, engine_version=case.release,
                env=case.env)
    assert p.modelled and p.will_start, p.reason
    assert abs(p.kv_tokens / logged - 1) <= TOLERANCE, (name, p.kv_tokens, logged, p.estimates)


def test_the_1b_logs_own_figures_are_what_the_estimates_stand_for():
    # its debug line: torch peak 0.45 GiB, non-torch 0.02 GiB, weights 2.32 GiB (FlashInfer's sampler: 0.31 GiB
    # estimated, the forward below it)
    case = CASES["llama3.2-1b-44g-0.10.0-dev"]
    record = parse_log(read_log(OOS3 / case.log), "vllm")
    p = predict("vllm", case.args, _model(case.model), case.card_gib * 1024, engine_version=case.release,
                env=case.env)
    assert abs(p.weights_gib - record.weights_gib) < 0.01 and p.estimates["O"].gib == record.non_torch_gib
    assert "FlashInfer" in p.estimates["A"].basis


CASE_LLAVA = "v10-a100-llava-v1.6-mistral-7b-v0.10.2.log"


def test_a_llava_model_is_declined_in_one_line():
    # v10: LlavaNextForConditionalGeneration on 0.10.2 profiles its vision encoder ("Encoder cache will be
    # initialized ... profiled with 5 image items"); the predictor declines a multimodal encoder profile
    assert "Resolved architecture: LlavaNextForConditionalGeneration" in read_log(OOS3 / CASE_LLAVA)
    model = config_model(OOS3 / "llava-v1.6-mistral-7b-hf.json")
    p = predict("vllm", {"max_model_len": 4096}, model, 79.19 * 1024, engine_version="0.10.2")
    assert p.modelled is False and "multimodal" in p.reason and "\n" not in p.reason
