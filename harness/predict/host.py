"""A host's memory figures, as the CPU backends of the engines read them, and the "device" they make of it.

On a CPU both engines size their KV pool from host memory the way they size it from
a card on a GPU: a total (the budget's base) and a free reading (the pool's base, or
the check a request must pass). Which file each release reads differs; the engines'
packages turn a `HostMemory` into a `DeviceMemory` (`Engine.cpu_memory`). Pure data:
`harness.execute.host` reads the files.
"""

from __future__ import annotations

from dataclasses import dataclass

MiB = 1 << 20


@dataclass(frozen=True)
class HostMemory:
    """One reading of a host's memory: /proc/meminfo, the NUMA nodes' meminfo, the container limit."""

    meminfo_total_bytes: int  # /proc/meminfo MemTotal (psutil.virtual_memory().total)
    numa_nodes: int  # NUMA nodes that have CPUs; 0 = unknown
    node_total_kib: tuple[int, ...] = ()  # /sys/devices/system/node/node<i>/meminfo MemTotal (kB); () = unreadable
    cgroup_max_bytes: int | None = None  # /sys/fs/cgroup/memory.max; None for "max" or unreadable
    omp_threads_bind: bool = False  # SGLANG_CPU_OMP_THREADS_BIND set: SGLang gives no per-rank size
    meminfo_available_bytes: int | None = None  # /proc/meminfo MemAvailable (psutil's available)
    # per node: MemFree + Active(file) + Inactive(file) + SReclaimable, in bytes (vLLM's "available")
    node_available_bytes: tuple[int, ...] = ()
    cgroup_current_bytes: int | None = None  # /sys/fs/cgroup/memory.current
    first_cpu_node: int = 0  # the NUMA node of the first CPU the process may run on
    cgroup_v1_limit_bytes: int | None = None  # /sys/fs/cgroup/memory/memory.limit_in_bytes (cgroup v1)
    cgroup_v1_usage_bytes: int | None = None  # /sys/fs/cgroup/memory/memory.usage_in_bytes
    # entries of /sys/devices/system/node named node* (with or without CPUs); 0 = unreadable
    numa_node_dirs: int = 0


@dataclass(frozen=True)
class DeviceMemory:
    """What an engine release takes as its device on this host: total and free MiB, and where it read them."""

    total_mib: float
    free_mib: float | None
    basis: str  # e.g. "NUMA node 0 MemTotal" - shown in notes and the README table
    # free_mib is a reading as the engine began loading (the engine's own where it logs one), not one taken
    # before the launch: the engine's processes already hold their startup memory in it
    free_at_load: bool = False


def mib(value_bytes: float) -> float:
    return value_bytes / MiB


# Engines print memory in GiB with two decimals: a logged figure stands for anything within half a step.
LOGGED_GIB_HALF_STEP = 0.005


def as_logged_mib(logged_gib: float | None, readings_mib: list[float | None]) -> float | None:
    """What the engine read, in MiB, from the figure its log states (two-decimal GiB): the first of the
    harness's own readings that rounds to it (exact to a kB), else the logged figure itself. A reading
    that does not round to the engine's figure was taken at another moment than the engine's and is
    not used: on a host whose memory is still moving, only the engine's own reading sized the pool."""
    if logged_gib is None:
        return None
    for mib_read in readings_mib:
        if mib_read is not None and abs(mib_read / 1024 - logged_gib) <= LOGGED_GIB_HALF_STEP + 1e-9:
            return mib_read
    return logged_gib * 1024
