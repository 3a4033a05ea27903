"""GPU-format logs rendered from the format strings in ENGINES.md §1.2-1.3 and §2.3-2.4, read field by field.

No GPU run was recorded, so these lines are built with the engines' own format strings
(tests/support/gpu_lines.py renders them); the numbers are made up.
"""

from __future__ import annotations

import pytest

from parsers import SglangLogParser, VllmLogParser, parse_log
from parsers import events as ev
from tests.support.gpu_lines import (
    MRV2_EXPECTED,
    MRV2_LOG,
    SERVER_ARGS,
    SGLANG_EXPECTED,
    V10,
    V12,
    V13,
    V14B,
    V19,
    V20,
    V21,
    assert_fields,
    engine_core_failure,
    feed_all,
    sglang,
    sglang_failure,
    sglang_gpu_log,
    traceback_text,
    v15,
    v22,
    vllm,
    vllm_head,
    vllm_record,
    vllm_tail,
)

# --- vLLM: normal starts ------------------------------------------------------------------------


def test_model_runner_v2_takes_the_graph_capture_after_the_kv_line():
    parser = VllmLogParser()
    events = feed_all(parser, MRV2_LOG)
    assert_fields(parser.record, MRV2_EXPECTED)
    assert [e.data["phase"] for e in events if e.kind == ev.PHASE] == [
        "loading", "profiling", "kv_sized", "capturing", "ready"]
    kinds = [e.kind for e in events if e.kind != ev.PHASE]
    assert kinds == [ev.VERSION, ev.KV_SIZED, ev.READY]
    kv_event = next(e for e in events if e.kind == ev.KV_SIZED)
    assert kv_event.data["kv_tokens"] == 46_928 and "46,928" in kv_event.line


def test_v1_model_runner_logs_estimate_and_one_capture():
    lines = vllm_head() + [
        vllm("Starting to load model %s..." % "meta-llama/Llama-3.1-8B-Instruct", where="gpu_model_runner.py:5039"),
        vllm("Loading weights took %.2f seconds" % 5.40, where="default_loader.py:501"),
        vllm(V10 % ("14.99", 6.9), where="gpu_model_runner.py:5149"),
        vllm("Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)",
             where="gpu_model_runner.py:6369"),
        vllm(V12 % 0.57, where="gpu_model_runner.py:6474"),
        vllm(V13 % "5.73", where="gpu_worker.py:759"),
        vllm(V19 % ("GPU", "46,928", "8,192", 5.73), where="kv_cache_utils.py:2327"),
        vllm(V20 % (5, 0.45), where="gpu_model_runner.py:6581"),
        vllm(V21 % ("0.45", "0.57", "0.12", 26.7), where="gpu_worker.py:971"),
    ] + vllm_tail()
    record = parse_log("\n".join(lines))
    assert_fields(record, dict(status="ok", model_runner=None, weights_gib=14.99, cuda_graph_estimate_gib=0.57,
                               cuda_graph_profile_gib=None, cuda_graph_gib=0.45, graph_capture_seconds=5.0,
                               kv_tokens=46_928, num_blocks=2933, phase="ready"))


def test_tensor_parallel_workers_take_rank_zero_figures():
    tp0, tp1 = dict(proc="Worker_TP0", pid=301), dict(proc="Worker_TP1", pid=302)
    lines = vllm_head(tp=2) + [
        vllm("Using V2 Model Runner", where="v1/worker/gpu_worker.py:518", **tp0),
        vllm(V10 % ("7.5", 4.0), where="model_runner.py:424", **tp1),  # every rank logs it; rank 1 first
        vllm(V10 % ("7.49", 4.1), where="model_runner.py:424", **tp0),
        vllm(V20 % (2, 0.30), where="model_runner.py:1127", **tp1),
        vllm(V20 % (2, 0.31), where="model_runner.py:1127", **tp0),
        vllm(V13 % "12.4", where="gpu_worker.py:759", **tp0),
        vllm(V19 % ("GPU", "203,136", "8,192", 24.8), where="kv_cache_utils.py:2327"),
        vllm(V20 % (6, 0.44), where="model_runner.py:1127", **tp0),
        vllm(V20 % (7, 0.47), where="model_runner.py:1127", **tp1),
    ] + vllm_tail()
    record = parse_log("\n".join(lines))
    assert_fields(record, dict(status="ok", tp_size=2, weights_gib=7.49, cuda_graph_profile_gib=0.31,
                               cuda_graph_gib=0.44, graph_capture_seconds=6.0, kv_gib=12.4, kv_tokens=203_136,
                               max_concurrency=24.8, num_blocks=203_136 // 16))


def test_kv_cache_memory_bytes_mode_and_block_override_lines():
    lines = vllm_head() + [
        vllm(v15(23.2, 6.0), where="gpu_worker.py:669"),
        vllm("Setting kv cache block size to %d for %s backend(s)." % (64, "FLASHMLA"), proc="APIServer", pid=100,
             where="interface.py:776"),
        vllm("Overriding num_gpu_blocks=%d with num_gpu_blocks_override=%d" % (3072, 512),
             where="kv_cache_utils.py:2619"),
        vllm(V19 % ("GPU", "32,768", "8,192", 4.0), where="kv_cache_utils.py:2327"),
    ]
    record = parse_log("\n".join(lines))
    assert_fields(record, dict(status="ok", initial_free_gib=23.2, kv_gib=6.0, block_size=64,
                               num_gpu_blocks_override=512, num_blocks=512, kv_tokens=32_768))


def test_num_gpu_blocks_debug_line_beats_the_derived_count():
    lines = [
        vllm(V19 % ("GPU", "46,928", "8,192", 5.73), where="v1/core/kv_cache_utils.py:2327"),
        vllm("Engine %03d: vllm cache_config_info with initialization after num_gpu_blocks is: %d" % (0, 2934),
             proc="APIServer", pid=100, level="DEBUG", where="v1/metrics/loggers.py:350"),
    ]
    assert parse_log("\n".join(lines)).num_blocks == 2934


def test_autofit_lines_set_max_model_len():
    reduced = "Auto-fit max_model_len: reduced from %d to %d to fit in available KV cache memory (%s)"
    fits = "Auto-fit max_model_len: full model context length %d fits in available KV cache memory (%s)"
    free = "Auto-fit max_model_len: attention-free model, using derived max_model_len=%d"
    record = parse_log(vllm(reduced % (131072, 58336, "7.12 GiB GPU"), where="kv_cache_utils.py:2477"), "vllm")
    assert (record.autofit, record.autofit_from_len, record.max_model_len) == ("reduced", 131072, 58336)
    record = parse_log(vllm(fits % (32768, "7.12 GiB GPU + 3.5 GiB host"), where="kv_cache_utils.py:2468"), "vllm")
    assert (record.autofit, record.max_model_len) == ("fits", 32768)
    record = parse_log(vllm(free % 4096, where="kv_cache_utils.py:2435"), "vllm")
    assert (record.autofit, record.max_model_len) == ("attention_free", 4096)


def test_cuda_graph_profiling_disabled_suggestion():
    record = parse_log(vllm(V14B % (0.92, 0.9438), level="WARNING", where="gpu_worker.py:791"), "vllm")
    assert (record.gpu_memory_utilization, record.gpu_memory_utilization_suggested) == (0.92, 0.9438)


def test_suggestion_with_negative_byte_counts():
    line = v22(20.1, 23.52, 0.92, 21.64, 22.0, 0.9, 0.5, -1180123136, -1.1, -266338304, -0.25, 0.0)
    record = parse_log(vllm(line, where="gpu_worker.py:1034"), "vllm")
    assert record.suggested_kv_cache_memory_bytes == -1180123136
    assert record.suggested_kv_cache_memory_bytes_gpu_limit == -266338304


def test_plain_version_banner_and_cpu_auto_kv_line():
    lines = [
        vllm("vLLM server version %s, serving model %s" % ("0.32.0", "/m/tiny"), proc="APIServer", pid=1,
             where="api_utils.py:347"),
        vllm("Auto set (28.31/125.72) GiB for KV cache on node 0, with 115.66 GiB requested memory for the worker. "
             "87.35 GiB memory was consumed by non-kv usages.", proc="Worker", pid=3, where="cpu_worker.py:260"),
        vllm(V19 % ("CPU", "327,680", "8,192", 40.0), where="kv_cache_utils.py:2327"),
    ]
    record = parse_log("\n".join(lines))
    assert_fields(record, dict(engine_version="0.32.0", model="/m/tiny", kv_gib=28.31, total_memory_gib=125.72,
                               requested_memory_gib=115.66, non_kv_gib=87.35, device="cpu", block_size=128,
                               kv_tokens=327_680, num_blocks=2560, max_concurrency=40.0))


def test_debug_memory_profiling_result():
    line = ("Memory profiling takes 4.21 seconds. Total non KV cache memory: 16.1GiB; torch peak memory increase: "
            "0.58GiB; total consumed (from mem_get_info): 15.52GiB; weights memory: 14.99GiB.")
    record = parse_log(vllm(line, level="DEBUG", where="v1/worker/gpu_worker.py:758"), "vllm")
    assert (record.non_kv_gib, record.weights_gib) == (16.1, 14.99)


# --- vLLM: every startup error ----------------------------------------------------------------------

E_CASES = [
    ("E1", ("ValueError: Free memory on device cuda:0 (20.1/23.52 GiB) on startup is less than desired GPU memory "
            "utilization (0.92, 21.64 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
            "processes."),
     "free_memory_below_requested",
     dict(device_id="cuda:0", free_gib=20.1, total_gib=23.52, utilization=0.92, requested_gib=21.64)),
    ("E1b", ("ValueError: Externally held weights on device cuda:0 (22.5/23.52 GiB) exceed the desired GPU memory "
             "utilization (0.92, 21.64 GiB). Increase GPU memory utilization or reduce GPU memory used by other "
             "processes."),
     "external_weights_exceed_budget",
     dict(device_id="cuda:0", external_gib=22.5, total_gib=23.52, utilization=0.92, requested_gib=21.64)),
    ("E1c", ("ValueError: Free memory on device cuda:1 (5.0/79.19 GiB) on startup is less than the engine's budget "
             "after excluding external process's weights (0.9, 40.0 GiB). Decrease GPU memory utilization or reduce "
             "GPU memory used by other processes."),
     "free_memory_below_budget",
     dict(device_id="cuda:1", free_gib=5.0, total_gib=79.19, utilization=0.9, budget_gib=40.0)),
    ("E2", ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
            "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, despite its "
            "name). See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."),
     "no_kv_cache_memory", {}),
    ("E3", ("ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is "
            "needed, which is larger than the available KV cache memory (7.12 GiB). Based on the available memory, "
            "the estimated maximum model length is 58336. Try increasing `gpu_memory_utilization` (which also "
            "controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. See "
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."),
     "max_model_len_too_large",
     dict(max_model_len=131072, needed_gib=16.0, available_gib=7.12, estimated_max_model_len=58336)),
    ("E3-no-estimate", ("ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB "
                        "KV cache is needed, which is larger than the available KV cache memory (0.01 GiB). Try "
                        "increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or "
                        "decreasing `max_model_len` when initializing the engine. See "
                        "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."),
     "max_model_len_too_large", dict(max_model_len=131072, needed_gib=16.0, available_gib=0.01)),
    ("E4", ("ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. "
            "Try increasing `gpu_memory_utilization`."),
     "autofit_impossible", {}),
    ("E5", ("AssertionError: Error in memory profiling. Initial free memory 23.2 GiB, current free memory 23.9 GiB. "
            "This happens when other processes sharing the same container release GPU memory while vLLM is profiling "
            "during initialization. To fix this, ensure consistent GPU memory allocation or isolate vLLM in its own "
            "container."),
     "memory_profiling_error", dict(initial_free_gib=23.2, current_free_gib=23.9)),
    ("E8", ("ValueError: Available memory on node 0 (10.5/62.7 GiB) on startup is less than desired CPU memory "
            "utilization (0.92, 57.68 GiB). On the CPU backend, the `--gpu-memory-utilization` flag controls the "
            "fraction of CPU memory reserved (despite its name). To resolve: decrease `--gpu-memory-utilization` "
            "(e.g. `--gpu-memory-utilization 0.5`) or reduce CPU memory used by other processes."),
     "cpu_memory_below_requested",
     dict(node=0, available_gib=10.5, total_gib=62.7, utilization=0.92, requested_gib=57.68)),
    ("E9", ("ValueError: Available memory on node 0 (3.2/23.59 GiB) on kv cache allocation is less than requested "
            "memory for kv (4.0 GiB). Decrease --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, or reduce CPU memory "
            "used by other processes."),
     "cpu_kv_cache_above_available", dict(node=0, available_gib=3.2, total_gib=23.59, requested_kv_gib=4.0)),
    ("E10", ("ValueError: Available memory on node 1 (3.2/23.59 GiB) on kv cache allocation is less than requested "
             "memory for kv (-0.4/21.7 GiB). Reduce CPU memory used by other processes."),
     "cpu_kv_cache_above_available", dict(node=1, available_gib=3.2, total_gib=23.59, requested_kv_gib=-0.4,
          requested_gib=21.7)),
    ("OOM", ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
             "23.52 GiB of which 1.10 GiB is free."),
     "cuda_oom", dict(tried=2.0, unit="GiB", tried_gib=2.0, total_gib=23.52, free_gib=1.1)),
]


@pytest.mark.parametrize("name,exception_line,kind,data", E_CASES, ids=[c[0] for c in E_CASES])
def test_vllm_startup_error(name, exception_line, kind, data):
    parser = VllmLogParser()
    lines = vllm_head() + engine_core_failure(exception_line)
    events = feed_all(parser, lines)
    record = parser.record
    assert (record.status, record.error_kind) == ("engine_error", kind)
    assert record.error_message == exception_line
    assert record.error_data == data
    # the error's numbers do not overwrite what the log said about the engine
    assert (record.device, record.kv_gib, record.kv_tokens) == ("gpu", None, None)
    errors = [e for e in events if e.kind == ev.STARTUP_ERROR]
    assert len(errors) == 1  # reported once, at the first sign
    if "estimated_max_model_len" in data:
        assert record.estimated_max_model_len == data["estimated_max_model_len"]


def test_worker_failure_with_tensor_parallel_prefix():
    e1 = E_CASES[0][1]
    worker = vllm_record(f"WorkerProc failed to start.\n{traceback_text(e1)}", proc="Worker_TP1", pid=302,
                         level="ERROR", where="multiproc_executor.py:953")
    other = [vllm("Using V2 Model Runner", proc="Worker_TP0", pid=301, where="gpu_worker.py:518")]
    lines = vllm_head(tp=2) + [worker[0], other[0], *worker[1:]] + engine_core_failure(
        "RuntimeError: Worker failed with error 'Free memory ...', please check the stack trace above for the root "
        "cause")
    record = parse_log("\n".join(lines))
    assert (record.error_kind, record.error_data["free_gib"]) == ("free_memory_below_requested", 20.1)


def test_oom_while_loading_weights_is_logged_before_the_traceback():
    logged = ("Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization to free memory for "
              "weights, increasing --tensor-parallel-size, or using --quantization. See "
              "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more tips. (original error: CUDA "
              "out of memory. Tried to allocate 1.96 GiB.)")
    lines = vllm_head() + [vllm(logged, level="ERROR", where="gpu_model_runner.py:5147")] + engine_core_failure(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB.")
    record = parse_log("\n".join(lines))
    assert (record.error_kind, record.error_message) == ("oom_loading_weights", logged)


def test_max_model_len_above_derived_inside_a_pydantic_error():
    e7 = ("User-specified max_model_len (262144) is greater than the derived max_model_len "
          "(max_position_embeddings=131072 or model_max_length=None in model's config.json). To allow overriding this "
          "maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.")
    lines = vllm_head()[:4] + traceback_text(
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig").split("\n") + [
        f"  Value error, {e7} [type=value_error, input_value=ArgsKwargs((), {{}}), input_type=ArgsKwargs]",
        "    For further information visit https://errors.pydantic.dev/2.14/v/value_error",
    ]
    record = parse_log("\n".join(lines))
    assert (record.status, record.error_kind, record.max_model_len) == (
        "engine_error", "max_model_len_exceeds_derived", 262144)
    assert record.error_data == dict(max_model_len=262144, derived_key="max_position_embeddings",
                                     derived_max_model_len=131072, model_max_length=None)


def test_unknown_exception_is_other_with_its_last_line():
    lines = vllm_head() + engine_core_failure("ModuleNotFoundError: No module named 'flash_attn'")
    record = parse_log("\n".join(lines))
    assert (record.error_kind, record.error_message) == ("other", "ModuleNotFoundError: No module named 'flash_attn'")


def test_engine_core_killed_without_traceback():
    lines = vllm_head() + traceback_text(
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
        "{'EngineCore': -9}").split("\n")
    record = parse_log("\n".join(lines))
    assert record.error_kind == "other"
    assert record.error_message.endswith("Failed core proc(s): {'EngineCore': -9}")


# --- SGLang -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("ms", ["", ".123"], ids=["plain", "SGLANG_LOG_MS"])
def test_sglang_gpu_tp2_start(ms):
    parser = SglangLogParser()
    events = feed_all(parser, sglang_gpu_log(ms))
    assert_fields(parser.record, SGLANG_EXPECTED)
    assert [e.data["phase"] for e in events if e.kind == ev.PHASE] == [
        "loading", "profiling", "capturing", "kv_sized", "ready"]
    # uvicorn's "Application startup complete." comes before SGLang is ready
    assert [e.kind for e in events if e.kind != ev.PHASE] == [ev.KV_SIZED, ev.READY]
    assert "fired up" in events[-1].line


def test_sglang_post_capture_sizing_and_capacity_warnings():
    lines = [
        sglang("KV Cache VA upper bound. dtype: torch.bfloat16, #tokens: 90000, KV size: 10.99 GB"),
        sglang("max_total_tokens=200000 is larger than the profiled value 90000. Use the profiled value instead."),
        sglang("max_running_requests was reduced from the requested 4096 to 2048 (per dp worker) due to the "
               "available KV cache capacity."),
        sglang("Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 85000, KV size: 10.38 GB, "
               "avail mem=1.20 GB"),
        sglang("max_total_num_tokens=85000, chunked_prefill_size=-1, max_prefill_tokens=16384, "
               "max_running_requests=2048, context_len=8192, available_gpu_mem=1.20 GB"),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert_fields(record, dict(pool_tokens=85000, kv_gib=10.38, max_total_tokens=200000,
                               profiled_max_total_tokens=90000, max_running_requests_requested=4096,
                               max_running_requests=2048, kv_tokens=85000, chunked_prefill_size_effective=-1))


G1 = ("Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.704. Raise "
      "--mem-fraction-static above 0.784 (minimum viable = 1 - available/pre = 0.7833). If using speculative "
      "decoding, draft weights are now counted.")
G_CASES = [
    ("G1", f"ValueError: {G1}", "weights_leave_no_memory",
     dict(mem_fraction_static_effective=0.704, suggested_mem_fraction_static=0.784,
          minimum_mem_fraction_static=0.7833)),
    ("G2", ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
            "mem_fraction_static=0.3"), "not_enough_memory", dict(mem_fraction_static_effective=0.3)),
    ("G3", "AssertionError: Memory pool size is too small", "pool_too_small", {}),
    ("G4", "AssertionError: max_running_request is zero", "max_running_requests_zero", {}),
    ("G5", ("RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
            "pre_model_load_memory=10.5, local_gpu_memory=22.0, local_gpu_memory * 0.9=19.8"),
     "memory_unbalanced", dict(pre_model_load_gib=10.5, local_gpu_gib=22.0)),
    ("G9", ("ValueError: SWA pool (1024 tokens) cannot hold even one request: the prefill admission floor is "
            "sliding_window_size (4096) + page_size (1). Increase --swa-full-tokens-ratio or the total KV budget."),
     "swa_pool_too_small", dict(swa_tokens=1024, sliding_window_size=4096, page_size=1)),
    ("M2", ("RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed "
            "max_mamba_cache_size=-1 (total_rest_memory=0.01 GB, mamba_cache_per_req=3.11 MB). Try: (1) reduce "
            "--max-running-requests, (2) increase --mem-fraction-static, (3) reduce --speculative-num-draft-tokens, or "
            "(4) use GPUs with more memory."), "state_pool_too_small",
     dict(max_mamba_cache_size=-1, rest_gib=0.01, per_slot_mib=3.11)),
    ("M3", ("RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any requests. "
            "max_mamba_cache_size=2, mamba_ratio=5, resulting max_num_reqs=0. Try: (1) reduce --max-running-requests, "
            "(2) increase --mem-fraction-static, or (3) use GPUs with more memory."), "state_pool_too_small",
     dict(max_mamba_cache_size=2, mamba_ratio=5, max_num_reqs=0)),
    ("CTX", ("ValueError: Warning: User-specified context_length (131072) is greater than the derived context_length "
             "(32768). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length "
             "may differ from max_position_embeddings in the model's config. To allow overriding this maximum, set the "
             "env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"), "max_model_len_exceeds_derived",
     dict(max_model_len=131072, derived_max_model_len=32768)),
    ("OOM", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.", "cuda_oom",
     dict(tried=512.0, unit="MiB", tried_mib=512.0, tried_gib=0.5)),
]



@pytest.mark.parametrize("name,exception_line,kind,data", G_CASES, ids=[c[0] for c in G_CASES])
def test_sglang_startup_error(name, exception_line, kind, data):
    parser = SglangLogParser()
    events = feed_all(parser, sglang_failure(exception_line, ranks=" TP1"))
    record = parser.record
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", kind, exception_line)
    assert record.error_data == data
    assert [e.kind for e in events].count(ev.STARTUP_ERROR) == 1
    if "mem_fraction_static_effective" in data:
        assert record.mem_fraction_static_effective == data["mem_fraction_static_effective"]


def test_sglang_unknown_scheduler_exception_is_other():
    record = parse_log("\n".join(sglang_failure("KeyError: 'rope_scaling'")), "sglang")
    assert (record.error_kind, record.error_message) == ("other", "KeyError: 'rope_scaling'")


def test_sglang_scheduler_killed_is_process_died():
    lines = [sglang(SERVER_ARGS), sglang("Load weight begin. avail mem=22.50 GB"),
             sglang("Subprocess scheduler_0 (pid=4242) crashed with exit code -9. Triggering SIGQUIT for cleanup..."),
             *traceback_text("RuntimeError: Initialization failed. Please see the error messages above.").split("\n")]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.error_kind, record.error_data) == ("process_died",
                                                      dict(process="scheduler_0", pid=4242, exit_code=-9))


def test_sglang_unbalanced_memory_warning_is_not_an_error():
    # With SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0 the same text is only a warning and startup goes on.
    lines = [sglang("The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
                    "pre_model_load_memory=10.5, local_gpu_memory=22.0, local_gpu_memory * 0.9=19.8", ranks=" TP0"),
             *sglang_gpu_log()[2:]]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.status, record.error_kind) == ("ok", None)


@pytest.mark.parametrize(("release", "blocks"), [("0.32.0", 5000), ("0.20.1", 5000), ("0.20.0", None)])
def test_the_block_count_derived_from_the_kv_line_follows_the_releases_capacity_formula(release, blocks):
    # 5,000 blocks of 16 at max_model_len 1,000: a request takes cdiv(1000, 16) = 63 blocks, so the engine logs
    # int(5000 / 63 x 1000) = 79,365 tokens from 0.20.1 (kv_cache_utils.py get_kv_cache_capacity) and the blocks are
    # the smallest count giving them, not 79,365 // 16 = 4,960; 0.20.0 and older log blocks x block size, which no
    # count of 16-token blocks makes 79,365, so none is derived
    lines = [line.replace("0.32.0", release).replace("'max_model_len': 8192", "'max_model_len': 1000")
             .replace("Using max model len 8192", "Using max model len 1000") for line in MRV2_LOG]
    lines = [vllm(V19 % ("GPU", "79,365", "1,000", 5000 / 63), where="kv_cache_utils.py:2327")
             if " KV cache size: " in line else line for line in lines]
    record = parse_log("\n".join(lines) + "\n", "vllm")
    assert (record.engine_version, record.max_model_len, record.block_size) == (release, 1000, 16)
    assert record.kv_tokens == 79_365 and record.num_blocks == blocks
