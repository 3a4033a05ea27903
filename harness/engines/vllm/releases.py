"""Which vLLM releases the budget formulas hold for, and the defaults that changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/vllm/formulas.py) are read from 0.32.0's code, and 0.33.0's
# differences are modelled; older releases changed the profiler and the batch defaults in ways not
# sourced here, so `predict` says so instead of printing 0.32.0's numbers for them.
PREDICTED_RELEASES = ReleaseRange("0.32.0", "0.34.0")

# --gpu-memory-utilization default: 0.92 in 0.28.0 (vllm/config/cache.py:69), 0.32.0 (:102) and
# 0.33.0 (:215).
GPU_MEMORY_UTILIZATION_DEFAULTS = ((ReleaseRange("0.28.0"), 0.92),)

# 0.33.0 refuses an explicit float16/bfloat16 KV cache dtype other than the model's dtype at startup
# (vllm/config/vllm.py:1492); fp8 KV caches stay allowed.
KV_DTYPE_MUST_MATCH = ReleaseRange("0.33.0")

# The newest release the formulas model: a point that names no release is predicted as this one.
NEWEST_PREDICTED = "0.33.0"


def default_gpu_memory_utilization(version: str | None) -> float | None:
    """The release's default, None for a release it is not sourced for (None version: the newest)."""
    for releases, value in GPU_MEMORY_UTILIZATION_DEFAULTS:
        if version is None or version in releases:
            return value
    return None

# vLLM-CPU refuses at startup a request ceil(node total x gpu_memory_utilization) above the node's
# available memory (0.32.0 vllm/v1/worker/cpu_worker.py:78-95); 0.33.0 dropped that check and only
# tests the KV size against available memory when it allocates (0.33.0 cpu_worker.py:240-248).
CPU_STARTUP_REQUEST_CHECK = ReleaseRange("0.32.0", "0.33.0")

