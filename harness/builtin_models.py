"""The models the harness builds itself (`builtin:tiny-llama`): their shapes, configs and where they live."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODELS_DIR_ENV = "KV_HARNESS_MODELS_DIR"


@dataclass(frozen=True)
class TinyLlamaShape:
    hidden_size: int = 128
    intermediate_size: int = 256
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 2048
    vocab_target: int = 512  # the tokenizer trainer may stop short; the real vocab is what it learned

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_attention_heads

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        return self.num_hidden_layers * 2 * self.num_key_value_heads * self.head_dim * dtype_bytes


    def config(self, vocab_size: int | None = None) -> dict[str, Any]:
        """The config.json of this shape (the vocab is what the tokenizer learned; the target until built)."""
        return {
            "architectures": ["LlamaForCausalLM"], "model_type": "llama",
            "hidden_size": self.hidden_size, "intermediate_size": self.intermediate_size,
            "num_hidden_layers": self.num_hidden_layers, "num_attention_heads": self.num_attention_heads,
            "num_key_value_heads": self.num_key_value_heads, "head_dim": self.head_dim,
            "max_position_embeddings": self.max_position_embeddings,
            "vocab_size": self.vocab_target if vocab_size is None else vocab_size,
            "rms_norm_eps": 1e-5, "rope_theta": 10000.0, "hidden_act": "silu", "tie_word_embeddings": False,
            "torch_dtype": "float16", "bos_token_id": 0, "eos_token_id": 1, "pad_token_id": 2,
        }


BUILTINS = {"tiny-llama": TinyLlamaShape()}


def models_dir() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "kv-budget-harness" / "models"
    return Path(os.environ.get(MODELS_DIR_ENV, default))
