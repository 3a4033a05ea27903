"""The models the harness builds itself (`builtin:tiny-llama`, `builtin:tiny-gemma3`, ...): their shapes,
configs, tensor shapes and where they live.

Each builtin is a real architecture both engines know, tiny (hidden 128, 2-4 layers), with random weights
and the same trained tokenizer (harness.execute.models builds them). One frozen shape class per
architecture: the dense attention every one has lives in `TinyShape`; a subclass adds its config keys and
tensors. Tensor names are the Hugging Face checkpoint names the engines' weight loaders read (cited per
class). Pure: no numpy, no torch; the builder fills the tensors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

MODELS_DIR_ENV = "KV_HARNESS_MODELS_DIR"

TensorShapes = dict[str, tuple[int, ...]]


@dataclass(frozen=True)
class TinyShape:
    """Dense attention with an MLP: what every builtin shares. Subclasses set `architecture`/`model_type`."""

    architecture: ClassVar[str]
    model_type: ClassVar[str]
    prefix: ClassVar[str] = "model."  # the checkpoint's module prefix ("backbone." for Nemotron-H)

    hidden_size: int = 128
    intermediate_size: int = 256
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 2048
    vocab_target: int = 512  # the tokenizer trainer may stop short; the real vocab is what it learned
    tie_word_embeddings: bool = False
    # The model's vocab where it is larger than the tokenizer's, as real checkpoints pad theirs (Llama 3: 128,256 rows
    # for 128,000 learned tokens and specials); None: the tokenizer's own.
    model_vocab: int | None = None

    def vocab_rows(self, learned: int) -> int:
        """The embedding's and LM head's rows for a tokenizer that learned `learned` tokens."""
        return max(learned, self.model_vocab or 0)

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    @property
    def attention_layers(self) -> int:
        """Layers with a KV cache (every layer but a hybrid's state layers)."""
        return self.num_hidden_layers

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        """K and V of one token in every attention layer, as a dense engine caches them (sliding layers too)."""
        return self.attention_layers * 2 * self.num_key_value_heads * self.head_dim * dtype_bytes

    def config(self, vocab_size: int | None = None) -> dict[str, Any]:
        """The config.json of this shape (the vocab is what the tokenizer learned; the target until built)."""
        return {
            "architectures": [self.architecture], "model_type": self.model_type,
            "hidden_size": self.hidden_size, "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_hidden_layers, "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads, "head_dim": self.head_dim,
            "max_position_embeddings": self.max_position_embeddings,
            "vocab_size": self.vocab_rows(self.vocab_target) if vocab_size is None else vocab_size,
            "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "tie_word_embeddings": self.tie_word_embeddings,
            "torch_dtype": "float16", "bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 2,
            **self.kind_config(),
        }

    def kind_config(self) -> dict[str, Any]:
        """The config keys of this architecture beyond the dense ones."""
        return {"hidden_act": "silu"}

    def tensor_shapes(self, vocab: int) -> TensorShapes:
        """Every tensor of the checkpoint, by its name in the safetensors file."""
        # in this order (embeddings, final norm, head, layers) the builder's random draws give tiny-llama the bytes
        # it always had
        h, p = self.hidden_size, self.prefix
        out: TensorShapes = {p + "embed_tokens.weight": (vocab, h), p + "norm.weight": (h,)}
        if not self.tie_word_embeddings:
            out["lm_head.weight"] = (vocab, h)
        for layer in range(self.num_hidden_layers):
            out.update(self.layer_tensors(f"{p}layers.{layer}.", layer))
        return out

    def layer_tensors(self, p: str, layer: int) -> TensorShapes:
        h = self.hidden_size
        return {**self.attention_tensors(p + "self_attn."), **self.mlp_tensors(p + "mlp."),
                p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,)}

    def attention_tensors(self, p: str) -> TensorShapes:
        h, q, kv = self.hidden_size, self.num_attention_heads * self.head_dim, self.num_key_value_heads * self.head_dim
        return {p + "q_proj.weight": (q, h), p + "k_proj.weight": (kv, h), p + "v_proj.weight": (kv, h),
                p + "o_proj.weight": (h, q)}

    def mlp_tensors(self, p: str, inner: int | None = None) -> TensorShapes:
        h, i = self.hidden_size, inner or self.intermediate_size
        return {p + "gate_proj.weight": (i, h), p + "up_proj.weight": (i, h), p + "down_proj.weight": (h, i)}


@dataclass(frozen=True)
class TinyLlamaShape(TinyShape):
    """Dense Llama: the tiny model every CPU scenario runs."""

    architecture: ClassVar[str] = "LlamaForCausalLM"
    model_type: ClassVar[str] = "llama"


@dataclass(frozen=True)
class TinyGemma3Shape(TinyShape):
    """Gemma 3 text: sliding-window layers interleaved with full-attention ones (`layer_types`), q/k norms,
    four norms a layer, tied embeddings. Names: vLLM 0.32.0 model_executor/models/gemma3.py:149-150
    (q_norm, k_norm), :241-250 (the four layer norms), :398 (tied lm_head); SGLang 0.5.22
    srt/models/gemma3_causal.py:185 (is_sliding from layer_types), :894 (lm_head skipped, tied)."""

    architecture: ClassVar[str] = "Gemma3ForCausalLM"
    model_type: ClassVar[str] = "gemma3_text"

    num_hidden_layers: int = 4
    sliding_window: int = 128
    layer_types: tuple[str, ...] = ("sliding_attention", "sliding_attention", "sliding_attention", "full_attention")
    tie_word_embeddings: bool = True

    @property
    def sliding_layers(self) -> int:
        return self.layer_types.count("sliding_attention")

    def kind_config(self) -> dict[str, Any]:
        return {"hidden_activation": "gelu_pytorch_tanh", "sliding_window": self.sliding_window,
                "layer_types": list(self.layer_types), "query_pre_attn_scalar": self.head_dim,
                "rope_local_base_freq": 10000.0}

    def layer_tensors(self, p: str, layer: int) -> TensorShapes:
        h, a = self.hidden_size, p + "self_attn."
        return {**super().layer_tensors(p, layer), a + "q_norm.weight": (self.head_dim,),
                a + "k_norm.weight": (self.head_dim,), p + "pre_feedforward_layernorm.weight": (h,),
                p + "post_feedforward_layernorm.weight": (h,)}


@dataclass(frozen=True)
class TinyQwen3MoeShape(TinyShape):
    """Qwen3 MoE: every layer's MLP is `num_experts` routed experts (top `num_experts_per_tok`), q/k norms.
    Per-expert checkpoint names, as the hub's Qwen3-30B-A3B stores them: vLLM 0.32.0
    model_executor/models/qwen3_moe.py:170-212 (gate, experts; FusedMoE.make_expert_params_mapping with
    gate_proj/down_proj/up_proj), :326-327 (q_norm, k_norm); SGLang 0.5.22 srt/models/qwen3_moe.py."""

    architecture: ClassVar[str] = "Qwen3MoeForCausalLM"
    model_type: ClassVar[str] = "qwen3_moe"

    num_experts: int = 4
    num_experts_per_tok: int = 2
    moe_intermediate_size: int = 64

    def kind_config(self) -> dict[str, Any]:
        return {"hidden_act": "silu", "num_experts": self.num_experts, "num_experts_per_tok": self.num_experts_per_tok,
                "moe_intermediate_size": self.moe_intermediate_size, "decoder_sparse_step": 1,
                "mlp_only_layers": [], "norm_topk_prob": True}

    def layer_tensors(self, p: str, layer: int) -> TensorShapes:
        h, a, m = self.hidden_size, p + "self_attn.", p + "mlp."
        out = {**self.attention_tensors(a), m + "gate.weight": (self.num_experts, h),
               a + "q_norm.weight": (self.head_dim,), a + "k_norm.weight": (self.head_dim,),
               p + "input_layernorm.weight": (h,), p + "post_attention_layernorm.weight": (h,)}
        for expert in range(self.num_experts):
            out.update(self.mlp_tensors(f"{m}experts.{expert}.", self.moe_intermediate_size))
        return out


@dataclass(frozen=True)
class TinyNemotronHShape(TinyShape):
    """Nemotron-H: Mamba2 layers (M), attention layers (*) and MLP layers (-) as `hybrid_override_pattern`
    says, one `mixer` and one `norm` a layer. Names (hub layout, `backbone.` prefix, `embeddings`, `A_log`):
    vLLM 0.32.0 model_executor/models/nemotron_h.py:736-739 (backbone->model, A_log->A,
    embeddings->embed_tokens), :549-553 (the pattern's letters), :621 (norm_f), layers/mamba/mamba_mixer2.py
    :480-506 (A, D, dt_bias, out_proj, gated norm); SGLang 0.5.22 srt/models/nemotron_h.py:774-784 (the same
    renames), :697 (norm_f). Shapes as transformers 5.19's NemotronHForCausalLM builds them."""

    architecture: ClassVar[str] = "NemotronHForCausalLM"
    model_type: ClassVar[str] = "nemotron_h"
    prefix: ClassVar[str] = "backbone."

    num_hidden_layers: int = 4
    hybrid_override_pattern: str = "M*M-"
    mamba_num_heads: int = 8
    mamba_head_dim: int = 32
    ssm_state_size: int = 16
    n_groups: int = 1
    conv_kernel: int = 4
    chunk_size: int = 64

    @property
    def attention_layers(self) -> int:
        return self.hybrid_override_pattern.count("*")

    @property
    def mamba_layers(self) -> int:
        return self.hybrid_override_pattern.count("M")

    @property
    def mamba_intermediate(self) -> int:
        return self.mamba_num_heads * self.mamba_head_dim

    @property
    def conv_dim(self) -> int:
        return self.mamba_intermediate + 2 * self.n_groups * self.ssm_state_size

    def mamba_state_bytes(self, conv_bytes: int = 2, ssm_bytes: int = 2) -> int:
        """One sequence's state in one Mamba layer: the conv state (conv_dim x (kernel - 1)) and the SSM state
        (heads x head_dim x state size), each in its own dtype (vLLM 0.32.0 keeps Nemotron-H's SSM state in
        float32: "Updating mamba_ssm_cache_dtype to 'float32' for NemotronH model")."""
        conv = self.conv_dim * (self.conv_kernel - 1)
        ssm = self.mamba_num_heads * self.mamba_head_dim * self.ssm_state_size
        return conv * conv_bytes + ssm * ssm_bytes

    def kind_config(self) -> dict[str, Any]:
        return {"hybrid_override_pattern": self.hybrid_override_pattern, "mamba_num_heads": self.mamba_num_heads,
                "mamba_head_dim": self.mamba_head_dim, "ssm_state_size": self.ssm_state_size,
                "n_groups": self.n_groups, "conv_kernel": self.conv_kernel, "chunk_size": self.chunk_size,
                "mamba_hidden_act": "silu", "mlp_hidden_act": "relu2", "layer_norm_epsilon": 1e-5,
                "use_conv_bias": True, "use_bias": False, "mamba_proj_bias": False, "mlp_bias": False,
                "attention_bias": False, "residual_in_fp32": False}

    def tensor_shapes(self, vocab: int) -> TensorShapes:
        h, p = self.hidden_size, self.prefix
        out: TensorShapes = {p + "embeddings.weight": (vocab, h)}
        for layer, letter in enumerate(self.hybrid_override_pattern):
            lp = f"{p}layers.{layer}."
            out[lp + "norm.weight"] = (h,)
            out.update(self._mixer(lp + "mixer.", letter))
        out[p + "norm_f.weight"] = (h,)
        if not self.tie_word_embeddings:
            out["lm_head.weight"] = (vocab, h)
        return out

    def _mixer(self, p: str, letter: str) -> TensorShapes:
        h, i = self.hidden_size, self.intermediate_size
        if letter == "*":
            return self.attention_tensors(p)
        if letter == "-":
            return {p + "up_proj.weight": (i, h), p + "down_proj.weight": (h, i)}
        if letter != "M":
            raise ValueError(f"hybrid_override_pattern: letter {letter!r} is not built here (M, *, -)")
        heads, inner = self.mamba_num_heads, self.mamba_intermediate
        in_proj = 2 * inner + 2 * self.n_groups * self.ssm_state_size + heads  # z, x, B, C, dt
        return {p + "in_proj.weight": (in_proj, h), p + "conv1d.weight": (self.conv_dim, 1, self.conv_kernel),
                p + "conv1d.bias": (self.conv_dim,), p + "A_log": (heads,), p + "D": (heads,),
                p + "dt_bias": (heads,), p + "norm.weight": (inner,), p + "out_proj.weight": (h, inner)}


BUILTINS: dict[str, TinyShape] = {
    "tiny-llama": TinyLlamaShape(),
    "tiny-gemma3": TinyGemma3Shape(),  # sliding-window layers beside full ones
    "tiny-qwen3-moe": TinyQwen3MoeShape(),  # mixture of experts
    "tiny-nemotron-h": TinyNemotronHShape(),  # hybrid Mamba2/attention
}

# Dense Llamas at real weight sizes, built with the same builder: what the CPU engines' worker memory is checked
# on beyond tiny-llama (results/cpu_sizes). Apart from BUILTINS, which the suite builds whole: 0.41 GB and 1.45 GB
# of fp16 weights (16 query heads, 4 KV heads, the tokenizer's ~500-token vocab), and a third of another family
# kept out of every fit: 12 query heads over 2 KV heads, a 65,536-row vocab (0.75 GiB of embedding and LM head,
# where vLLM-CPU's packed copies of both are ~0.375 GiB more), 1.37 GB of weights in all.
SIZED_BUILTINS: dict[str, TinyShape] = {
    "llama-0.4gb": TinyLlamaShape(hidden_size=1024, intermediate_size=2816, num_hidden_layers=18,
                                  num_attention_heads=16, num_key_value_heads=4),
    "llama-1.4gb": TinyLlamaShape(hidden_size=2048, intermediate_size=5632, num_hidden_layers=16,
                                  num_attention_heads=16, num_key_value_heads=4),
    "llama-wide-vocab": TinyLlamaShape(hidden_size=1536, intermediate_size=4096, num_hidden_layers=20,
                                       num_attention_heads=12, num_key_value_heads=2, model_vocab=65536),
}

# Every model `builtin:NAME` can name.
ALL_BUILTINS: dict[str, TinyShape] = {**BUILTINS, **SIZED_BUILTINS}


def models_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kv-budget-harness" / "models"
    return Path(os.environ.get(MODELS_DIR_ENV, default))
