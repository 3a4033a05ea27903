"""SGLang 0.5.22-0.5.23 KV budget formulas (pure arithmetic), sourced from sglang/srt, with each older
release's differences back to 0.4.0 (releases.py).

SGLang *computes*: mem_fraction_static comes from a reserve formula over the card size
(`handle_gpu_memory_settings`, sglang/srt/arg_groups/memory_hook.py:47; before 0.5.3 from tables,
`table_memory_settings`), and the KV pool is what is left of fraction x free-memory-before-load after
the weights (kv_cache_configurator.py:2671 `_profile_available_bytes`; the same in every release from
0.4.0, model_runner.py `profile_max_num_token`: rest = available after load - free before load x (1 - f)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from harness.engines.sglang.releases import (
    CHUNK_16384_ABOVE_180_GB,
    CHUNK_BY_35_160_GIB,
    CPU_DECODE_MAX_BS_FROM_TORCH_COMPILE,
    CPU_FREE_PER_NUMA_NODE,
    CPU_HAS_A_SIZE,
    CPU_MEMORY_FROM_MEMINFO_CAPPED,
    CUTLASS_MLA_PAGE_128,
    DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING,
    DECODE_RESERVE_FOLLOWS_GRAPH,
    GRAPH_MAX_BS_80_AT_TP4,
    GRAPH_MAX_BS_LEFT_TO_RUNNER,
    GRAPH_MAX_BS_SMALL_CARD_35_GIB,
    LARGE_CARD_RULES,
    MLA_PAGE_32_OR_64,
    MLA_PAGE_FIXED,
    MLA_PREFILL_GRAPH_RESERVE_MIB,
    MLA_PREFILL_MAX_BS_2048,
    MLA_PREFILL_MAX_BS_CAP,
    MLA_PREFILL_MAX_BS_CAPPED_CHUNK,
    MRR_ESTIMATE_AFTER_CAP_UP_TO_0_4_1,
    MRR_ESTIMATE_FROM_CAPPED_POOL,
    MRR_GIVEN_CAPPED_AT_ESTIMATE,
    MRR_GIVEN_CAPPED_AT_HALF_POOL,
    MRR_ZERO_CHECKED,
    NO_SIZE_FALLBACK_095,
    POOL_PAGE_ROUNDING,
    POOL_SHORTER_THAN_CONTEXT_WARNS,
    PREFILL_BREAKABLE_ON_CUDA,
    PREFILL_CAP_CONTEXT_LENGTH,
    PREFILL_CAPS_TOTAL_TOKENS,
    PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH,
    PREFILL_OFF_ON_EVERY_NON_CUDA_DEVICE,
    PREFILL_PP_CAP_8192,
    PREFILL_RESERVE_BY_DEFAULT,
    REQ_POOL_ONE_EXTRA_SLOT,
    RESERVE_FORMULA,
    RESERVED_MEM_TABLE,
    THIRTEEN_GIB_ABOVE_80,
    TOKENSPEED_MLA_PAGE,
    TOO_SMALL_CHECKS_INPUT_LEN,
    WEIGHTS_LEAVE_NO_MEMORY_ERROR,
    XPU_RESERVE,
    default_fraction_rule,
    modelled_release,
    not_enough_memory_suffix,
    prefill_off_with_pp,
    tier_below_35_gib,
)
from harness.predict.host import DeviceMemory, HostMemory

# A documented estimate, not engine code: memory gone before SGLang's "pre model load"
# snapshot (CUDA context, NCCL) plus non-torch allocations during weight load. Both come
# out of the KV pool (kv_cache_configurator.py:2671 counts them as used), so the best estimate subtracts it;
# calibration replaces it.
OTHER_GIB_ESTIMATE = 0.5
# What is left of it when the free memory the pool is sized from is SGLang's own pre-load reading ("Load weight begin.
# avail mem", or a load line's avail + mem usage): the CUDA context and NCCL are already out of that reading
# (model_runner.py init_torch_distributed -> min_per_gpu_memory, 0.4.0 :148, 0.5.2 :240), so only what loading takes
# beyond the weights remains. An estimate fitted on three public GPU logs' mem usage less the weights from config
# (0.15, 0.20, 0.20 GiB: tests/fixtures/predict/gpu-oos s01, gpu-oos2 s04 and s05); checked on the others there.
LOAD_EXTRA_GIB_ESTIMATE = 0.2

# The CPU backend measures twice, system-wide: psutil's available memory before loading (after
# its three processes have started and imported torch) and again before sizing the pool
# (0.5.22 kv_cache_configurator.py:2671). Pool = f x pre - (pre - now), so two terms are ours to estimate,
# both measured on this project's CPU runs of the tiny model and replaced by calibration:
# S: memory the engine's processes take between the harness's reading at launch and SGLang's
#    pre-load reading (it reaches the pool scaled by f): 2.07 GiB measured on a quiet host
#    (22.87 GiB free at launch, "Load weight begin. avail mem=20.80 GB", 0.5.22);
CPU_STARTUP_GIB_ESTIMATE = 2.07
# L: memory taken between the two readings beyond the weights (pool-sizing allocations):
#    0.041-0.052 GiB measured (f x the logged pre-load memory - the logged pool, f = 0.1, 0.209).
# Of what the pool loses, only the weights scale with the model, and the formula subtracts them exactly (as stored,
# vocab padded): S is taken before loading begins (processes, torch, the tokenizer), L after the weights are in
# (0.5.22 kv_cache_configurator.py:2671-2686 reads system-wide psutil available memory, utils/common.py:495-499,
# so other processes' allocations between the two readings land in L too); on this project's non-AMX CPU, SGLang
# keeps no packed copy of a weight (layers/quantization/unquant.py:500: the intel_amx backend only). Checked on
# three model sizes in results/cpu_sizes: L does not grow with the weights.
CPU_LOAD_EXTRA_GIB_ESTIMATE = 0.05

DEFAULT_MAX_PREFILL_TOKENS = 16384
TORCH_COMPILE_MAX_BS_DEFAULT = 32  # sglang/srt/arg_groups/fields/exec_.py:636
BACKEND_DISABLED = "disabled"


@dataclass(frozen=True)
class Tier:
    chunked_prefill_size: int
    decode_max_bs: int


def tier(gpu_mem_mib: float | None, tp: int, release: str | None = None) -> Tier:
    """memory_hook.py:86-187: defaults by card size (MiB, min over all GPUs nvidia-smi lists); the < 35 GiB
    tier per release (releases.TIER_BELOW_35_GIB)."""
    if gpu_mem_mib is None:
        return Tier(4096, 160)
    if gpu_mem_mib < 20 * 1024:
        return Tier(2048, 8)
    if gpu_mem_mib < 35 * 1024:
        cps, small_tp, large_tp = tier_below_35_gib(release)
        return Tier(cps, small_tp if tp < 4 else large_tp)
    if gpu_mem_mib < 60 * 1024:
        return Tier(4096, 32 if tp < 4 else 160)
    if gpu_mem_mib < 160 * 1024:  # 60-90 and 90-160 GiB tiers have the same values
        return Tier(8192, 256 if tp < 4 else 512)
    return Tier(16384, 512)


def decode_graph_bs(max_bs: int, disable_padding: bool = False) -> list[int]:
    """cuda_graph_hook.py generate_decode_cuda_graph_batch_sizes (non-speculative)."""
    if disable_padding:
        sizes = list(range(1, max_bs + 1))
    else:
        sizes = ([1, 2, 4, 8, 12] + list(range(16, 257, 8)) + list(range(272, 512, 16))
                 + list(range(512, max_bs + 1, 32)))
    sizes = [s for s in sizes if s <= max_bs]
    if max_bs not in sizes:
        sizes.append(max_bs)
    return sizes


def cpu_graph_bs(max_bs: int, disable_padding: bool = False) -> list[int]:
    """cuda_graph_hook.py generate_cpu_graph_batch_sizes."""
    if disable_padding:
        return list(range(1, max_bs + 1))
    sizes = set().union(range(1, 17), range(18, 31, 2), range(32, 81, 4), range(84, max_bs + 1, 8), {max_bs})
    return [s for s in sorted(sizes) if s <= max_bs]


def prefill_graph_bs(max_bs: int) -> list[int]:
    """cuda_graph_hook.py generate_prefill_cuda_graph_batch_sizes (buckets are token counts)."""
    sizes = (list(range(4, 33, 4)) + list(range(48, 257, 16)) + list(range(288, 513, 32))
             + list(range(576, 1025, 64)) + list(range(1280, 4097, 256)) + list(range(4608, max_bs + 1, 512)))
    return [s for s in sizes if s <= max_bs]


def cpu_memory_capacity_mib(host: HostMemory, release: str | None = None) -> float | None:
    """get_cpu_memory_capacity for `release` (None: the newest modelled), MiB; None when SGLang has no size."""
    if modelled_release(release) not in CPU_HAS_A_SIZE:
        return None  # no CPU branch in get_device_memory_capacity (0.5.2 sglang/srt/utils.py:1406-1419)
    if host.omp_threads_bind:
        return None  # both releases return None (0.5.22 common.py:864, 0.5.23 common.py:913)
    if modelled_release(release) in CPU_MEMORY_FROM_MEMINFO_CAPPED:
        # 0.5.23 sglang/srt/utils/common.py:920-927: the container limit caps MemTotal
        # (get_instance_memory_status skips a non-numeric memory.max, common.py:883), then per node.
        total = host.meminfo_total_bytes
        if host.cgroup_max_bytes is not None:
            total = min(total, host.cgroup_max_bytes)
        return float(total / (host.numa_nodes or 1) // (1 << 20))
    # 0.5.22 sglang/srt/utils/common.py:866-890: the smallest node's MemTotal; the container
    # limit is not read.
    if host.numa_nodes == 0:
        return float(host.meminfo_total_bytes // (1 << 20))
    if len(host.node_total_kib) >= host.numa_nodes:
        return float(min(host.node_total_kib[:host.numa_nodes]) // 1024)
    return float(host.meminfo_total_bytes / host.numa_nodes // (1 << 20))


def cpu_free_memory_mib(host: HostMemory, release: str | None = None) -> float | None:
    """get_available_gpu_memory(device="cpu") for `release`, MiB: the pool's base (free memory per NUMA node).

    0.5.22 sglang/srt/utils/common.py:495-499: psutil's available / nodes; 0.5.23 common.py:490-494 and
    get_free_cpu_memory (:897): the same, capped by the container's memory.max - memory.current; before
    0.5.2 the whole host's (releases.CPU_FREE_PER_NUMA_NODE)."""
    if host.meminfo_available_bytes is None:
        return None
    free = host.meminfo_available_bytes
    if modelled_release(release) not in CPU_FREE_PER_NUMA_NODE:
        return free / (1 << 20)
    if (modelled_release(release) in CPU_MEMORY_FROM_MEMINFO_CAPPED and host.cgroup_max_bytes is not None
            and host.cgroup_current_bytes is not None):
        free = min(free, max(0, host.cgroup_max_bytes - host.cgroup_current_bytes))
    return free / (host.numa_nodes or 1) / (1 << 20)


def cpu_device_memory(host: HostMemory, release: str | None = None) -> DeviceMemory | None:
    """The CPU backend's "device": capacity (sets the default fraction) and free memory (sizes the pool).

    Before 0.5.3 SGLang reads no CPU size (its fraction is the no-size one): the host's MemTotal stands in
    for the device total, which those releases' formulas do not read."""
    if modelled_release(release) not in CPU_HAS_A_SIZE:
        return DeviceMemory(float(host.meminfo_total_bytes // (1 << 20)), cpu_free_memory_mib(host, release),
                            "/proc/meminfo MemTotal (not read by SGLang before 0.5.3)")
    total = cpu_memory_capacity_mib(host, release)
    if total is None:
        return None
    if modelled_release(release) in CPU_MEMORY_FROM_MEMINFO_CAPPED:
        basis = "/proc/meminfo MemTotal capped by memory.max, per NUMA node"
    else:
        basis = "smallest NUMA node MemTotal"
    return DeviceMemory(total, cpu_free_memory_mib(host, release), basis)


def rest_memory_gib(fraction: float, weights_gib: float, total_gib: float,
                    free_before_load_gib: float | None = None) -> tuple[float, float]:
    """(pre-load free memory, KV budget before other load allocations), GiB.

    0.5.23 sglang/srt/mem_cache/kv_cache_configurator.py:2990 `_profile_available_bytes`: the pool
    is what is free after loading minus pre_model_load_memory x (1 - mem_fraction_static), i.e.
    free-before-load x fraction - weights. The base is the free memory SGLang measured before
    loading, not the card total (which only sets the default fraction); without a reading the
    total stands in for it."""
    base = total_gib if free_before_load_gib is None else free_before_load_gib
    return base, base * fraction - weights_gib


def pool_shorter_than_context_note(tokens: int, context_len: int, max_req_len: int, release: str | None) -> str:
    """What the release does when the pool is smaller than the context: 0.5.23 warns
    (sglang/srt/managers/tp_worker.py:558), 0.5.22 limits requests without a word."""
    if modelled_release(release) in POOL_SHORTER_THAN_CONTEXT_WARNS:
        return (f"pool ({tokens} tokens) is smaller than the context ({context_len}): SGLang warns \"KV pool holds "
                f"{tokens} tokens, fewer than --context-length {context_len}\"; requests are limited to "
                f"{max_req_len} tokens")
    return (f"pool ({tokens} tokens) is smaller than the context ({context_len}): requests are silently "
            f"limited to {max_req_len} tokens")


@dataclass
class MemorySettings:
    """What handle_gpu_memory_settings resolves (non-VLM, no DP attention, no PD, no deepep)."""

    chunked_prefill_size: int
    decode_backend: str
    decode_max_bs: int | None  # None: left to the graph runner's capture list (0.4.6-0.5.2 on larger cards)
    decode_bs: list[int]
    prefill_backend: str
    prefill_max_bs: int
    prefill_bs: list[int]
    graph_reserve_mib: float
    reserved_mib: float | None  # None when the user gave mem_fraction_static, or a table gave the fraction
    mem_fraction_static: float | None  # None: the release stops before choosing one (0.4.6 without a card size)
    mem_fraction_static_given: bool


def graph_backends(device: str = "cuda", disable_cuda_graph: bool = False, disable_prefill_cuda_graph: bool = False,
                   disable_decode_cuda_graph: bool = False, cuda_graph_backend_decode: str | None = None,
                   cuda_graph_backend_prefill: str | None = None, pp_size: int = 1, release: str | None = None,
                   cpu_engine: bool = True, disable_piecewise_cuda_graph: bool = False) -> tuple[str, str]:
    """parse_cuda_graph_config precedence, per release (the prefill rules: releases.PREFILL_*).

    From 0.5.20 the default prefill graph is `breakable` on CUDA only (0.5.22 cuda_graph_config.py:119);
    0.5.10-0.5.19 also default one on a CPU host unless SGLANG_USE_CPU_ENGINE=1 (`cpu_engine`) makes it
    is_cpu(); before 0.5.10 there is none by default."""
    release = modelled_release(release)
    decode = "full"
    if release not in PREFILL_RESERVE_BY_DEFAULT:
        prefill = BACKEND_DISABLED
    elif device == "cuda":
        prefill = "breakable" if release in PREFILL_BREAKABLE_ON_CUDA else "piecewise"
    elif release in PREFILL_OFF_ON_EVERY_NON_CUDA_DEVICE or device != "cpu" or cpu_engine:
        prefill = BACKEND_DISABLED
    else:
        prefill = "piecewise"
    prefill_locked = False
    if disable_piecewise_cuda_graph and release not in PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH:
        prefill, prefill_locked = BACKEND_DISABLED, True  # 0.5.10-0.5.13's own switch
    if disable_cuda_graph:
        decode = BACKEND_DISABLED
        if release in PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH:  # 0.5.10-0.5.13 keep the prefill graph
            prefill, prefill_locked = BACKEND_DISABLED, True
    if disable_prefill_cuda_graph:
        prefill, prefill_locked = BACKEND_DISABLED, True
    if disable_decode_cuda_graph:
        decode = BACKEND_DISABLED
    if cuda_graph_backend_decode is not None:
        decode = cuda_graph_backend_decode
    if cuda_graph_backend_prefill is not None:
        prefill, prefill_locked = cuda_graph_backend_prefill, True
    # apply_cuda_graph_compatibility: PP>1 turns the default prefill graph off (not in 0.5.15-0.5.18)
    if not prefill_locked and pp_size > 1 and prefill != BACKEND_DISABLED and prefill_off_with_pp(release):
        prefill = BACKEND_DISABLED
    return decode, prefill


def memory_settings(gpu_mem_mib: float | None, tp: int = 1, pp: int = 1, *, device: str = "cuda",
                    chunked_prefill_size: int | None = None, max_prefill_tokens: int | None = None,
                    mem_fraction_static: float | None = None, max_running_requests: int | None = None,
                    max_total_tokens: int | None = None, cuda_graph_max_bs_decode: int | None = None,
                    cuda_graph_max_bs_prefill: int | None = None, decode_backend: str = "full",
                    prefill_backend: str = "breakable", disable_cuda_graph_padding: bool = False,
                    torch_compile_max_bs: int | None = None, model_path: str = "",
                    context_length: int | None = None, release: str | None = None,
                    mla: bool = False) -> MemorySettings:
    """handle_gpu_memory_settings (0.5.22 memory_hook.py:47-356) for a text model, per release (`release`, None:
    the newest modelled; the rules are releases.py's); `mla`: an MLA model (releases.MLA_LATENT_POOL only), whose
    prefill graph takes its own max_bs and reserve."""
    release = modelled_release(release)
    if default_fraction_rule(release) != RESERVE_FORMULA:
        return table_memory_settings(gpu_mem_mib, tp, pp, device=device, chunked_prefill_size=chunked_prefill_size,
                                     mem_fraction_static=mem_fraction_static,
                                     cuda_graph_max_bs_decode=cuda_graph_max_bs_decode,
                                     decode_backend=decode_backend, release=release)
    t = tier(gpu_mem_mib, tp, release)
    cps = t.chunked_prefill_size if chunked_prefill_size is None else int(chunked_prefill_size)
    max_bs_default = cuda_graph_max_bs_decode is None
    decode_max_bs = t.decode_max_bs if max_bs_default else int(cuda_graph_max_bs_decode)
    if (release in DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING and max_bs_default and max_running_requests is not None
            and decode_max_bs > max_running_requests):
        decode_max_bs = int(max_running_requests)
    if device == "cpu" and release in CPU_DECODE_MAX_BS_FROM_TORCH_COMPILE:
        # memory_hook.py:207-230: the CPU graph reuses torch_compile_max_bs (default 32) as decode max_bs
        decode_max_bs = torch_compile_max_bs or TORCH_COMPILE_MAX_BS_DEFAULT
        decode_bs = cpu_graph_bs(decode_max_bs, disable_cuda_graph_padding)
    else:
        decode_bs = decode_graph_bs(decode_max_bs, disable_cuda_graph_padding)

    if cuda_graph_max_bs_prefill is None:
        prefill_max_bs = cps  # non-MLA: prefill buckets go up to the chunk size
        if mla:
            prefill_max_bs = mla_prefill_max_bs(cps, release)
        if (release in PREFILL_PP_CAP_8192 and pp > 1 and prefill_backend == "breakable"
                and prefill_max_bs > 8192):
            prefill_max_bs = 8192
        if release in PREFILL_CAPS_TOTAL_TOKENS:
            if max_total_tokens is not None:
                prefill_max_bs = min(prefill_max_bs, int(max_total_tokens))
            if "llama-2" in model_path.lower():
                prefill_max_bs = min(prefill_max_bs, 4096)
    else:
        prefill_max_bs = int(cuda_graph_max_bs_prefill)
    if release in PREFILL_CAP_CONTEXT_LENGTH and context_length is not None:
        prefill_max_bs = min(prefill_max_bs, int(context_length))  # 0.5.13 server_args.py:1582-1585
    prefill_bs = prefill_graph_bs(prefill_max_bs)

    # reserve_for_graph_mb (memory_hook.py:359); before 0.5.15 the decode term is reserved even
    # with the decode graph off
    graph = 0.0
    if decode_backend != BACKEND_DISABLED or release not in DECODE_RESERVE_FOLLOWS_GRAPH:
        graph += decode_max_bs * 2
    if prefill_backend != BACKEND_DISABLED:
        graph += MLA_PREFILL_GRAPH_RESERVE_MIB if mla else len(prefill_bs) * 8

    reserved = None
    given = mem_fraction_static is not None
    if given:
        fraction = float(mem_fraction_static)
    else:
        activation_tokens = max(cps, 2048) if cps > 0 else max(max_prefill_tokens or DEFAULT_MAX_PREFILL_TOKENS, 2048)
        reserved = 512 + activation_tokens * 1.5 + tp * pp / 8 * 1024 + graph
        if gpu_mem_mib is not None and gpu_mem_mib > 60 * 1024:
            reserved = max(reserved, 10 * 1024)  # the >60 GiB floor
        if device == "xpu" and release in XPU_RESERVE:
            reserved += 2 * 1024
        if gpu_mem_mib is not None:
            fraction = round((gpu_mem_mib - reserved) / gpu_mem_mib, 3)
        else:
            fraction = 0.95 if release in NO_SIZE_FALLBACK_095 else 0.88
    return MemorySettings(chunked_prefill_size=cps, decode_backend=decode_backend, decode_max_bs=decode_max_bs,
                          decode_bs=decode_bs, prefill_backend=prefill_backend, prefill_max_bs=prefill_max_bs,
                          prefill_bs=prefill_bs, graph_reserve_mib=graph, reserved_mib=reserved,
                          mem_fraction_static=fraction, mem_fraction_static_given=given)


def mla_prefill_max_bs(chunked_prefill_size: int, release: str | None) -> int:
    """An MLA model's default prefill graph max_bs (releases.MLA_PREFILL_MAX_BS_*): 2048 in 0.5.19-0.5.22
    (0.5.22 memory_hook.py:237-240), min(8192, chunked_prefill_size) from 0.5.23 (memory_hook.py:235-238)."""
    if modelled_release(release) in MLA_PREFILL_MAX_BS_CAPPED_CHUNK:
        return min(MLA_PREFILL_MAX_BS_CAP, chunked_prefill_size)
    return MLA_PREFILL_MAX_BS_2048


def mla_page_size(page_size: int | None, release: str | None, *backends: str | None) -> int | None:
    """The page size after _mla_backend_page_constraints (0.5.22 sglang/srt/arg_groups/overrides.py:1085-1150):
    `backends` are the attention, decode and prefill backends given (None: not given); None: page_size unchanged
    (not given, so _page_size_default's 1 on CUDA and the CPU)."""
    named = {b for b in backends if b}
    release = modelled_release(release)
    for backend, size in MLA_PAGE_FIXED.items():
        if backend in named:
            page_size = size
    if "cutlass_mla" in named and release in CUTLASS_MLA_PAGE_128:
        page_size = 128  # 0.5.19 overrides.py:1142-1149, before the 32-or-64 snaps
    snapping = MLA_PAGE_32_OR_64 if release in TOKENSPEED_MLA_PAGE else (
        MLA_PAGE_32_OR_64 - {"tokenspeed_mla"})
    if named & snapping and page_size not in (32, 64):
        page_size = 64
    return page_size


# The tp (tp x pp in 0.4.7) table of 0.4.0-0.4.7 (0.4.5 sglang/srt/server_args.py:233-243, 0.4.7 :255-265).
FRACTION_BY_TP = ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87))
NO_SIZE_FRACTION_BEFORE_0_5_3 = 0.88


def _tp_table(parallel: int) -> float:
    return next((f for least, f in FRACTION_BY_TP if parallel >= least), 0.88)


def table_fraction(gpu_mem_mib: float | None, tp: int, pp: int, release: str) -> tuple[float | None, float | None]:
    """(default mem_fraction_static, reserved MiB or None) of a release before 0.5.3 (releases.DEFAULT_FRACTION);
    no fraction where the release stops without a card size (0.4.6)."""
    rule = default_fraction_rule(release)
    if rule == RESERVED_MEM_TABLE:  # 0.5.2 server_args.py:452-498
        if gpu_mem_mib is None:
            return NO_SIZE_FRACTION_BEFORE_0_5_3, None
        parallel = tp * pp
        if gpu_mem_mib < 35 * 1024:  # the < 20 GiB and < 35 GiB rows are the same
            reserved = (2.8 + parallel / 10) * 1024
        elif gpu_mem_mib < 90 * 1024:
            reserved = (9.5 + parallel / 2) * 1024
        elif gpu_mem_mib < 160 * 1024:  # the < 100 GiB and < 160 GiB rows are the same
            reserved = (12 + parallel / 2) * 1024
        else:
            reserved = 32 * 1024
        return round((gpu_mem_mib - reserved) / gpu_mem_mib, 3), reserved
    if rule == LARGE_CARD_RULES:  # 0.4.7 server_args.py:253-283 (CUDA; speculative decoding not modelled)
        f = _tp_table(tp * pp) if gpu_mem_mib is not None and gpu_mem_mib <= 81920 else 0.88
        if gpu_mem_mib is not None and gpu_mem_mib > 180 * 1000:
            f = 0.79
        elif gpu_mem_mib is not None and gpu_mem_mib > 96 * 1024:
            f = min(f + 48 * 1024 * (1 - f) / gpu_mem_mib, (gpu_mem_mib - 18 * 1024) / gpu_mem_mib)
        return f, None
    if rule == THIRTEEN_GIB_ABOVE_80:  # 0.4.6 server_args.py:224-238
        if gpu_mem_mib is None:
            return None, None  # `None <= 81920`: a TypeError at start-up (0.4.6 :225)
        return (_tp_table(tp) if gpu_mem_mib <= 81920 else (gpu_mem_mib - 1024 * 13) / gpu_mem_mib), None
    return _tp_table(tp), None  # 0.4.0-0.4.5: by tp alone (0.4.5 :233-243)


def table_chunk(gpu_mem_mib: float | None, release: str) -> int:
    """The default chunked_prefill_size before 0.5.3 (releases.CHUNK_*)."""
    if release in CHUNK_BY_35_160_GIB:  # 0.5.2 server_args.py:509-518
        if gpu_mem_mib is None:
            return 4096
        return 2048 if gpu_mem_mib < 35 * 1024 else 8192 if gpu_mem_mib < 160 * 1024 else 16384
    if release in CHUNK_16384_ABOVE_180_GB and gpu_mem_mib is not None and gpu_mem_mib > 180_000:
        return 16384  # 0.4.7 server_args.py:288-289
    return 2048 if gpu_mem_mib is not None and gpu_mem_mib < 25_000 else 8192  # 0.4.6 :241-245


def table_graph_max_bs(gpu_mem_mib: float | None, tp: int, release: str) -> int | None:
    """The default cuda_graph_max_bs before 0.5.3 (None: left to the graph runner's capture list)."""
    small = 35 * 1024 if release in GRAPH_MAX_BS_SMALL_CARD_35_GIB else 25_000
    if gpu_mem_mib is not None and gpu_mem_mib < small:
        return 8 if tp < 4 or release not in GRAPH_MAX_BS_80_AT_TP4 else 80
    return None if release in GRAPH_MAX_BS_LEFT_TO_RUNNER else 160


def table_memory_settings(gpu_mem_mib: float | None, tp: int = 1, pp: int = 1, *, device: str = "cuda",
                          chunked_prefill_size: int | None = None, mem_fraction_static: float | None = None,
                          cuda_graph_max_bs_decode: int | None = None, decode_backend: str = "full",
                          release: str) -> MemorySettings:
    """ServerArgs.__post_init__'s memory defaults before 0.5.3 (no graph or activation term in the fraction).

    On the CPU and XPU these releases read no size (releases.CPU_HAS_A_SIZE; get_device_memory_capacity reads
    CUDA, ROCm, HPU and NPU cards, 0.5.2 sglang/srt/utils.py:1406-1419): the no-size branch of each table."""
    size = None if device in ("cpu", "xpu") else gpu_mem_mib
    cps = table_chunk(size, release) if chunked_prefill_size is None else int(chunked_prefill_size)
    max_bs = table_graph_max_bs(size, tp, release) if cuda_graph_max_bs_decode is None else int(
        cuda_graph_max_bs_decode)
    given = mem_fraction_static is not None
    reserved = None
    if given:
        fraction = float(mem_fraction_static)
    else:  # without a size: 0.88 from the reserved_mem table and 0.4.7, the tp table alone up to 0.4.5
        fraction, reserved = table_fraction(size, tp, pp, release)
    return MemorySettings(chunked_prefill_size=cps, decode_backend=decode_backend, decode_max_bs=max_bs,
                          decode_bs=[], prefill_backend=BACKEND_DISABLED, prefill_max_bs=0, prefill_bs=[],
                          graph_reserve_mib=0.0, reserved_mib=reserved, mem_fraction_static=fraction,
                          mem_fraction_static_given=given)


@dataclass
class Pool:
    """kv_cache_configurator + pool_configurator + tp_worker: from the budget to tokens and limits."""

    budget_bytes: int
    max_total_num_tokens: int
    max_running_requests: int
    max_req_len: int
    max_req_input_len: int
    error: str | None = None
    notes: list[str] = field(default_factory=list)


def resolve_max_num_reqs(tokens: int, context_len: int, max_running_requests: int | None = None,
                         attn_dp_size: int = 1, release: str | None = None,
                         profiled_tokens: int | None = None) -> int:
    """kv_cache_configurator.py:2800 resolve_max_num_reqs (non-Mamba), per release (releases.MRR_*).

    `profiled_tokens`: the pool before the --max-total-tokens cap and page rounding, which 0.4.2-0.5.9
    estimate from (0.5.3 model_runner.py:1431-1441, 0.4.2 :585-613). Up to 0.4.6 the request pool has one
    slot more than the estimate (releases.REQ_POOL_ONE_EXTRA_SLOT)."""
    release = modelled_release(release)
    after_cap = release in MRR_ESTIMATE_FROM_CAPPED_POOL or release in MRR_ESTIMATE_AFTER_CAP_UP_TO_0_4_1
    basis = tokens if after_cap or profiled_tokens is None else profiled_tokens
    estimated = int(basis / context_len * 512)
    estimated = max(min(estimated, 4096), 2048)
    if max_running_requests is not None:
        given = max_running_requests // attn_dp_size
        if release in MRR_GIVEN_CAPPED_AT_HALF_POOL:
            return min(given, tokens // 2)
        if release in MRR_GIVEN_CAPPED_AT_ESTIMATE:
            return min(given, estimated)
        return given
    if release in REQ_POOL_ONE_EXTRA_SLOT:
        return min(estimated + 1, tokens // 2)  # 0.4.6 model_runner.py:795 size=max_num_reqs + 1
    return min(estimated, tokens // 2)


def pool_tokens(pool_bytes: float, cell_size: float, page_size: int = 1, max_total_tokens: float | None = None,
                release: str | None = None) -> int:
    """SGLang's rounding of a pool: bytes -> whole cells (int(available // cell): a hybrid sliding-window model's
    cell is a float, 0.5.22 pool_configurator.py:889) -> whole pages (from 0.4.4: releases.POOL_PAGE_ROUNDING,
    0.4.4 model_runner.py:708-712; before, no pages), capped at --max-total-tokens, the cap page-aligned too.
    The one rounding `predict` and `compare --explain` both use."""
    if modelled_release(release) not in POOL_PAGE_ROUNDING:
        page_size = 1
    tokens = max(0, int(int(pool_bytes) // cell_size)) // page_size * page_size
    if max_total_tokens is not None and not math.isinf(max_total_tokens) and int(max_total_tokens) < tokens:
        tokens = int(max_total_tokens) // page_size * page_size
    return tokens


def size_pool(rest_gib: float, cell_size: float, context_len: int, page_size: int = 1,
              max_total_tokens: int | None = None, max_running_requests: int | None = None,
              pre_model_load_gib: float | None = None, mem_fraction_static: float | None = None,
              available_after_load_gib: float | None = None, release: str | None = None) -> Pool:
    """rest_memory (GiB) -> pool. rest <= 0 is G1 (from 0.5.14; before, G2), 0 tokens is G2, a pool of
    <= 1 token is G3."""
    notes: list[str] = []
    not_enough = ("G2: Not enough memory. Please try to increase --mem-fraction-static."
                  + not_enough_memory_suffix(release, mem_fraction_static))
    if rest_gib <= 0 and modelled_release(release) in WEIGHTS_LEAVE_NO_MEMORY_ERROR:
        msg = "G1: Loaded weights leave no GPU memory for the KV cache"
        if pre_model_load_gib and available_after_load_gib is not None:
            minimum = 1 - available_after_load_gib / pre_model_load_gib
            suggested = math.ceil(minimum * 1000) / 1000
            msg += (f" under --mem-fraction-static={mem_fraction_static}. Raise --mem-fraction-static above "
                    f"{suggested:.3f} (minimum viable = 1 - available/pre = {minimum:.4f})")
        return Pool(0, 0, 0, 0, 0, error=msg)
    if rest_gib <= 0:
        return Pool(0, 0, 0, 0, 0, error=not_enough)
    budget = int(rest_gib * (1 << 30))
    profiled = int(budget // cell_size)
    if max_total_tokens is not None and max_total_tokens > pool_tokens(budget, cell_size, page_size, None, release):
        notes.append(f"max_total_tokens={max_total_tokens} is larger than the profiled value "
                     f"{pool_tokens(budget, cell_size, page_size, None, release)}; the profiled value is used")
    tokens = pool_tokens(budget, cell_size, page_size, max_total_tokens, release)
    if tokens <= 0:
        return Pool(budget, tokens, 0, 0, 0, error=not_enough, notes=notes)
    mrr = resolve_max_num_reqs(tokens, context_len, max_running_requests, release=release, profiled_tokens=profiled)
    max_req_len = min(context_len - 1, tokens - 1)  # tp_worker.py:545-553
    error = None
    if mrr <= 0 and modelled_release(release) in MRR_ZERO_CHECKED:
        error = "G4: max_running_request is zero"
    elif max_req_len <= 0 or (max_req_len - 5 <= 0 and modelled_release(release) in TOO_SMALL_CHECKS_INPUT_LEN):
        error = "G3: Memory pool size is too small"
    if tokens < context_len and error is None:
        notes.append(pool_shorter_than_context_note(tokens, context_len, max_req_len, release))
    return Pool(budget, tokens, mrr, max_req_len, max_req_len - 5, error=error, notes=notes)
