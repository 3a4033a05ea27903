"""SGLang's two pools for a hybrid sliding-window model (harness/engines/sglang/swa_pools.py): GPT-OSS-like configs
against SGLang 0.5.22's and 0.5.23's own pool sizing (run in their envs; 0.5.16-0.5.21 are read only), the settings
whose split is not modelled, and the recorded one-pool Gemma 3 (results/cpu_kinds) that stays a dense prediction."""

from __future__ import annotations

import math

import pytest

from harness.builtin_models import MODELS_DIR_ENV
from harness.engines.predicting import predict
from harness.engines.settings import Settings
from harness.engines.sglang import swa_pools
from harness.engines.sglang.engine import SglangFormulas
from harness.engines.sglang.explain import predicted_outcome
from harness.engines.sglang.predict import _pool
from harness.engines.sglang.prediction import SglangPrediction
from harness.predict import load_model_description, model_from_config
from parsers import parse_log, read_log
from tests.support.engine_envs import ensure_env
from tests.support.oracle_process import OracleProcess
from tests.support.recorded_logs import LOGS

RELEASES = ("0.5.22", "0.5.23")
WINDOW = 128


def _gpt_oss(layers: int, kv_heads: int, head_dim: int, heads: int, context: int) -> dict:
    """A GPT-OSS config.json: alternating sliding/full layer_types, window 128."""
    return {"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "hidden_size": heads * head_dim,
            "num_attention_heads": heads, "num_key_value_heads": kv_heads, "head_dim": head_dim,
            "num_hidden_layers": layers, "intermediate_size": 2880, "vocab_size": 201088, "torch_dtype": "bfloat16",
            "max_position_embeddings": context, "sliding_window": WINDOW, "num_local_experts": 32,
            "num_experts_per_tok": 4, "rope_theta": 150000,
            "layer_types": ["sliding_attention", "full_attention"] * (layers // 2)}


CONFIGS = {"gpt-oss-20b": _gpt_oss(24, 8, 64, 64, 131072), "gpt-oss-120b": _gpt_oss(36, 8, 64, 64, 131072),
           "tiny": _gpt_oss(4, 2, 32, 4, 4096)}
RATIOS = (None, 0.05, 0.25, 0.5, 0.8, 1.0)
PAGES = (1, 16, 64)
TPS = (1, 2, 8, 16)  # 16 ranks over 8 KV heads: one head on each
BUDGETS = (1, 123_457, 3_000_000, 50_000_000, 987_654_321, 37_000_000_000)


def _model(name: str):
    return model_from_config(CONFIGS[name], name=f"org/{name}", source="test")


def _settings(args: dict) -> Settings:
    return Settings(dict(args), dict(args))


def _predicted(name: str, case: dict, release: str):
    """The predictor's pools from the case's budget: the path predict() takes from rest_memory on."""
    model, a, page = _model(name), case["args"], case["page_size"]
    swa = swa_pools.plan(model, _settings({**a, "kv_cache_dtype": case["kv_cache_dtype"]}), {}, release, case["tp"],
                         a.get("chunked_prefill_size"))
    if swa is None or isinstance(swa, str):
        return swa
    p = SglangPrediction("sglang", None, a, "cuda", None, case["tp"], engine_version=release)
    rest = case["budget_bytes"] / (1 << 30)  # exact: int(rest x 2^30) is the budget again
    context = p.context_len = SglangFormulas("sglang").derived_context_len(model)
    return _pool(p, rest, rest, swa.cell, context, page, a.get("max_total_tokens"), a.get("max_running_requests"),
                 0.9, None, swa)


def _cases() -> list[tuple[str, dict]]:
    cases = []
    for name in CONFIGS:
        for ratio in RATIOS:
            for page in PAGES:
                for tp in TPS:
                    args = {} if ratio is None else {"swa_full_tokens_ratio": ratio}
                    case = {"page_size": page, "tp": tp, "kv_cache_dtype": "auto", "args": args}
                    # both sides of the SWA pool's admission floor: the smallest full pool whose SWA pool passes it
                    swa = swa_pools.plan(_model(name), _settings(args), {}, "0.5.22", tp, None)
                    floor = math.ceil((swa.layout.window + page + 1) / swa.ratio / page) * page
                    edge = [math.ceil(full * swa.cell) for full in (floor - page, floor, floor + page)]
                    cases += [(name, {**case, "budget_bytes": b}) for b in (*BUDGETS, *edge)]
    tiny = {"page_size": 16, "tp": 1, "kv_cache_dtype": "auto", "budget_bytes": 987_654_321}
    for name in CONFIGS:
        for args in ({"max_total_tokens": 100}, {"max_total_tokens": 5000}, {"max_total_tokens": 10**9},
                     {"max_total_tokens": 5000, "swa_full_tokens_ratio": 0.05},
                     {"max_running_requests": 64}, {"max_running_requests": 100_000},
                     {"disable_radix_cache": True}, {"max_running_requests": 64, "disable_radix_cache": True},
                     {"max_running_requests": 64, "disable_radix_cache": True, "chunked_prefill_size": 8192},
                     {"disable_hybrid_swa_memory": True}):
            cases.append((name, {**tiny, "args": args}))
        for budget in BUDGETS:
            cases.append((name, {**tiny, "kv_cache_dtype": "fp8_e4m3", "budget_bytes": budget, "args": {}}))
    return cases


@pytest.fixture(scope="module", params=RELEASES)
def swa_oracle(request):
    env = ensure_env("sglang", request.param)
    process = OracleProcess(env.python, env.env_vars)
    yield env.engine_version.split("+", 1)[0], process
    process.close()


@pytest.mark.engine
def test_the_two_pools_match_sglangs_own_sizing(swa_oracle):
    release, process = swa_oracle
    cases = _cases()
    engine = process.ask("sglang_swa_pools", [{**case, "config": CONFIGS[name]} for name, case in cases])
    mismatches, seen = [], set()
    for (name, case), got in zip(cases, engine):
        ours = _predicted(name, case, release)
        if not got["is_hybrid_swa"]:
            kind, same = "one pool", ours is None
        elif got["configurator"] != "HybridSWAPoolConfigurator":
            kind, same = "request cap", isinstance(ours, str) and "SWARequestCapPoolConfigurator" in ours
        elif "error" in got:
            kind = got["error"].split(" ", 1)[0]
            same = (ours.will_start is False and ours.reason.split(": ", 1)[1] == got["error"]
                    and swa_pools.layout(_model(name)).window == got["window"])
        else:
            kind = "sized"
            same = (ours.will_start and (ours.kv_tokens, ours.swa_pool_tokens, ours.max_running_requests)
                    == (got["full"], got["swa"], got["max_running_requests"]) and got["max_total"] == got["full"]
                    and ours.context_len == got["context_len"])
        seen.add(kind)
        if not same:
            mismatches.append((name, case, got, ours if ours is None or isinstance(ours, str) else
                               (ours.kv_tokens, ours.swa_pool_tokens, ours.max_running_requests, ours.reason)))
    assert not mismatches, (len(mismatches), [repr(m) for m in mismatches[:3]])
    # every branch was taken: sized, the SWA pool refused, one pool, the request-capped pool
    assert seen == {"sized", "SWA", "one pool", "request cap"}, seen


def test_gpt_oss_gets_two_pools_where_read_and_one_line_before():
    model = _model("gpt-oss-20b")
    for release in RELEASES:
        p = predict("sglang", {}, model, 81559, engine_version=release)
        assert p.modelled and p.will_start and p.kv_tokens and p.swa_pool_tokens == int(p.kv_tokens * 0.8)
        assert any(n.startswith("two pools (SWAKVPool): ") and "max_total_num_tokens is the full pool's" in n
                   for n in p.notes)
        # both pools' K and V: 12 full + 12 sliding layers x 8 heads x 64 x 2 (K, V) x bf16 each
        assert p.kv_gib == pytest.approx((p.kv_tokens + p.swa_pool_tokens) * 12 * 8 * 64 * 2 * 2 / (1 << 30))
    # 0.5.16-0.5.21 size them alike (read, not run: their configurators match 0.5.22's outside the request cap)
    for release in ("0.5.16", "0.5.19", "0.5.20", "0.5.21"):
        p = predict("sglang", {}, model, 81559, engine_version=release)
        assert p.modelled and p.will_start and p.swa_pool_tokens == int(p.kv_tokens * 0.8)
    older = predict("sglang", {}, model, 81559, engine_version="0.5.15")
    assert not older.modelled and "SWAKVPool" in older.reason and older.reason.endswith("; no numbers")


def test_the_request_capped_pool_takes_any_chunk_size_before_0_5_22():
    args = {"max_running_requests": 8, "disable_radix_cache": True, "chunked_prefill_size": -1}
    for release, capped in (("0.5.16", True), ("0.5.21", True), ("0.5.22", False), ("0.5.23", False)):
        p = predict("sglang", args, _model("gpt-oss-20b"), 81559, engine_version=release)
        assert p.modelled is not capped, release
        assert not capped or "SWAChunkCapPoolConfigurator" in p.reason


def test_disable_hybrid_swa_memory_gives_one_pool_of_every_layer():
    model = _model("gpt-oss-20b")
    p = predict("sglang", {"disable_hybrid_swa_memory": True}, model, 81559, engine_version="0.5.22")
    assert p.modelled and p.will_start and p.swa_pool_tokens is None
    assert p.kv_bytes_per_token == model.kv_bytes_per_token("auto", 1) == 24 * 8 * 64 * 2 * 2


@pytest.mark.parametrize(("args", "env", "words"), [
    ({"max_running_requests": 8, "disable_radix_cache": True}, {}, "SWARequestCapPoolConfigurator"),
    ({"enable_unified_memory": True}, {}, "--enable-unified-memory"),
    ({"speculative_algorithm": "EAGLE"}, {}, "--speculative-algorithm"),
    ({"pp_size": 2}, {}, "pipeline stages"),
    ({}, {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING": "1"}, "post-capture"),
])
def test_a_split_the_predictor_does_not_size_gets_one_line(args, env, words):
    p = predict("sglang", args, _model("gpt-oss-20b"), 81559, engine_version="0.5.23", env=env)
    assert not p.modelled and p.kv_tokens is None and p.weights_gib is None and "\n" not in p.reason
    assert p.reason.startswith("sglang 0.5.23: org/gpt-oss-20b has two KV pools") and words in p.reason
    assert p.reason.endswith("; no numbers")


def test_a_ratio_outside_0_1_is_refused_as_sglang_refuses_it():
    p = predict("sglang", {"swa_full_tokens_ratio": 1.5}, _model("gpt-oss-20b"), 81559, engine_version="0.5.22")
    assert p.modelled and p.will_start is False and p.reason == "--swa-full-tokens-ratio should be in range (0, 1.0]."


def test_an_swa_pool_below_the_window_is_the_logged_swa_pool_too_small():
    p = predict("sglang", {"max_total_tokens": 150}, _model("gpt-oss-20b"), 81559, engine_version="0.5.22")
    assert p.will_start is False and p.swa_pool_tokens == 120 and p.kv_tokens == 0
    assert p.reason.startswith("G9: SWA pool (120 tokens) cannot hold even one request")
    assert predicted_outcome(p) == "engine_error/swa_pool_too_small"


@pytest.mark.parametrize("release", RELEASES)
def test_the_recorded_gemma3_keeps_its_one_dense_pool(release, tmp_path, monkeypatch):
    # results/cpu_kinds/sliding-*: tiny Gemma 3 on SGLang-CPU, --max-total-tokens 4096: "KV Cache is allocated",
    # one pool; Gemma3ForCausalLM is outside the hybrid-SWA list, so no second pool is predicted either
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))  # not built: the shape's own config
    record = parse_log(read_log(LOGS / f"sglang-{release}-cpu/kinds-gemma3.log"))
    settings = {"device": "cpu", "max_total_tokens": record.max_total_tokens, "context_length": record.context_len,
                "dtype": "float16", "chunked_prefill_size": 256, "disable_cuda_graph": True}
    p = predict("sglang", settings, load_model_description("builtin:tiny-gemma3"), None, device="cpu",
                engine_version=release, env={"SGLANG_USE_CPU_ENGINE": "1"})
    assert [pool.kind for pool in record.kv_pools] == ["kv"] and record.swa_pool_tokens is None
    assert p.modelled and p.will_start and p.swa_pool_tokens is None
    assert p.kv_tokens == record.kv_tokens == 4096
