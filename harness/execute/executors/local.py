"""Points in parallel on this machine's GPUs: one engine per GPU, a TP point holds N.

Each running point is its own worker process that runs `run_point` with
`CUDA_VISIBLE_DEVICES` set to the GPUs it holds. Workers come from a forkserver that has
imported the harness once (a fork of a clean process: no lock or thread of this one is
copied half-way, and no 0.6 s import per point); each takes this process's current
environment and working directory. It and sends back phases, log records and finally its PointResult over a
pipe. The scheduler (the generator below, in the caller's thread) is the only one that
hands out GPUs and the only one that yields rows, so the caller keeps a single writer.

A worker that dies (killed, out of memory, a harness bug) costs only its own point: that
point gets a harness_error row (which `--resume` re-runs) and its GPUs go back to the
pool. A GPU found busy before launch is taken out of the sweep and the point is placed
again on another one; when no GPU is left that fits the remaining points, the run ends
with the same GpuBusyError a sequential run gives.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import wait as wait_for

from harness.childproc import die_with_parent
from harness.clock import utc_now_iso as now_iso
from harness.errors import InputError
from harness.execute import signals
from harness.execute.executors.common import failed_result
from harness.execute.executors.slots import GpuPool, gpu_env, gpus_needed, host_gpu_warnings
from harness.execute.gpu import GpuBusyError, GpuState, nvml_reader, visible_gpu_count
from harness.execute.point_run import run_point

log = logging.getLogger(__name__)

STOP_GRACE_S = 30.0  # a worker's engine gets the launcher's own SIGTERM grace inside this


def _raise_interrupt(*_):
    # Once: a second signal (Ctrl-C reaches the worker and the parent forwards SIGTERM)
    # must not cut short the launcher's stop of the engine's process group.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


class _PipeLog(logging.Handler):
    def __init__(self, send):
        super().__init__()
        self.send = send

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.send(("log", (record.levelno, record.name, self.format(record))))
        except Exception:  # noqa: BLE001 - the parent is gone: nowhere to log it
            pass


def _worker_main(conn, run_fn, point, job, gpus, extra_env, log_level: int, environ: dict, cwd: str) -> None:
    """In the worker process: run one point, send ("result", PointResult) or what went wrong."""
    # The forkserver was started with the environment of that moment; the point gets today's.
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    # SIGTERM (the parent stopping us, or dying: PDEATHSIG) must reach the launcher as an
    # interrupt, so that it stops the engine's process group before this process goes.
    signal.signal(signal.SIGTERM, _raise_interrupt)
    signal.signal(signal.SIGINT, _raise_interrupt)
    die_with_parent()
    def send(message) -> None:
        try:
            conn.send(message)
        except (BrokenPipeError, EOFError, ConnectionError, OSError):
            pass  # the harness is gone: nobody to tell; the engine is stopped all the same

    root = logging.getLogger()
    root.handlers[:] = [_PipeLog(send)]
    root.setLevel(log_level)
    try:
        result = run_fn(point, job, gpus=gpus, on_phase=lambda phase: send(("phase", phase)), extra_env=extra_env)
        send(("result", result))
        try:
            signals.release()  # the row is with the parent: a signal held during the stop acts now
        except KeyboardInterrupt:
            pass  # and this process ends anyway
    except GpuBusyError as exc:
        send(("busy", str(exc)))
    except KeyboardInterrupt:
        send(("interrupted", None))
    except BaseException as exc:  # noqa: BLE001 - reported as the point's harness_error row
        send(("error", f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    finally:
        try:
            conn.close()
        except OSError:
            pass


def _nvml_host_gpus() -> list[GpuState]:
    """Every GPU on the host, visible to us or not (what nvidia-smi, and so SGLang, sees)."""
    read = nvml_reader()
    return [read(i) for i in range(visible_gpu_count())] if read else []


@dataclass
class _Running:
    index: int
    point: object
    gpus: list[int]
    process: multiprocessing.process.BaseProcess
    conn: object
    on_phase: Callable[[str], None] | None
    t0: float
    started_at: str
    outcome: tuple | None = None  # the worker's last word: ("result", r) / ("busy", msg) / ...
    closed: bool = False
    messages: list = field(default_factory=list)


class LocalGpuExecutor:
    """Run points in parallel, one engine per GPU of `gpus` (NVML indices or, without NVML, plain slots)."""

    def __init__(self, gpus: list[int], run_fn: Callable | None = None, start_method: str | None = None,
                 stop_grace_s: float = STOP_GRACE_S, real_gpus: bool = True,
                 host_gpus: Callable[[], list[GpuState]] | None = None):
        if not gpus:
            raise InputError("--gpus: no GPU to run on")
        self.gpus = list(gpus)
        self.run_fn = run_fn
        if start_method is None:
            start_method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        self.context = multiprocessing.get_context(start_method)
        if start_method == "forkserver":
            # Only the first call before the server starts counts; later executors share that server.
            preload = ["harness.execute.point_run"] + ([run_fn.__module__] if run_fn is not None else [])
            self.context.set_forkserver_preload(preload)
        self.stop_grace_s = stop_grace_s
        self.real_gpus = real_gpus
        self.host_gpus = host_gpus or (_nvml_host_gpus if real_gpus else list)

    def describe(self) -> dict:
        return {"kind": "local", "gpus": self.gpus, "nvml": self.real_gpus}

    def check(self, points) -> list[str]:
        widest = max(points, key=gpus_needed, default=None)
        if widest is not None and gpus_needed(widest) > len(self.gpus):
            raise InputError(f"point {widest.point_id} needs {gpus_needed(widest)} GPUs (its tensor/pipeline parallel "
                             f"size) but the run has {len(self.gpus)} ({','.join(map(str, self.gpus))}); pass more "
                             "with --gpus")
        warnings = []
        if not self.real_gpus and len(self.gpus) > 1:
            warnings.append(f"no NVIDIA GPU: --gpus gives {len(self.gpus)} parallel slots, each with its own "
                            "CUDA_VISIBLE_DEVICES; GPU idle/release checks skipped")
        warnings.extend(host_gpu_warnings(points, self.host_gpus()))
        return warnings

    def run(self, points, job, on_point_start=None) -> Iterator:
        self.check(points)
        run_fn = self.run_fn or run_point
        pool = GpuPool(self.gpus)
        queue = list(enumerate(points))
        running: dict[int, _Running] = {}  # by sentinel
        busy_messages: list[str] = []
        phases: dict[int, Callable | None] = {}
        try:
            while queue or running:
                for item in list(queue):
                    index, point = item
                    gpus = pool.take(gpus_needed(point))
                    if gpus is None:
                        continue
                    queue.remove(item)
                    if index not in phases:  # once per point, also when a busy GPU sends it elsewhere
                        phases[index] = on_point_start(point, index, len(points)) if on_point_start else None
                    worker = self._start(run_fn, point, job, gpus, index, phases[index])
                    running[worker.process.sentinel] = worker
                if not running:
                    # Busy GPUs were retired and what is left fits none of the remaining points.
                    raise GpuBusyError("; ".join(busy_messages) + f"; {len(queue)} points left unrun "
                                       f"({pool.usable} usable GPU(s) of {len(self.gpus)})")
                for worker in self._wait(running):
                    del running[worker.process.sentinel]
                    worker.process.join()
                    kind = worker.outcome[0] if worker.outcome else None
                    if kind == "busy":
                        pool.retire(worker.gpus)
                        busy_messages.append(worker.outcome[1])
                        log.warning("GPU %s busy: taken out of this sweep; %s goes to another GPU (%s)",
                                    ",".join(map(str, worker.gpus)), worker.point.point_id, worker.outcome[1])
                        queue.insert(0, (worker.index, worker.point))
                        continue
                    pool.give(worker.gpus)
                    yield self._result(worker, job)
        finally:
            self._stop(list(running.values()))

    def _start(self, run_fn, point, job, gpus, index, on_phase) -> _Running:
        receive, send = self.context.Pipe(duplex=False)
        process = self.context.Process(
            target=_worker_main, name=f"kvh-{point.name}",
            args=(send, run_fn, point, job, gpus, gpu_env(gpus), logging.getLogger().getEffectiveLevel(),
                  dict(os.environ), os.getcwd()),
            daemon=False,
        )
        process.start()
        send.close()  # the worker holds the only write end: EOF here means it is gone
        log.debug("point %s#%d on GPU %s (pid %d)", point.point_id, point.repeat, gpus, process.pid)
        return _Running(index=index, point=point, gpus=gpus, process=process, conn=receive, on_phase=on_phase,
                        t0=time.monotonic(), started_at=now_iso())

    def _wait(self, running: dict[int, _Running]) -> list[_Running]:
        """Block until some worker has exited; handle messages meanwhile. Returns the finished ones."""
        while True:
            waitables = [w.conn for w in running.values() if not w.closed] + list(running)
            ready = wait_for(waitables)
            finished = []
            for worker in running.values():
                if not worker.closed and worker.conn in ready:
                    self._receive(worker)
                if worker.process.sentinel in ready:
                    self._receive(worker)  # messages sent just before exiting
                    finished.append(worker)
            if finished:
                return finished

    def _receive(self, worker: _Running) -> None:
        while not worker.closed:
            try:
                if not worker.conn.poll():
                    return
                message = worker.conn.recv()
            except (EOFError, OSError):
                worker.closed = True
                worker.conn.close()
                return
            kind = message[0]
            if kind == "phase":
                if worker.on_phase:
                    worker.on_phase(message[1])
            elif kind == "log":
                level, name, text = message[1]
                logging.getLogger(name).log(level, "%s", text)
            else:
                worker.outcome = message

    def _result(self, worker: _Running, job):
        kind = worker.outcome[0] if worker.outcome else None
        if kind == "result":
            return worker.outcome[1]
        wall_s = time.monotonic() - worker.t0
        if kind == "error":
            log.error("point %s: worker failed:\n%s", worker.point.point_id, worker.outcome[2])
            error_kind, message = "harness_exception", f"worker raised {worker.outcome[1]}"
        elif kind == "interrupted":
            error_kind, message = "interrupted", "the worker was interrupted (SIGINT/SIGTERM) and stopped its engine"
        else:
            code = worker.process.exitcode
            how = (f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"exit code {code}")
            error_kind = "worker_died"
            message = f"worker process {worker.process.pid} died ({how}) before the point ended"
        return failed_result(worker.point, job, error_kind, message, gpus=worker.gpus, started_at=worker.started_at,
                             wall_s=wall_s, log_dir=job.run_dir)

    def _stop(self, workers: list[_Running]) -> None:
        """Interrupt (or an abandoned generator): each worker stops its engine, then goes."""
        for worker in workers:
            if worker.process.is_alive():
                try:
                    os.kill(worker.process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + self.stop_grace_s
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                log.warning("worker %d did not stop in %.0f s; killing it", worker.process.pid, self.stop_grace_s)
                worker.process.kill()
                worker.process.join(5)
            if not worker.closed:
                worker.conn.close()
