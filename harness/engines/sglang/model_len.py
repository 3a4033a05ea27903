"""The context length SGLang derives from a model config (sglang/srt/utils/hf_transformers/common.py:664, 0.5.22)."""

from __future__ import annotations

from typing import Any

# The first key present wins.
_LEN_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")


def derived_context_len(cfg: dict[str, Any]) -> int:
    rope = cfg.get("rope_scaling")
    factor = 1.0
    if rope:
        factor = rope.get("factor", 1)
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    for key in _LEN_KEYS:
        if cfg.get(key) is not None:
            return int(factor * cfg[key])
    return 2048
