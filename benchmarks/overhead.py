"""Harness overhead per point: the sweep's wall time against the engines' own time.

    python benchmarks/overhead.py [SCENARIO] [--engines vllm] [--smoke]

Runs the scenario for real (default scenarios/cpu_tiny.yaml) and reports per point:
the engine's time to its stop condition, the time to stop its processes (the engine's
own exit, unavoidable), and what is left: the harness's own overhead. Target: overhead
<= 0.5 s per point and (point time - stop time) / engine time <= 1.02.
`--smoke`: two points of the stand-in engine (tests/support/fake_env.py) replaying a recorded
vLLM-CPU startup at 100x real time instead of a real engine, in a few seconds; the same figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's harness and tests.support, no PYTHONPATH

from harness.execute.host import HOST_WAIT_ENV  # noqa: E402
from harness.execute.run import RunOptions, run_scenario  # noqa: E402
from harness.results.rows import PointResult  # noqa: E402

SMOKE_POINTS = (1, 2)
SMOKE_SPEED = 100.0  # the recorded startup (72 s) in under a second


def smoke_scenario(root: Path) -> Path:
    """A sweep of the stand-in engine replaying a real vLLM-CPU startup with its timing."""
    from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml

    os.environ.setdefault("KV_HARNESS_MODELS_DIR", str(root / "models"))
    # A stand-in holds no host memory: nothing to wait for before and after its points (tests/support/host_waits.py)
    os.environ.setdefault(HOST_WAIT_ENV, "0")
    replay = ["--log", str(OK_LOG.with_suffix(".tlog")), "--speed", str(SMOKE_SPEED)]
    python = make_fake_env(root / "env", dict.fromkeys(SMOKE_POINTS, replay))
    scenario = root / "smoke.yaml"
    scenario.write_text(scenario_yaml(python, list(SMOKE_POINTS), timeout_s=30, name="overhead-smoke"))
    return scenario


def measure(scenario: Path, out: Path, engines: list[str] | None) -> list[tuple]:
    """Per point: (engine, point, status, engine_s, stop_s, point_s, overhead_s)."""
    started: dict[tuple[str, int], float] = {}
    per_point = []

    def on_start(point, index, total):
        started[(point.point_id, point.repeat)] = time.monotonic()

    def on_end(result: PointResult):
        point_s = time.monotonic() - started[(result.point.point_id, result.point.repeat)]
        engine_s, stop_s = result.timings.engine_s or 0.0, result.timings.stop_s or 0.0
        per_point.append((result.point.engine, result.point.point_id, result.status, engine_s, stop_s,
                          point_s, point_s - engine_s - stop_s))

    run_scenario(scenario, RunOptions(out=out, engines=engines), on_point_start=on_start, on_point_end=on_end)
    return per_point


def report(per_point: list[tuple]) -> None:
    print(f"{'engine':7} {'point':16} {'status':12} {'engine_s':>9} {'stop_s':>7} {'point_s':>8} "
          f"{'overhead_s':>10} {'ratio':>6}")
    for engine, pid, status, engine_s, stop_s, point_s, overhead in per_point:
        ratio = (point_s - stop_s) / engine_s if engine_s else float("nan")
        print(f"{engine:7} {pid:16} {status:12} {engine_s:9.2f} {stop_s:7.2f} {point_s:8.2f} "
              f"{overhead:10.3f} {ratio:6.3f}")
    overheads = [row[-1] for row in per_point]
    ratios = [(r[5] - r[4]) / r[3] for r in per_point if r[3]]
    median_ratio = f"{statistics.median(ratios):.4f}" if ratios else "-"
    print(f"\nmedian overhead {statistics.median(overheads):.3f} s/point (target <= 0.5), "
          f"max {max(overheads):.3f}; median ratio {median_ratio} (target <= 1.02)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", nargs="?", default="scenarios/cpu_tiny.yaml")
    parser.add_argument("--engines")
    parser.add_argument("--smoke", action="store_true", help="the stand-in engine, two points, a few seconds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kvh-bench-") as tmp:
        scenario = smoke_scenario(Path(tmp)) if args.smoke else Path(args.scenario)
        per_point = measure(scenario, Path(tmp) / "run", args.engines.split(",") if args.engines else None)
    if not per_point:
        print("no point ran", file=sys.stderr)
        return 1
    report(per_point)
    return 0


if __name__ == "__main__":
    sys.exit(main())
