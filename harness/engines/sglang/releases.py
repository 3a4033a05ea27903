"""Which SGLang releases the budget formulas hold for, and what changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/sglang/formulas.py) are read from 0.5.22's code and 0.5.23's
# differences are modelled. 0.5.20 and 0.5.21 derive the default mem_fraction_static as 0.5.22 does
# (0.5.20/0.5.21 sglang/srt/arg_groups/memory_hook.py:274-320, the same tiers :110-116) but for one
# term, modelled below. Older releases used other reserves and tiers (0.5.15-0.5.19 memory_hook.py /
# server_args.py: the < 35 GiB tier and a 0.88 fallback; 0.5.3-0.5.14 decode and prefill graph terms
# counted unconditionally), so `predict` says so for them instead of printing 0.5.22's numbers.
PREDICTED_RELEASES = ReleaseRange("0.5.20", "0.5.24")

# The default decode graph max_bs is capped at --max-running-requests from 0.5.22 (0.5.22
# sglang/srt/arg_groups/memory_hook.py:83, :182-188); 0.5.20/0.5.21 reserve for the tier's max_bs.
DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING = ReleaseRange("0.5.22")

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
