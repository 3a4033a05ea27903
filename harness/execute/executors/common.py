"""What the parallel executors share: the row of a point that never produced one itself."""

from __future__ import annotations

import socket
from pathlib import Path

from harness.clock import utc_now_iso
from harness.execute.launcher import LaunchOutcome
from harness.execute.point_run import PointResult
from harness.results.rows import RowContext, make_row


def failed_result(point, job, kind: str, message: str, *, gpus=None, node: str | None = None,
                  started_at: str | None = None, wall_s: float = 0.0, log_dir: Path | None = None):
    """A harness_error PointResult: its worker died, Ray lost the task, the node lacks the engine.

    `--resume` re-runs harness_error rows, so this row is a placeholder until the point
    succeeds. The log is named only when some of it reached `log_dir` (the run folder).
    """
    engine_env = job.envs.get(point.engine)
    outcome = LaunchOutcome(status="harness_error", error_kind=kind, error_message=message, record=None,
                            exit_code=None, t_kv_s=None, t_ready_s=None, engine_s=0.0, wall_s=wall_s)
    ctx = RowContext(run_id=job.run_id, engine_version=getattr(engine_env, "engine_version", None),
                     torch_version=getattr(engine_env, "torch_version", None), device_name=None,
                     device_total_mib=None, driver_version=None, compile_cache=getattr(job, "compile_cache", "cold"),
                     gpu_indices=None if gpus is None else ",".join(map(str, gpus)),
                     node=node or socket.gethostname())
    log_rel = f"logs/{point.name}.log"
    has_log = log_dir is not None and (Path(log_dir) / log_rel).is_file()
    started_at = started_at or utc_now_iso()
    row = make_row(point, outcome, ctx, started_at, log_rel if has_log else None)
    return PointResult(point=point, row=row, outcome=outcome)
