"""Launches `advise` needs to meet a KV target, against the grid a user would sweep.

    python benchmarks/advise.py [--engines vllm,sglang] [--scenario scenarios/cpu_budget.yaml]

For each engine, three targets (KV tokens at max_model_len 512, chosen to need pools of about
0.5, 1.2 and 2 GiB on this project's 24 GiB host) are met by real launches of the scenario's
engines. The grid is what a user sweeps by hand to the same question: 4 fractions x 3 batch
values (scenarios/24g_8b.yaml's vLLM sweep), 12 launches, at a 0.05 grain where advise ends at
0.01. Goal: <= 3 launches per target where the grid needs >= 12; it prints the ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from harness.advise.loop import Request, run_advice
from harness.advise.render import render_text
from harness.advise.search import Target

GRID_LAUNCHES = 12
TARGETS = {"vllm": (1_000_000, 2_500_000, 4_000_000), "sglang": (1_000_000, 3_000_000, 5_000_000)}
MAX_MODEL_LEN = 512


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engines", default="vllm,sglang")
    parser.add_argument("--scenario", default="scenarios/cpu_budget.yaml")
    parser.add_argument("--engine-version", action="append", default=[], metavar="ENGINE==VERSION",
                        help="for a scenario that lists several releases of an engine (cpu_budget's SGLang)")
    args = parser.parse_args()
    versions = dict(item.split("==", 1) for item in args.engine_version) or {"sglang": "0.5.22"}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for engine in args.engines.split(","):
            for i, tokens in enumerate(TARGETS[engine]):
                request = Request(Path(args.scenario), engine, Target(MAX_MODEL_LEN, tokens), Path(tmp) / f"{engine}-{i}")
                start = time.monotonic()
                advice = run_advice(request, [], engine_versions={k: v for k, v in versions.items() if k == engine})
                wall = time.monotonic() - start
                best = advice.step.best
                rows.append((engine, tokens, best.setting.fraction if best else None, best.kv_tokens if best else None,
                             advice.step.margin.setting.fraction if advice.step.margin else None,
                             len(advice.launches), wall))
                print(f"{engine} {tokens:,}: {len(advice.launches)} launches, {wall:.0f} s", file=sys.stderr, flush=True)
                print(render_text(advice), file=sys.stderr, flush=True)
    print(f"{'engine':7} {'target':>10} {'fraction':>8} {'measured':>10} {'margin':>7} {'launches':>8} {'grid':>5} "
          f"{'ratio':>6} {'wall_s':>7}")
    for engine, tokens, fraction, measured, margin, launches, wall in rows:
        print(f"{engine:7} {tokens:>10,} {fraction if fraction is not None else '-':>8} "
              f"{measured if measured is not None else '-':>10} {margin if margin is not None else '-':>7} "
              f"{launches:>8} {GRID_LAUNCHES:>5} {GRID_LAUNCHES / launches:>6.1f} {wall:>7.0f}")
    worst = max(r[5] for r in rows)
    print(f"most launches for one target: {worst} (goal <= 3); grid {GRID_LAUNCHES}: "
          f"{GRID_LAUNCHES / (sum(r[5] for r in rows) / len(rows)):.1f}x fewer launches on average")
    return 0 if worst <= 3 else 1


if __name__ == "__main__":
    sys.exit(main())
