"""Three more real public GPU startup logs with pinned inputs (issue #40, sixth round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos6/SOURCES.md.

Which were fitted and which were checked: v23 and v25 were marked held out when the set was collected, before any
prediction (SOURCES.md, commit b84cf38). The fitted case was first predicted with the code of main e2f84fb and read
for causes; the held-out ones were predicted once, with 41b75cc, and are locked here as they came (the one change
after it, f74b87d, acts only on MXFP4 experts held padded for Marlin: their figures are the same)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.engines.vllm import mxfp4_marlin, profile_peak
from harness.predict.config_weights import routed_experts
from harness.predict.model import GiB
from parsers import read_log
from tests.support.fixture_configs import config_model
from tests.support.oos_cases import Case, check_case_as_it_came_out

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS6 = HERE / "gpu-oos6"
GIB_MIB = 1024


NO_FLASHINFER_SAMPLER = {"VLLM_USE_FLASHINFER_SAMPLER": "0"}

CASES = {
    "v23 llama3-70b-awq tp2 2xl40s 0.16.0": Case(
        "vllm", "v23-2xl40s-llama3-70b-awq-tp2-v0.16.0.log", "gpu-oos6/Meta-Llama-3-70B-Instruct-AWQ.json", "0.16.0",
        44.42 * GIB_MIB, 8.9, {"tensor_parallel_size": 2}, "held_out", 132128),
    "v24 gpt-oss-120b mxfp4 h100 0.11.2": Case(
        "vllm", "v24-80g-gpt-oss-120b-mxfp4-marlin-v0.11.2.log", "gpu-oos6/gpt-oss-120b.json", "0.11.2",
        79.19 * GIB_MIB, 9.0, {"max_model_len": 98304, "gpu_memory_utilization": 0.96, "max_num_seqs": 6}, "fit",
        130960),
    # LLM() on an A100 80GB: its defaults for that card, 8192 tokens and 256 sequences (SOURCES.md); FlashInfer absent
    # (its own "Falling back to the PyTorch-native implementation of top-p & top-k sampling")
    "v25 qwen2.5-math-1.5b a100-80g 0.9.0.1": Case(
        "vllm", "v25-80g-qwen25-math-1.5b-instruct-v0.9.0.1.log", "gpu-oos6/Qwen2.5-Math-1.5B-Instruct.json",
        "0.9.0.1", 79.25 * GIB_MIB, 8.0, {"max_model_len": 4096, "max_num_batched_tokens": 8192, "max_num_seqs": 256},
        "held_out", 2427344, NO_FLASHINFER_SAMPLER),
}


def _model(case: Case):
    return case.model_description(HERE)



def _predict(case: Case):
    return case.predict(HERE)


@pytest.mark.parametrize("name", list(CASES))
def test_the_logged_figure_is_the_one_the_case_names(name):
    case = CASES[name]
    assert case.logged_figure(OOS6) == case.logged_tokens


# What each case came to with the final code (SOURCES.md): the held-out ones scored once, the fitted one with its
# cause; locked so a later change shows.
FINAL_TOKENS = {
    "v23 llama3-70b-awq tp2 2xl40s 0.16.0": 130816,  # -0.99 %, held out, scored once
    # +2.85 %, fit: declined at the first look (sliding-window groups modelled for 0.32.0-0.33.x only); the 0.11.x
    # groups, the Marlin-padded experts and the fused-MoE workspace since (+3.49 %), then the workspace at the padded
    # sizes with the layer's padded input copy; 0.26 GiB of pool over the log's, 0.05 of it weights, on a first start
    # (its "Compiling a graph for dynamic shape takes 44.90 s": a cold compile cache)
    "v24 gpt-oss-120b mxfp4 h100 0.11.2": 134688,
    "v25 qwen2.5-math-1.5b a100-80g 0.9.0.1": 2491440,  # +2.64 %, held out, scored once
}
WITHIN = set(CASES)


@pytest.mark.parametrize("name", list(CASES))
def test_each_case_as_it_came_out(name):
    case = CASES[name]
    check_case_as_it_came_out(name, _predict(case), case.logged_tokens, FINAL_TOKENS, WITHIN)


def test_the_held_out_cases_as_scored_once():
    held = [n for n, c in CASES.items() if c.part == "held_out"]
    assert held == ["v23 llama3-70b-awq tp2 2xl40s 0.16.0", "v25 qwen2.5-math-1.5b a100-80g 0.9.0.1"]


def test_mxfp4_experts_are_held_padded_for_marlin():
    # v24 (fit): gpt-oss-120b's stored tensors are 60.8 GiB; its 0.11.2 log loads 65.97 GiB on Marlin ("Using Marlin
    # backend"): the experts padded to an expert width of 2944 and a hidden size of 3072 (mxfp4_marlin.py)
    case = CASES["v24 gpt-oss-120b mxfp4 h100 0.11.2"]
    assert "Model loading took 65.9651 GiB" in read_log(OOS6 / case.log)
    p = _predict(case)
    assert "padded for vLLM's Marlin MoE backend" in p.weights_source
    assert abs(p.weights_gib - 65.9651) < 0.1, p.weights_gib
    growth = mxfp4_marlin.padded_growth_bytes(_model(case), 1)
    assert round(growth / GiB, 2) == 5.13
    # a Blackwell card takes FlashInfer's backends: not counted, said in a note
    blackwell = predict(case.engine, case.args, _model(case), case.card_mib, engine_version=case.release,
                        gpu_capability=10.0)
    assert "padded for" not in blackwell.weights_source and any("pads them" in n for n in blackwell.notes)
    assert mxfp4_marlin.runs_marlin(8.0, {})[0] is True and mxfp4_marlin.runs_marlin(None, {})[0] is None
    assert mxfp4_marlin.runs_marlin(10.0, {"VLLM_MXFP4_USE_MARLIN": "1"})[0] is True


def test_the_profile_forward_holds_the_fused_moe_workspace():
    # the dummy forward's MoE layers hold the fused-experts caches, M x top_k x (max(2I, K) + I) before 0.15.0 and
    # M x top_k x (max(2I, K) + max(I, K)) in the modular kernel from 0.15.0 (releases.MOE_MODULAR_WORKSPACE)
    gpt_oss = _model(CASES["v24 gpt-oss-120b mxfp4 h100 0.11.2"])
    moe = routed_experts(gpt_oss.config)
    assert (moe.experts, moe.top_k, moe.intermediate, moe.moe_layers, moe.dense_layers) == (128, 4, 2880, 36, 0)
    assert profile_peak.moe_workspace_per_token(gpt_oss, "0.11.2", 1) == 128 + 4 * (5760 + 2880)
    # held padded for Marlin: the caches at N 2944 and K 3072, and the layer's padded copy of its input (K 3072)
    assert mxfp4_marlin.padded_dims(gpt_oss, 1) == (2944, 3072)
    assert profile_peak.moe_workspace_per_token(gpt_oss, "0.11.2", 1, padded=(2944, 3072)) == (
        128 + 4 * (5888 + 2944) + 3072)
    qwen = config_model(HERE / "gpu-oos5/Qwen3-Coder-30B-A3B-Instruct-FP8.json")  # K 2048 > I 768
    assert profile_peak.moe_workspace_per_token(qwen, "0.13.0", 1) == 128 + 8 * (2048 + 768)
    assert profile_peak.moe_workspace_per_token(qwen, "0.19.1", 1) == 128 + 8 * (2048 + 2048)
    assert profile_peak.moe_workspace_per_token(qwen, "0.19.1", 4) == 128 + 8 * (2048 + 2048)
    assert profile_peak.moe_workspace_per_token(_model(CASES["v23 llama3-70b-awq tp2 2xl40s 0.16.0"]), "0.16.0",
                                                2) is None
    p = _predict(CASES["v24 gpt-oss-120b mxfp4 h100 0.11.2"])
    assert "MoE workspace" in p.estimates["A"].basis
