"""Five more real public GPU startup logs with pinned inputs (issue #40, seventh round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos7/SOURCES.md.

Which were fitted and which were checked: s19, v27 and v29 were marked held out when the set was collected, before any
prediction (SOURCES.md, commit f191de8). The fitted cases were first predicted with the code of main 7834f37 and read
for causes; the held-out ones were predicted once, with 778a25a, and are locked here as they came."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from parsers import read_log
from tests.support.oos_cases import Case, check_case_as_it_came_out

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS7 = HERE / "gpu-oos7"
GIB_MIB = 1024
L40S_MIB = 44.42 * GIB_MIB  # ../gpu-oos6 v23's L40S total; the L20 has the same 46,068 MiB board (SOURCES.md)


NO_FLASHINFER_SAMPLER = {"VLLM_USE_FLASHINFER_SAMPLER": "0"}
# the L20 service of the notes: awq_marlin, half, util 0.98, eager (v29's row gives only the flags that differ)
L20_SERVICE = {"quantization": "awq_marlin", "dtype": "half", "gpu_memory_utilization": 0.98, "enforce_eager": True,
               "swap_space": 1}

CASES = {
    "s19 kimi-k2.6 int4 tp8 8xh20 0.5.12": Case(
        "sglang", "s19-8xh20-kimi-k2.6-int4-tp8-v0.5.12.log", "Kimi-K2.6.json", "0.5.12", 97871, 9.0,
        {"tp_size": 8, "context_length": 32768, "mem_fraction_static": 0.92, "chunked_prefill_size": 8192,
         "max_running_requests": 32}, "held_out", 209413),
    "v26 qwen2.5-7b-awq rtx4080 wsl2 0.26.0": Case(
        "vllm", "v26-rtx4080-wsl2-qwen25-7b-awq-v0.26.0.log", "Qwen2.5-7B-Instruct-AWQ.json", "0.26.0",
        15.99 * GIB_MIB, 8.9, {"max_model_len": 32768, "gpu_memory_utilization": 0.90}, "fit", 149712,
        NO_FLASHINFER_SAMPLER),
    "v27 qwen3-coder-30b-a3b tp4 4xl40s 0.24.0": Case(
        "vllm", "v27-4xl40s-qwen3-coder-30b-a3b-tp4-v0.24.0.log", "Qwen3-Coder-30B-A3B-Instruct.json", "0.24.0",
        L40S_MIB, 8.9, {"tensor_parallel_size": 4, "max_model_len": 32768, "gpu_memory_utilization": 0.90,
                        "enable_prefix_caching": True}, "held_out", 1037152, NO_FLASHINFER_SAMPLER),
    "v28 qwen2.5-72b-awq l20 ctx1024 0.8.5": Case(
        "vllm", "v28-l20-qwen25-72b-awq-ctx1024-v0.8.5.post1.log", "Qwen2.5-72B-Instruct-AWQ.json", "0.8.5",
        L40S_MIB, 8.9, {**L20_SERVICE, "max_model_len": 1024, "max_num_seqs": 48, "max_num_batched_tokens": 4096},
        "fit", 10848),
    "v29 qwen2.5-72b-awq l20 ctx8192 0.8.5": Case(
        "vllm", "v29-l20-qwen25-72b-awq-ctx8192-v0.8.5.post1.log", "Qwen2.5-72B-Instruct-AWQ.json", "0.8.5",
        L40S_MIB, 8.9, {**L20_SERVICE, "max_model_len": 8192, "max_num_seqs": 1, "max_num_batched_tokens": 2048},
        "held_out", 12320),
}
PREDICTED = [n for n, c in CASES.items() if c.engine == "vllm"]


def _model(case: Case):
    return case.model_description(OOS7)



def _predict(case: Case):
    return case.predict(OOS7)


@pytest.mark.parametrize("name", list(CASES))
def test_the_logged_figure_is_the_one_the_case_names(name):
    case = CASES[name]
    assert case.logged_figure(OOS7) == case.logged_tokens


# What each case came to with the final code (SOURCES.md): the held-out ones scored once, the fitted ones with their
# cause; locked so a later change shows.
FINAL_TOKENS = {
    # +7.32 %, fit: +1.28 % at the first look, where a CUDA-graph estimate (0.48 GiB) that 0.26.0 does not subtract
    # for a dense model (Model Runner V2 from 0.25.0) hid an activation peak 0.45 GiB under the log's own 1.04 GiB.
    # 160,672 -> 166,384 (+11.14 %, away from the log) with the MRV2 sampler rule
    # (profile_peak.model_runner_v2_sampler_bytes): the Triton sampler's 0.59 GiB assumed here is not what Model Runner
    # V2 runs; the forward's 0.29 is, 0.75 under the log's peak of a first start (a cold compile cache, 22 s of
    # compiling: docs/predict.md "A first start")
    "v26 qwen2.5-7b-awq rtx4080 wsl2 0.26.0": 166384,
    "v27 qwen3-coder-30b-a3b tp4 4xl40s 0.24.0": 1064688,  # +2.65 %, held out, scored once
    "v28 qwen2.5-72b-awq l20 ctx1024 0.8.5": 10672,  # -1.62 %, fit (first look = final)
    "v29 qwen2.5-72b-awq l20 ctx8192 0.8.5": 12320,  # +0.00 %, held out, scored once
}
WITHIN = {n for n in PREDICTED if n[:3] in ("v27", "v28", "v29")}


@pytest.mark.parametrize("name", PREDICTED)
def test_each_case_as_it_came_out(name):
    case = CASES[name]
    check_case_as_it_came_out(name, _predict(case), case.logged_tokens, FINAL_TOKENS, WITHIN)


def test_the_held_out_cases_as_scored_once():
    held = [n for n, c in CASES.items() if c.part == "held_out"]
    assert held == ["s19 kimi-k2.6 int4 tp8 8xh20 0.5.12", "v27 qwen3-coder-30b-a3b tp4 4xl40s 0.24.0",
                    "v29 qwen2.5-72b-awq l20 ctx8192 0.8.5"]


def test_sglang_0_5_12_latent_attention_is_declined_in_one_line():
    # s19 (held out): Kimi-K2.6's MLA pool on SGLang 0.5.12; the latent cell is modelled for 0.5.18-0.5.23 only
    p = _predict(CASES["s19 kimi-k2.6 int4 tp8 8xh20 0.5.12"])
    assert not p.modelled and p.kv_tokens is None
    assert "latent attention" in p.reason and "0.5.18-0.5.23" in p.reason and "\n" not in p.reason


def _logged_gib(text: str, label: str) -> float:
    return float(re.search(rf"([0-9.]+)\s+{label}", text).group(1))


def test_a_dense_model_on_0_26_has_no_graph_estimate_subtracted():
    # v26's own breakdown of its "Free memory on device" line: 8.0 GiB of KV = 14.39 requested - 5.29 weights -
    # 1.04 peak activation - 0.06 non-torch; the 0.48 GiB of CUDA graphs it also prints are not taken off, as Model
    # Runner V2 (every dense model from 0.25.0) profiles none (0.26.0 vllm/v1/worker/gpu/model_runner.py:705-707)
    case = CASES["v26 qwen2.5-7b-awq rtx4080 wsl2 0.26.0"]
    text = read_log(OOS7 / case.log)
    requested = _logged_gib(text, "GiB  = 15.99")
    weights, peak, graphs, non_torch = (_logged_gib(text, label) for label in ("模型权重", "峰值激活", "CUDAGraph",
                                                                               "non-torch"))
    kv = float(re.search(r"Available KV cache memory: ([0-9.]+) GiB", text).group(1))
    assert abs(requested - weights - peak - non_torch - kv) < 0.01 and graphs == 0.48
    p = _predict(case)
    assert p.estimates["G"].gib == 0 and "Model Runner V2" in p.estimates["G"].basis
    # what is left of the miss: the activation peak, 0.29 GiB predicted (the dummy forward; 0.59 before the Model
    # Runner V2 sampler rule) against the logged 1.04 of a first start
    assert round(peak - p.estimates["A"].gib, 2) == 0.75
