"""Model kinds the KV formula does not size (harness/predict/kinds.py): sliding-window layers (except vLLM
0.32.0-0.33.x's KV cache groups of layers named in layer_types, SGLang's one dense pool outside its hybrid-SWA list
and its two pools for GPT-OSS), hybrid Mamba/linear attention (except Nemotron-H's and Granite 4's Mamba2 layers on
vLLM 0.32.0-0.33.x, and SGLang 0.5.21-0.5.23's state pool for Nemotron-H, Granite 4, Falcon-H1 and Qwen3-Next),
sparse MLA - and MLA except on vLLM's GPU path and SGLang 0.5.18-0.5.23's MLA architectures - get one line instead of
numbers, naming the engine's own sizing; MoE only a weights note. Each modelled sizing is checked against the engine's
own code (test_predict_oracle.py, test_sglang_swa_pools.py, test_sglang_mamba_oracle.py)."""

from __future__ import annotations

import dataclasses

import pytest

from harness.builtin_models import BUILTINS, MODELS_DIR_ENV
from harness.engines import get_engine
from harness.engines.explaining import SideFacts
from harness.engines.predicting import predict
from harness.engines.releases import version_key
from harness.engines.sglang.explain import DECODE, PREFILL, reserve_parts
from harness.predict import bundled_cards, load_model_description, model_from_config
from harness.predict.kinds import HYBRID, MLA, MOE, SLIDING_WINDOW, SPARSE_MLA, model_kinds

BASE = {"hidden_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4,
        "intermediate_size": 256, "vocab_size": 512, "torch_dtype": "bfloat16", "max_position_embeddings": 4096}

# (config keys over BASE as the real models' config.json spell them, the kinds they show)
CONFIGS = {
    "deepseek-v3": ({"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], "kv_lora_rank": 512,
                     "qk_rope_head_dim": 64, "q_lora_rank": 1536,
                     "n_routed_experts": 256, "num_experts_per_tok": 8}, [MLA, MOE]),
    "deepseek-v3.2": ({"model_type": "deepseek_v32", "architectures": ["DeepseekV32ForCausalLM"], "kv_lora_rank": 512,
                       "qk_rope_head_dim": 64,
                       "index_topk": 2048, "n_routed_experts": 256}, [SPARSE_MLA, MOE]),
    "gemma-3": ({"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "sliding_window": 1024,
                 "layer_types": ["sliding_attention"] * 3 + ["full_attention"]}, [SLIDING_WINDOW]),
    "gemma-3-old": ({"model_type": "gemma3_text", "architectures": ["Gemma3ForCausalLM"], "sliding_window": 1024,
                     "sliding_window_pattern": 6},
                    [SLIDING_WINDOW]),
    "gemma-2": ({"model_type": "gemma2", "architectures": ["Gemma2ForCausalLM"], "sliding_window": 4096},
                [SLIDING_WINDOW]),
    "gemma-4": ({"model_type": "gemma4_text", "architectures": ["Gemma4ForCausalLM"], "sliding_window": 1024,
                 "layer_types": ["sliding_attention"] * 3 + ["full_attention"]}, [SLIDING_WINDOW]),
    "opt-in-swa": ({"model_type": "custom", "architectures": ["CustomForCausalLM"], "sliding_window": 512,
                    "is_hybrid_swa": True}, [SLIDING_WINDOW]),
    "gpt-oss": ({"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], "sliding_window": 128,
                 "num_local_experts": 32,
                 "layer_types": ["sliding_attention", "full_attention"] * 2}, [SLIDING_WINDOW, MOE]),
    "qwen3-next": ({"model_type": "qwen3_next", "num_experts": 512,
                    "layer_types": ["linear_attention"] * 3 + ["full_attention"]}, [HYBRID, MOE]),
    "qwen3-next-interval": ({"model_type": "qwen3_next", "full_attention_interval": 4, "linear_num_value_heads": 32},
                            [HYBRID]),
    "nemotron-h": ({"model_type": "nemotron_h", "hybrid_override_pattern": "M-M*-M-"}, [HYBRID]),
    "falcon-h1": ({"model_type": "falcon_h1", "mamba_d_ssm": 1024, "mamba_n_heads": 16}, [HYBRID]),
    "granite-4": ({"model_type": "granitemoehybrid", "layer_types": ["mamba", "mamba", "mamba", "attention"],
                   "num_local_experts": 0}, [HYBRID]),
    "jamba": ({"model_type": "jamba", "layers_block_type": ["mamba", "attention", "mamba", "mamba"],
               "num_experts": 16}, [HYBRID, MOE]),
    "qwen2.5": ({"model_type": "qwen2", "sliding_window": 131072, "use_sliding_window": False}, []),
    "mistral-v0.3": ({"model_type": "mistral", "sliding_window": None}, []),
    "llama": ({"model_type": "llama", "layer_types": ["full_attention"] * 4}, []),
}

# each engine's line names its own source for each KV kind
SOURCES = {("vllm", MLA): "MLAAttentionSpec", ("vllm", SPARSE_MLA): "indexer cache",
           ("sglang", SPARSE_MLA): "sparse multi-head latent attention", ("vllm", SLIDING_WINDOW): "SlidingWindowSpec",
           ("vllm", HYBRID): "MambaSpec", ("sglang", MLA): "MLATokenToKVPool",
           ("sglang", SLIDING_WINDOW): "SWAKVPool", ("sglang", HYBRID): "MambaPool"}


def _model(name: str):
    extra, _ = CONFIGS[name]
    return model_from_config({**BASE, **extra}, name=f"org/{name}", source="test")


@pytest.mark.parametrize("name", CONFIGS)
def test_each_config_shows_its_kinds(name):
    extra, kinds = CONFIGS[name]
    assert [k.name for k in model_kinds({**BASE, **extra})] == kinds


# SGLang gives a sliding-window model outside the release's hybrid-SWA architectures one dense pool (releases.py
# HYBRID_SWA_BY_RELEASE): Gemma 2 and 3 are sized as dense models in the newest, Gemma 4 and an opted-in config are not
SGLANG_DENSE_SLIDING = {"gemma-3", "gemma-3-old", "gemma-2"}
# ... and GPT-OSS its two pools, full and sliding-window, in 0.5.22-0.5.23 (tests/predict/test_sglang_swa_pools.py)
SGLANG_SPLIT_SLIDING = {"gpt-oss"}
# vLLM 0.32.0-0.33.x sizes sliding-window layers named in layer_types as KV cache groups sharing the pool
# (test_predict_oracle.py checks them against its own code); a config without layer_types stays one line
VLLM_GROUPED_SLIDING = {"gemma-3", "gemma-4", "gpt-oss"}
UNMODELLED = [(engine, name) for name, (_, kinds) in CONFIGS.items() for engine in ("vllm", "sglang")
              if set(kinds) & {SPARSE_MLA, SLIDING_WINDOW, HYBRID}
              and not (engine == "sglang" and name in SGLANG_DENSE_SLIDING | SGLANG_SPLIT_SLIDING)
              and not (engine == "vllm" and name in VLLM_GROUPED_SLIDING)]


@pytest.mark.parametrize(("engine", "name"), UNMODELLED)
def test_a_kv_kind_the_formula_does_not_size_gets_one_line_not_a_number(engine, name):
    p = predict(engine, {}, _model(name), 24576, engine_version=None)
    kind = next(k for k in CONFIGS[name][1] if k != MOE)
    assert not p.modelled and p.will_start is None
    assert p.kv_tokens is None and p.kv_bytes_per_token is None and p.weights_gib is None
    assert "\n" not in p.reason and p.reason.startswith(f"{engine}: org/{name} has ")
    assert p.reason.endswith("; no numbers") and SOURCES[(engine, kind)] in p.reason


def test_vllm_sizes_mla_on_a_gpu_with_one_latent_head_on_every_rank():
    model = _model("deepseek-v3")
    for tp in (1, 4):
        p = predict("vllm", {"tensor_parallel_size": tp}, model, 81559, engine_version="0.32.0")
        assert p.modelled and p.will_start and p.kv_bytes_per_token == 4 * (512 + 64) * 2  # 4 layers, bf16, no V
        assert p.num_blocks == int(p.kv_gib * (1 << 30)) // (16 * 4 * 576 * 2)
        assert any(n.startswith("MLA: block size 16 is FLASH_ATTN_MLA's") for n in p.notes)
    assert predict("vllm", {"kv_cache_dtype": "fp8"}, model, 81559).kv_bytes_per_token is None  # block size: the GPU's
    fp8 = predict("vllm", {"kv_cache_dtype": "fp8", "block_size": 64}, model, 81559)
    assert fp8.kv_bytes_per_token == 4 * 576 and fp8.block_size == 64


def test_mla_stays_one_line_where_vllm_is_not_modelled_for_it():
    model = _model("deepseek-v3")
    fp8 = predict("vllm", {"kv_cache_dtype": "fp8"}, model, 81559, engine_version="0.32.0")
    assert not fp8.modelled and "FlashMLA 64 on sm90" in fp8.reason and fp8.reason.endswith("no numbers")
    older = predict("vllm", {}, model, 81559, engine_version="0.31.0")
    assert not older.modelled and "for 0.32.0-0.33.x only" in older.reason
    cpu = predict("vllm", {"max_model_len": 2048}, model, 24576, device="cpu", engine_version="0.32.0")
    assert not cpu.modelled and "platforms/cpu.py" in cpu.reason


def test_sglang_sizes_mla_with_one_latent_on_every_rank_where_read():
    model = _model("deepseek-v3")  # 4 layers of kv_lora_rank 512 + qk_rope_head_dim 64
    for release in ("0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23"):
        for tp in (1, 4):
            p = predict("sglang", {"tp_size": tp}, model, 81559, engine_version=release)
            assert p.modelled and p.will_start and p.kv_bytes_per_token == 4 * (512 + 64) * 2
            assert p.kv_tokens == int(p.kv_gib * (1 << 30)) // p.kv_bytes_per_token
            assert any(n.startswith("MLA: page size 1 is that of fa3 (sm90)") for n in p.notes)
        fp8 = predict("sglang", {"kv_cache_dtype": "fp8_e4m3"}, model, 81559, engine_version=release)
        assert fp8.kv_bytes_per_token == 4 * 576 and fp8.kv_tokens > p.kv_tokens
        trtllm = predict("sglang", {"attention_backend": "trtllm_mla", "tp_size": 8}, model, 183359,
                         engine_version=release)
        assert trtllm.kv_tokens % 64 == 0 and trtllm.graph_sizes["prefill"] == []
        assert any("takes page size 64" in n for n in trtllm.notes)
        # compare --explain splits the reserve as the predictor made it: the flat MLA prefill term stays after
        # trtllm_mla turns the graph off
        parts = reserve_parts(SideFacts(release, {}, None, trtllm))
        assert parts[PREFILL] == 1536 and parts[DECODE] == trtllm.cuda_graph_max_bs * 2
    # the MLA prefill graph: 2048 tokens in 0.5.19-0.5.22, the chunk capped at 8192 from 0.5.23, 1.5 GiB reserved for it
    older, newer = (predict("sglang", {"chunked_prefill_size": 16384}, model, 81559, engine_version=v)
                    for v in ("0.5.22", "0.5.23"))
    assert (max(older.graph_sizes["prefill"]), max(newer.graph_sizes["prefill"])) == (2048, 8192)
    # Cutlass MLA forces 128-token pages up to 0.5.19 (0.5.19 overrides.py:1142-1149)
    cutlass = {v: predict("sglang", {"attention_backend": "cutlass_mla", "max_total_tokens": 1000}, model, 81559,
                          device="cpu", engine_version=v).kv_tokens for v in ("0.5.18", "0.5.19", "0.5.20")}
    assert cutlass == {"0.5.18": 896, "0.5.19": 896, "0.5.20": 1000}


@pytest.mark.parametrize(("architecture", "first"), [("Dots3NoteForCausalLM", "0.5.19"),
                                                     ("HYV4ForCausalLM", "0.5.20"),
                                                     ("GigaChat35ForCausalLM", "0.5.21")])
def test_sglang_sizes_an_architecture_as_mla_from_the_release_that_lists_it(architecture, first):
    cfg = {**BASE, **CONFIGS["deepseek-v3"][0], "architectures": [architecture]}
    model = model_from_config(cfg, name="org/m", source="test")
    for release in ("0.5.18", "0.5.19", "0.5.20", "0.5.21", "0.5.23"):
        p = predict("sglang", {}, model, 81559, engine_version=release)
        listed = version_key(release) >= version_key(first)
        assert p.modelled is listed, release
        assert listed or f"architecture {architecture}, which SGLang {release} does not size as MLA" in p.reason
    dense = predict("sglang", {"chunked_prefill_size": 16384}, _model("llama"), 81559, engine_version="0.5.23")
    assert max(dense.graph_sizes["prefill"]) == 16384


def test_mla_stays_one_line_where_sglang_is_not_modelled_for_it():
    model = _model("deepseek-v3")
    for release in ("0.5.17", "0.5.14", "0.5.3", "0.4.8"):
        for device in ("cuda", "cpu"):
            p = predict("sglang", {}, model, 81559, device=device, engine_version=release)
            assert not p.modelled and "MLATokenToKVPool" in p.reason and "for 0.5.18-0.5.23 only" in p.reason
            assert p.reason.endswith("; no numbers") and "\n" not in p.reason
    other = model_from_config({**BASE, **CONFIGS["deepseek-v3"][0], "architectures": ["CustomMlaForCausalLM"]},
                              name="org/custom", source="test")
    p = predict("sglang", {}, other, 81559, engine_version="0.5.23")
    assert not p.modelled and "architecture CustomMlaForCausalLM, which SGLang 0.5.23 does not size as MLA" in p.reason
    assert p.reason.endswith("; no numbers")
    sparse = predict("sglang", {}, _model("deepseek-v3.2"), 81559, engine_version="0.5.23")
    assert not sparse.modelled and "DSA indexer cache" in sparse.reason and sparse.reason.endswith("; no numbers")


def test_the_line_names_the_release_and_the_config_keys():
    p = predict("sglang", {}, _model("deepseek-v3"), 24576, engine_version="0.5.17")
    assert p.reason.startswith("sglang 0.5.17: org/deepseek-v3 has multi-head latent attention "
                               "(kv_lora_rank=512, qk_rope_head_dim=64); ")
    # 0.4.10 splits Gemma 3 into two pools (releases.HYBRID_SWA_BY_RELEASE), which the predictor does not size
    p = predict("sglang", {}, _model("gemma-3"), 24576, engine_version="0.4.10")
    assert "sliding-window attention layers (sliding_window=1024, 3 of 4 layers sliding in layer_types)" in p.reason


@pytest.mark.parametrize("name", sorted(VLLM_GROUPED_SLIDING))
def test_vllm_sizes_sliding_window_layers_as_kv_cache_groups_where_read(name):
    model = _model(name)
    for device, total in (("cuda", 81559), ("cpu", 24576)):
        p = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, total, device=device,
                    engine_version="0.32.0")
        assert p.modelled and p.will_start and p.kv_tokens and p.num_blocks
        assert p.kv_tokens == int(p.max_concurrency * 2048)
        assert any("KV cache groups" in n and "kv_tokens is their capacity" in n for n in p.notes)
    older = predict("vllm", {}, model, 81559, engine_version="0.31.0")
    assert not older.modelled and "SlidingWindowSpec" in older.reason
    assert "for 0.11.x and 0.32.0-0.33.x only" in older.reason
    # 0.11.x, read in 0.11.2: one batch in flight, the tokens logged as num_blocks // groups x block_size
    p = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, 81559,
                engine_version="0.11.2")
    assert p.modelled and p.will_start and p.kv_tokens and p.num_blocks
    assert any("1 x " in n and "num_blocks // groups x block_size" in n for n in p.notes)
    assert p.kv_tokens % 16 == 0 and p.kv_tokens < p.num_blocks * 16


@pytest.mark.parametrize(("extra", "words"), [
    ({"layer_types": None, "sliding_window_pattern": 6}, "layer_types only"),
    ({"global_head_dim": 256}, "global_head_dim"),
    ({"kv_lora_rank": 512, "qk_rope_head_dim": 64}, "SlidingWindowMLASpec"),
])
def test_vllm_keeps_one_line_for_sliding_layouts_it_does_not_read(extra, words):
    cfg = {k: v for k, v in {**BASE, **CONFIGS["gemma-3"][0], **extra}.items() if v is not None}
    p = predict("vllm", {}, model_from_config(cfg, name="org/x", source="test"), 81559, engine_version="0.32.0")
    assert not p.modelled and p.kv_tokens is None and "\n" not in p.reason and words in p.reason
    assert p.reason.startswith("vllm 0.32.0: org/x has ") and p.reason.endswith("; no numbers")


def _tiny_state_nemotron_h():
    model = _model("nemotron-h")  # M-M*-M-: 3 Mamba2 layers, 1 attention layer
    # an 18112-byte state (bf16 conv 3 x 288 x 2 B + fp32 SSM 8 x 32 x 16 x 4 B) over a 256-byte token
    model.config.update({"mamba_num_heads": 8, "mamba_head_dim": 32, "ssm_state_size": 16, "n_groups": 1,
                         "conv_kernel": 4})
    return model


def test_vllm_sizes_nemotron_hs_mamba_groups_on_a_cpu():
    model = _tiny_state_nemotron_h()
    p = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, 24576, device="cpu",
                engine_version="0.32.0")
    assert p.modelled and p.will_start and p.kv_tokens == int(p.max_concurrency * 2048)
    assert p.block_size == 128  # the CPU default's page (32 KiB) holds the state
    assert p.kv_bytes_per_token == 2 * 2 * 32 * 2  # the one attention layer's K and V, bf16
    assert any(n.startswith("KV cache groups: 4 of") for n in p.notes)
    # 32 x 256 B does not hold 18112 B: vLLM raises the block to the CPU kernel's next multiple of 32 that does
    small = predict("vllm", {"max_model_len": 2048, "block_size": 32, "kv_cache_memory_bytes": 1 << 30}, model,
                    24576, device="cpu", engine_version="0.32.0")
    assert small.modelled and small.block_size == 96
    assert any(n.startswith("block size 32 raised to 96") for n in small.notes)


def test_vllm_sizes_nemotron_hs_mamba_groups_on_a_gpu():
    model = _tiny_state_nemotron_h()
    gpu = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, 81559,
                  engine_version="0.33.0")
    # the backend's 16 raised to 5 x 16 (5 x 16 x 256 B >= 18112 B), given or not
    assert gpu.modelled and gpu.will_start and gpu.block_size == 80
    given = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30, "block_size": 64}, model,
                    81559, engine_version="0.33.0")
    assert given.block_size == 128 and any(n.startswith("block size 64 raised to 128") for n in given.notes)
    # a small pool under the default max_num_seqs (1024 on an 80 GB card): full CUDA graphs refuse, eager does not
    small = {"max_model_len": 2048, "kv_cache_memory_bytes": 8 << 20}
    refused = predict("vllm", small, model, 81559, engine_version="0.32.0")
    assert refused.will_start is False and refused.max_num_seqs == 1024
    assert refused.reason.startswith(f"mamba_blocks_below_max_num_seqs: max_num_seqs (1024) exceeds available Mamba "
                                     f"cache blocks ({refused.num_blocks})")
    assert get_engine("vllm").formulas.predicted_figure(refused, "error_kind") == \
        "engine_error/mamba_blocks_below_max_num_seqs"
    for flags in ({"enforce_eager": True}, {"compilation_config": '{"cudagraph_mode": "PIECEWISE"}'},
                  {"max_num_seqs": 16}, {"optimization_level": 0}, {"optimization_level": "O1"}):
        assert predict("vllm", {**small, **flags}, model, 81559, engine_version="0.32.0").will_start, flags
    assert not predict("vllm", {**small, "optimization_level": 3}, model, 81559, engine_version="0.32.0").will_start
    # 0.32.0 reads the backend from --attention-backend only; the old variable changes nothing and is said to
    named = predict("vllm", {**small, "attention_backend": "triton_attn"}, model, 81559, engine_version="0.32.0",
                    env={"VLLM_ATTENTION_BACKEND": "FLEX_ATTENTION"})
    assert named.block_size == 80 and any(n.startswith("VLLM_ATTENTION_BACKEND=FLEX_ATTENTION is not read")
                                          for n in named.notes)
    other = predict("vllm", {**small, "attention_backend": "FLEX_ATTENTION"}, model, 81559, engine_version="0.32.0")
    assert not other.modelled and "FLEX_ATTENTION" in other.reason and other.reason.endswith("; no numbers")
    old = predict("vllm", small, model, 81559, engine_version="0.31.0")
    assert not old.modelled


def test_vllm_sizes_granite_4s_mamba2_layers_with_their_own_state_shape():
    model = model_from_config({**BASE, **CONFIGS["granite-4"][0], "hidden_size": 256, "mamba_n_heads": 16,
                               "mamba_d_state": 64, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2},
                              name="org/granite", source="test")
    # conv 3 x (2 x 256 + 2 x 64) x 2 B + SSM 16 x 32 x 64 x 2 B (bf16, the conv's: no float32 default as
    # Nemotron-H's) = 69376 B, over 2 x 2 x 64 x 2 B a token: 9 x 16 tokens
    gpu = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, 81559,
                  engine_version="0.32.0")
    assert gpu.modelled and gpu.will_start and gpu.block_size == 144
    assert any(n.startswith("KV cache groups: 4 of 1 layer(s)") for n in gpu.notes)
    # a bf16 SSM state on vLLM-CPU: the host's AVX512-BF16 decides whether it is kept
    cpu = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30}, model, 24576, device="cpu",
                  engine_version="0.32.0")
    assert not cpu.modelled and "AVX512-BF16" in cpu.reason and cpu.reason.endswith("; no numbers")
    assert predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": 1 << 30, "dtype": "float32"}, model,
                   24576, device="cpu", engine_version="0.32.0").modelled


# jamba's Mamba1 and Qwen3-Next's Gated DeltaNet are not read; Granite 4 and Nemotron-H here lack their state shapes
@pytest.mark.parametrize("name", ["granite-4", "jamba", "qwen3-next", "nemotron-h"])
def test_vllm_keeps_one_line_for_other_hybrids_on_a_cpu(name):
    p = predict("vllm", {}, _model(name), 24576, device="cpu", engine_version="0.32.0")
    assert not p.modelled and "\n" not in p.reason and "MambaSpec" in p.reason and p.reason.endswith("; no numbers")


def test_vllm_refuses_sliding_groups_across_pipeline_stages():
    p = predict("vllm", {"pipeline_parallel_size": 2}, _model("gemma-3"), 81559, engine_version="0.32.0")
    assert not p.modelled and "pipeline parallelism" in p.reason and p.reason.endswith("no numbers")


@pytest.mark.parametrize("name", sorted(SGLANG_DENSE_SLIDING))
def test_sglang_sizes_a_sliding_window_model_outside_its_hybrid_swa_list_as_dense_where_read(name):
    # one pool of every layer's K and V (SGLang-CPU 0.5.22/0.5.23 on tiny Gemma 3: "KV Cache is allocated",
    # hybrid_swa=False; tests/parsers/test_parsers_recorded_kinds.py; 0.4.4 on a GPU: gemma-3-4b-it's K size is all 34
    # layers', test_predict_gpu_oos2.py). 0.4.10 alone gives Gemma 2/3 two pools (HYBRID_SWA_BY_RELEASE): one line
    model = _model(name)
    per_token = 4 * 2 * 2 * (128 // 4) * 2  # layers x (K, V) x kv heads x head_dim x bf16, every layer alike
    for release in ("0.4.4", "0.4.9", "0.5.0rc2", "0.5.5", "0.5.8", "0.5.16", "0.5.21", "0.5.22", "0.5.23"):
        p = predict("sglang", {}, model, 24576, engine_version=release)
        assert p.modelled and p.kv_tokens and p.kv_bytes_per_token == per_token, release
    split = predict("sglang", {}, model, 24576, engine_version="0.4.10")
    assert not split.modelled and "SWAKVPool" in split.reason and split.reason.endswith("no numbers")


def test_sglang_declines_gpt_oss_where_its_two_pools_are_not_read():
    # hybrid SWA in every release that has its class (0.5.0rc2 forced one pool, 0.5.5 only with the triton_kernel
    # MoE runner: taken as hybrid); the split is read for 0.5.16+ only (swa_pools.SPLIT_MODELLED)
    for release in ("0.4.10", "0.5.3", "0.5.8", "0.5.14"):
        p = predict("sglang", {}, _model("gpt-oss"), 81559, engine_version=release)
        assert not p.modelled and "\n" not in p.reason and p.reason.endswith("no numbers"), release
    assert predict("sglang", {}, _model("gpt-oss"), 81559, engine_version="0.5.16").modelled


@pytest.mark.parametrize("name", ["qwen2.5", "mistral-v0.3", "llama"])
def test_a_dense_model_is_still_predicted(name):
    for engine in ("vllm", "sglang"):
        p = predict(engine, {}, _model(name), 24576)
        assert p.modelled and p.kv_tokens and not [n for n in p.notes if n.startswith("weights:")]


def test_the_bundled_cards_are_all_dense():
    for card in bundled_cards():
        assert load_model_description(card).kinds == [], card


# The builtins (harness/builtin_models.py) the real CPU engines were run on (results/cpu_kinds/): the predictor keeps
# sizing tiny-llama, refuses the KV-changing kinds in one line and sizes the MoE one's dense KV with a weights note.
BUILTIN_REFUSED = {"tiny-gemma3": SLIDING_WINDOW, "tiny-nemotron-h": HYBRID}
# ... except where the engine's sizing of that kind is modelled (vLLM's sliding-window and Mamba groups, SGLang's
# dense pool and Mamba state pool)
BUILTIN_SIZED = {("vllm", "tiny-gemma3"), ("sglang", "tiny-gemma3"), ("vllm", "tiny-nemotron-h"),
                 ("sglang", "tiny-nemotron-h")}


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_each_builtin_is_predicted_or_refused_by_its_kind(engine, name, tmp_path, monkeypatch):
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))  # not built: the shape's own config
    model = load_model_description(f"builtin:{name}")
    p = predict(engine, {"max_model_len": 512}, model, 24576, engine_version=None)
    if name in BUILTIN_REFUSED and (engine, name) not in BUILTIN_SIZED:
        assert not p.modelled and p.kv_tokens is None and "\n" not in p.reason
        assert p.reason.startswith(f"{engine}: builtin:{name} has ") and p.reason.endswith("; no numbers")
        assert SOURCES[(engine, BUILTIN_REFUSED[name])] in p.reason
        return
    assert p.modelled and p.kv_tokens and p.kv_bytes_per_token == BUILTINS[name].kv_bytes_per_token(2)
    # the experts are counted from config.json (harness.predict.config_weights): nothing left to warn about
    assert [n for n in p.notes if n.startswith("weights:")] == []
    assert ("experts in" in p.weights_source) is (name == "tiny-qwen3-moe")


def _sglang_hybrid(name: str):
    model = _model(name)
    if name == "nemotron-h":  # M-M*-M-: 3 Mamba2 layers, 1 attention layer
        model.config.update({"architectures": ["NemotronHForCausalLM"], "mamba_num_heads": 8, "mamba_head_dim": 32,
                             "ssm_state_size": 16, "n_groups": 1, "conv_kernel": 4})
    else:  # 4 layers, every 4th full attention: 3 gated-delta-net layers, 1 attention layer
        model.config.update({"architectures": ["Qwen3NextForCausalLM"], "linear_num_key_heads": 4,
                             "linear_num_value_heads": 8, "linear_key_head_dim": 32, "linear_value_head_dim": 32,
                             "linear_conv_kernel_dim": 4})
    return dataclasses.replace(model, architecture=model.config["architectures"][0])


@pytest.mark.parametrize("name", ["nemotron-h", "qwen3-next-interval"])
def test_sglang_sizes_a_hybrid_models_state_pool_and_full_attention_kv_where_read(name):
    # the pools against SGLang's own code: tests/predict/test_sglang_mamba_oracle.py
    model = _sglang_hybrid(name)
    refusals = {"0.5.21": "extra_buffer needs CUDA/MUSA/NPU/ROCm/XPU (FLA).",
                "0.5.22": "extra_buffer requires platform support for Mamba cache state snapshots."}
    for release in ("0.5.21", "0.5.22", "0.5.23"):
        p = predict("sglang", {"context_length": 2048}, model, 81559, engine_version=release)
        assert p.modelled and p.will_start and p.kv_tokens and p.state_pool_slots > 0 and p.state_pool_gib > 0
        assert p.kv_bytes_per_token == 1 * 2 * 2 * 32 * 2  # the one attention layer's K and V, bf16
        assert any(n.startswith("Mamba state pool: 3 ") and "strategy extra_buffer" in n for n in p.notes)
        cpu = predict("sglang", {"context_length": 2048}, model, 24576, device="cpu", engine_version=release)
        assert cpu.will_start is False and cpu.reason == "M1: " + refusals.get(release, refusals["0.5.22"])
    older = predict("sglang", {}, model, 81559, engine_version="0.5.20")
    assert not older.modelled and "MambaPool" in older.reason and older.reason.endswith("no numbers")
