"""A vLLM first start (cold compile cache) and a later one, on real public logs (docs/predict.md, "A first start").

torch.compile runs inside the memory profile on a cold cache, and what it allocates is sized by Inductor's own choices,
not by any input: `predict` adds no term for it; its activation estimate is a later start's and says so wherever the
run compiles. The cases are those of earlier rounds (tests/fixtures/predict/gpu-oos5, gpu-oos6), pinned as there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from parsers import read_log
from tests.support.oos_cases import Case

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
GIB_MIB = 1024
AWQ_A6000 = {"tensor_parallel_size": 1, "max_model_len": 32768, "max_num_seqs": 16, "gpu_memory_utilization": 0.90,
             "seed": 42}
CLAUSE = "a later start's: a first start (cold compile cache) adds what compiling allocated"

# the same host, release, model and flags: a first start and a later one (gpu-oos5/SOURCES.md)
FIRST_V17 = Case("vllm", "gpu-oos5/v17-a6000-qwen3-32b-awq-first-start-v0.19.1.log", "gpu-oos5/Qwen3-32B-AWQ.json",
                 "0.19.1", 47.53 * GIB_MIB, 8.6, {**AWQ_A6000, "enable_prefix_caching": True}, "fit", 94320)
LATER_V16 = Case("vllm", "gpu-oos5/v16-a6000-qwen3-32b-awq-nopc-v0.19.1.log", "gpu-oos5/Qwen3-32B-AWQ.json",
                 "0.19.1", 47.53 * GIB_MIB, 8.6, {**AWQ_A6000, "enable_prefix_caching": False}, "held_out", 98928)
# starts whose own lines say they compiled in the profile: held out when their round was scored, not read for the pairs
COMPILED = {
    "v23": Case("vllm", "gpu-oos6/v23-2xl40s-llama3-70b-awq-tp2-v0.16.0.log",
                "gpu-oos6/Meta-Llama-3-70B-Instruct-AWQ.json", "0.16.0", 44.42 * GIB_MIB, 8.9,
                {"tensor_parallel_size": 2}, "held_out", 132128),
    "v24": Case("vllm", "gpu-oos6/v24-80g-gpt-oss-120b-mxfp4-marlin-v0.11.2.log", "gpu-oos6/gpt-oss-120b.json",
                "0.11.2", 79.19 * GIB_MIB, 9.0,
                {"max_model_len": 98304, "gpu_memory_utilization": 0.96, "max_num_seqs": 6}, "fit", 130960),
}
EAGER_V19 = Case("vllm", "gpu-oos5/v19-5060ti-qwen25-0.5b-nochunk-v0.27.1.log",
                 "sglang-gpu-public/Qwen2.5-0.5B-Instruct.json", "0.27.1", 15849, 12.0,
                 {"gpu_memory_utilization": 0.35, "max_model_len": 4096, "max_num_seqs": 4, "block_size": 16,
                  "enable_prefix_caching": False, "enforce_eager": True, "max_num_batched_tokens": 4096,
                  "enable_chunked_prefill": False}, "fit", 364592, {"VLLM_USE_FLASHINFER_SAMPLER": "0"})


def compile_state(text: str) -> str:
    """What a vLLM log says of its compile cache: "cold" (it compiled in the profile), "warm" (it loaded the compiled
    graphs), "eager" (nothing compiled) or "unsaid"."""
    if re.search(r"Compiling a graph for .*? takes [\d.]+ s", text):
        return "cold"
    if "Directly load the compiled graph" in text or "Directly load AOT compilation" in text:
        return "warm"
    if re.search(r"enforce_eager=True|'enforce_eager': True", text):
        return "eager"
    return "unsaid"


def _with(case: Case, **args) -> Case:
    return Case(case.engine, case.log, case.model, case.release, case.card_mib, case.capability,
                {**case.args, **args}, case.part, case.logged_tokens, case.env)


def test_the_estimate_is_a_later_starts_and_says_so_where_the_run_compiles():
    compiled = FIRST_V17.predict(HERE)
    assert CLAUSE in compiled.estimates["A"].basis
    assert CLAUSE not in EAGER_V19.predict(HERE).estimates["A"].basis
    for off in ({"enforce_eager": True}, {"optimization_level": "0"}, {"compilation_config": '{"mode": 0}'},
                {"compilation_config": {"level": 0}}):
        eager = _with(FIRST_V17, **off).predict(HERE)
        assert CLAUSE not in eager.estimates["A"].basis, off
        assert eager.estimates["A"].gib == compiled.estimates["A"].gib  # a clause, no term
    assert CLAUSE in _with(FIRST_V17, compilation_config={"mode": 3}).predict(HERE).estimates["A"].basis


def test_a_first_and_a_later_start_of_one_server_get_one_prediction():
    # v17 (first start) holds 1.12 GiB more than v16 (later start) beside its pool: no input tells them apart
    first, later = FIRST_V17.predict(HERE), LATER_V16.predict(HERE)
    assert first.kv_tokens == later.kv_tokens
    gib_per_token = first.kv_gib / first.kv_tokens
    assert (LATER_V16.logged_tokens - FIRST_V17.logged_tokens) * gib_per_token == pytest.approx(1.12, abs=0.01)


@pytest.mark.parametrize("name", list(COMPILED))
def test_a_start_that_compiled_in_its_profile_is_not_1_gib_short(name):
    # v23 and v24 compiled in the profile (their "Compiling a graph for ... takes N s") and are within 3 % as
    # predicted for a later start; the two pairs' 1.03 GiB taken as a constant would put them at -6.1 % and -8.7 %
    case = COMPILED[name]
    assert compile_state(read_log(HERE / case.log)) == "cold"
    p = case.predict(HERE)
    assert abs(p.kv_tokens / case.logged_tokens - 1) <= 0.03
    with_constant = p.kv_tokens - 1.03 / (p.kv_gib / p.kv_tokens)
    assert with_constant / case.logged_tokens - 1 < -0.03


def test_the_logs_say_which_start_compiled():
    states = {name: compile_state(read_log(HERE / log)) for name, log in (
        ("v22", "gpu-oos5/v22-a100-40g-qwen3-8b-defaults-v0.9.2.log"),
        ("v25", "gpu-oos6/v25-80g-qwen25-math-1.5b-instruct-v0.9.0.1.log"),
        ("v31", "gpu-oos8/v31-rtx4090d-qwen25-0.5b-merged-v0.8.5.post1.log"),
        ("v17", FIRST_V17.log))}
    # v17's source is a write-up that names it the first start; its excerpt prints no compile line
    assert states == {"v22": "warm", "v25": "warm", "v31": "cold", "v17": "unsaid"}
