"""Parallel sweep speed-up: the same stand-in sweep run sequentially and on N fake GPUs.

    python benchmarks/parallel.py [--points 6] [--gpus 2] [--speed 20] [--smoke]

Each point is the stand-in engine replaying a real vLLM startup log at `--speed` times
real time (about 3.5 s a point at 20x); without NVML, `--gpus N` gives N slots that get
their own CUDA_VISIBLE_DEVICES. Target: parallel / sequential ≈ 1/N (about 0.5 on 2 GPUs)
plus the per-point harness overhead, which does not shrink. The stand-in holds no host memory, so
the harness's host-memory waits around a point alone are off (as in the tests: tests/support/host_waits.py);
with them, the sequential run would also time this host's other load.
`--smoke`: 2 points on 2 GPUs at 100x (under a second a point), the same figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's harness and tests.support, no PYTHONPATH

from harness.execute.executors import LocalGpuExecutor  # noqa: E402
from harness.execute.executors.sequential import SequentialExecutor  # noqa: E402
from harness.execute.host import HOST_WAIT_ENV  # noqa: E402
from harness.execute.run import RunOptions, run_scenario  # noqa: E402
from harness.results.io import read_results  # noqa: E402
from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml  # noqa: E402

SMOKE = {"points": 2, "gpus": 2, "speed": 100.0}


def timed_run(scenario: Path, out: Path, executor) -> tuple[float, float]:
    """(sweep wall time, mean wall_s of a point as its row records it)."""
    t0 = time.monotonic()
    run_scenario(scenario, RunOptions(out=out, executor=executor))
    elapsed = time.monotonic() - t0
    frame = read_results(out / "results.csv")
    if set(frame["status"]) != {"ok"}:
        raise SystemExit(f"{out}: not every point ok: {sorted(frame['status'])}")
    return elapsed, float(frame["wall_s"].mean())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=6)
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--speed", type=float, default=20.0, help="replay speed of the recorded log")
    parser.add_argument("--smoke", action="store_true", help=f"the smallest setting: {SMOKE}")
    args = parser.parse_args()
    if args.smoke:
        vars(args).update(SMOKE)

    with tempfile.TemporaryDirectory(prefix="kvh-bench-") as tmp:
        root = Path(tmp)
        os.environ.setdefault("KV_HARNESS_MODELS_DIR", str(root / "models"))
        os.environ.setdefault(HOST_WAIT_ENV, "0")
        values = list(range(1, args.points + 1))
        timed_log = OK_LOG.with_suffix(".tlog")
        python = make_fake_env(root / "env", {v: ["--log", str(timed_log), "--speed", str(args.speed)] for v in values})
        scenario = root / "s.yaml"
        scenario.write_text(scenario_yaml(python, values, timeout_s=120))

        sequential, seq_point = timed_run(scenario, root / "seq", SequentialExecutor())
        parallel, par_point = timed_run(scenario, root / "par",
                                        LocalGpuExecutor(list(range(args.gpus)), real_gpus=False))

    # A point's own wall time growing in parallel is CPU contention between the engines
    # (the stand-in is light, a 2-core box is not); the rest of the gap is scheduling.
    print(f"{args.points} points, stand-in at {args.speed:g}x, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print(f"sequential:         {sequential:6.1f} s  (a point: {seq_point:.2f} s)")
    print(f"parallel ({args.gpus} GPUs):  {parallel:6.1f} s  (a point: {par_point:.2f} s)")
    print(f"ratio parallel/sequential: {parallel / sequential:.2f} (ideal {1 / args.gpus:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
