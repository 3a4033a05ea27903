"""The rotary-embedding cos/sin cache vLLM builds with the model: held on every rank from load on, inside the
"Model loading took" figure, so part of what the budget takes before the KV pool.

vLLM 0.10.2 vllm/model_executor/layers/rotary_embedding/base.py:34-37: `_compute_cos_sin_cache()` (positions x
rotary_dim, cos and sin halves side by side), `.to(dtype)` (get_rope's dtype: the model's default dtype,
__init__.py:35-36), registered as a buffer; get_rope keeps one per key (__init__.py:61-62, 189), so the layers of a
model share it. YaRN caches max_position x factor positions from the original length (yarn_scaling_rope.py:62,
deepseek_scaling_rope.py:82, given original_max_position_embeddings by get_rope, __init__.py:146-155, 161-171).
The same code in 0.32.0. On Qwen3-235B-A22B (262,144 positions x 128) it is 64 MiB a rank.
"""

from __future__ import annotations

from typing import Any

from harness.predict.model import DTYPE_BYTES, ModelDescription

_YARN = ("yarn", "deepseek_yarn")


def rope_cache_bytes(model: ModelDescription, dtype: str) -> int:
    """Bytes of the cos/sin cache one rank holds (0 for a model without rotary positions)."""
    cfg = model.config
    if _no_rope(cfg):
        return 0
    rotary_dim = _rotary_dim(model)
    return _positions(cfg, model.max_position_embeddings) * rotary_dim * DTYPE_BYTES[dtype]


def _no_rope(cfg: dict[str, Any]) -> bool:
    # Granite-4's position_embedding_type "nope", Mamba-only stacks (no attention heads to rotate)
    return cfg.get("position_embedding_type") == "nope" or not cfg.get("num_attention_heads")


def _rotary_dim(model: ModelDescription) -> int:
    cfg = model.config
    if cfg.get("kv_lora_rank"):
        return int(cfg.get("qk_rope_head_dim") or 0)  # MLA rotates the rope part only
    return int(model.head_dim * float(cfg.get("partial_rotary_factor") or 1.0))


def _positions(cfg: dict[str, Any], max_position: int | None) -> int:
    scaling = cfg.get("rope_scaling") or {}
    kind = scaling.get("rope_type") or scaling.get("type")
    if kind in _YARN and scaling.get("original_max_position_embeddings"):
        return int(scaling["original_max_position_embeddings"] * float(scaling.get("factor") or 1.0))
    return int(max_position or 2048)
