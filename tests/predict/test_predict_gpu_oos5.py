"""Ten more real public GPU startup logs with pinned inputs (issue #40, fifth round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos5/SOURCES.md.

Which were fitted and which were checked: half the cases were marked held out when the set was collected, before
any prediction (SOURCES.md). Every case was first predicted with the code of main f1c741d; the `fit` cases were then
read to find causes, and the held-out ones were predicted once, with the final code, and are locked here as they
came."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.engines.vllm import fp8_marlin
from harness.engines.vllm.non_torch import CONSUMED_BEYOND_WEIGHTS_GIB, penalty_buffers_bytes
from harness.predict.model import GiB
from parsers import read_log
from tests.support.oos_cases import TOLERANCE, Case, check_case_as_it_came_out

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS5 = HERE / "gpu-oos5"
GIB_MIB = 1024
LLAMA8B = "meta-llama/Llama-3.1-8B-Instruct"


AWQ_A6000 = {"tensor_parallel_size": 1, "max_model_len": 32768, "max_num_seqs": 16, "gpu_memory_utilization": 0.90,
             "seed": 42}
PROBE_5060TI = {"gpu_memory_utilization": 0.35, "max_model_len": 4096, "max_num_seqs": 4, "block_size": 16,
                "enable_prefix_caching": False, "enforce_eager": True}
NO_FLASHINFER_SAMPLER = {"VLLM_USE_FLASHINFER_SAMPLER": "0"}

CASES = {
    "v15 qwen3-coder-30b-a3b-fp8 a100-40g 0.19.1": Case(
        "vllm", "v15-a100-40g-qwen3-coder-30b-a3b-fp8-v0.19.1.log", "gpu-oos5/Qwen3-Coder-30B-A3B-Instruct-FP8.json",
        "0.19.1", 39.49 * GIB_MIB, 8.0, {"max_model_len": 32768, "enable_prefix_caching": True}, "fit", 54912),
    "v16 qwen3-32b-awq a6000 0.19.1 no prefix caching": Case(
        "vllm", "v16-a6000-qwen3-32b-awq-nopc-v0.19.1.log", "gpu-oos5/Qwen3-32B-AWQ.json", "0.19.1",
        47.53 * GIB_MIB, 8.6, {**AWQ_A6000, "enable_prefix_caching": False}, "held_out", 98928),
    "v17 qwen3-32b-awq a6000 0.19.1 first start": Case(
        "vllm", "v17-a6000-qwen3-32b-awq-first-start-v0.19.1.log", "gpu-oos5/Qwen3-32B-AWQ.json", "0.19.1",
        47.53 * GIB_MIB, 8.6, {**AWQ_A6000, "enable_prefix_caching": True}, "fit", 94320),
    "v18 qwen3-8b-awq a6000 0.19.1": Case(
        "vllm", "v18-a6000-qwen3-8b-awq-v0.19.1.log", "gpu-oos5/Qwen3-8B-AWQ.json", "0.19.1", 47.53 * GIB_MIB, 8.6,
        {**AWQ_A6000, "enable_prefix_caching": True}, "held_out", 260544),
    "v19 qwen2.5-0.5b 5060ti 0.27.1 no chunked prefill": Case(
        "vllm", "v19-5060ti-qwen25-0.5b-nochunk-v0.27.1.log", "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json",
        "0.27.1", 15849, 12.0, {**PROBE_5060TI, "max_num_batched_tokens": 4096, "enable_chunked_prefill": False},
        "fit", 364592, NO_FLASHINFER_SAMPLER),
    "v20 qwen2.5-0.5b 5060ti 0.27.1 chunked 512": Case(
        "vllm", "v20-5060ti-qwen25-0.5b-chunk512-v0.27.1.log", "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json",
        "0.27.1", 15849, 12.0, {**PROBE_5060TI, "max_num_batched_tokens": 512, "enable_chunked_prefill": True},
        "held_out", 375200, NO_FLASHINFER_SAMPLER),
    # 0.19.1rc1.dev71, predicted as the release it leads to
    "v21 minimax-m2.5-fp8 tp4 4xh100 0.19.1": Case(
        "vllm", "v21-4xh100-minimax-m2.5-fp8-tp4-v0.19.1rc1.log", "gpu-oos5/MiniMax-M2.5.json", "0.19.1",
        79.19 * GIB_MIB, 9.0, {"tensor_parallel_size": 4, "max_model_len": 128000, "gpu_memory_utilization": 0.95,
                               "max_num_seqs": 10, "max_num_batched_tokens": 8192}, "fit", 307184),
    # FlashInfer absent: its own "Falling back to the PyTorch-native implementation of top-p & top-k sampling"
    "v22 qwen3-8b a100-40g 0.9.2": Case(
        "vllm", "v22-a100-40g-qwen3-8b-defaults-v0.9.2.log", "gpu-oos4/Qwen3-8B.json", "0.9.2", 39.49 * GIB_MIB,
        8.0, {}, "held_out", 136080, NO_FLASHINFER_SAMPLER),
    "s17 qwen3-4b h100 0.5.18": Case(
        "sglang", "s17-h100-qwen3-4b-f0.85-v0.5.18.log", "gpu-oos5/Qwen3-4B.json", "0.5.18", 81559, 9.0,
        {"context_length": 32768, "mem_fraction_static": 0.85}, "held_out", 430067),
    "s18 llama3.1-8b a6000 0.5.2 no cuda graph": Case(
        "sglang", "s18-a6000-llama31-8b-f0.85-nograph-v0.5.2-fork.log", LLAMA8B, "0.5.2", 47.53 * GIB_MIB, 8.6,
        {"mem_fraction_static": 0.85, "max_running_requests": 32, "disable_radix_cache": True,
         "disable_cuda_graph": True, "attention_backend": "flashinfer"}, "fit", 204824),
}


def _model(case: Case):
    return case.model_description(HERE)



def _predict(case: Case, capability: float | None = None):
    return case.predict(HERE, capability)


@pytest.mark.parametrize("name", list(CASES))
def test_the_logged_figure_is_the_one_the_case_names(name):
    case = CASES[name]
    assert case.logged_figure(OOS5) == case.logged_tokens


# What each case came to with the final code (SOURCES.md): the held-out half scored once, the fitted misses with
# their causes; locked so a later change shows.
FINAL_TOKENS = {
    "v15 qwen3-coder-30b-a3b-fp8 a100-40g 0.19.1": 59072,  # +7.58 %, fit, a miss: a first start (cold compile cache)
    "v16 qwen3-32b-awq a6000 0.19.1 no prefix caching": 99680,  # +0.76 %, held out
    "v17 qwen3-32b-awq a6000 0.19.1 first start": 99680,  # +5.68 %, fit, a miss: the first start (v16 a later one)
    "v18 qwen3-8b-awq a6000 0.19.1": 268256,  # +2.96 %, held out
    "v19 qwen2.5-0.5b 5060ti 0.27.1 no chunked prefill": 366400,  # +0.50 %, fit
    "v20 qwen2.5-0.5b 5060ti 0.27.1 chunked 512": 377680,  # +0.66 %, held out
    # +15.73 % at this round's end, a miss: 2.8 GiB a rank not modelled; +11.67 % since gpu-oos6's fused-MoE workspace
    # (0.75 GiB of TritonExperts caches in the profile forward, profile_peak.moe_workspace_per_token)
    "v21 minimax-m2.5-fp8 tp4 4xh100 0.19.1": 343040,
    "v22 qwen3-8b a100-40g 0.9.2": 137344,  # +0.93 %, held out
    "s17 qwen3-4b h100 0.5.18": 434779,  # +1.10 %, held out
    "s18 llama3.1-8b a6000 0.5.2 no cuda graph": 204332,  # -0.24 %, fit
}
WITHIN = {n for n in CASES if n[:3] in ("v16", "v18", "v19", "v20", "v22", "s17", "s18")}


@pytest.mark.parametrize("name", list(CASES))
def test_each_case_as_it_came_out(name):
    case = CASES[name]
    check_case_as_it_came_out(name, _predict(case), case.logged_tokens, FINAL_TOKENS, WITHIN)


def test_the_held_out_half_as_scored_once():
    held = [n for n, c in CASES.items() if c.part == "held_out"]
    assert len(held) == 5 and all(n in WITHIN for n in held)


def test_an_fp8_checkpoint_below_sm89_holds_marlins_per_channel_scales():
    # v15 (fit): the A100's log loads 29.54 GiB where the stored tensors are 29.10 GiB; Marlin's bf16 scales, one per
    # output channel and 128 inputs, are the 0.43 GiB between (fp8_marlin.py)
    case = CASES["v15 qwen3-coder-30b-a3b-fp8 a100-40g 0.19.1"]
    marlin, native = _predict(case), _predict(case, capability=9.0)
    assert "Model loading took 29.54 GiB" in read_log(OOS5 / case.log)
    assert round(native.weights_gib, 2) == 29.10 and round(marlin.weights_gib, 2) == 29.52
    assert "Marlin holds per output channel (compute capability 8" in marlin.weights_source
    assert native.kv_tokens == 63760  # the first look's prediction: +16.11 %
    # not told the card's capability: the Marlin scales are not counted, a note says what they would add
    unknown = predict(case.engine, case.args, _model(case), case.card_mib, engine_version=case.release)
    assert unknown.kv_tokens == native.kv_tokens
    assert any("compute capability 8.9" in n and "438.54 MiB more" in n for n in unknown.notes)
    # VLLM_TEST_FORCE_FP8_MARLIN takes Marlin on any card
    assert fp8_marlin.runs_marlin(9.0, {"VLLM_TEST_FORCE_FP8_MARLIN": "1"}) is True
    assert fp8_marlin.runs_marlin(None, {}) is None and fp8_marlin.runs_marlin(8.9, {}) is False


def test_model_runner_v2s_penalty_counts_follow_max_num_seqs():
    # v19 (fit, 4 sequences): 2 MiB of penalty counts where the former constant held the 0.14 GiB of 256 sequences;
    # its logged pool leaves 0.32 GiB beside the 0.93 GiB of weights, the prediction 0.30
    case = CASES["v19 qwen2.5-0.5b 5060ti 0.27.1 no chunked prefill"]
    p = _predict(case)
    vocab = _model(case).vocab_size
    assert p.estimates["O"].gib == pytest.approx(CONSUMED_BEYOND_WEIGHTS_GIB + penalty_buffers_bytes(4, vocab) / GiB)
    assert round(penalty_buffers_bytes(256, vocab) / GiB, 3) == 0.149
    assert "- available KV cache memory: 4.17 GiB" in read_log(OOS5 / case.log)
    assert abs(p.kv_gib - 4.17) < 0.03


def test_the_two_starts_of_one_server_differ_by_more_than_the_tolerance():
    # v16 and v17: the same host, release, model and flags, 98,928 and 94,320 tokens; the first start had a cold
    # compile cache (SOURCES.md). One prediction for both
    v16, v17 = (CASES[n] for n in ("v16 qwen3-32b-awq a6000 0.19.1 no prefix caching",
                                   "v17 qwen3-32b-awq a6000 0.19.1 first start"))
    assert _predict(v16).kv_tokens == _predict(v17).kv_tokens
    assert v16.logged_tokens / v17.logged_tokens - 1 > TOLERANCE
