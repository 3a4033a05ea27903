"""One point run end to end: GPU protocol, launch, prediction, and its row (`run_point`)."""

from __future__ import annotations

import logging
import math
import os
import platform
import random
import shutil
import socket
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from harness.clock import utc_now_iso
from harness.engines import get_engine
from harness.envs import default_cache_dir
from harness.execute.engine_process import LaunchContext, launch_spec
from harness.execute.cuda_reading import engine_gpu_total_mib
from harness.execute.gpu import BUSY_THRESHOLD_MIB, GpuBusyError, nvml_reader, visible_gpu_count, wait_for_release, wait_until_idle
from harness.execute.host import read_host_memory, settled_host_memory, wait_for_host_release
from harness.execute.launcher import LaunchOutcome, launch
from harness.predict.host import DeviceMemory, HostMemory
from harness.results.rows import RowContext, make_row
from harness.scenario.point import Point

log = logging.getLogger(__name__)

GROUPS_DIR = "procs"  # in the run folder: one file per engine process group running now


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
    compile_cache: str = "cold"  # cold | warm (the scenario's run.compile_cache)
    shared_gpu: bool = False  # launch although other processes hold memory on the card


@dataclass
class PointResult:
    point: Point
    row: dict
    outcome: LaunchOutcome


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


def compile_cache_dir(job: "PointJob", engine: str, engine_version: str | None, work_dir: Path) -> tuple[Path, str]:
    """(cache dir, cold|warm): cold = a fresh one per point; warm = one per engine release, kept across
    points and runs, so only its first launch compiles (that one is recorded cold)."""
    if job.compile_cache != "warm":
        return work_dir / "cache", "cold"
    shared = default_cache_dir() / "compile-cache" / f"{engine}-{engine_version or 'unknown'}"
    state = "warm" if shared.is_dir() and any(shared.iterdir()) else "cold"
    shared.mkdir(parents=True, exist_ok=True)
    return shared, state


def _predict(point: Point, model_path: str, device_total_mib: float | None, device: str, record,
             gpu_free_mib: float | None = None, free_at_load: bool = False) -> dict:
    """The prediction columns; a predictor failure must never cost the measurement. `gpu_free_mib` is the
    GPU protocol's baseline reading (free memory before launch), or on a CPU the host's free memory when the
    engine began loading (`free_at_load`): SGLang sizes its pool from it."""
    try:
        from harness.engines.predicting import predict_point
        from harness.predict import load_model_description
        from harness.predict import prediction_error_pct

        description = load_model_description(model_path)
        prediction = predict_point(point, description, device_total_mib, device=device, gpu_free_mib=gpu_free_mib,
                                   free_at_load=free_at_load)
    except Exception as exc:  # noqa: BLE001
        log.warning("no prediction for %s: %s", point.point_id, exc)
        return {}
    measured = getattr(record, "kv_tokens", None) if record is not None else None
    error = prediction_error_pct(prediction.kv_tokens, measured)
    return {"predicted_kv_tokens": prediction.kv_tokens,
            "predicted_kv_gib": None if prediction.kv_gib is None else round(prediction.kv_gib, 4),
            "prediction_error_pct": None if error is None else round(error, 3)}


def engine_memory_read(engine, point: Point, job: PointJob, record, readings: list[DeviceMemory]) -> DeviceMemory:
    """The device memory the engine sized from (`Engine.memory_read`): what its log says it read, the
    harness's readings (before the launch, as it began loading) standing in where the log is silent."""
    from harness.engines.predicting import predict_point
    from harness.predict import load_model_description

    description: list = []  # loaded once, on the first prediction an engine asks for

    def predict(reading):
        try:
            if not description:
                description.append(load_model_description(job.model_path))
            return predict_point(point, description[0], reading.total_mib, device=job.device,
                                 gpu_free_mib=reading.free_mib, free_at_load=reading.free_at_load)
        except Exception as exc:  # noqa: BLE001 - a predictor failure must never cost the measurement
            log.warning("no prediction for %s: %s", point.point_id, exc)
            return None

    read = engine.formulas.memory_read(point.settings, record, readings, predict) if engine.formulas else None
    return read or readings[0]


def _cpu_memory(engine, host: HostMemory, version: str | None) -> DeviceMemory | None:
    """The host memory the engine sizes from on the CPU, by its formulas (None: an engine without them)."""
    return engine.formulas.cpu_memory(host, version) if engine.formulas else None


def run_point(point: Point, job: PointJob, gpus: list[int] | None = None, on_phase=None,
              extra_env: dict[str, str] | None = None) -> PointResult:
    """Launch one point and build its row. `gpus` are NVML indices this point owns (default [0]);
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
    engine = get_engine(point.engine)
    engine_env = job.envs[point.engine]
    log_rel = f"logs/{point.name}.log"
    started_at = utc_now_iso()
    cache_dir, cache_state = compile_cache_dir(job, point.engine, engine_env.engine_version, work_dir)
    ctx = LaunchContext(python=str(engine_env.python), env_vars={**engine_env.env_vars, **(extra_env or {})},
                        model_path=job.model_path, port=free_port(engine.launch.highest_port), work_dir=work_dir,
                        cache_dir=cache_dir, tmp_dir=tmp_dir)
    held = gpus if gpus is not None else ([0] if job.device == "cuda" else None)
    row_ctx = RowContext(run_id=job.run_id, engine_version=engine_env.engine_version,
                         torch_version=engine_env.torch_version, device_name=None, device_total_mib=None,
                         driver_version=None, compile_cache=cache_state, node=socket.gethostname(),
                         gpu_indices=None if held is None else ",".join(map(str, held)))
    gpu_read = nvml_reader() if job.device == "cuda" else None
    baseline = None
    if gpu_read is not None:
        baseline = wait_until_idle(gpu_read, gpus or [0], wait_s=job.wait_for_idle_gpu_s,
                                   threshold_mib=math.inf if job.shared_gpu else BUSY_THRESHOLD_MIB)
        state = next(iter(baseline.values()))
        row_ctx.device_name, row_ctx.device_total_mib = state.name, round(state.total_mib)
        # the total the engine itself sizes from (vLLM: CUDA's, SGLang: the host's smallest card), when not NVML's
        engine_total = engine_gpu_total_mib(engine.launch.gpu_total_source, ctx.python, ctx.env_vars, gpu_read, gpus or [0],
                                            visible_gpu_count())
        if engine_total:
            row_ctx.device_total_mib = round(engine_total)
        row_ctx.driver_version = state.driver_version
        row_ctx.gpu_busy_before_mib = round(sum(s.used_mib for s in baseline.values()))
    else:
        row_ctx.device_name = f"cpu ({platform.machine()})"
    host_memory = host_before = None
    host_env = {**ctx.env_vars, **point.env}
    if job.device == "cpu":
        # The CPU backends size their pool from host memory: read it the engine's way, now, as the
        # GPU protocol reads the card's baseline. Alone on the host (the sequential executor passes no
        # GPUs), wait for the memory to settle first and to come back afterwards; beside other points,
        # host memory is theirs too.
        host_before = settled_host_memory(host_env) if gpus is None else read_host_memory(host_env)
        host_memory = _cpu_memory(engine, host_before, engine_env.engine_version)
        if host_memory is not None:
            row_ctx.device_total_mib = round(host_memory.total_mib)
            if host_memory.free_mib is not None:
                row_ctx.gpu_busy_before_mib = round(host_memory.total_mib - host_memory.free_mib)

    spec = launch_spec(engine, point, ctx, job.run_dir / log_rel, job.stop_after, job.timeout_s)
    spec.on_phase = on_phase
    at_load: list = []
    if host_memory is not None:
        def on_phase_reading(phase: str) -> None:
            # The moment the engine starts loading is when SGLang reads free memory itself; a reading
            # then leaves out what the previous point was still giving back at launch.
            if phase == "loading" and not at_load:
                reading = _cpu_memory(engine, read_host_memory(host_env), engine_env.engine_version)
                if reading is not None:
                    at_load.append(replace(reading, free_at_load=True))
            if on_phase:
                on_phase(phase)

        spec.on_phase = on_phase_reading
    spec.groups_dir = job.run_dir / GROUPS_DIR
    outcome = launch(spec)
    if baseline is not None:
        note = wait_for_release(gpu_read, baseline)
        if note:
            outcome.error_message = "; ".join(filter(None, [outcome.error_message, note]))
    elif host_before is not None and gpus is None:
        note = wait_for_host_release(host_before, host_env)
        if note:
            log.info("%s: %s", point.name, note)
    if outcome.survivors:
        outcome.error_message = "; ".join(filter(None, [outcome.error_message,
                                                         "processes survived the stop: " + ", ".join(outcome.survivors)]))
    total_mib, free_mib, free_at_load = row_ctx.device_total_mib, None, False
    if baseline is not None:
        # NVML's free memory before the launch; an engine that logs its own reading (SGLang's free memory
        # before loading, its CUDA contexts already up) sized from that one
        state = next(iter(baseline.values()))
        before = DeviceMemory(total_mib=total_mib, free_mib=state.total_mib - state.used_mib,
                              basis="NVML free memory before the launch")
        read = engine_memory_read(engine, point, job, outcome.record, [before])
        free_mib, free_at_load = read.free_mib, read.free_at_load
        row_ctx.engine_free_mib = read.free_mib if read.free_at_load else None
    elif host_memory is not None:
        read = engine_memory_read(engine, point, job, outcome.record, [host_memory, *at_load])
        total_mib, free_mib, free_at_load = read.total_mib, read.free_mib, read.free_at_load
        # the row says what the engine sized from, and keeps the free memory before the launch (total - busy)
        row_ctx.device_total_mib = round(read.total_mib)
        if host_memory.free_mib is not None:
            row_ctx.gpu_busy_before_mib = round(read.total_mib - host_memory.free_mib)
        row_ctx.engine_free_mib = read.free_mib if read.free_at_load else None
    prediction = _predict(point, job.model_path, total_mib, job.device, outcome.record, free_mib,
                          free_at_load=free_at_load)
    row = make_row(point, outcome, row_ctx, started_at, log_rel, prediction)
    return PointResult(point=point, row=row, outcome=outcome)
