"""The typed result of parsing one engine startup log."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

# Record fields that are also results-CSV columns (harness/results/columns.py), same names.
CSV_FIELDS = (
    "engine",
    "engine_version",
    "status",
    "error_kind",
    "error_message",
    "kv_tokens",
    "kv_gib",
    "num_blocks",
    "block_size",
    "max_concurrency",
    "max_model_len",
    "estimated_max_model_len",
    "mem_fraction_static_effective",
    "chunked_prefill_size_effective",
    "max_running_requests",
    "max_prefill_tokens",
    "context_len",
    "weights_gib",
    "cuda_graph_gib",
    "suggested_kv_cache_memory_bytes",
)

STATUS_OK = "ok"
STATUS_ENGINE_ERROR = "engine_error"


@dataclass
class StartupRecord:
    """Every memory-sizing fact one startup log states; None where the log is silent.

    `status` is "ok" once the KV sizing line was logged (or the server came up) with no startup error,
    "engine_error" once a startup error was, and None otherwise (the log ended before
    either: the launcher decides between crashed and timeout). GiB figures are as the
    engine printed them (SGLang's "GB" is GiB).
    """

    # --- results-CSV columns -------------------------------------------------------
    engine: str | None = None
    engine_version: str | None = None
    status: str | None = None
    error_kind: str | None = None
    error_message: str | None = None
    kv_tokens: int | None = None  # vLLM: the "KV cache size" line; SGLang: max_total_num_tokens
    kv_gib: float | None = None  # vLLM: available KV memory; SGLang: K + V pool size
    num_blocks: int | None = None  # logged, or kv_tokens // block_size
    block_size: int | None = None  # vLLM block size; SGLang page_size
    max_concurrency: float | None = None
    max_model_len: int | None = None  # vLLM: as on the KV line; SGLang: context_len
    estimated_max_model_len: int | None = None  # from vLLM's "max_model_len too large" error
    mem_fraction_static_effective: float | None = None
    chunked_prefill_size_effective: int | None = None  # vLLM: max_num_batched_tokens budget
    max_running_requests: int | None = None
    max_prefill_tokens: int | None = None
    context_len: int | None = None
    weights_gib: float | None = None
    cuda_graph_gib: float | None = None
    suggested_kv_cache_memory_bytes: int | None = None  # vLLM: "--kv-cache-memory=" to fit the requested budget

    # --- outcome details --------------------------------------------------------------
    error_data: dict[str, Any] = field(default_factory=dict)  # the startup error's numbers
    later_failure: str | None = None  # a failure after the server was ready (status stays ok)
    later_failure_kind: str | None = None
    stop_signal: str | None = None  # the engine was told to stop (SIGINT/SIGTERM) before it failed or ended
    phase: str | None = None  # last startup phase reached
    t_kv_s: float | None = None  # seconds to the KV line / to ready, when lines carry relative times
    t_ready_s: float | None = None
    format_release: str | None = None  # the release whose format table read this log (nearest known one)
    rank_note: str | None = None  # how ranks' figures were combined, when more than one rank stated them
    kv_tokens_min_rank: int | None = None  # the smallest rank's KV tokens, where ranks differ (kv_tokens is rank 0's)

    # --- model and parallelism ----------------------------------------------------------
    model: str | None = None
    device: str | None = None  # "gpu" or "cpu"
    dtype: str | None = None
    kv_dtype: str | None = None
    tp_size: int | None = None

    # --- timings ------------------------------------------------------------------------
    weights_load_seconds: float | None = None
    graph_capture_seconds: float | None = None
    init_engine_seconds: float | None = None  # vLLM "init engine (profile, create kv cache, warmup model)"
    compilation_seconds: float | None = None

    # --- vLLM memory accounting -----------------------------------------------------------
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: int | None = None  # --kv-cache-memory-bytes as given (or a startup plan's)
    max_num_batched_tokens: int | None = None
    model_runner: str | None = None  # "v1" or "v2" (Model Runner V2)
    autofit: str | None = None  # "fits", "reduced" or "attention_free" (max_model_len -1/auto)
    autofit_from_len: int | None = None
    num_gpu_blocks_override: int | None = None
    initial_free_gib: float | None = None
    total_memory_gib: float | None = None
    requested_memory_gib: float | None = None
    non_kv_gib: float | None = None  # consumed by weights + non-torch (+ non-KV usages on CPU)
    peak_activation_gib: float | None = None
    cuda_graph_estimate_gib: float | None = None
    cuda_graph_profile_gib: float | None = None  # Model Runner V2's profiling capture, before the KV line
    gpu_memory_utilization_equivalent: float | None = None  # without CUDA-graph profiling
    gpu_memory_utilization_suggested: float | None = None  # to keep the KV size of older releases
    suggested_kv_cache_memory_bytes_gpu_limit: int | None = None  # "--kv-cache-memory=" to fill the device

    # --- SGLang memory accounting ---------------------------------------------------------
    available_mem_gib: float | None = None  # scheduler summary: available_gpu_mem / available_cpu_mem
    avail_mem_before_load_gib: float | None = None
    avail_mem_after_load_gib: float | None = None
    avail_mem_after_pool_gib: float | None = None
    pool_tokens: int | None = None  # "#tokens" of the KV pool (per rank)
    draft_kv_gib: float | None = None  # a speculative-decoding draft model's own KV pool
    draft_pool_tokens: int | None = None
    max_total_tokens: int | None = None  # --max-total-tokens as given
    profiled_max_total_tokens: int | None = None  # when --max-total-tokens was above what fits
    max_running_requests_requested: int | None = None  # when the engine reduced it
    cuda_graph_decode_backend: str | None = None
    cuda_graph_decode_max_bs: int | None = None
    cuda_graph_prefill_backend: str | None = None
    cuda_graph_prefill_max_bs: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def csv_values(self) -> dict[str, Any]:
        """Only the fields that are results-CSV columns."""
        return {name: getattr(self, name) for name in CSV_FIELDS}


def _field_kinds() -> dict[str, type]:
    # Annotations are strings here (postponed evaluation); the base type is enough.
    kinds = {}
    for f in dataclasses.fields(StartupRecord):
        annotation = str(f.type)
        kinds[f.name] = next((t for t in (int, float, bool, dict) if t.__name__ in annotation), str)
    return kinds


FIELD_KINDS: dict[str, type] = _field_kinds()
