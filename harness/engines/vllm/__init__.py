"""vLLM: everything the harness knows about it (launch, flags, install recipe, budget formulas)."""

from harness.engines.vllm.engine import VllmEngine

__all__ = ["VllmEngine"]
