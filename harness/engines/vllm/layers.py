"""Which layers of a sliding-window model vLLM gives a SlidingWindowSpec, read from config.json's layer_types; which
layers of a Nemotron-H model are Mamba2 layers (MambaSpec) and what their state takes.

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


@dataclass(frozen=True)
class MambaLayout:
    attention_layers: int
    mamba_layers: int
    conv_elements: int  # conv state of one layer: (conv_kernel - 1) x conv_dim
    ssm_elements: int  # SSM state of one layer: heads x head_dim x state_size

    def state_bytes(self, conv_bytes: int, ssm_bytes: int) -> int:
        """MambaSpec.page_size_bytes before padding (0.32.0 vllm/v1/kv_cache_interface.py:1062-1070)."""
        return self.conv_elements * conv_bytes + self.ssm_elements * ssm_bytes


def mamba_layout(model: ModelDescription, tp: int = 1) -> MambaLayout | str:
    """Nemotron-H's layers (hybrid_override_pattern: M Mamba2, * attention, - MLP) and its Mamba2 state shapes
    (0.32.0 vllm/model_executor/models/nemotron_h.py:795-812 get_mamba_state_shape_from_config,
    layers/mamba/mamba_utils.py:195-220 mamba2_state_shape), or why the predictor does not read them."""
    cfg = model.config
    pattern = cfg.get("hybrid_override_pattern")
    if cfg.get("model_type") != "nemotron_h" or not isinstance(pattern, str):
        return ("the predictor reads Nemotron-H's Mamba2 layers (hybrid_override_pattern) only; this model's state "
                "layers (MambaSpec) are not modelled")
    if tp != 1:
        return "Mamba2 state shards across tensor-parallel ranks (mamba_utils.py:195-220) are not modelled"
    if set(pattern) - set("M*-E"):
        return f"hybrid_override_pattern {pattern!r} has layers other than M, *, - and E, not modelled"
    missing = [k for k in ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel")
               if not isinstance(cfg.get(k), int)]
    if missing:
        return f"config.json lacks {', '.join(missing)}, which size the Mamba2 state (MambaSpec)"
    heads, head_dim, state = cfg["mamba_num_heads"], cfg["mamba_head_dim"], cfg["ssm_state_size"]
    conv_dim = heads * head_dim + 2 * cfg["n_groups"] * state
    return MambaLayout(attention_layers=pattern.count("*"), mamba_layers=pattern.count("M"),
                       conv_elements=(cfg["conv_kernel"] - 1) * conv_dim, ssm_elements=heads * head_dim * state)
