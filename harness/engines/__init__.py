"""Engine adapters by name. A third engine is one new module plus one entry here."""

from __future__ import annotations

from harness.engines.base import EngineAdapter
from harness.engines.sglang import ADAPTER as _SGLANG
from harness.engines.vllm import ADAPTER as _VLLM

ADAPTERS: dict[str, EngineAdapter] = {a.name: a for a in (_VLLM, _SGLANG)}


def get_adapter(name: str) -> EngineAdapter:
    return ADAPTERS[name]
