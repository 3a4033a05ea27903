"""What the parallel executors share: the result of a point that never produced one itself."""

from __future__ import annotations

import socket
from pathlib import Path

from harness.clock import utc_now_iso
from harness.execute.point_run import PointJob
from harness.results.rows import DeviceReading, EngineBuild, PointResult, Timings
from harness.scenario.point import Point


def failed_result(point: Point, job: PointJob, kind: str, message: str, *, gpus=None, node: str | None = None,
                  started_at: str | None = None, wall_s: float = 0.0, log_dir: Path | None = None) -> PointResult:
    """A harness_error PointResult: its worker died, Ray lost the task, the node lacks the engine.

    `--resume` re-runs harness_error rows, so this row is a placeholder until the point
    succeeds. The log is named only when some of it reached `log_dir` (the run folder).
    """
    log_rel = f"logs/{point.name}.log"
    has_log = log_dir is not None and (Path(log_dir) / log_rel).is_file()
    return PointResult(
        point=point, run_id=job.run_id, status="harness_error", error_kind=kind, error_message=message, record=None,
        timings=Timings(wall_s=wall_s), started_at=started_at or utc_now_iso(), log_path=log_rel if has_log else None,
        build=EngineBuild.of(job.envs.get(point.engine)), compile_cache=job.compile_cache, device=DeviceReading(),
        gpus=None if gpus is None else tuple(gpus), node=node or socket.gethostname(),
    )
