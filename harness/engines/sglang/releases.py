"""Which SGLang releases the budget formulas hold for, and what changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/sglang/formulas.py) are read from 0.5.22's code and 0.5.23's
# differences are modelled; the default mem_fraction_static formula went through several forms
# across 0.4.x-0.5.x that are not sourced here, so `predict` says so for those releases.
PREDICTED_RELEASES = ReleaseRange("0.5.22", "0.5.24")

# The newest release the formulas model: a point that names no release is predicted as this one.
NEWEST_PREDICTED = "0.5.23"

# 0.5.23 warns when the KV pool holds fewer tokens than the context length (before: silent).
# 0.5.23 sglang/srt/managers/tp_worker.py:558 get_worker_info.
POOL_SHORTER_THAN_CONTEXT_WARNS = ReleaseRange("0.5.23")

# The CPU backend's "device" size: 0.5.22 reads each NUMA node's MemTotal and takes the smallest
# (0.5.22 sglang/srt/utils/common.py:862 get_cpu_memory_capacity); 0.5.23 divides /proc/meminfo's
# MemTotal, capped by the container's cgroup memory.max, by the NUMA node count
# (0.5.23 sglang/srt/utils/common.py:911 get_cpu_memory_capacity).
CPU_MEMORY_FROM_MEMINFO_CAPPED = ReleaseRange("0.5.23")


def modelled_release(version: str | None) -> str:
    """The release whose rules apply: the one asked for, else the newest modelled."""
    return version or NEWEST_PREDICTED
