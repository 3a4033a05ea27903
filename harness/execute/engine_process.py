"""One engine launch made concrete: its interpreter, port, work dir and environment -> a LaunchSpec."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.childproc import child_environ
from harness.engines.base import Engine
from harness.execute.launcher import LaunchSpec
from harness.scenario.point import Point


@dataclass(frozen=True)
class LaunchContext:
    """Where and how one point runs."""

    python: str  # the engine environment's interpreter
    env_vars: dict[str, str]  # what the engine environment needs (PATH, LD_LIBRARY_PATH, ...)
    model_path: str
    port: int
    work_dir: Path  # per-point TMPDIR and, for a cold compile cache, the caches
    cache_dir: Path  # the engine's compile caches: per point (cold) or shared by the run's points (warm)
    # The engine's TMPDIR. Engines put Unix sockets there (vLLM's ZMQ IPC paths), whose paths may not
    # exceed 107 bytes, so it is a short directory of its own rather than one deep in the run folder.
    tmp_dir: Path | None = None


def process_env(engine: Engine, point_env: dict[str, str], ctx: LaunchContext) -> dict[str, str]:
    """The engine process environment: ours, minus what would leak into the engine's interpreter."""
    env = child_environ(ctx.env_vars)
    ctx.work_dir.mkdir(parents=True, exist_ok=True)  # the engine's working directory
    tmp = ctx.tmp_dir or ctx.work_dir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env["TMPDIR"] = str(tmp)
    env.update(engine.launch.cache_env(ctx.cache_dir))
    # Engines log through Python logging; unbuffered so every line reaches us when printed.
    env["PYTHONUNBUFFERED"] = "1"
    if Path(ctx.model_path).is_dir():
        env["HF_HUB_OFFLINE"] = "1"  # a local model never needs the hub; don't let a lookup hang
    env.update(point_env)
    return env


def launch_args(engine: Engine, args: dict[str, Any], stop_after: str) -> dict[str, Any]:
    """The point's flags, and for a probe what the engine's serving API needs at launch (SGLang's metrics)."""
    if stop_after != "probe" or engine.serving is None:
        return args
    return {**engine.serving.launch_args, **args}


def launch_spec(engine: Engine, point: Point, ctx: LaunchContext, log_path: Path, stop_after: str,
                timeout_s: float) -> LaunchSpec:
    return LaunchSpec(
        argv=engine.launch.command(ctx.python, ctx.model_path, ctx.port, launch_args(engine, point.args, stop_after),
                                   version=point.engine_version),
        env=process_env(engine, point.env, ctx),
        log_path=log_path,
        make_parser=engine.logs.make_parser,
        stop_after=stop_after,
        timeout_s=timeout_s,
        readiness_url=f"http://127.0.0.1:{ctx.port}{engine.launch.readiness_path}",
        cwd=ctx.work_dir,
    )
