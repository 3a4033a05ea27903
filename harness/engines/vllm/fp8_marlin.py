"""FP8 checkpoints on a card without FP8 tensor cores: vLLM runs them through Marlin, weight-only, and holds their
scales expanded to one per output channel and group of 128 inputs, in the model's dtype.

Below compute capability 8.9 (A100 8.0, RTX 3090 / A6000 8.6) vLLM's Fp8LinearMethod takes the Marlin kernel
(0.11.0 vllm/model_executor/layers/quantization/fp8.py:234-235 `use_marlin = not has_device_capability(89) or
VLLM_TEST_FORCE_FP8_MARLIN`; 0.19.1 and 0.32.0 select MarlinFP8ScaledMMLinearKernel, the only FP8 kernel left below
sm89: 0.19.1 model_executor/kernels/linear/scaled_mm/marlin.py:36-57), and an FP8 MoE layer the MARLIN experts backend
(0.19.1 model_executor/layers/fused_moe/oracle/fp8.py:209-400, the others need sm89; "Using MARLIN Fp8 MoE backend"
in an A100's 0.19.1 log). Loading then repacks each FP8 weight to Marlin's layout, the same bytes, and replaces its
scales (0.19.1 layers/quantization/utils/marlin_utils_fp8.py:137-193 prepare_fp8_layer_for_marlin, :265-317
prepare_fp8_moe_layer_for_marlin; 0.11.0 :78-160 and :167-275; 0.32.0 :103-225 and :228-330):

- block scales (ceil(out/bn) x ceil(in/bk), float32) are repeated over the bn rows of their block, so the layer holds
  ceil(in/bk) x out of them, cast to `orig_dtype` (the model's dtype): `scales.repeat_interleave(block_n, ...)`;
- a per-tensor or per-channel scale becomes one per output channel (1 x out) in the model's dtype.

For a 128x128-block checkpoint that is out x in / 128 x 2 bytes a layer, 1/64 of its FP8 weight: 0.43 GiB on
Qwen3-30B-A3B's 29.1 GiB (an A100's 0.19.1 log loads 29.54 GiB where the stored tensors are 29.10).
"""

from __future__ import annotations

import math

from harness.predict.model import ModelDescription
from harness.predict.rank_split import rank_groups
from harness.predict.stored_weights import StoredTensor

FP8_NATIVE_CAPABILITY = 8.9  # the first capability with FP8 tensor cores (Ada); Marlin below it
_FP8 = "F8_E4M3"
_SCALES = (".weight_scale_inv", ".weight_scale")


def runs_marlin(capability: float | None, env: dict[str, str]) -> bool | None:
    """Whether vLLM runs FP8 weights through Marlin on this card: True below 8.9 or with VLLM_TEST_FORCE_FP8_MARLIN
    set, False at 8.9 and up, None when the card's capability is not given."""
    if env.get("VLLM_TEST_FORCE_FP8_MARLIN", "").strip().lower() in ("1", "true"):
        return True
    if capability is None:
        return None
    return capability < FP8_NATIVE_CAPABILITY


def fp8_checkpoint(model: ModelDescription) -> bool:
    """An FP8 checkpoint vLLM loads with its fp8 method (quant_method "fp8", vLLM's own config or one made online)."""
    quant = model.config.get("quantization_config")
    return isinstance(quant, dict) and str(quant.get("quant_method") or "").lower() == "fp8"


def marlin_scale_growth_bytes(model: ModelDescription, tp: int, dtype_bytes: int) -> int:
    """What one rank holds beyond the stored scales once Marlin has expanded them (bytes, >= 0): per FP8 weight of
    out x in, out x ceil(in/bk) scales (one per output channel, bk = the block's input size; 1 without blocks) in
    the model's dtype, less the scales as stored. Split across ranks as the weight is (rank_split)."""
    tensors = model.stored.tensors if model.stored is not None else model.declared.weights.tensors
    by_name = {t.name: t for t in tensors}
    quant = model.config.get("quantization_config") or {}
    block = quant.get("weight_block_size")
    growth: list[StoredTensor] = []
    for t in tensors:
        if t.dtype != _FP8 or not t.name.endswith(".weight") or len(t.shape) < 2:
            continue
        out, inp = t.shape[-2], t.shape[-1]
        copies = t.nbytes // max(1, out * inp)  # experts a declared tensor stands for (1 per stored tensor)
        stem = t.name[: -len(".weight")]
        stored = next((by_name[stem + s] for s in _SCALES if stem + s in by_name), None)
        groups = -(-inp // int(block[1])) if block else 1
        expanded = copies * out * groups * dtype_bytes
        delta = expanded - (stored.nbytes if stored is not None else 0)
        if delta > 0:
            growth.append(StoredTensor(stem + ".weight_scale", "BF16", (out, groups), delta))
    replicated, kv, sharded = rank_groups(growth)
    kv_share = model.kv_heads_per_rank(tp) / max(1, model.num_kv_heads)
    return (sum(t.nbytes for t in replicated) + math.ceil(sum(t.nbytes for t in kv) * kv_share)
            + math.ceil(sum(t.nbytes for t in sharded) / max(1, tp)))
