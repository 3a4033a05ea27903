"""The model kinds config.json reveals that a dense-attention KV formula does not size: MLA, sliding-window
layers, hybrid Mamba/linear-attention layers, and mixture-of-experts (whose weights the dense shapes miss).

Pure: a config dict in, the kinds out, each with the config keys that show it. Each engine's formulas say
which kinds they model and how the engine sizes the others (BudgetFormulas.modelled_kinds / kind_sources).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MLA = "mla"
SPARSE_MLA = "sparse_mla"  # MLA with an indexer cache beside the latent (DeepSeek V3.2's DSA)
SLIDING_WINDOW = "sliding_window"
HYBRID = "hybrid"
MOE = "moe"

# layer_types values of plain attention; any other (mamba, linear_attention, conv, ...) is a state layer
_ATTENTION_LAYER_TYPES = {"full_attention", "attention", "sliding_attention", "global", "local"}
_SLIDING_LAYER_TYPES = {"sliding_attention", "local"}
# configs that set a sliding window with a pattern key of their own instead of layer_types
_SLIDING_PATTERN_KEYS = ("sliding_window_pattern", "interleaved_sliding_window")
# hybrid configs that name their layers with keys other than layer_types
_HYBRID_PATTERN_KEYS = ("hybrid_override_pattern", "layers_block_type")
_EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")


@dataclass(frozen=True)
class ModelKind:
    name: str  # MLA, SLIDING_WINDOW, HYBRID, MOE
    evidence: str  # the config keys that show it, as they read
    affects_kv: bool  # True: the KV bytes per token differ; False: only the weights estimate

    def describe(self) -> str:
        return f"{_LABELS[self.name]} ({self.evidence})"


_LABELS = {
    MLA: "multi-head latent attention",
    SPARSE_MLA: "sparse multi-head latent attention with an indexer cache",
    SLIDING_WINDOW: "sliding-window attention layers",
    HYBRID: "hybrid Mamba/linear-attention layers",
    MOE: "mixture-of-experts layers",
}


def model_kinds(cfg: dict[str, Any]) -> list[ModelKind]:
    """Every kind of `cfg` (a decoder's text config) beyond dense full attention, KV-changing ones first."""
    out = [k for k in (_mla(cfg), _sliding(cfg), _hybrid(cfg)) if k is not None]
    moe = _moe(cfg)
    return out + ([moe] if moe is not None else [])


def _mla(cfg: dict[str, Any]) -> ModelKind | None:
    if cfg.get("kv_lora_rank") in (None, 0):
        return None
    rope = cfg.get("qk_rope_head_dim")
    evidence = f"kv_lora_rank={cfg['kv_lora_rank']}" + (f", qk_rope_head_dim={rope}" if rope else "")
    if cfg.get("index_topk") not in (None, 0):
        return ModelKind(SPARSE_MLA, f"{evidence}, index_topk={cfg['index_topk']}", True)
    return ModelKind(MLA, evidence, True)


def _layer_types(cfg: dict[str, Any]) -> list[str]:
    types = cfg.get("layer_types")
    return [str(t).lower() for t in types] if isinstance(types, list) else []


def _sliding(cfg: dict[str, Any]) -> ModelKind | None:
    window = cfg.get("sliding_window")
    if window in (None, 0) or cfg.get("use_sliding_window") is False:
        return None
    types = _layer_types(cfg)
    if types:
        sliding = sum(t in _SLIDING_LAYER_TYPES for t in types)
        if not sliding:
            return None
        return ModelKind(SLIDING_WINDOW, f"sliding_window={window}, {sliding} of {len(types)} layers "
                                         "sliding in layer_types", True)
    for key in _SLIDING_PATTERN_KEYS:
        if cfg.get(key) not in (None, 0):
            return ModelKind(SLIDING_WINDOW, f"sliding_window={window}, {key}={cfg[key]}", True)
    return ModelKind(SLIDING_WINDOW, f"sliding_window={window}", True)


def _hybrid(cfg: dict[str, Any]) -> ModelKind | None:
    types = _layer_types(cfg)
    state = sorted({t for t in types if t not in _ATTENTION_LAYER_TYPES})
    if state:
        count = sum(t not in _ATTENTION_LAYER_TYPES for t in types)
        return ModelKind(HYBRID, f"layer_types: {count} of {len(types)} layers {'/'.join(state)}", True)
    for key in _HYBRID_PATTERN_KEYS:
        pattern = cfg.get(key)
        if isinstance(pattern, str) and "M" in pattern:  # Nemotron-H: M = Mamba2, * = attention, - = MLP
            return ModelKind(HYBRID, f"{key}: {pattern.count('M')} of {len(pattern)} layers Mamba", True)
        if isinstance(pattern, list) and any("mamba" in str(t).lower() for t in pattern):
            count = sum("mamba" in str(t).lower() for t in pattern)
            return ModelKind(HYBRID, f"{key}: {count} of {len(pattern)} layers mamba", True)
    # Falcon-H1: attention and a Mamba2 mixer side by side in every layer
    if cfg.get("model_type") == "falcon_h1" or (cfg.get("mamba_d_ssm") is not None and cfg.get("mamba_n_heads")):
        layers = cfg.get("num_hidden_layers")
        return ModelKind(HYBRID, f"mamba_n_heads={cfg.get('mamba_n_heads')}: a Mamba2 mixer in each of {layers} "
                                 "layers", True)
    # Qwen3-Next: every full_attention_interval-th layer attends, the others are linear attention (gated delta net)
    interval, layers = cfg.get("full_attention_interval"), cfg.get("num_hidden_layers")
    if isinstance(interval, int) and interval > 1 and isinstance(layers, int) and cfg.get("linear_num_value_heads"):
        return ModelKind(HYBRID, f"full_attention_interval={interval}: {layers - layers // interval} of {layers} "
                                 "layers linear attention", True)
    return None


def _moe(cfg: dict[str, Any]) -> ModelKind | None:
    for key in _EXPERT_KEYS:
        value = cfg.get(key)
        if isinstance(value, int) and value > 1:
            per_token = cfg.get("num_experts_per_tok") or cfg.get("num_experts_per_token")
            return ModelKind(MOE, f"{key}={value}" + (f", {per_token} per token" if per_token else ""), False)
    return None
