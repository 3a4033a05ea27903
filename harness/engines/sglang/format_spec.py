"""Which SGLang log/exception wording feeds which StartupRecord field (read by release_formats)."""

from __future__ import annotations

import re

from harness.engines.release_formats import Fact, classifier, field_mapper

PACKAGE = "sglang"
KEYWORDS = re.compile(
    r"server_args|ServerArgs|Load weight|KV Cache|KV cache|KV size|K size|Memory pool|Capture|[Cc]uda graph|CUDA graph"
    r"|max_total_num_tokens|max_total_tokens|Not enough memory|mem-fraction-static|mem_fraction_static"
    r"|[Cc]hunked.prefill|profiled|context.length|context_len|fired up|#tokens|kv_cache_dtype|avail mem|GB"
    r"|max_running_requests|memory"
    r"|[Ss]liding|SWA|swa_|Mamba|hit an exception|sigquit|failed|startup timings|state cache|overlap schedule"
    r"|host memory|DSV4|MlxAttentionKVPool|warmup error|leaves no room|Attention KV pool|MLX stub|HiCache|LMCache|KVBM"
    r"|[Ww]atchdog|cur_batch\.batch_size"
)


def distributions(version: str) -> tuple[str, ...]:
    return ("sglang",)


# Where the same wording is in several modules, the table names the language-model server's.
PREFERRED_PATHS = ("sglang/srt/",)
# Other programs in the wheel (the diffusion server, benchmarks, tests) that a language-model server never runs.
EXCLUDED_PATHS = ("sglang/multimodal_gen/", "sglang/test/", "sglang/bench", "sglang/benchmark/")

# What SGLang prints for its server arguments: a dict (later releases) or the dataclass repr.
_DICT_ARGS = "{'model_path': 'org/M-8B', 'dtype': 'auto', 'mem_fraction_static': 0.812, 'chunked_prefill_size': 8192}"
_REPR_ARGS = "ServerArgs(model_path='org/M-8B', dtype='auto', mem_fraction_static=0.812, chunked_prefill_size=8192)"
_ARGS_READ = (("model", "org/M-8B"), ("mem_fraction_static_effective", 0.812), ("chunked_prefill_size_effective", 8192))

# SGLang 0.2 wrote its rank's tag into the message itself: "[gpu_id={self.gpu_id}] " in 0.2.0
# (sglang/srt/managers/controller/model_runner.py:154, :202, tp_worker.py:116), "[gpu={self.gpu_id}] " by 0.2.7
# (sglang/srt/model_executor/model_runner.py:181, :237)
_TAG = r"(?:\[gpu(?:_id)?=\{self\.gpu_id\}\] )?"
_RANK_0 = ((r"^self\.gpu_id$", "0"),)

FACTS = (
    # --- server arguments, in every printed form
    Fact("server_args", r"^server_args=\{|^server_args: %s$|^server_args: \{self\}$",
         ((r".", "-"),), samples=((r"dict|json|for_logging|asdict", _DICT_ARGS), (r".", _REPR_ARGS)),
         expect=_ARGS_READ, contexts=("log",)),
    # --- loading
    Fact("load_weight_begin", r"^Load weight begin\. avail mem=\{", ((r".", "avail_mem_before_load_gib"),)),
    Fact("load_weight_end", rf"^{_TAG}Load weight end\. (?!Committed)",
         ((r"^self\.gpu_id$", "-"), (r"weight_load_time|elapsed|tic|perf_counter|time\.time", "weights_load_seconds"),
          (r"type\(", "-"),
          (r"dtype", "-"),
          (r"quant_str", "-"), (r"mem_usage|before_avail_memory - after_avail_memory", "weights_gib"),
          (r"avail", "avail_mem_after_load_gib"), (r".", "-")),
         samples=(*_RANK_0, (r"type\(", "LlamaForCausalLM"), (r"dtype", "torch.bfloat16"), (r"quant_str", ""))),
    # --- the KV pool
    # kvcached's virtual reservation beside the device pool (its own table under forks/): never the pool
    Fact("virtual_kv_pool", r"^VirtualKV Cache is allocated",
         ((r"size$|tokens", "virtual_kv_tokens"), (r"k_size", "virtual_kv_gib+"), (r"v_size", "virtual_kv_gib+"),
          (r".", "-"))),
    Fact("physical_kv_pool", r"^Physical KV Cache limits by --mem-fraction-static: ",
         ((r"size$|tokens", "pool_tokens"), (r"k_size", "kv_gib+"), (r"v_size", "kv_gib+"), (r".", "-"))),
    # a hierarchical cache's host pools: the KV cache's own (host_kv), and the others beside it - a hybrid model's
    # state, an indexer's keys (host_other, 0.5.23 sglang/srt/mem_cache/pool_host/mamba.py:195, dsa.py:232): never the
    # device pool, nor each other
    Fact("host_memory", r"^Allocating %\.2f GB host memory for (?:hierarchical KV cache|V4 paged pool)\b",
         ((r"bytes|size|GB|1e9", "host_kv_gib"), (r".", "-"))),
    Fact("host_other_memory", r"^Allocating %\.2f GB host memory for (?!hierarchical KV cache|V4 paged pool)",
         ((r"bytes|size|GB|1e9", "host_other_gib"), (r".", "-"))),
    # the host KV pool with its tokens (0.5.21 sglang/srt/mem_cache/pool_host/base.py:236, :248): never the device pool
    Fact("host_kv_pool", r"^Allocating %s hierarchical KV host pool: %d tokens, %\.2f GB host memory",
         ((r"size", "host_kv_tokens"), (r"bytes|GB|1e9", "host_kv_gib"), (r".", "-"))),
    Fact("memory_profiling", r"^Memory profiling: available_gpu_memory=\{",
         ((r"available", "profile_available_gib"), (r"total", "profile_total_gib"),
          (r"mem_fraction", "profile_mem_fraction_static"), (r"rest", "profile_rest_gib"))),
    Fact("dsv4_memory", r"^DSV4 memory calculation: ",
         ((r"bytes_per_full_token", "cell_bytes"), (r"^available_bytes", "pool_budget_gib"),
          (r"full_max_total_num_tokens", "pool_tokens"), (r".", "-")), samples=((r"unified|dspark", "False"),)),
    Fact("dsv4_pool_sizes", r"^DSV4 pool sizes: full=\{", ((r"^full$", "pool_tokens"), (r"^swa$", "swa_pool_tokens"),
                                                        (r".", "-"))),
    Fact("all_swa", r"^Use sliding window memory pool \(all SWA\)\. ", ((r".", "swa_pool_tokens"),)),
    Fact("mlx_pool", r"^MlxAttentionKVPool: \{", ((r"pool_size", "pool_tokens"), (r"dtype", "kv_dtype"), (r".", "-")),
         samples=((r"dtype", "mlx.bfloat16"),)),
    # Apple MLX's runner sizes its pool itself: the budget, in GiB printed as "GB" (0.5.23 sglang/srt/hardware_backend/
    # mlx/model_runner.py:694)
    Fact("mlx_pool_budget", r"^Auto-sized attention KV pool: sys_available=\{",
         ((r"kv_budget", "pool_budget_gib"), (r".", "-"))),
    # ... its pool without the padding slot, and the stub runner's token budget (model_runner.py:755,
    # model_runner_stub.py:333): the pool line (MlxAttentionKVPool) and the scheduler summary state them for the record
    Fact("mlx_pool_init", r"^Attention KV pool initialized: pool_size=\{|^MLX stub: initialized minimal pools ",
         ((r".", "-"),), unread=True),
    # Ascend NPU's HiCache host reservation (0.5.22 sglang/srt/mem_cache/pool_host/npu_memfabric.py:86): host memory the
    # host pools are carved from (their own "Allocating ... host memory" lines say how much), never the device pool
    Fact("host_memory_reserve", r"^\[HiCache\] memfabric host memory initialized: reserve=", ((r".", "-"),),
         unread=True),
    Fact("kv_pool", r"KV Cache is allocated\. |\{cache_name\} is allocated\. |'VA upper bound' if .* 'is allocated'",
         ((r"cache_name", "-"), (r"VA upper bound", "-"), (r"dtype", "kv_dtype"),
          (r"num_tokens|^size$|tokens", "pool_tokens"), (r"^kv_size|kv_size_GB|kv_size /", "kv_gib"),
          # K and V are printed apart; the record holds their sum
          (r"^k_size|k_size_GB", "kv_gib+"), (r"^v_size|v_size_GB", "kv_gib+"),
          (r".", "-")),
         samples=((r"cache_name", "KV Cache"), (r"VA upper bound", "is allocated")), contexts=("log",)),
    # the draft model's pool resized after capture too (0.5.23 kv_pool_runtime.py:203), in its own fields
    Fact("kv_pool_post_capture", r"^Post-capture KV sizing: KV cache allocated\. ",
         ((r"dtype", "kv_dtype"), (r"tokens", "pool_tokens"), (r"backed_bytes", "kv_gib"), (r".", "-"))),
    Fact("draft_pool_post_capture", r"^Post-capture KV sizing: draft KV cache allocated\. ",
         ((r"dtype", "-"), (r"size", "draft_pool_tokens"), (r"backed_bytes", "draft_kv_gib"), (r".", "-"))),
    Fact("kv_dtype", r"^Setting KV cache dtype to \{|^Using KV cache dtype: \{", ((r"dtype", "kv_dtype"), (r".", "-")),
         samples=((r"arch", "DeepseekV3ForCausalLM"),)),
    Fact("memory_pool_end", rf"^{_TAG}Memory pool end\. avail mem=\{{",
         ((r"^self\.gpu_id$", "-"), (r".", "avail_mem_after_pool_gib")), samples=_RANK_0),
    # --- a sliding-window model's two pools, and a hybrid model's state
    Fact("swa_split", r"^Use [Ss]liding window memory pool\. full_layer_tokens=\{|^Post-capture KV sizing: "
         r"full_layer_tokens=%d", ((r"full", "pool_tokens"), (r"swa", "swa_pool_tokens"))),
    Fact("swa_pool_total", r"^SWAKVPool (?:mem usage|\{'VA upper bound')",
         ((r"VA upper bound", "-"), (r"mem_usage", "kv_gib"), (r"size_swa", "swa_pool_tokens"),
          (r"^self\.size$", "pool_tokens"), (r".", "-")),
         samples=((r"VA upper bound", "mem usage"),), contexts=("log",)),
    Fact("state_pool", r"^Mamba Cache is allocated\. ",
         ((r"^size$", "state_pool_slots"), (r"conv_state\b", "state_pool_gib+"), (r"temporal_state", "state_pool_gib+"),
          (r"intermediate_ssm", "state_pool_gib+"), (r"intermediate_conv", "state_pool_gib+"), (r".", "-")),
         contexts=("log",)),
    Fact("profiled_max_total_tokens", r"^max_total_tokens=\{.*\} is larger than the profiled value \{",
         ((r"max_total_tokens|user_limit", "max_total_tokens"), (r".", "profiled_max_total_tokens"))),
    Fact("mem_fraction_reduced", r"^Automatically reduce --mem-fraction-static to \{",
         ((r".", "mem_fraction_static_effective"),)),
    Fact("chunked_prefill_off", r"^Automatically turn of+ --chunked-prefill-size",
         ((r".", "-"),), literal=r"(?P<chunked_prefill_size_effective>turn of+)",
         literal_map=(("turn off", -1), ("turn of", -1)), samples=((r".", "qwen2_vl"),)),
    Fact("pool_below_context_length", r"^KV pool holds %d tokens, fewer than --context-length %d",
         ((r"capacity|tokens", "pool_tokens"), (r"context", "context_len"))),
    # --- the launcher's startup timings (from 0.5.17)
    Fact("startup_timings", r"^Engine startup timings \(s\): ",
         ((r"load_weight", "-"), (r"kv_cache_allocation", "kv_cache_allocation_seconds"),
          (r"scheduler_e2e", "scheduler_startup_seconds"), (r"cuda_graph", "-"),
          (r"tokenizer_e2e", "engine_startup_seconds")),
         samples=((r"cuda_graph", "prefill=0.00, decode=2.41"),)),
    # --- CUDA graphs
    Fact("capture_begin", r"^Capture .*(?:graph|CG|Graph).* begin\.", ((r".", "-"),),
         samples=((r"capture_name|graph_backend|cpu graph", "cuda graph"),), unread=True),
    Fact("capture_end", r"^Capture (?!(?:[\w-]+ )*draft\b).*(?:graph|CG|Graph).* end\.",
         ((r"tic|capture_time|elapsed", "graph_capture_seconds"),
          (r"mem_usage|before_mem - after_mem|memory_usage", "cuda_graph_gib"), (r".", "-")),
         samples=((r"capture_name", "decode"), (r"graph_backend|cpu graph", "CUDA graph"),
                  (r"capture_bs", "[1, 2, 4]"))),
    # a speculative draft model's own graphs (0.5.23 sglang/srt/speculative/eagle_worker_v2.py:654): apart
    Fact("draft_capture_end", r"^Capture (?:[\w-]+ )*draft\b.*(?:graph|CG|Graph| extend).* end\.",
         ((r"tic|capture_time|elapsed", "graph_capture_seconds"),
          (r"mem_usage|before_mem - after_mem|memory_usage", "draft_cuda_graph_gib"), (r".", "-")),
         samples=((r"graph_backend|cpu graph", "CUDA graph"), (r"capture_bs", "[1, 2, 4]"))),
    # --- the scheduler summary
    Fact("scheduler_summary",
         rf"^{_TAG}max_total_num_tokens=\{{[^}}]+\}}, (?:chunked_prefill_size|max_prefill_tokens)=",
         ((r"^self\.gpu_id$", "-"), (r"max_total_num_tokens", "kv_tokens"),
          (r"chunked_prefill_size", "chunked_prefill_size_effective"),
          (r"max_prefill_tokens", "max_prefill_tokens"), (r"max_running_requests", "max_running_requests"),
          (r"context_len", "context_len"), (r"available_cpu_mem' if", "-"),
          (r"avail_mem|available_gpu_memory|available_memory", "available_mem_gib"), (r".", "-")),
         samples=(*_RANK_0, (r"available_cpu_mem' if", "available_gpu_mem"))),
    # --- startup errors
    Fact("error:weights_leave_no_memory", r"^Loaded weights leave no GPU memory for the KV cache under",
         ((r"suggested", "error_data.suggested_mem_fraction_static"),
          (r"minimum", "error_data.minimum_mem_fraction_static"),
          (r"mem_fraction_static", "mem_fraction_static_effective"), (r".", "-"))),
    Fact("error:full_pool_no_room", r"SWA pool cap \(\{.*leaves no room for the full ",
         ((r"swa_tokens|swa_cap_tokens", "error_data.swa_tokens"), (r"fixed", "error_data.swa_gib"),
          (r"available", "error_data.available_gib"), (r".", "-"))),
    Fact("error:warmup_failed", r"^Initialization failed\. warmup error: ", ((r".", "-"),),
         samples=((r".", "Traceback"),)),
    Fact("error:not_enough_memory", r"^Not enough memory\. Please try to increase --mem-fraction-static\.",
         ((r"mem_fraction_static", "mem_fraction_static_effective"), (r".", "-"))),
    Fact("error:pool_too_small", r"Memory pool size is too small", ((r".", "-"),)),
    # a sliding-window model's SWA pool below one request's admission floor (0.5.23
    # model_executor/pool_configurator.py:211)
    Fact("error:swa_pool_too_small", r"^SWA pool \(\{swa_tokens\} tokens\) cannot hold even one request",
         ((r"swa_tokens", "error_data.swa_tokens"), (r"sliding_window_size", "error_data.sliding_window_size"),
          (r"page_size", "error_data.page_size"), (r".", "-"))),
    # a hybrid model's state pool with no slot, or too few for one request (0.5.23 mem_cache/kv_cache_configurator.py
    # :3393 and :3153)
    Fact("error:state_pool_too_small", r"^Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache\."
         r"|^Hybrid \(mamba/linear-attention\) state cache is too small to serve ",
         ((r"max_mamba_cache_size", "error_data.max_mamba_cache_size"), (r"total_rest_memory", "error_data.rest_gib"),
          (r"per_req", "error_data.per_slot_mib"), (r"^ratio$|mamba_ratio", "error_data.mamba_ratio"),
          (r"max_num_reqs", "error_data.max_num_reqs"), (r".", "-"))),
    # a hybrid model's radix-cache strategy the platform or schedule cannot take (0.5.23 arg_groups/mamba_hook.py:121,
    # :159)
    Fact("error:mamba_radix_cache_unsupported", r"^extra_buffer requires platform support for Mamba cache state "
         r"snapshots|^no_buffer do not support overlap schedule", ((r".", "-"),)),
    # the scheduler's watchdog: a batch stuck in its forward pass for --watchdog-timeout seconds, then SIGQUIT to the
    # server. 0.4.0-0.5.6 "Watchdog timeout (...)" (0.4.0 sglang/srt/managers/scheduler.py:366, 0.4.6 :1592, 0.5.4
    # :2283, 0.5.5 scheduler_runtime_checker_mixin.py:256) and, from 0.4.3.post3 to 0.5.6, its dump of the stuck batch
    # (0.4.3.post3 scheduler.py:484, 0.4.6 :1600, 0.5.4 :2276, 0.5.5 scheduler_runtime_checker_mixin.py:249); from
    # 0.5.7 a WatchdogRaw's "{debug_name} watchdog timeout (..., self.soft=...)" (0.5.7
    # sglang/srt/utils/watchdog.py:147, 0.5.10-0.5.23 :153), a kill only as the Scheduler's with soft=False (the soft
    # watchdogs', --soft-watchdog-timeout, only dump; the batch dump is returned to it, never logged by itself)
    Fact("error:watchdog_timeout", r"^Watchdog timeout \(self\.watchdog_timeout=|^self\.cur_batch\.batch_size\(\)=\{"
         r"|^\{self\.debug_name\} watchdog timeout \(self\.watchdog_timeout=",
         ((r"debug_name|soft", "-"), (r"watchdog_timeout", "error_data.watchdog_timeout_s"),
          (r"batch_size", "error_data.stuck_batch_size"), (r".", "-")),
         contexts=("log",), samples=((r"debug_name", "Scheduler"), (r"soft", "False"))),
    # A process's own word that it failed: tests/parsers/test_parsers_fatal_start.py holds every such row to the
    # parser's failure markers.
    Fact("fatal", r"^\w+ hit an exception\b|^Received sigquit from a child process", ((r".", "-"),), contexts=("log",),
         unread=True),
)
FACT_ORDER = tuple(f.name for f in FACTS)
classify = classifier(FACTS)
fields_for = field_mapper()
