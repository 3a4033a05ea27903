"""The typed result of parsing one engine startup log: the engine-neutral core every parser fills.

Each engine's parser module extends it with what only that engine states (parsers/vllm.py
`VllmStartupRecord`, parsers/sglang.py `SglangStartupRecord`), and names which of those facts are
results-CSV columns (`CSV_FIELDS`): the results contract (harness/results/columns.py) is the neutral
columns plus the ones the engines declare.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

STATUS_OK = "ok"
STATUS_ENGINE_ERROR = "engine_error"


# Kinds of pool a startup log states (KvPool.kind).
POOL_KV = "kv"  # the model's KV cache (the only one, or one labelled otherwise by the engine)
POOL_FULL = "full"  # a sliding-window model's pool for its full-attention layers
POOL_SWA = "swa"  # ... and for its sliding-window layers
POOL_DRAFT = "draft"  # a speculative-decoding draft model's own KV cache
POOL_STATE = "state"  # a hybrid (Mamba/linear-attention) model's recurrent state: slots, not tokens
POOL_GROUP = "group"  # a KV cache group drawing blocks from the one shared pool (vLLM): its block size only
POOL_WORKER = "worker"  # one worker's own KV line, where the engine logs one per worker (vLLM up to 0.11.0)


@dataclass(frozen=True)
class KvPool:
    """One pool (or group) a startup log states, with its figures as the engine printed them (None: not stated)."""

    kind: str  # one of the POOL_* kinds above
    name: str  # the engine's own label: "SWA KV Cache", "Draft KV Cache", "GPU", "group 1", "Mamba Cache"
    tokens: int | None = None
    gib: float | None = None  # as printed (SGLang's "GB" is GiB; its K and V sizes added)
    block_size: int | None = None  # a vLLM KV cache group's block size
    slots: int | None = None  # a recurrent-state pool's size in requests (SGLang's max_mamba_cache_size)
    # How the engine got `tokens`, where it is a figure derived over the groups rather than the pool's token slots
    # (vLLM with several KV cache groups: parsers/vllm.py says how)
    tokens_derived: str | None = None


def pools_text(pools: list[KvPool] | tuple[KvPool, ...]) -> str | None:
    """The results-CSV text of a record's pools: a JSON list of what each pool states (None: no pool stated)."""
    if not pools:
        return None
    return json.dumps([{k: v for k, v in dataclasses.asdict(p).items() if v is not None} for p in pools],
                      separators=(",", ":"))


@dataclass
class StartupRecord:
    """Every memory-sizing fact one startup log states that any engine may state; None where the log is silent.

    `status` is "ok" once the KV sizing line was logged (or the server came up) with no startup error,
    "engine_error" once a startup error was, and None otherwise (the log ended before
    either: the launcher decides between crashed and timeout). GiB figures are as the
    engine printed them (SGLang's "GB" is GiB).
    """

    # Record fields that are also results-CSV columns (harness/results/columns.py), same names; an engine's
    # record adds its own.
    CSV_FIELDS: ClassVar[tuple[str, ...]] = (
        "engine", "engine_version", "status", "error_kind", "error_message", "kv_tokens", "kv_gib", "num_blocks",
        "block_size", "max_concurrency", "max_model_len", "chunked_prefill_size_effective", "weights_gib",
        "cuda_graph_gib",
    )

    # --- results-CSV columns -------------------------------------------------------
    engine: str | None = None
    engine_version: str | None = None
    status: str | None = None
    status_note: str | None = None  # why status is None: what the log ends before
    error_kind: str | None = None
    error_message: str | None = None
    kv_tokens: int | None = None  # vLLM: the "KV cache size" line; SGLang: max_total_num_tokens
    kv_gib: float | None = None  # vLLM: available KV memory; SGLang: K + V pool size
    num_blocks: int | None = None  # logged, or kv_tokens // block_size
    block_size: int | None = None  # vLLM block size; SGLang page_size
    max_concurrency: float | None = None
    max_model_len: int | None = None  # vLLM: as on the KV line; SGLang: context_len
    chunked_prefill_size_effective: int | None = None  # vLLM: max_num_batched_tokens budget
    weights_gib: float | None = None
    cuda_graph_gib: float | None = None

    # --- outcome details --------------------------------------------------------------
    error_data: dict[str, Any] = field(default_factory=dict)  # the startup error's numbers
    later_failure: str | None = None  # a failure after the server was ready (status stays ok)
    later_failure_kind: str | None = None
    # Where in the startup the failure's traceback was raised, from its frames' function names (FAILED_DURING in
    # parsers/base.py): "loading", "profiling", "kv_pool", "cuda_graph_capture", "warmup"; None: no such frame.
    failed_during: str | None = None
    stop_signal: str | None = None  # the engine was told to stop (SIGINT/SIGTERM) before it failed or ended
    phase: str | None = None  # last startup phase reached
    t_kv_s: float | None = None  # seconds to the KV line / to ready, when lines carry relative times
    t_ready_s: float | None = None
    format_release: str | None = None  # the release whose format table read this log (nearest known one)
    rank_note: str | None = None  # how ranks' figures were combined, when more than one rank stated them
    kv_tokens_min_rank: int | None = None  # the smallest rank's KV tokens, where ranks differ (kv_tokens is rank 0's)
    # Every pool (and vLLM KV cache group) the log states for the rank whose figures the record holds, in the order
    # printed; kv_tokens and kv_gib are the engine's total over them, as each release computes it (the parsers say
    # how). In the results CSV as `kv_pools` (pools_text).
    kv_pools: list[KvPool] = field(default_factory=list)

    # --- model and parallelism ----------------------------------------------------------
    model: str | None = None
    device: str | None = None  # "gpu" or "cpu"
    dtype: str | None = None
    kv_dtype: str | None = None
    tp_size: int | None = None
    # pipeline stages: each holds its own layers and prints its own memory and pool lines, and the engine's pool is
    # one for all of them (vLLM's engine config and non-default args' pipeline_parallel_size, SGLang's pp_size)
    pp_size: int | None = None

    # --- timings ------------------------------------------------------------------------
    weights_load_seconds: float | None = None
    graph_capture_seconds: float | None = None
    init_engine_seconds: float | None = None  # vLLM "init engine (profile, create kv cache, warmup model)"
    compilation_seconds: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def csv_values(self) -> dict[str, Any]:
        """Only the fields that are results-CSV columns (this engine's record's), and the pools as their text."""
        return {**{name: getattr(self, name) for name in self.CSV_FIELDS}, "kv_pools": pools_text(self.kv_pools)}


@functools.cache
def field_kinds(record_type: type[StartupRecord]) -> dict[str, type]:
    """Each field of a record type and the type a logged text is coerced to for it."""
    # Annotations are strings here (postponed evaluation); the base type is enough.
    kinds = {}
    for f in dataclasses.fields(record_type):
        annotation = str(f.type)
        kinds[f.name] = next((t for t in (int, float, bool, dict) if t.__name__ in annotation), str)
    return kinds
