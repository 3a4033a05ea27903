"""SGLang 0.5.22's KV-pool sizing on CUDA cards, as the fake GPU SGLang (sglang_gpu.py) computes it.

Read from the released wheel (`pip download --no-deps sglang==0.5.22`) and written here on its own: nothing is taken
from the harness's predictor (harness/engines/sglang/formulas.py, predict.py), so a wrong rule there disagrees with
what the fake prints. For a dense text model (no MLA, no Mamba, no sliding window), no data-parallel attention,
pipeline size 1, no speculative decoding, the default CUDA graphs (decode FULL: srt/model_executor/
cuda_graph_config.py:149-151; prefill BREAKABLE on CUDA: :119-123) and post-capture KV sizing off (its default:
srt/environ.py:589).
"""

from __future__ import annotations

from dataclasses import dataclass

MiB_PER_GiB = 1024

# handle_gpu_memory_settings' capacity tiers (srt/arg_groups/memory_hook.py:90-170): below this many MiB of the
# smallest card, (chunked_prefill_size, decode max_bs with tp < 4, with tp >= 4)
TIERS = ((20 * 1024, 2048, 8, 8), (35 * 1024, 4096, 48, 160), (60 * 1024, 4096, 32, 160),
         (90 * 1024, 8192, 256, 512), (160 * 1024, 8192, 256, 512), (float("inf"), 16384, 512, 512))


@dataclass(frozen=True)
class Settings:
    mem_fraction_static: float
    chunked_prefill_size: int


def prefill_graph_sizes(max_bs: int) -> list[int]:
    """generate_prefill_cuda_graph_batch_sizes (srt/arg_groups/cuda_graph_hook.py:442-459)."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256)) + list(range(4608, max_bs + 1, 512)))
    return [s for s in sizes if s <= max_bs]


def memory_settings(gpu_mem_mib: float, tp: int, chunked_prefill_size: int | None,
                    mem_fraction_static: float | None, model_path: str = "") -> Settings:
    """The fraction SGLang takes: the one given, else round((capacity - reserved) / capacity, 3) with reserved =
    512 + max(chunked prefill, 2048) x 1.5 + tp/8 GiB + the graphs' reserve, at least 10 GiB on cards above
    60 GiB (memory_hook.py:283-330; reserve_for_graph_mb :359-390: decode max_bs x 2, 8 MiB per prefill graph)."""
    _, tier_chunk, small_tp_bs, large_tp_bs = next(t for t in TIERS if gpu_mem_mib < t[0])
    chunk = tier_chunk if chunked_prefill_size is None else chunked_prefill_size
    if mem_fraction_static is not None:
        return Settings(mem_fraction_static, chunk)
    decode_max_bs = small_tp_bs if tp < 4 else large_tp_bs
    prefill_max_bs = chunk  # non-MLA: the chunk size (memory_hook.py:237-238)
    if "llama-2" in model_path.lower():
        prefill_max_bs = min(prefill_max_bs, 4096)  # memory_hook.py:262-265
    reserved = 512 + max(chunk, 2048) * 1.5 + tp / 8 * 1024
    reserved += decode_max_bs * 2 + len(prefill_graph_sizes(prefill_max_bs)) * 8
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return Settings(round((gpu_mem_mib - reserved) / gpu_mem_mib, 3), chunk)


def rest_gib(pre_load_gib: float, after_load_gib: float, fraction: float) -> float:
    """What the pool may take: free memory after loading less the slack pre-load x (1 - fraction)
    (srt/mem_cache/kv_cache_configurator.py:2671-2719 _profile_available_bytes); <= 0 is its ValueError."""
    return after_load_gib - pre_load_gib * (1 - fraction)


def minimum_fraction(pre_load_gib: float, after_load_gib: float) -> float:
    """The fraction the error names: 1 - available / pre (kv_cache_configurator.py:2724-2728)."""
    return 1 - after_load_gib / pre_load_gib


def pool_tokens(rest: float, cell_bytes: int, page_size: int) -> int:
    """int(rest GiB in bytes) // cell size, page-aligned (kv_cache_configurator.py:2741; srt/model_executor/
    pool_configurator.py:614-624)."""
    budget = int(rest * (1 << 30))
    return budget // cell_bytes // page_size * page_size


def kv_side_bytes(tokens: int, cell_bytes: int, page_size: int) -> float:
    """The K (or V) buffers' bytes: tokens + the padded page's slots, each half a cell (srt/mem_cache/memory_pool.py:
    2525-2529 rows = size + page_size; :2687-2701 get_kv_size_bytes)."""
    return (tokens + page_size) * cell_bytes / 2


def max_running_requests(tokens: int, context_len: int) -> int:
    """resolve_max_num_reqs with none given (kv_cache_configurator.py:2800-2813): int(tokens / context x 512) held
    to [2048, 4096], at most half the pool."""
    estimated = max(min(int(tokens / context_len * 512), 4096), 2048)
    return min(estimated, tokens // 2)
