"""Scenarios whose vLLM is the serving stand-in (tests/support/serving_standin.py), for the probe's tests."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.results.probe import read_waves
from tests.support.fake_env import make_fake_env

SERVING_STANDIN = Path(__file__).resolve().with_name("serving_standin.py")


def serving_scenario(root: Path, env: dict[str, str] | None = None, probe: str = "{}",
                     max_model_len: int = 512) -> Path:
    """A scenario of one vLLM point served by the stand-in (its settings in `env`), run to stop_after: probe with
    the run's `probe` block (YAML)."""
    python = make_fake_env(root / "env", {})
    exports = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    (python.parent / "vllm").write_text(
        f"#!/bin/sh\n{'export ' + exports if exports else ''}\nexec {sys.executable} {SERVING_STANDIN} \"$@\"\n")
    path = root / "serving.yaml"
    path.write_text(f"""
name: serving
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: null}}
defaults: {{max_model_len: {max_model_len}, dtype: float16}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    sweep: {{gpu_memory_utilization: [0.5]}}
run: {{timeout_s: 60, stop_after: probe, probe: {probe}}}
""")
    return path


def waves_of(row) -> dict[str, dict]:
    """A results row's probe waves by name (prompt_heavy@512)."""
    return {wave["wave"]: wave for wave in read_waves(row["probe_waves"])}


def well_sampled(wave: dict, per_s: float = 4.0) -> bool:
    """At least one metrics reading per 1/per_s seconds of the wave (a wave shorter than that: at least one)."""
    return wave["samples"] >= max(1, int(wave["duration_s"] * per_s))
