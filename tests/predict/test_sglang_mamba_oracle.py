"""The predictor's Mamba state pools and full-attention KV for hybrid models against SGLang's own code (0.5.22 and
0.5.23, each in its env; 0.5.21's code over 0.5.22's env): tests/support/predict_oracles/sglang_mamba_pools.py runs
SGLang's ModelConfig (its NemotronHConfig, Qwen3NextConfig, GraniteMoeHybridConfig and FalconH1Config), its radix-
cache strategy checks and its KV cache configurator's sizing over Nemotron-H, Granite 4 and Falcon-H1 layer patterns
and Qwen3-Next-like linear-attention layouts, several state sizes, tp 1-4, fractions and free memory from a pool of a
few slots to an 80 GiB card, on a GPU platform and on the CPU one.

The predictor is fed the memory the engine is: the free memory before loading as SGLang's own reading
(free_at_load) and nothing else taken while loading beyond the weights (a zero calibration), so the engine's
"available" is that reading less the predictor's weights."""

from __future__ import annotations

import zipfile

import pytest

from harness.engines.predicting import predict
from harness.predict import model_from_config
from harness.predict.prediction import Calibration
from tests.support.engine_envs import ensure_env
from tests.support.oracle_process import OracleProcess

pytestmark = pytest.mark.engine

# the releases with an env of their own, and 0.5.21's code laid over 0.5.22's env (no SGLang-CPU 0.5.21 env here;
# the sizing and argument code is pure Python)
SGLANG_RELEASES = ("0.5.21", "0.5.22", "0.5.23")
PLATFORM_REFUSAL = {"0.5.21": "extra_buffer needs CUDA/MUSA/NPU/ROCm/XPU (FLA).",
                    "0.5.22": "extra_buffer requires platform support for Mamba cache state snapshots."}


def _overlay(release: str, tmp_path_factory) -> str:
    """SGLang `release`'s own Python code unpacked (its wheel downloaded once into the cache dir)."""
    from harness.envs import default_cache_dir
    from harness.release_wheel import download_release_wheel

    wheels = default_cache_dir() / "wheels"
    wheel = next(iter(sorted(wheels.glob(f"sglang-{release}-*.whl"))), None)
    if wheel is None:
        try:
            download_release_wheel("sglang", release, wheels)
        except RuntimeError as exc:
            pytest.skip(f"sglang {release}'s wheel could not be fetched: {exc}")
        wheel = next(iter(sorted(wheels.glob(f"sglang-{release}-*.whl"))))
    site = tmp_path_factory.mktemp(f"sglang-{release}-site")
    with zipfile.ZipFile(wheel) as zf:
        # its package whole but for compiled objects (the env's own stand in), kernel sources included: importing
        # sglang.kernels.jit looks for them
        zf.extractall(site, [n for n in zf.namelist() if n.startswith("sglang/") and not n.endswith(".so")])
    return str(site)


@pytest.fixture(scope="module", params=SGLANG_RELEASES)
def mamba_oracle(request, tmp_path_factory):
    own = request.param != "0.5.21"
    env = ensure_env("sglang", request.param if own else "0.5.22")
    env_vars = env.env_vars if own else {**env.env_vars, "PYTHONPATH": _overlay(request.param, tmp_path_factory)}
    process = OracleProcess(env.python, env_vars)
    yield request.param, process
    process.close()


def _nemotron_h(pattern: str | list[str], heads: int, head_dim: int, state: int, groups: int) -> dict:
    layers = {"layers_block_type": pattern} if isinstance(pattern, list) else {"hybrid_override_pattern": pattern}
    return {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 256,
            "intermediate_size": 512, "num_hidden_layers": len(pattern), "num_attention_heads": 8,
            "num_key_value_heads": 4, "head_dim": 32, "max_position_embeddings": 4096, "vocab_size": 512,
            "torch_dtype": "bfloat16", "mamba_num_heads": heads, "mamba_head_dim": head_dim, "ssm_state_size": state,
            "n_groups": groups, "conv_kernel": 4, "chunk_size": 64, **layers}


def _qwen3_next(layers: int, interval: int, k_heads: int, v_heads: int, k_dim: int, v_dim: int) -> dict:
    return {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 256,
            "intermediate_size": 512, "num_hidden_layers": layers, "num_attention_heads": 8, "num_key_value_heads": 2,
            "head_dim": 64, "max_position_embeddings": 4096, "vocab_size": 512, "torch_dtype": "bfloat16",
            "full_attention_interval": interval, "linear_num_key_heads": k_heads, "linear_num_value_heads": v_heads,
            "linear_key_head_dim": k_dim, "linear_value_head_dim": v_dim, "linear_conv_kernel_dim": 4,
            "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 64,
            "shared_expert_intermediate_size": 64, "decoder_sparse_step": 1}


def _granite_4(layer_types: list[str], heads: int, head_dim: int, state: int, groups: int) -> dict:
    # mamba_expand x hidden_size = heads x head_dim; a mamba_ssm_dtype its cache params do not read
    return {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 256,
            "intermediate_size": 512, "num_hidden_layers": len(layer_types), "num_attention_heads": 8,
            "num_key_value_heads": 4, "max_position_embeddings": 4096, "vocab_size": 512, "torch_dtype": "bfloat16",
            "layer_types": layer_types, "mamba_expand": heads * head_dim // 256, "mamba_n_heads": heads,
            "mamba_d_head": head_dim, "mamba_d_state": state, "mamba_n_groups": groups, "mamba_d_conv": 4,
            "num_local_experts": 0, "shared_intermediate_size": 512, "mamba_ssm_dtype": "bfloat16"}


def _falcon_h1(layers: int, d_ssm: int | None, heads: int, state: int, groups: int) -> dict:
    return {"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "hidden_size": 256,
            "intermediate_size": 512, "num_hidden_layers": layers, "num_attention_heads": 8, "num_key_value_heads": 2,
            "head_dim": 32, "max_position_embeddings": 4096, "vocab_size": 512, "torch_dtype": "bfloat16",
            "mamba_d_ssm": d_ssm, "mamba_n_heads": heads, "mamba_d_head": "auto", "mamba_d_state": state,
            "mamba_n_groups": groups, "mamba_d_conv": 4, "mamba_expand": 2}


# (name, config, the tp sizes it shards to)
MODELS = [
    ("M*M- (tiny-nemotron-h's)", _nemotron_h("M*M-", 8, 32, 16, 1), (1, 2)),  # tp 2: its one group replicated
    ("MMM*MMM*", _nemotron_h("MMM*MMM*", 16, 64, 128, 8), (1, 2, 4)),
    ("M-M- (no attention)", _nemotron_h("M-M-", 8, 32, 64, 2), (1,)),
    ("layers_block_type", _nemotron_h(["mamba", "attention", "mlp", "mamba", "mamba", "attention"], 8, 64, 64, 4),
     (1, 2)),
    ("qwen3-next 8/4", _qwen3_next(8, 4, 4, 8, 32, 32), (1, 2)),
    ("qwen3-next 6/2", _qwen3_next(6, 2, 2, 4, 64, 64), (1, 2)),
    ("granite-4", _granite_4(["mamba", "mamba", "attention", "mamba", "mamba", "attention"], 16, 32, 64, 1), (1, 2)),
    ("granite-4, transformers 5.15 names", _granite_4(["linear_attention"] * 3 + ["full_attention"], 8, 64, 128, 2),
     (1,)),
    ("falcon-h1", _falcon_h1(4, 512, 16, 64, 1), (1, 2)),
    ("falcon-h1, mamba_d_ssm null", _falcon_h1(3, None, 8, 32, 2), (1,)),
]

# (device, card MiB, free GiB before loading): an 80 GiB and a 24 GiB card, a card with little free, a CPU host
MEMORY = [("cuda", 81559, 78.0), ("cuda", 24576, 22.5), ("cuda", 24576, 0.3), ("cpu", 22000, 20.06)]

# the arguments the Mamba path branches on (a GPU platform; the CPU one below)
GPU_ARGS = [
    {}, {"mamba_radix_cache_strategy": "no_buffer", "disable_overlap_schedule": True},
    {"disable_overlap_schedule": True}, {"mamba_radix_cache_strategy": "extra_buffer_lazy"},
    {"mamba_radix_cache_strategy": "extra_buffer_lazy", "disable_overlap_schedule": True},
    {"disable_radix_cache": True}, {"disable_radix_cache": True, "max_running_requests": 8},
    {"max_mamba_cache_size": 7}, {"max_mamba_cache_size": 2}, {"max_mamba_cache_size": 40_000_000},
    {"mamba_full_memory_ratio": 0.25}, {"mamba_ssm_dtype": "bfloat16"}, {"max_total_tokens": 4096},
    {"max_running_requests": 64}, {"page_size": 16}, {"page_size": 16, "mamba_radix_cache_strategy": "no_buffer"},
    {"mem_fraction_static": 0.05}, {"mem_fraction_static": 0.3},
]
GPU_ENV = [{"SGLANG_MAMBA_CONV_DTYPE": "float32"}, {"SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK": "1"},
           {"SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK": "1", "_args": {"mamba_radix_cache_strategy": "no_buffer",
                                                                "disable_overlap_schedule": True}}]
CPU_ARGS = [{}, {"mamba_radix_cache_strategy": "no_buffer"},
            {"mamba_radix_cache_strategy": "no_buffer", "disable_overlap_schedule": True},
            {"mamba_radix_cache_strategy": "no_buffer", "disable_overlap_schedule": True, "max_mamba_cache_size": 64,
             "max_total_tokens": 4096},
            {"mamba_radix_cache_strategy": "extra_buffer", "disable_overlap_schedule": True},
            {"disable_radix_cache": True}]


def _cases() -> list[dict]:
    cases = []
    for name, config, tps in MODELS:
        for tp in tps:
            for device, card, free in MEMORY:
                variants = ([(a, {}) for a in CPU_ARGS] if device == "cpu" else
                            [(a, {}) for a in GPU_ARGS] + [(e.get("_args", {}), {k: v for k, v in e.items()
                                                                                  if k != "_args"}) for e in GPU_ENV])
                if device == "cuda" and free < 1:  # the little-free card: no room for a state pool, a pinned one
                    variants = [({}, {}), ({"max_mamba_cache_size": 7}, {}), ({"disable_radix_cache": True}, {}),
                                ({"mem_fraction_static": 0.01}, {})]
                elif card > 80_000:  # the large card: the defaults, the radix cache off, a request cap
                    variants = [({}, {}), ({"disable_radix_cache": True}, {}), ({"max_running_requests": 64}, {})]
                if tp > 1:  # sharded: the defaults, and the state pool from an explicit ratio
                    variants = variants[:1] + [({"mamba_full_memory_ratio": 0.25}, {})]
                for args, env in variants:
                    cases.append({"name": name, "config": config, "dtype": "bfloat16", "context_len": 2048,
                                  "tp": tp, "device": device, "card_mib": card, "pre_gib": free, "args": args,
                                  "env": env})
    return cases


def _prediction(case: dict, release: str):
    model = model_from_config(case["config"], case["name"], "oracle case")
    args = {**case["args"], "context_length": case["context_len"], "tp_size": case["tp"], "dtype": case["dtype"]}
    return predict("sglang", args, model, case["card_mib"], device=case["device"], env=case["env"],
                   engine_version=release, gpu_free_mib=case["pre_gib"] * 1024, free_at_load=True,
                   calibration=Calibration(0.0))


# the engine's error messages and the predictor's codes for them
ERRORS = {"Not enough GPU memory for hybrid": "M2:", "state cache is too small to serve any requests": "M3:",
          "Loaded weights leave no GPU memory": "G1:", "Not enough memory.": "G2:",
          "Lazy extra buffer requires overlap schedule": "M1:"}


def _agrees(p, got: dict) -> bool:
    if "refusal" in got:
        return p.will_start is False and p.reason.startswith("M1: ") and got["refusal"] in p.reason
    if got["error"] is not None and got["error"].startswith("Lazy extra buffer"):  # asserted once sized
        return p.will_start is False and p.reason == f"M1: {got['error']}"
    if not (p.modelled and any(f"{got['per_slot']:,} B a slot" in n and f"strategy {got['strategy']}," in n
                               for n in p.notes)):
        return False
    if got["error"] is not None:
        code = next(c for words, c in ERRORS.items() if words in got["error"])
        return p.will_start is False and p.reason.startswith(code) and got["error"].startswith(p.reason[4:])
    return bool(p.will_start and p.kv_tokens == got["tokens"] and p.max_running_requests ==
                got["max_running_requests"] and p.state_pool_slots == got["slots"]
                and abs(p.state_pool_gib - (got["slots"] + 1) * got["per_slot"] / (1 << 30)) < 1e-9)


def test_sglang_mamba_pools_match_the_engine(mamba_oracle):
    release, process = mamba_oracle
    cases = _cases()
    predictions = [_prediction(case, release) for case in cases]
    asked = [{**case, "fraction": p.mem_fraction_static if p.mem_fraction_static is not None else 0.8,
              "available_gib": case["pre_gib"] - (p.weights_gib or 0.0)} for case, p in zip(cases, predictions)]
    engine = process.ask("sglang_mamba_pools", asked)
    mismatches = [(case["name"], case["device"], case["tp"], case["pre_gib"], case["args"], case["env"], got,
                   (p.reason, p.kv_tokens, p.max_running_requests, p.state_pool_slots))
                  for case, p, got in zip(cases, predictions, engine) if not _agrees(p, got)]
    assert not mismatches, mismatches[:4]
    # the grid reaches every outcome: each refusal, each error, a pool capped by its state slots, none at all
    refusals = {g["refusal"] for g in engine if "refusal" in g}
    assert {PLATFORM_REFUSAL.get(release, PLATFORM_REFUSAL["0.5.22"]),
            "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True.",
            "no_buffer only supports page_size=1."} <= refusals
    errors = {next(c for words, c in ERRORS.items() if words in g["error"]) for g in engine if g.get("error")}
    assert errors == {"M1:", "M2:", "M3:", "G1:"}, errors
    assert any(g.get("max_running_requests") == 1 for g in engine)  # 7 slots // 5 per request
    assert {g.get("strategy") for g in engine} >= {"extra_buffer", "extra_buffer_lazy", "no_buffer", "radix cache off"}
    assert len(engine) > 200
