"""Which layers of a sliding-window model vLLM gives a SlidingWindowSpec, read from config.json's layer_types; which
layers of a Nemotron-H or Granite 4 model are Mamba2 layers (MambaSpec) and what their state takes.

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
    # the SSM state's dtype under --mamba-ssm-cache-dtype auto (None: the conv state's, the model's dtype)
    ssm_dtype: str | None = None

    def state_bytes(self, conv_bytes: int, ssm_bytes: int) -> int:
        """MambaSpec.page_size_bytes before padding (0.32.0 vllm/v1/kv_cache_interface.py:1062-1070)."""
        return self.conv_elements * conv_bytes + self.ssm_elements * ssm_bytes


_NOT_READ = ("the predictor reads the Mamba2 layers of Nemotron-H (hybrid_override_pattern) and Granite 4 "
             "(granitemoehybrid's layer_types) only; this model's state layers (MambaSpec) are not modelled")
# Granite 4's layer_types as config.json writes them and as transformers normalises them (vLLM 0.32.0
# vllm/model_executor/models/granitemoehybrid.py:322-325 builds a layer by the normalised name)
_GRANITE_MAMBA = {"mamba", "linear_attention"}
_GRANITE_ATTENTION = {"attention", "full_attention"}


def mamba_layout(model: ModelDescription, tp: int = 1) -> MambaLayout | str:
    """The Mamba2 and attention layers of Nemotron-H or Granite 4 and their Mamba2 state shapes
    (layers/mamba/mamba_utils.py:195-220 mamba2_state_shape: conv (conv_kernel - 1) x (intermediate + 2 x n_groups
    x state), SSM heads x head_dim x state), or why the predictor does not read them (one clause)."""
    cfg = model.config
    if cfg.get("model_type") == "nemotron_h" and isinstance(cfg.get("hybrid_override_pattern"), str):
        return _nemotron_h(cfg, tp)
    if cfg.get("model_type") == "granitemoehybrid" and isinstance(cfg.get("layer_types"), list):
        return _granite_4(cfg, model.num_layers, tp)
    return _NOT_READ


def _nemotron_h(cfg: dict, tp: int) -> MambaLayout | str:
    """hybrid_override_pattern: M Mamba2, * attention, - MLP, E experts; the state from mamba_num_heads x
    mamba_head_dim (0.32.0 vllm/model_executor/models/nemotron_h.py:795-812 get_mamba_state_shape_from_config)."""
    pattern = cfg["hybrid_override_pattern"]
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
    # the SSM state: the config's mamba_ssm_cache_dtype, else float32 (0.32.0 vllm/model_executor/models/
    # config.py:712-738 NemotronHForCausalLMConfig)
    return MambaLayout(attention_layers=pattern.count("*"), mamba_layers=pattern.count("M"),
                       conv_elements=(cfg["conv_kernel"] - 1) * conv_dim, ssm_elements=heads * head_dim * state,
                       ssm_dtype=str(cfg.get("mamba_ssm_cache_dtype") or "float32"))


def _granite_4(cfg: dict, num_layers: int, tp: int) -> MambaLayout | str:
    """layer_types: mamba / attention (or linear_attention / full_attention); the state from mamba_expand x
    hidden_size (0.32.0 and 0.33.0 vllm/model_executor/models/granitemoehybrid.py:619-647), the SSM state in the
    conv's dtype (no model config sets it: mamba_utils.py _mamba_state_dtype with mamba_ssm_cache_dtype auto)."""
    kinds = [str(t).lower() for t in cfg["layer_types"]]
    if tp != 1:
        return "Mamba2 state shards across tensor-parallel ranks (mamba_utils.py:195-220) are not modelled"
    other = sorted(set(kinds) - _GRANITE_MAMBA - _GRANITE_ATTENTION)
    if other or len(kinds) != num_layers:
        return (f"layer_types names {'/'.join(other)}, not modelled" if other else
                "layer_types does not list every layer, which vLLM reads one by one")
    # transformers' defaults fill what config.json leaves out (GraniteMoeHybridConfig); the predictor reads the
    # file only, so every key that sizes the state must be in it
    missing = [k for k in ("mamba_n_heads", "mamba_d_state", "mamba_n_groups", "mamba_d_conv", "mamba_expand")
               if not isinstance(cfg.get(k), int)]
    if missing:
        return f"config.json lacks {', '.join(missing)}, which size the Mamba2 state (MambaSpec)"
    heads, state = cfg["mamba_n_heads"], cfg["mamba_d_state"]
    intermediate = cfg["mamba_expand"] * cfg["hidden_size"]
    # mamba_d_head "auto" (or absent): intermediate // heads (transformers GraniteMoeHybridConfig.__post_init__)
    head_dim = cfg.get("mamba_d_head")
    head_dim = intermediate // heads if head_dim in (None, "auto") else head_dim
    if not isinstance(head_dim, int):
        return f"mamba_d_head {head_dim!r} is not a number of channels"
    conv_dim = intermediate + 2 * cfg["mamba_n_groups"] * state
    return MambaLayout(attention_layers=sum(k in _GRANITE_ATTENTION for k in kinds),
                       mamba_layers=sum(k in _GRANITE_MAMBA for k in kinds),
                       conv_elements=(cfg["mamba_d_conv"] - 1) * conv_dim, ssm_elements=heads * head_dim * state)
