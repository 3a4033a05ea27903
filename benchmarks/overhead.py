"""Harness overhead per point: the sweep's wall time against the engines' own time.

    python benchmarks/overhead.py [SCENARIO] [--engines vllm]

Runs the scenario for real (default scenarios/cpu_tiny.yaml) and reports per point:
the engine's time to its stop condition, the time to stop its processes (the engine's
own exit, unavoidable), and what is left: the harness's own overhead. Target: overhead
<= 0.5 s per point and (point time - stop time) / engine time <= 1.02.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness.execute.run import RunOptions, run_scenario


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", nargs="?", default="scenarios/cpu_tiny.yaml")
    parser.add_argument("--engines")
    args = parser.parse_args()
    started: dict[tuple[str, int], float] = {}
    per_point = []

    def on_start(point, index, total):
        started[(point.point_id, point.repeat)] = time.monotonic()

    def on_end(result):
        point_s = time.monotonic() - started[(result.point.point_id, result.point.repeat)]
        o = result.outcome
        overhead = point_s - o.engine_s - o.stop_s
        per_point.append((result.point.engine, result.point.point_id, result.row["status"], o.engine_s, o.stop_s,
                          point_s, overhead))

    with tempfile.TemporaryDirectory() as out:
        run_scenario(args.scenario, RunOptions(out=Path(out) / "run",
                                               engines=args.engines.split(",") if args.engines else None),
                     on_point_start=on_start, on_point_end=on_end)
    print(f"{'engine':7} {'point':10} {'status':12} {'engine_s':>9} {'stop_s':>7} {'point_s':>8} "
          f"{'overhead_s':>10} {'ratio':>6}")
    for engine, pid, status, engine_s, stop_s, point_s, overhead in per_point:
        ratio = (point_s - stop_s) / engine_s if engine_s else float("nan")
        print(f"{engine:7} {pid:10} {status:12} {engine_s:9.2f} {stop_s:7.2f} {point_s:8.2f} "
              f"{overhead:10.3f} {ratio:6.3f}")
    overheads = [row[-1] for row in per_point]
    ratios = [(r[5] - r[4]) / r[3] for r in per_point if r[3]]
    print(f"\nmedian overhead {statistics.median(overheads):.3f} s/point (target <= 0.5), "
          f"max {max(overheads):.3f}; median ratio {statistics.median(ratios):.4f} (target <= 1.02)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
