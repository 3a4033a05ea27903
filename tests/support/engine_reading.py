"""The one place tests take host memory from: what the engine itself read.

On these VMs NUMA node 0's MemTotal and free memory move for minutes after boot, and while the memory
of an engine that just exited comes back. An expected figure computed from a reading of the test's own,
taken at another moment than the engine's, fails on a healthy machine. So every figure that derives
from host memory derives from the engine's reading: what its log states (parsed here), or what the
budget stand-in writes it read (tests/support/budget_standin.py, STANDIN_RECORD). tests/test_structure.py
fails when another test module reads /proc or /sys memory on its own.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from harness.engines.predicting import predict
from harness.predict.model import ModelDescription
from parsers import parse_log, read_log
from parsers.record import StartupRecord
from tests.support.budget_standin import pool_tokens  # the stand-in's own arithmetic, not a copy of it

BUDGET_STANDIN = Path(__file__).resolve().with_name("budget_standin.py")


@dataclass(frozen=True)
class StandinLaunch:
    """One launch of the budget stand-in, as it recorded it: what it read and what it did."""

    launch: int
    utilization: float
    max_model_len: int
    total_bytes: int  # the node's MemTotal as the stand-in read it
    available_bytes: int  # MemFree + Active(file) + Inactive(file) + SReclaimable, as read
    rss_bytes: int
    requested_bytes: int
    kv_tokens: int | None
    outcome: str  # ok | refused | too_small | crashed | hanging

    def tokens_at(self, utilization: float) -> int:
        """The stand-in's pool at another utilization on this same reading."""
        return pool_tokens(self.total_bytes, utilization, self.rss_bytes)

    def lowest_utilization_for(self, kv_tokens: int, grain: float = 0.01) -> float:
        """The lowest utilization on the grain whose pool holds `kv_tokens`, on this reading."""
        steps = 1
        while self.tokens_at(round(steps * grain, 2)) < kv_tokens:
            steps += 1
            assert steps * grain <= 1, f"{kv_tokens} tokens do not fit this reading"
        return round(steps * grain, 2)


# The simulated host the budget stand-in reads unless a test says otherwise: a node like this project's
# 24 GiB VMs once settled. Pinned, because a search's launch count must not depend on when it runs: these
# VMs' node grows from 3.6 to 20+ GiB over the first minutes after boot (the fast suite's minutes), and a
# stand-in reading the live node would meet a target at another fraction at every launch.
SIMULATED_NODE = {"STANDIN_NODE_MIB": "24105,22528"}


def standin_scenario(root: Path, utilization: float = 0.5, env: dict[str, str] | None = None) -> Path:
    """A scenario whose vLLM is the budget stand-in (a fake env under `root`), sweeping one utilization;
    the stand-in records its launches into `standin_record(root)`, with `env` set for it (over the
    simulated node, SIMULATED_NODE)."""
    from tests.support.fake_env import make_fake_env

    python = make_fake_env(root / "env", {})
    exports = " ".join(f"{k}={v}" for k, v in {"STANDIN_RECORD": standin_record(root), **SIMULATED_NODE,
                                                 **(env or {})}.items())
    (python.parent / "vllm").write_text(f"#!/bin/sh\nexport {exports}\nexec {sys.executable} {BUDGET_STANDIN} \"$@\"\n")
    path = root / "standin.yaml"
    path.write_text(f"""
name: standin
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: null}}
defaults: {{max_model_len: 512, dtype: float16}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    args: {{enforce_eager: true}}
    sweep: {{gpu_memory_utilization: [{utilization}]}}
run: {{timeout_s: 30, stop_after: ready}}
""")
    return path


def standin_record(root: Path) -> Path:
    return root / "standin-record.jsonl"


def standin_launches(record: Path) -> list[StandinLaunch]:
    """Every launch the stand-in recorded into `record` (its STANDIN_RECORD file), in order."""
    if not record.exists():
        return []
    return [StandinLaunch(**json.loads(line)) for line in record.read_text().splitlines() if line.strip()]


def standin_reading(utilization: float = 0.5, max_model_len: int = 512,
                    env: dict[str, str] | None = None) -> StandinLaunch:
    """One short launch of the stand-in (no server) for what it reads, with `env` set for it (over the
    simulated node, SIMULATED_NODE)."""
    record = Path(os.environ.get("TMPDIR", "/tmp")) / f"standin-reading-{os.getpid()}-{id(object())}.jsonl"
    try:
        subprocess.run([sys.executable, str(BUDGET_STANDIN), "serve", "model", "--gpu-memory-utilization",
                        str(utilization), "--max-model-len", str(max_model_len)], check=False,
                       env={**os.environ, **SIMULATED_NODE, **(env or {}), "STANDIN_RECORD": str(record)},
                       capture_output=True, timeout=60)
        (launch,) = standin_launches(record)
        return launch
    finally:
        record.unlink(missing_ok=True)


@functools.cache
def logged_record(log: Path, engine: str) -> StartupRecord:
    """The engine's log read by the harness's parser: its readings (vLLM-CPU's node total and request,
    SGLang's free memory before loading and its fraction) are in the record's fields. Read once per log: the
    tests read finished runs' logs, several tests the same ones; callers must not change the record."""
    return parse_log(read_log(log), engine)


GiB = 1 << 30


def vllm_cpu_rss_estimate_gib(model: ModelDescription, max_num_batched_tokens: int, release: str = "0.32.0",
                              cpu_flags: frozenset[str] | None = None) -> float:
    """What the predictor estimates vLLM-CPU's worker holds after an eager fp16 start (no warm-up forward): the
    weights it counts plus its estimate R beside them (the release's runtime, the vocab matrices' packed copies
    where the host's CPU packs - `cpu_flags`: None, not known, assumed - and the runner's buffer), read from a
    prediction for such a point, so a test sets the predictor's own figure against what the engine logged."""
    p = predict("vllm", {"enforce_eager": True, "dtype": "float16", "max_num_batched_tokens": max_num_batched_tokens,
                         "max_model_len": 256},
                model, gpu_total_mib=1 << 20, device="cpu", engine_version=release, cpu_flags=cpu_flags)
    return p.weights_gib + p.estimates["R"].gib


# SGLang-CPU sizes its pool as f x its pre-load free reading less what its processes take between that
# reading and the next (0.5.22 kv_cache_configurator.py:2671); the second reading is not logged. What it
# took on the committed cpu_budget baseline's ten SGLang rows: 0.050-0.066 GiB (f x logged reading less
# the logged pool). The harness predicts with 0.05 (harness/engines/sglang/formulas.py).
SGLANG_UNLOGGED_SPREAD_GIB = 0.016


def unlogged_gib(record: StartupRecord, engine: str, kv_bytes_per_token: int) -> float | None:
    """What the engine took from its budget that its log does not state, GiB, from the figures it does:
    vLLM-CPU: the request less the pool (its worker's RSS, which it logs rounded: non_kv_gib);
    SGLang-CPU: f x its pre-load free reading less the pool."""
    if record.kv_tokens is None:
        return None
    pool = record.kv_tokens * kv_bytes_per_token / GiB
    if engine == "vllm" and record.requested_memory_gib is not None:
        return record.requested_memory_gib - pool
    if engine == "sglang" and record.avail_mem_before_load_gib is not None:
        return record.mem_fraction_static_effective * record.avail_mem_before_load_gib - pool
    return None
