"""Engines by name: the `Engine` base class and the registry (one package per engine beside this)."""

from harness.engines.registry import ENGINES, engine_names, get_engine

__all__ = ["ENGINES", "engine_names", "get_engine"]
