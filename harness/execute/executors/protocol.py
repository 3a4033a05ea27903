"""The one interface every executor has: check the points, describe itself, run them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from harness.execute.point_run import PointJob
from harness.results.rows import PointResult
from harness.scenario.point import Point

OnPointStart = Callable[[Point, int, int], "Callable[[str], None] | None"]


class Executor(Protocol):
    def check(self, points: list[Point]) -> list[str]:
        """Warnings before the run folder is made; raises InputError for what it cannot place."""

    def describe(self) -> dict:
        """What run.json records about it."""

    def run(self, points: list[Point], job: PointJob, on_point_start: OnPointStart | None = None
            ) -> Iterator[PointResult]:
        """Each point's result, in the order the points finish."""
