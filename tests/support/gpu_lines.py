"""GPU-format engine log lines rendered from the engines' own format strings, for the parser tests.

No GPU run was recorded, so these lines are built with the engines' own format strings
(%-formatting and the f-string texts) and the documented prefixes; the numbers are made up.
Besides the one-line renderers: a whole vLLM Model Runner V2 start and an SGLang TP=2 start
with the records they must give, and what each engine prints when its startup raises.
"""

from __future__ import annotations

# --- vLLM -------------------------------------------------------------------------------------------

def vllm(msg: str, proc: str = "EngineCore", pid: int = 200, level: str = "INFO", where: str = "x.py:1",
         prefix: str = "") -> str:
    """One line in vLLM's format: `[prefix](<proc> pid=<pid>) <LEVEL> <MM-DD HH:MM:SS> [<file:line>] <msg>`."""
    return f"{prefix}({proc} pid={pid}) {level} 11-29 20:00:00 [{where}] {msg}"


def vllm_record(msg: str, **kw) -> list[str]:
    """A multi-line message: vLLM repeats the prefix on every line and ends each with \\r."""
    lines = msg.split("\n")
    return [vllm(line, **kw) + ("\r" if i < len(lines) - 1 else "") for i, line in enumerate(lines)]


def sglang(msg: str, ranks: str = "", ms: str = "") -> str:
    return f"[2026-11-29 20:00:00{ms}{ranks}] {msg}"


def traceback_text(exception_line: str, frames: int = 2) -> str:
    body = "".join(f'  File "/venv/lib/python3.11/site-packages/pkg/mod{i}.py", line {10 + i}, in f{i}\n'
                   f"    call_{i}()\n" for i in range(frames))
    return f"Traceback (most recent call last):\n{body}{exception_line}"


V10 = "Model loading took %s GiB memory and %.6f seconds"
V12 = "Estimated CUDA graph memory: %.2f GiB total"
V13 = "Available KV cache memory: %s GiB"
V14 = ("CUDA graph memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=%.4f is "
       "equivalent to --gpu-memory-utilization=%.4f without CUDA graph memory profiling. To maintain the same "
       "effective KV cache size as before, increase --gpu-memory-utilization to %.4f. To disable, set "
       "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0.")
V14B = ("CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0). Without it, CUDA graph "
        "memory is not accounted for during KV cache allocation, which may require lowering --gpu-memory-utilization "
        "to avoid OOM. Consider re-enabling it (the default as of v0.21.0) and increasing --gpu-memory-utilization "
        "from %.4f to %.4f.")
V19 = "%s KV cache size: %s tokens, Maximum concurrency for %s tokens per request: %.2fx"
V20 = "Graph capturing finished in %.0f secs, took %.2f GiB"
V21 = "CUDA graph pool memory: %s GiB (actual), %s GiB (estimated), difference: %s GiB (%.1f%%)."
V23 = "init engine (profile, create kv cache, warmup model) took %.2f s (compilation: %.2f s)"


def v15(free: float, kv: float) -> str:
    return (f"Initial free memory {free} GiB, reserved {kv} GiB memory for KV Cache as specified by "
            "kv_cache_memory_bytes config and skipped memory profiling. This does not respect the "
            "gpu_memory_utilization config. Only use kv_cache_memory_bytes config when you want manual control of "
            "KV cache memory size. If OOM'ed, check the difference of initial free memory between the current run "
            "and the previous run where kv_cache_memory_bytes is suggested and update it correspondingly.")


def v22(free, total, util, req, consumed, peak, cg, b1, g1, b2, g2, current) -> str:
    return (f"Free memory on device ({free}/{total} GiB) on startup. Desired GPU memory utilization is ({util}, "
            f"{req} GiB). Actual usage is {consumed} GiB for consumed memory (weights + non-torch), {peak} GiB for "
            f"peak activation, and {cg} GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
            f"`--kv-cache-memory={b1}` ({g1} GiB) to fit into requested memory, or `--kv-cache-memory={b2}` ({g2} "
            f"GiB) to fully utilize gpu memory. Current kv cache memory in use is {current} GiB.")


def engine_core_failure(exception_line: str, proc: str = "EngineCore", marker: str = "EngineCore failed to start.",
                        where: str = "core.py:1510") -> list[str]:
    """What vLLM prints when startup raises: the logged traceback, then the API server's error."""
    lines = vllm_record(f"{marker}\n{traceback_text(exception_line)}", proc=proc, level="ERROR", where=where)
    api = traceback_text("RuntimeError: Engine core initialization failed. See root cause above. "
                         "Failed core proc(s): {'EngineCore': 1}").split("\n")
    return lines + api


LLAMA_CONFIG = ("model='meta-llama/Llama-3.1-8B-Instruct', speculative_config=None, "
                "tokenizer='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=8192, "
                "tensor_parallel_size=%d, pipeline_parallel_size=1, kv_cache_dtype=auto, device_config=cuda, "
                "enforce_eager=False, enable_prefix_caching=True")


def vllm_head(tp: int = 1) -> list[str]:
    api = dict(proc="APIServer", pid=100)
    return [
        vllm("", where="api_utils.py:347", **api),
        vllm(" ▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.32.0", where="api_utils.py:347", **api),
        vllm("  █▄█▀ █     █     █     █  model   meta-llama/Llama-3.1-8B-Instruct", where="api_utils.py:347", **api),
        vllm("non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192}",
             where="api_utils.py:286", **api),
        vllm("Resolved architecture: LlamaForCausalLM", where="model.py:733", **api),
        vllm("Using max model len %s" % 8192, where="model.py:2152", **api),
        vllm("Chunked prefill is enabled with max_num_batched_tokens=%d." % 2048, where="scheduler.py:307", **api),
        vllm("Initializing a V1 LLM engine (v%s) with config: %s" % ("0.32.0", LLAMA_CONFIG % tp), where="core.py:133"),
    ]


def vllm_tail() -> list[str]:
    return [
        vllm(V23 % (35.2, 12.5), where="core.py:395"),
        vllm("Starting vLLM server on %s" % "http://0.0.0.0:8000", proc="APIServer", pid=100, where="entry.py:140"),
        "INFO:     Started server process [100]",
        "INFO:     Waiting for application startup.",
        "INFO:     Application startup complete.",
    ]


SUGGESTION = v22(23.2, 23.52, 0.92, 21.64, 15.29, 0.58, 0.41, 5740542361, 5.35, 7302196633, 6.8, 5.73)

MRV2_LOG = vllm_head() + [
    vllm("Using V2 Model Runner", where="gpu_worker.py:518"),
    vllm("Loading model from scratch...", where="model_runner.py:392"),
    vllm("Loading weights took %.2f seconds" % 5.12, where="default_loader.py:501"),
    vllm(V10 % ("14.99", 6.431207), where="model_runner.py:424"),
    # Model Runner V2's first capture belongs to memory profiling
    vllm(V20 % (3, 0.52), where="model_runner.py:1127"),
    vllm(V13 % "5.73", where="gpu_worker.py:759"),
    vllm(V14 % (0.92, 0.8962, 0.9438), where="gpu_worker.py:774"),
    vllm(V19 % ("GPU", "46,928", "8,192", 5.73), where="kv_cache_utils.py:2327"),
    "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 51/51 [00:03<00:00, 15.1it/s]",
    vllm(V20 % (4, 0.41), where="model_runner.py:1127"),
    vllm(V21 % ("0.41", "0.57", "0.16", 39.0), where="gpu_worker.py:971"),
    vllm(SUGGESTION, where="gpu_worker.py:1034"),
] + vllm_tail()

MRV2_EXPECTED = dict(
    engine="vllm", engine_version="0.32.0", status="ok", model="meta-llama/Llama-3.1-8B-Instruct", device="gpu",
    dtype="torch.bfloat16", kv_dtype="auto", tp_size=1, model_runner="v2", max_num_batched_tokens=2048,
    chunked_prefill_size_effective=2048, weights_load_seconds=5.12, weights_gib=14.99, kv_gib=5.73,
    kv_tokens=46_928, max_model_len=8192, max_concurrency=5.73, block_size=16, num_blocks=46_928 // 16,
    cuda_graph_profile_gib=0.52, cuda_graph_gib=0.41, graph_capture_seconds=4.0, cuda_graph_estimate_gib=0.57,
    gpu_memory_utilization=0.92, gpu_memory_utilization_equivalent=0.8962, gpu_memory_utilization_suggested=0.9438,
    initial_free_gib=23.2, total_memory_gib=23.52, requested_memory_gib=21.64, non_kv_gib=15.29,
    peak_activation_gib=0.58, suggested_kv_cache_memory_bytes=5740542361,
    suggested_kv_cache_memory_bytes_gpu_limit=7302196633, init_engine_seconds=35.2, compilation_seconds=12.5,
    phase="ready", error_kind=None, later_failure=None,
)


def assert_fields(record, expected: dict) -> None:
    values = record.to_dict()
    for name, value in expected.items():
        assert values[name] == value, f"{name}: got {values[name]!r}, expected {value!r}"


def feed_all(parser, lines):
    return [e for line in lines for e in parser.feed(line + "\n")]


# --- SGLang -----------------------------------------------------------------------------------------

SERVER_ARGS = ("server_args={'model_path': 'meta-llama/Llama-3.1-8B-Instruct', 'tokenizer_path': "
               "'meta-llama/Llama-3.1-8B-Instruct', 'context_length': None, 'dtype': 'auto', 'kv_cache_dtype': 'auto', "
               "'mem_fraction_static': 0.704, 'max_running_requests': None, 'max_queued_requests': None, "
               "'max_total_tokens': None, 'chunked_prefill_size': 4096, 'max_prefill_tokens': 16384, 'page_size': 1, "
               "'tp_size': 2, 'device': 'cuda', 'cuda_graph_config': {'decode': {'backend': 'full', 'max_bs': 48, "
               "'bs': [1, 2, 4, 8, 12, 16, 24, 32, 40, 48], 'tc_compiler': 'eager'}, 'prefill': {'backend': "
               "'breakable', 'max_bs': 4096, 'bs': [4, 8, 12, 16, 3840, 4096], 'tc_compiler': 'eager'}}}")


def sglang_gpu_log(ms: str = ".123") -> list[str]:
    tp0, tp1 = dict(ranks=" TP0", ms=ms), dict(ranks=" TP1", ms=ms)
    return [
        sglang("Attention backend not specified. Use flashinfer backend by default.", ms=ms),
        sglang(SERVER_ARGS, ms=ms),
        sglang("Init parallel begin.", **tp0),
        sglang("Load weight begin. avail mem=22.50 GB", **tp0),
        sglang("Load weight begin. avail mem=22.48 GB", **tp1),
        sglang("Load weight end. elapsed=4.90 s, type=LlamaForCausalLM, quant=fp8, fmt=e4m3, avail mem=15.30 GB, "
               "mem usage=8.50 GB.", **tp1),
        sglang("Load weight end. elapsed=4.87 s, type=LlamaForCausalLM, quant=fp8, fmt=e4m3, avail mem=15.33 GB, "
               "mem usage=8.49 GB.", **tp0),
        sglang("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 10810, K size: 0.66 GB, V size: 0.66 GB", **tp0),
        sglang("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 10810, K size: 0.66 GB, V size: 0.66 GB", **tp1),
        sglang("Memory pool end. avail mem=6.61 GB", **tp0),
        sglang("Capture target prefill CUDA graph begin. backend=breakable, num_tokens=[4, 8, 12, 3840, 4096], "
               "avail mem=6.61 GB", **tp0),
        sglang("Capture target prefill CUDA graph end. elapsed=21.40 s, mem usage=0.38 GB, avail mem=6.23 GB.", **tp1),
        sglang("Capture target prefill CUDA graph end. elapsed=21.33 s, mem usage=0.37 GB, avail mem=6.24 GB.", **tp0),
        sglang("Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=6.24 GB", **tp0),
        sglang("Capture target decode CUDA graph end. bs=[1, 2, 4, 8, 12, 16, 24, 32, 40, 48], elapsed=2.91 s, "
               "mem usage=0.09 GB, avail mem=6.15 GB.", **tp0),
        sglang("max_total_num_tokens=10810, chunked_prefill_size=4096, max_prefill_tokens=16384, "
               "max_running_requests=2048, context_len=131072, available_gpu_mem=6.15 GB", **tp0),
        sglang("INFO:     Application startup complete.", ms=ms),
        sglang("The server is fired up and ready to roll!", ms=ms),
    ]


SGLANG_EXPECTED = dict(
    engine="sglang", status="ok", model="meta-llama/Llama-3.1-8B-Instruct", device="gpu", tp_size=2,
    mem_fraction_static_effective=0.704, chunked_prefill_size_effective=4096, max_prefill_tokens=16384, block_size=1,
    cuda_graph_decode_backend="full", cuda_graph_decode_max_bs=48, cuda_graph_prefill_backend="breakable",
    cuda_graph_prefill_max_bs=4096, avail_mem_before_load_gib=22.5, avail_mem_after_load_gib=15.33, weights_gib=8.49,
    weights_load_seconds=4.87, kv_dtype="torch.bfloat16", pool_tokens=10810, kv_gib=1.32,
    avail_mem_after_pool_gib=6.61, cuda_graph_gib=0.46, graph_capture_seconds=24.24, kv_tokens=10810,
    num_blocks=10810, max_running_requests=2048, context_len=131072, max_model_len=131072, available_mem_gib=6.15,
    phase="ready", max_concurrency=None,
)


def sglang_failure(exception_line: str, ranks: str = "") -> list[str]:
    died = ("RuntimeError: Rank 0 scheduler died during initialization (exit code: 1). If exit code is -9 (SIGKILL), "
            "a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.")
    return ([sglang(SERVER_ARGS), sglang("Load weight begin. avail mem=22.50 GB", ranks=ranks),
             sglang(f"Scheduler hit an exception: {traceback_text(exception_line)}".split("\n")[0], ranks=ranks)]
            + traceback_text(exception_line).split("\n")[1:]
            + ["", sglang("Received sigquit from a child process. It usually means the child failed.")]
            + traceback_text(died).split("\n"))
