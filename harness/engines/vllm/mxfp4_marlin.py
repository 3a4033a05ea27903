"""MXFP4 experts (gpt-oss) on vLLM's Marlin MoE backend: the experts held in padded shapes.

Which backend an MXFP4 MoE layer takes (get_mxfp4_backend: 0.11.0 vllm/model_executor/layers/quantization/
mxfp4.py:60-105, 0.13.0 :100-170, 0.19.1 layers/fused_moe/oracle/mxfp4.py:180-225): on a CUDA card below compute
capability 9.0 there is no other (the Triton kernels need sm90-sm100, FlashInfer's sm90/sm100 paths are opt-in or
Blackwell-only), and on sm90 Marlin too unless the `triton_kernels` package is installed (and torch >= 2.8), which
vLLM's PyPI wheel does not install ("Using Marlin backend" in 0.11.2 logs of a non-A100 80 GB card);
VLLM_MXFP4_USE_MARLIN=1 forces it (0.13.0 mxfp4.py:160). On Blackwell FlashInfer's backends pad otherwise: not
modelled.

For Marlin, create_weights pads each rank's expert width to a multiple of 128 and the hidden size to a multiple of 256
("the moe marlin kernel requires that for each linear n % 256 == 0 and k % 128 == 0": 0.11.0 mxfp4.py:187-200,
0.13.0 :279-293, 0.19.1 oracle/mxfp4.py:376-385) and allocates the experts at those sizes: w13 (E, 2 x I, K / 2) and
w2 (E, K, I / 2) of packed FP4, their E8M0 scales one per 32 inputs, the bf16 biases (E, 2 x I) and (E, K) (0.11.0
mxfp4.py:228-300). prepare_moe_fp4_layer_for_marlin repacks them to the same bytes and keeps the scales E8M0
(0.11.0 layers/quantization/utils/marlin_utils_fp4.py:195-297, :59-69). gpt-oss-120b: I 2880 -> 2944, K 2880 ->
3072, 5.13 GiB more than its 60.8 GiB of stored tensors (a 0.11.2 log loads 65.97 GiB on one card).
"""

from __future__ import annotations

from harness.predict.config_weights import routed_experts
from harness.predict.model import ModelDescription

TRITON_MIN_CAPABILITY = 9.0  # below it Marlin is the only MXFP4 MoE backend on CUDA
BLACKWELL_CAPABILITY = 10.0  # FlashInfer's MXFP4 backends from here: not modelled
MXFP4_BLOCK = 32
_BIAS_BYTES = 2  # bf16


def mxfp4_checkpoint(model: ModelDescription) -> bool:
    quant = model.config.get("quantization_config")
    return isinstance(quant, dict) and str(quant.get("quant_method") or "").lower() == "mxfp4"


def runs_marlin(capability: float | None, env: dict[str, str]) -> tuple[bool | None, str]:
    """Whether vLLM holds the MXFP4 experts for Marlin on this card, and why (None: not known)."""
    if env.get("VLLM_MXFP4_USE_MARLIN", "").strip().lower() in ("1", "true"):
        return True, "VLLM_MXFP4_USE_MARLIN"
    if capability is None:
        return None, "the card's capability is not given"
    if capability < TRITON_MIN_CAPABILITY:
        return True, f"compute capability {capability:g}: Marlin is the only MXFP4 MoE backend below 9.0"
    if capability < BLACKWELL_CAPABILITY:
        return True, (f"compute capability {capability:g} without the triton_kernels package, which vLLM's PyPI "
                      "wheel does not install (with it, vLLM's Docker image, the Triton backend keeps the "
                      "checkpoint's shapes)")
    return None, f"compute capability {capability:g}: FlashInfer's MXFP4 backends, not modelled"


def _round_up(x: int, multiple: int) -> int:
    return -(-x // multiple) * multiple


def _experts_bytes(experts: int, inter: int, hidden: int) -> int:
    """One MoE layer's w13 and w2 with their scales and biases at expert width `inter` and hidden size `hidden`."""
    w13, w2 = 2 * inter * hidden, hidden * inter  # elements
    return experts * ((w13 + w2) // 2 + (w13 + w2) // MXFP4_BLOCK + (2 * inter + hidden) * _BIAS_BYTES)


def padded_dims(model: ModelDescription, tp: int) -> tuple[int, int] | None:
    """(expert width a rank holds, hidden size) as Marlin pads them; None for a model without routed experts. The
    MoE layer's forward runs at these sizes too: FusedMoE pads the hidden states to the layer's padded hidden size
    before the experts (0.11.2 vllm/model_executor/layers/fused_moe/layer.py:1480-1487, 0.13.0 :1701-1707, 0.19.1
    fused_moe/runner/default_moe_runner.py:457-467; only FlashInfer's TRT-LLM MXFP8 backend skips it, 0.19.1
    quantization/mxfp4.py:115-119), and fused_marlin_moe sizes its caches from the padded weights (0.11.2
    fused_moe/fused_marlin_moe.py:84-107)."""
    moe = routed_experts(model.config)
    if moe is None:
        return None
    return _round_up(max(1, moe.intermediate // max(1, tp)), 128), _round_up(model.hidden_size, 256)


def padded_growth_bytes(model: ModelDescription, tp: int) -> int:
    """What one rank holds beyond its stored MXFP4 experts once Marlin's padding is applied (bytes, >= 0)."""
    moe = routed_experts(model.config)
    if moe is None:
        return 0
    inter, hidden = max(1, moe.intermediate // max(1, tp)), model.hidden_size
    padded = _experts_bytes(moe.experts, _round_up(inter, 128), _round_up(hidden, 256))
    return moe.moe_layers * max(0, padded - _experts_bytes(moe.experts, inter, hidden))
