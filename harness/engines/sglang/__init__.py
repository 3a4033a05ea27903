"""SGLang: everything the harness knows about it (launch, flags, install recipe, budget formulas)."""

from harness.engines.sglang.engine import SglangEngine

__all__ = ["SglangEngine"]
