"""One point run end to end: GPU protocol, launch, prediction; what it produced (`run_point`).

A point's stages, in order: read the device before the launch (waiting for an idle GPU, or for host
memory to settle), launch the engine, wait for its memory to come back, find the memory the engine
sized from, predict from that same reading. Each stage is one function below; the row is made from
the returned PointResult at the CSV edge (harness/results/rows.py), never here.
"""

from __future__ import annotations

import logging
import math
import os
import platform
import random
import shutil
import socket
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from harness.childproc import child_environ
from harness.clock import utc_now_iso
from harness.engines import get_engine
from harness.engines.base import Engine
from harness.engines.predicting import predict_point
from harness.envs import default_cache_dir
from harness.execute.cuda_reading import engine_gpu_total_mib
from harness.execute.engine_process import LaunchContext, launch_spec
from harness.execute.gpu import (
    BUSY_THRESHOLD_MIB,
    GpuBusyError,
    GpuState,
    Reader,
    nvml_reader,
    visible_gpu_count,
    wait_for_release,
    wait_until_idle,
)
from harness.execute.host import (
    cpu_flags,
    host_wait_limit_s,
    read_host_memory,
    settled_host_memory,
    wait_for_host_release,
)
from harness.execute.launcher import LaunchOutcome, launch
from harness.execute.probe.attach import MemoryReader, point_prober
from harness.predict import Prediction, load_model_description
from harness.predict.host import DeviceMemory, HostMemory
from harness.results.rows import DeviceReading, EngineBuild, PointResult, PredictedKv, Timings
from harness.scenario.point import Point
from harness.scenario.schema import ProbeSpec
from parsers.record import StartupRecord

log = logging.getLogger(__name__)

GROUPS_DIR = "procs"  # in the run folder: one file per engine process group running now

Predictor = Callable[[DeviceMemory | None], Prediction | None]


@dataclass(frozen=True)
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
    compile_cache: str = "cold"  # cold | warm (the scenario's run.compile_cache)
    shared_gpu: bool = False  # launch although other processes hold memory on the card
    probe: ProbeSpec | None = None  # stop_after=probe: what the probe sends


@dataclass(frozen=True)
class _GpuBefore:
    read: Reader
    baseline: dict[int, GpuState]  # NVML's state of each held GPU before the launch: what the release waits for


@dataclass(frozen=True)
class _HostBefore:
    env: dict[str, str]  # the engine's environment: its thread binding decides which NUMA node's memory it reads
    reading: HostMemory  # before the launch: what the release waits for
    memory: DeviceMemory | None  # what this release sizes its pool from (None: not known for it)
    alone: bool  # no other point on the host: wait for its memory to settle, and to come back


@dataclass(frozen=True)
class _Before:
    """The device before the launch, read the way the engine reads it: a GPU's or the host's memory."""

    device: DeviceReading
    gpu: _GpuBefore | None = None
    host: _HostBefore | None = None


def free_port(highest: int = 65535, tries: int = 200) -> int:
    """A free local port no higher than `highest` (the engine's limit; the kernel's ephemeral range
    reaches 60999 on Linux)."""
    for _ in range(tries):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port <= highest:
            return port
    for port in random.sample(range(20000, highest + 1), min(tries, highest + 1 - 20000)):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise OSError(f"no free local port at or below {highest}")


def short_tmp_dir(name: str) -> Path:
    """A fresh per-point TMPDIR with a short path (/tmp when writable): a socket path under it must fit
    in sockaddr_un's 108 bytes whatever the run folder's path is."""
    root = "/tmp" if os.access("/tmp", os.W_OK) else tempfile.gettempdir()
    return Path(tempfile.mkdtemp(prefix=f"kvh-{name[:8]}-", dir=root))


def compile_cache_dir(job: PointJob, engine: str, engine_version: str | None, work_dir: Path) -> tuple[Path, str]:
    """(cache dir, cold|warm): cold = a fresh one per point; warm = one per engine release, kept across
    points and runs, so only its first launch compiles (that one is recorded cold)."""
    if job.compile_cache != "warm":
        return work_dir / "cache", "cold"
    shared = default_cache_dir() / "compile-cache" / f"{engine}-{engine_version or 'unknown'}"
    state = "warm" if shared.is_dir() and any(shared.iterdir()) else "cold"
    shared.mkdir(parents=True, exist_ok=True)
    return shared, state


def _as_launched(point: Point) -> Point:
    """The point with the preload its engine inherits: an LD_PRELOAD in the harness's own environment (vLLM's CPU image
    sets one to tcmalloc) reaches the engine unless the point sets its own (engine_process.process_env), and the CPU
    prediction reads it (formulas.cpu_preloads_tcmalloc)."""
    inherited = child_environ().get("LD_PRELOAD")
    if inherited and "LD_PRELOAD" not in point.env:
        return replace(point, env={**point.env, "LD_PRELOAD": inherited})
    return point


def predictor(point: Point, model_path: str, device: str, gpu_name: str | None = None) -> Predictor:
    """The point's prediction from one memory reading (None: no reading), the model described once; `gpu_name`: the
    card's name as NVML gives it (vLLM's batch defaults keep an A100 below its memory's tier by name).

    A predictor failure must never cost the measurement: it is logged and the prediction is None."""
    description: list = []  # loaded on the first prediction asked for

    def predict(reading: DeviceMemory | None) -> Prediction | None:
        try:
            if not description:
                description.append(load_model_description(model_path))
            return predict_point(_as_launched(point), description[0], reading.total_mib if reading else None,
                                 device=device,
                                 gpu_free_mib=reading.free_mib if reading else None,
                                 free_at_load=reading.free_at_load if reading else False, gpu_name=gpu_name,
                                 cpu_flags=cpu_flags() if device == "cpu" else None)
        except Exception as exc:  # noqa: BLE001
            log.warning("no prediction for %s: %s", point.point_id, exc)
            return None

    return predict


def run_point(point: Point, job: PointJob, gpus: list[int] | None = None, on_phase=None,
              extra_env: dict[str, str] | None = None) -> PointResult:
    """Launch one point; what it produced. `gpus` are NVML indices this point owns (default [0]);
    `extra_env` (e.g. CUDA_VISIBLE_DEVICES from a parallel executor) goes into the engine's env.

    The point's work and temporary folders go when it ends, however it ends (an interrupt, an error
    in the harness), unless the run keeps them (--keep-work-dirs) for a point that launched."""
    work_dir = job.run_dir / "work" / point.name
    tmp_dir = short_tmp_dir(point.name)
    keep = job.keep_work_dirs
    try:
        return _measure(point, job, work_dir, tmp_dir, gpus, on_phase, extra_env)
    except GpuBusyError:
        keep = False  # nothing launched: leave nothing behind
        raise
    finally:
        if keep:
            work_dir.mkdir(parents=True, exist_ok=True)
            (work_dir / "TMPDIR").write_text(f"{tmp_dir}\n")  # where the engine's temporary files were kept
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
            shutil.rmtree(tmp_dir, ignore_errors=True)


def _measure(point: Point, job: PointJob, work_dir: Path, tmp_dir: Path, gpus: list[int] | None, on_phase,
             extra_env: dict[str, str] | None) -> PointResult:
    engine, engine_env = get_engine(point.engine), job.envs[point.engine]
    log_rel = f"logs/{point.name}.log"
    started_at = utc_now_iso()
    cache_dir, cache_state = compile_cache_dir(job, point.engine, engine_env.engine_version, work_dir)
    ctx = LaunchContext(python=str(engine_env.python), env_vars={**engine_env.env_vars, **(extra_env or {})},
                        model_path=job.model_path, port=free_port(engine.launch.highest_port), work_dir=work_dir,
                        cache_dir=cache_dir, tmp_dir=tmp_dir)
    before = _read_before(engine, engine_env.engine_version, point, job, ctx, gpus)
    outcome, at_load = _launch(engine, engine_env.engine_version, point, job, ctx, job.run_dir / log_rel, before,
                               on_phase)
    release_note = _wait_for_release(point, before)
    predict = predictor(point, job.model_path, job.device,
                        gpu_name=before.device.name if before.gpu is not None else None)
    device, sized_from = _sized_from(engine, point, outcome.record, before, at_load, predict)
    held = gpus if gpus is not None else ([0] if job.device == "cuda" else None)
    return PointResult(
        point=point, run_id=job.run_id, status=outcome.status, error_kind=outcome.error_kind,
        error_message=_error_message(outcome, release_note), record=outcome.record,
        timings=Timings(t_kv_s=outcome.t_kv_s, t_ready_s=outcome.t_ready_s, wall_s=outcome.wall_s,
                        engine_s=outcome.engine_s, stop_s=outcome.stop_s),
        started_at=started_at, log_path=log_rel, build=EngineBuild.of(engine_env), compile_cache=cache_state,
        device=device, gpus=None if held is None else tuple(held), node=socket.gethostname(),
        prediction=_predicted_kv(predict(sized_from)), survivors=outcome.survivors, probe=outcome.probe,
    )


def _read_before(engine: Engine, version: str | None, point: Point, job: PointJob, ctx: LaunchContext,
                 gpus: list[int] | None) -> _Before:
    """The device's memory before the launch, as its engine will read it."""
    if job.device == "cpu":
        return _host_before(engine, version, point, ctx, gpus)
    gpu_read = nvml_reader()
    if gpu_read is None:
        return _Before(DeviceReading(name=f"cpu ({platform.machine()})"))
    return _gpu_before(engine, gpu_read, job, ctx, gpus or [0])


def _gpu_before(engine: Engine, gpu_read: Reader, job: PointJob, ctx: LaunchContext, held: list[int]) -> _Before:
    """Wait until the held GPUs are idle (a busy card changes every number), then read them."""
    baseline = wait_until_idle(gpu_read, held, wait_s=job.wait_for_idle_gpu_s,
                               threshold_mib=math.inf if job.shared_gpu else BUSY_THRESHOLD_MIB)
    first = next(iter(baseline.values()))
    # the total the engine itself sizes from (vLLM: CUDA's, SGLang: the host's smallest card), when not NVML's
    engine_total = engine_gpu_total_mib(engine.launch.gpu_total_source, ctx.python, ctx.env_vars, gpu_read, held,
                                        visible_gpu_count())
    device = DeviceReading(name=first.name, total_mib=round(engine_total or first.total_mib),
                           driver_version=first.driver_version,
                           busy_before_mib=round(sum(s.used_mib for s in baseline.values())))
    return _Before(device, gpu=_GpuBefore(gpu_read, baseline))


def _host_before(engine: Engine, version: str | None, point: Point, ctx: LaunchContext,
                 gpus: list[int] | None) -> _Before:
    """The CPU backends size their pool from host memory: read it the engine's way, now, as the GPU
    protocol reads the card's baseline. Alone on the host (the sequential executor passes no GPUs),
    wait for the memory to settle first; beside other points, host memory is theirs too."""
    env = {**ctx.env_vars, **point.env}
    alone = gpus is None
    limit = host_wait_limit_s(os.environ)
    bound = {} if limit is None else {"timeout_s": limit}
    reading = settled_host_memory(env, **bound) if alone else read_host_memory(env)
    host = _HostBefore(env=env, reading=reading, memory=_cpu_memory(engine, reading, version), alone=alone)
    return _Before(DeviceReading(name=f"cpu ({platform.machine()})"), host=host)


def _launch(engine: Engine, version: str | None, point: Point, job: PointJob, ctx: LaunchContext, log_path: Path,
            before: _Before, on_phase) -> tuple[LaunchOutcome, tuple[DeviceMemory, ...]]:
    """(the launch's outcome, the host's memory as the engine began loading, where it was read)."""
    at_load: list[DeviceMemory] = []
    if before.host is not None and before.host.memory is not None:
        on_phase = _reading_at_load(engine, version, before.host.env, at_load, on_phase)
    spec = replace(launch_spec(engine, point, ctx, log_path, job.stop_after, job.timeout_s), on_phase=on_phase,
                   groups_dir=job.run_dir / GROUPS_DIR)
    if job.stop_after == "probe" and job.probe is not None:
        spec = replace(spec, probe=point_prober(engine, job.probe, ctx.port, ctx.model_path, _gpu_memory(before),
                                                log_path))
    return launch(spec), tuple(at_load)


def _gpu_memory(before: _Before) -> MemoryReader | None:
    """The memory the engine holds on its GPUs now (NVML's use above the baseline, summed); None on a CPU."""
    if before.gpu is None:
        return None
    gpu = before.gpu

    def held(pid: int) -> float:
        return sum(max(0.0, gpu.read(i).used_mib - state.used_mib) for i, state in gpu.baseline.items())

    return held


def _reading_at_load(engine: Engine, version: str | None, env: dict[str, str], readings: list[DeviceMemory],
                     on_phase) -> Callable[[str], None]:
    """`on_phase`, reading host memory into `readings` once, as the engine begins loading: that is when
    SGLang reads free memory itself, and a reading then leaves out what the previous point was still
    giving back at launch."""

    def on_phase_reading(phase: str) -> None:
        if phase == "loading" and not readings:
            reading = _cpu_memory(engine, read_host_memory(env), version)
            if reading is not None:
                readings.append(replace(reading, free_at_load=True))
        if on_phase:
            on_phase(phase)

    return on_phase_reading


def _wait_for_release(point: Point, before: _Before) -> str | None:
    """Wait until the engine's memory is back before the next point; a note for the row when a GPU's is not.

    On the CPU only a point alone on the host waits; what does not come back is logged, not recorded:
    the next point's reading shows it."""
    if before.gpu is not None:
        return wait_for_release(before.gpu.read, before.gpu.baseline)
    if before.host is not None and before.host.alone:
        limit = host_wait_limit_s(os.environ)
        bound = {} if limit is None else {"timeout_s": limit}
        note = wait_for_host_release(before.host.reading, before.host.env, **bound)
        if note:
            log.info("%s: %s", point.name, note)
    return None


def _sized_from(engine: Engine, point: Point, record: StartupRecord | None, before: _Before,
                at_load: tuple[DeviceMemory, ...], predict: Predictor) -> tuple[DeviceReading, DeviceMemory | None]:
    """(the row's device reading, the memory the engine sized from): what its log says it read
    (`Engine.memory_read`), the harness's readings standing in where the log is silent."""
    if before.gpu is not None:
        # NVML's free memory before the launch; an engine that logs its own reading (SGLang's free memory
        # before loading, its CUDA contexts already up) sized from that one
        first = next(iter(before.gpu.baseline.values()))
        nvml = DeviceMemory(total_mib=before.device.total_mib, free_mib=first.total_mib - first.used_mib,
                            basis="NVML free memory before the launch")
        read = _memory_read(engine, point, record, [nvml], predict) or nvml
        # the card's total stays the harness's reading: only the free memory is the engine's
        read = replace(read, total_mib=nvml.total_mib)
        return replace(before.device, engine_free_mib=read.free_mib if read.free_at_load else None), read
    host = before.host.memory if before.host is not None else None
    if host is None:
        return before.device, None
    read = _memory_read(engine, point, record, [host, *at_load], predict) or host
    # the row says what the engine sized from, and keeps the free memory before the launch (total - busy); the total
    # to the KiB the host states it in (a whole MiB moved a row's prediction again by a block of 128 tokens)
    device = replace(before.device, total_mib=round(read.total_mib, 3),
                     busy_before_mib=None if host.free_mib is None else round(read.total_mib - host.free_mib),
                     engine_free_mib=read.free_mib if read.free_at_load else None)
    return device, read


def _error_message(outcome: LaunchOutcome, release_note: str | None) -> str | None:
    """The launch's error, and what the stop left behind: memory not given back, surviving processes."""
    survived = "processes survived the stop: " + ", ".join(outcome.survivors) if outcome.survivors else None
    notes = [n for n in (release_note, survived) if n]
    return "; ".join(filter(None, [outcome.error_message, *notes])) if notes else outcome.error_message


def _predicted_kv(prediction: Prediction | None) -> PredictedKv | None:
    return None if prediction is None else PredictedKv(kv_tokens=prediction.kv_tokens, kv_gib=prediction.kv_gib)


def _cpu_memory(engine: Engine, host: HostMemory, version: str | None) -> DeviceMemory | None:
    """The host memory the engine sizes from on the CPU, by its formulas (None: an engine without them)."""
    return engine.formulas.cpu_memory(host, version) if engine.formulas else None


def _memory_read(engine: Engine, point: Point, record: StartupRecord | None, readings: list[DeviceMemory],
                 predict: Predictor) -> DeviceMemory | None:
    """What the engine's log says it sized from (its formulas know how it says it), else None."""
    return engine.formulas.memory_read(point.settings, record, readings, predict) if engine.formulas else None
