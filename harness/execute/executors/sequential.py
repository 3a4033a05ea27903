"""The default executor: one point after another, on the CPU or on the first GPUs the harness may use.

On a GPU host each point is placed like the local executor places it: CUDA_VISIBLE_DEVICES names the
GPUs it holds (the first ones CUDA_VISIBLE_DEVICES allowed the harness, else NVML's first), with
CUDA_DEVICE_ORDER=PCI_BUS_ID, so the idle and release checks, the row and the prediction describe the
cards the engine runs on (`advise` launches through it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from harness.execute.executors.slots import gpu_env, gpus_needed, usable_gpus
from harness.execute.point_run import PointJob, run_point
from harness.results.rows import PointResult
from harness.scenario.point import Point


class SequentialExecutor:
    def check(self, points: list[Point]) -> list[str]:
        return []

    def describe(self) -> dict:
        return {"kind": "sequential"}

    def run(self, points: list[Point], job: PointJob,
            on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None = None
            ) -> Iterator[PointResult]:
        usable = usable_gpus() if job.device == "cuda" else []
        for index, point in enumerate(points):
            on_phase = on_point_start(point, index, len(points)) if on_point_start else None
            if not usable:
                yield run_point(point, job, gpus=None, on_phase=on_phase)
                continue
            held = usable[:gpus_needed(point)]
            yield run_point(point, job, gpus=held, on_phase=on_phase, extra_env=gpu_env(held))

