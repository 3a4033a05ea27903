"""vLLM 0.32.0 KV budget formulas (pure arithmetic), sourced from vllm/v1/worker and vllm/v1/core.

vLLM *measures*: budget = ceil(T x gpu_memory_utilization); a dummy forward measures
weights + other (W+O) and the activation peak (A); a CUDA-graph estimate G is subtracted;
what is left is cut into whole blocks. Only W, the block arithmetic and the capacity
checks are exact here; O, A and G are labelled estimates (calibration can replace them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.predict.host import DeviceMemory, HostMemory
from harness.predict.model import GiB, MiB, ModelDescription

DEFAULT_GPU_MEMORY_UTILIZATION = 0.92  # vllm/config/cache.py:102
DEFAULT_BLOCK_SIZE_CUDA = 16  # vllm/config/cache.py:72 (FLASH_ATTN / FlashInfer keep 16)
DEFAULT_BLOCK_SIZE_CUDA_64 = 64  # from 0.34.0 (0.34.0 vllm/config/cache.py:185; releases.DEFAULT_BLOCK_SIZE_64)
DEFAULT_BLOCK_SIZE_CPU = 128  # vllm/platforms/cpu.py:273-293

# ---- estimates (not in the engine's code: our documented guesses, replaced by calibration) ----
# O: the non-torch memory each release's profile counts, by release and tensor parallelism: non_torch.py.
# G: what each CUDA graph after a mode's first adds (profile_cudagraph_memory measures it on the second-largest
#    size, at least 1 MiB: 0.32.0 vllm/v1/worker/gpu_model_runner.py:6417-6420); the first capture is sized as
#    the dummy forward's tensors for that size (cudagraph_memory_estimate).
GRAPH_MIB_PER_SIZE_ESTIMATE = 5.0
GRAPH_MIB_PER_GRAPH_FLOOR = 1.0  # "at least 1 MiB per graph for driver overhead" (0.18.0 gpu_model_runner.py:5653)
# A: working copies of the hidden state alive at the dummy forward's peak (residual, normed
#    input, attention output, ...) - a coarse count.
ACTIVATION_HIDDEN_COPIES = 4
# E1 check: memory the CUDA context and NCCL take before vLLM's snapshot on an empty card. Measured once on a real
# card (results/gpu_baseline/h100-torch2.11-cu130/): a bare torch 2.11+cu130 context on an H100 with driver 580
# holds 0.60 GiB with lazy module loading (CUDA's default), 1.23 GiB eager. Kept at 0.5: the term also stands for
# the context in the O of releases before 0.9.1, whose CUDA 12.1-12.4 stacks no GPU run here has measured.
CUDA_CONTEXT_GIB_ESTIMATE = 0.5
# cuBLAS and cuBLASLt handles with their workspaces, created by the first matmul: 0.33.0 creates them
# before the startup snapshot (0.33.0 vllm/v1/worker/gpu_worker.py:519-531, a 16x16 mm and a linear
# with a bias), so they leave O (counted since the snapshot) and join the baseline that the free-memory
# check sees. Its size is torch's and CUDA's, not vLLM's, and depends on the card. Measured on an H100 with torch
# 2.11+cu130 and driver 580 (results/gpu_baseline/h100-torch2.11-cu130/: that warm-up's 16x16 fp16 mm and bf16
# linear with a bias after a bare context, two runs alike): 66 MiB beyond torch's blocks (the handles and the kernels
# they load; 540 MiB with eager module loading), and 32 MiB of workspace in torch's own blocks (4 MiB x 8 on sm90+,
# torch's default). The first is this term; other cards and CUDA 12 stacks are not measured.
CUBLAS_HANDLES_GIB_ESTIMATE = 0.064
# R (CPU): the worker's resident memory after its warm-up, which vLLM-CPU subtracts from its reservation (psutil
# rss, 0.32.0 vllm/v1/worker/cpu_worker.py:236-237). It holds, each sized apart: the runtime (python, torch, vLLM's
# modules and kernels: the estimate below), the weights as stored, the packed copies of the vocab matrices
# (cpu_vocab_copies_bytes), the model runner's inputs_embeds buffer (cpu_runner_buffer_bytes), the input batch's token
# tables (cpu_input_batch_bytes), and what compiling left where the model is compiled (CPU_COMPILER_ESTIMATE; eager
# mode compiles nothing and returns before the warm-up's profile_run, cpu_model_runner.py:84-91).
# The runtime is measured per release on this project's CPU runs (2-core VMs) and is an estimate on any other host.
# 0.32.0: fitted on tiny-llama alone, eager, as its RSS less its weights, vocab copies (0.001 GiB), inputs_embeds
# buffer (64 KiB at 256 batched tokens, 0.5 MiB at 2,048) and input batch (0.3 MiB at max_model_len 512): 0.6027 GiB on
# 2026-12-02 (results/cpu_budget baseline, 3 rows, 256) and 0.6074 on 2026-12-03 (results/cpu_sizes, 2 rows, 2,048),
# the mean of the two days; checked out of sample on the 0.41 and 1.45 GB Llamas and two more shapes of
# results/cpu_sizes (README there).
CPU_WORKER_RUNTIME_GIB_ESTIMATE = {"0.32.0": 0.6050}
CPU_WORKER_RUNTIME_MEASURED_ON = "0.32.0"  # the release whose runtime stands in for the ones not measured
# A compiled worker (vLLM-CPU's default: Inductor over the whole model, DYNAMO_TRACE_ONCE, 0.32.0
# vllm/platforms/cpu.py:356-377) holds more than an eager one: what compiling leaves, the compiler's own modules and,
# per decoder layer, the traced graph and generated code of a compile that traces every layer into one graph. Its
# warm-up forward (cpu_model_runner.py:84-91) leaves nothing measurable: with glibc's mmap threshold fixed the 0.41 GB
# Llama's four compiled starts held 1.10 GiB each, its forward's tensors given back. 0.32.0: fitted on tiny-llama
# (2 layers: 0.0513-0.0532 GiB beyond the eager estimate, four starts) and that Llama with the threshold fixed (18
# layers: 0.1146-0.1161): 0.0443 GiB + 4.04 MiB a layer (results/cpu_sizes/compiled-vllm0.32.0, checked there on
# the other sizes and a 48-layer model built after the fit).
CPU_COMPILER_ESTIMATE = {"0.32.0": (0.0443, 4.04)}  # (GiB, MiB per decoder layer)
# A decoder layer whose MLP is routed experts compiles to more than a dense one (its router, top-k and the fused
# experts' op in the traced graph: 0.32.0 model_executor/layers/fused_moe/experts/cpu_moe.py:269-316). 0.32.0: fitted,
# as the dense term was, with glibc's mmap threshold fixed, on a Qwen3 MoE of 16 layers of 8 experts
# (results/cpu_sizes/compiled-vllm0.32.0/moe16-mmap: both starts held 34 MiB less than 5.30 MiB a layer, the figure
# first fitted on its starts at the default threshold, whose freed heap it had taken in); checked on two other shapes
# with the threshold fixed (24 layers of 384 with 16 experts: 2.86 MiB; 12 layers of 768: 3.61): MiB per such layer
# beyond a dense layer's.
CPU_COMPILER_MOE_LAYER_MIB = {"0.32.0": 3.17}
# What the allocator keeps of what the compiled warm-up frees. glibc's malloc gives back what is freed above its mmap
# threshold, which rises with each freed mmapped chunk up to 32 MiB: what it keeps is not modelled, the R estimate
# says so:
CPU_GLIBC_HEAP_NOTE = ("freed heap glibc keeps beside it is not modelled: 0.01-0.14 GiB in four starts of a 0.41 GB "
                       "Llama at 2,048 batched tokens, 0.11-0.14 GiB in both at 8,192 "
                       "(results/cpu_sizes/compiled-vllm0.32.0)")
# tcmalloc, which vLLM's CPU image preloads (its Dockerfile.cpu sets LD_PRELOAD=.../libtcmalloc_minimal.so.4) and
# 0.32.0 preloads where its wheel bundles one (vllm/platforms/cpu.py:487-509), keeps in its page heap what it is given
# back: what the compiled warm-up (a profile_run over max_num_batched_tokens, cpu_model_runner.py:84-91) and the
# compile freed stays in the RSS vLLM-CPU subtracts. Measured per release on this project's CPU runs, all points
# predicted before launch (results/cpu_sizes/tcmalloc-vllm0.32.0): 0.32.0, fitted by least squares on six compiled
# starts of three dense Llamas (tiny-llama 2 x 128 at 2,048 batched tokens; llama-0.4gb 18 x 1024 at 512 and twice at
# 2,048; wide6 6 x 3072 at 512 and 2,048): a constant and two bytes-per-batched-token terms, one per hidden unit and
# one per layer and hidden unit (GiB, B, B); held out on llama-1.4gb (16 x 2048), deep48 (48 x 512), a Qwen3 MoE
# (12 x 768) and llama-0.4gb at 4,096 batched tokens, each predicted before its launch: 4 of 4 within 2 % (README
# there). An estimate; eager starts run no warm-up and are within 1 % without it.
CPU_TCMALLOC_WARMUP_KEPT = {"0.32.0": (0.0287, 17.65, 1.120)}


def cpu_preloads_tcmalloc(env: dict[str, str]) -> bool:
    """Whether the point's environment preloads tcmalloc (gperftools' libtcmalloc or libtcmalloc_minimal)."""
    return "libtcmalloc" in env.get("LD_PRELOAD", "")


def cpu_tcmalloc_kept_bytes(release: str, batched_tokens: int, hidden: int, layers: int) -> tuple[int, str]:
    """What tcmalloc keeps of a compiled vLLM-CPU worker's warm-up (bytes), and how it was sized."""
    (base_gib, per_hidden, per_layer_hidden), measured = _measured_per_release(
        CPU_TCMALLOC_WARMUP_KEPT, release, "three dense Llamas under tcmalloc")
    kept = base_gib * GiB + batched_tokens * (per_hidden * hidden + per_layer_hidden * layers * hidden)
    basis = (f"{base_gib:.4f} GiB + {batched_tokens:,} batched tokens x ({per_hidden:.2f} B x {hidden} hidden + "
             f"{per_layer_hidden:.3f} B x {layers} layers x {hidden})")
    return int(kept), f"{basis}, {measured}"


def cpu_node_memory(host: HostMemory, container_cap: bool = True) -> DeviceMemory:
    """The worker's NUMA node as vLLM-CPU reads it (0.32.0 and 0.33.0 vllm/utils/cpu_resource_utils.py:189-241).

    Total = the node's MemTotal, available = MemFree + Active(file) + Inactive(file) +
    SReclaimable; a container limit below the total replaces it, and caps available at
    limit - usage (`container_cap`: the releases that do, see releases.CPU_CONTAINER_CAP).
    Without node files: /proc/meminfo (psutil)."""
    node = host.first_cpu_node
    if node < len(host.node_total_kib) and node < len(host.node_available_bytes):
        total = host.node_total_kib[node] * 1024
        available: float | None = host.node_available_bytes[node]
        basis = f"NUMA node {node} MemTotal"
    else:
        total, available = host.meminfo_total_bytes, host.meminfo_available_bytes
        basis = "/proc/meminfo MemTotal"
    limit, usage = _cgroup_limit_and_usage(host) if container_cap else (None, None)
    if limit is not None and limit < total:
        total = limit
        if available is not None:
            available = max(0, min(available, limit - (usage or 0)))
        basis += " capped by the container's memory limit"
    return DeviceMemory(total / MiB, None if available is None else available / MiB, basis)


def _cgroup_limit_and_usage(host: HostMemory) -> tuple[int | None, int | None]:
    """get_cgroup_memory_limit / _usage (cpu_resource_utils.py:70-115): cgroup v2, else v1 below its
    "unlimited" sentinel (>= 2**62)."""
    if host.cgroup_max_bytes is not None:
        return host.cgroup_max_bytes, host.cgroup_current_bytes
    v1 = host.cgroup_v1_limit_bytes
    if v1 is not None and v1 < (1 << 62):
        return v1, host.cgroup_v1_usage_bytes
    return None, None


def cpu_worker_runtime_gib(release: str) -> tuple[float, str]:
    """The runtime part of vLLM-CPU's worker RSS for `release` (GiB) and where it comes from."""
    return _measured_per_release(CPU_WORKER_RUNTIME_GIB_ESTIMATE, release, "tiny-llama")


def cpu_compiled_extra_bytes(release: str, num_layers: int, moe_layers: int = 0) -> tuple[int, str]:
    """What a compiled vLLM-CPU worker holds beyond an eager one (bytes), and how it was sized: `moe_layers` of the
    `num_layers` decoder layers carry routed experts."""
    (base_gib, per_layer_mib), measured = _measured_per_release(CPU_COMPILER_ESTIMATE, release,
                                                                "tiny-llama, llama-0.4gb")
    extra = base_gib * GiB + per_layer_mib * MiB * num_layers
    basis = f"{base_gib:.4f} GiB + {per_layer_mib:.2f} MiB x {num_layers} layers"
    if moe_layers:
        moe_mib, moe_measured = _measured_per_release(CPU_COMPILER_MOE_LAYER_MIB, release,
                                                     "a 16-layer Qwen3 MoE, mmap threshold fixed")
        extra += moe_mib * MiB * moe_layers
        basis += f" + {moe_mib:.2f} MiB x {moe_layers} MoE layers ({moe_measured})"
    return int(extra), f"{basis}, {measured}"


def _measured_per_release(by_release: dict[str, Any], release: str, models: str) -> tuple[Any, str]:
    """A CPU term measured per release (`by_release`), on `models`: the measured release's stands in for the others."""
    if release in by_release:
        return by_release[release], f"measured on vllm {release} ({models})"
    measured_on = CPU_WORKER_RUNTIME_MEASURED_ON
    return by_release[measured_on], f"measured on vllm {measured_on} ({models}), not on {release}"


VOCAB_PADDING = 64  # DEFAULT_VOCAB_PADDING_SIZE, 0.32.0 vllm/model_executor/layers/vocab_parallel_embedding.py


def cpu_vocab_copies_bytes(model: ModelDescription, tp: int, elem_bytes: int) -> int:
    """The packed GEMM copies vLLM-CPU makes of the embedding and the LM head and keeps beside their weights.

    After loading, every module's quant method processes its weights (0.32.0 model_loader/utils.py:151-153,
    named_modules: the embedding and the LM head are two modules even when tied); on the CPU the unquantized
    embedding method packs its weight for a GEMM (oneDNN or sgl-kernel) and keeps the weight
    (vocab_parallel_embedding.py:67-71, remove_weight=False), where linear layers drop theirs after packing
    (linear.py:214-216). So each of the two holds a second copy of its padded vocab rows. (Only where a packed
    GEMM exists: the x86 and Arm wheels' oneDNN, AMX's sgl-kernel; the PowerPC fallback packs nothing,
    layers/utils.py:581-609, which this does not model.)"""
    vocab_rows = cdiv(cdiv(model.vocab_size, VOCAB_PADDING) * VOCAB_PADDING, max(1, tp))
    return 2 * vocab_rows * model.hidden_size * elem_bytes


# The x86 flags (/proc/cpuinfo names) under which oneDNN builds a matmul of a 16-bit type: its platform::
# has_data_type_support (src/cpu/platform.cpp, the oneDNN torch 2.x ships): bf16 needs avx512_core (AVX-512 F, BW,
# VL and DQ) or avx2_vnni_2 (AVX-VNNI with AVX-VNNI-INT8 and AVX-NE-CONVERT), f16 avx512_core_fp16 or avx2_vnni_2.
AVX512_CORE_FLAGS = frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq"})
AVX2_VNNI_2_FLAGS = frozenset({"avx_vnni", "avx_vnni_int8", "avx_ne_convert"})
X86_BASELINE_FLAG = "sse2"  # every x86-64 CPU has it; no Arm or PowerPC one names it


def cpu_gemm_packs(dtype: str, flags: frozenset[str] | None) -> bool | None:
    """Whether vLLM-CPU packs its unquantized GEMM weights on an x86 CPU with these flags (None: not known - no
    flags, or not x86).

    0.32.0 model_executor/layers/utils.py:470-609: AMX's sgl-kernel packs bf16 (and fp16 with AMX-FP16,
    :439-452); else oneDNN's matmul is tried, and where oneDNN has no kernel for the dtype on this CPU it
    raises ("Failed to create oneDNN linear, fallback to torch linear") and torch's linear runs on the
    weights as loaded: no packed copy is made, nothing is freed. float32 always has a kernel."""
    if flags is None or X86_BASELINE_FLAG not in flags:
        return None
    avx2_vnni_2 = flags >= AVX2_VNNI_2_FLAGS
    if dtype in ("bfloat16", "bf16"):
        return flags >= AVX512_CORE_FLAGS or avx2_vnni_2 or "amx_bf16" in flags
    if dtype in ("float16", "half", "fp16"):
        return (flags >= AVX512_CORE_FLAGS and "avx512_fp16" in flags) or avx2_vnni_2 or "amx_fp16" in flags
    return True


def cpu_runner_buffer_bytes(model: ModelDescription, max_num_batched_tokens: int, elem_bytes: int) -> int:
    """The model runner's persistent inputs_embeds buffer vLLM-CPU's worker holds from its start: max_num_batched_tokens
    rows of the embedding width in the model's dtype (0.32.0 v1/worker/gpu_model_runner.py:516, :529, :811-813, a
    CpuGpuBuffer whose second copy the CPU runner drops for the first, cpu_model_runner.py:38-60). 8 MiB on a
    2,048-wide model at 2,048 tokens: what results/cpu_sparse's grid showed beside the pool per 2,048 more batched
    tokens before this was read."""
    return max_num_batched_tokens * model.hidden_size * elem_bytes


# The input batch's two per-request token tables: token ids (int32) and an is-token-id flag (bool).
INPUT_BATCH_BYTES_PER_POSITION = 4 + 1


def cpu_input_batch_bytes(max_num_seqs: int, max_model_len: int) -> int:
    """The input batch's token tables vLLM-CPU's worker holds from its start: max_num_seqs rows of max_model_len
    positions, token ids and a flag each, zero-filled and so resident (0.32.0 v1/worker/gpu_input_batch.py:131-143,
    built with max_num_reqs = max_num_seqs at gpu_model_runner.py:517, :714-718; the copy re-made for the KV cache's
    block sizes, :6947, comes after the worker reads its RSS). 640 B a position at the CPU's default 128 sequences:
    what results/cpu_sparse's grid showed beside the pool per position of max_model_len (~650 B) before it was read."""
    return max_num_seqs * max_model_len * INPUT_BATCH_BYTES_PER_POSITION


def cpu_warms_up(enforce_eager: bool, lora: bool, ci_env: bool) -> bool:
    """Whether vLLM-CPU runs a warm-up forward before it reads its RSS: only a compiled model does
    (0.32.0 cpu_model_runner.py:84-86 returns in CompilationMode.NONE, which enforce_eager sets, config/vllm.py:
    1691-1692, and LoRA, platforms/cpu.py:379-380; VLLM_CPU_CI_ENV skips it, cpu_worker.py:191-193)."""
    return not (enforce_eager or lora or ci_env)


CPU_KV_SPACE_DEFAULT_BYTES_BEFORE_0_13 = 4 * GiB  # 0.11.0 vllm/platforms/cpu.py:116


def cpu_kv_space_bytes(env_value: str | None, half_memory_by_default: bool,
                       per_node_total_bytes: float | None) -> tuple[int | None, str]:
    """vLLM-CPU before 0.20.0: (KV cache bytes, where they came from) - get_device_total_memory.

    Set, VLLM_CPU_KVCACHE_SPACE is int(value) GiB (envs.py: int(os.getenv(...)); "0" gives 0 and the
    engine's no-memory error). Unset: 4 GiB (0.10-0.12), or from 0.13.0 int(0.5 x (psutil total //
    node* entries)) (0.17.1 vllm/platforms/cpu.py:143-166), None when that size is unknown. Raises
    ValueError for a non-integer value."""
    if env_value is not None:
        return int(env_value) * GiB, f"VLLM_CPU_KVCACHE_SPACE={env_value} GiB"
    if not half_memory_by_default:
        return CPU_KV_SPACE_DEFAULT_BYTES_BEFORE_0_13, "VLLM_CPU_KVCACHE_SPACE unset: 4 GiB"
    if per_node_total_bytes is None:
        return None, "VLLM_CPU_KVCACHE_SPACE unset: half the memory per NUMA node"
    space = int(round(per_node_total_bytes) * 0.5)
    return space, f"VLLM_CPU_KVCACHE_SPACE unset: half of {per_node_total_bytes / GiB:.2f} GiB = {space / GiB:.2f} GiB"


def cpu_memory_per_node_entry(host: HostMemory) -> DeviceMemory:
    """What vLLM-CPU 0.13-0.19 halve: psutil's total // the node* entries (0.17.1 vllm/platforms/cpu.py:150-156)."""
    nodes = host.numa_node_dirs or 1
    free = None if host.meminfo_available_bytes is None else host.meminfo_available_bytes / nodes / MiB
    return DeviceMemory(host.meminfo_total_bytes // nodes / MiB, free,
                        f"/proc/meminfo MemTotal // {nodes} NUMA node entr{'y' if nodes == 1 else 'ies'}")


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def batch_defaults(total_bytes: float | None, device: str = "cuda", device_name: str = "",
                   world_size: int = 1, tier_160_gib: bool = True, a100_excluded: bool = True) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs) for `vllm serve` (EngineArgs.get_batch_defaults, arg_utils.py:2894).

    `tier_160_gib`: the release has the >= 160 GiB tier (releases.BATCH_DEFAULTS_160_GIB_TIER); `a100_excluded`:
    A100s stay below the >= 70 GiB tier (releases.BATCH_DEFAULTS_A100_EXCLUDED)."""
    if device == "cpu":
        return 2048 * world_size, 128 * world_size
    mem = total_bytes or 0
    if tier_160_gib and mem >= 160 * GiB:
        return 16384, 1024
    if mem >= 70 * GiB and not (a100_excluded and "a100" in device_name.lower()):
        return 8192, 1024
    return 2048, 256


def resolve_batch(max_num_batched_tokens: int | None, max_num_seqs: int | None, max_model_len: int,
                  defaults: tuple[int, int], enable_chunked_prefill: bool = True,
                  performance_mode: str = "balanced", capped_by_model_len: bool = True,
                  seqs_capped_by_batch: bool = True) -> tuple[int, int]:
    """arg_utils.py:3097-3185: table defaults, then clamps applied only to values the user left unset.

    `capped_by_model_len`: the release caps a default max_num_batched_tokens at max_num_seqs x max_model_len
    (releases.BATCH_CAPPED_BY_MODEL_LEN); 0.11.0 keeps the table's value (0.11.0 arg_utils.py:1665-1680).
    `seqs_capped_by_batch`: a default max_num_seqs is capped at max_num_batched_tokens
    (releases.MAX_NUM_SEQS_CAPPED_BY_BATCH)."""
    mnbt = defaults[0] if max_num_batched_tokens is None else int(max_num_batched_tokens)
    mns = defaults[1] if max_num_seqs is None else int(max_num_seqs)
    if performance_mode == "throughput":
        mnbt = mnbt * 2 if max_num_batched_tokens is None else mnbt
        mns = mns * 2 if max_num_seqs is None else mns
    if max_num_batched_tokens is None and capped_by_model_len:
        if not enable_chunked_prefill:
            mnbt = max(max_model_len, mnbt)
        mnbt = min(mns * max_model_len, mnbt)
    if max_num_seqs is None and seqs_capped_by_batch:
        mns = min(mns, mnbt)
    return mnbt, mns


def cudagraph_capture_sizes(max_num_seqs: int, max_num_batched_tokens: int,
                            max_capture_size: int | None = None, default_max: int = 512,
                            capture_max_num_seqs: bool = True,
                            capture_max_num_batched_tokens: bool = True, stride_16_from_256: bool = True) -> list[int]:
    """config/vllm.py:2346-2495 for decode_query_len 1 (no speculative decoding).

    `capture_max_num_seqs`: the release adds max_num_seqs off the stride (releases.MAX_NUM_SEQS_CAPTURED);
    `capture_max_num_batched_tokens`: it adds max_num_batched_tokens under the cap
    (releases.MAX_NUM_BATCHED_TOKENS_CAPTURED); `stride_16_from_256`: sizes from 256 up step by 16, not 8
    (releases.CAPTURE_STRIDE_16_FROM_256)."""
    uniform_decode: list[int] = []
    if max_capture_size is None:
        max_capture_size = min(max_num_seqs * 2, default_max)
        if capture_max_num_seqs and max_num_seqs <= max_capture_size:
            uniform_decode = [max_num_seqs]
    cap = min(max_num_batched_tokens, max_capture_size)
    sizes = [i for i in (1, 2, 4) if i <= cap]
    if not stride_16_from_256:
        sizes += list(range(8, cap + 1, 8))
    elif cap >= 8:
        sizes += list(range(8, min(cap + 1, 256), 8))
    if stride_16_from_256 and cap >= 256:
        sizes += list(range(256, cap + 1, 16))
    if capture_max_num_batched_tokens and max_num_batched_tokens <= cap and max_num_batched_tokens not in sizes:
        sizes.append(max_num_batched_tokens)
    sizes += [s for s in uniform_decode if s <= max_num_batched_tokens]
    return sorted(set(sizes))


def full_decode_sizes(max_num_seqs: int, capture_sizes: list[int]) -> list[int]:
    """FULL (uniform decode) graphs: the capture sizes that are batch sizes of one-token requests."""
    return [s for s in capture_sizes if s <= max_num_seqs]


def cudagraph_memory_estimate(model: ModelDescription, sizes_by_mode: dict[str, list[int]], tp: int,
                              elem_bytes: int) -> tuple[int, str]:
    """G the way profile_cudagraph_memory makes it (0.18.0 vllm/v1/worker/gpu_model_runner.py:5593-5690, the same
    arithmetic to 0.32.0 :6333-6480): per mode (PIECEWISE, FULL decode) the first capture, of its largest size, is
    measured whole and the second's increase stands for every further graph (at least 1 MiB); the modes share one
    pool, so the largest first capture counts once: max(first) + sum((n - 1) x per_graph). (Bytes, how.)

    vLLM measures both samples on the card. Here the first capture is the dummy forward's tensors for its size
    (activation_estimate_bytes without the sampler, which the graph does not hold) and the per-graph increase
    GRAPH_MIB_PER_SIZE_ESTIMATE: our estimates, in the release's arithmetic."""
    per_graph = max(GRAPH_MIB_PER_SIZE_ESTIMATE, GRAPH_MIB_PER_GRAPH_FLOOR) * MiB
    firsts: list[int] = []
    further = 0
    for sizes in sizes_by_mode.values():
        if sizes:
            firsts.append(activation_estimate_bytes(model, max(sizes), 0, tp, elem_bytes))
            further += len(sizes) - 1
    if not firsts:
        return 0, "no CUDA graphs"
    first = max(firsts)
    return int(first + further * per_graph), f"first graph ~{first / MiB:.0f} MiB + {further} x {per_graph / MiB:g} MiB"


def activation_estimate_bytes(model: ModelDescription, num_tokens: int, num_reqs: int, tp: int,
                              elem_bytes: int) -> int:
    """A: peak of the dummy forward over `num_tokens` tokens (estimate).

    The largest live tensors are the MLP's gate_up output plus its activation
    (3 x intermediate/tp per token), a few hidden-state copies, the qkv output, and
    the sampler's logits for `num_reqs` rows (model dtype, then float32 twice for
    logprobs/probs).
    """
    tp = max(1, tp)
    per_token = (3 * model.intermediate_size // tp
                 + ACTIVATION_HIDDEN_COPIES * model.hidden_size
                 + (model.num_attention_heads + 2 * model.num_kv_heads) * model.head_dim // tp)
    logits = num_reqs * cdiv(model.vocab_size, tp) * (elem_bytes + 8)
    return num_tokens * per_token * elem_bytes + logits


def estimate_max_model_len(check_memory: int, bytes_per_block: int, block_size: int, upper: int) -> int:
    """Largest L <= upper with cdiv(L, bs) x bytes_per_block <= check_memory, 0 if none.

    kv_cache_utils.py:2369 does this as a binary search over [1, upper]; the fit test
    is monotone in L, so the answer is the closed form below.
    """
    if check_memory < bytes_per_block:
        return 0
    return min(upper, (check_memory // bytes_per_block) * block_size)


def estimate_max_model_len_groups(check_memory: int, bytes_per_block: int, blocks_per_request: Callable[[int], int],
                                  upper: int) -> int:
    """The same search over several KV cache groups: largest L <= upper whose blocks in every group, times the pool's
    bytes per block, fit `check_memory`; 0 if not even 1 token does. 0.32.0 vllm/v1/core/kv_cache_utils.py:2369-2409
    (_estimate_max_model_len_from_groups) binary-searches [1, upper] and so do we: a sliding group's blocks are no
    closed form of L."""
    def fits(length: int) -> bool:
        return blocks_per_request(length) * bytes_per_block <= check_memory

    if not fits(1):
        return 0
    left, right, result = 1, upper, 1
    while left <= right:
        mid = (left + right) // 2
        if fits(mid):
            result, left = mid, mid + 1
        else:
            right = mid - 1
    return result


@dataclass(frozen=True)
class KvCacheGroups:
    """vLLM's KV cache groups for full-attention layers beside sliding-window layers of one window, all pages of
    one size (0.32.0 vllm/v1/core/kv_cache_utils.py:1362-1502 _get_kv_cache_groups_uniform_page_size): every
    group holds `layers_per_group` layers (the last of a kind padded), all groups draw blocks from one pool whose
    block is the widest group's pages (:1520-1545 _get_kv_cache_bytes_per_block)."""

    full_groups: int
    sliding_groups: int
    layers_per_group: int
    sliding_window: int
    block_size: int
    in_flight_tokens: int  # VllmConfig.max_in_flight_tokens (0.32.0 vllm/config/vllm.py:590-598)
    state_groups: int = 0  # Mamba groups: a fixed number of state pages per request
    state_blocks: int = 0  # MambaSpec.max_memory_usage_bytes / page_size_bytes (0.32.0 kv_cache_interface.py:1076)

    @property
    def count(self) -> int:
        return self.full_groups + self.sliding_groups + self.state_groups

    def sliding_blocks(self, max_model_len: int) -> int:
        """SlidingWindowSpec.max_admission_blocks_per_request (0.32.0 vllm/v1/kv_cache_interface.py:859-885):
        the window less one plus the tokens in flight, at most max_model_len, +1 for a window that starts
        mid-block."""
        return cdiv(min(self.sliding_window - 1 + self.in_flight_tokens, max_model_len), self.block_size) + 1

    def blocks_per_request(self, max_model_len: int) -> int:
        """What one request of `max_model_len` takes from the pool: its blocks in every group, summed
        (get_max_concurrency_for_kv_cache_config, kv_cache_utils.py:1195-1227; FullAttentionSpec takes
        cdiv(len, block_size), kv_cache_interface.py:602-607)."""
        return (self.full_groups * cdiv(max_model_len, self.block_size)
                + self.sliding_groups * self.sliding_blocks(max_model_len) + self.state_groups * self.state_blocks)


def sliding_window_groups(full_layers: int, sliding_layers: int, sliding_window: int, block_size: int,
                          in_flight_tokens: int, larger_under_1_5: bool = True) -> KvCacheGroups:
    """The groups vLLM makes of `full_layers` and `sliding_layers` (one window, one page size). All sliding: one
    group of every layer (is_kv_cache_spec_uniform, kv_cache_utils.py:2183-2187). Both: the group size is the
    fewer layers of a kind, or the more where that is under 1.5 x the fewer (:1462-1475; `larger_under_1_5`
    False: 0.11.x, the fewer always, 0.11.2 kv_cache_utils.py:974), and each kind is split into cdiv(layers, size)
    groups (:1476-1502)."""
    counts = [n for n in (full_layers, sliding_layers) if n]
    size = min(counts)
    if larger_under_1_5 and max(counts) < size * 1.5:
        size = max(counts)
    return KvCacheGroups(full_groups=cdiv(full_layers, size), sliding_groups=cdiv(sliding_layers, size),
                         layers_per_group=size, sliding_window=sliding_window, block_size=block_size,
                         in_flight_tokens=in_flight_tokens)


def mamba_groups(attention_layers: int, mamba_layers: int, block_size: int, state_blocks: int) -> KvCacheGroups:
    """The groups vLLM makes of full-attention and Mamba layers whose state page is padded to the attention page
    (one page size): the same split as sliding_window_groups (kv_cache_utils.py:1462-1502), a Mamba group taking
    `state_blocks` pages per request whatever its length."""
    kinds = sliding_window_groups(attention_layers, mamba_layers, 1, block_size, 0)
    return KvCacheGroups(full_groups=kinds.full_groups, sliding_groups=0, layers_per_group=kinds.layers_per_group,
                         sliding_window=0, block_size=block_size, in_flight_tokens=0,
                         state_groups=kinds.sliding_groups, state_blocks=state_blocks)


def hybrid_block_size(block_size: int, page_per_token: int, state_bytes: int, kernel_block: int) -> int:
    """The attention block size vLLM gives a hybrid model so that one attention page holds a Mamba state
    (_align_hybrid_block_size, 0.32.0 vllm/platforms/interface.py:1060-1100, 0.33.0 :1066-1112): the fewest
    multiples of max(kernel block, block size) whose page (`page_per_token` bytes a token, one layer) is at least
    the state, rounded up to the kernel block. It never shrinks: a block that already holds the state and is a
    multiple of the kernel block stays. `kernel_block` is the attention backend's smallest kernel block size (the
    lcm over the backends, all of them one here); 0.33.0 also makes it a multiple of the Mamba layers' prefill
    checkpoint alignment in 'align' mode, which is 1 for Mamba2 (mamba_mixer2.py:1117, abstract.py:65-70)."""
    align = max(kernel_block, block_size)
    raised = align * cdiv(state_bytes, align * page_per_token)
    return kernel_block * cdiv(raised, kernel_block)


@dataclass
class VllmKV:
    """The engine-core part (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs, 0.32.0): bytes to blocks,
    tokens, checks."""

    available_bytes: int
    bytes_per_block: int
    num_blocks: int
    max_model_len: int  # after auto-fit
    kv_tokens: int  # logged "KV cache size: N tokens"
    max_concurrency: float
    estimated_max_model_len: int | None  # E3/auto-fit binary search result (None when not needed)
    autofit_from: int | None = None  # derived length auto-fit started from (max_model_len -1)
    error: str | None = None  # E2/E3/E4 name + message
    notes: list[str] = field(default_factory=list)


def pool_tokens(pool_bytes: float, bytes_per_block: int, block_size: int, max_model_len: int,
                tokens_from_concurrency: bool, blocks_per_request: int | None = None,
                group_count: int = 1) -> tuple[int, float, int]:
    """vLLM's rounding of a pool: bytes -> whole blocks -> the logged "KV cache size: N tokens", as (num_blocks,
    max_concurrency, tokens). From 0.20.1 the tokens are int(concurrency x max_model_len), the null block included
    (0.32.0 vllm/v1/core/kv_cache_utils.py:2308; 0.20.1 :1706); up to 0.20.0 num_blocks x block_size (0.20.0
    :1694): releases.KV_TOKENS_FROM_CONCURRENCY. `blocks_per_request`: a request of max_model_len's blocks (one
    full-attention group: cdiv(max_model_len, block_size)); `group_count`: KV cache groups sharing the blocks, whose
    token count up to 0.20.0 is num_blocks // groups x block_size (0.11.2 kv_cache_utils.py:1217-1221). The one
    rounding `predict` and `compare --explain` both use."""
    num_blocks = max(0, int(pool_bytes) // int(bytes_per_block))
    per_request = blocks_per_request if blocks_per_request is not None else cdiv(max_model_len, block_size)
    concurrency = num_blocks / per_request if per_request else 0.0
    tokens = (int(concurrency * max_model_len) if tokens_from_concurrency
              else num_blocks // max(1, group_count) * block_size)
    return num_blocks, concurrency, tokens


def size_kv(available_bytes: int, bytes_per_block: int, block_size: int, max_model_len: int,
            derived_max_model_len: int, num_gpu_blocks_override: int | None = None,
            device_label: str = "GPU", null_block_held_back: bool = True,
            override_before_checks: bool = True, tokens_from_concurrency: bool = True,
            groups: KvCacheGroups | None = None) -> VllmKV:
    """get_kv_cache_configs (kv_cache_utils.py:2531) for one uniform full-attention group, one worker, or for
    `groups` sharing the pool (then `bytes_per_block` is the widest group's, KvCacheGroups).

    `override_before_checks`: the length checks see num_gpu_blocks_override's blocks, not the profiled
    memory (releases.BLOCK_OVERRIDE_BEFORE_CHECKS); `tokens_from_concurrency`: the logged token count is
    int(concurrency x length), else num_blocks x block_size (releases.KV_TOKENS_FROM_CONCURRENCY)."""
    notes: list[str] = []
    avail = int(available_bytes)
    checked = avail
    if num_gpu_blocks_override is not None:
        notes.append(f"num_gpu_blocks_override={num_gpu_blocks_override} replaces {avail // bytes_per_block} blocks")
        avail = int(num_gpu_blocks_override) * bytes_per_block
        if override_before_checks:
            checked = avail
        else:
            notes.append("the length checks use the profiled memory, not the override (before 0.20.1)")
    if groups is None:
        def blocks_for(length: int) -> int:
            return cdiv(length, block_size)

        def estimate(memory: int, upper: int) -> int:
            return estimate_max_model_len(memory, bytes_per_block, block_size, upper)
    else:
        blocks_for = groups.blocks_per_request

        def estimate(memory: int, upper: int) -> int:
            return estimate_max_model_len_groups(memory, bytes_per_block, groups.blocks_per_request, upper)
    # the null block BlockPool holds back (checked from 0.29.0: releases.NULL_BLOCK_HELD_BACK)
    check = checked - bytes_per_block if null_block_held_back else checked
    autofit_from = None
    estimated = None
    error = None
    length = max_model_len
    if max_model_len == -1:
        autofit_from = derived_max_model_len
        estimated = estimate(check, derived_max_model_len)
        if estimated <= 0:
            error = ("E4: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a "
                     "single token.")
            length = derived_max_model_len
        else:
            length = estimated
            if estimated < derived_max_model_len:
                notes.append(f"auto-fit reduces max_model_len from {derived_max_model_len} to {estimated} "
                             f"({_gib(check)} GiB {device_label})")
    if error is None:
        if check <= 0:
            error = "E2: No available memory for the cache blocks."
        else:
            needed = blocks_for(length) * bytes_per_block
            if needed > check:
                estimated = estimate(check, length)
                error = (f"E3: max_model_len {length} needs {_gib(needed)} GiB KV cache, more than the available "
                         f"{_gib(check)} GiB; estimated maximum model length is {estimated}"
                         + (f" (--max-model-len -1 would shrink it to {min(derived_max_model_len, estimated)})"
                            if estimated > 0 else ""))
    num_blocks, concurrency, tokens = pool_tokens(avail, bytes_per_block, block_size, length, tokens_from_concurrency,
                                                  blocks_for(length), groups.count if groups is not None else 1)
    return VllmKV(available_bytes=avail, bytes_per_block=bytes_per_block, num_blocks=num_blocks,
                  max_model_len=length, kv_tokens=tokens, max_concurrency=concurrency,
                  estimated_max_model_len=estimated, autofit_from=autofit_from, error=error, notes=notes)


def budget_bytes(total_bytes: float, gpu_memory_utilization: float, rounded_up: bool = True) -> float:
    """request_memory (v1/worker/utils.py): ceil(total x utilization); before 0.14.0 the float product
    (releases.BUDGET_ROUNDED_UP: 0.13.0 vllm/v1/worker/gpu_worker.py:241-244)."""
    product = total_bytes * gpu_memory_utilization
    return math.ceil(product) if rounded_up else product


def _gib(x: float) -> float:
    """vLLM's format_gib: round(x / 2**30, 2)."""
    return round(x / GiB, 2)

