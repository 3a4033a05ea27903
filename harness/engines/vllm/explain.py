"""vLLM's part of `compare --explain`: the release rules its releases differ by (each with its source) and the
split of a KV change into vLLM's budget terms (budget = ceil(total x utilization), minus what it measured, cut
into blocks)."""

from __future__ import annotations

import math
from collections.abc import Callable

from harness.engines.explaining import (
    LOG,
    PREDICTOR,
    Factor,
    KvSplit,
    ReleaseRule,
    SideFacts,
    Term,
    chain,
    changed_rules,
)
from harness.engines.vllm import formulas as vf
from harness.engines.vllm.releases import (
    AUTO_FIT_MAX_MODEL_LEN,
    BATCH_CAPPED_BY_MODEL_LEN,
    BATCH_DEFAULTS_160_GIB_TIER,
    BATCH_DEFAULTS_A100_EXCLUDED,
    BLOCK_OVERRIDE_BEFORE_CHECKS,
    BUDGET_ROUNDED_UP,
    CAPTURE_CAP_FOLLOWS_MAX_NUM_SEQS,
    CAPTURE_STRIDE_16_FROM_256,
    CPU_BLOCK_SIZE_NEEDS_IPEX,
    CPU_CONTAINER_CAP,
    CPU_KV_SPACE_FROM_ENV,
    CPU_KV_SPACE_HALF_MEMORY_BY_DEFAULT,
    CPU_STARTUP_REQUEST_CHECK,
    CPU_X86_NEEDS_TRITON_CPU,
    CUBLAS_BEFORE_SNAPSHOT,
    DEFAULT_BLOCK_SIZE_64,
    E3_STATES_ESTIMATE,
    FLASHINFER_SAMPLER_BY_DEFAULT,
    FLASHINFER_SAMPLER_IF_INSTALLED,
    FP8_MARLIN_EXPANDED_SCALES,
    FREE_MEMORY_CHECKED_AT_STARTUP,
    FULL_DECODE_GRAPHS_BY_DEFAULT,
    GRAPH_ESTIMATE_ON_BY_DEFAULT,
    GRAPH_ESTIMATE_PROFILED,
    KV_CACHE_MEMORY_BYTES_FLAG,
    KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT,
    KV_DTYPE_MUST_MATCH,
    KV_TOKENS_FROM_CONCURRENCY,
    MAX_NUM_BATCHED_TOKENS_CAPTURED,
    MAX_NUM_SEQS_CAPPED_BY_BATCH,
    MAX_NUM_SEQS_CAPTURED,
    MODEL_RUNNER_V2_FOR_DENSE,
    MODEL_RUNNER_V2_FOR_LISTED,
    MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO,
    MODEL_RUNNER_V2_ONLY,
    MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY,
    MOE_MODULAR_WORKSPACE,
    MXFP4_MARLIN_PADDED,
    NON_KV_FROM_TOTAL_CONSUMED,
    NON_TORCH_SINCE_SNAPSHOT,
    NULL_BLOCK_HELD_BACK,
    PEAK_ACTIVATION_LOGGED_WITH_GRAPH_ESTIMATE,
    PERFORMANCE_MODE,
    SLIDING_WINDOW_GROUPS_0_11,
    SNAPSHOT_AFTER_DISTRIBUTED_INIT,
    TRITON_TOP_K_TOP_P,
    V0_BELOW_SM80,
    V0_FOR_32_BIT_DTYPE,
    V0_FOR_PIPELINE_PARALLEL_BY_DEFAULT,
    V1_ENGINE_ONLY,
    WIDE_CUDA_GRAPH_GRIDS_ON_SM100,
    default_gpu_memory_utilization,
    modelled_release,
)
from harness.predict.host import LOGGED_GIB_HALF_STEP
from harness.predict.model import GiB, MiB

# The same rules releases.py holds, as `compare --explain` names them; the sources are releases.py's.
RELEASE_RULES = (
    ReleaseRule("null block held back", "the max-model-len check and auto-fit leave out the null block BlockPool "
                "keeps, so the same blocks serve shorter requests", "0.29.0 vllm/v1/core/kv_cache_utils.py:975, :2316",
                ("max_concurrency", "estimated_max_model_len", "max_model_len as logged", "error_kind"),
                NULL_BLOCK_HELD_BACK),
    ReleaseRule("block override seen by the checks", "num_gpu_blocks_override replaces the profiled memory before "
                "the max-model-len check and auto-fit", "0.20.1 vllm/v1/core/kv_cache_utils.py:2001",
                ("max_concurrency", "estimated_max_model_len", "error_kind"), BLOCK_OVERRIDE_BEFORE_CHECKS),
    ReleaseRule("default gpu_memory_utilization", "the budget's fraction when none is given",
                "0.19.1 vllm/config/cache.py:41; 0.20.0 vllm/config/cache.py:66", ("kv_tokens",),
                value=default_gpu_memory_utilization),
    ReleaseRule("CPU KV from VLLM_CPU_KVCACHE_SPACE", "the CPU worker's pool is VLLM_CPU_KVCACHE_SPACE GiB alone; "
                "utilization and --kv-cache-memory-bytes are not read", "0.17.1 vllm/v1/worker/cpu_worker.py:118",
                ("kv_tokens", "max_concurrency"), CPU_KV_SPACE_FROM_ENV, devices=("cpu",)),
    ReleaseRule("CPU KV space unset: half the memory", "VLLM_CPU_KVCACHE_SPACE unset is half of MemTotal per NUMA "
                "node entry (before: 4 GiB)",
                "0.11.0 vllm/platforms/cpu.py:114-123; 0.17.1 vllm/platforms/cpu.py:143-166",
                ("kv_tokens", "max_concurrency"), CPU_KV_SPACE_HALF_MEMORY_BY_DEFAULT, devices=("cpu",)),
    ReleaseRule("CPU block size needs IPEX", "the CPU block size is 128 only with intel_extension_for_pytorch "
                "importable, else 16", "0.11.0 vllm/platforms/cpu.py:145-148; 0.17.1 vllm/platforms/cpu.py:188",
                ("block_size", "kv_tokens"), CPU_BLOCK_SIZE_NEEDS_IPEX, devices=("cpu",)),
    ReleaseRule("CPU container cap", "the node's total and available memory capped by the cgroup limit",
                "0.24.0 vllm/utils/cpu_resource_utils.py:65, :163", ("kv_tokens", "device_total_mib"),
                CPU_CONTAINER_CAP, devices=("cpu",)),
    ReleaseRule("CPU startup request check", "a request above the node's available memory is refused at startup",
                "0.20.0 vllm/v1/worker/cpu_worker.py:53-73; gone in 0.33.0 cpu_worker.py:240-248", ("error_kind",),
                CPU_STARTUP_REQUEST_CHECK, devices=("cpu",)),
    ReleaseRule("batch defaults >= 160 GiB tier", "16,384 tokens / 1,024 sequences on the largest cards",
                "0.28.0 vllm/engine/arg_utils.py:2582", ("kv_tokens", "chunked_prefill_size_effective"),
                BATCH_DEFAULTS_160_GIB_TIER, devices=("cuda",)),
    ReleaseRule("max_num_seqs captured", "max_num_seqs is a CUDA-graph size although off the 8/16 stride",
                "0.31.0 vllm/config/vllm.py:2540", ("kv_tokens", "cuda_graph_gib"), MAX_NUM_SEQS_CAPTURED,
                devices=("cuda",)),
    ReleaseRule("cuBLAS handles before the snapshot", "the handles' memory moves from what profiling counts to the "
                "startup baseline", "0.33.0 vllm/v1/worker/gpu_worker.py:519-531", ("kv_tokens", "error_kind"),
                CUBLAS_BEFORE_SNAPSHOT, devices=("cuda",)),
    ReleaseRule("16-bit KV dtype must match", "an explicit float16/bfloat16 KV dtype other than the model's is "
                "refused", "0.33.0 vllm/config/vllm.py:1492", ("error_kind",), KV_DTYPE_MUST_MATCH),
    ReleaseRule("KV cache sized after warm-up", "on CUDA the pool is what the budget (total x 1.0 unless "
                "--gpu-memory-utilization is given) leaves after CUDA-graph capture and warm-up, measured; no "
                "startup free-memory check (before: sized from the profile and the CUDA-graph estimate)",
                "0.34.0 vllm/config/vllm.py:3180-3262, vllm/v1/worker/extensible_kv_cache.py:592-700",
                ("kv_tokens", "error_kind", "cuda_graph_gib"), KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT,
                devices=("cuda",)),
    ReleaseRule("default block size 64", "a KV cache block holds 64 tokens unless --block-size is given (before: "
                "16)", "0.34.0 vllm/config/cache.py:185; 0.33.0 vllm/config/cache.py:185", ("block_size", "kv_tokens"),
                DEFAULT_BLOCK_SIZE_64, devices=("cuda",)),
    ReleaseRule("Model Runner V2 only", "every model runs on Model Runner V2, MoE and hybrid ones included; "
                "VLLM_USE_V2_MODEL_RUNNER=0 refuses to start", "0.34.0 vllm/v1/worker/gpu_worker.py:579-587, "
                "vllm/platforms/interface.py:1481-1490", ("kv_tokens", "error_kind"), MODEL_RUNNER_V2_ONLY,
                devices=("cuda",)),
    ReleaseRule("wide CUDA-graph grids on SM100", "on SM100 cards the default graphs are a prefill token grid up to "
                "8192 and a decode request grid up to max_num_seqs (before and elsewhere: the 8/16 stride)",
                "0.34.0 vllm/config/vllm.py:2558-2663, vllm/config/compilation.py:78-131", ("cuda_graph_gib",),
                WIDE_CUDA_GRAPH_GRIDS_ON_SM100, devices=("cuda",)),
    ReleaseRule("x86 CPU needs triton-cpu", "an x86 host without Triton's CPU backend is refused at startup; every "
                "model runs on the Model-Runner-V2-based CPU runner", "0.34.0 vllm/platforms/cpu.py:241-243, "
                "vllm/v1/worker/cpu_worker.py:149-158", ("error_kind", "kv_tokens"), CPU_X86_NEEDS_TRITON_CPU,
                devices=("cpu",)),
    # the releases before 0.27.0
    ReleaseRule("non-KV memory from mem_get_info", "the budget counts all memory consumed since the snapshot, "
                "persistent torch buffers beside the weights included (before: non-torch increase + torch peak "
                "increase + weights)", "0.27.0 vllm/utils/mem_utils.py:317; 0.20.0 vllm/utils/mem_utils.py:263",
                ("kv_tokens",), NON_KV_FROM_TOTAL_CONSUMED, devices=("cuda",)),
    ReleaseRule("CUDA-graph estimate profiled", "a CUDA-graph memory estimate is profiled before the pool is sized "
                "(before: graphs captured after it, nothing subtracted)",
                "0.18.0 vllm/v1/worker/gpu_model_runner.py:5593", ("kv_tokens", "error_kind"),
                GRAPH_ESTIMATE_PROFILED, devices=("cuda",)),
    ReleaseRule("CUDA-graph estimate on by default", "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS defaults to 1: the "
                "estimate is subtracted from the budget", "0.20.0 vllm/envs.py:1724; 0.19.0 vllm/envs.py:1654",
                ("kv_tokens", "error_kind"), GRAPH_ESTIMATE_ON_BY_DEFAULT, devices=("cuda",)),
    ReleaseRule("Model Runner V2 for listed architectures", "the listed architectures (Llama, Mistral, Qwen3, ...) run "
                "on Model Runner V2 by default (before: opt-in)", "0.24.0 vllm/config/vllm.py:68-77, :550-561",
                ("kv_tokens",), MODEL_RUNNER_V2_FOR_LISTED, devices=("cuda",)),
    ReleaseRule("Model Runner V2 for dense models", "every model neither MoE nor hybrid runs on Model Runner V2 by "
                "default (before: the listed architectures)", "0.25.0 vllm/config/vllm.py:557-574; 0.27.0 :637-658",
                ("kv_tokens",), MODEL_RUNNER_V2_FOR_DENSE, devices=("cuda",)),
    ReleaseRule("Model Runner V2 subtracts no graph memory", "Model Runner V2's profile_cudagraph_memory returns 0: "
                "no CUDA-graph memory before the pool (after: one capture into a throwaway pool, its cost subtracted)",
                "0.28.0 vllm/v1/worker/gpu/model_runner.py:843-845; 0.29.0 vllm/v1/worker/gpu/cudagraph_utils.py:718",
                ("kv_tokens",), MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO, devices=("cuda",)),
    ReleaseRule("Model Runner V2 sampler copies logits to float32", "Model Runner V2's greedy dummy sampler run "
                "copies the logits to float32 (after: it keeps them in the model dtype)",
                "0.25.0 vllm/v1/worker/gpu/sample/sampler.py:157; 0.26.0 vllm/v1/worker/gpu/sample/sampler.py:165",
                ("kv_tokens",), MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY, devices=("cuda",)),
    ReleaseRule("FlashInfer sampler only where installed", "the profile's dummy sampler run takes FlashInfer's "
                "top-k/top-p where flashinfer imports, which vLLM's PyPI wheel does not install: the PyTorch sort "
                "(after: opt-in with VLLM_USE_FLASHINFER_SAMPLER=1)",
                "0.11.0 vllm/v1/sample/ops/topk_topp_sampler.py:39; 0.12.0 vllm/v1/sample/ops/topk_topp_sampler.py:35",
                ("kv_tokens",), FLASHINFER_SAMPLER_IF_INSTALLED, devices=("cuda",)),
    ReleaseRule("FlashInfer sampler by default", "the profile's dummy sampler run takes FlashInfer's top-k/top-p "
                "unless VLLM_USE_FLASHINFER_SAMPLER=0 (before: opt-in)", "0.21.0 vllm/envs.py:726; 0.20.0 "
                "vllm/v1/sample/ops/topk_topp_sampler.py:39", ("kv_tokens",), FLASHINFER_SAMPLER_BY_DEFAULT,
                devices=("cuda",)),
    ReleaseRule("Triton top-k/top-p", "the PyTorch sampler masks in place with a Triton kernel from 8 rows (before: "
                "a full sort into new tensors)", "0.17.0 vllm/v1/sample/ops/topk_topp_sampler.py:251; 0.16.0 "
                "vllm/v1/sample/ops/topk_topp_sampler.py:262", ("kv_tokens",), TRITON_TOP_K_TOP_P, devices=("cuda",)),
    ReleaseRule("max_num_batched_tokens captured", "max_num_batched_tokens is a CUDA-graph size when it fits under "
                "the cap, although off the 8/16 stride", "0.21.0 vllm/config/vllm.py:1581", ("kv_tokens",),
                MAX_NUM_BATCHED_TOKENS_CAPTURED, devices=("cuda",)),
    ReleaseRule("capture sizes step 16 from 256", "the CUDA-graph sizes from 256 up step by 16 (before: by 8)",
                "0.11.1 vllm/config/vllm.py:810; 0.11.0 vllm/config/__init__.py:596", ("cuda_graph_gib",),
                CAPTURE_STRIDE_16_FROM_256, devices=("cuda",)),
    ReleaseRule("budget rounded up", "the budget is ceil(total x utilization) (before: the float product, the "
                "rest truncated)", "0.14.0 vllm/v1/worker/utils.py:258; 0.13.0 vllm/v1/worker/gpu_worker.py:241",
                ("kv_tokens",), BUDGET_ROUNDED_UP, devices=("cuda",)),
    ReleaseRule("max-model-len auto-fit", "--max-model-len -1 fits the length to the KV memory",
                "0.14.0 vllm/v1/core/kv_cache_utils.py:1389", ("max_model_len as logged", "error_kind"),
                AUTO_FIT_MAX_MODEL_LEN),
    ReleaseRule("KV tokens from concurrency", "the logged KV size is int(max_concurrency x max_model_len) (before: "
                "num_blocks x block_size)", "0.20.1 vllm/v1/core/kv_cache_utils.py:1706; 0.20.0 "
                "vllm/v1/core/kv_cache_utils.py:1694", ("kv_tokens",), KV_TOKENS_FROM_CONCURRENCY),
    ReleaseRule("default batch capped by model length", "a default max_num_batched_tokens is capped at max_num_seqs "
                "x max_model_len and --no-enable-chunked-prefill is honoured", "0.11.1 vllm/engine/arg_utils.py:2023; "
                "0.11.0 vllm/engine/arg_utils.py:1548", ("kv_tokens",), BATCH_CAPPED_BY_MODEL_LEN),
    ReleaseRule("V1 engine only", "no fallback to the V0 engine (before: a KV dtype the platform lacks, "
                "VLLM_USE_V1=0 or a V0-only attention backend run V0, which the predictor does not model)",
                "0.10.2 vllm/engine/arg_utils.py:1431", ("kv_tokens", "error_kind"), V1_ENGINE_ONLY, devices=("cuda",)),
    ReleaseRule("FP8 scales expanded for Marlin", "below compute capability 8.9 FP8 weights run weight-only through "
                "Marlin, which holds their block scales per output channel in the model dtype (before 0.11.0: not "
                "read)", "0.11.0 vllm/model_executor/layers/quantization/utils/marlin_utils_fp8.py:78-160, :167-275",
                ("weights_gib", "kv_tokens"), FP8_MARLIN_EXPANDED_SCALES, devices=("cuda",)),
    ReleaseRule("MXFP4 experts padded for Marlin", "on the Marlin MoE backend (below sm90, or sm90 without "
                "triton_kernels) MXFP4 experts are held at an expert width rounded up to 128 and a hidden size to "
                "256, and the profile's MoE forward runs at those sizes on a padded copy of its input (before "
                "0.11.0: not read)", "0.11.2 vllm/model_executor/layers/quantization/mxfp4.py:254-276, "
                "layers/fused_moe/layer.py:1480-1487; 0.19.1 vllm/model_executor/layers/fused_moe/oracle/"
                "mxfp4.py:376-385", ("weights_gib", "kv_tokens"),
                MXFP4_MARLIN_PADDED, devices=("cuda",)),
    ReleaseRule("fused-MoE workspace from the modular kernel", "the profile's MoE layers hold M x top_k x "
                "(max(2I, K) + max(I, K)) of fused-experts workspace (before: M x top_k x (max(2I, K) + I))",
                "0.15.1 vllm/model_executor/layers/fused_moe/fused_moe.py:1967-1982; 0.13.0 "
                "vllm/model_executor/layers/fused_moe/fused_moe.py:1838-1849", ("kv_tokens",), MOE_MODULAR_WORKSPACE,
                devices=("cuda",)),
    ReleaseRule("sliding-window groups (0.11.x)", "sliding-window layers in KV cache groups of the fewer layers "
                "of a kind, one batch in flight, the tokens logged as num_blocks // groups x block size",
                "0.11.2 vllm/v1/core/kv_cache_utils.py:974-998, :1217-1221; 0.11.2 "
                "vllm/v1/kv_cache_interface.py:220-239",
                ("kv_tokens",), SLIDING_WINDOW_GROUPS_0_11),
    ReleaseRule("V0 below compute capability 8.0", "cards below sm80 run the V0 engine",
                "0.10.1 vllm/engine/arg_utils.py:1400", ("kv_tokens",), V0_BELOW_SM80, devices=("cuda",)),
    ReleaseRule("non-torch memory since the snapshot", "the budget counts the non-torch memory since the startup "
                "snapshot (before: all non-torch memory on the card after the profile, the CUDA context and other "
                "processes included)", "0.9.1 vllm/v1/worker/gpu_worker.py:183; 0.9.0 vllm/v1/worker/gpu_worker.py:197",
                ("kv_tokens",), NON_TORCH_SINCE_SNAPSHOT, devices=("cuda",)),
    ReleaseRule("communicators before the snapshot", "the tensor-parallel communicators (NCCL, custom all-reduce) "
                "are created before the startup snapshot, so the non-torch memory counted leaves them out (before: "
                "created after it and counted)", "0.11.0 vllm/v1/worker/gpu_worker.py:165-182; 0.10.2 "
                "vllm/v1/worker/gpu_worker.py:175, :193", ("kv_tokens",), SNAPSHOT_AFTER_DISTRIBUTED_INIT,
                devices=("cuda",)),
    ReleaseRule("free memory checked at startup", "a request above the card's free memory is refused at startup",
                "0.9.1 vllm/v1/worker/gpu_worker.py:136", ("error_kind",), FREE_MEMORY_CHECKED_AT_STARTUP,
                devices=("cuda",)),
    ReleaseRule("max-model-len error states the estimate", "the error names the estimated maximum model length",
                "0.9.1 vllm/v1/core/kv_cache_utils.py:568; 0.9.0 vllm/v1/core/kv_cache_utils.py:547",
                ("estimated_max_model_len",), E3_STATES_ESTIMATE),
    ReleaseRule("batch defaults: A100 below the 70 GiB tier", "A100s keep 2,048 tokens / 256 sequences",
                "0.9.0 vllm/engine/arg_utils.py:1495; 0.8.5 vllm/engine/arg_utils.py:1596", ("kv_tokens",),
                BATCH_DEFAULTS_A100_EXCLUDED, devices=("cuda",)),
    ReleaseRule("V0 for pipeline parallelism by default", "pipeline parallelism runs the V0 engine unless the "
                "executor is named", "0.8.5 vllm/engine/arg_utils.py:1478; 0.9.1 vllm/engine/arg_utils.py:1434",
                ("kv_tokens",), V0_FOR_PIPELINE_PARALLEL_BY_DEFAULT, devices=("cuda",)),
    ReleaseRule("V0 for a 32-bit dtype", "a dtype other than float16/bfloat16 runs the V0 engine",
                "0.9.1 vllm/engine/arg_utils.py:1341", ("kv_tokens",), V0_FOR_32_BIT_DTYPE, devices=("cuda",)),
    ReleaseRule("capture cap follows max_num_seqs", "the CUDA-graph sizes stop at min(2 x max_num_seqs, 512) "
                "(before: at 512)", "0.10.0 vllm/config.py:2456; 0.9.2 vllm/config.py:2133", ("cuda_graph_gib",),
                CAPTURE_CAP_FOLLOWS_MAX_NUM_SEQS, devices=("cuda",)),
    ReleaseRule("FULL decode graphs by default", "FULL_AND_PIECEWISE: FULL decode graphs beside the PIECEWISE ones "
                "(before: PIECEWISE only)", "0.11.0 vllm/config/__init__.py:362; 0.10.2 vllm/config/__init__.py:3393",
                ("cuda_graph_gib",), FULL_DECODE_GRAPHS_BY_DEFAULT, devices=("cuda",)),
    ReleaseRule("default max_num_seqs capped by the batch", "a default max_num_seqs is at most "
                "max_num_batched_tokens", "0.10.1 vllm/engine/arg_utils.py:1711; 0.10.0 vllm/engine/arg_utils.py:1654",
                ("kv_tokens", "error_kind"), MAX_NUM_SEQS_CAPPED_BY_BATCH),
    ReleaseRule("--kv-cache-memory-bytes", "the KV size can be given in bytes, skipping the profiled budget",
                "0.10.2 vllm/engine/arg_utils.py:344", ("kv_tokens",), KV_CACHE_MEMORY_BYTES_FLAG, devices=("cuda",)),
    ReleaseRule("performance mode", "--performance-mode throughput doubles the default batch",
                "0.17.0 vllm/engine/arg_utils.py:2128", ("kv_tokens",), PERFORMANCE_MODE),
)

# What vLLM's GPU budget subtracts before the KV pool (determine_available_memory, 0.32.0
# vllm/v1/worker/gpu_worker.py): the factors' names in the split.
GPU_DEDUCTIONS = ("weights", "activation peak", "non-torch memory", "CUDA graph estimate")


def predicted_outcome(prediction) -> str | None:
    """The outcome as compare writes it ("ok", "engine_error/KIND") that the predictor gives (None: not one it
    names): its E3 is the parser's max_model_len_too_large, its CPU refusal cpu_memory_below_requested, a hybrid
    model's Mamba blocks under max_num_seqs mamba_blocks_below_max_num_seqs."""
    if prediction.will_start:
        return "ok"
    reason = prediction.reason or ""
    if reason.startswith("E3"):
        return "engine_error/max_model_len_too_large"
    if reason.startswith("cpu_memory_below_requested"):
        return "engine_error/cpu_memory_below_requested"
    if reason.startswith("mamba_blocks_below_max_num_seqs"):
        return "engine_error/mamba_blocks_below_max_num_seqs"
    return None


# The release rules each of the predictor's GPU terms moves with (the batch defaults size the dummy forward's peak,
# the capture sizes the graph estimate, the cuBLAS handles leave the non-torch memory).
TERM_RULES = {"activation peak": ("batch defaults >= 160 GiB tier", "default batch capped by model length",
                                  "performance mode"),
              "CUDA graph estimate": ("max_num_seqs captured", "batch defaults >= 160 GiB tier",
                                      "max_num_batched_tokens captured", "CUDA-graph estimate profiled",
                                      "CUDA-graph estimate on by default"),
              "non-torch memory": ("cuBLAS handles before the snapshot", "non-KV memory from mem_get_info")}


def _named(before: SideFacts, after: SideFacts, *names: str) -> str | None:
    """The named rules that changed between the two sides' releases, cited (None: none did)."""
    found = [r for r in RELEASE_RULES if r.name in names and r.changed(before.release, after.release, before.device)]
    return "; ".join(r.cite(before.release, after.release) for r in found) or None


def _rules(before: SideFacts, after: SideFacts, figure: str) -> str | None:
    found = changed_rules(RELEASE_RULES, before.release, after.release, before.device, figure)
    return "; ".join(r.cite(before.release, after.release) for r in found) or None


def _pinned(side: SideFacts) -> float | None:
    logged = side.logged("kv_cache_memory_bytes")
    return logged if logged is not None else side.number("kv_cache_memory_bytes")


def _bytes_per_token(side: SideFacts) -> tuple[float | None, str]:
    if side.prediction is not None and side.prediction.kv_bytes_per_token:
        return float(side.prediction.kv_bytes_per_token), PREDICTOR
    return None, PREDICTOR


def _length(side: SideFacts) -> tuple[int | None, str]:
    """The request length the KV line states (after auto-fit), else the predictor's, else the knob's."""
    for value, source in ((side.logged("max_model_len"), LOG),
                          (getattr(side.prediction, "max_model_len", None), PREDICTOR),
                          (side.number("max_model_len"), LOG)):
        if value is not None and value > 0:
            return int(value), source
    return None, PREDICTOR


def _utilization(side: SideFacts) -> tuple[float | None, str]:
    given = side.number("gpu_memory_utilization")
    if given is not None:
        return given, LOG
    return default_gpu_memory_utilization(side.release), PREDICTOR


def _not_modelled(before: SideFacts, after: SideFacts) -> str | None:
    """Why the pair's pools cannot be split term by term, or None."""
    if before.device != after.device:
        return f"one side ran on {before.device}, the other on {after.device}"
    for side in (before, after):
        if side.prediction is None or not side.prediction.modelled:
            reason = side.prediction.reason if side.prediction is not None else "no prediction"
            return f"the predictor does not model vllm {side.release}: {reason}"
        if before.device == "cpu" and side.release in CPU_KV_SPACE_FROM_ENV and _pinned(side) is None:
            return f"vllm-cpu {side.release} sizes KV from VLLM_CPU_KVCACHE_SPACE, which the row does not record"
    return None


def _gpu_deduction_factors(before: SideFacts, after: SideFacts) -> tuple[list[Factor], float]:
    """What vLLM on a GPU takes from its budget before the pool, each side, and the logs' rounding of those terms in
    bytes: each logged figure within half a step, a difference of two figures within two."""
    weights = [_gib_term(s, "weights_gib", s.prediction.weights_gib, row_column="weights_gib") for s in (before, after)]
    # the budget subtracts the graph *estimate*; the row's cuda_graph_gib is what the capture took after the pool was
    # sized, no KV term
    graphs = [_graph_estimate_applied(s) for s in (before, after)]
    activation = [_activation_gib(s, g) for s, (g, _) in zip((before, after), graphs)]
    other = [_other_gib(s) for s in (before, after)]
    factors, rounding_bytes = [], 0.0
    for name, pair in zip(GPU_DEDUCTIONS, (weights, activation, other, graphs)):
        sources = (pair[0][1], pair[1][1])
        logged = all(src.startswith(LOG) for src in sources)
        source = (sources[0] if sources[0] == sources[1] else LOG) if logged else PREDICTOR
        factors.append(Factor(name, pair[0][0], pair[1][0], source, "GiB",
                              _named(before, after, *TERM_RULES.get(name, ())) if source == PREDICTOR else None))
        if logged:
            rounding_bytes += sum(2 if src in TWO_LOGGED_FIGURES else 1 for src in sources) * LOGGED_GIB_HALF_STEP * GiB
    return factors, rounding_bytes


def _budget_factors(before: SideFacts, after: SideFacts) -> tuple[list[Factor], Callable, float] | str:
    """The pool's terms on both sides, the pool in bytes as a function of their values, and the logs' rounding of
    the terms in bytes; or why they are unknown."""
    pinned = [_pinned(s) for s in (before, after)]
    if None not in pinned:
        return ([Factor("KV cache memory bytes (given)", pinned[0], pinned[1], LOG, "bytes")],
                lambda v: v["KV cache memory bytes (given)"], 0.0)
    if pinned != [None, None]:
        return "the KV size is given on one side only"
    util = [_utilization(s) for s in (before, after)]
    total = [s.number("device_total_mib") for s in (before, after)]
    if None in total or None in (u for u, _ in util):
        return "device total or gpu_memory_utilization unknown on one side"
    source = LOG if all(src == LOG for _, src in util) else PREDICTOR
    factors = [Factor("device total (as the engine read it)", total[0], total[1], LOG, "MiB"),
               Factor("gpu_memory_utilization", util[0][0], util[1][0], source, "",
                      _named(before, after, "default gpu_memory_utilization") if source == PREDICTOR else None)]

    def budget(v):
        return vf.budget_bytes(v["device total (as the engine read it)"] * MiB, v["gpu_memory_utilization"])

    if before.device == "cpu":
        rss = [_estimated_gib(s, "R") + (s.prediction.weights_gib or 0.0) for s in (before, after)]
        factors.append(Factor("worker resident memory after warm-up (estimate)", rss[0], rss[1], PREDICTOR, "GiB"))
        return factors, lambda v: budget(v) - v["worker resident memory after warm-up (estimate)"] * GiB, 0.0
    deductions, rounding_bytes = _gpu_deduction_factors(before, after)
    return (factors + deductions, lambda v: budget(v) - sum(v[n] * GiB for n in GPU_DEDUCTIONS), rounding_bytes)


def split_kv(before: SideFacts, after: SideFacts) -> KvSplit:
    """The terms of vLLM's pool on both sides, swapped one at a time (harness.engines.explaining.chain)."""
    reason = _not_modelled(before, after)
    if reason is not None:
        return KvSplit(modelled=False, reason=reason)
    bpt = [_bytes_per_token(s)[0] for s in (before, after)]
    block = [int(s.number("block_size") or getattr(s.prediction, "block_size", None) or 16) for s in (before, after)]
    lengths = [_length(s) for s in (before, after)]
    length = [n for n, _ in lengths]
    if None in bpt or None in length:
        return KvSplit(modelled=False, reason="bytes per token or the request length unknown on one side")
    budget = _budget_factors(before, after)
    if isinstance(budget, str):
        return KvSplit(modelled=False, reason=budget)
    factors, pool, rounding_bytes = budget
    factors.append(Factor("bytes per token", bpt[0], bpt[1], PREDICTOR, "bytes"))

    def continuous(v):
        return max(0.0, pool(v)) / v["bytes per token"]

    logging = [modelled_release(s.release) in KV_TOKENS_FROM_CONCURRENCY for s in (before, after)]

    def rounded_with(bs, mml, from_concurrency):
        def rounded(v):  # the predictor's own rounding, with the side's release's token logging
            return vf.pool_tokens(pool(v), int(v["bytes per token"]) * bs, bs, mml, from_concurrency)[2]
        return rounded

    # the pool's terms at the before side's request length; a length that moved (auto-fit, which the null block
    # moves from 0.29.0) is a term of its own, after them
    split = chain(factors, continuous, rounded_with(block[0], length[0], logging[0]),
                  "rounding to blocks and requests", rounded_after=rounded_with(block[1], length[0], logging[1]))
    if logging[0] != logging[1]:
        split.notes.append(f"the KV line's tokens: {_named(before, after, 'KV tokens from concurrency')}")
    if length[0] != length[1]:
        after_values = {f.name: f.after for f in factors}
        moved = rounded_with(block[1], length[1], logging[1])(after_values) - split.model_after
        source = LOG if all(src == LOG for _, src in lengths) else PREDICTOR
        split.terms.append(Term("request length (max_model_len as logged)", length[0], length[1], moved, source,
                                _rules(before, after, "max_model_len as logged"), "tokens"))
        split.model_after += moved
    split.grain_tokens = max(block)
    pinned = _pinned(before) is not None
    # a pool given in bytes leaves nothing estimated: the release's rounding gives the logged tokens exactly
    split.exact = pinned
    split.bytes_per_token = float(min(bpt))
    split.log_rounding_tokens = math.ceil(rounding_bytes / min(bpt)) if rounding_bytes else 0
    _add_notes(split, before, after, pinned)
    return split


def _add_notes(split: KvSplit, before: SideFacts, after: SideFacts, pinned: bool) -> None:
    actual = [s.number("cuda_graph_gib") for s in (before, after)]
    if actual[0] != actual[1]:
        split.notes.append(f"CUDA graphs as captured: {actual[0]} -> {actual[1]} GiB (after the pool was sized: "
                           "not a KV term; the estimate above is)")
    if before.device == "cpu" and not pinned:
        split.notes.append("the worker's resident memory is not logged exactly (\"non-kv usages\" to 0.1 GiB): "
                           "what it moved is in the residual")


def _estimated_gib(side: SideFacts, key: str) -> float:
    estimate = side.prediction.estimates.get(key) if side.prediction is not None else None
    if estimate is None and side.prediction is not None:
        estimate = side.prediction.estimates.get("fitted")
    return estimate.gib if estimate is not None else 0.0


def _gib_term(side: SideFacts, logged: str, predicted: float | None,
              row_column: str | None = None) -> tuple[float, str]:
    """A memory term from the row, else its log, else the predictor."""
    value = side.number(row_column) if row_column else None
    if value is None:
        value = side.logged(logged)
    if value is not None:
        return value, LOG
    return float(predicted or 0.0), PREDICTOR


def _graph_estimate_applied(side: SideFacts) -> tuple[float, str]:
    """The CUDA-graph estimate the pool subtracted: the logged one where the release subtracts it (the predictor
    says whether: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS and the release's default), else none."""
    estimate = side.prediction.estimates.get("G") if side.prediction is not None else None
    if estimate is not None and not estimate.basis.startswith("estimate"):
        return 0.0, PREDICTOR  # not subtracted (off, or a release before the estimate): the log's figure is not
    return _gib_term(side, "cuda_graph_estimate_gib", _estimated_gib(side, "G"))


# A peak activation logged with the applied graph estimate in it, the estimate taken out (two logged figures).
ACTIVATION_LESS_GRAPH = "log (peak activation less the graph estimate)"


def _activation_gib(side: SideFacts, graph_applied: float) -> tuple[float, str]:
    """The activation peak as the pool subtracts it apart from the graph estimate: the logged peak, less the applied
    estimate in the releases whose logged peak holds it (releases.PEAK_ACTIVATION_LOGGED_WITH_GRAPH_ESTIMATE)."""
    value, source = _gib_term(side, "peak_activation_gib", _estimated_gib(side, "A"))
    if source == LOG and graph_applied and any(side.release in r for r in PEAK_ACTIVATION_LOGGED_WITH_GRAPH_ESTIMATE):
        return value - graph_applied, ACTIVATION_LESS_GRAPH
    return value, source


# Non-torch memory from 0.27.0's --kv-cache-memory suggestion: "Actual usage is C GiB for consumed memory (weights +
# non-torch)" less the weights "Model loading took W GiB" states (0.32.0 vllm/utils/mem_utils.py:312 total_consumed:
# the free memory the profile took since the snapshot before the model was made; vllm/v1/worker/gpu_worker.py:681
# weights_memory is model_memory_usage).
CONSUMED_LESS_WEIGHTS = "log (consumed less weights)"
# terms made of two logged figures: each one's rounding counts
TWO_LOGGED_FIGURES = (CONSUMED_LESS_WEIGHTS, ACTIVATION_LESS_GRAPH)


def _other_gib(side: SideFacts) -> tuple[float, str]:
    """Non-torch memory: the line that states it alone ("N GiB for non-torch memory" in the --kv-cache-memory
    suggestion from 0.20.0 to 0.26.0, "non_torch_memory takes N GiB" / "non-torch forward increase memory: N GiB"
    in older profiling lines), else the suggestion's consumed memory (weights + non-torch, from 0.27.0) less the
    weights, else the predictor's O. The profile's "Total non KV cache memory" is not this one quantity (it holds
    the weights and the peak too), so where only it is stated the change in O is left to the residual."""
    logged = side.logged("non_torch_gib")
    if logged is not None:
        return logged, LOG
    consumed = side.logged("consumed_gib")
    weights = side.number("weights_gib") if side.number("weights_gib") is not None else side.logged("weights_gib")
    if consumed is not None and weights is not None:
        return round(consumed - weights, 2), CONSUMED_LESS_WEIGHTS
    return _estimated_gib(side, "O"), PREDICTOR
