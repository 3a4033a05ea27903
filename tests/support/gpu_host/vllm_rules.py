"""vLLM's KV-cache sizing on a CUDA card, per release, as the fake GPU vLLM (vllm_gpu.py) computes it.

Read from the released wheels (`pip download --no-deps vllm==X`: 0.13.0, 0.14.0, 0.20.0, 0.20.1, 0.28.0, 0.29.0,
0.32.0) and written here on its own: nothing is taken from the harness's predictor (harness/engines/vllm/formulas.py,
predict.py, releases.py), so a wrong rule there disagrees with what the fake engine prints and a GPU-path test fails.
A release not in RELEASES is refused: its rules were not read.

One uniform full-attention group (a dense model), one KV cache group, the default (layer-outer) layout: a block is
block_size tokens of every layer, bytes_per_block = block_size x the model's KV bytes per token (0.32.0
vllm/v1/core/kv_cache_utils.py:1520-1551 _get_kv_cache_bytes_per_block, no padding for a plain FullAttentionSpec:
vllm/v1/kv_cache_interface.py:183-193).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

RELEASES = ("0.13.0", "0.14.0", "0.20.0", "0.20.1", "0.28.0", "0.29.0", "0.32.0")
BLOCK_SIZE_CUDA = 16  # the CUDA attention backends' block (vllm/config/cache.py: block_size None -> 16 on CUDA)


def release_key(release: str) -> tuple[int, ...]:
    return tuple(int(part) for part in release.split("."))


def known(release: str) -> str:
    if release not in RELEASES:
        raise ValueError(f"the fake GPU vLLM models {', '.join(RELEASES)}; {release}'s source was not read")
    return release


def from_release(release: str, first: str) -> bool:
    return release_key(release) >= release_key(first)


def default_utilization(release: str) -> float:
    """--gpu-memory-utilization's default: 0.9 up to 0.19.x (0.14.0 vllm/config/cache.py:50, 0.13.0 :49), 0.92
    from 0.20.0 (0.20.0 vllm/config/cache.py:66, 0.32.0 :102)."""
    return 0.92 if from_release(release, "0.20.0") else 0.9


def requested_bytes(total_bytes: int, utilization: float, release: str) -> float:
    """What the worker asks of the card: ceil(total x utilization) from 0.14.0 (0.14.0 vllm/v1/worker/utils.py:258,
    0.32.0 :724 request_memory); 0.13.0 keeps the float product (0.13.0 vllm/v1/worker/gpu_worker.py:241-244)."""
    product = total_bytes * utilization
    return math.ceil(product) if from_release(release, "0.14.0") else product


def graph_estimate_subtracted(release: str) -> bool:
    """The CUDA-graph memory estimate comes off the KV budget by default from 0.20.0 (0.20.0 vllm/envs.py:1724-1725
    VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS default "1"; 0.32.0 vllm/v1/worker/gpu_worker.py:700-744); 0.14.0 and
    0.13.0 capture the graphs after the cache is allocated and subtract nothing for them (no
    profile_cudagraph_memory in 0.14.0 gpu_worker.py)."""
    return from_release(release, "0.20.0")


def available_bytes(requested: float, non_kv_bytes: float, release: str) -> int:
    """requested - what profiling counted (0.32.0 gpu_worker.py:740-744); 0.13.0 truncates the float difference
    (0.13.0 gpu_worker.py:357-358, :382 int(...))."""
    return int(requested - non_kv_bytes)


def null_block_held_back(release: str) -> bool:
    """From 0.29.0 the length check and auto-fit plan against the blocks less the one BlockPool keeps as its null
    block (0.29.0 vllm/v1/core/kv_cache_utils.py:2316-2322, 0.32.0 :2627-2633); 0.28.0 checks every block (0.28.0
    kv_cache_utils.py: no such reserve before _check_enough_kv_cache_memory at :2193)."""
    return from_release(release, "0.29.0")


def tokens_from_concurrency(release: str) -> bool:
    """The logged KV size: int(max_concurrency x max_model_len) from 0.20.1 (0.20.1 vllm/v1/core/kv_cache_utils.py:
    1706, 0.32.0 :2308); up to 0.20.0 num_blocks // groups x block_size (0.20.0 :1694-1698, 0.13.0 :1274-1291)."""
    return from_release(release, "0.20.1")


@dataclass(frozen=True)
class KvSizing:
    """What the engine core makes of the KV memory (0.32.0 kv_cache_utils.py:2531 get_kv_cache_configs)."""

    num_blocks: int
    kv_tokens: int
    max_concurrency: float
    needed_bytes: int  # one request of max_model_len
    checked_bytes: int  # what the length check compares it with
    error: str | None = None  # "no_kv_cache_memory" or "max_model_len_too_large"
    estimated_max_model_len: int = 0  # in the max_model_len error


def blocks_per_request(length: int, block_size: int) -> int:
    """cdiv(max_model_len, block_size) (FullAttentionSpec.max_memory_usage_bytes, 0.32.0
    vllm/v1/kv_cache_interface.py:602-607)."""
    return -(-length // block_size)


def estimate_max_model_len(checked: int, bytes_per_block: int, block_size: int, upper: int) -> int:
    """The engine's binary search over [1, max_model_len] for the longest length that fits (0.32.0
    kv_cache_utils.py:2369-2411 _estimate_max_model_len_from_groups); 0 when one token does not fit."""
    def fits(length: int) -> bool:
        return blocks_per_request(length, block_size) * bytes_per_block <= checked

    if not fits(1):
        return 0
    low, high, best = 1, upper, 1
    while low <= high:
        mid = (low + high) // 2
        if fits(mid):
            best, low = mid, mid + 1
        else:
            high = mid - 1
    return best


def size_kv(available: int, bytes_per_block: int, block_size: int, max_model_len: int, release: str) -> KvSizing:
    """The pool from the available bytes: the length check (E2/E3, 0.32.0 kv_cache_utils.py:1003-1040), then
    available // bytes_per_block blocks, null block included (:1588-1620), and the logged token count."""
    checked = available - bytes_per_block if null_block_held_back(release) else available
    per_request = blocks_per_request(max_model_len, block_size)
    needed = per_request * bytes_per_block
    num_blocks = max(0, available // bytes_per_block)
    concurrency = num_blocks / per_request
    tokens = int(concurrency * max_model_len) if tokens_from_concurrency(release) else num_blocks * block_size
    sizing = KvSizing(num_blocks, tokens, concurrency, needed, checked)
    if checked <= 0:
        return KvSizing(num_blocks, 0, 0.0, needed, checked, "no_kv_cache_memory")
    if needed > checked:
        estimate = estimate_max_model_len(checked, bytes_per_block, block_size, max_model_len)
        return KvSizing(num_blocks, 0, 0.0, needed, checked, "max_model_len_too_large", estimate)
    return sizing
