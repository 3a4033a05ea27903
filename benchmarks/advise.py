"""Launches `advise` needs to meet a KV target, over the range a search on this host can reach.

    python benchmarks/advise.py [--engines vllm,sglang] [--scenario scenarios/cpu_budget.yaml]
                                [--engine-version sglang==0.5.22] [--json FILE] [--smoke]

Per engine, 12 targets (KV tokens at max_model_len 512), each met by real launches of the scenario's
engine in a fresh advise folder:
- 8 spread over the reachable range: 5 % ... 75 % of what the uncalibrated predictor gives at the
  highest fraction advise proposes here (the engine's ceiling; SGLang's default fraction);
- 4 within 1 % of a point measured by those searches (one launch's KV tokens x 1.005 or x 0.995): a
  target 0.5 % above a measured point is the near miss (that fraction falls short by a hair), 0.5 %
  below it the near hit. On a host whose free memory moves between launches, the same fraction may
  measure either side of such a target: that is the case advise has to get right.
Goal: <= 3 launches for every target. Prints launches per target and, per engine, max and mean;
`--json FILE` keeps every search's launches (fraction, measured, predicted, why).
`--smoke`: vLLM only, 2 targets (one spread, one near), each met by the budget stand-in
(tests/support/budget_standin.py, vLLM-CPU 0.32.0's budget on a simulated node) instead of a real
engine, in a few seconds; the same figures, not held to the goal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the checkout's harness and tests.support, no PYTHONPATH

from harness.advise.loop import Request, predicted_reach, run_advice  # noqa: E402
from harness.advise.render import to_json  # noqa: E402
from harness.advise.search import Target  # noqa: E402
from harness.execute.host import HOST_WAIT_ENV  # noqa: E402

MAX_MODEL_LEN = 512
SPREAD = (0.05, 0.10, 0.15, 0.25, 0.35, 0.45, 0.60, 0.75)  # of the predicted reach
NEAR = (1.005, 0.995, 1.005, 0.995)  # x a measured point's KV tokens
GOAL = 3
SMOKE_SPREAD, SMOKE_NEAR = (0.25,), (1.005,)


@dataclass
class Search:
    engine: str
    kind: str
    target: int
    launches: list[dict] = field(default_factory=list)
    recommended: float | None = None
    measured: int | None = None
    margin: float | None = None
    wall_s: float = 0.0


def run_search(scenario: Path, engine: str, kind: str, target: int, out: Path, versions: dict[str, str]) -> Search:
    start = time.monotonic()
    advice = run_advice(Request(scenario, engine, Target(MAX_MODEL_LEN, target), out), [],
                        engine_versions={k: v for k, v in versions.items() if k == engine})
    answer = to_json(advice)
    best, margin = advice.step.best, advice.step.margin
    search = Search(engine, kind, target, answer["launches"], best.setting.fraction if best else None,
                    best.kv_tokens if best else None, margin.setting.fraction if margin else None,
                    time.monotonic() - start)
    print(f"{engine} {kind} {target:,}: {len(search.launches)} launches "
          f"{[(launch['fraction'], launch['kv_tokens']) for launch in search.launches]}, {search.wall_s:.0f} s",
          file=sys.stderr, flush=True)
    return search


def near_targets(done: list[Search], near: tuple[float, ...] = NEAR) -> list[tuple[str, int]]:
    """Targets within 1 % of points these searches measured, from searches spread over the range."""
    measured = [launch["kv_tokens"] for s in done for launch in s.launches
                if launch["status"] == "ok" and launch["kv_tokens"]]
    picks = [measured[round(i * (len(measured) - 1) / max(1, len(near) - 1))] for i in range(len(near))]
    return [(f"near {factor - 1:+.1%}", int(point * factor)) for point, factor in zip(picks, near)]


def smoke_scenario(root: Path) -> Path:
    """The budget stand-in as the scenario's vLLM: a search's launches take a fraction of a second."""
    from tests.support.engine_reading import standin_scenario

    os.environ.setdefault("KV_HARNESS_MODELS_DIR", str(root / "models"))
    # A stand-in holds no host memory: nothing to wait for around its points (tests/support/host_waits.py)
    os.environ.setdefault(HOST_WAIT_ENV, "0")
    return standin_scenario(root / "standin")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engines", default="vllm,sglang")
    parser.add_argument("--scenario", default="scenarios/cpu_budget.yaml")
    parser.add_argument("--engine-version", action="append", default=[], metavar="ENGINE==VERSION",
                        help="for a scenario that lists several releases of an engine (cpu_budget's SGLang)")
    parser.add_argument("--json", type=Path, help="write every search's launches here")
    parser.add_argument("--smoke", action="store_true", help="vLLM's budget stand-in, 2 targets, a few seconds")
    args = parser.parse_args()
    versions = {"sglang": "0.5.22", **dict(item.split("==", 1) for item in args.engine_version)}
    spread, near = (SMOKE_SPREAD, SMOKE_NEAR) if args.smoke else (SPREAD, NEAR)
    searches: list[Search] = []

    def search(engine: str, kind: str, target: int, out: Path) -> Search:
        done = run_search(scenario, engine, kind, target, out, versions)
        searches.append(done)
        if args.json:  # after every search: an interrupted benchmark keeps what it measured
            args.json.write_text(json.dumps([s.__dict__ for s in searches], indent=1))
        return done

    with tempfile.TemporaryDirectory(prefix="kvh-bench-") as tmp:
        scenario = smoke_scenario(Path(tmp)) if args.smoke else Path(args.scenario)
        for engine in ("vllm",) if args.smoke else args.engines.split(","):
            ceiling, reach = predicted_reach(scenario, engine, MAX_MODEL_LEN,
                                             {k: v for k, v in versions.items() if k == engine})
            print(f"{engine}: predicted reach {reach:,} KV tokens at {ceiling:g}", file=sys.stderr, flush=True)
            mine = [search(engine, "spread", int(reach * share), Path(tmp) / f"{engine}-s{i}")
                    for i, share in enumerate(spread)]
            for i, (kind, target) in enumerate(near_targets(mine, near)):
                search(engine, kind, target, Path(tmp) / f"{engine}-n{i}")
    print(f"{'engine':7} {'kind':11} {'target':>11} {'fraction':>8} {'measured':>11} {'margin':>6} {'launches':>8} "
          f"{'wall_s':>6}")
    for s in searches:
        print(f"{s.engine:7} {s.kind:11} {s.target:>11,} {s.recommended if s.recommended is not None else '-':>8} "
              f"{f'{s.measured:,}' if s.measured is not None else '-':>11} "
              f"{s.margin if s.margin is not None else '-':>6} {len(s.launches):>8} {s.wall_s:>6.0f}")
    for engine in dict.fromkeys(s.engine for s in searches):
        counts = [len(s.launches) for s in searches if s.engine == engine]
        unmet = sum(1 for s in searches if s.engine == engine and s.recommended is None)
        print(f"{engine}: {len(counts)} targets, launches max {max(counts)}, mean {sum(counts) / len(counts):.2f}"
              f"{f', {unmet} not met' if unmet else ''} (goal <= {GOAL})")
    worst = max(len(s.launches) for s in searches)
    if args.smoke:  # it ran; two targets on a stand-in say nothing about the goal
        return 0
    return 0 if worst <= GOAL and all(s.recommended is not None for s in searches) else 1


if __name__ == "__main__":
    sys.exit(main())
