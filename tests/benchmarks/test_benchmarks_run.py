"""Every benchmark in benchmarks/ runs as its docstring says: `python benchmarks/NAME.py --smoke` from the
checkout's root, without PYTHONPATH, exits 0 and prints its figures (stand-ins, no real engine).

The convention (benchmarks/README.md): each benchmark takes `--smoke`, its smallest setting on stand-ins in a
few seconds, and prints its figures to stdout the normal way, its summary line last; progress goes to stderr.
A benchmark added to benchmarks/ is run here with no change to this file; FIGURES holds the lines a known one
must print besides. The benchmarks start at once (most of their time is the stand-ins' replay, not CPU), and
each test waits for its own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.execute.host import HOST_WAIT_ENV

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py") if not p.name.startswith("_"))
NUMBER = re.compile(r"\d")

# The figures lines a benchmark prints (a regex per line, matched against a whole stdout line).
FIGURES = {
    "advise.py": [r"vllm: 2 targets, launches max \d+, mean \d+\.\d\d \(goal <= 3\)"],
    "overhead.py": [(r"median overhead \d+\.\d{3} s/point \(target <= 0\.5\), max \d+\.\d{3}; "
                    r"median ratio \d+\.\d{4} \(target <= 1\.02\)")],
    "parallel.py": [r"sequential: +\d+\.\d s +\(a point: \d+\.\d\d s\)",
                    r"parallel \(2 GPUs\): +\d+\.\d s +\(a point: \d+\.\d\d s\)",
                    r"ratio parallel/sequential: \d+\.\d\d \(ideal 0\.50\)"],
    "parse_speed.py": [r"\d+ logs, \d+ lines: best of 1 = [\d.]+ ms, [\d.]+ us/line \(target <= 200\)",
                       (r"parse, 1 MB server log \(startup, then serving lines\): peak RSS \d+ MB .*, "
                       r"[\d.]+ MB/s .*kv_tokens \d+")],
}


@pytest.fixture(scope="module")
def smoke_runs(tmp_path_factory):
    """Every benchmark's `--smoke`, started together; name -> its process (stdout, stderr to files)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env[HOST_WAIT_ENV] = "0"  # stand-ins hold no host memory (tests/support/host_waits.py)
    env["KV_HARNESS_MODELS_DIR"] = str(tmp_path_factory.mktemp("models"))
    runs = {}
    for name in BENCHMARKS:
        out = tmp_path_factory.mktemp(name.removesuffix(".py"))
        with (out / "stdout").open("w") as stdout, (out / "stderr").open("w") as stderr:
            proc = subprocess.Popen([sys.executable, f"benchmarks/{name}", "--smoke"], cwd=ROOT, env=env,
                                    stdout=stdout, stderr=stderr)
        runs[name] = (proc, out)
    yield runs
    for proc, _ in runs.values():  # one that overran: SIGTERM first, so the harness stops its stand-ins
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_the_known_benchmarks_are_found():
    assert set(FIGURES) <= set(BENCHMARKS)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_runs_its_smoke_setting_and_prints_its_figures(smoke_runs, name):
    proc, out = smoke_runs[name]
    code = proc.wait(timeout=120)
    stdout, stderr = (out / "stdout").read_text(), (out / "stderr").read_text()
    assert code == 0, f"benchmarks/{name} --smoke exited {code}:\n{stderr[-3000:]}"
    lines = [line.strip() for line in stdout.splitlines() if line.strip()]
    assert lines and NUMBER.search(lines[-1]), f"benchmarks/{name} --smoke printed no summary line:\n{stdout}"
    for pattern in FIGURES.get(name, []):
        assert any(re.fullmatch(pattern, line) for line in lines), f"{pattern!r} not in:\n{stdout}"
