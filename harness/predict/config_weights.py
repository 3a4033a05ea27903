"""The tensors a checkpoint stores, declared by its config.json alone (no safetensors header at hand).

The config's shapes give every module of the decoder: attention (grouped-query, or DeepSeek's multi-head
latent attention), a dense MLP or a mixture of experts (routed, shared, the router), norms, embeddings, the
LM head unless tied, and the multi-token-prediction layers a DeepSeek checkpoint carries. `quantization_config`
then says how each linear layer is stored, one function per scheme, each written from what the engine's
loader expects the checkpoint to hold (vLLM 0.32.0 `vllm/model_executor/layers/quantization/`): FP8 with
per-tensor or block scales, MXFP4 experts, AWQ and GPTQ int4 with group scales and zeros, NVFP4 (ModelOpt and
compressed-tensors), compressed-tensors int/fp8 groups with their `ignore` list.

Left out on purpose (each under 0.01 % of a checkpoint): Qwen3's and Gemma 3's per-head q/k norms, Gemma's
pre/post-feedforward norms; the sizes below match the dense estimate of `ModelDescription._shaped_weight_bytes`
exactly for a dense 16-bit config. Vision towers: Qwen2-VL's, Qwen2.5-VL's, Gemma 3's SigLIP with its projector.
Not modelled: other vision/audio towers (counted as absent, and said so), MoE families other than Mixtral,
Qwen2/3-MoE, DeepSeek V2/V3 (and configs with its keys), gpt-oss and Llama-4 (counted with the Qwen-MoE layout,
and said so), other quantization methods (counted 16-bit, and said so).
"""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field
from typing import Any

from harness.predict.stored_weights import StoredTensor, StoredWeights

# bytes per element of the header dtypes written below
_ELEM_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1, "I32": 4, "I64": 8}
_HEADER_DTYPE = {"bfloat16": "BF16", "float16": "F16", "float32": "F32"}


# config classes whose tie_word_embeddings defaults to True when config.json leaves the key out (transformers 4.54.0
# models/gemma/configuration_gemma.py:128, gemma2/configuration_gemma2.py:136, gemma3/configuration_gemma3.py:185);
# the engines read the parsed config (vLLM 0.32.0 models/gemma3.py:398 ties lm_head when it is True)
_TIED_BY_DEFAULT = ("gemma", "gemma2", "gemma3", "gemma3_text")


def tied_embeddings(cfg: dict[str, Any]) -> bool:
    """Whether the LM head is the embedding: the config's key, else its config class's default."""
    if "tie_word_embeddings" in cfg:
        return bool(cfg["tie_word_embeddings"])
    return str(cfg.get("model_type", "")) in _TIED_BY_DEFAULT


# Qwen2-family language models carry q/k/v biases without attention_bias in config.json (vLLM models/qwen2.py)
_QKV_BIAS_MODEL_TYPES = ("qwen2", "qwen2_moe", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text")


@dataclass(frozen=True)
class Linear:
    """One linear module as HF names it (experts: `count` copies under expert 0's name)."""

    name: str
    out_features: int
    in_features: int
    count: int = 1
    bias: bool = False
    quantizable: bool = True  # routers and the LM head stay 16-bit in every scheme modelled
    stacked: bool = False  # gpt-oss stores all experts of a layer as one tensor (MXFP4 packs only these)


@dataclass(frozen=True)
class Plain:
    """A 16-bit tensor that no scheme quantizes: norms, embeddings, sinks, router biases."""

    name: str
    shape: tuple[int, ...]
    count: int = 1


@dataclass
class DeclaredWeights:
    """What the config declares: the tensors as a checkpoint stores them, what was counted, what was not."""

    weights: StoredWeights
    terms: list[str] = field(default_factory=list)
    unmodelled: list[str] = field(default_factory=list)

    @property
    def stored_bytes(self) -> int:
        return self.weights.total_bytes


def declared_weights(cfg: dict[str, Any], dtype: str) -> DeclaredWeights:
    """Every tensor the config declares, stored as its `quantization_config` says (dtype: the config's)."""
    modules = _embeddings(cfg)
    for i in range(int(cfg["num_hidden_layers"])):
        modules += _decoder_layer(cfg, i)
    modules += _mtp_layers(cfg)
    modules += _vision_tower(cfg)
    scheme = _scheme(cfg)
    plain_dtype = _HEADER_DTYPE.get(dtype, "BF16")
    tensors = [t for m in modules for t in _stored(m, scheme, plain_dtype)]
    out = DeclaredWeights(StoredWeights(tuple(tensors), 0, "config.json"))
    out.terms = _terms(cfg, scheme)
    out.unmodelled = _unmodelled(cfg, scheme)
    return out


# ---- shapes ---------------------------------------------------------------------------------


def _embeddings(cfg: dict[str, Any]) -> list[Linear | Plain]:
    h, vocab = int(cfg["hidden_size"]), int(cfg.get("vocab_size") or 32000)
    out: list[Linear | Plain] = [Plain("model.embed_tokens.weight", (vocab, h)), Plain("model.norm.weight", (h,))]
    if not tied_embeddings(cfg):
        out.append(Linear("lm_head", vocab, h, quantizable=False))
    return out


def _decoder_layer(cfg: dict[str, Any], i: int) -> list[Linear | Plain]:
    prefix = f"model.layers.{i}."
    h = int(cfg["hidden_size"])
    norms: list[Linear | Plain] = [Plain(prefix + "input_layernorm.weight", (h,)),
                                   Plain(prefix + "post_attention_layernorm.weight", (h,))]
    if _is_moe_layer(cfg, i):
        mlp = _moe(cfg, prefix)
    elif _is_llama4(cfg):  # Llama-4's dense layers: intermediate_size_mlp (vLLM 0.32.0 models/llama4.py:350-357)
        mlp = _dense_mlp(cfg, prefix, int(cfg.get("intermediate_size_mlp") or _dense_inter(cfg)), "feed_forward.")
    else:
        mlp = _dense_mlp(cfg, prefix, _dense_inter(cfg))
    return norms + _attention(cfg, prefix) + mlp


def _attention(cfg: dict[str, Any], prefix: str) -> list[Linear | Plain]:
    if cfg.get("kv_lora_rank"):
        return _mla_attention(cfg, prefix)
    h, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    hd = int(cfg.get("head_dim") or h // heads)
    bias = bool(cfg.get("attention_bias", False))
    qkv_bias = bias or cfg.get("model_type") in _QKV_BIAS_MODEL_TYPES
    p = prefix + "self_attn."
    out: list[Linear | Plain] = [Linear(p + "q_proj", heads * hd, h, bias=qkv_bias),
                                 Linear(p + "k_proj", kv_heads * hd, h, bias=qkv_bias),
                                 Linear(p + "v_proj", kv_heads * hd, h, bias=qkv_bias),
                                 Linear(p + "o_proj", h, heads * hd, bias=bias)]
    if cfg.get("model_type") == "gpt_oss":
        out.append(Plain(p + "sinks", (heads,)))  # one learned sink logit per head (vllm models/gpt_oss.py)
    return out


def _mla_attention(cfg: dict[str, Any], prefix: str) -> list[Linear | Plain]:
    """DeepSeek V2/V3 multi-head latent attention: low-rank q (or a plain q_proj), the joint kv latent."""
    h, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    q_rank, kv_rank = cfg.get("q_lora_rank"), int(cfg["kv_lora_rank"])
    rope, nope = int(cfg.get("qk_rope_head_dim") or 0), int(cfg.get("qk_nope_head_dim") or 0)
    v_dim = int(cfg.get("v_head_dim") or nope)
    p = prefix + "self_attn."
    if q_rank:
        q: list[Linear | Plain] = [Linear(p + "q_a_proj", int(q_rank), h), Plain(p + "q_a_layernorm.weight", (q_rank,)),
                                   Linear(p + "q_b_proj", heads * (nope + rope), int(q_rank))]
    else:
        q = [Linear(p + "q_proj", heads * (nope + rope), h)]
    return q + [Linear(p + "kv_a_proj_with_mqa", kv_rank + rope, h), Plain(p + "kv_a_layernorm.weight", (kv_rank,)),
                Linear(p + "kv_b_proj", heads * (nope + v_dim), kv_rank), Linear(p + "o_proj", h, heads * v_dim)]


def _dense_mlp(cfg: dict[str, Any], prefix: str, inter: int, name: str = "mlp.",
               count: int = 1) -> list[Linear | Plain]:
    h = int(cfg["hidden_size"])
    bias = bool(cfg.get("mlp_bias", False))
    p = prefix + name
    return [Linear(p + "gate_proj", inter, h, count, bias), Linear(p + "up_proj", inter, h, count, bias),
            Linear(p + "down_proj", h, inter, count, bias)]


def _dense_inter(cfg: dict[str, Any]) -> int:
    return int(cfg.get("intermediate_size") or 4 * int(cfg["hidden_size"]))


def num_experts(cfg: dict[str, Any]) -> int:
    """Routed experts per MoE layer under each architecture's key (0: a dense model)."""
    for key in ("n_routed_experts", "num_local_experts", "num_experts"):
        if cfg.get(key):
            return int(cfg[key])
    return 0


@dataclass(frozen=True)
class RoutedExperts:
    """A mixture-of-experts model's routed experts as the engines' fused MoE kernels see them (config keys only)."""

    experts: int
    top_k: int  # experts each token is routed to
    intermediate: int  # one expert's MLP width (moe_intermediate_size, or intermediate_size where that is it)
    moe_layers: int  # decoder layers carrying experts
    dense_layers: int  # decoder layers with a dense MLP instead


def routed_experts(cfg: dict[str, Any]) -> RoutedExperts | None:
    """The routed experts the config declares (None: a dense model, or no top-k in the config), by each family's
    keys as _moe reads them."""
    experts = num_experts(cfg)
    top_k = cfg.get("num_experts_per_tok") or cfg.get("num_experts_per_token") or cfg.get("experts_per_token")
    layers = int(cfg.get("num_hidden_layers") or 0)
    if not experts or not top_k or not layers:
        return None
    model_type = str(cfg.get("model_type", ""))
    if model_type in ("gpt_oss", "mixtral") or _is_llama4(cfg):
        inter = _dense_inter(cfg)
    else:
        inter = int(cfg.get("moe_intermediate_size") or _dense_inter(cfg))
    moe = sum(_is_moe_layer(cfg, i) for i in range(layers))
    return RoutedExperts(experts, int(top_k), inter, moe, layers - moe)


def _is_moe_layer(cfg: dict[str, Any], i: int) -> bool:
    """Which decoder layers carry experts, by each family's keys (as the engines' model files read them)."""
    if not num_experts(cfg):
        return False
    if _is_llama4(cfg):  # every interleave_moe_layer_step-th layer (vLLM 0.32.0 models/llama4.py:340-343)
        step = int(cfg.get("interleave_moe_layer_step") or 0)
        return step > 0 and (i + 1) % step == 0
    if "first_k_dense_replace" in cfg or cfg.get("n_routed_experts"):
        # DeepSeek V2/V3: dense below first_k_dense_replace, then every moe_layer_freq-th layer
        return i >= int(cfg.get("first_k_dense_replace") or 0) and i % int(cfg.get("moe_layer_freq") or 1) == 0
    if i in (cfg.get("mlp_only_layers") or []):
        return False
    # Qwen2/3-MoE: every decoder_sparse_step-th layer (1: all); Mixtral, gpt-oss: all layers
    return (i + 1) % int(cfg.get("decoder_sparse_step") or 1) == 0


def _moe(cfg: dict[str, Any], prefix: str) -> list[Linear | Plain]:
    """Routed experts, the router, and the shared experts where the family has them."""
    h, experts = int(cfg["hidden_size"]), num_experts(cfg)
    model_type = str(cfg.get("model_type", ""))
    if model_type == "gpt_oss":
        return _gpt_oss_experts(cfg, prefix, experts)
    if _is_llama4(cfg):
        return _llama4_experts(cfg, prefix, experts)
    if model_type == "mixtral":
        p = prefix + "block_sparse_moe."
        inter = _dense_inter(cfg)
        return [Linear(p + "gate", experts, h, quantizable=False), Linear(p + "experts.0.w1", inter, h, experts),
                Linear(p + "experts.0.w2", h, inter, experts), Linear(p + "experts.0.w3", inter, h, experts)]
    inter = int(cfg.get("moe_intermediate_size") or _dense_inter(cfg))
    out: list[Linear | Plain] = [Linear(prefix + "mlp.gate", experts, h, quantizable=False)]
    out += _dense_mlp(cfg, prefix, inter, "mlp.experts.0.", experts)
    if cfg.get("n_routed_experts") and cfg.get("topk_method") == "noaux_tc":
        out.append(Plain(prefix + "mlp.gate.e_score_correction_bias", (experts,)))  # DeepSeek-V3's routing bias
    if cfg.get("n_shared_experts"):
        out += _dense_mlp(cfg, prefix, inter * int(cfg["n_shared_experts"]), "mlp.shared_experts.")
    if cfg.get("shared_expert_intermediate_size"):
        out += _dense_mlp(cfg, prefix, int(cfg["shared_expert_intermediate_size"]), "mlp.shared_expert.")
        out.append(Linear(prefix + "mlp.shared_expert_gate", 1, h, quantizable=False))
    return out


def _gpt_oss_experts(cfg: dict[str, Any], prefix: str, experts: int) -> list[Linear | Plain]:
    """gpt-oss: every layer's experts stacked, gate and up fused, with biases; a router with a bias."""
    h, inter = int(cfg["hidden_size"]), _dense_inter(cfg)
    p = prefix + "mlp."
    return [Linear(p + "router", experts, h, bias=True, quantizable=False),
            Linear(p + "experts.gate_up_proj", 2 * inter, h, experts, bias=True, stacked=True),
            Linear(p + "experts.down_proj", h, inter, experts, bias=True, stacked=True)]


def _is_llama4(cfg: dict[str, Any]) -> bool:
    return str(cfg.get("model_type", "")).startswith("llama4")


def _llama4_experts(cfg: dict[str, Any], prefix: str, experts: int) -> list[Linear | Plain]:
    """Llama-4 (vLLM 0.32.0 models/llama4.py:73-142): a router, the experts stacked with gate and up fused
    (experts.gate_up_proj, experts.down_proj), and one shared expert, all of intermediate_size."""
    h, inter = int(cfg["hidden_size"]), int(cfg.get("intermediate_size") or 4 * int(cfg["hidden_size"]))
    p = prefix + "feed_forward."
    return [Linear(p + "router", experts, h, quantizable=False),
            Linear(p + "experts.gate_up_proj", 2 * inter, h, experts, stacked=True),
            Linear(p + "experts.down_proj", h, inter, experts, stacked=True)] + \
        _dense_mlp(cfg, prefix, inter, "feed_forward.shared_expert.")


def _mtp_layers(cfg: dict[str, Any]) -> list[Linear | Plain]:
    """DeepSeek-V3's multi-token-prediction layers past num_hidden_layers: a full decoder layer plus its own
    embedding, two norms, the projection of both, and a head (loaded for speculative decoding only)."""
    extra = int(cfg.get("num_nextn_predict_layers") or 0)
    if not extra or not cfg.get("n_routed_experts"):
        return []
    h, vocab, layers = int(cfg["hidden_size"]), int(cfg.get("vocab_size") or 32000), int(cfg["num_hidden_layers"])
    out: list[Linear | Plain] = []
    for i in range(layers, layers + extra):
        p = f"model.layers.{i}."
        out += _decoder_layer(cfg, i)
        out += [Plain(p + "embed_tokens.weight", (vocab, h)), Plain(p + "enorm.weight", (h,)),
                Plain(p + "hnorm.weight", (h,)), Plain(p + "shared_head.norm.weight", (h,)),
                Linear(p + "eh_proj", h, 2 * h, quantizable=False),
                Linear(p + "shared_head.head", vocab, h, quantizable=False)]
    return out


# ---- vision towers ---------------------------------------------------------------------------------


def _vision_tower(cfg: dict[str, Any]) -> list[Linear | Plain]:
    """The vision encoder a Qwen2-VL / Qwen2.5-VL config.json describes (other towers: not modelled, said so).
    Kept 16-bit: the quantized VL checkpoints of the schemes modelled leave the tower out of their scheme."""
    vc = cfg.get("vision_config")
    arch = str((cfg.get("architectures") or [""])[0])
    if not isinstance(vc, dict) or arch not in _TOWERS:
        return []
    return _TOWERS[arch](vc, cfg)


def _tower_linear(name: str, out_features: int, in_features: int, count: int = 1) -> Linear:
    return Linear(name, out_features, in_features, count, bias=True, quantizable=False)


def _patch_embed(vc: dict[str, Any], width: int) -> list[Linear | Plain]:
    channels = int(vc.get("in_chans") or vc.get("in_channels") or 3)
    patch, temporal = int(vc.get("patch_size") or 14), int(vc.get("temporal_patch_size") or 2)
    # a Conv3d without bias: width x channels x temporal x patch x patch
    return [Plain("visual.patch_embed.proj.weight", (width, channels, temporal, patch, patch))]


def _qwen2_vl_tower(vc: dict[str, Any], cfg: dict[str, Any]) -> list[Linear | Plain]:
    """vLLM 0.32.0 models/qwen2_vl.py Qwen2VisionTransformer: LayerNorms (weight and bias), qkv and proj with
    biases, an fc1/fc2 MLP of embed_dim x mlp_ratio, a merger of spatial_merge_size**2 patches into hidden_size."""
    width, depth = int(vc.get("embed_dim") or 1280), int(vc.get("depth") or 32)
    mlp = int(width * float(vc.get("mlp_ratio") or 4))
    merged = width * int(vc.get("spatial_merge_size") or 2) ** 2
    out: list[Linear | Plain] = _patch_embed(vc, width)
    p = "visual.blocks.0."
    out += [Plain(p + "norm1.weight", (width,), 2 * depth), Plain(p + "norm2.weight", (width,), 2 * depth),
            _tower_linear(p + "attn.qkv", 3 * width, width, depth),
            _tower_linear(p + "attn.proj", width, width, depth),
            _tower_linear(p + "mlp.fc1", mlp, width, depth), _tower_linear(p + "mlp.fc2", width, mlp, depth)]
    out += [Plain("visual.merger.ln_q.weight", (width,), 2), _tower_linear("visual.merger.mlp.0", merged, merged, 1),
            Linear("visual.merger.mlp.2", int(vc.get("hidden_size") or cfg["hidden_size"]), merged, 1, True, False)]
    return out


def _qwen2_5_vl_tower(vc: dict[str, Any], cfg: dict[str, Any]) -> list[Linear | Plain]:
    """vLLM 0.32.0 models/qwen2_5_vl.py Qwen2_5_VisionTransformer: RMSNorms (weight only), qkv and proj with
    biases, a gated MLP (gate/up/down with biases) of intermediate_size, the merger into out_hidden_size."""
    width, depth = int(vc.get("hidden_size") or 1280), int(vc.get("depth") or 32)
    inter = int(vc.get("intermediate_size") or 3420)
    merged = width * int(vc.get("spatial_merge_size") or 2) ** 2
    out: list[Linear | Plain] = _patch_embed(vc, width)
    p = "visual.blocks.0."
    out += [Plain(p + "norm1.weight", (width,), depth), Plain(p + "norm2.weight", (width,), depth),
            _tower_linear(p + "attn.qkv", 3 * width, width, depth),
            _tower_linear(p + "attn.proj", width, width, depth),
            _tower_linear(p + "mlp.gate_proj", inter, width, depth),
            _tower_linear(p + "mlp.up_proj", inter, width, depth),
            _tower_linear(p + "mlp.down_proj", width, inter, depth)]
    out += [Plain("visual.merger.ln_q.weight", (width,)), _tower_linear("visual.merger.mlp.0", merged, merged, 1),
            Linear("visual.merger.mlp.2", int(vc.get("out_hidden_size") or cfg["hidden_size"]), merged, 1, True,
                   False)]
    return out


def _siglip_tower(vc: dict[str, Any], prefix: str) -> list[Linear | Plain]:
    """A SigLIP vision transformer (vLLM 0.32.0 models/siglip.py): a Conv2d patch embedding with bias
    (SiglipVisionEmbeddings, :259-277) and a learned position per patch, (image_size // patch_size) ** 2; each
    encoder layer two LayerNorms (weight and bias, :471-477), q/k/v/out projections with biases (:357-370), fc1/fc2
    with biases (:430-441); a final post_layernorm (:689-691); the attention-pooling head only with vision_use_head."""
    width, depth = int(vc.get("hidden_size") or 1152), int(vc.get("num_hidden_layers") or 27)
    inter = int(vc.get("intermediate_size") or 4304)
    patch, channels = int(vc.get("patch_size") or 14), int(vc.get("num_channels") or 3)
    positions = (int(vc.get("image_size") or 224) // patch) ** 2
    p = prefix + "encoder.layers.0."
    out: list[Linear | Plain] = [Plain(prefix + "embeddings.patch_embedding.weight", (width, channels, patch, patch)),
                                 Plain(prefix + "embeddings.patch_embedding.bias", (width,)),
                                 Plain(prefix + "embeddings.position_embedding.weight", (positions, width)),
                                 Plain(p + "layer_norm1.weight", (width,), 2 * depth),
                                 Plain(p + "layer_norm2.weight", (width,), 2 * depth)]
    out += [_tower_linear(p + f"self_attn.{n}_proj", width, width, depth) for n in ("q", "k", "v", "out")]
    out += [_tower_linear(p + "mlp.fc1", inter, width, depth), _tower_linear(p + "mlp.fc2", width, inter, depth),
            Plain(prefix + "post_layernorm.weight", (width,), 2)]
    if vc.get("vision_use_head"):
        out += [Plain(prefix + "head.probe", (1, 1, width)),
                _tower_linear(prefix + "head.attention.in_proj", 3 * width, width),
                _tower_linear(prefix + "head.attention.out_proj", width, width),
                Plain(prefix + "head.layernorm.weight", (width,), 2),
                _tower_linear(prefix + "head.mlp.fc1", inter, width),
                _tower_linear(prefix + "head.mlp.fc2", width, inter)]
    return out


def _gemma3_tower(vc: dict[str, Any], cfg: dict[str, Any]) -> list[Linear | Plain]:
    """Gemma 3 (vLLM 0.32.0 models/gemma3_mm.py): a SigLIP tower, then Gemma3MultiModalProjector (:451-463): an
    mm_input_projection_weight of vision hidden x text hidden and an RMSNorm of the vision width."""
    width = int(vc.get("hidden_size") or 1152)
    return _siglip_tower(vc, "vision_tower.vision_model.") + [
        Plain("multi_modal_projector.mm_input_projection_weight", (width, int(cfg["hidden_size"]))),
        Plain("multi_modal_projector.mm_soft_emb_norm.weight", (width,))]


_TOWERS = {"Qwen2VLForConditionalGeneration": _qwen2_vl_tower,
           "Qwen2_5_VLForConditionalGeneration": _qwen2_5_vl_tower,
           "Gemma3ForConditionalGeneration": _gemma3_tower}


# ---- storage: one function per quantization scheme ------------------------------------------------


@dataclass(frozen=True)
class Scheme:
    name: str  # what the weights line says
    store: Any  # (Linear, plain dtype) -> list of (suffix, dtype, shape)
    skips: Any = None  # module name -> True when the config leaves it 16-bit
    stacked_only: bool = False  # MXFP4: only gpt-oss's stacked experts are quantized


def _stored(module: Linear | Plain, scheme: Scheme | None, plain_dtype: str) -> list[StoredTensor]:
    if isinstance(module, Plain):
        return [_tensor(module.name, plain_dtype, module.shape, module.count)]
    quantized = (scheme is not None and module.quantizable and not (scheme.skips and scheme.skips(module.name))
                 and (module.stacked or not scheme.stacked_only))
    parts = scheme.store(module, plain_dtype) if quantized else _unquantized(module, plain_dtype)
    out = [_tensor(f"{module.name}.{suffix}", dtype, shape, module.count) for suffix, dtype, shape in parts]
    if module.bias:
        out.append(_tensor(module.name + ".bias", plain_dtype, (module.out_features,), module.count))
    return out


def _tensor(name: str, dtype: str, shape: tuple[int, ...], count: int) -> StoredTensor:
    return StoredTensor(name, dtype, tuple(shape), count * math.prod(shape) * _ELEM_BYTES[dtype])


def _unquantized(m: Linear, plain_dtype: str) -> list[tuple[str, str, tuple[int, ...]]]:
    return [("weight", plain_dtype, (m.out_features, m.in_features))]


def _fp8(quant: dict[str, Any]) -> Scheme:
    """vLLM fp8.py Fp8LinearMethod.create_weights (0.32.0 fp8.py:300-345): an F8_E4M3 weight; block scales
    `weight_scale_inv` F32 of ceil(out/bn) x ceil(in/bk) with weight_block_size, else one F32 `weight_scale`;
    an F32 `input_scale` only with activation_scheme static."""
    block = quant.get("weight_block_size")
    static = quant.get("activation_scheme") == "static"

    def store(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        parts = [("weight", "F8_E4M3", (m.out_features, m.in_features))]
        if block:
            parts.append(("weight_scale_inv", "F32", (-(-m.out_features // block[0]), -(-m.in_features // block[1]))))
        else:
            parts.append(("weight_scale", "F32", ()))
        if static:
            parts.append(("input_scale", "F32", ()))
        return parts

    kind = f"fp8 block {block[0]}x{block[1]} scales" if block else "fp8 per-tensor scales"
    return Scheme(kind, store, _name_skips(quant.get("modules_to_not_convert") or quant.get("ignored_layers"), "exact"))


def _mxfp4(quant: dict[str, Any]) -> Scheme:
    """gpt-oss MXFP4 (vLLM 0.32.0 mxfp4.py create_weights): expert weights as U8 `_blocks`, two 4-bit values a
    byte, shaped (experts, out, in/32, 16), and U8 E8M0 `_scales`, one per 32 values; the rest 16-bit."""

    def store(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        return [("blocks", "U8", (m.out_features, m.in_features // 32, 16)),
                ("scales", "U8", (m.out_features, m.in_features // 32))]

    return Scheme("mxfp4 experts", store, None, stacked_only=True)


def _int4_groups(quant: dict[str, Any]) -> tuple[int, int]:
    bits = int(quant.get("bits") or quant.get("w_bit") or 4)
    group = int(quant.get("group_size") or quant.get("q_group_size") or 128)
    return bits, group


def _awq(quant: dict[str, Any]) -> Scheme:
    """AWQ (vLLM 0.32.0 auto_awq.py:456-497): `qweight` I32 (in, out/pack), `qzeros` I32 (in/group, out/pack),
    `scales` F16 (in/group, out); pack = 32 / bits."""
    bits, group = _int4_groups(quant)
    pack = 32 // bits

    def store(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        groups = m.in_features // group if group > 0 else 1
        return [("qweight", "I32", (m.in_features, m.out_features // pack)),
                ("qzeros", "I32", (groups, m.out_features // pack)), ("scales", "F16", (groups, m.out_features))]

    return Scheme(f"awq int{bits} group {group} scales and zeros", store,
                  _name_skips(quant.get("modules_to_not_convert"), "substring"))


def _gptq(quant: dict[str, Any]) -> Scheme:
    """GPTQ (vLLM 0.32.0 auto_gptq.py:360-430): `qweight` I32 (in/pack, out), `qzeros` I32 (groups, out/pack),
    `scales` F16 (groups, out); group_size -1 is one group. AutoGPTQ/GPTQModel checkpoints also store `g_idx`
    I32 (in,), the group of each input row, which vLLM reads only for act-order.
    The rows packed are `bits` int32 per 32 values, as the writer lays them out (AutoGPTQ
    auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py: qweight (infeatures // 32 * bits, outfeatures), qzeros
    (ceil(infeatures / group), outfeatures // 32 * bits)): the same as in / (32 // bits) for 2, 4 and 8 bits, and the
    only layout for 3 bits (vLLM 0.32.0 auto_gptq.py:99-102 loads only 4 and 8 bits; the bytes are what is stored)."""
    bits, group = _int4_groups(quant)

    def store(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        groups = -(-m.in_features // group) if group > 0 else 1
        return [("qweight", "I32", (m.in_features // 32 * bits, m.out_features)),
                ("qzeros", "I32", (groups, m.out_features // 32 * bits)), ("scales", "F16", (groups, m.out_features)),
                ("g_idx", "I32", (m.in_features,))]

    return Scheme(f"gptq int{bits} group {group} scales and zeros", store,
                  _name_skips(quant.get("modules_to_not_convert"), "substring"))


def _modelopt(quant: dict[str, Any]) -> Scheme:
    """NVIDIA ModelOpt (vLLM 0.32.0 modelopt.py): NVFP4 - a U8 weight (out, in/2), an F8_E4M3 `weight_scale`
    per group of 16 (out, in/group), F32 scalars `weight_scale_2` and `input_scale`; FP8 - an F8_E4M3 weight
    with F32 scalar `weight_scale` and `input_scale`. exclude_modules (wildcards) stay 16-bit."""
    algo = str(quant.get("quant_algo") or "").upper()
    group = int(quant.get("group_size") or 16)

    def nvfp4(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        return [("weight", "U8", (m.out_features, m.in_features // 2)),
                ("weight_scale", "F8_E4M3", (m.out_features, m.in_features // group)),
                ("weight_scale_2", "F32", ()), ("input_scale", "F32", ())]

    def fp8(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
        return [("weight", "F8_E4M3", (m.out_features, m.in_features)), ("weight_scale", "F32", ()),
                ("input_scale", "F32", ())]

    skips = _name_skips(quant.get("exclude_modules") or quant.get("ignore"))
    if "FP4" in algo:
        return Scheme(f"nvfp4 (modelopt) group {group} scales", nvfp4, skips)
    return Scheme("fp8 (modelopt) per-tensor scales", fp8, skips)


def _compressed_tensors(quant: dict[str, Any]) -> Scheme | None:
    """compressed-tensors: each Linear not in `ignore` stored as the first config group whose `targets` name it
    ("Linear": every one; `re:` expressions or names otherwise), one that no group names left 16-bit."""
    groups = quant.get("config_groups") or {}
    schemes = [(_ct_targets(g.get("targets") or ["Linear"]), *_ct_group(g))
               for g in (groups.values() if isinstance(groups, dict) else []) if isinstance(g, dict)
               and isinstance(g.get("weights"), dict)]
    if not schemes:
        return None

    def store(m: Linear, plain: str) -> list[tuple[str, str, tuple[int, ...]]]:
        for targets, _, group_store in schemes:
            if targets(m.name):
                return group_store(m, plain)
        return _unquantized(m, plain)

    label = " + ".join(dict.fromkeys(name for _, name, _ in schemes))
    return Scheme(label, store, _name_skips(quant.get("ignore")))


def _ct_targets(targets: list[Any]) -> Any:
    """A config group's targets as a test of module names: the class name Linear takes every linear module."""
    if any(str(t) == "Linear" for t in targets):
        return lambda name: True
    return _name_skips(targets) or (lambda name: False)


def _ct_group(group: dict[str, Any]) -> tuple[str, Any]:
    """(label, store) of one config group's weights (vLLM 0.32.0 compressed_tensors/schemes/): int4/8 packed
    (wNa16.py:223-228: `weight_packed` I32 (out, in/pack), `weight_scale` (out, groups) at the model dtype,
    `weight_shape` I64 (2,), a packed `weight_zero_point` when asymmetric); fp8 (w8a8_fp8.py:120-135: F8_E4M3
    `weight`, an F32 `weight_scale` per tensor or channel, `input_scale` when static); nvfp4 (w4a4_nvfp4.py:63-91:
    U8 `weight_packed`, F8_E4M3 `weight_scale` per 16, F32 `weight_global_scale`, `input_global_scale`)."""
    weights, acts = group["weights"], group.get("input_activations") or {}
    bits, kind = int(weights.get("num_bits") or 8), str(weights.get("type") or "int")
    strategy = str(weights.get("strategy") or "tensor")
    size = int(weights.get("group_size") or 0)
    if kind == "float" and bits == 4:
        def nvfp4(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
            parts = [("weight_packed", "U8", (m.out_features, m.in_features // 2)),
                     ("weight_scale", "F8_E4M3", (m.out_features, m.in_features // (size or 16))),
                     ("weight_global_scale", "F32", (1,))]
            return parts + ([("input_global_scale", "F32", (1,))] if acts else [])
        return f"nvfp4 (compressed-tensors) group {size or 16} scales", nvfp4
    if kind == "float":
        static = bool(acts) and not acts.get("dynamic", False)

        def fp8(m: Linear, _: str) -> list[tuple[str, str, tuple[int, ...]]]:
            scale = (m.out_features, 1) if strategy == "channel" else (1,)
            parts = [("weight", "F8_E4M3", (m.out_features, m.in_features)), ("weight_scale", "F32", scale)]
            return parts + ([("input_scale", "F32", (1,))] if static else [])
        return f"fp8 (compressed-tensors) {strategy} scales", fp8
    pack = 32 // bits
    symmetric = weights.get("symmetric", True)

    def packed(m: Linear, plain: str) -> list[tuple[str, str, tuple[int, ...]]]:
        ngroups = m.in_features // size if strategy == "group" and size else 1
        parts = [("weight_packed", "I32", (m.out_features, m.in_features // pack)),
                 ("weight_scale", plain, (m.out_features, ngroups)), ("weight_shape", "I64", (2,))]
        if not symmetric:
            parts.append(("weight_zero_point", "I32", (m.out_features // pack, ngroups)))
        return parts
    label = f"group {size}" if strategy == "group" else strategy
    return f"int{bits} (compressed-tensors) {label} scales", packed


def _name_skips(patterns: Any, match: str = "pattern") -> Any:
    """A test of module names against a config's list of modules left 16-bit, matched as the engine matches it
    (vLLM 0.32.0 layers/quantization/utils/quant_utils.py:617-645 is_layer_skipped): "exact" (fp8's
    modules_to_not_convert, fp8.py:118-120), "substring" (AWQ, auto_awq.py:294-299), "pattern" (compressed-tensors'
    `re:` expressions, ModelOpt's shell wildcards, else a name or its dotted suffix)."""
    if not patterns:
        return None
    entries = [str(p) for p in patterns]

    def matches(name: str, entry: str) -> bool:
        if match == "exact":
            return name == entry
        if match == "substring":
            return entry in name
        if entry.startswith("re:"):
            return re.match(entry[3:], name) is not None
        return (name == entry or name.endswith("." + entry) or fnmatch.fnmatchcase(name, entry)
                or fnmatch.fnmatchcase(name, entry + ".*"))

    def skipped(name: str) -> bool:
        return any(matches(name, entry) for entry in entries)
    return skipped


# "modelopt_fp4": the name vLLM gives a ModelOpt NVFP4 checkpoint's method (its config.json says "modelopt")
_SCHEMES = {"fp8": _fp8, "mxfp4": _mxfp4, "awq": _awq, "gptq": _gptq, "modelopt": _modelopt, "modelopt_fp4": _modelopt,
            "compressed-tensors": _compressed_tensors}


def linear_tensors(quantization_config: dict[str, Any] | None, out_features: int, in_features: int,
                   dtype: str = "bfloat16") -> list[StoredTensor]:
    """The tensors one linear layer of out_features x in_features stores under a quantization_config (None: 16-bit)."""
    scheme = _scheme({"quantization_config": quantization_config})
    return _stored(Linear("layer", out_features, in_features, stacked=True), scheme, _HEADER_DTYPE.get(dtype, "BF16"))


def _scheme(cfg: dict[str, Any]) -> Scheme | None:
    quant = cfg.get("quantization_config")
    if not isinstance(quant, dict):
        return None
    build = _SCHEMES.get(str(quant.get("quant_method") or "").lower())
    return build(quant) if build is not None else None


# the MoE families whose layouts are written above (DeepSeek's keys, n_routed_experts, stand for its family)
_MOE_FAMILIES = ("mixtral", "qwen2_moe", "qwen3_moe", "gpt_oss", "deepseek_v2", "deepseek_v3")


# ---- what the weights line says -------------------------------------------------------------------


def _terms(cfg: dict[str, Any], scheme: Scheme | None) -> list[str]:
    terms = []
    experts = num_experts(cfg)
    if experts:
        layers = sum(_is_moe_layer(cfg, i) for i in range(int(cfg["num_hidden_layers"])))
        shared = ""
        if cfg.get("n_shared_experts"):
            shared = f" + {cfg['n_shared_experts']} shared"
        elif cfg.get("shared_expert_intermediate_size"):
            shared = " + 1 shared"
        terms.append(f"{experts} experts{shared} in {layers} layers")
    if cfg.get("kv_lora_rank"):
        terms.append("latent attention (MLA) projections")
    mtp = len(_mtp_layers(cfg)) and int(cfg.get("num_nextn_predict_layers") or 0)
    if mtp:
        terms.append(f"{mtp} multi-token-prediction layer{'s' if mtp > 1 else ''} (stored, not loaded)")
    if scheme is not None:
        terms.append(scheme.name)
    tower = _vision_tower(cfg)
    if tower:
        depth = cfg["vision_config"].get("depth") or cfg["vision_config"].get("num_hidden_layers")
        terms.append(f"vision tower ({depth} blocks, 16-bit)")
    if tied_embeddings(cfg):
        terms.append("tied embeddings")
    return terms


def _unmodelled(cfg: dict[str, Any], scheme: Scheme | None) -> list[str]:
    out = []
    quant = cfg.get("quantization_config")
    if isinstance(quant, dict) and scheme is None:
        method = quant.get("quant_method") or quant.get("quant_algo") or "quantized"
        out.append(f"the checkpoint is {method}, a scheme not modelled: its linear layers are counted 16-bit")
    model_type = str(cfg.get("model_type", ""))
    if num_experts(cfg) and not (_is_llama4(cfg) or model_type in _MOE_FAMILIES or cfg.get("n_routed_experts")):
        out.append(f"{model_type or 'this model'}'s experts are counted with the Qwen-MoE layout "
                   "(moe_intermediate_size, a router, shared_expert_intermediate_size), its own layout is not modelled")
    towers = [k for k in ("vision_config", "audio_config", "speech_config") if isinstance(cfg.get(k), dict)
              and not (k == "vision_config" and _vision_tower(cfg))]
    if towers:
        out.append(f"{', '.join(k.removesuffix('_config') for k in towers)} tower not counted")
    return out
