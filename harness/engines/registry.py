"""Which engines the harness knows: name -> "module:Class", imported on first use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from harness.errors import InputError

if TYPE_CHECKING:
    from harness.engines.base import Engine

ENGINES: dict[str, str] = {
    "vllm": "harness.engines.vllm:VllmEngine",
    "sglang": "harness.engines.sglang:SglangEngine",
}

_loaded: dict[str, Engine] = {}


def engine_names() -> tuple[str, ...]:
    return tuple(ENGINES)


def get_engine(name: str) -> Engine:
    """The engine called `name`; InputError naming the known ones otherwise."""
    if name not in ENGINES:
        raise InputError(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")
    target = ENGINES[name]
    engine = _loaded.get(name)
    if engine is None or getattr(engine, "_registry_target", None) != target:
        module_name, _, class_name = target.partition(":")
        engine = getattr(importlib.import_module(module_name), class_name)()
        engine._registry_target = target
        _loaded[name] = engine
    return engine
