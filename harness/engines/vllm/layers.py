"""Which layers of a sliding-window model vLLM gives a SlidingWindowSpec, read from config.json's layer_types.

Pure: a model description in, (full layers, sliding layers, window) out, or the reason the predictor does not size
the model's KV cache groups. vLLM's model code decides per layer (e.g. 0.32.0 vllm/model_executor/models/gemma3.py
reads `config.layer_types[layer_idx] == "sliding_attention"`); layer_types is what the Hugging Face configs of Gemma
3, GPT-OSS and the like state, so a config without it (the model file's own pattern) is not read here.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.predict.model import ModelDescription

_SLIDING = {"sliding_attention", "local"}
_FULL = {"full_attention", "attention", "global"}


@dataclass(frozen=True)
class SlidingLayout:
    full_layers: int
    sliding_layers: int
    sliding_window: int


def sliding_layout(model: ModelDescription) -> SlidingLayout | str:
    """The layout, or why the predictor does not read it (one clause, no trailing period)."""
    cfg = model.config
    if model.mla_latent_dim is not None:
        return "MLA beside sliding-window layers (SlidingWindowMLASpec) is not modelled"
    per_kind = [k for k in ("global_head_dim", "num_global_key_value_heads", "num_kv_shared_layers") if cfg.get(k)]
    if per_kind:
        # pages of two sizes, or layers reading another's cache: not the one-page-size groups modelled here
        return f"{', '.join(per_kind)} in config.json: SlidingWindowSpec layers unlike the full ones are not modelled"
    types = cfg.get("layer_types")
    if not isinstance(types, list) or len(types) != model.num_layers:
        return ("vLLM's model file decides which layers slide (SlidingWindowSpec); the predictor reads them from "
                "config.json's layer_types only, which this config does not list for every layer")
    kinds = [str(t).lower() for t in types]
    other = sorted({t for t in kinds if t not in _SLIDING | _FULL})
    if other:
        return f"layer_types names {'/'.join(other)} beside SlidingWindowSpec layers, which are not modelled"
    window = cfg.get("sliding_window")
    if not isinstance(window, int) or window <= 0:
        return f"sliding_window {window!r} is not one window for every SlidingWindowSpec layer"
    sliding = sum(t in _SLIDING for t in kinds)
    return SlidingLayout(full_layers=len(kinds) - sliding, sliding_layers=sliding, sliding_window=window)
