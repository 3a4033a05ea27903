"""Predictions against new real public GPU logs with pinned inputs (issue #40, out of sample): the cases and their
sources are in tests/fixtures/predict/gpu-oos/SOURCES.md, each log's figures the project's parser's reading.

Which were fitted and which were checked: the first look at every case was taken with the code of 0a6d645, before
any change. The `fit` cases were then read to find causes: one class was found and fixed from vLLM's source (Model
Runner V2 subtracts no CUDA-graph memory in 0.24-0.28, releases.MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO), which moved
the 0.27.1 case from -2.29 % to -0.20 %. The `held_out` cases were predicted once, after that rule was written; their
results are locked here as they came out, misses included (the SOURCES.md table)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.predict import load_model_description
from parsers import parse_log, read_log
from tests.support.fixture_configs import config_model

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
OOS = HERE / "gpu-oos"
TOLERANCE = 0.03


@dataclass(frozen=True)
class Case:
    engine: str
    log: str
    model: str  # a fixture config in gpu-oos/ (or ../<dir>/), else a bundled card
    release: str
    card_mib: float
    args: dict
    part: str  # "fit" (read after the first look) or "held_out" (predicted once, after the rules were done)
    free_before_gib: float | None = None  # SGLang: free memory before loading, from the log's own figures


CASES = {
    "llama3.1-8b-a100-vllm-0.31.0": Case(
        "vllm", "v01-a100-llama31-8b-v0.31.0.log", "meta-llama/Llama-3.1-8B-Instruct", "0.31.0", 79.25 * 1024, {},
        "fit"),
    # LLM() in a notebook: its batch is the LLM class's default, the log's own "max_num_batched_tokens=8192" (0.27.1
    # vllm/engine/arg_utils.py:2556-2558), not the 2,048 `vllm serve` takes (the case had {} until the Model Runner V2
    # sampler rule, under which the dummy forward of those 8,192 tokens is the peak: 0.30 GiB, the log's 0.31)
    "qwen2.5-0.5b-rtx4090-vllm-0.27.1": Case(
        "vllm", "v02-rtx4090-qwen25-0.5b-v0.27.1.log", "../sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.27.1",
        23.99 * 1024, {"max_num_batched_tokens": 8192}, "fit"),
    "llama3.1-8b-h100-sglang-0.4.4": Case(
        "sglang", "s01-h100-llama31-8b-fa3-pr4760.log", "meta-llama/Llama-3.1-8B-Instruct", "0.4.4", 81559,
        {"attention_backend": "fa3"}, "fit", free_before_gib=63.48 + 15.11),
}
# A fitted case: its +1.12 % was two errors that cancelled, the peak activation 0.37 GiB low (the sort sampler's
# scratch, profile_peak.SEGMENTED_SORT_PHASE_BYTES_PER_LOGIT, then -3.1 %) and the constant non-torch estimate
# (0.3 GiB) 0.28 GiB high for this one-GPU run, whose log prints 0.02 GiB. The one-rank non-torch figure
# (non_torch.ONE_RANK_GIB) was fitted on this log (third round, gpu-oos3/SOURCES.md): +0.15 %, in sample.
QWEN3_8B_FP8_0_10_2 = Case("vllm", "v03-24g-qwen3-8b-fp8-v0.10.2.log", "Qwen3-8B-FP8.json", "0.10.2", 23.53 * 1024,
                           {"dtype": "float16", "max_model_len": 1024, "gpu_memory_utilization": 0.8}, "fit")
# what the held-out cases came to at their one scoring (SOURCES.md): locked so a later change shows
HELD_OUT_POOL = {"llama3.1-8b-24g-sglang-0.4.9": ("s02-24g-llama31-8b-docker-2025-07.log", 34597, 38141)}
# the same case since the second round (issue #40): the free memory taken as SGLang's own pre-load reading, which the
# CUDA context is already out of (sglang formulas.LOAD_EXTRA_GIB_ESTIMATE, fitted on s01, gpu-oos2 s04 and s05, not
# on this one): -2.85 %
S02_SECOND_ROUND_POOL = 37054


def _model(name: str):
    path = OOS / name
    return config_model(path) if path.suffix == ".json" else load_model_description(name)


def _predict(case: Case):
    free = None if case.free_before_gib is None else case.free_before_gib * 1024
    # the SGLang cases' free memory is SGLang's own pre-load reading (its load line): free_at_load
    return predict(case.engine, case.args, _model(case.model), case.card_mib, engine_version=case.release,
                   gpu_free_mib=free, free_at_load=free is not None)


def test_the_0_10_2_qwen3_8b_fp8_peak_and_non_torch_are_the_logged_ones():
    # in sample for the non-torch term: ONE_RANK_GIB was fitted on this line
    text = read_log(OOS / QWEN3_8B_FP8_0_10_2.log)
    assert "1.4 GiB for peak activation, 0.02 GiB for non-torch memory" in text
    p = _predict(QWEN3_8B_FP8_0_10_2)
    assert abs(p.estimates["A"].gib - 1.4) < 0.01 and p.estimates["O"].gib == 0.02
    assert p.kv_tokens == 62704 and parse_log(text, "vllm").kv_tokens == 62608  # +0.15 %


@pytest.mark.parametrize("name", list(CASES))
def test_within_3_percent_of_the_logged_pool(name):
    case = CASES[name]
    record = parse_log(read_log(OOS / case.log), case.engine)
    logged = record.kv_tokens if case.engine == "vllm" else record.pool_tokens
    p = _predict(case)
    assert p.modelled and p.will_start, p.reason
    assert abs(p.kv_tokens - logged) / logged <= TOLERANCE, (name, p.kv_tokens, logged, p.estimates)


def test_the_0_27_1_logs_peak_is_the_dummy_forward_under_model_runner_v2():
    # "0.31 GiB for peak activation" (0.27.1: the transient headroom alone, no graph estimate under Model Runner V2):
    # the forward of its 8,192 tokens; the greedy dummy sampler's 256 rows of bf16 logits are 0.07 GiB (0.27.1
    # gpu/sample/sampler.py:155 copies nothing for them), where the FlashInfer sampler once assumed made it 0.38
    case = CASES["qwen2.5-0.5b-rtx4090-vllm-0.27.1"]
    assert "0.31 GiB for peak activation" in read_log(OOS / case.log)
    p = _predict(case)
    assert abs(p.estimates["A"].gib - 0.31) < 0.02 and "Model Runner V2's greedy sampler" in p.estimates["A"].basis


def test_the_0_27_1_log_shows_model_runner_v2_subtracting_no_graph_memory():
    # the log: "Graph capturing finished ... took 0.00 GiB" and 20.52 GiB = 22.07 budget - 1.23 consumed - 0.31 peak,
    # nothing for CUDA graphs; the prediction says why and lands within 0.5 %
    case = CASES["qwen2.5-0.5b-rtx4090-vllm-0.27.1"]
    text = read_log(OOS / case.log)
    assert "model_runner.py:329] Model loading took" in text  # Model Runner V2's file, not gpu_model_runner.py
    p = _predict(case)
    assert p.estimates["G"].gib == 0 and "Model Runner V2" in p.estimates["G"].basis
    assert abs(p.kv_tokens / parse_log(text, "vllm").kv_tokens - 1) < 0.005


def test_a_gated_deltanet_hybrid_is_declined_in_one_line():
    # Qwen3-Next on 2x H200, vLLM 0.10.2: linear-attention state padded to 544-token attention pages (its log);
    # the predictor does not size it and says so in one line, no numbers
    p = predict("vllm", {"tensor_parallel_size": 2}, _model("Qwen3-Next-80B-A3B-Instruct.json"), 139.81 * 1024,
                engine_version="0.10.2")
    assert p.modelled is False and p.kv_tokens is None and "\n" not in p.reason
    assert "Gated DeltaNet" in p.reason and p.reason.endswith("no numbers")


def test_held_out_sglang_24g_case_as_scored_once():
    # 24 GB card under Docker Desktop (its README), ~0.4.9 (2025-07-14): the card's exact total is not in the log;
    # taken as 24,564 MiB. Scored once after the rules were done: -9.3 %, a miss (SOURCES.md says what is unpinned)
    log, predicted, logged = HELD_OUT_POOL["llama3.1-8b-24g-sglang-0.4.9"]
    assert parse_log(read_log(OOS / log), "sglang").pool_tokens == logged
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    p = predict("sglang", {}, model, 24564, engine_version="0.4.9", gpu_free_mib=(7.37 + 15.02) * 1024)
    assert p.kv_tokens == predicted
    p = predict("sglang", {}, model, 24564, engine_version="0.4.9", gpu_free_mib=(7.37 + 15.02) * 1024,
                free_at_load=True)
    assert p.kv_tokens == S02_SECOND_ROUND_POOL and abs(p.kv_tokens / logged - 1) < 0.03


@pytest.mark.parametrize("engine,config,release,card_gib,args,kind", [
    ("vllm", "gpt-oss-20b.json", "0.19.0", 79.25, {"max_model_len": 131072, "gpu_memory_utilization": 0.65},
     "sliding-window"),
])
def test_held_out_cases_declined_in_one_line(engine, config, release, card_gib, args, kind):
    # held out, scored once: declined. gpt-oss on vLLM 0.19 does run sliding-window KV groups (declining is right).
    # SGLang 0.4.4's Gemma 3, declined at that scoring, is sized as one full pool since (test_predict_gpu_oos2.py)
    p = predict(engine, args, _model(config), card_gib * 1024, engine_version=release)
    assert p.modelled is False and "\n" not in p.reason and kind in p.reason
