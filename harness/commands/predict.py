"""`predict SCENARIO`: what each engine's documented formulas say every point will allocate.

No GPU and no engine needed. `--calibrate-from results.csv` first fits the estimated
terms (activation / other memory) from measured rows, then predicts the points that have
no measurement yet.
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from harness.analysis.calibrate import GroupFit, choose_fit, fit_calibrations
from harness.commands.common_args import add_json, warn_releases
from harness.commands.console import output_console
from harness.engines import engine_names, get_engine
from harness.engines.predicting import predict_point
from harness.errors import InputError
from harness.execute.host import cpu_flags, read_host_memory
from harness.formatting import fixed
from harness.predict import Prediction, load_model_description
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from harness.scenario.point import knob_label

log = logging.getLogger(__name__)


@dataclass
class PredictReport:
    predictions: list[Prediction]
    fits: list[GroupFit] = field(default_factory=list)
    measured_points: set[str] = field(default_factory=set)

    def to_json(self) -> Any:
        if not self.fits:
            return [p.to_json() for p in self.predictions]
        return {
            "calibrations": [
                {"engine": f.engine, "engine_version": f.engine_version, "model": f.model,
                 "device_total_mib": f.device_total_mib, "other_gib": round(f.calibration.other_gib, 4),
                 "per_axis_gib": f.calibration.per_axis_gib,
                 "axis": get_engine(f.engine).require("formulas", "predict").calibration_axis,
                 "rows": [{"point_id": r.point_id, "repeat": r.repeat, "measured_kv_gib": round(r.measured_kv_gib, 4),
                           "measured_kv_tokens": r.measured_kv_tokens, "calibrated_kv_tokens": r.calibrated_kv_tokens,
                           "residual_gib": None if r.residual_gib is None else round(r.residual_gib, 4),
                           "error_pct": None if r.error_pct is None else round(r.error_pct, 3)} for r in f.rows]}
                for f in self.fits
            ],
            "predictions": [p.to_json() for p in self.predictions],
        }


def _card_mib(scenario, gpu_memory_mib: float | None) -> float | None:
    if gpu_memory_mib is not None:
        if gpu_memory_mib <= 0:
            raise InputError(f"--gpu-memory-mib must be positive, got {gpu_memory_mib:g}")
        return float(gpu_memory_mib)
    gib = scenario.gpu.memory_gib
    return None if gib is None else gib * 1024


def _free_mib(gpu_free_mib: float | None, card: float | None) -> float | None:
    if gpu_free_mib is None:
        return None
    if gpu_free_mib <= 0:
        raise InputError(f"--gpu-free-mib must be positive, got {gpu_free_mib:g}")
    if card is not None and gpu_free_mib > card:
        raise InputError(f"--gpu-free-mib {gpu_free_mib:g} is more than the device's {card:g} MiB")
    return float(gpu_free_mib)


def _device_for(point, card: float | None, free: float | None, device: str) -> tuple[float | None, float | None]:
    """(total, free) MiB for a point: the given card; on a CPU without one, this host's memory as the
    point's engine release reads it (what a run here would record)."""
    if card is not None or device != "cpu":
        return card, free

    formulas = get_engine(point.engine).require("formulas", "predict")
    memory = formulas.cpu_memory(read_host_memory(point.env), point.engine_version)
    if memory is None:
        return None, None
    return memory.total_mib, memory.free_mib if free is None else free


def _predict_here(point, model, card: float | None, free: float | None, device: str, tp: int | None,
                  capability: float | None = None, name: str | None = None):
    total, free = _device_for(point, card, free, device)
    return predict_point(point, model, total, tp=tp, device=device, gpu_free_mib=free, gpu_capability=capability,
                         gpu_name=name, cpu_flags=cpu_flags() if device == "cpu" else None)


def predict_scenario(scenario_path: str, gpu_memory_mib: float | None = None, tp: int | None = None,
                     device: str | None = None, calibrate_from: str | None = None,
                     gpu_free_mib: float | None = None, gpu_capability: float | None = None,
                     gpu_name: str | None = None) -> PredictReport:
    """One prediction per point (repeats collapse: the formulas give them the same numbers)."""
    if tp is not None and tp < 1:
        raise InputError(f"--tp must be a positive integer, got {tp}")
    scenario = load_scenario(scenario_path)
    warn_releases(scenario_path, scenario, predicting=True)
    card = _card_mib(scenario, gpu_memory_mib)
    free = _free_mib(gpu_free_mib, card)
    if gpu_capability is not None and gpu_capability <= 0:
        raise InputError(f"--gpu-capability must be positive (e.g. 8.0 for an A100), got {gpu_capability:g}")
    capability = gpu_capability if gpu_capability is not None else scenario.gpu.compute_capability
    name = gpu_name or scenario.gpu.name
    # A scenario about no card is a CPU run: the host's memory, read per engine release, is the device.
    device = device or ("cuda" if card is not None else "cpu")
    # the weights from the checkpoint's safetensors headers: local, else fetched from the hub (headers only)
    model = load_model_description(scenario.model, fetch_headers=True)
    points = [p for p in expand(scenario) if p.repeat == 0]
    if calibrate_from is None:
        return PredictReport([_predict_here(p, model, card, free, device, tp, capability, name) for p in points])

    results = read_results(calibrate_from)
    fits = fit_calibrations(points, results, model, tp=tp)
    measured = {r.point_id for f in fits for r in f.rows}
    predictions = []
    for point in points:
        if point.point_id in measured:
            continue
        fit = choose_fit(fits, point.engine, point.engine_version, card)
        if fit is None:
            log.warning("no calibration for %s %s: formulas' own estimates used", point.engine, point.point_id)
            predictions.append(_predict_here(point, model, card, free, device, tp, capability, name))
        else:
            # The fit holds on the device it was measured on, so predict on that device.
            predictions.append(predict_point(point, model, fit.device_total_mib, tp=tp, device=device,
                                             calibration=fit.calibration, gpu_free_mib=fit.device_free_mib,
                                             free_at_load=fit.device_free_at_load, gpu_capability=capability,
                                             gpu_name=name, cpu_flags=cpu_flags() if device == "cpu" else None))
    return PredictReport(predictions, fits, measured)


def _fmt(value: Any, digits: int = 2) -> str:
    return fixed(value, digits)


def render(report: PredictReport, console: Console) -> None:
    for fit in report.fits:
        console.print(f"[bold]fitted[/] {fit.describe()}")
        table = Table(title="residual on the fitted rows", show_lines=False)
        axis = get_engine(fit.engine).require("formulas", "predict").calibration_axis or "fit axis"
        for column in ("point_id", "repeat", axis, "measured GiB", "measured tokens",
                       "calibrated tokens", "residual MiB", "error %"):
            table.add_column(column, justify="right")
        for r in fit.rows:
            table.add_row(r.point_id, str(r.repeat), _fmt(r.axis_value), _fmt(r.measured_kv_gib, 3),
                          _fmt(r.measured_kv_tokens), _fmt(r.calibrated_kv_tokens),
                          _fmt(None if r.residual_gib is None else r.residual_gib * 1024, 1), _fmt(r.error_pct, 2))
        console.print(table)
    if report.fits and not report.predictions:
        console.print("every point has a measurement; nothing left to predict")
        return
    for engine in engine_names():
        # One table per release: on a release axis the same points appear once per release.
        every = [p for p in report.predictions if p.engine == engine]
        for version in dict.fromkeys(p.engine_version for p in every):
            rows = [p for p in every if p.engine_version == version]
            if not rows:
                continue
            eng = get_engine(engine)
            unmodelled = sorted({p.reason for p in rows if not p.modelled})
            for line in unmodelled:
                console.print(line, soft_wrap=True)  # one line each, however wide: the terminal wraps it
            rows = [p for p in rows if p.modelled]
            if not rows:
                continue
            first = rows[0]
            release = f" {first.engine_version}" if first.engine_version else ""
            title = (f"{engine}{release}: {_card(first)}, tp={first.tp}, weights {_fmt(first.weights_gib)} GiB/rank, "
                     f"{_fmt(first.kv_bytes_per_token)} B KV per token")
            table = Table(title=title, show_lines=False)
            formulas = eng.require("formulas", "predict")
            settings_cols, result_cols = formulas.settings_columns, formulas.result_columns
            columns = ["point_id", "knobs", *(c.header for c in settings_cols),
                       "KV GiB ≤", "tokens ≤", "KV GiB est", "tokens est", *(c.header for c in result_cols),
                       "starts", "why not"]
            for column in columns:
                table.add_column(column, overflow="fold", justify="left" if column in ("knobs", "why not") else "right")
            for p in rows:
                knobs = knob_label(p.args, sep=", ", empty="-")
                cells = [p.point_id or "-", knobs, *(_fmt(getattr(p, c.attr), c.digits) for c in settings_cols),
                         _fmt(p.kv_gib_upper_bound), _fmt(p.kv_tokens_upper_bound), _fmt(p.kv_gib), _fmt(p.kv_tokens),
                         *(_fmt(getattr(p, c.attr), c.digits) for c in result_cols),
                         _fmt(p.will_start), "" if p.will_start else p.reason]
                table.add_row(*cells)
            console.print(table)
            if first.weights_source:
                console.print(f"  weights: {first.weights_source}", soft_wrap=True)
            # the weights' basis, and what kv_tokens means where several KV cache groups share the pool
            shown = ("weights:", "KV cache groups:")
            for note in dict.fromkeys(n for p in rows for n in p.notes if n.startswith(shown)):
                console.print(f"  {note}", soft_wrap=True)
            if first.estimates:
                console.print("  est = ≤ minus " + "; ".join(
                    f"{name} {e.gib:.3f} GiB ({e.basis})" for name, e in first.estimates.items()) + " [first point]")
    console.print("≤ : exact terms only (budget minus weights, whole blocks/cells); "
                  "--json has every field, the estimates and notes")


def _card(p: Prediction) -> str:
    if p.gpu_total_mib is None:
        return f"{p.device}, no device size"
    return f"{p.device} {p.gpu_total_mib:.0f} MiB"


def _run(args: argparse.Namespace) -> int:
    report = predict_scenario(args.scenario, gpu_memory_mib=args.gpu_memory_mib, tp=args.tp, device=args.device,
                              calibrate_from=args.calibrate_from, gpu_free_mib=args.gpu_free_mib,
                              gpu_capability=args.gpu_capability, gpu_name=args.gpu_name)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        render(report, output_console())
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "predict", help="the engines' KV budget formulas for every point (no GPU needed)",
        description="Predict, per sweep point, what vLLM and SGLang will allocate for the KV cache, whether "
                    "they will start, and why - from the engines' documented formulas and the model's "
                    "config.json (a local dir, the Hugging Face cache, or a bundled card).",
        epilog="examples:\n"
               "  python -m harness predict scenarios/24g_8b.yaml\n"
               "  python -m harness predict scenarios/24g_8b.yaml --gpu-memory-mib 81559 --tp 2 --json\n"
               "  python -m harness predict scenarios/24g_8b.yaml --calibrate-from results/24g_8b/RUN/results.csv",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", help="scenario YAML file")
    parser.add_argument("--gpu-memory-mib", type=float, default=None,
                        help="device total memory in MiB (overrides the scenario's gpu.memory_gib)")
    parser.add_argument("--gpu-free-mib", type=float, default=None,
                        help="device memory free before the engine loads, in MiB (an engine that sizes its pool "
                             "from it, rather than from the total, uses it; the total still sets default fractions)")
    parser.add_argument("--gpu-capability", type=float, default=None, metavar="X.Y",
                        help="the card's CUDA compute capability, e.g. 8.0 for an A100 (overrides the scenario's "
                             "gpu.compute_capability): vLLM runs FP8 checkpoints through Marlin below 8.9")
    parser.add_argument("--gpu-name", default=None, metavar="NAME",
                        help="the card's name as torch reports it, e.g. 'NVIDIA A100-SXM4-80GB' (overrides the "
                             "scenario's gpu.name): vLLM keeps an A100's batch defaults below its memory's tier")
    parser.add_argument("--tp", type=int, default=None, help="tensor-parallel size (overrides the points' own)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default=None,
                        help="platform formulas to use (default: cuda when a card size is known, else cpu)")
    add_json(parser)
    parser.add_argument("--calibrate-from", metavar="RESULTS_CSV", default=None,
                        help="fit the estimated terms from measured rows, then predict the remaining points")
    parser.set_defaults(func=_run)
