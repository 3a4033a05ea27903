"""Executors: who runs the sweep's points, where, and how many at once.

    SequentialExecutor  one point after another on GPU 0 or the CPU
    LocalGpuExecutor    one engine per GPU of this machine; a TP=N point holds N
    RayExecutor         each point a Ray task with num_gpus = its GPU count

Each is an `Executor` (executors/protocol.py): `check(points)` before the run folder is made,
`describe()` for run.json, `run(points, job, on_point_start)` yielding each point's PointResult as it finishes.
"""

from __future__ import annotations

from harness.errors import InputError
from harness.execute.executors.local import LocalGpuExecutor
from harness.execute.executors.ray_executor import RayExecutor
from harness.execute.executors.sequential import SequentialExecutor
from harness.execute.executors.slots import check_gpus, default_gpus, gpus_needed, parse_gpus
from harness.execute.gpu import visible_gpu_count

EXECUTORS = ("local", "ray")

__all__ = ["EXECUTORS", "LocalGpuExecutor", "RayExecutor", "SequentialExecutor", "gpus_needed", "make_executor",
           "parse_gpus"]


def make_executor(kind: str = "local", gpus: str | None = None, ray_address: str | None = None):
    """The executor for `run --executor KIND [--gpus LIST] [--ray-address ADDR]`.

    local: `--gpus` or all visible GPUs; a host without NVML and no `--gpus` runs points one
    after another (one slot). `--gpus` on such a host gives that many fake slots: each point
    gets its CUDA_VISIBLE_DEVICES, the GPU memory protocol is skipped (tests, dry rehearsals).
    """
    if kind == "ray":
        if gpus:
            raise InputError("--gpus is for the local executor; with --executor ray, Ray places each point on "
                             "GPUs of its choosing (start nodes with `ray start --num-gpus N`)")

        return RayExecutor(address=ray_address)
    if kind != "local":
        raise InputError(f"--executor {kind}: not one of {', '.join(EXECUTORS)}")
    if ray_address:
        raise InputError("--ray-address needs --executor ray")
    count = visible_gpu_count()
    if gpus:
        indices = parse_gpus(gpus)
        check_gpus(indices, count or None)
        return LocalGpuExecutor(indices, real_gpus=count > 0)
    if count == 0:
        return SequentialExecutor()
    return LocalGpuExecutor(default_gpus(count), real_gpus=True)


def __getattr__(name: str):
    if name == "RayExecutor":  # importing it does not import ray; running it does

        return RayExecutor
    raise AttributeError(name)
