"""Sparse against the full grid: launches and wall time of `run --sparse` on scenarios/24g_8b.yaml's 27 points.

    python benchmarks/sparse.py [--launch-s 90] [--jitter-mib 0] [--smoke]

Every launch is answered by the GPU host stand-in's arithmetic (tests/support/sparse_standin.py: vLLM 0.32.0 and
SGLang 0.5.22 as read from their source, Llama-3.1-8B on an RTX 4090) in-process, so what is timed is the sparse
loop itself (its predictions and fits); a real launch's time is `--launch-s` (an 8B model takes one to three minutes
to reach its KV line on a GPU; llama-1.4gb 60-100 s on results/cpu_sparse's 2-core host). `--jitter-mib`: each
launch's memory beside the pool moves by up to that much, as a real engine's does. `--smoke`: the vLLM points only.
The real-engine figures are in results/cpu_sparse/README.md; this measures nothing of an engine.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's harness and tests.support, no PYTHONPATH

from harness.sparse.loop import SparseOptions, run_sparse  # noqa: E402
from tests.support.sparse_standin import MODEL, StandIn, initial, scenario_points  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launch-s", type=float, default=90.0, help="seconds one real launch takes")
    parser.add_argument("--jitter-mib", type=float, default=0.0)
    parser.add_argument("--tolerance-pct", type=float, default=1.0)
    parser.add_argument("--smoke", action="store_true", help="the smallest setting: the vLLM points only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        points = scenario_points(Path(tmp), vllm_only=args.smoke)
    stand_in = StandIn(jitter_mib=args.jitter_mib, seed=1)
    t0 = time.monotonic()
    outcome = run_sparse(points, MODEL, stand_in, [], initial, SparseOptions(tolerance_pct=args.tolerance_pct))
    loop_s = time.monotonic() - t0
    launches, grid = len(stand_in.launched), len(points)
    misses = sum(1 for e in outcome.estimates if _outside(e, stand_in))
    print(f"points: {grid}; full grid: {grid} launches, {grid * args.launch_s / 60:.1f} min "
          f"at {args.launch_s:g} s each")
    print(f"sparse: {launches} launches ({launches / grid:.2f} of the grid), "
          f"{(launches * args.launch_s + loop_s) / 60:.1f} min; the loop itself {loop_s:.2f} s")
    print(f"predicted: {len(outcome.estimates)} points, {misses} outside their bound or with another outcome; "
          f"unresolved: {len(outcome.unresolved)}")
    return 0 if misses == 0 else 1


def _outside(estimate, stand_in: StandIn) -> bool:
    truth = stand_in.oracle(estimate.point)
    if estimate.prediction.will_start != (truth["status"] == "ok"):
        return True
    if truth["status"] != "ok":
        return False
    error = abs(estimate.prediction.kv_tokens - truth["kv_tokens"]) / truth["kv_tokens"] * 100
    return error > (estimate.bound_pct or 0.0)


if __name__ == "__main__":
    raise SystemExit(main())
