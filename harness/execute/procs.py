"""Process-group housekeeping: who is still alive in a group, and stopping it for good."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcInfo:
    pid: int
    name: str
    state: str
    pgid: int
    sid: int

    def __str__(self) -> str:
        return f"{self.pid} ({self.name})"


def _read_stat(pid_dir: Path) -> ProcInfo | None:
    try:
        raw = (pid_dir / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The name is in parentheses and may itself contain spaces or ')'.
    name = raw[raw.index("(") + 1: raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    return ProcInfo(pid=int(pid_dir.name), name=name, state=fields[0], pgid=int(fields[2]), sid=int(fields[3]))


def group_members(leader: int) -> list[ProcInfo]:
    """Live (non-zombie) processes in the process group or session started by `leader`."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        info = _read_stat(entry)
        if info and info.state != "Z" and leader in (info.pgid, info.sid):
            members.append(info)
    return members


def group_rss_mib(leader: int) -> float:
    """The resident memory of the live processes in `leader`'s group or session, summed (MiB)."""
    total_kib = 0
    for member in group_members(leader):
        try:
            status = Path(f"/proc/{member.pid}/status").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        total_kib += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)
    return total_kib / 1024


def _signal_group(leader: int, sig: int) -> None:
    try:
        os.killpg(leader, sig)
    except (ProcessLookupError, PermissionError):
        pass
    # Members that moved to their own group but stayed in the session are ours too.
    for info in group_members(leader):
        if info.pgid != leader:
            try:
                os.kill(info.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass


def stop_group(leader: int, grace_s: float = 10.0, reap=None, poll_s: float = 0.05) -> list[ProcInfo]:
    """SIGTERM the group, wait up to grace_s, then SIGKILL; returns survivors (normally none).

    `reap` is called while waiting so that our direct child does not linger as a zombie.
    """
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        if not group_members(leader):
            break
        _signal_group(leader, sig)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if reap:
                reap()
            if not group_members(leader):
                break
            time.sleep(poll_s)
    if reap:
        reap()
    return group_members(leader)


def process_start_ticks(pid: int) -> int | None:
    """When a process started (clock ticks since boot): with the pid, names it uniquely."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(raw[raw.rindex(")") + 2:].split()[19])


def reap_recorded_groups(groups_dir: Path, grace_s: float = 5.0) -> list[str]:
    """Stop every process group recorded in groups_dir that still runs; returns what was stopped."""
    reaped = []
    for record in sorted(groups_dir.glob("[0-9]*")) if groups_dir.is_dir() else []:
        try:
            pid, ticks = (int(x) for x in record.read_text().split()[:2])
        except (OSError, ValueError):
            record.unlink(missing_ok=True)
            continue
        alive = process_start_ticks(pid)
        # Another process now has that pid: not ours. A dead leader's group keeps its pgid, so
        # members found under it are the leftovers (Linux does not reuse a live group's id).
        members = group_members(pid) if alive is None or alive == ticks else []
        if members:
            reaped.extend(str(m) for m in members)
            stop_group(pid, grace_s)
        record.unlink(missing_ok=True)
    return reaped
