"""`run`: the sweep end to end. Expand, launch each point, write its row at once.

One failing point never stops the sweep: the engine's failure is data (its row says
engine_error / timeout / crashed). Only bad input (exit 2) or a harness failure
(exit 3) ends a run early, and rows already written stay on disk.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import platform
import shutil
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from harness import __version__
from harness.engines import get_adapter
from harness.engines.base import LaunchContext
from harness.errors import InputError
from harness.gpu import NO_GPU_NOTE, nvml_reader, wait_for_release, wait_until_idle
from harness.launcher import LaunchOutcome, launch
from harness.models import resolve_model
from harness.results.columns import RESULTS_FORMAT_VERSION
from harness.results.rows import RowContext, make_row
from harness.results.writer import ResultsWriter
from harness.scenario import Scenario, load_scenario
from harness.sweep import RunPoint, expand

log = logging.getLogger(__name__)

GPU_MISMATCH_PCT = 5.0


@dataclass
class RunOptions:
    engine_versions: dict[str, str] = field(default_factory=dict)  # override engines.<e>.version
    engines: list[str] | None = None
    points: list[str] | None = None
    out: Path | None = None  # the run folder; default results/<scenario>/<run_id>
    resume: Path | None = None
    stop_after: str | None = None
    timeout_s: float | None = None
    install_missing: bool = False
    wait_for_idle_gpu_s: float = 0.0
    results_root: Path = Path("results")
    keep_work_dirs: bool = False
    executor: Any = None  # SequentialExecutor unless a parallel one is given (issue #9)


@dataclass
class PointResult:
    point: RunPoint
    row: dict
    outcome: LaunchOutcome


@dataclass
class RunResult:
    run_dir: Path
    csv_path: Path
    results: list[PointResult] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)


def new_run_id(now: dt.datetime | None = None) -> str:
    now = now or dt.datetime.now(dt.timezone.utc)
    return now.strftime("%Y%m%dT%H%M%SZ")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def select_points(points: list[RunPoint], engines: list[str] | None, ids: list[str] | None) -> list[RunPoint]:
    if engines:
        known = sorted({p.engine for p in points})
        unknown = [e for e in engines if e not in known]
        if unknown:
            raise InputError(f"--engines: {', '.join(unknown)} not in this scenario (it has {', '.join(known)})")
        points = [p for p in points if p.engine in engines]
    if ids:
        known_ids = {p.point_id for p in points}
        unknown = [i for i in ids if i not in known_ids]
        if unknown:
            raise InputError(f"--points: unknown point id {', '.join(unknown)} (see `python -m harness plan`)")
        points = [p for p in points if p.point_id in ids]
    return points


def _resolve_run_dir(scenario: Scenario, options: RunOptions) -> tuple[Path, str]:
    if options.resume:
        run_dir = Path(options.resume)
        info_path = run_dir / "run.json"
        if not info_path.is_file():
            raise InputError(f"--resume {run_dir}: no run.json there; not a run folder")
        info = json.loads(info_path.read_text())
        if info.get("scenario", {}).get("name") != scenario.name:
            raise InputError(f"--resume {run_dir}: that run is of scenario {info.get('scenario', {}).get('name')!r}, "
                             f"not {scenario.name!r}")
        return run_dir, info["run_id"]
    run_id = new_run_id()
    run_dir = Path(options.out) if options.out else options.results_root / scenario.name / run_id
    if (run_dir / "results.csv").exists() or (run_dir / "run.json").exists():
        raise InputError(f"{run_dir}: a run is already there; pass --resume {run_dir} to complete it, or another --out")
    return run_dir, run_id


def _engine_envs(points: list[RunPoint], scenario: Scenario, install_missing: bool) -> dict:
    from harness.envs import install_env, resolve_env  # engine environments (issue #4)
    from harness.errors import HarnessError

    envs = {}
    for engine in sorted({p.engine for p in points}):
        spec = scenario.engines[engine]
        try:
            envs[engine] = resolve_env(engine, spec.version, python=spec.python)
        except HarnessError:
            if not install_missing or spec.python:
                raise
            envs[engine] = install_env(engine, spec.version)
    return envs


def _machine(gpu_read) -> dict:
    info = {"hostname": socket.gethostname(), "platform": platform.platform(), "processor": platform.processor(),
            "cpu_count": os.cpu_count()}
    if gpu_read is None:
        info["gpu"] = None
        info["gpu_note"] = NO_GPU_NOTE
    else:
        state = gpu_read(0)
        info["gpu"] = {"name": state.name, "total_mib": state.total_mib, "driver_version": state.driver_version}
    return info


def _write_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str))
    tmp.replace(path)


def _predict(point: RunPoint, model_path: str, device_total_mib: float | None, device: str, record) -> dict:
    """The prediction columns; a predictor failure must never cost the measurement."""
    try:
        from harness.predict import load_model_description, predict_point
        from harness.predict.predictor import prediction_error_pct

        description = load_model_description(model_path)
        prediction = predict_point(point, description, device_total_mib, device=device)
    except Exception as exc:  # noqa: BLE001
        log.warning("no prediction for %s: %s", point.point_id, exc)
        return {}
    measured = getattr(record, "kv_tokens", None) if record is not None else None
    error = prediction_error_pct(prediction.kv_tokens, measured)
    return {"predicted_kv_tokens": prediction.kv_tokens,
            "predicted_kv_gib": None if prediction.kv_gib is None else round(prediction.kv_gib, 4),
            "prediction_error_pct": None if error is None else round(error, 3)}


def run_scenario(scenario_path: str | Path, options: RunOptions,
                 on_point_start: Callable[[RunPoint, int, int], Callable[[str], None] | None] | None = None,
                 on_point_end: Callable[[PointResult], None] | None = None) -> RunResult:
    scenario = load_scenario(scenario_path)
    for engine, version in options.engine_versions.items():
        if engine not in scenario.engines:
            raise InputError(f"--engine-version {engine}={version}: no engine {engine!r} in this scenario")
        scenario.engines[engine].version = version
    all_points = expand(scenario)
    points = select_points(all_points, options.engines, options.points)
    executor = options.executor or SequentialExecutor()
    # A parallel executor refuses what it cannot place (a TP point wider than --gpus) before anything is written.
    executor_warnings = executor.check(points) if hasattr(executor, "check") else []
    run_dir, run_id = _resolve_run_dir(scenario, options)
    stop_after = options.stop_after or scenario.run.stop_after
    timeout_s = options.timeout_s or scenario.run.timeout_s

    gpu_read = nvml_reader()
    device = "cuda" if gpu_read else "cpu"
    if scenario.gpu.memory_gib and gpu_read is None:
        # Launching anyway would size KV from host RAM (vLLM-CPU) and call it a GPU result.
        raise InputError(f"{scenario_path}: gpu.memory_gib: the scenario is about a {scenario.gpu.memory_gib:g} GiB GPU, "
                         "but this host has no NVIDIA GPU (NVML unavailable); run it on a GPU host, or set "
                         "gpu: {memory_gib: null} to measure the CPU engines")
    envs = _engine_envs(points, scenario, options.install_missing)
    model_path = resolve_model(scenario.model)
    machine = _machine(gpu_read)

    result = RunResult(run_dir=run_dir, csv_path=run_dir / "results.csv")
    result.warnings.extend(filter(None, (env.version_mismatch() for env in envs.values())))
    card_gib = machine["gpu"]["total_mib"] / 1024 if machine.get("gpu") else None
    if scenario.gpu.memory_gib and card_gib and abs(card_gib - scenario.gpu.memory_gib) / scenario.gpu.memory_gib * 100 > GPU_MISMATCH_PCT:
        result.warnings.append(f"scenario is about a {scenario.gpu.memory_gib:g} GiB card, this one has {card_gib:.1f} GiB: "
                               "numbers are not comparable with the scenario's")
    result.warnings.extend(executor_warnings)
    for warning in result.warnings:
        log.warning(warning)

    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    writer = ResultsWriter(result.csv_path)
    info_path = run_dir / "run.json"
    info = json.loads(info_path.read_text()) if info_path.exists() else {
        "run_id": run_id, "results_format_version": RESULTS_FORMAT_VERSION, "harness_version": __version__,
        "scenario": scenario.model_dump(mode="json"), "scenario_file": str(scenario_path),
        "started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }
    info.update({
        "engines": {e: {"expected_version": scenario.engines[e].version, "engine_version": env.engine_version,
                        "torch_version": env.torch_version, "python": str(env.python)} for e, env in envs.items()},
        "machine": machine, "scenario_gpu_memory_gib": scenario.gpu.memory_gib, "measured_gpu_memory_gib": card_gib,
        "warnings": result.warnings, "stop_after": stop_after, "timeout_s": timeout_s, "finished_at": None,
        "executor": executor.describe() if hasattr(executor, "describe") else {"kind": "sequential"},
    })
    _write_json(info_path, info)

    done = writer.done()
    todo = [p for p in points if (p.point_id, p.repeat) not in done]
    result.skipped = len(points) - len(todo)
    job = PointJob(run_id=run_id, run_dir=run_dir, envs=envs, model_path=model_path, stop_after=stop_after,
                   timeout_s=timeout_s, wait_for_idle_gpu_s=options.wait_for_idle_gpu_s,
                   keep_work_dirs=options.keep_work_dirs, device=device)
    # One writer, in this thread, appends rows in the order they finish.
    for point_result in executor.run(todo, job, on_point_start):
        writer.add(point_result.row)
        result.results.append(point_result)
        if on_point_end:
            on_point_end(point_result)

    if not options.keep_work_dirs:
        shutil.rmtree(run_dir / "work", ignore_errors=True)
    info["finished_at"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    _write_json(info_path, info)
    return result


@dataclass
class PointJob:
    """What every point of a run shares; plain data so an executor can ship it to another process."""

    run_id: str
    run_dir: Path
    envs: dict
    model_path: str
    stop_after: str
    timeout_s: float
    wait_for_idle_gpu_s: float
    keep_work_dirs: bool
    device: str


class SequentialExecutor:
    """One point after another on GPU 0 (or the CPU)."""

    def run(self, points: list[RunPoint], job: PointJob, on_point_start=None) -> Iterator[PointResult]:
        for index, point in enumerate(points):
            on_phase = on_point_start(point, index, len(points)) if on_point_start else None
            yield run_point(point, job, gpus=None, on_phase=on_phase)


def run_point(point: RunPoint, job: PointJob, gpus: list[int] | None = None, on_phase=None,
              extra_env: dict[str, str] | None = None) -> PointResult:
    """Launch one point and build its row. `gpus` are NVML indices this point owns (default [0]);
    `extra_env` (e.g. CUDA_VISIBLE_DEVICES from a parallel executor) goes into the engine's env."""
    adapter = get_adapter(point.engine)
    engine_env = job.envs[point.engine]
    name = f"{point.point_id}-{point.repeat}"
    work_dir = job.run_dir / "work" / name
    log_rel = f"logs/{name}.log"
    started_at = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    ctx = LaunchContext(python=str(engine_env.python), env_vars={**engine_env.env_vars, **(extra_env or {})},
                        model_path=job.model_path, port=free_port(), work_dir=work_dir, shared_cache_dir=None)
    held = gpus if gpus is not None else ([0] if job.device == "cuda" else None)
    row_ctx = RowContext(run_id=job.run_id, engine_version=engine_env.engine_version,
                         torch_version=engine_env.torch_version, device_name=None, device_total_mib=None,
                         driver_version=None, compile_cache="cold", node=socket.gethostname(),
                         gpu_indices=None if held is None else ",".join(map(str, held)))
    gpu_read = nvml_reader() if job.device == "cuda" else None
    baseline = None
    if gpu_read is not None:
        baseline = wait_until_idle(gpu_read, gpus or [0], wait_s=job.wait_for_idle_gpu_s)
        state = next(iter(baseline.values()))
        row_ctx.device_name, row_ctx.device_total_mib = state.name, round(state.total_mib)
        row_ctx.driver_version = state.driver_version
        row_ctx.gpu_busy_before_mib = round(sum(s.used_mib for s in baseline.values()))
    else:
        row_ctx.device_name = f"cpu ({platform.machine()})"

    spec = adapter.launch_spec(point, ctx, job.run_dir / log_rel, job.stop_after, job.timeout_s)
    spec.on_phase = on_phase
    outcome = launch(spec)
    if baseline is not None:
        note = wait_for_release(gpu_read, baseline)
        if note:
            outcome.error_message = "; ".join(filter(None, [outcome.error_message, note]))
    if outcome.survivors:
        outcome.error_message = "; ".join(filter(None, [outcome.error_message,
                                                         "processes survived the stop: " + ", ".join(outcome.survivors)]))
    if not job.keep_work_dirs:
        shutil.rmtree(work_dir, ignore_errors=True)
    prediction = _predict(point, job.model_path, row_ctx.device_total_mib, job.device, outcome.record)
    row = make_row(point, outcome, row_ctx, started_at, log_rel, prediction)
    return PointResult(point=point, row=row, outcome=outcome)
