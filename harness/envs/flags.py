"""Reading an engine release's real CLI flags: its `--help`, run from its own interpreter."""

from __future__ import annotations

import subprocess

from harness.childproc import child_environ
from harness.engines import get_engine
from harness.engines.cli_flags import parse_help


def read_engine_flags(engine: str, python: str, env_vars: dict[str, str], timeout_s: float = 300) -> frozenset[str]:
    """Run the engine's --help from its own interpreter and parse it; RuntimeError when that fails."""
    argv = get_engine(engine).help_command(python)
    proc = subprocess.run(argv, env=child_environ(env_vars), capture_output=True, text=True, timeout=timeout_s)
    flags = parse_help(proc.stdout)
    if proc.returncode != 0 or not flags:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{engine} --help failed (exit {proc.returncode}): {tail[0]}")
    return flags
