"""Four more real public GPU startup logs with pinned inputs (issue #40, twentieth round): the cases, their sources and
each one's first look and final error are in tests/fixtures/predict/gpu-oos20/SOURCES.md.

Which were fitted and which were checked: v74 and v76 were marked held out when the set was collected, before any
prediction (SOURCES.md, the round's first commit); v75 and v77 are fitted. v74/v75 are vLLM 0.15.1 server logs of an
AWQ Qwen2.5-14B on one RTX 3090 that one repository (j33bs/clawd) commits in its audits; v76/v77 are vLLM 0.29.0 logs
of Qwen3-8B-FP8 on a MIG 1g.16gb slice of an RTX PRO 4500 from a benchmark repository's kernel probe
(akamaslabs/vllm-benchmark), with a 16-bit and an FP8 KV cache.

The fitted ones were first predicted with the code of the branch's base cc24701: v75 +2.43 %, within; v77 +117.62 %
(+117.57 % once the probe pod's VLLM_USE_V2_MODEL_RUNNER=0, read from its committed StatefulSet, was set on v76 and
v77): a first start's compile remainder, a larger CUDA-graph estimate and about 1 GiB the process holds beyond the
weights, none of which a rule read from the source covers, so nothing changed. The held-out ones were then predicted
once, with that same code, and are locked here as they came: v74 +2.53 %, within; v76 +92.24 %, not within."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.oos_cases import Case, held_out, round_checks

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
# The RTX 3090 as vLLM 0.15.1 gives it on the same host: "Free memory on device cuda:0 (0.85/23.56 GiB)" (SOURCES.md)
RTX_3090_MIB = 23.56 * GIB_MIB
RTX_3090 = "NVIDIA GeForce RTX 3090"  # the same audit's nvidia-smi
AMPERE_GA102 = 8.6  # the RTX 3090's published capability (not logged)
# The MIG slice as its own 0.29.0 logs give it: "Free memory on device (15.46/15.66 GiB) on startup" (both logs)
MIG_1G_16GB_MIB = 15.66 * GIB_MIB
RTX_PRO_4500_MIG = "NVIDIA RTX PRO 4500 MIG 1g.16gb"  # the probe's README: "one `1g.16gb` slice of the RTX PRO 4500"
BLACKWELL_SM120 = 12.0  # the README's "SM 12.0"; FlashInfer's cache path "120f"
QWEN25_14B_AWQ = "gpu-oos20/Qwen2.5-14B-Instruct-AWQ.json"
QWEN3_8B_FP8 = "gpu-oos/Qwen3-8B-FP8.json"
AWQ_FLAGS = {"max_model_len": 16384, "quantization": "awq"}  # their non-default args; utilization 0.9 the default
PROBE_FLAGS = {"max_model_len": 4096, "gpu_memory_utilization": 0.9, "enable_prefix_caching": False,
               "max_num_batched_tokens": 2048, "max_num_seqs": 256}  # the probe's non-default args
# The probe's pod sets it (each run's rendered StatefulSet, `*.sts.yaml`: "VLLM_USE_V2_MODEL_RUNNER" "0"); the logs run
# the V1 runner (gpu_model_runner.py). Read after the fitted v77's first look, before v76 was predicted (SOURCES.md).
V1_RUNNER = {"VLLM_USE_V2_MODEL_RUNNER": "0"}

CASES = {
    "v74 qwen2.5-14b awq rtx 3090 16k seqs 8 0.15.1": Case(
        "vllm", "gpu-oos20/v74-3090-qwen25-14b-awq-16k-seqs8-u0.9-v0.15.1-excerpt.log", QWEN25_14B_AWQ, "0.15.1",
        RTX_3090_MIB, AMPERE_GA102, {**AWQ_FLAGS, "max_num_seqs": 8}, "held_out", 61872, gpu_name=RTX_3090),
    "v75 qwen2.5-14b awq rtx 3090 16k seqs 6 0.15.1": Case(
        "vllm", "gpu-oos20/v75-3090-qwen25-14b-awq-16k-seqs6-u0.9-v0.15.1-excerpt.log", QWEN25_14B_AWQ, "0.15.1",
        RTX_3090_MIB, AMPERE_GA102, {**AWQ_FLAGS, "max_num_seqs": 6}, "fit", 61936, gpu_name=RTX_3090),
    "v76 qwen3-8b-fp8 mig 1g.16gb 4k 0.29.0": Case(
        "vllm", "gpu-oos20/v76-rtxpro4500-mig1g16gb-qwen3-8b-fp8-4k-u0.9-v0.29.0-excerpt.log", QWEN3_8B_FP8, "0.29.0",
        MIG_1G_16GB_MIB, BLACKWELL_SM120, dict(PROBE_FLAGS), "held_out", 16288, env=dict(V1_RUNNER),
        gpu_name=RTX_PRO_4500_MIG),
    "v77 qwen3-8b-fp8 mig 1g.16gb 4k fp8 kv 0.29.0": Case(
        "vllm", "gpu-oos20/v77-rtxpro4500-mig1g16gb-qwen3-8b-fp8-kvfp8-4k-u0.9-v0.29.0-excerpt.log", QWEN3_8B_FP8,
        "0.29.0", MIG_1G_16GB_MIB, BLACKWELL_SM120,
        {**PROBE_FLAGS, "kv_cache_dtype": "fp8", "attention_backend": "FLASHINFER"}, "fit", 28784,
        env=dict(V1_RUNNER), gpu_name=RTX_PRO_4500_MIG),
}
V74, V75, V76, V77 = CASES


def test_the_held_out_cases_as_chosen_before_any_prediction():
    assert held_out(CASES) == [V74, V76]


# What each case came to with the final code (SOURCES.md): the held-out ones scored once, all locked so a later change
# shows.
FINAL_TOKENS = {
    V74: 63440,  # +2.53 %, held out, scored once
    V75: 63440,  # +2.43 %, fitted (the first look; nothing changed)
    V76: 31312,  # +92.24 %, held out, scored once: a first start and ~1 GiB consumed beyond the weights, SOURCES.md
    V77: 62624,  # +117.57 %, fitted (the first look with the pod's env; no rule found, nothing changed)
}
WITHIN = {V74, V75}


test_the_logged_figure_is_the_one_the_case_names, test_each_case_as_it_came_out = round_checks(
    CASES, HERE, FINAL_TOKENS, WITHIN)


@pytest.mark.parametrize("name", [V74, V75])
def test_the_awq_starts_are_0_15_1_with_the_awq_kernel(name):
    text = CASES[name].text(HERE)
    assert "Initializing a V1 LLM engine (v0.15.1)" in text and "max_seq_len=16384" in text
    assert "Model loading took 9.38 GiB" in text and "quantization=awq," in text


def test_the_awq_starts_differ_in_max_num_seqs_and_the_compile_cache():
    held, fitted = CASES[V74].text(HERE), CASES[V75].text(HERE)
    assert "'max_num_seqs': 8}" in held and "Directly load the compiled graph(s)" in held
    assert "'cudagraph_capture_sizes': [1, 2, 4, 8]," in fitted and "Compiling a graph for compile range" in fitted


@pytest.mark.parametrize("name", [V76, V77])
def test_the_probe_starts_are_0_29_0_first_starts_on_the_mig_slice(name):
    text = CASES[name].text(HERE)
    assert "version 0.29.0" in text and "Free memory on device (15.46/15.66 GiB) on startup" in text
    assert "Model loading took 8.88 GiB" in text and "Compiling a graph for compile range (1, 2048)" in text
    assert "'max_model_len': 4096" in text and "'max_num_seqs': 256}" in text
    assert "[gpu_model_runner.py:5471] Model loading took" in text  # the V1 runner, as the pod's env sets


def test_the_fp8_kv_start_says_so():
    assert "'kv_cache_dtype': 'fp8'" in CASES[V77].text(HERE)
