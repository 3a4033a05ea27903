"""`--quantization fp8` on a 16-bit checkpoint: vLLM quantizes the weights as it loads them, so the budget sees
FP8 linear layers, not the checkpoint's 16-bit ones.

vLLM 0.11.0 vllm/model_executor/layers/quantization/fp8.py: Fp8Config.from_config marks a checkpoint without an fp8
`quant_method` as not serialized (:129); get_quant_method gives every LinearBase Fp8LinearMethod (:172-177) and
every FusedMoE Fp8MoEMethod (:178-183), while the embedding and the LM head (VocabParallelEmbedding, not a
LinearBase) stay 16-bit; create_weights allocates the 16-bit weight (:284-297) and process_weights_after_loading
replaces it with `ops.scaled_fp8_quant(layer.weight, scale=None)`: an FP8 weight and one F32 scale per tensor
(:346-349); dynamic activations keep no input scale. That is what an FP8 checkpoint with per-tensor scales and
dynamic activations stores, so the weights are counted with that quantization_config. The same in 0.10.2 and
0.32.0. Below sm89 vLLM runs these weights through Marlin (fp8.py:233-236), repacked to the same bytes.
"""

from __future__ import annotations

from dataclasses import replace

from harness.predict.model import ModelDescription

# the quantization_config an FP8 checkpoint quantized as vLLM does it online would carry
ONLINE_FP8 = {"quant_method": "fp8", "activation_scheme": "dynamic"}


def online_quantized(model: ModelDescription, quantization: str | None, notes: list[str]) -> ModelDescription:
    """The model as vLLM holds it under --quantization: unchanged unless fp8 on a checkpoint not quantized."""
    method = str(quantization or "").lower()
    if not method or model.config.get("quantization_config"):
        return model
    if method != "fp8":
        notes.append(f"weights: --quantization {method} on a 16-bit checkpoint is not modelled: counted 16-bit")
        return model
    why = ("--quantization fp8 quantizes the 16-bit checkpoint as it loads (vLLM fp8.py "
           "process_weights_after_loading): its linear layers counted FP8 with a per-tensor scale")
    # the declared tensors, not the stored ones: the headers hold the 16-bit weights vLLM replaces
    return replace(model, config={**model.config, "quantization_config": dict(ONLINE_FP8)}, stored=None,
                   stored_note=why)
