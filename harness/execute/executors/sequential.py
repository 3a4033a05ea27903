"""The default executor: one point after another, on GPU 0 or the CPU."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from harness.execute.point_run import PointJob, PointResult, run_point
from harness.scenario.point import Point


class SequentialExecutor:
    def check(self, points: list[Point]) -> list[str]:
        return []

    def describe(self) -> dict:
        return {"kind": "sequential"}

    def run(self, points: list[Point], job: PointJob,
            on_point_start: Callable[[Point, int, int], Callable[[str], None] | None] | None = None
            ) -> Iterator[PointResult]:
        for index, point in enumerate(points):
            on_phase = on_point_start(point, index, len(points)) if on_point_start else None
            yield run_point(point, job, gpus=None, on_phase=on_phase)
