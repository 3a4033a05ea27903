"""Launching the stand-in engine (tests/support/standin_engine.py) on a recorded log, and checking that
nothing it started is left running: for the launcher's tests and the replays of older releases' logs."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from harness.execute.launcher import LaunchSpec
from parsers import make_parser

STANDIN = Path(__file__).resolve().with_name("standin_engine.py")
LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec_for(tmp_path: Path, log: Path, *flags: str, engine: str = "vllm", stop_after: str = "kv",
             timeout_s: float = 30, port: int | None = None, **kw) -> LaunchSpec:
    argv = [sys.executable, str(STANDIN), "--log", str(log), *flags]
    if port:
        argv += ["--port", str(port)]
    return LaunchSpec(
        argv=argv, env=dict(os.environ), log_path=tmp_path / "run.log", make_parser=lambda: make_parser(engine),
        stop_after=stop_after, timeout_s=timeout_s,
        readiness_url=f"http://127.0.0.1:{port}/health" if port else None, **kw,
    )


def assert_nothing_left(outcome, tmp_path: Path, pidfile: Path | None = None) -> None:
    assert outcome.survivors == ()
    if pidfile and pidfile.exists():
        pid = int(pidfile.read_text())
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}") and "Z" not in process_state(pid):
            time.sleep(0.05)
        assert not os.path.exists(f"/proc/{pid}") or "Z" in process_state(pid), f"child {pid} still running"


def process_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "Z"


def leftovers(marker: str) -> list[int]:
    """The live processes (not this one) whose command line holds `marker`, a test's tmp_path."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_text()
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (FileNotFoundError, ProcessLookupError):
                continue
            if marker in cmdline and state != "Z" and int(entry.name) != os.getpid():
                found.append(int(entry.name))
    return found
