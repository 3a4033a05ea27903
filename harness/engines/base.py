"""What every engine adapter provides; the launcher and sweep code only talk to this."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.knobs import Knob

# The harness owns these: it picks the port, binds to loopback and names the model.
HARNESS_OWNED_FLAGS = frozenset({"host", "port", "model", "model_path"})


def flag_name(key: str) -> str:
    """`max_num_batched_tokens` -> `--max-num-batched-tokens` (the one place that maps keys to flags)."""
    return "--" + key.replace("_", "-")


def render_flags(args: dict[str, Any]) -> list[str]:
    """Engine argv for resolved args: None = not passed, True = bare flag, False = not passed."""
    argv: list[str] = []
    for key in sorted(args):
        value = args[key]
        if value is None or value is False:
            continue
        if key.startswith("--"):  # verbatim pass-through, see README "args"
            argv.append(key)
            if value is not True:
                argv.append(str(value))
            continue
        argv.append(flag_name(key))
        if value is True:
            continue
        if isinstance(value, (list, tuple)):
            argv.extend(str(v) for v in value)
        elif isinstance(value, dict):
            argv.append(json.dumps(value, separators=(",", ":"), sort_keys=True))
        else:
            argv.append(str(value))
    return argv


@dataclass(frozen=True)
class EngineAdapter:
    """Engine-specific facts for planning a launch.

    `flags` are the engine's CLI flags in snake_case (checked by name); `knobs` are the
    ones whose values the harness checks; `aliases` map the scenario's engine-neutral
    `defaults` names to this engine's flag (e.g. max_model_len -> context_length).
    """

    name: str
    flags: frozenset[str]
    knobs: dict[str, Knob] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def native_name(self, key: str) -> str:
        return self.aliases.get(key, key)

    def knows(self, key: str) -> bool:
        return key.startswith("--") or self.native_name(key) in self.flags

    readiness_path: str = "/health"

    def command(self, python: str, model: str, port: int | str, args: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def help_command(self, python: str) -> list[str]:
        """argv printing every server flag (see harness.engines.cli_flags)."""
        return self.command(python, "MODEL", 0, {})[:2] + ["--help"]

    def cache_env(self, cache_root: Path) -> dict[str, str]:
        """Env vars that point the engine's compile caches at cache_root."""
        return {
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / "inductor"),
            "TRITON_CACHE_DIR": str(cache_root / "triton"),
        }

    def launch_spec(self, point, ctx: "LaunchContext", log_path: Path, stop_after: str, timeout_s: float):
        from harness.launcher import LaunchSpec
        from parsers import make_parser

        return LaunchSpec(
            argv=self.command(ctx.python, ctx.model_path, ctx.port, point.args),
            env=process_env(self, point.env, ctx),
            log_path=log_path,
            make_parser=lambda: make_parser(self.name),
            stop_after=stop_after,
            timeout_s=timeout_s,
            readiness_url=f"http://127.0.0.1:{ctx.port}{self.readiness_path}",
            cwd=ctx.work_dir,
        )


@dataclass(frozen=True)
class LaunchContext:
    """Where and how one point runs; built by the run command, consumed by adapters."""

    python: str  # the engine environment's interpreter
    env_vars: dict[str, str]  # what the engine environment needs (PATH, LD_LIBRARY_PATH, ...)
    model_path: str
    port: int
    work_dir: Path  # per-run TMPDIR and (cold) caches live here
    shared_cache_dir: Path | None  # set when the scenario keeps a warm compile cache across runs


def process_env(adapter: "EngineAdapter", point_env: dict[str, str], ctx: LaunchContext) -> dict[str, str]:
    """The engine process environment: ours, minus what would leak into the engine's interpreter."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(ctx.env_vars)
    tmp = ctx.work_dir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    env["TMPDIR"] = str(tmp)
    env.update(adapter.cache_env(ctx.shared_cache_dir or ctx.work_dir / "cache"))
    # Engines log through Python logging; unbuffered so every line reaches us when printed.
    env["PYTHONUNBUFFERED"] = "1"
    if Path(ctx.model_path).is_dir():
        env["HF_HUB_OFFLINE"] = "1"  # a local model never needs the hub; don't let a lookup hang
    env.update(point_env)
    return env
