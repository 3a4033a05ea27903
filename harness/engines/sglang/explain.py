"""SGLang's part of `compare --explain`: the release rules its releases differ by (each with its source), the parts
of its reserve each rule acts through, and the split of a KV change into SGLang's pool terms
(pool = fraction x free memory before loading - what loading took - what SGLang took after loading, before the
pool, in cells, page-aligned, capped: formulas.pool_tokens). The last one is on no line: each side's own log pins it
(its #tokens where it started, its error's minimum fraction where the pool would have been <= 0), checked against
that log's other figures, its change between the sides bounded by the predictor's estimate of it and the logs'
printed precision (the rest is residual); else it is the predictor's estimate, and what it missed stays in the
residual."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.engines.explaining import (
    LOG,
    PINNED,
    PREDICTOR,
    Factor,
    KvSplit,
    ReleaseRule,
    SideFacts,
    chain,
    changed_rules,
)
from harness.engines.sglang import formulas as sg
from harness.engines.sglang.releases import (
    CHUNK_16384_ABOVE_180_GB,
    CHUNK_BY_35_160_GIB,
    CPU_DECODE_MAX_BS_FROM_TORCH_COMPILE,
    CPU_FREE_PER_NUMA_NODE,
    CPU_HAS_A_SIZE,
    CPU_MEMORY_FROM_MEMINFO_CAPPED,
    CUDA_GRAPH_MAX_BS_FLAG,
    DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING,
    DECODE_RESERVE_FOLLOWS_GRAPH,
    GRAPH_MAX_BS_80_AT_TP4,
    GRAPH_MAX_BS_LEFT_TO_RUNNER,
    GRAPH_MAX_BS_SMALL_CARD_35_GIB,
    LONGER_CONTEXT_ALLOWED_BY_DEFAULT,
    MRR_ESTIMATE_AFTER_CAP_UP_TO_0_4_1,
    MRR_ESTIMATE_FROM_CAPPED_POOL,
    MRR_GIVEN_CAPPED_AT_ESTIMATE,
    MRR_GIVEN_CAPPED_AT_HALF_POOL,
    MRR_ZERO_CHECKED,
    NO_SIZE_FALLBACK_095,
    POOL_PAGE_ROUNDING,
    PREFILL_BREAKABLE_ON_CUDA,
    PREFILL_CAP_CONTEXT_LENGTH,
    PREFILL_CAPS_TOTAL_TOKENS,
    PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH,
    PREFILL_OFF_ON_EVERY_NON_CUDA_DEVICE,
    PREFILL_PP_CAP_8192,
    PREFILL_RESERVE_BY_DEFAULT,
    REQ_POOL_ONE_EXTRA_SLOT,
    TOO_SMALL_CHECKS_INPUT_LEN,
    WEIGHTS_LEAVE_NO_MEMORY_ERROR,
    XPU_RESERVE,
    default_fraction_rule,
    modelled_release,
    prefill_off_with_pp,
    tier_below_35_gib,
)
from harness.predict.host import LOGGED_GIB_HALF_STEP
from harness.predict.model import GiB
from harness.predict.prediction import Calibration
from parsers.record import POOL_KV

FRACTION = "mem_fraction_static_effective"
# The reserve's parts (MiB) a default fraction keeps back; a rule is named for the fraction only where its part moved.
DECODE, PREFILL, ACTIVATION = "decode graph", "prefill graph", "activation and the rest"
NO_SIZE = "no device size"

# The same rules releases.py holds, as `compare --explain` names them; the sources are releases.py's.
RELEASE_RULES = (
    ReleaseRule("the < 35 GiB tier", "(chunk, decode max_bs at tp < 4, at tp >= 4) of cards (or hosts) under 35 GiB",
                "0.5.3 sglang/srt/server_args.py:574-586; 0.5.4.post1 :669-681; 0.5.19 "
                "sglang/srt/arg_groups/memory_hook.py:74-87", (FRACTION, "chunked_prefill_size_effective"),
                value=tier_below_35_gib, parts=(ACTIVATION, DECODE, PREFILL)),
    ReleaseRule("CPU decode max_bs from torch_compile_max_bs", "the CPU reserve's decode max_bs is "
                "torch_compile_max_bs (32), not the memory tier's", "0.5.10 sglang/srt/server_args.py:1231-1252",
                (FRACTION,), CPU_DECODE_MAX_BS_FROM_TORCH_COMPILE, devices=("cpu",), parts=(DECODE,)),
    ReleaseRule("decode graph reserve follows the graph", "the decode graph's max_bs x 2 MiB is reserved only while "
                "the decode graph is on (before: also with --disable-cuda-graph)",
                "0.5.15 sglang/srt/server_args.py:3639; 0.5.14 :3285", (FRACTION,), DECODE_RESERVE_FOLLOWS_GRAPH,
                parts=(DECODE,)),
    ReleaseRule("decode max_bs capped by max_running_requests", "the default decode graph max_bs is capped at "
                "--max-running-requests", "0.5.22 sglang/srt/arg_groups/memory_hook.py:83, :182-188", (FRACTION,),
                DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING, parts=(DECODE,)),
    ReleaseRule("prefill graph reserve by default", "a prefill graph's buckets x 8 MiB are reserved by default",
                "0.5.10 sglang/srt/server_args.py:1078-1139; 0.5.9 :1043-1046", (FRACTION,), PREFILL_RESERVE_BY_DEFAULT,
                parts=(PREFILL,)),
    ReleaseRule("prefill graph off with --disable-cuda-graph", "--disable-cuda-graph turns the prefill graph off too",
                "0.5.14 sglang/srt/server_args.py:2942-2944, :3009-3011", (FRACTION,),
                PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH, parts=(PREFILL,)),
    ReleaseRule("prefill graph off on every non-CUDA device", "no default prefill graph off CUDA",
                "0.5.22 cuda_graph_config.py:119-123; 0.5.19 cuda_graph_hook.py:169-190", (FRACTION,),
                PREFILL_OFF_ON_EVERY_NON_CUDA_DEVICE, devices=("cpu", "xpu"), parts=(PREFILL,)),
    ReleaseRule("breakable prefill graph on CUDA", "the default CUDA prefill graph is `breakable`",
                "0.5.15 cuda_graph_config.py:95-101", (FRACTION,), PREFILL_BREAKABLE_ON_CUDA, devices=("cuda",),
                parts=(PREFILL,)),
    ReleaseRule("prefill buckets capped by max_total_tokens", "prefill max_bs capped by max_total_tokens (and 4096 "
                "for llama-2)", "0.5.10 sglang/srt/server_args.py:1263-1275", (FRACTION,), PREFILL_CAPS_TOTAL_TOKENS,
                parts=(PREFILL,)),
    ReleaseRule("prefill buckets capped by --context-length", "prefill max_bs capped by --context-length",
                "0.5.13 sglang/srt/server_args.py:1582-1585; gone in 0.5.17 :4733-4745", (FRACTION,),
                PREFILL_CAP_CONTEXT_LENGTH, parts=(PREFILL,)),
    ReleaseRule("prefill graph off with pp > 1", "pipeline parallelism turns the default prefill graph off",
                "0.5.19 cuda_graph_hook.py:122-133; kept in 0.5.15 server_args.py:3341-3377", (FRACTION,),
                value=prefill_off_with_pp, parts=(PREFILL,)),
    ReleaseRule("explicit prefill graph capped at 8192 with pp > 1", "an explicit breakable prefill graph under "
                "pp > 1 is capped at 8192 tokens", "0.5.19 memory_hook.py:196-204", (FRACTION,), PREFILL_PP_CAP_8192,
                parts=(PREFILL,)),
    ReleaseRule("XPU reserve", "2 GiB more reserve on XPU", "0.5.20 memory_hook.py:315", (FRACTION,), XPU_RESERVE,
                devices=("xpu",)),
    ReleaseRule("fraction without a device size", "the fraction when no device size is read",
                "0.5.19 sglang/srt/arg_groups/memory_hook.py:266; 0.5.22 memory_hook.py:329", (FRACTION,),
                NO_SIZE_FALLBACK_095, value=lambda release: 0.95 if release in NO_SIZE_FALLBACK_095 else 0.88,
                parts=(NO_SIZE,)),
    ReleaseRule("CPU capacity from /proc/meminfo", "the CPU backend's device size: the smallest NUMA node's "
                "MemTotal, then /proc/meminfo capped by the container, per node",
                "0.5.22 sglang/srt/utils/common.py:862; 0.5.23 common.py:911", (FRACTION, "device_total_mib"),
                CPU_MEMORY_FROM_MEMINFO_CAPPED, devices=("cpu",), parts=("device size",)),
    ReleaseRule("max_running_requests capped at half the pool", "a given --max-running-requests capped at tokens // 2",
                "0.5.14 model_runner_kv_cache_mixin.py:981-994", ("max_running_requests",),
                MRR_GIVEN_CAPPED_AT_HALF_POOL),
    ReleaseRule("max_running_requests capped at the estimate", "a given --max-running-requests capped at the "
                "2,048-4,096 estimate", "0.5.10 model_runner_kv_cache_mixin.py:840-851", ("max_running_requests",),
                MRR_GIVEN_CAPPED_AT_ESTIMATE),
    ReleaseRule("max_running_requests estimated from the capped pool", "the estimate is made from the pool after "
                "the --max-total-tokens cap", "0.5.10 model_runner_kv_cache_mixin.py:840-851; 0.5.3 "
                "model_runner.py:1431-1441", ("max_running_requests",), MRR_ESTIMATE_FROM_CAPPED_POOL),
    ReleaseRule("weights leave no memory: own error", "weights that leave no pool are \"Loaded weights leave no GPU "
                "memory\" (before: \"Not enough memory\")", "0.5.14 model_runner_kv_cache_mixin.py:103-117",
                ("error_kind",), WEIGHTS_LEAVE_NO_MEMORY_ERROR),
    ReleaseRule("pool too small checks the input length", "\"Memory pool size is too small\" also for "
                "max_req_input_len <= 0", "0.5.13 tp_worker.py:309-311", ("error_kind",), TOO_SMALL_CHECKS_INPUT_LEN),
    # 0.4.0-0.5.2 (releases.py holds each rule's reading)
    ReleaseRule("default fraction", "where the default mem_fraction_static comes from: the reserve formula, or "
                "before 0.5.3 a table by card size and tp", "0.5.3 sglang/srt/server_args.py:637-674; 0.5.2 "
                "server_args.py:452-498; 0.4.7 :253-283; 0.4.6 :224-238; 0.4.5 :233-243", (FRACTION,),
                value=default_fraction_rule),
    ReleaseRule("chunk by 35/160 GiB", "the default chunked_prefill_size by 35 and 160 GiB (4096 without a size; "
                "before: by 25,000 MiB)", "0.4.8 sglang/srt/server_args.py:318-327; 0.4.6 :241-245",
                ("chunked_prefill_size_effective",), CHUNK_BY_35_160_GIB),
    ReleaseRule("chunk 16384 above 180,000 MiB", "the default chunk is 16384 on cards above 180,000 MiB",
                "0.4.7 sglang/srt/server_args.py:286-295", ("chunked_prefill_size_effective",),
                CHUNK_16384_ABOVE_180_GB),
    ReleaseRule("small-card graph max_bs under 35 GiB", "the small-card cuda_graph_max_bs (8|80) below 35 GiB "
                "(before: 25,000 MiB)", "0.4.8 sglang/srt/server_args.py:331-337", ("cuda_graph_max_bs",),
                GRAPH_MAX_BS_SMALL_CARD_35_GIB),
    ReleaseRule("--cuda-graph-max-bs read", "--cuda-graph-max-bs sets the decode graphs' max batch (after: only "
                "--cuda-graph-max-bs-decode)", "0.5.19 sglang/srt/server_args.py:3928-3935", ("cuda_graph_max_bs",),
                CUDA_GRAPH_MAX_BS_FLAG),
    ReleaseRule("graph max_bs left to the graph runner", "cuda_graph_max_bs on larger cards is the graph runner's "
                "(before: 160)", "0.4.6 sglang/srt/server_args.py:260-266; 0.4.5 :260-268", ("cuda_graph_max_bs",),
                GRAPH_MAX_BS_LEFT_TO_RUNNER),
    ReleaseRule("graph max_bs 80 at tp >= 4", "small cards capture up to 80 at tp >= 4 (before: 8 at any tp)",
                "0.4.1 sglang/srt/server_args.py:190-196; 0.4.0 :178-182", ("cuda_graph_max_bs",),
                GRAPH_MAX_BS_80_AT_TP4),
    ReleaseRule("CPU device size read", "SGLang reads a CPU size for its default fraction (before: none, 0.88)",
                "0.5.2 sglang/srt/utils.py:1406-1419", (FRACTION,), CPU_HAS_A_SIZE, devices=("cpu",)),
    ReleaseRule("CPU free memory per NUMA node", "the CPU pool's free memory is psutil's available / NUMA nodes "
                "(before: the whole host's)", "0.5.2 sglang/srt/utils.py:435-439; 0.5.1 utils.py:413-415",
                ("kv_tokens",), CPU_FREE_PER_NUMA_NODE, devices=("cpu",)),
    ReleaseRule("pool rounded to pages", "the pool is rounded down to whole pages", "0.4.4 model_runner.py:708-712",
                ("kv_tokens",), POOL_PAGE_ROUNDING),
    ReleaseRule("request pool one slot larger", "the request pool holds the estimate + 1 (max_running_requests "
                "2049)", "0.4.6 model_runner.py:795; 0.4.7 :926", ("max_running_requests",), REQ_POOL_ONE_EXTRA_SLOT),
    ReleaseRule("max_running_requests zero checked", "max_running_requests of zero is its own error",
                "0.4.6 tp_worker.py:119", ("error_kind",), MRR_ZERO_CHECKED),
    ReleaseRule("max_running_requests estimated after the cap (0.4.0-0.4.1)", "the estimate is made from the pool "
                "after the --max-total-tokens cap", "0.4.1 model_runner.py:519-535; 0.4.2 :585-613",
                ("max_running_requests",), MRR_ESTIMATE_AFTER_CAP_UP_TO_0_4_1),
    ReleaseRule("longer context allowed by default", "a --context-length above the model's is allowed unless "
                "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is false", "0.4.4 sglang/srt/configs/model_config.py:83-85; "
                "0.5.1 :176", ("error_kind",), LONGER_CONTEXT_ALLOWED_BY_DEFAULT),
)



def reserve_parts(side: SideFacts) -> dict[str, float]:
    """The predictor's reserve on this side, in MiB, split where release rules act: decode graph, prefill graph,
    and the activation tokens with the constant and parallel terms (empty for a fraction that was given)."""
    p = side.prediction
    if p is not None and p.gpu_total_mib is None:
        return {NO_SIZE: 1.0}
    reserved = getattr(p, "reserved_mib", None)
    if p is None or reserved is None:
        return {}
    decode_on = bool(p.graph_sizes.get("decode"))
    decode = 0.0
    if p.cuda_graph_max_bs and (decode_on or modelled_release(side.release) not in DECODE_RESERVE_FOLLOWS_GRAPH):
        decode = p.cuda_graph_max_bs * 2.0
    prefill = getattr(p, "prefill_reserve_mib", None)
    if prefill is None:
        prefill = len(p.graph_sizes.get("prefill") or []) * 8.0
    return {DECODE: decode, PREFILL: prefill, ACTIVATION: reserved - decode - prefill,
            "device size": p.gpu_total_mib or 0.0}


def fraction_rules(before: SideFacts, after: SideFacts) -> list[ReleaseRule]:
    """The changed rules that move the default fraction through a part of the reserve that did move."""
    parts = reserve_parts(before), reserve_parts(after)
    moved = {name for name in parts[0] if parts[0].get(name) != parts[1].get(name)}
    return [r for r in changed_rules(RELEASE_RULES, before.release, after.release, before.device, FRACTION)
            if not r.parts or set(r.parts) & moved]


# The predictor's startup errors as the parser names them, by how their reasons begin: size_pool's codes
# (harness/engines/sglang/formulas.py; G9: harness/engines/sglang/swa_pools.py; M1-M3:
# harness/engines/sglang/mamba_pools.py) and the context-length check (harness/engines/sglang/predict.py).
PREDICTED_ERRORS = {"G1:": "weights_leave_no_memory", "G2:": "not_enough_memory", "G3:": "pool_too_small",
                    "G4:": "max_running_requests_zero", "G9:": "swa_pool_too_small",
                    "M1:": "mamba_radix_cache_unsupported", "M2:": "state_pool_too_small",
                    "M3:": "state_pool_too_small", "context_length (": "max_model_len_exceeds_derived"}


def predicted_outcome(prediction) -> str | None:
    """The outcome as compare writes it ("ok", "engine_error/KIND") that the predictor gives (None: not one it
    names)."""
    if prediction.will_start:
        return "ok"
    reason = prediction.reason or ""
    kind = next((kind for start, kind in PREDICTED_ERRORS.items() if reason.startswith(start)), None)
    return f"engine_error/{kind}" if kind else None


def reserve_notes(before: SideFacts, after: SideFacts) -> list[str]:
    """The predictor's reserve parts that moved, in MiB (the fraction is 1 - reserve / device size, rounded)."""
    parts = reserve_parts(before), reserve_parts(after)
    moved = [f"{name} {parts[0][name]:,.0f} -> {parts[1][name]:,.0f} MiB" for name in (DECODE, PREFILL, ACTIVATION)
             if name in parts[0] and name in parts[1] and parts[0][name] != parts[1][name]]
    return [f"the predictor's reserve: {'; '.join(moved)}"] if moved else []


def _fraction(side: SideFacts) -> tuple[float | None, str]:
    for value in (side.number(FRACTION), side.logged(FRACTION), side.number("mem_fraction_static")):
        if value is not None:
            return value, LOG
    return getattr(side.prediction, "mem_fraction_static", None), PREDICTOR


@dataclass(frozen=True)
class FreeBeforeLoad:
    """GiB free as SGLang began loading, where it comes from, and how far off it may be (GiB)."""

    gib: float | None
    source: str
    half_step: float


def _free_before_load(side: SideFacts) -> FreeBeforeLoad:
    """GiB free as SGLang began loading: the row's reading where it is the harness's exact figure of what SGLang
    logged (engine_free_mib rounds to the logged one: harness/engines/sglang/reading.py), else its log (two
    decimals), else the predictor's base."""
    logged = side.logged("avail_mem_before_load_gib")
    row = side.number("engine_free_mib")
    # where no reading of the harness rounds to the logged figure, the row keeps the logged figure itself
    # (harness/predict/host.py as_logged_mib): that is the log's two decimals, not a finer reading
    copied = row is not None and logged is not None and math.isclose(row, logged * 1024, abs_tol=1e-6)
    if row is not None and not copied and (logged is None or round(row / 1024, 2) == logged):
        return FreeBeforeLoad(row / 1024, LOG, 0.0)
    if logged is not None:
        return FreeBeforeLoad(logged, LOG, LOGGED_GIB_HALF_STEP)
    p = side.prediction
    if p is None:
        return FreeBeforeLoad(None, PREDICTOR, 0.0)
    base = p.gpu_free_mib if p.gpu_free_mib is not None else p.gpu_total_mib
    return FreeBeforeLoad(None if base is None else base / 1024, PREDICTOR, 0.0)


def _taken_by_loading(side: SideFacts) -> tuple[float, str, str]:
    """(GiB the load took, source, what the log states of it: "weights" - "Load weight end. ... mem usage=N GB",
    SGLang's own before - after of the load, one two-decimal figure (0.5.22 model_runner.py:1253, :1340-1354),
    else the row's weights -, "readings" - its free memory before and after loading, two such figures -, or "" -
    nothing: the predictor's weights)."""
    p = side.prediction
    usage = side.logged("weights_gib")
    if usage is None:
        usage = side.number("weights_gib")
    if usage is not None:
        return usage, LOG, "weights"
    before, after = side.logged("avail_mem_before_load_gib"), side.logged("avail_mem_after_load_gib")
    if before is not None and after is not None:
        return before - after, LOG, "readings"
    return ((p.weights_gib or 0.0) if p is not None else 0.0), PREDICTOR, ""


def _loading_half_step(taken_from: str) -> float:
    """How far the logged figures of what loading took may be off (GiB): one two-decimal figure, or two."""
    return {"readings": 2 * LOGGED_GIB_HALF_STEP, "weights": LOGGED_GIB_HALF_STEP}.get(taken_from, 0.0)


def _hidden_gib(fraction: float, free_half: float, taken_from: str) -> float:
    """What one side's two-decimal GB figures can hide of its pool (f x pre - taken), GiB: with both readings
    logged the pool is post - (1 - f) x pre, each reading within half a step."""
    if free_half and taken_from == "readings":
        return LOGGED_GIB_HALF_STEP * (2 - fraction)
    return free_half * fraction + _loading_half_step(taken_from)


# The memory SGLang takes between the load's end and sizing its pool (no line states it), and where one side's
# value comes from: solved from its logged pool size, or from its "leave no memory" error's minimum fraction.
AFTER_LOAD = "taken after loading, before the pool"
LOADING = "taken while loading (weights and more)"
PINNED_BY_TOKENS = PINNED.format("#tokens")
PINNED_BY_ERROR = PINNED.format("the error's minimum fraction")
# The release's formula the pinned values are solved from, and the reading it sizes from (not the logged one).
POOL_FORMULA = ("pool = free before loading x f - what loading took - what went after it (0.5.22 "
                "mem_cache/kv_cache_configurator.py:2671-2741, 0.5.23 :2990-3060 _profile_available_bytes)")
PRE_READING = ("SGLang's own pre-load reading (0.5.22 distributed/bootstrap.py:201, 0.5.23 :207) is not its logged "
               "one (0.5.22 model_runner.py:1255, 0.5.23 :1274): a pinned value also holds (1 - f) x what went "
               "between the two")
# The error's minimum fraction is printed with 4 decimals (0.5.22 kv_cache_configurator.py:2731).
ERROR_FRACTION_HALF_STEP = 0.00005


@dataclass(frozen=True)
class AfterLoad:
    """One side's memory taken after loading, before the pool (GiB): its value, its source (a PINNED label or
    the predictor's estimate), what the logs' rounding leaves of it that moves tokens between the terms (GiB), and
    a note (the bound a failure sets, or why the log does not pin it)."""

    gib: float
    source: str
    uncertainty_gib: float = 0.0
    note: str | None = None


def _estimate_gib(side: SideFacts) -> float:
    p = side.prediction
    estimates = p.estimates if p is not None else {}
    between = estimates.get("L") or estimates.get("O") or estimates.get("fitted")
    return between.gib if between is not None else 0.0


def after_load(side: SideFacts, fraction: float, free: FreeBeforeLoad, loading: float,
               loading_half_gib: float = 0.0) -> AfterLoad:
    """What went between the load's end and the pool on this side: where it started, solved from its own
    #tokens (pool = free x f - loading - it, each side's own figures; checked against its K+V size and its
    "Memory pool end" reading, and no larger a pool than the fraction allows); where the pool would have been
    <= 0, solved from the error's minimum fraction (1 - available/pre); else the predictor's estimate, with the
    bound a failure sets."""
    estimate = _estimate_gib(side)
    p = side.prediction
    if free.gib is None or p is None or not p.kv_bytes_per_token or free.source != LOG:
        return AfterLoad(estimate, PREDICTOR)
    cell, page = float(p.kv_bytes_per_token), int(side.number("block_size") or 1)
    release = side.release
    if side.row.get("status") == "ok":
        tokens = side.logged("pool_tokens") or side.number("kv_tokens")
        if tokens is None:
            return AfterLoad(estimate, PREDICTOR)
        cap = side.number("max_total_tokens")
        if cap is not None and tokens >= int(cap) // page * page:
            most = free.gib * fraction - loading - tokens * cell / GiB
            return AfterLoad(estimate, PREDICTOR, note=f"{release}: its pool is max_total_tokens ({int(cap):,}), "
                             f"which bounds it only: <= {most:.4f} GiB")
        kinds = {pool.kind for pool in getattr(side.record, "kv_pools", None) or ()}
        if kinds - {POOL_KV}:
            return AfterLoad(estimate, PREDICTOR, note=f"{release}: pools {', '.join(sorted(kinds))}: "
                                                       "one pool's formula does not pin it")
        pool_gib = tokens * cell / GiB
        value = free.gib * fraction - loading - (tokens + page / 2) * cell / GiB
        off = _inconsistent(side, tokens, pool_gib, value, fraction, free, page * cell / GiB)
        if off:
            return AfterLoad(estimate, PREDICTOR, note=f"{release}: not pinned by #tokens {int(tokens):,}: {off}")
        # the solved value holds the rounding of every figure it is solved from: f x the free reading's, what
        # loading took (its logged figure's), half a page
        return AfterLoad(value, PINNED_BY_TOKENS, fraction * free.half_step + loading_half_gib + page * cell / 2 / GiB)
    kind = side.row.get("error_kind")
    if kind not in ("weights_leave_no_memory", "not_enough_memory"):
        return AfterLoad(estimate, PREDICTOR)
    least = free.gib * fraction - loading  # the pool would be <= 0
    minimum = (side.record.error_data or {}).get("minimum_mem_fraction_static") if side.record else None
    if isinstance(minimum, (int, float)):
        if minimum < fraction - ERROR_FRACTION_HALF_STEP:
            return AfterLoad(estimate, PREDICTOR, note=f"{release}: not pinned by its error: a minimum fraction "
                             f"{minimum} below the fraction {fraction} is no pool <= 0 by the release's formula")
        return AfterLoad(minimum * free.gib - loading, PINNED_BY_ERROR,
                         LOGGED_GIB_HALF_STEP + free.half_step + ERROR_FRACTION_HALF_STEP * free.gib,
                         note=f"{release}: its error's minimum fraction {minimum} = 1 - available/pre")
    return AfterLoad(estimate, PREDICTOR, note=f"{release}: its failure (the pool would be <= 0) bounds it: >= "
                                               f"{least:.4f} GiB")


def _inconsistent(side: SideFacts, tokens: float, pool_gib: float, value: float, fraction: float,
                  free: FreeBeforeLoad, page_gib: float) -> str | None:
    """Why this side's #tokens cannot pin the term (None: its logs agree): K + V size against #tokens x cell,
    the pool against what the free memory fell by from the load's end to the pool's end, and a pool no larger than
    the fraction allows (the term >= 0, to the readings' rounding)."""
    half = LOGGED_GIB_HALF_STEP
    kv = side.logged("kv_gib")
    if kv is not None and abs(kv - pool_gib) > 2 * half + 1e-9:
        return (f"K + V size {kv:.2f} GB, but #tokens x {int(pool_gib * GiB / tokens):,} B is {pool_gib:.4f} GiB "
                "(the cell is not the predictor's)")
    loaded, pooled = side.logged("avail_mem_after_load_gib"), side.logged("avail_mem_after_pool_gib")
    if loaded is not None and pooled is not None and pool_gib > loaded - pooled + 2 * half + 1e-9:
        return (f"the pool ({pool_gib:.4f} GiB) is more than the free memory fell by from the load's end to "
                f"\"Memory pool end\" ({loaded:.2f} -> {pooled:.2f} GB)")
    if value < -(half + (1 - fraction) * free.half_step + page_gib):
        return (f"the pool is {-value:.4f} GiB larger than free before loading x {fraction} less what loading took "
                "allows (not the release's formula)")
    return None


def split_kv(before: SideFacts, after: SideFacts) -> KvSplit:
    """The terms of SGLang's pool on both sides, swapped one at a time (harness.engines.explaining.chain)."""
    if before.device != after.device:
        return KvSplit(modelled=False, reason=f"one side ran on {before.device}, the other on {after.device}")
    for side in (before, after):
        if side.prediction is None or not side.prediction.modelled:
            reason = side.prediction.reason if side.prediction is not None else "no prediction"
            return KvSplit(modelled=False, reason=f"the predictor does not model sglang {side.release}: {reason}")
    fraction = [_fraction(s) for s in (before, after)]
    free = [_free_before_load(s) for s in (before, after)]
    taken = [_taken_by_loading(s) for s in (before, after)]
    cell = [s.prediction.kv_bytes_per_token for s in (before, after)]
    page = [int(s.number("block_size") or 1) for s in (before, after)]
    cap = [s.number("max_total_tokens") for s in (before, after)]
    if None in (f for f, _ in fraction) or None in (g.gib for g in free) or None in cell:
        return KvSplit(modelled=False, reason="fraction, free memory before loading or the cell size unknown on a side")
    after_load_terms = [after_load(s, f, g, t, _loading_half_step(kind))
                        for s, (f, _), g, (t, _, kind) in zip((before, after), fraction, free, taken)]
    bound = _bounded_after_load(before, after, after_load_terms)
    rules = "; ".join(r.cite(before.release, after.release) for r in fraction_rules(before, after)) or None
    both_log = fraction[0][1] == LOG and fraction[1][1] == LOG
    factors = [
        Factor("free memory before loading", free[0].gib, free[1].gib,
               LOG if free[0].source == LOG and free[1].source == LOG else PREDICTOR, "GiB"),
        Factor("mem_fraction_static", fraction[0][0], fraction[1][0], LOG if both_log else PREDICTOR, "", rules),
        Factor(LOADING, taken[0][0], taken[1][0], LOG if taken[0][1] == LOG and taken[1][1] == LOG else PREDICTOR,
               "GiB"),
        Factor(AFTER_LOAD, after_load_terms[0].gib, bound.after_gib if bound else after_load_terms[1].gib,
               _sources(after_load_terms[0].source, after_load_terms[1].source), "GiB"),
        Factor("max_total_tokens", cap[0] if cap[0] is not None else math.inf,
               cap[1] if cap[1] is not None else math.inf, LOG, "tokens"),
        Factor("bytes per token", float(cell[0]), float(cell[1]), PREDICTOR, "bytes"),
    ]

    def pool_bytes(v):
        return (v["free memory before loading"] * v["mem_fraction_static"] - v[LOADING] - v[AFTER_LOAD]) * GiB

    def continuous(v):
        return max(0.0, min(v["max_total_tokens"], pool_bytes(v) / v["bytes per token"]))

    def rounded_with(side):
        def rounded(v):  # the predictor's own rounding (formulas.pool_tokens), with the side's page and release
            return sg.pool_tokens(pool_bytes(v), v["bytes per token"], int(side.number("block_size") or 1),
                                  v["max_total_tokens"], side.release)
        return rounded

    split = chain(factors, continuous, rounded_with(before), "rounding to cells and pages",
                  rounded_after=rounded_with(after))
    split.grain_tokens = max(page)
    split.bytes_per_token = float(min(cell))
    if bound is not None:
        # the logs' rounding went into the bounded term: what is left is the residual, no more rounding to hide it
        split.uncertainty_tokens = math.ceil(bound.tolerance_gib * GiB / min(cell))
        split.notes += bound.notes
        return split
    _judge_unbounded(split, after_load_terms, fraction, free, taken, min(cell),
                     [pool_bytes({f.name: f.before for f in factors}), pool_bytes({f.name: f.after for f in factors})],
                     cap)
    return split


def _judge_unbounded(split: KvSplit, terms: list[AfterLoad], fraction, free, taken, cell: float,
                     pools_bytes: list[float], caps: list[float | None]) -> None:
    """Where a side's term is not pinned by its #tokens: what the logs' two-decimal readings can hide over both sides
    (a pinned side's term holds its own rounding: it moves tokens between the terms, not into the residual), and a
    pool that is its --max-total-tokens on both sides, which leaves the tokens exact."""
    hidden = sum(a.uncertainty_gib if a.source != PREDICTOR else _hidden_gib(f, g.half_step, kind)
                 for a, (f, _), g, (_, _, kind) in zip(terms, fraction, free, taken))
    uncertain = sum(a.uncertainty_gib for a in terms if a.source == PINNED_BY_TOKENS)
    split.log_rounding_tokens = math.ceil(hidden * GiB / cell)
    split.uncertainty_tokens = math.ceil(uncertain * GiB / cell)
    split.notes += _after_load_notes(terms)
    margins = [_hidden_gib(f, g.half_step, kind) + abs(a.gib) for a, (f, _), g, (_, _, kind)
               in zip(terms, fraction, free, taken)]
    if all(_surely_capped(c, pool, margin, cell) for c, pool, margin in zip(caps, pools_bytes, margins)):
        # each pool is its --max-total-tokens: no estimate or rounding reaches the tokens, which must be exact
        split.exact, split.log_rounding_tokens, split.uncertainty_tokens = True, 0, 0
        split.notes.append("each side's pool is its max_total_tokens (page-aligned), well under what its memory "
                           "allows: the tokens are exact")


def _surely_capped(cap: float | None, pool_bytes: float, margin_gib: float, cell: float) -> bool:
    """Whether a side's pool is its --max-total-tokens even if what the logs' rounding hides and the estimated
    term (taken twice) went against it."""
    return cap is not None and (pool_bytes - margin_gib * GiB) / cell > cap


@dataclass(frozen=True)
class BoundedAfterLoad:
    """The after side's value of the memory taken after loading as the split counts it: the before side's solved
    value moved by what the predictor's estimates of the term moved, plus at most what the logs' rounding of the
    figures both solved values rest on allows (tolerance_gib); the rest of the solved change is left to the
    residual."""

    after_gib: float
    tolerance_gib: float
    notes: list[str]


def _bounded_after_load(before: SideFacts, after: SideFacts, terms: list[AfterLoad]) -> BoundedAfterLoad | None:
    """Where both sides' #tokens pin the term, its change is bounded (None: a side is not pinned by its #tokens,
    its estimate stands and what it missed is the residual already). Solved from each side's own #tokens, the term
    would take any change of the pool: the bound keeps it to what explains a change - the predictor's estimate of it
    on each side (the same estimate on both: no change) and the logs' printed precision (each figure it is solved
    from within half its last digit, over both sides)."""
    if any(t.source != PINNED_BY_TOKENS for t in terms):
        return None
    estimates = [_estimate_gib(s) for s in (before, after)]
    tolerance = terms[0].uncertainty_gib + terms[1].uncertainty_gib
    solved_change = terms[1].gib - terms[0].gib
    expected = estimates[1] - estimates[0]
    allowed = expected + max(-tolerance, min(tolerance, solved_change - expected))
    excess = solved_change - allowed
    notes = [(f"{AFTER_LOAD}: solved from each side's own #tokens by {POOL_FORMULA}; bounded by the predictor's "
              "estimate of it on each side and the logs' printed precision (GB with two decimals: half a digit for "
              "each figure it is solved from, over both sides); what the solved change has beyond that is the "
              f"residual; {PRE_READING}")]
    notes.append(f"{AFTER_LOAD}: solved {terms[0].gib:.4f} -> {terms[1].gib:.4f} GiB, the predictor's estimate "
                 f"{estimates[0]:.4f} -> {estimates[1]:.4f} GiB, the logs' rounding allows {tolerance:.4f} GiB: "
                 + (f"{excess:+.4f} GiB beyond it" if abs(excess) > 1e-12 else "within it"))
    return BoundedAfterLoad(terms[0].gib + allowed, tolerance, notes)


def logged_outcome(side: SideFacts) -> tuple[str | None, str] | None:
    """The outcome the predictor gives this side from its own log: the free memory it read before loading, what
    loading took, and what went after it as its log pins it (its #tokens, its error's minimum fraction; else the
    predictor's estimate). None where the log states no free memory before loading."""
    p = side.prediction
    if side.repredict is None or p is None or not p.modelled:
        return None
    fraction, _ = _fraction(side)
    free = _free_before_load(side)
    if fraction is None or free.gib is None or free.source != LOG:
        return None
    loading, _, _ = _taken_by_loading(side)
    term = after_load(side, fraction, free, loading)
    other = loading - (p.weights_gib or 0.0) + term.gib
    again = side.repredict(gpu_free_mib=free.gib * 1024, free_at_load=True,
                           calibration=Calibration(other, source=f"{AFTER_LOAD} [{term.source}]"))
    if again is None or not again.modelled:
        return None
    return predicted_outcome(again), (f"{side.release}: free {free.gib:.2f} GiB, {LOADING} {loading:.4f} GiB, "
                                      f"{AFTER_LOAD} {term.gib:.4f} GiB [{term.source}]"
                                      + (f" ({term.note.split(': ', 1)[1]})" if term.note else ""))


def _sources(before: str, after: str) -> str:
    return before if before == after else f"before: {before}; after: {after}"


def _after_load_notes(terms: list[AfterLoad]) -> list[str]:
    notes = [t.note for t in terms if t.note]
    if any(t.source == PINNED_BY_TOKENS for t in terms):
        notes.append(f"{AFTER_LOAD}: no line states it; a side that started has it solved from its own #tokens by "
                     f"{POOL_FORMULA}; {PRE_READING}")
    if any(t.source == PREDICTOR for t in terms):
        notes.append(f"{AFTER_LOAD}: the predictor's estimate where the log does not pin it: what it moved is in "
                     "the residual")
    return notes
