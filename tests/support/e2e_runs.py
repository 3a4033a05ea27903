"""The real-engine runs every end-to-end check shares: one `harness run` of each scenario per test
session, so a launch serves every assertion on it and no test module launches the same engine with
the same flags again.

Each run launches a selection of its scenario's points (`--points`): every behaviour the checks read,
once. The runs start in the background as soon as the session has collected a test that needs one
(tests/conftest.py), one after the other, and overlap the rest of the suite. Under pytest-xdist the
controller launches them (it runs no test; the workers give up CPU priority to its engines) and the
workers' session fixtures read each stage's outcome from the runs' folder. Every figure the checks
compare comes from the engines' own readings (tests/support/engine_reading.py), so what else runs
beside them moves a result only where the engine's pool itself follows the host's free memory
(SGLang-CPU): those checks bound what moved by the engine's own two readings.
The session fixtures `cpu_tiny_run` and `cpu_budget_run` wait for them.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest

from harness.atomic import write_text
from harness.envs import default_cache_dir, host_is_cpu_only
from harness.results.io import read_results
from harness.scenario import Point, expand, load_scenario
from tests.support.engine_envs import ensure_env

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class E2ERun:
    """One `harness run` of a scenario's selected points: its folder, rows, and what it printed."""

    run_dir: Path
    frame: pd.DataFrame
    selection: tuple[Point, ...]
    returncode: int
    stdout: str
    stderr: str

    def in_selection(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of another results file (a committed baseline) for the points this run launched."""
        ids = {(p.point_id, p.engine_version) for p in self.selection}
        return frame[[key in ids for key in zip(frame["point_id"], frame["engine_version"])]]


def select(scenario: Path, wanted: dict[tuple[str, str], dict[str, list]]) -> tuple[Point, ...]:
    """The scenario's points whose knobs all take one of the wanted values, per (engine, release)."""
    def chosen(point: Point) -> bool:
        knobs = wanted.get((point.engine, point.engine_version))
        return knobs is not None and all(point.args.get(knob) in values for knob, values in knobs.items())

    return tuple(p for p in expand(load_scenario(scenario)) if chosen(p))


RUNNING: set[subprocess.Popen] = set()


def run_selection(scenario: Path, selection: tuple[Point, ...], run_dir: Path, resume: bool = False,
                  environ: dict[str, str] | None = None, options: tuple[str, ...] = ()) -> E2ERun:
    """`harness run` of the selected points into `run_dir` (with `resume`: adding them to its rows), in
    `environ` (default: this process's environment now), with `options` of `run`."""
    points = ",".join(f"{p.point_id}@{p.engine_version}" for p in selection)
    where = ["--resume", str(run_dir)] if resume else ["--out", str(run_dir)]
    with subprocess.Popen([sys.executable, "-m", "harness", "run", str(scenario), *where, "--points", points,
                           *options],
                          cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ if environ is None else environ)) as proc:
        RUNNING.add(proc)
        stdout, stderr = proc.communicate()
        RUNNING.discard(proc)
    frame = read_results(run_dir / "results.csv") if (run_dir / "results.csv").is_file() else pd.DataFrame()
    return E2ERun(run_dir, frame, selection, proc.returncode, stdout, stderr)


CPU_TINY = REPO / "scenarios" / "cpu_tiny.yaml"
# The main job on pinned pools, each behaviour once: vLLM's 1 GiB pool served, its 256 KiB pool refused
# for 2048-token requests (a real startup error), SGLang's 4,096-token pool served. Left out: the
# scenario's second vLLM 1 GiB point (max_num_batched_tokens 512) and second SGLang chunk (512): on a
# pinned pool neither moves KV, and SGLang's default fraction takes max(chunk, 2048), the same for both.
CPU_TINY_SELECTED = {
    ("vllm", "0.32.0"): {"max_num_batched_tokens": [256]},
    ("sglang", "0.5.22"): {"chunked_prefill_size": [256]},
}

CPU_BUDGET = REPO / "scenarios" / "cpu_budget.yaml"
# Where the knobs move KV, each behaviour once (the committed baseline has all 16 points): vLLM's fraction
# moving KV (0.06, 0.1) and its refusal (0.99); SGLang 0.5.22's default fraction at two chunk sizes, an
# explicit fraction and the one too small to start; SGLang 0.5.23's default and explicit fraction, against
# 0.5.22's. Left out: vLLM 0.1/2048 and SGLang 0.1/8192 (the batch knob does not move these pools),
# SGLang 0.05 (an explicit fraction is one behaviour; 0.1 shows it) and 0.5.23's repeats of 0.5.22's points.
CPU_BUDGET_VLLM = {
    ("vllm", "0.32.0"): {"gpu_memory_utilization": [0.06, 0.1, 0.99], "max_num_batched_tokens": [256]},
}
# The fraction too small to start (0.001) is among them: it is refused because what SGLang's processes take
# while loading (~50 MiB) exceeds 0.001 of the free memory (~20 MiB), and beside other tests memory freed in
# that moment let it start (seen: 54,003 tokens, f x free less the pool = -0.006 GiB).
CPU_BUDGET_SGLANG = {
    ("sglang", "0.5.22"): {"mem_fraction_static": [None, 0.1, 0.001], "chunked_prefill_size": [12288, 13312, 2048]},
    ("sglang", "0.5.23"): {"mem_fraction_static": [None, 0.1], "chunked_prefill_size": [12288, 2048]},
}


@dataclass(frozen=True)
class Stage:
    """Points of a run launched together, with `options` of `run`."""

    wanted: dict[tuple[str, str], dict[str, list]]
    options: tuple[str, ...] = ()


# name -> (scenario, stages in the order they run, into one run folder)
RUNS: dict[str, tuple[Path, tuple[Stage, ...]]] = {
    # probed once ready (the probe's defaults): its measurements ride on the launches the suite makes anyway
    "cpu_tiny_run": (CPU_TINY, (Stage(CPU_TINY_SELECTED, options=("--stop-after", "probe")),)),
    "cpu_budget_run": (CPU_BUDGET, (Stage(CPU_BUDGET_VLLM), Stage(CPU_BUDGET_SGLANG))),
}
# How long a test waits for the shared runs: every launch of both, on a host busy with the rest of the suite.
RUNS_WAIT_S = 3 * 3600


def is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def runs_root(config: pytest.Config) -> Path:
    """The folder of the session's shared runs: under the session's base temp dir, which under pytest-xdist is the
    controller's, the parent of each worker's (xdist/workermanage.py: basetemp / "popen-gwN")."""
    base = config._tmp_path_factory.getbasetemp()  # what the tmp_path_factory fixture returns
    return (base.parent if is_xdist_worker(config) else base) / "e2e-runs"


def _outcome_path(root: Path, name: str, index: int) -> Path:
    return root / name / f"stage-{index}.json"


class BackgroundRuns:
    """The shared runs' stages, one at a time on a thread of the process that launches them. One at a time:
    SGLang-CPU sizes its pool from the host's system-wide free memory, read twice a few seconds apart (0.5.22
    sglang/srt/distributed/bootstrap.py:187-217, then after loading), and another engine allocating its pool in
    that moment would move it by gigabytes, where the rest of the suite moves it by tenths of a GiB (a fresh-clone
    CI, 2026-12-05: one pool 0.33 GiB above f x its first reading, memory given back during its load)."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="e2e-run")
        self.started: set[str] = set()
        self.environ: dict[str, str] | None = None
        self.cache_dir: Path | None = None
        self.cpu_build: bool | None = None

    def start(self, names, root: Path) -> None:
        # The environment as the session began, before any test: tests that set variables while they run
        # (KV_HARNESS_CACHE_DIR to a folder of fake envs, say) must not reach the runs going on beside them.
        # The device too: the GPU host stand-in's tests clear KV_HARNESS_DEVICE and fake NVML for a while, and an
        # env asked for from this thread meanwhile was the GPU build (a fresh-clone CI on an empty cache tried to
        # install vllm-0.32.0 for CUDA, 2026-12-04).
        if self.environ is None:
            self.environ, self.cache_dir, self.cpu_build = dict(os.environ), default_cache_dir(), host_is_cpu_only()
        for name, (scenario, stages) in RUNS.items():
            if name in names and name not in self.started:
                self.started.add(name)
                for i, stage in enumerate(stages):
                    self.pool.submit(self._stage, scenario, stage, root / name / "run", i > 0,
                                     _outcome_path(root, name, i))

    def _stage(self, scenario: Path, stage: Stage, run_dir: Path, resume: bool, outcome: Path) -> None:
        try:
            for engine, release in stage.wanted:
                ensure_env(engine, release, self.cache_dir, self.cpu_build)
            run = run_selection(scenario, select(scenario, stage.wanted), run_dir, resume, self.environ,
                                stage.options)
            said = {"returncode": run.returncode, "stdout": run.stdout, "stderr": run.stderr}
        except Exception:  # noqa: BLE001 - an env that would not install: each test of the run says so, none hangs
            said = {"returncode": -1, "stdout": "", "stderr": traceback.format_exc()}
        write_text(outcome, json.dumps(said))

    def stop(self) -> None:
        """At the session's end: a run still going (the session was cut short) is interrupted like Ctrl-C."""
        for proc in list(RUNNING):
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
        self.pool.shutdown(wait=True, cancel_futures=True)


BACKGROUND = BackgroundRuns()


def wait_for_run(name: str, root: Path, wait_s: float = RUNS_WAIT_S) -> E2ERun:
    """The run `name` once each of its stages has said how it went, as one `harness run` of all their points."""
    scenario, stages = RUNS[name]
    deadline = time.monotonic() + wait_s
    said = []
    for i in range(len(stages)):
        path = _outcome_path(root, name, i)
        while not path.is_file():
            if time.monotonic() > deadline:
                pytest.fail(f"the shared run {name} did not finish stage {i} in {wait_s:.0f} s ({path})")
            time.sleep(1)
        said.append(json.loads(path.read_text()))
    run_dir = root / name / "run"
    frame = read_results(run_dir / "results.csv") if (run_dir / "results.csv").is_file() else pd.DataFrame()
    selection = tuple(p for stage in stages for p in select(scenario, stage.wanted))
    return E2ERun(run_dir, frame, selection, max(s["returncode"] for s in said),
                  "\n".join(s["stdout"] for s in said), "\n".join(s["stderr"] for s in said))


def shared_run(config: pytest.Config, name: str) -> E2ERun:
    root = runs_root(config)
    if not is_xdist_worker(config):  # a worker's runs are the controller's to start (tests/conftest.py)
        BACKGROUND.start({name}, root)
    return wait_for_run(name, root)


@pytest.fixture(scope="session")
def cpu_tiny_run(request) -> E2ERun:
    return shared_run(request.config, "cpu_tiny_run")


@pytest.fixture(scope="session")
def cpu_budget_run(request) -> E2ERun:
    return shared_run(request.config, "cpu_budget_run")


def alive_in(path: Path) -> list[int]:
    """Live processes whose environment names `path` (every engine process gets paths under its run folder)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(path) in (entry / "environ").read_bytes().decode(errors="replace"):
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state != "Z":
                        pids.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
    return pids
