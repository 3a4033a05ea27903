"""Start one engine server, read its output live, decide when the measurement is
complete, and leave nothing behind.

Engine-agnostic: everything engine-specific arrives in a `LaunchSpec` built by the
engine's adapter. Stop conditions, first one wins:
  startup error seen -> engine_error (after a short wait for the traceback to finish)
  stop_after=kv and the KV sizing line seen -> ok
  the readiness URL answers 200 (stop_after=ready; or before any KV line) -> ok; without a
    recognised KV line the row says so instead of calling a healthy start a timeout
  the process exited -> crashed (unless an error or, for stop_after=kv, the KV line was seen)
  the timeout -> timeout
  stop_after=probe: once ready, the probe drives the server; a server that dies or stops answering under
    it -> probe_failed (it started, then failed)
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.execute import signals
from harness.execute.procs import process_start_ticks, stop_group
from parsers.base import FATAL_SIGNAL_FIELD

SUPERVISOR = Path(__file__).with_name("supervisor.py")

log = logging.getLogger(__name__)

TAIL_LINES = 20


@dataclass
class LaunchSpec:
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    make_parser: Callable[[], Any]
    stop_after: str = "ready"  # "kv" | "ready" | "probe"
    timeout_s: float = 900.0
    readiness_url: str | None = None
    cwd: Path | None = None
    grace_s: float = 15.0  # SIGTERM -> SIGKILL
    error_exit_wait_s: float = 5.0  # after a startup error, let the traceback finish printing
    probe_interval_s: float = 0.5
    probe_timeout_s: float = 2.0
    on_phase: Callable[[str], None] | None = None  # progress display: starting, loading, ..., ready
    # Where the live process group is recorded (one file per group) while it runs, so that a
    # later run can reap what a killed harness left behind.
    groups_dir: Path | None = None
    # stop_after=probe: called once the server is ready, with the record so far and the group's leader PID,
    # while the engine's output is still read; what it returns is the outcome's `probe`
    probe: Callable[[Any, int], Any] | None = None


@dataclass(frozen=True)
class LaunchOutcome:
    status: str  # ok | engine_error | timeout | crashed | harness_error
    error_kind: str | None
    error_message: str | None
    record: Any  # parsers.StartupRecord (None if the process never started)
    exit_code: int | None
    t_kv_s: float | None
    t_ready_s: float | None
    engine_s: float  # launch -> the stop condition
    wall_s: float  # launch -> nothing left running
    survivors: tuple[str, ...] = ()  # processes of the group still there after SIGKILL
    last_phase: str | None = None
    stop_s: float = 0.0  # stopping the process group (the engine's own exit time, mostly)
    probe: Any = None  # what spec.probe measured (harness.results.probe.ProbeResult)

    @property
    def overhead_s(self) -> float:
        return self.wall_s - self.engine_s


def probe(url: str, timeout_s: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _pump(stream, name: str, lines: queue.SimpleQueue) -> None:
    # readline keeps a final partial line (no newline) and hands it over at EOF.
    for raw in iter(stream.readline, b""):
        lines.put((name, raw))
    lines.put((name, None))


class _Watch:
    """The live state of one run: lines in, decision out."""

    def __init__(self, spec: LaunchSpec, proc: subprocess.Popen, log_file, clock: Callable[[], float],
                 spawned_at: float):
        self.spec, self.proc, self.log_file, self.clock = spec, proc, log_file, clock
        self.parser = spec.make_parser()
        self.t0 = spawned_at  # the engine's times count from its spawn, not from when the harness got back to it
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.open_streams = 2
        self.t_kv = self.t_ready = self.t_error = None
        self.phase: str | None = "starting"
        self.deciding = True  # after the decision, lines go to the log only (shutdown noise is not startup)

    def take(self, raw: bytes) -> None:
        self.log_file.write(raw)
        self.log_file.flush()
        text = raw.decode("utf-8", errors="replace")
        if text.strip():
            self.tail.append(text.rstrip("\r\n"))
        if not self.deciding:
            return
        self.handle(self.parser.feed(text))

    def handle(self, events) -> None:
        for event in events:
            now = self.clock() - self.t0
            if event.kind == "phase":
                self.set_phase(event.data.get("phase", self.phase))
            elif event.kind == "kv_sized" and self.t_kv is None:
                self.t_kv = now
                self.set_phase("kv_sized")
            elif event.kind == "startup_error" and self.t_error is None and FATAL_SIGNAL_FIELD not in event.data:
                # (a fatal signal's line is a crash: the process's exit decides it, with its last lines)
                self.t_error = now

    def set_phase(self, phase: str | None) -> None:
        if phase != self.phase:
            self.phase = phase
            if self.spec.on_phase and phase:
                self.spec.on_phase(phase)

    def drain(self, lines: queue.SimpleQueue, block_s: float) -> None:
        try:
            item = lines.get(timeout=block_s)
        except queue.Empty:
            return
        while True:
            _name, raw = item
            if raw is None:
                self.open_streams -= 1
                if self.open_streams == 0 and self.deciding:
                    # A fact stated over several lines (vLLM's KV size, then its concurrency) may end the log.
                    self.handle(self.parser.close())
            else:
                self.take(raw)
            try:
                item = lines.get_nowait()
            except queue.Empty:
                return

    def exited(self) -> bool:
        return self.proc.poll() is not None and self.open_streams == 0

    def tail_text(self) -> str:
        return "\n".join(self.tail)


NO_KV_LINE = ("the server came up, but no KV sizing line was recognised in its log: the KV columns are "
              "empty; `python -m harness parse LOG` shows what was read")


def _error_fields(record: Any) -> tuple[str | None, str | None]:
    return getattr(record, "error_kind", None), getattr(record, "error_message", None)


# Both engines print their KV line before they serve, so a server that answers before its KV line was read is most
# often the pipe's reader behind the server on a busy host (a replayed log's KV line read as None once in a CI run at
# load 3-5): the lines already written are read for up to this long before the start is called one without a KV line.
READY_SETTLE_S = 2.0


def _no_kv_figure(w: _Watch) -> bool:
    # vLLM's "init engine ... took" says the KV cache was made (the parser's kv_sized) but not its size: a release
    # whose KV line the parser does not read still leaves the pool's token count unread
    return w.t_kv is None or getattr(w.parser.record, "kv_tokens", None) is None


def _settle(w: _Watch, lines: queue.SimpleQueue) -> None:
    """Read what is already written until the pool's token count is read, for up to READY_SETTLE_S. Also after a
    kv_sized from vLLM's 'init engine took': on two pipes its line can be read before the KV line the engine wrote
    first (a fresh-clone CI: the interleaved stand-in's record kept no token count at --stop-after kv)."""
    deadline = w.clock() + READY_SETTLE_S
    w.drain(lines, block_s=0)
    while _no_kv_figure(w) and w.clock() < deadline and not w.exited():
        w.drain(lines, block_s=0.1)


def _decide(w: _Watch, lines: queue.SimpleQueue) -> tuple[str, str | None, str | None, float]:
    spec = w.spec
    next_probe = 0.0
    while True:
        w.drain(lines, block_s=0.05)
        now = w.clock() - w.t0
        if w.t_error is not None:
            if w.exited() or now - w.t_error >= spec.error_exit_wait_s:
                w.drain(lines, block_s=0)
                kind, message = _error_fields(w.parser.record)
                return "engine_error", kind, message, now
        elif w.t_kv is not None and spec.stop_after == "kv":
            _settle(w, lines)
            return "ok", None, NO_KV_LINE if _no_kv_figure(w) else None, w.t_kv
        elif spec.readiness_url and now >= next_probe:
            # Probed before the KV line too: a server that answers is a healthy start even when its
            # release words the KV line in a way the parser does not read (the row then says so).
            if probe(spec.readiness_url, spec.probe_timeout_s):
                w.t_ready = w.clock() - w.t0
                w.set_phase("ready")
                _settle(w, lines)
                if _no_kv_figure(w):
                    return "ok", None, NO_KV_LINE, w.t_ready
                return "ok", None, None, w.t_ready
            next_probe = w.clock() - w.t0 + spec.probe_interval_s
        if w.exited():
            code = w.proc.returncode
            when = "after KV sizing, before the server was ready" if w.t_kv is not None else "before KV sizing"
            return "crashed", "exited", f"engine exited with code {code} {when}; last lines:\n{w.tail_text()}", now
        if now >= spec.timeout_s:
            reached = "KV sized but not ready" if w.t_kv is not None else f"no KV sizing line (last phase: {w.phase})"
            return "timeout", "timeout", f"{reached} within {spec.timeout_s:g} s", now


def _probe_beside(probe: Callable[[Any, int], Any], w: _Watch, lines: queue.SimpleQueue, proc: subprocess.Popen) -> Any:
    """Run the probe in a thread while this one keeps reading the engine's output into its log and parser (a
    failure the engine logs under load is read as it happens)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["result"] = probe(w.parser.record, proc.pid)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the launching thread
            box["error"] = exc

    thread = threading.Thread(target=run, name="probe", daemon=True)
    thread.start()
    while thread.is_alive():
        w.drain(lines, block_s=0.1)
        thread.join(timeout=0.05)
    w.drain(lines, block_s=0)
    if "error" in box:
        raise box["error"]
    return box["result"]


def _record_group(groups_dir: Path | None, pid: int) -> Path | None:
    if groups_dir is None:
        return None
    groups_dir.mkdir(parents=True, exist_ok=True)
    path = groups_dir / str(pid)
    path.write_text(f"{pid} {process_start_ticks(pid) or 0}\n")
    return path


def launch(spec: LaunchSpec, clock: Callable[[], float] = time.monotonic) -> LaunchOutcome:
    """Run one server to its stop condition and stop its whole process group.

    Returns with SIGINT/SIGTERM/SIGHUP held (see `signals`): the caller writes the row, then
    calls `signals.release()`, so a signal during the stop never costs a measured row.
    """
    spec.log_path.parent.mkdir(parents=True, exist_ok=True)
    t0 = clock()
    with open(spec.log_path, "wb") as log_file:
        program = shutil.which(spec.argv[0], path=spec.env.get("PATH", os.defpath)) if spec.argv else None
        if program is None:  # the supervisor would start and fail: say so as the launch failure it is
            message = f"cannot start {spec.argv[0] if spec.argv else '(empty argv)'}: No such file or directory"
            log_file.write((message + "\n").encode())
            return LaunchOutcome("harness_error", "launch_failed", message, None, None, None, None, 0.0, clock() - t0)
        try:
            # The supervisor leads the engine's session and kills all of it if this process vanishes.
            argv = [sys.executable, "-I", "-S", str(SUPERVISOR), str(os.getpid()), str(spec.grace_s), "--", *spec.argv]
            # taken before the spawn: a host that deschedules this process after the fork would otherwise start the
            # clock after the engine's own (t_kv_s 2 ms short of the line's time on a busy CI, 2026-12-05)
            spawned_at = clock()
            proc = subprocess.Popen(
                argv, env=spec.env, cwd=spec.cwd, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            message = f"cannot start {spec.argv[0]}: {exc.strerror or exc}"
            log_file.write((message + "\n").encode())
            return LaunchOutcome("harness_error", "launch_failed", message, None, None, None, None, 0.0, clock() - t0)
        # recorded first: a harness killed from here on leaves a group the next run can reap
        record = _record_group(spec.groups_dir, proc.pid)
        # A SimpleQueue, not a Queue: Ctrl-C raised inside Queue.get can leave its lock held (a `with` block is not
        # atomic against signals in CPython: bpo-29988), and the stop below drains the same queue: advise hung
        # there after a Ctrl-C, main thread and both readers waiting on that lock (py-spy, a busy CI run,
        # 2026-12-04). SimpleQueue's get and put are C calls that hold no Python-level lock.
        lines: queue.SimpleQueue = queue.SimpleQueue()
        readers = [threading.Thread(target=_pump, args=(s, n, lines), daemon=True)
                   for s, n in ((proc.stdout, "stdout"), (proc.stderr, "stderr"))]
        for reader in readers:
            reader.start()
        watch = _Watch(spec, proc, log_file, clock, spawned_at)
        survivors = []
        decided = False
        probed = None
        try:
            status, kind, message, engine_s = _decide(watch, lines)
            if status == "ok" and spec.probe is not None and watch.t_ready is not None:
                probed = _probe_beside(spec.probe, watch, lines, proc)
                if probed.failed:
                    status, kind = "probe_failed", "probe_failed"
                    message = (f"{probed.failure or 'the server did not answer after the probe'}; "
                               f"last lines:\n{watch.tail_text()}")
            decided = True
            watch.deciding = False
        finally:
            # Also on Ctrl-C: the engine's group goes before the harness does. Signals wait
            # until the stop is complete, and after a decision until the row is written
            # (the caller releases them then).
            signals.hold()
            try:
                t_stop = clock()
                survivors = stop_group(proc.pid, spec.grace_s, reap=proc.poll)
                stop_s = clock() - t_stop
                for reader in readers:
                    reader.join(timeout=5)
                watch.deciding = False
                watch.drain(lines, block_s=0)
                if record is not None and not survivors:
                    record.unlink(missing_ok=True)
            finally:
                if not decided:
                    signals.release()
        if survivors:
            log.warning("processes survived SIGKILL: %s", ", ".join(map(str, survivors)))
        return LaunchOutcome(
            status=status, error_kind=kind, error_message=message, record=watch.parser.record,
            exit_code=proc.returncode, t_kv_s=watch.t_kv, t_ready_s=watch.t_ready, engine_s=engine_s,
            wall_s=clock() - t0, survivors=tuple(str(s) for s in survivors), last_phase=watch.phase, stop_s=stop_s,
            probe=probed,
        )
