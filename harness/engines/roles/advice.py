"""The advise role: which knob sizes the pool, which batch knob competes with it, and how far advise may go."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AdviceKnobs:
    """What `advise` may turn for an engine.

    `fraction_knob` sizes the pool (a fraction of the device); `batch_knob` is the knob whose activation
    reserve competes with it, tried at `batch_steps`; `fraction_ceiling` the highest fraction proposed
    without a headroom given; `default_fraction_is_safe`: the engine's own default fraction keeps back what
    its activations need, so advise never proposes above it; `kv_shortfall_errors` the startup errors that
    mean "too little KV" (raise the fraction; any other failure means the setting asked for too much).
    """

    fraction_knob: str
    batch_knob: str | None = None
    batch_steps: tuple[int, ...] = ()
    fraction_ceiling: float = 0.98
    default_fraction_is_safe: bool = False
    kv_shortfall_errors: frozenset[str] = frozenset()
