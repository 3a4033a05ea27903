"""A point's prediction by its engine's budget formulas: the registry's dispatch for `predict`.

`predict(...)` is the pure core (engine name + settings + model + card); `predict_point(...)` reads a
scenario's point (anything with its engine, settings, env, ids and release).
"""

from __future__ import annotations

from typing import Any, Protocol

from harness.engines.knobs import KnobError
from harness.engines.registry import get_engine
from harness.engines.settings import Settings
from harness.errors import InputError
from harness.predict.model import ModelDescription
from harness.predict.prediction import Calibration, Prediction


class PointLike(Protocol):
    """What a prediction reads of a scenario's point (harness.scenario.point.Point)."""

    engine: str
    engine_version: str | None
    point_id: str
    settings: Settings
    env: dict[str, str]
    knobs: dict[str, Any]


def predict(engine: str, args: dict[str, Any] | Settings, model: ModelDescription, gpu_total_mib: float | None,
            tp: int | None = None, device: str = "cuda", env: dict[str, str] | None = None,
            point_id: str | None = None, knobs: dict[str, Any] | None = None,
            calibration: Calibration | None = None, engine_version: str | None = None,
            gpu_free_mib: float | None = None, free_at_load: bool = False,
            gpu_capability: float | None = None, gpu_name: str | None = None,
            cpu_flags: frozenset[str] | None = None) -> Prediction:
    """The engine's budget formulas for these settings (raw scenario values are typed here once)."""
    eng = get_engine(engine)
    try:
        settings = args if isinstance(args, Settings) else Settings.parse(dict(args or {}), eng.knobs)
    except KnobError as exc:
        raise InputError(str(exc)) from None
    # An engine's own device flag decides its platform (SGLang's memory_hook reads cfg.device).
    device = str(settings.get("device") or device)
    tp_eff = int(tp) if tp is not None else eng.launch.tp_size(settings.raw)
    kind = eng.formulas.prediction_type if eng.formulas is not None else Prediction
    p = kind(engine=engine, point_id=point_id, args=dict(knobs if knobs is not None else settings.raw),
                   device=device, gpu_total_mib=gpu_total_mib, tp=tp_eff, engine_version=engine_version,
                   gpu_free_mib=gpu_free_mib, free_at_load=free_at_load, gpu_capability=gpu_capability,
                   gpu_name=gpu_name, cpu_flags=cpu_flags)
    unmodelled = (eng.predictor_note(engine_version, device)
                  or eng.formulas.unmodelled_kind_note(model, engine_version, device))
    if unmodelled:
        p.modelled, p.reason = False, unmodelled
        return p
    env = {k: str(v) for k, v in (env or {}).items()}
    p = eng.formulas.predict(p, settings, env, model, calibration)
    if p.weights_gib is not None and not p.weights_source:  # an engine may have said it (what it holds)
        p.weights_source = model.weights_source(p.tp, settings.get("dtype"))
        p.notes.extend(model.weights_notes())
    return p


def predict_point(point: PointLike, model: ModelDescription, gpu_total_mib: float | None, tp: int | None = None,
                  device: str = "cuda", calibration: Calibration | None = None,
                  gpu_free_mib: float | None = None, free_at_load: bool = False,
                  gpu_capability: float | None = None, gpu_name: str | None = None,
                  cpu_flags: frozenset[str] | None = None) -> Prediction:
    """Prediction for one sweep point."""
    return predict(point.engine, point.settings, model, gpu_total_mib, tp=tp, device=device, env=point.env,
                   point_id=point.point_id, knobs=point.knobs, calibration=calibration,
                   engine_version=point.engine_version, gpu_free_mib=gpu_free_mib, free_at_load=free_at_load,
                   gpu_capability=gpu_capability, gpu_name=gpu_name, cpu_flags=cpu_flags)
