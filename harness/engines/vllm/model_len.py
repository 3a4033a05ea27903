"""The max_model_len vLLM derives from a model config (vllm/config/model.py _get_and_verify_max_len, 0.32.0)."""

from __future__ import annotations

from typing import Any

# model_arch_config derived-length keys; the smallest one present wins.
_LEN_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
# vllm/config/model.py:2595 - rope types whose factor is already folded into max_position_embeddings
_UNSCALED_ROPE = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")


def derived_max_model_len(cfg: dict[str, Any]) -> int:
    present = [int(cfg[k]) for k in _LEN_KEYS if cfg.get(k) is not None]
    derived = min(present) if present else 2048
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(rope, dict) and "gemma3" not in str(cfg.get("model_type", "")):
        rope_type = rope.get("rope_type", rope.get("type", "default"))
        if rope_type not in _UNSCALED_ROPE and rope.get("factor") is not None:
            derived = int(derived * float(rope["factor"]))
    return derived
