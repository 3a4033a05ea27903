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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness import __version__
from harness.atomic import write_json
from harness.clock import utc_now, utc_now_iso
from harness.errors import InputError
from harness.execute.executors.protocol import Executor
from harness.execute.executors.sequential import SequentialExecutor
from harness.execute.gpu import NO_GPU_NOTE, nvml_reader
from harness.execute.models import resolve_model
from harness.execute.point_run import PointJob, PointResult
from harness.results.columns import RESULTS_FORMAT_VERSION
from harness.results.writer import ResultsWriter
from harness.scenario import Point, Scenario, expand, load_scenario

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
    executor: Executor | None = None  # SequentialExecutor unless a parallel one is given


@dataclass
class RunResult:
    run_dir: Path
    csv_path: Path
    results: list[PointResult] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)


def new_run_id(now: dt.datetime | None = None) -> str:
    now = now or utc_now()
    return now.strftime("%Y%m%dT%H%M%SZ")


def select_points(points: list[Point], engines: list[str] | None, ids: list[str] | None) -> list[Point]:
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


def _engine_envs(points: list[Point], scenario: Scenario, install_missing: bool) -> dict:
    from harness.envs import install_env, resolve_env
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


def run_scenario(scenario_path: str | Path, options: RunOptions,
                 on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None = None,
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
    executor_warnings = executor.check(points)
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
        "started_at": utc_now_iso(),
    }
    info.update({
        "engines": {e: {"expected_version": scenario.engines[e].version, "engine_version": env.engine_version,
                        "torch_version": env.torch_version, "python": str(env.python)} for e, env in envs.items()},
        "machine": machine, "scenario_gpu_memory_gib": scenario.gpu.memory_gib, "measured_gpu_memory_gib": card_gib,
        "warnings": result.warnings, "stop_after": stop_after, "timeout_s": timeout_s, "finished_at": None,
        "executor": executor.describe(),
    })
    write_json(info_path, info)

    done = writer.done()
    todo = [p for p in points if (p.point_id, p.repeat) not in done]
    result.skipped = len(points) - len(todo)
    job = PointJob(run_id=run_id, run_dir=run_dir, envs=envs, model_path=model_path, stop_after=stop_after,
                   timeout_s=timeout_s, wait_for_idle_gpu_s=options.wait_for_idle_gpu_s,
                   keep_work_dirs=options.keep_work_dirs, device=device, compile_cache=scenario.run.compile_cache)
    # One writer, in this thread, appends rows in the order they finish.
    for point_result in executor.run(todo, job, on_point_start):
        writer.add(point_result.row)
        result.results.append(point_result)
        if on_point_end:
            on_point_end(point_result)

    if not options.keep_work_dirs:
        shutil.rmtree(run_dir / "work", ignore_errors=True)
    info["finished_at"] = utc_now_iso()
    write_json(info_path, info)
    return result


