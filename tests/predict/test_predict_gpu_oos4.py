"""Ten more real public GPU startup logs with pinned inputs (issue #40, fourth round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos4/SOURCES.md.

Which were fitted and which were checked: half the cases were marked held out when the set was collected, before
any prediction (SOURCES.md). Every case was first predicted with the code of f14c66b; the `fit` cases were then read
to find causes, and the held-out ones were predicted once, with the final code, and are locked here as they came."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.engines.predicting import predict
from parsers import read_log
from tests.support.fixture_configs import config_model
from tests.support.oos_cases import check_case_as_it_came_out, logged_tokens

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS4 = HERE / "gpu-oos4"
GIB_MIB = 1024


@dataclass(frozen=True)
class Case:
    engine: str
    log: str  # under gpu-oos4/
    config: str  # under fixtures/predict/
    release: str
    card_mib: float
    args: dict
    part: str  # "fit" or "held_out"
    logged_tokens: int  # the engine's own token figure (read from the file by _logged_tokens, checked there)
    free_before_gib: float | None = None  # SGLang's own pre-load reading (load-begin, or load-end avail + usage)
    env: dict = field(default_factory=dict)


CASES = {
    "s11 qwen3-32b tp4 4x5090 0.5.13": Case(
        "sglang", "s11-4x5090-qwen3-32b-tp4-triton-v0.5.13.log", "gpu-oos4/Qwen3-32B.json", "0.5.13",
        31.36 * GIB_MIB, {"tp_size": 4, "mem_fraction_static": 0.88, "context_length": 40960,
                          "disable_radix_cache": True, "attention_backend": "triton", "sampling_backend": "pytorch",
                          "disable_custom_all_reduce": True}, "fit", 187069),
    "s12 qwen2.5-0.5b h100nvl shared 0.5.10": Case(
        "sglang", "s12-h100nvl-shared-qwen25-0.5b-triton-v0.5.10.log", "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json",
        "0.5.10", 95830, {"mem_fraction_static": 0.86, "attention_backend": "triton", "sampling_backend": "pytorch",
                          "disable_cuda_graph": True, "disable_piecewise_cuda_graph": True,
                          "chunked_prefill_size": 8192}, "held_out", 2658165, free_before_gib=36.54),
    "s13 qwen3-32b h100 memory saver 0.5.19": Case(
        "sglang", "s13-h100-qwen3-32b-memsaver-gke-v0.5.19.log", "gpu-oos4/Qwen3-32B.json", "0.5.19", 81559,
        {"mem_fraction_static": 0.90, "context_length": 8192, "enable_memory_saver": True,
         "disable_custom_all_reduce": True}, "fit", 39078, free_before_gib=61.07 + 17.40),
    "s14 qwen3-reranker-0.6b h100 0.5.18": Case(
        "sglang", "s14-h100-qwen3-reranker-0.6b-f0.3-v0.5.18.log", "gpu-oos4/Qwen3-Reranker-0.6B.json", "0.5.18",
        81559, {"mem_fraction_static": 0.3, "disable_radix_cache": True}, "held_out", 208651,
        free_before_gib=77.29 + 1.18),
    "s15 qwen3-8b b200 defaults main 2026-04": Case(
        "sglang", "s15-b200-qwen3-8b-defaults-main-2026-04.log", "gpu-oos4/Qwen3-8B.json", "0.5.10",
        178.35 * GIB_MIB, {}, "held_out", 992896, free_before_gib=177.57),
    "s16 qwen3-14b a6000 defaults 0.4.6": Case(
        "sglang", "s16-a6000-qwen3-14b-xinference-v0.4.6.log", "gpu-oos2/Qwen3-14B.json", "0.4.6", 47.53 * GIB_MIB,
        {}, "fit", 91749, free_before_gib=19.67 + 27.57),
    "v11 qwen2.5-1.5b-awq 3090 0.13.0": Case(
        "vllm", "v11-3090-qwen25-1.5b-awq-u0.5-v0.13.0.log", "gpu-oos4/Qwen2.5-1.5B-Instruct-AWQ.json", "0.13.0",
        23.56 * GIB_MIB, {"gpu_memory_utilization": 0.5, "max_model_len": 2048}, "held_out", 346368,
        env={"VLLM_ENABLE_V1_MULTIPROCESSING": "0"}),
    "v12 qwen3-8b 5090 0.24.0": Case(
        "vllm", "v12-5090-qwen3-8b-u0.92-v0.24.0.log", "gpu-oos4/Qwen3-8B.json", "0.24.0", 31.36 * GIB_MIB,
        {"max_model_len": 32768, "gpu_memory_utilization": 0.92}, "fit", 89040,
        env={"VLLM_USE_FLASHINFER_SAMPLER": "0", "VLLM_ATTENTION_BACKEND": "FLASH_ATTN"}),
    "v13 qwen3-8b 4090 0.24.0": Case(
        "vllm", "v13-4090-qwen3-8b-u0.92-v0.24.0.log", "gpu-oos4/Qwen3-8B.json", "0.24.0", 23.99 * GIB_MIB,
        {"max_model_len": 32768, "gpu_memory_utilization": 0.92}, "held_out", 43888,
        env={"VLLM_USE_FLASHINFER_SAMPLER": "0", "VLLM_ATTENTION_BACKEND": "FLASH_ATTN"}),
    "v14 qwen3-32b tp2 2xpro6000 0.24.0": Case(
        "vllm", "v14-2xpro6000-qwen3-32b-tp2-u0.92-v0.24.0.log", "gpu-oos4/Qwen3-32B.json", "0.24.0",
        94.97 * GIB_MIB, {"tensor_parallel_size": 2, "max_model_len": 32768, "gpu_memory_utilization": 0.92}, "fit",
        456944, env={"VLLM_USE_FLASHINFER_SAMPLER": "0"}),
}



def _predict(case: Case):
    free = None if case.free_before_gib is None else case.free_before_gib * GIB_MIB
    return predict(case.engine, case.args, config_model(HERE / case.config), case.card_mib,
                   engine_version=case.release, gpu_free_mib=free, free_at_load=free is not None, env=case.env)


@pytest.mark.parametrize("name", list(CASES))
def test_the_logged_figure_is_the_one_the_case_names(name):
    case = CASES[name]
    assert logged_tokens(OOS4 / case.log, case.engine, case.logged_tokens) == case.logged_tokens


# What each case came to with the final code (SOURCES.md): the held-out half scored once, the fitted misses with
# their causes; locked so a later change shows.
FINAL_TOKENS = {
    "s11 qwen3-32b tp4 4x5090 0.5.13": 193983,  # +3.70 %, fit, a miss: ~1.0 GiB gone beside the weights on a TP-4 rank
    "s12 qwen2.5-0.5b h100nvl shared 0.5.10": 2648020,  # -0.38 %, held out
    "s13 qwen3-32b h100 memory saver 0.5.19": 38497,  # -1.49 %, fit
    "s14 qwen3-reranker-0.6b h100 0.5.18": 208135,  # -0.25 %, held out
    "s15 qwen3-8b b200 defaults main 2026-04": 990400,  # -0.25 %, held out
    "s16 qwen3-14b a6000 defaults 0.4.6": 90853,  # -0.98 %, fit
    # -4.14 % held out, scored once; then its cause fixed (a quantized model's float parameters other than its F32
    # scales held at the run dtype: predict/model.py _is_scale), so no longer out of sample: +0.56 %
    "v11 qwen2.5-1.5b-awq 3090 0.13.0": 348304,
    # +6.06 %, fit, a miss: a first start, cold compile cache. 94,432 -> 97,072 (+9.02 %) with the MRV2 sampler rule
    # (profile_peak.model_runner_v2_sampler_bytes); the same host's later start (95,936) goes from -1.57 % to +1.18 %
    "v12 qwen3-8b 5090 0.24.0": 97072,
    # +2.66 %, held out. 45,056 -> 47,696 (+8.68 %, away from the log) with the MRV2 sampler rule
    # (profile_peak.model_runner_v2_sampler_bytes): its 0.77 GiB beyond the weights is 0.36 above the same model, flags
    # and release on v12's card at its later start (0.41), 0.58 below v12's first start (1.35): a start the predictor
    # does not size (SOURCES.md, "Model Runner V2's dummy sampler")
    "v13 qwen3-8b 4090 0.24.0": 47696,
    # -2.53 %, fit. 445,392 -> 455,248 (-0.37 %) with the MRV2 sampler rule (profile_peak.model_runner_v2_sampler_bytes)
    "v14 qwen3-32b tp2 2xpro6000 0.24.0": 455248,
}
WITHIN = {n for n in CASES if n[:3] in ("s12", "s13", "s14", "s15", "s16", "v11", "v14")}


@pytest.mark.parametrize("name", list(CASES))
def test_each_case_as_it_came_out(name):
    case = CASES[name]
    check_case_as_it_came_out(name, _predict(case), case.logged_tokens, FINAL_TOKENS, WITHIN)


def test_model_runner_v2s_greedy_dummy_sampler_on_v14():
    # v14 (fit) logs 1.07 GiB for the peak and the communicators together, under the Triton top-k/top-p sampler's
    # 2.18 GiB once assumed here (-2.53 %). Model Runner V2's dummy batch is greedy without top-k/top-p (0.24.0
    # gpu/sample/states.py:22-35, sampler.py:220-237): its logits and their float32 copy (sampler.py:157), 0.95 GiB
    # with the TP all-gather, under the forward's 0.98 (-0.37 %). The rule was first tried and not kept for v13 and
    # gpu-oos v02; v02's input was then found to be 2,048 tokens where its log ran 8,192 (SOURCES.md)
    case = CASES["v14 qwen3-32b tp2 2xpro6000 0.24.0"]
    p = _predict(case)
    basis = p.estimates["A"].basis
    assert "forward 0.98" in basis and "Model Runner V2's greedy sampler 0.95" in basis
    assert "456,944" in read_log(OOS4 / case.log) and "28,559" in read_log(OOS4 / case.log)


def test_the_5090_first_start_is_a_cold_compile_cache_miss():
    # v12 (fit): the same host, release, model and flags logged 89,040 tokens at its first start and 95,936 at a later
    # one (its STEP 3, "CUDA graph 캐시 여부에 따른 overhead 변동"): 0.95 GiB more of profile peak with a cold
    # torch.compile cache, which a scenario does not state. The later start is within 1.6 % of the prediction
    p = _predict(CASES["v12 qwen3-8b 5090 0.24.0"])
    assert abs(p.kv_tokens / 95936 - 1) < 0.016 and p.kv_tokens / 89040 - 1 > 0.06
