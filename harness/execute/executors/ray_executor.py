"""Points as Ray tasks across a cluster: each task asks for `num_gpus` = the GPUs its
engine takes (TP x PP), runs the same `run_point` on the node Ray picks, and returns the
row with the log text. The driver (this process) writes rows and logs as they arrive.

On the node a task works in a temporary run folder of its own (the driver's run folder
need not exist there); the engine environment and the model files must exist on every
node (`envs install` on each node, or the cache dir on a shared filesystem). A node
without them gives that point a harness_error row saying so.

A task that fails — its worker killed, its node lost, the task cancelled — gives its
point a harness_error row carrying Ray's reason; the other points go on, and `--resume`
re-runs harness_error rows. Ray is an optional dependency: nothing here imports it until
a run starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import shutil
import socket
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from harness.clock import utc_now_iso as now_iso
from harness.envs import host_is_cpu_only, resolve_env
from harness.errors import HarnessError, InputError
from harness.execute.executors.common import failed_result
from harness.execute.executors.slots import gpu_env, gpus_needed
from harness.execute.gpu import GpuBusyError
from harness.execute.point_run import run_point

log = logging.getLogger(__name__)

RAY_MISSING = "--executor ray needs Ray, which is not installed: pip install 'kv-budget-harness[ray]'"
CANCEL_GRACE_S = 60.0  # cancelled tasks stop their engines (SIGTERM, then SIGKILL after the launcher's grace)


def import_ray():
    try:
        import ray  # lazy: ray is optional (extra "ray") and ~0.7 s to import
    except ImportError:
        raise InputError(RAY_MISSING) from None
    return ray


# --- on the worker node ----------------------------------------------------------------------------

def _tell(progress, message) -> None:
    if progress is None:
        return
    try:
        progress.put_nowait(message)
    except Exception as exc:  # noqa: BLE001 - progress display only; never costs the point
        log.debug("progress queue: %s", exc)


def _on_this_node(point, job, work_root: Path, node: str):
    """The job as this node sees it, or (kind, message) naming what the node lacks."""
    env = job.envs[point.engine]
    if not Path(env.python).exists():
        if not getattr(env, "managed", True):
            return None, ("env_missing", (f"node {node}: engines.{point.engine}.python {env.python} does not exist "
                                          "on this node (install the engine there at the same path)"))
        try:
            env = resolve_env(point.engine, env.requested_version)
        except HarnessError as exc:
            return None, ("env_missing", f"node {node}: {exc}")
    model = Path(job.model_path)
    if model.is_absolute() and not model.exists():
        return None, ("model_missing", (f"node {node}: model files {model} are not on this node "
                                        "(put the models dir on a shared filesystem, or build/download it there)"))

    device = "cpu" if host_is_cpu_only() else "cuda"  # the detector the driver's run and the envs use
    return dataclasses.replace(job, run_dir=work_root, envs={**job.envs, point.engine: env}, device=device), None


@contextlib.contextmanager
def _without_rays_omp_threads(num_cpus: float, driver_value: str | None):
    """Ray sets OMP_NUM_THREADS to the task's num_cpus (1) when unset; the engine would inherit it
    and start slower than in a local run. Hide Ray's value (only Ray's) for the task's length."""
    ours = os.environ.get("OMP_NUM_THREADS")
    rays = driver_value is None and ours == str(max(math.floor(num_cpus), 1))
    if rays:
        del os.environ["OMP_NUM_THREADS"]
    try:
        yield
    finally:
        if rays:
            os.environ["OMP_NUM_THREADS"] = ours


def ray_point(point, job, run_fn: Callable | None, progress, index: int, num_cpus: float = 1,
              driver_omp: str | None = None) -> dict:
    """The body of one Ray task. Returns {"result", "log", "node", "gpus"} or {"error": (kind, message), ...}."""
    import ray  # lazy: ray is optional (extra "ray") and ~0.7 s to import

    if run_fn is None:
        run_fn = run_point
    node = socket.gethostname()
    gpu_ids = [str(g) for g in ray.get_gpu_ids()]
    _tell(progress, ("start", index, {"node": node, "gpus": gpu_ids, "started_at": now_iso()}))
    reply = {"node": node, "gpus": gpu_ids}
    work_root = Path(tempfile.mkdtemp(prefix=f"kvh-{job.run_id}-"))
    try:
        local_job, problem = _on_this_node(point, job, work_root, node)
        if problem:
            return {**reply, "error": problem}
        gpus = [int(g) if g.isdigit() else g for g in gpu_ids]
        try:
            with _without_rays_omp_threads(num_cpus, driver_omp):
                result = run_fn(point, local_job, gpus=gpus, extra_env=gpu_env(gpu_ids),
                                on_phase=lambda phase: _tell(progress, ("phase", index, phase)))
        except GpuBusyError as exc:
            return {**reply, "error": ("gpu_busy", f"node {node}: {exc}")}
        except Exception as exc:  # noqa: BLE001 - the point's harness_error row
            log.error("point %s on %s:\n%s", point.point_id, node, traceback.format_exc())
            return {**reply, "error": ("harness_exception", f"node {node}: {type(exc).__name__}: {exc}")}
        log_file = work_root / result.log_path if result.log_path else None
        return {**reply, "result": result, "log": log_file.read_bytes() if log_file and log_file.is_file() else None}
    finally:
        if job.keep_work_dirs:
            log.warning("point %s: work dir kept on %s at %s", point.point_id, node, work_root)
        else:
            shutil.rmtree(work_root, ignore_errors=True)


# --- on the driver ---------------------------------------------------------------------------------

def _reason(exc: BaseException) -> tuple[str, str]:
    """Ray's exception -> (error_kind, one line of Ray's reason)."""
    name = type(exc).__name__
    kinds = {"WorkerCrashedError": "worker_died", "NodeDiedError": "node_died", "TaskCancelledError": "cancelled",
             "OutOfMemoryError": "out_of_memory", "ObjectLostError": "result_lost"}
    kind = next((k for n, k in kinds.items() if n in {c.__name__ for c in type(exc).__mro__}), "ray_error")
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = lines[-1] if name.startswith("RayTaskError") and lines else " ".join(lines[:2])
    return kind, f"Ray: {name}: {text}"[:1000]


def auth_hint(address: str | None, reason: str, listening: Callable[[str | None], bool] | None = None) -> str:
    """One line for a failed connect; a cluster with token authentication says what to set."""
    reason = reason.strip().splitlines()[0] if reason.strip() else "no reason given"
    if os.environ.get("RAY_AUTH_MODE") != "token":
        return (f"--ray-address {address}: cannot connect ({reason}); if the cluster uses token authentication "
                "(the default of `ray start --head` in current Ray), set RAY_AUTH_MODE=token and the cluster's "
                "token in RAY_AUTH_TOKEN (or ~/.ray/auth_token)")
    # Ray 2.60 reports a refused token as "Failed to connect to Ray cluster at <address>" (the
    # InvalidAuthToken reason goes to its log only), so something listening there is the tell.
    if "token" in reason.lower() or "auth" in reason.lower() or (listening or _listening)(address):
        return (f"--ray-address {address}: Ray refused the token ({reason}); set RAY_AUTH_TOKEN (or "
                "~/.ray/auth_token) to the token the cluster was started with")
    return f"--ray-address {address}: no Ray cluster there ({reason})"


def _listening(address: str | None, timeout_s: float = 2.0) -> bool:
    """Whether something accepts TCP connections at HOST:PORT (the cluster's GCS port)."""
    host, _, port = (address or "").rpartition(":")
    if not host or not port.isdigit():
        return False
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return True
    except OSError:
        return False


class RayExecutor:
    """Each point a Ray task requesting num_gpus = its GPU count; rows and logs come back to this process."""

    def __init__(self, address: str | None = None, run_fn: Callable | None = None, num_cpus: float = 1,
                 init_kwargs: dict | None = None, poll_s: float = 0.2, cancel_grace_s: float = CANCEL_GRACE_S):
        self.address = address
        self.run_fn = run_fn
        self.num_cpus = num_cpus
        self.init_kwargs = dict(init_kwargs or {})
        self.poll_s = poll_s
        self.cancel_grace_s = cancel_grace_s
        self._started = False  # we called ray.init, so we shut it down
        self._checked = False

    def _connect(self):
        ray = import_ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, **self.init_kwargs)
            except ConnectionError as exc:
                raise HarnessError(auth_hint(self.address, str(exc)), exit_code=3) from None
            except Exception as exc:  # Ray raises its own types for auth failures
                if "auth" not in str(exc).lower() and "token" not in str(exc).lower():
                    raise
                raise HarnessError(auth_hint(self.address, str(exc)), exit_code=3) from None
            self._started = True
        return ray

    def _nodes(self, ray) -> list[dict]:
        return [n for n in ray.nodes() if n.get("Alive")]

    def check(self, points) -> list[str]:
        ray = self._connect()
        try:
            per_node = max((n["Resources"].get("GPU", 0) for n in self._nodes(ray)), default=0)
            if per_node == 0:
                raise InputError("the Ray cluster declares no GPUs; each point asks for num_gpus = its TP size "
                                 "(start the nodes with GPUs, or `ray start --num-gpus N`)")
            widest = max(points, key=gpus_needed, default=None)
            if widest is not None and gpus_needed(widest) > per_node:
                raise InputError(f"point {widest.point_id} needs {gpus_needed(widest)} GPUs on one node; the largest "
                                 f"node of the Ray cluster has {per_node:g}")
        except InputError:
            self.close()
            raise
        self._checked = True
        return []

    def describe(self) -> dict:
        ray = self._connect()
        nodes = self._nodes(ray)
        return {"kind": "ray", "address": self.address or "local", "nodes": len(nodes),
                "gpus": sum(n["Resources"].get("GPU", 0) for n in nodes)}

    def close(self) -> None:
        if self._started:
            import ray  # lazy: ray is optional (extra "ray") and ~0.7 s to import

            ray.shutdown()
            self._started = False

    def run(self, points, job, on_point_start=None) -> Iterator:
        if not self._checked:
            self.check(points)
        ray = self._connect()
        from ray.util.queue import Empty, Queue  # lazy: ray is optional (extra "ray") and ~0.7 s to import

        progress = Queue(actor_options={"num_cpus": 0})
        task = ray.remote(ray_point)
        pending = {}
        for index, point in enumerate(points):
            # max_retries=0: a lost task becomes a harness_error row that --resume re-runs, not a silent re-run.
            ref = task.options(num_gpus=gpus_needed(point), num_cpus=self.num_cpus, max_retries=0,
                               name=f"kvh-{point.name}").remote(
                point, job, self.run_fn, progress, index, self.num_cpus, os.environ.get("OMP_NUM_THREADS"))
            pending[ref] = (index, point)
        starts: dict[int, dict] = {}
        phases: dict[int, Callable | None] = {}

        def start(index: int, info: dict | None) -> None:
            if index not in phases:
                starts[index] = info or {}
                phases[index] = on_point_start(points[index], index, len(points)) if on_point_start else None

        def drain() -> None:
            while True:
                try:
                    kind, index, data = progress.get_nowait()
                except Empty:
                    return
                except Exception as exc:  # noqa: BLE001 - the queue actor died: progress only
                    log.debug("progress queue: %s", exc)
                    return
                if kind == "start":
                    start(index, data)
                elif kind == "phase" and phases.get(index):
                    phases[index](data)

        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=self.poll_s)
                drain()
                for ref in ready:
                    index, point = pending.pop(ref)
                    start(index, None)
                    yield self._collect(ray, ref, point, job, starts[index])
        finally:
            self._cancel(ray, list(pending))
            try:
                ray.kill(progress.actor)
            except Exception as exc:  # noqa: BLE001 - gone with its node, or with Ray
                log.debug("progress queue: %s", exc)
            self.close()

    def _collect(self, ray, ref, point, job, started: dict):
        from ray.exceptions import RayError  # lazy: ray is optional (extra "ray") and ~0.7 s to import

        try:
            reply = ray.get(ref)
        except RayError as exc:
            kind, message = _reason(exc)
            log.warning("point %s: %s", point.point_id, message)
            return failed_result(point, job, kind, message, gpus=started.get("gpus"), node=started.get("node") or "?",
                                 started_at=started.get("started_at"))
        if "error" in reply:
            kind, message = reply["error"]
            return failed_result(point, job, kind, message, gpus=reply["gpus"], node=reply["node"],
                                 started_at=started.get("started_at"))
        result = reply["result"]
        if reply.get("log") is not None and result.log_path:
            path = Path(job.run_dir) / result.log_path
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(reply["log"])
            tmp.replace(path)
        return result

    def _cancel(self, ray, refs: list) -> None:
        """Stop what is still queued or running: a running task gets KeyboardInterrupt, and its
        launcher stops the engine's process group before the task ends."""
        if not refs:
            return
        for ref in refs:
            try:
                ray.cancel(ref)
            except Exception as exc:  # noqa: BLE001 - already finished or lost
                log.debug("cancel: %s", exc)
        deadline = time.monotonic() + self.cancel_grace_s
        left = refs
        while left and time.monotonic() < deadline:
            _, left = ray.wait(left, num_returns=len(left), timeout=min(1.0, max(0.0, deadline - time.monotonic())))
        if left:
            log.warning("%d Ray tasks did not stop within %.0f s; forcing them", len(left), self.cancel_grace_s)
            for ref in left:
                try:
                    ray.cancel(ref, force=True)
                except Exception as exc:  # noqa: BLE001 - finished meanwhile
                    log.debug("cancel: %s", exc)
