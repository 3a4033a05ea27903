"""SGLang startup logs: the rule tables for the lines its scheduler and server print (sglang/srt).

Line format: `[YYYY-MM-DD HH:MM:SS(.mmm)?( DP0)?( TP1)...] <msg>`; no level, file or
version. A multi-line message carries the prefix on its first line only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import ClassVar

from packaging.version import Version

from parsers.base import (
    GENERIC,
    HEALTH_ANSWERED,
    OTHER,
    SERVED_REQUEST,
    TRAINER_STEP_TEXTS,
    Line,
    LogParser,
    device_oom_errors,
    error,
    fatal_signal_errors,
    harness_pod_crash_errors,
    harness_start_timeout_errors,
    kv_sized,
    loadgen_rules,
    oom_part_rules,
    phase,
    ray_serve_replica_errors,
    ray_worker_death_errors,
    ready,
    rule,
    set_fields,
    stopping,
    version,
)
from parsers.lines import NUM, coerce, strip_python_logging, strip_wrappers
from parsers.record import (
    POOL_DRAFT,
    POOL_FULL,
    POOL_KV,
    POOL_STATE,
    POOL_SWA,
    STATUS_OK,
    KvPool,
    StartupRecord,
    field_kinds,
)

# The engine's own prefix, found wherever it starts: `[%(asctime)s%(prefix)s] %(message)s`
# with the date format `%Y-%m-%d %H:%M:%S` (sglang 0.4.0 sglang/srt/utils.py
# configure_logger), milliseconds with SGLANG_LOG_MS, and the rank tags (` DP0 TP1 EP1`,
# ` PP0`) of multi-rank runs; a log setup that drops the date prints `[HH:MM:SS]` (2026 builds).
# An author who cut the timestamps out keeps the ranks alone: "[TP0] Load weight end. ...", "[DP0 TP0 EP0] DSv4 pool
# sizes ..." (the same format, sglang/srt/utils/common.py configure_logger's prefix, less its time).
# A fork may put a tag of its own among the ranks (the repr of its disaggregation mode, "[2025-12-02 07:04:51
# DisaggregationMode.IGPUDECODE TP1]", sgl-project/sglang#14282; no release prints one: 0.5.3 and 0.5.21
# sglang/srt/managers/scheduler.py add only " DP"/" PP"/" ATTN_CP"/" MOE_DP"/" TP"/" EP" and a number): a word with no
# digit, skipped; the ranks are the tags with a number.
# An author who shows one line for several ranks writes their range ("[TP0..3] KV Cache is allocated. ..."), and one
# who aligns the messages in a column pads after the bracket ("[TP0]    max_total_num_tokens=..."); the engine writes
# one space there. An author who cut the time to an ellipsis keeps the ranks after it ("[... DP0 TP0 EP0]
# max_total_num_tokens=...", gpu-logs-19 sglang/02: the format's `%(asctime)s` elided, 0.5.22 sglang/srt/utils/common.py
# :2584 configure_logger, the ranks from sglang/srt/managers/scheduler.py:6047-6055); with no rank after it, "[...]" is
# any text's ellipsis, never a prefix.
_ELIDED_TIME = r"(?:\.\.\.|\u2026)(?=(?: [A-Z_]+-?\d+)+\])"
# An author who shows one line for every rank may also write the rank as a wildcard ("[DP*] Allocating 8.00 GB host
# memory for hierarchical KV cache.", gpu-logs-51 sglang/01): the engine only writes numbers there (0.5.9
# sglang/srt/managers/scheduler.py:3081-3094 " DP{dp_rank}", " TP{tp_rank}"; utils/common.py:1228 the format
# "[%(asctime)s{prefix}] "), so "*" is the author's "every rank", rank 0 among them. Only the ranks' own names take it.
_WILDCARD_RANK = r"(?:DP|TP|PP|EP|CP)\*"
_FIRST_RANK = r"(?:(?:[A-Z]+_)?[A-Z]+-?\d+(?:\.\.\d+)?|" + _WILDCARD_RANK + ")"
_NEXT_RANK = r"(?:[A-Z_]+-?\d+(?:\.\.\d+)?|" + _WILDCARD_RANK + ")"
PREFIX = re.compile(
    r"\[(?:(?:(?P<ts>(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d)(?:[.,](?P<ms>\d+))?|" + _ELIDED_TIME + r")"
    r"(?: [A-Za-z][A-Za-z_.]*(?=[ \]]))*"
    r"(?P<ranks>(?: [A-Z_]+-?\d+)*)"
    r"|(?P<bare_ranks>" + _FIRST_RANK + r"(?: " + _NEXT_RANK + r")*))\]"
    r"(?: (?:(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) )?(?P<msg>.*))?$"
)
# Ray's driver prints each line an actor writes after the actor's tag: "(WorkerDict pid=9238) " or, from another node,
# "(SGLangEngine pid=720234, ip=11.251.213.106) " (Ray 2.x python/ray/_private/worker.py print_worker_logs, prefix_for:
# "{actor_name} pid=", the ip where the node is not the driver's). Exactly one space is Ray's: a traceback's indent
# after it is the engine's (gpu-logs-29 sglang/08, verl's SGLang rollout in WorkerDict actors, frames tagged alike).
_RAY_ACTOR_TAG = re.compile(r"^\((?:[\w.:-]+ )?pid=\d+(?:, ip=[\w.:-]+)?\) ")
# SGLang 0.2's own rank tag, written into the message before logging had a rank prefix: "[gpu_id=N] " in 0.2.0
# (sglang/srt/managers/controller/model_runner.py:153 "Load weight end.", :201 "Memory pool end.", tp_worker.py:115 the
# "max_total_num_tokens=..." summary), "[gpu=N] " by 0.2.7 (sglang/srt/model_executor/model_runner.py:180, :236,
# managers/tp_worker.py:138; harness/engines/sglang/formats/sglang-0.2.0.tsv, sglang-0.2.7.tsv). It is
# the rank's tag, so its lines are a record of their own (never the wrapped tail of the line before) and only N=0's
# are rank 0's (gpu-logs-40 sglang/02, sglang#744's TP2 start).
_GPU_ID_TAG = re.compile(r"^\[gpu(?:_id)?=(\d+)\] ")
# a tag's rank, the first of a range (rank 0's lines are the primary ones)
_TAG_RANK = re.compile(r"[A-Z_]-?(\d+)")
# what an indent keeps under a prefix: a traceback's part (never an author's column alignment)
_INDENTED_PART = re.compile(r"^\s+(?:File |Traceback |\^)")

# server_args keys read into the record: key -> record field. SGLang prints them as a
# `ServerArgs(key=value, ...)` repr (sglang 0.4.0 sglang/srt/server.py:435) or a dict
# (`server_args={'key': value, ...}`, later releases).
SERVER_ARGS = {
    "model_path": "model",
    "mem_fraction_static": "mem_fraction_static_effective",
    "chunked_prefill_size": "chunked_prefill_size_effective",
    "max_prefill_tokens": "max_prefill_tokens",
    "max_total_tokens": "max_total_tokens",
    "page_size": "block_size",
    "tp_size": "tp_size",
    # --pp-size / --pipeline-parallel-size (0.5.6 sglang/srt/server_args.py:287, "pp_size: int = 1"); its stages tag
    # their lines " PP{pp_rank}" when pp_size > 1 (0.5.6 sglang/srt/managers/scheduler.py:2614-2615)
    "pp_size": "pp_size",
    "dtype": "dtype",
    "kv_cache_dtype": "kv_dtype",
    # up to 0.5.13 the graph sizes are flat fields (0.5.13: "cuda_graph_max_bs=32, ...
    # piecewise_cuda_graph_max_tokens=256"); from 0.5.14 they live in the phases read below (_GRAPH)
    "cuda_graph_max_bs": "cuda_graph_decode_max_bs",
    "piecewise_cuda_graph_max_tokens": "cuda_graph_prefill_max_bs",
}
_SCALAR = r"(None|True|False|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|'[^']*'|\"[^\"]*\")"
# The CUDA-graph phases inside the server arguments: a dict from 0.5.19 ("'decode': {'backend': 'disabled',
# 'max_bs': 32, ..."), the dataclass repr in 0.5.14-0.5.18 ("cuda_graph_config=CudaGraphConfig(decode=
# PhaseConfig(backend='disabled', max_bs=32, ..."; 0.5.14 sglang/srt/server_args.py cuda_graph_config).
_GRAPH = (r"'{stage}': \{{'backend': '(?P<backend>\w+)', 'max_bs': (?P<max_bs>\d+|None)",
          r"\b{stage}=PhaseConfig\(backend='(?P<backend>\w+)', max_bs=(?P<max_bs>\d+|None)")


# --- actions ---------------------------------------------------------------------------------


def _server_args(parser: LogParser, values: dict, line: Line) -> None:
    text = str(values["args"])
    record = parser.record
    for key, field in SERVER_ARGS.items():
        match = re.search(rf"(?:'{key}': |[(,{{]\s*{key}=){_SCALAR}", text)
        if match is None:
            continue
        value = match.group(1)
        if field == "kv_dtype" and value.strip("'\"") == "auto":
            continue  # the pool line states the dtype "auto" resolves to
        setattr(record, field, coerce(field_kinds(type(record))[field], value))
        if field == "kv_dtype":
            parser.kv_dtype_flag = record.kv_dtype
    if (match := re.search(rf"(?:'device': |[(,]\s*device=){_SCALAR}", text)) and match.group(1) != "None":
        device = match.group(1).strip("'\"")
        record.device = "gpu" if device == "cuda" else device
    spec = re.search(rf"(?:'speculative_algorithm': |[(,]\s*speculative_algorithm=){_SCALAR}", text)
    if spec is not None:
        parser.speculative = spec.group(1) != "None"
    for stage in ("decode", "prefill"):
        match = next((m for form in _GRAPH if (m := re.search(form.format(stage=stage), text))), None)
        if match:
            setattr(record, f"cuda_graph_{stage}_backend", match.group("backend"))
            setattr(record, f"cuda_graph_{stage}_max_bs", coerce(int, match.group("max_bs")))


_POOL_FIGURES = (
    (re.compile(r"dtype: ([^\s,]+),"), "dtype"),
    (re.compile(r"#tokens: (-?[\d,]+)"), "tokens"),
    # (an author who trimmed the line keeps "K 1.37 GB, V 1.37 GB" or "K: 18.81 GB, V: 18.81 GB": the halves without
    # their "size")
    (re.compile(rf"\bK(?: size)?:? ({NUM}) GB"), "k"),
    (re.compile(rf"\bV(?: size)?:? ({NUM}) GB"), "v"),
    (re.compile(rf"\bKV size: ({NUM}) GB"), "kv"),
)
# A hybrid model's recurrent-state pool: its size in requests, then each state buffer's size ("conv_state size:
# 0.12GB, ssm_state size: 1.50GB ..."; 0.5.2 sglang/srt/mem_cache/memory_pool.py:167 states no size in requests).
_STATE_SLOTS = re.compile(r"max_mamba_cache_size: ([\d,]+)")
# (an author who trimmed the line keeps "conv_state 0.12GB, ssm_state 3.09GB": the buffers without their "size:", as
# the KV line's halves above)
_STATE_SIZES = re.compile(rf"\w+(?: size:)? ({NUM}) ?GB")
_STATE_BUFFERS = re.compile(rf"\b(conv|ssm)_state(?: size:)? ({NUM}) ?GB")
# 0.5.22 sglang/srt/mem_cache/memory_pool.py:982: a speculative hybrid model's intermediate SSM/conv caches, part of the
# state pool (never of the KV pool)
_STATE_INTERMEDIATE = re.compile(rf"\bintermediate_\w+(?: size:)? ({NUM}) ?GB")
# Pool lines that look like the KV pool's and are not the device pool: kvcached's virtual reservation ("VirtualKV
# Cache is allocated. #tokens: N, K size: ...", kvcached 67ee825 (2025-09) to f2e3593 (2026-02)
# kvcached/integration/sglang/patches.py; "(group_id=G)." after), a host (hierarchical cache) pool.
_NOT_DEVICE_POOL = re.compile(r"^(?:Virtual|virtual|Host|host|CPU|Hierarchical|HiCache)")


def _other_pool(parser: LogParser, label: str, line: Line) -> None:
    found = {name: m.group(1) for regex, name in _POOL_FIGURES if (m := regex.search(line.text))}
    gib = (float(found["kv"]) if "kv" in found else
           round(float(found["k"]) + float(found["v"]), 2) if "k" in found and "v" in found else None)
    tokens = coerce(int, found["tokens"]) if "tokens" in found else None
    prefix = "virtual_kv" if label.lower().startswith("virtual") else "host_kv"
    setattr(parser.record, f"{prefix}_tokens", tokens)
    setattr(parser.record, f"{prefix}_gib", gib)


def _virtual_pool(parser: LogParser, values: dict, line: Line) -> None:
    _other_pool(parser, "Virtual", line)


def _physical_pool(parser: LogParser, values: dict, line: Line) -> None:
    # kvcached: "Physical KV Cache limits by --mem-fraction-static: #tokens: N, K size: ..." is the device pool
    # beside its virtual reservation (kvcached/integration/sglang/patches.py, from f2e3593)
    _kv_pool(parser, {"label": ""}, line)


def _http_up(parser: LogParser, values: dict, line: Line) -> None:
    parser.http_up = True


# The first release whose /health handler answers 503 while the server starts, before any health request runs: the
# gate is in 0.5.0rc2 sglang/srt/entrypoints/http_server.py:280, not in 0.5.0rc0 (nor in 0.4.10.post2).
_HEALTH_GATE_RELEASE = Version("0.5.0rc2")


def _before_health_gate(version: str | None) -> bool:
    """Whether the log names a release older than the /health start gate (a release not named is taken as newer:
    the line is a 2025-2026 server's). The version rule's releases (X.Y.Z, rcN, .postN) order as PEP 440 has them."""
    return version is not None and Version(version) < _HEALTH_GATE_RELEASE


def _health_check_failed(parser: LogParser, values: dict, line: Line) -> None:
    # The /health handler's own failure (0.5.1 sglang/srt/entrypoints/http_server.py:328-332 "Health check failed.
    # Server couldn't get a response from detokenizer for last N seconds. ..."): it is reached only past the gate
    # that answers 503 while the server is Starting (:280-281), and the status turns Up after the server's own
    # warm-up request (:1188, :1217, :1251) - the start had completed, so the failure is at serving time
    # (gpu-logs-77 sglang/06, a PD decode behind sgl-router). Before the gate a health check could run during the
    # warm-up: a log that names such a release decides nothing by this line.
    if not _before_health_gate(parser.record.engine_version):
        parser.mark_ready(line)


def _custom_warmup(parser: LogParser, values: dict, line: Line) -> None:
    # The HTTP server's lifespan runs the --warmups before it reports startup complete, each a request through the
    # tokenizer manager (0.5.22 sglang/srt/entrypoints/warmup.py:37 "Running warmup %s", called at
    # entrypoints/http_server.py:406-412; the lifespan ran them already in 0.4.6, entrypoints/http_server.py:115-120):
    # a failure after it is the warm-up's.
    parser.custom_warmups = True


# What a hierarchical cache's host allocation holds, from the words after "host memory for" (0.5.23
# sglang/srt/mem_cache): the KV cache's own host pool ("hierarchical KV cache", memory_pool_host.py; DeepSeek-V4's
# "V4 paged pool '<name>'", :342), or another pool beside it - a hybrid model's state ("hierarchical Mamba cache",
# pool_host/mamba.py:195; "V4 state pool", memory_pool_host.py:865), an indexer's keys ("DSA indexer",
# pool_host/dsa.py:232 and :243; "MiniMax sparse index-K", pool_host/mha.py:955; "MiniMax NVFP4 index",
# pool_host/minimax_m3_nvfp4.py:95).
_HOST_KV = re.compile(r"host memory for (?:hierarchical KV cache|V4 paged pool)\b")


def _host_memory(parser: LogParser, values: dict, line: Line) -> None:
    # A hierarchical cache's host pools, added: never the device pool. The KV cache's own ("Allocating %.2f GB host
    # memory for hierarchical KV cache.", 0.5.22 memory_pool_host.py:304; from 0.5.17 "Allocating %s hierarchical KV
    # host pool: %d tokens, %.2f GB host memory.", pool_host/base.py:274) are host_kv; the other pools' are
    # host_other, so that the host KV figure is the KV cache's alone.
    record = parser.record
    gib = float(values["gib"])
    if values.get("tokens") is None and not _HOST_KV.search(line.text):
        record.host_other_gib = round((record.host_other_gib or 0.0) + gib, 2)
        return
    record.host_kv_gib = round((record.host_kv_gib or 0.0) + gib, 2)
    if values.get("tokens") is not None:
        record.host_kv_tokens = (record.host_kv_tokens or 0) + int(values["tokens"])
_TARGET = (POOL_KV, POOL_FULL, POOL_SWA)


def _kv_pool(parser: LogParser, values: dict, line: Line) -> None:
    # Each pool line of the rank whose figures the record holds is one entry of record.kv_pools; which pool it is
    # comes from its label (from 0.5.17: "Full KV Cache", "SWA KV Cache", 0.5.23 sglang/srt/mem_cache/
    # swa_memory_pool.py:81 and :92; "Draft ..."), else from what the rank announced and built before it: older
    # releases label nothing,
    # and a sliding-window model's two pools (0.5.2 sglang/srt/mem_cache/memory_pool.py:749, full then SWA, after
    # "Use Sliding window memory pool. full_layer_tokens=F, swa_layer_tokens=S", model_runner.py:1221) or a
    # speculative draft model's pool (built after the target's, same wording) come as a second "KV Cache" line.
    record = parser.record
    label = str(values.get("label") or "")
    if _NOT_DEVICE_POOL.search(label):
        _other_pool(parser, label, line)
        return
    if re.search(r"Mamba|state", label):
        sizes = [float(x) for x in _STATE_SIZES.findall(line.text)]
        slots = _STATE_SLOTS.search(line.text)
        pool = KvPool(POOL_STATE, f"{label} Cache", gib=round(sum(sizes), 2) if sizes else None,
                      slots=coerce(int, slots.group(1)) if slots else None)
        record.kv_pools = [*record.kv_pools, pool]
        record.state_pool_slots, record.state_pool_gib = pool.slots, pool.gib
        for name, size in _STATE_BUFFERS.findall(line.text):
            setattr(record, f"state_{name}_gib", float(size))
        intermediate = [float(x) for x in _STATE_INTERMEDIATE.findall(line.text)]
        record.state_intermediate_gib = round(sum(intermediate), 2) if intermediate else None
        return
    found = {name: m.group(1) for regex, name in _POOL_FIGURES if (m := regex.search(line.text))}
    gib = (float(found["kv"]) if "kv" in found else
           round(float(found["k"]) + float(found["v"]), 2) if "k" in found and "v" in found else None)
    tokens = coerce(int, found["tokens"]) if "tokens" in found else None
    post_capture = line.text.startswith("Post-capture KV sizing")
    name = (re.search(r"(\w+ )?KV cache(?= allocated)", line.text).group(0) if post_capture
            else f"{label} KV Cache" if label else "KV Cache")
    kind = _pool_kind(parser, label, tokens, post_capture)
    pools = record.kv_pools
    if post_capture or (kind == POOL_KV and parser.speculative is False):
        # The pool sized again after graph capture, or built again with no draft model: it replaces the rank's
        # earlier statement of the same pool (its "VA upper bound", a first allocation).
        same = (POOL_DRAFT,) if kind == POOL_DRAFT else _TARGET
        pools = [p for p in pools if p.kind not in same]
    record.kv_pools = [*pools, KvPool(kind, name, tokens, gib)]
    _kv_halves(record, kind, found)
    if kind == POOL_DRAFT:
        drafts = [p for p in record.kv_pools if p.kind == POOL_DRAFT]
        record.draft_kv_gib = _sum([p.gib for p in drafts]) if gib is not None else record.draft_kv_gib
        record.draft_pool_tokens = tokens if tokens is not None else record.draft_pool_tokens
    else:
        if "dtype" in found:
            record.kv_dtype = found["dtype"]
        if tokens is not None and kind != POOL_SWA:
            record.pool_tokens = tokens
        if tokens is not None and kind == POOL_SWA:
            record.swa_pool_tokens = tokens
    _kv_total(parser)


def _runner_pool_size(parser: LogParser, values: dict, line: Line) -> None:
    # SGLang's JAX port states its pool's size once profiled, capped and page-aligned, and builds the pool with it
    # right after (sglang-jax 0.0.1.post1 sgl_jax/srt/model_executor/model_runner.py:257, then MHATokenToKVPool(
    # size=self.max_total_num_tokens)): the pool's size, as a pool line states it; the profiling line's max_tokens
    # before it is the bound that figure was taken from (model_runner.py:190)
    parser.record.pool_tokens = int(values["tokens"])
    parser.runner_sized_pool = True


def _dsv4_pool_built(parser: LogParser, values: dict, line: Line) -> None:
    # DeepSeek-V4's pool states no "KV Cache is allocated" line: its sizes are the configurator's ("DSV4 pool sizes:
    # full=F, ..." returns MemoryPoolConfig(max_total_num_tokens=F), 0.5.23 sglang/srt/model_executor/
    # pool_configurator.py:1604-1616), and the pool built with them says so itself ("Initialize DeepSeekV4TokenToKVPool
    # with max_num_reqs=... swa_size=... c4_size=...", 0.5.23 sglang/srt/mem_cache/deepseek_v4_memory_pool.py:1018-1024,
    # built at kv_cache_configurator.py:2107; the NPU pool, hardware_backend/npu/dsv4/dsv4_memory_pool.py:258, is its
    # subclass): the target's pool exists, of the full size the sizing line stated
    parser.dsv4_pool_built = True


def _kv_halves_below(parser: LogParser, values: dict, line: Line) -> None:
    """The K and V sizes of the pool line above them, where an author broke that line after its token count ("KV Cache
    is allocated. dtype: torch.float8_e4m3fn, #tokens: 117125," / "K size: 1.79 GB, V size: 1.79 GB"): the engine
    prints one message (0.5.22 sglang/srt/mem_cache/memory_pool.py:2101-2105). Only a device pool that has no size yet
    takes them."""
    record = parser.record
    last = record.kv_pools[-1] if record.kv_pools else None
    if last is None or last.gib is not None or last.kind == POOL_STATE:
        return
    found = {"k": values["k"], "v": values["v"]}
    record.kv_pools = [*record.kv_pools[:-1], replace(last, gib=round(float(found["k"]) + float(found["v"]), 2))]
    _kv_halves(record, last.kind, found)
    _kv_total(parser)


def _kv_halves(record: StartupRecord, kind: str, found: dict) -> None:
    """The K and V sizes as printed (K != V for a model whose key and value heads differ, MLA prints one KV size):
    the target's pools added, and the draft's apart."""
    if "k" not in found or "v" not in found or (kind == POOL_SWA and record.k_gib is None):
        return
    prefix = "draft_" if kind == POOL_DRAFT else ""
    for half in ("k", "v"):
        name = f"{prefix}{half}_gib"
        previous = getattr(record, name) if kind == POOL_SWA else None
        setattr(record, name, round((previous or 0.0) + float(found[half]), 2))


def _batch_run(parser: LogParser, values: dict, line: Line) -> None:
    parser.batches_run = True


def _batch_after_start(parser: LogParser, values: dict, line: Line) -> None:
    parser.batches_run = True
    ready(parser, values, line)


def _offline_table(parser: LogParser, values: dict, line: Line) -> None:
    parser.offline_table = True


def _offline_served(parser: LogParser, values: dict, line: Line) -> None:
    # under the offline benchmark's banner only: bench_serving's table has the same row for requests a server (any
    # engine's, elsewhere) answered (0.5.23 sglang/benchmark/serving.py:1694)
    if parser.offline_table:
        ready(parser, values, line)


def _exit_code(parser: LogParser, values: dict, line: Line) -> None:
    parser.amend_failure("process_died", {"exit_code": values["code"]}, {})


def _pool_kind(parser: LogParser, label: str, tokens: int | None, post_capture: bool) -> str:
    if re.search(r"draft", label, re.IGNORECASE):
        return POOL_DRAFT
    if label.lower() in ("full", "swa"):
        return POOL_FULL if label.lower() == "full" else POOL_SWA
    if label or post_capture:
        return POOL_KV
    built = [p.kind for p in parser.record.kv_pools]
    split = parser.swa_split
    if split is not None and not (POOL_FULL in built and POOL_SWA in built):
        # a sliding-window model's two pools, in either order: the full pool first in 0.5.2 (memory_pool.py:749), the
        # SWA pool first in 2026 builds ("KV Cache is allocated. ... #tokens: <swa>" then "... #tokens: <full>"
        # before "SWAKVPool mem usage"); the one the rank has not built yet is the pair's other half, and a draft's
        # pool comes only after both (equal sizes: by order)
        if POOL_SWA in built:
            return POOL_FULL
        if POOL_FULL in built:
            return POOL_SWA
        return POOL_SWA if tokens == split[1] and tokens != split[0] else POOL_FULL
    pair = _swa_pair_by_sizes(parser, tokens)
    if pair is not None:
        return pair
    if parser.speculative is not False and not parser.seen_kv and any(k in _TARGET for k in built):
        return POOL_DRAFT
    if parser.draft_loaded_last:
        # the rank's last load was a draft model's (its class on the load line): the pool built next is the draft
        # worker's own (0.4.9 sglang/srt/speculative/eagle_worker.py builds its ModelRunner, loads, then its pool),
        # whether or not the target's lines are in the excerpt - unless the target's load came before it with no pool
        # of the target's between them: then the scheduler builds the pools after both loads, the target's first
        # (0.5.21 and 0.5.22 sglang/srt/managers/scheduler.py init_model_worker: init_tp_model_worker,
        # maybe_init_draft_worker, then init_memory_pools -> init_target_memory_pool, then the draft's)
        if parser.target_loaded and not any(k in _TARGET for k in built):
            return POOL_KV
        return POOL_DRAFT
    return POOL_KV


def _swa_pair_by_sizes(parser: LogParser, tokens: int | None) -> str | None:
    """A second unlabelled pool line after a rank's one model load, its token count other than the first's: a sliding-
    window model's pair stated by its two pools alone (no "Use Sliding window memory pool" line, no labels). It is no
    draft's: a draft model is loaded by its own ModelRunner, which prints its own Load weight lines before its pool in
    every release (0.4.9 sglang/srt/speculative/eagle_worker.py; from 0.5.21 before the target's pool too, scheduler.py
    init_model_worker), and from 0.5.22 shares the target's token count (pool_configurator.py:71 MemoryPoolConfig). The
    SWA pool holds the full pool's tokens x swa_full_tokens_ratio, 0.8 by default (0.5.22 pool_configurator.py:853-
    855): the smaller is the SWA pool, whichever the build prints first. Returns the new pool's kind and relabels the
    first; None where the line is not such a pair's second."""
    record = parser.record
    first = [p for p in record.kv_pools if p.kind in _TARGET]
    if (tokens is None or parser.speculative is True or len(first) != 1 or first[0].kind != POOL_KV
            or first[0].name != "KV Cache" or first[0].tokens in (None, tokens)
            or any(p.kind == POOL_DRAFT for p in record.kv_pools)):
        return None
    one_target_load = parser.loads_done == 1 and parser.target_loaded and not parser.draft_loaded_last
    if not one_target_load and not (parser.loads_done == 0 and _in_swa_ratio(first[0].tokens, tokens, record)):
        return None
    swa_first = first[0].tokens < tokens
    record.kv_pools = [replace(p, kind=POOL_SWA if swa_first else POOL_FULL) if p is first[0] else p
                       for p in record.kv_pools]
    if swa_first:
        record.swa_pool_tokens = first[0].tokens
    return POOL_FULL if swa_first else POOL_SWA


# swa_full_tokens_ratio's default (0.5.13 sglang/srt/server_args.py:441)
_SWA_FULL_TOKENS_RATIO = 0.8
# the largest page size a pool is aligned to, where the excerpt does not state it
_LARGEST_PAGE = 256


def _in_swa_ratio(first: int, second: int, record: StartupRecord) -> bool:
    """Two pool sizes in a sliding-window model's default split: the SWA pool holds the full pool's tokens x 0.8, cut
    to a whole page (0.5.13 sglang/srt/model_executor/pool_configurator.py:273-274, `align_page_size(int(full_tokens
    * self._swa_full_tokens_ratio))`). Where an excerpt shows the two pool lines and no load line, this is what tells
    the pair from a target's and a draft's pool (the draft sized from the target's count, see above)."""
    swa, full = sorted((first, second))
    return 0 <= int(full * _SWA_FULL_TOKENS_RATIO) - swa < (record.block_size or _LARGEST_PAGE)


def _sum(values: list) -> float | None:
    known = [v for v in values if v is not None]
    return round(sum(known), 2) if known else None


def _kv_total(parser: LogParser) -> None:
    """The record's kv_gib: the target's KV pools - a sliding-window model's two as the engine totals them where it
    states it ("SWAKVPool mem usage" from 0.5.3.post3, 0.5.5 sglang/srt/mem_cache/memory_pool.py:1099), else their sum
    (0.5.2 memory_pool.py:771 SWAKVPool.get_kv_size_bytes). A draft model's pool is sized from the same budget (0.5.23
    sglang/srt/model_executor/pool_configurator.py:259 adds the draft layers to the cell size) but is not the device
    pool the record states, which its own line states apart (eagle_worker.py builds the draft's pool in its own model
    runner): draft_kv_gib holds it, never kv_tokens / kv_gib, and kv_gib + draft_kv_gib is the budget both took."""
    record = parser.record
    pools = record.kv_pools
    target = parser.swa_total if parser.swa_total is not None and any(p.kind == POOL_SWA for p in pools) else None
    if target is None:
        target = _sum([p.gib for p in pools if p.kind in _TARGET])
    if target is not None:
        record.kv_gib = round(target, 2)


def _load_begin(parser: LogParser, values: dict, line: Line) -> None:
    # A speculative server loads its draft model after the target, in the draft worker's own model runner (0.5.22
    # sglang/srt/managers/tp_worker.py builds a ModelRunner per model; each prints its Load weight begin/end): a
    # second pair on the same rank, after the first pair's end, is the draft's.
    record = parser.record
    gib = float(values["gib"])
    if parser.loads_done == 0:
        record.avail_mem_before_load_gib = gib
    elif parser.loads_done == 1:
        record.draft_avail_mem_before_load_gib = gib
    parser.advance("loading", line)


def _load_end(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    prefix = "" if parser.loads_done == 0 else "draft_" if parser.loads_done == 1 else None
    parser.draft_loaded_last = bool(_DRAFT_MODEL.search(line.text))
    parser.target_loaded = parser.target_loaded or (prefix == "" and not parser.draft_loaded_last)
    if parser.draft_loaded_last:
        # the line names a draft model's class: the draft's load, whatever came before it in the excerpt
        prefix, parser.loads_done = ("draft_" if record.draft_weights_gib is None else None), 1
    parser.loads_done += 1
    if prefix is not None:
        for regex, name in _LOAD_END:
            match = regex.search(line.text)
            if match and (prefix == "" or name != "weights_load_seconds"):
                setattr(record, prefix + name, float(match.group(1)))
    parser.advance("profiling", line)


# The classes SGLang loads as a speculative draft (the "type=" of its Load weight end line): MTP/NextN heads, EAGLE
# drafts, DFlash and DSpark draft models (0.5.22 sglang/srt/models/deepseek_nextn.py:247 DeepseekV3ForCausalLMNextN,
# llama_eagle3.py:271 LlamaForCausalLMEagle3, ernie4_eagle.py:101 Ernie4_5_MoeForCausalLMMTP, dflash.py:619
# DFlashDraftModel, dspark.py:773 DSparkDraftModel; qwen3_next_mtp.py Qwen3NextForCausalLMMTP, and the like). Every
# EntryClass of 0.5.23 sglang/srt/models with a draft's name is matched: also DFlashLagunaForCausalLM, Dots3MTPHead,
# LingDSparkModel and Qwen3DSparkModel. Gemma 4 names its MTP draft an "assistant" (0.5.13 and 0.5.23
# sglang/srt/models/gemma4_mtp.py:404 EntryClass Gemma4AssistantForCausalLM, Gemma4UnifiedAssistantForCausalLM; 0.5.23
# sglang/srt/arg_groups/speculative_hook.py:98 takes either architecture as the draft), as transformers calls a draft
# model for assisted generation its assistant model: a class with "Assistant" in its name is a draft's.
# (the class name ends the field: the engine writes ", " after it, 0.5.17 sglang/srt/model_executor/model_runner.py:1102
# "type={type(self.model).__name__}, "; an author who trimmed the rest of the line writes " ... " there instead)
_DRAFT_MODEL = re.compile(
    r"type=(?:Eagle\w*|DFlash\w*|\w*Assistant\w*|\w*(?:NextN|MTP(?:Head)?|Eagle3?|DraftModel|DSpark(?:Model)?))(?!\w)")

_LOAD_END = (
    (re.compile(rf"elapsed=({NUM}) s"), "weights_load_seconds"),
    (re.compile(rf"avail mem=({NUM}) GB"), "avail_mem_after_load_gib"),
    (re.compile(rf"mem usage=({NUM}) GB"), "weights_gib"),
)


def _pool_end(parser: LogParser, values: dict, line: Line) -> None:
    # the target's pool first; a draft model's pool is built after it and ends with the same line
    record = parser.record
    last = record.kv_pools[-1].kind if record.kv_pools else None
    if last == POOL_DRAFT and record.avail_mem_after_pool_gib is None and record.avail_mem_after_draft_pool_gib is None:
        # a draft's pool with no target pool before it in the excerpt (a draft's load alone): its own end
        record.avail_mem_after_draft_pool_gib = float(values["gib"])
    elif record.avail_mem_after_pool_gib is None:
        record.avail_mem_after_pool_gib = float(values["gib"])
    elif record.avail_mem_after_draft_pool_gib is None:
        record.avail_mem_after_draft_pool_gib = float(values["gib"])


def _graph_begin(parser: LogParser, values: dict, line: Line) -> None:
    # the batch sizes it captures, where the line lists them ("bs=[1, 2, 4]"; 0.4.x a line of their own,
    # "Capture cuda graph bs [1, 2, 4, 8]"): the largest is the decode graphs' max batch size
    sizes = _GRAPH_BS.search(line.text)
    if sizes and parser.record.cuda_graph_decode_max_bs is None and "verify" not in line.text:
        parser.record.cuda_graph_decode_max_bs = max(int(n) for n in re.findall(r"\d+", sizes.group(1)))
    parser.advance("capturing", line)


_GRAPH_BS = re.compile(r"\bbs ?=? ?\[([\d, ]+)\]")


def _swa_split(parser: LogParser, values: dict, line: Line) -> None:
    # "Use sliding window memory pool. full_layer_tokens=F, swa_layer_tokens=S" (0.5.23
    # sglang/srt/model_executor/pool_configurator.py:888), and the same split after post-capture sizing.
    parser.swa_split = (coerce(int, str(values["full"])), coerce(int, str(values["swa"])))
    parser.record.pool_tokens, parser.record.swa_pool_tokens = parser.swa_split


def _swa_total(parser: LogParser, values: dict, line: Line) -> None:
    # "SWAKVPool mem usage: {mem_usage:.2f} GB, swa size: {size_swa}, full size: {size}": both pools, K and V.
    parser.swa_total = float(values["gib"])
    split = (coerce(int, str(values["full"])), coerce(int, str(values["swa"])))
    parser.record.pool_tokens, parser.record.swa_pool_tokens = split
    if parser.swa_split is None:
        parser.swa_split = split
    _name_the_pair(parser.record, *split)
    if not any(p.kind == POOL_SWA for p in parser.record.kv_pools):
        parser.record.kv_gib = parser.swa_total  # the sub-pools' own lines were not seen
    else:
        _kv_total(parser)


def _name_the_pair(record: StartupRecord, full: int, swa: int) -> None:
    """The two pool lines just before the SWAKVPool line are its sub-pools (0.5.10
    sglang/srt/mem_cache/swa_memory_pool.py:71 and :80 build them, :97 states both): where their sizes are its swa and
    full sizes, they are the SWA and full pools, whatever kind they were taken for before it came (a draft's pool, in
    an excerpt without the load lines that tell)."""
    pools = record.kv_pools
    pair = [i for i, p in enumerate(pools) if p.kind != POOL_STATE][-2:]
    if full == swa or len(pair) != 2 or {pools[i].tokens for i in pair} != {full, swa}:
        return
    if not any(pools[i].kind == POOL_DRAFT for i in pair):
        return
    kinds = {full: POOL_FULL, swa: POOL_SWA}
    record.kv_pools = [replace(p, kind=kinds[p.tokens]) if i in pair else p for i, p in enumerate(pools)]
    if not any(p.kind == POOL_DRAFT for p in record.kv_pools):
        record.draft_kv_gib = record.draft_pool_tokens = record.draft_k_gib = record.draft_v_gib = None


def _state_figures(parser: LogParser, values: dict, line: Line) -> None:
    # The error's figures, its message's second line: they refine the error the first line raised, as if printed with it
    failure = parser._startup.failure
    if failure is None or failure.kind != "state_pool_too_small" or "max_mamba_cache_size" in failure.data:
        return
    failure.data.update(values)
    parser._sync()


def _total_mib(parser: LogParser, values: dict, line: Line) -> None:
    parser.record.total_memory_gib = round(int(values["mib"]) / 1024, 2)


def _current_fraction(parser: LogParser, values: dict, line: Line) -> None:
    if parser.record.mem_fraction_static_effective is None:
        parser.record.mem_fraction_static_effective = float(values["gib"])


def _all_swa(parser: LogParser, values: dict, line: Line) -> None:
    _swa_split(parser, {"full": 0, "swa": values["swa"]}, line)
    parser.record.pool_tokens = coerce(int, str(values["swa"]))


def _mlx_pool(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    tokens = coerce(int, str(values["tokens"]))
    gib = None if values.get("mib") is None else round(float(values["mib"]) / 1024, 2)
    record.kv_pools = [*[p for p in record.kv_pools if p.kind not in _TARGET], KvPool(POOL_KV, "MLX KV Cache", tokens,
                                                                                       gib)]
    record.pool_tokens, record.kv_gib, record.device = tokens, gib, "mlx"
    if values.get("kv_cache_dtype") is not None:
        _kv_dtype_set(parser, values, line)


def _kv_dtype_set(parser: LogParser, values: dict, line: Line) -> None:
    # The group is not named `dtype`: a field of that name is the model's dtype, stored from any match.
    # The engine's line replaces the server arguments' --kv-cache-dtype, a flag's name that the model runner resolves
    # to a torch dtype per platform before it says it (0.5.12 sglang/srt/model_executor/model_runner.py:2340-2386
    # configure_kv_cache_dtype: 'fp8_e4m3' -> torch.float8_e4m3fn, or ROCm's fp8_dtype; then "Using KV cache dtype:
    # {self.kv_cache_dtype}").
    if parser.record.kv_dtype in (None, parser.kv_dtype_flag):
        parser.record.kv_dtype = str(values["kv_cache_dtype"])


def _graph_captured(parser: LogParser, values: dict, line: Line) -> None:
    # One line per captured graph set (target/draft, prefill/decode/verify): the target's add up, a draft model's
    # apart ("Capture draft cuda graph end", "Capture draft extend ...", 0.5.23 sglang/srt/speculative/
    # eagle_worker_v2.py:654, multi_layer_eagle_draft_extend_cuda_graph_runner.py:641; "Capture draft decode CUDA
    # graph end" in 2026 builds): the draft's graphs are its own, as its pool is. The time adds up over all of them.
    # Older releases print only the time (sglang 0.4.0 model_runner.py:625).
    record = parser.record
    text = line.text
    secs = re.search(rf"(?:elapsed=|Time elapsed: )({NUM}) ?s", text)
    gib = re.search(rf"mem usage=({NUM}) GB", text)
    if _DRAFT_CAPTURE.match(text):
        if gib:
            record.draft_cuda_graph_gib = round((record.draft_cuda_graph_gib or 0.0) + float(gib.group(1)), 2)
    else:
        if gib:
            record.cuda_graph_gib = round((record.cuda_graph_gib or 0.0) + float(gib.group(1)), 2)
        if avail := re.search(rf"avail mem=({NUM}) GB", text):
            record.avail_mem_after_graph_gib = float(avail.group(1))
    if secs:
        record.graph_capture_seconds = round((record.graph_capture_seconds or 0.0) + float(secs.group(1)), 2)


_DRAFT_CAPTURE = re.compile(r"^Capture (?:[\w-]+ )*draft\b")
# A graph runner's own exception when its capture failed: "Capture cuda graph failed: {e}" (0.4.6
# sglang/srt/model_executor/cuda_graph_runner.py:279; 0.5.22 runner/decode_cuda_graph_runner.py:518), "Capture prefill
# CUDA graph failed: {e}" (0.5.22 runner/prefill_cuda_graph_runner.py:496), "Capture CPU graph failed: {e}" (0.5.10
# cpu_graph_runner.py:570)
_GRAPH_CAPTURE_FAILED = re.compile(r"\bCapture (?:\w+ )*(?:graph|Graph) failed: ")
# The same exception as a line of its own, raised only by a failed capture (0.5.22 runner/decode_cuda_graph_runner.py
# :516-519, in the capture's `except RuntimeError`): the last line of the traceback the scheduler logs
# (managers/scheduler.py:6138 "Scheduler hit an exception: {traceback}"), after the exception that caused it.
_GRAPH_CAPTURE_EXCEPTION = re.compile(r"^\s*Exception: Capture (?:\w+ )*(?:graph|Graph) failed: ")


# One field of the summary as it prints it (0.5.22 sglang/srt/managers/scheduler.py:1234-1240), the pool's aside
_SUMMARY_FIELD = (r"(?:(?:chunked_prefill_size|max_prefill_tokens|max_running_requests|context_len)=-?\d[\d,]*?|"
                  rf"available_(?:gpu|cpu|npu|xpu|hpu|musa|mps|mlx)_mem={NUM} GB)")
_SUMMARY = (
    (re.compile(r"chunked_prefill_size=(-?[\d,]+|None)"), "chunked_prefill_size_effective"),
    (re.compile(r"max_prefill_tokens=(-?[\d,]+)"), "max_prefill_tokens"),
    (re.compile(r"max_running_requests=(-?[\d,]+)"), "max_running_requests"),
    (re.compile(r"context_len=(-?[\d,]+)"), "context_len"),
    (re.compile(rf"available_(?:gpu|cpu|npu|xpu|hpu|musa|mps|mlx)_mem=({NUM}) GB"), "available_mem_gib"),
)


def _summary_fields(record: StartupRecord, text: str, overwrite: bool) -> None:
    """The scheduler summary's fields `text` states (`overwrite`: also those the record holds already)."""
    for regex, field in _SUMMARY:
        match = regex.search(text)
        if match and (overwrite or getattr(record, field) is None):
            setattr(record, field, coerce(field_kinds(type(record))[field], match.group(1)))


def _scheduler_summary(parser: LogParser, values: dict, line: Line) -> None:
    # Keys were added over time (chunked_prefill_size in 0.4.x, available_gpu_mem later,
    # available_cpu_mem on CPU); a truncated line still yields what it has.
    record = parser.record
    placeholder = _mlx_placeholder(parser, record.kv_tokens)
    _summary_fields(record, line.text, overwrite=True)
    device = re.search(r"available_(gpu|cpu|npu|xpu|hpu|musa|mps|mlx)_mem=", line.text)
    if device:
        record.device = device.group(1)
    record.max_model_len = record.context_len
    parser.summary_read = True
    if placeholder:
        record.kv_tokens = None
        return
    kv_sized(parser, values, line)


def _mlx_placeholder(parser: LogParser, tokens: int | None) -> bool:
    """The MLX stub's figure, echoed (bench_one_batch prints the model runner's max_total_num_tokens, 0.5.23
    sglang/benchmark/one_batch.py:373) before MLX's own runner sized a pool: the stub's fallback, not a pool."""
    return tokens is not None and tokens == parser.mlx_stub_tokens and parser.record.device != "mlx"


def _mlx_stub_pools(parser: LogParser, values: dict, line: Line) -> None:
    # The torch-side stub of SGLang's MLX backend keeps the scheduler's pools on the CPU and allocates no KV cache
    # (0.5.23 sglang/srt/hardware_backend/mlx/model_runner_stub.py:333-338 "MLX stub: initialized minimal pools
    # (max_total_num_tokens=N, max_running_requests=M, zero GPU KV cache allocation)"); N is the MLX runner's pool
    # size where that runner was built first, else the model's context length (:282-287). MLX's own lines state
    # its pool ("Auto-sized attention KV pool", "MlxAttentionKVPool"): until one has, N is no pool.
    parser.mlx_stub_tokens = int(values["stub_tokens"])


def _mlx_sized_if_stated(parser: LogParser, values: dict, line: Line) -> None:
    if "mlx_pool" in values:
        _mlx_sized(parser, values, line)


def _mlx_sized(parser: LogParser, values: dict, line: Line) -> None:
    # MLX's runner sizes its attention pool from its budget and the stub takes that size as the scheduler's
    # max_total_num_tokens (0.5.23 sglang/srt/hardware_backend/mlx/model_runner.py:669-701 _compute_pool_size,
    # "..., bytes_per_slot=B, pool_size=N"; tp_worker.py:105-118 mlx_pool_size=...pool_size; model_runner_stub.py:
    # 284-285): the pool's size as the summary would print it. The pool line itself ("MlxAttentionKVPool: N+1 slots",
    # the padding slot included, kv_cache/attention_kv_pool.py:49), built at the first forward (tp_worker.py:128-133),
    # states it when it comes.
    record = parser.record
    record.pool_tokens, record.device = int(values["mlx_pool"]), "mlx"
    parser.runner_sized_pool = True


def _summary_field_alone(parser: LogParser, values: dict, line: Line) -> None:
    """One of the summary's later fields on a line of its own, after the summary's first: an author who broke the
    summary at its commas, one field a line (gpu-logs-57 sglang/01). Read only after that first field and only where
    the summary left the field unstated, so a listing of server arguments (their own names, read elsewhere) or a later
    summary's pair never overwrites what a whole line said."""
    if not parser.summary_read:
        return
    record = parser.record
    _summary_fields(record, line.text, overwrite=False)
    if record.max_model_len is None:
        record.max_model_len = record.context_len


@dataclass
class SglangStartupRecord(StartupRecord):
    """What an SGLang startup log states beyond the neutral record: its scheduler's limits and its pool."""

    CSV_FIELDS: ClassVar[tuple[str, ...]] = (*StartupRecord.CSV_FIELDS, "max_running_requests", "max_prefill_tokens",
                                             "context_len", "mem_fraction_static_effective")

    max_running_requests: int | None = None
    max_prefill_tokens: int | None = None
    context_len: int | None = None
    mem_fraction_static_effective: float | None = None
    available_mem_gib: float | None = None  # scheduler summary: available_gpu_mem / available_cpu_mem
    avail_mem_before_load_gib: float | None = None
    avail_mem_after_load_gib: float | None = None
    avail_mem_after_pool_gib: float | None = None
    pool_tokens: int | None = None  # "#tokens" of the KV pool (per rank); a sliding-window model's full pool
    swa_pool_tokens: int | None = None  # a sliding-window model's pool for its sliding-window layers
    state_pool_slots: int | None = None  # a hybrid model's recurrent-state pool, in requests (max_mamba_cache_size)
    state_pool_gib: float | None = None  # ... its buffers' sizes added
    draft_kv_gib: float | None = None  # a speculative-decoding draft model's own KV pool
    draft_pool_tokens: int | None = None
    k_gib: float | None = None  # the K and V sizes the pool lines print (the target's pools added)
    v_gib: float | None = None
    draft_k_gib: float | None = None
    draft_v_gib: float | None = None
    state_conv_gib: float | None = None  # a hybrid model's state buffers (conv_state, ssm_state sizes)
    state_ssm_gib: float | None = None
    # a speculative server's draft model: its own Load weight pair and pool end (the record's are the target's)
    draft_avail_mem_before_load_gib: float | None = None
    draft_avail_mem_after_load_gib: float | None = None
    draft_weights_gib: float | None = None
    avail_mem_after_draft_pool_gib: float | None = None
    avail_mem_after_graph_gib: float | None = None  # after the target's last graph capture
    draft_cuda_graph_gib: float | None = None  # a speculative draft model's own graphs (cuda_graph_gib: the target's)
    state_intermediate_gib: float | None = None  # a hybrid model's intermediate SSM/conv caches (in the state pool)
    # What looks like the pool and is not (never in kv_tokens / kv_gib): kvcached's virtual reservation, a
    # hierarchical cache's host memory
    virtual_kv_tokens: int | None = None
    virtual_kv_gib: float | None = None
    host_kv_tokens: int | None = None
    host_kv_gib: float | None = None
    host_other_gib: float | None = None  # a hierarchical cache's other host pools: Mamba state, indexer keys
    total_memory_gib: float | None = None  # the device's total memory, where the log states it
    # the memory profile behind the pool (0.5.22 sglang/srt/model_executor/pool_configurator.py profile; the
    # DeepSeek-V4 pools' own calculation line)
    profile_available_gib: float | None = None
    profile_total_gib: float | None = None
    profile_mem_fraction_static: float | None = None
    profile_rest_gib: float | None = None
    pool_budget_gib: float | None = None  # DSV4: the bytes left for the pools; MLX: its runner's KV budget
    cell_bytes: float | None = None  # DSV4: bytes per full-attention token, all pools included
    max_total_tokens: int | None = None  # --max-total-tokens as given
    profiled_max_total_tokens: int | None = None  # when --max-total-tokens was above what fits
    max_running_requests_requested: int | None = None  # when the engine reduced it
    cuda_graph_decode_backend: str | None = None
    cuda_graph_decode_max_bs: int | None = None
    cuda_graph_prefill_backend: str | None = None
    cuda_graph_prefill_max_bs: int | None = None
    # the launcher's startup timings, from 0.5.17 (0.5.23 sglang/srt/entrypoints/engine.py:1109-1118): the slowest
    # rank's KV pool allocation and scheduler start-up, and the whole launch as the tokenizer manager saw it
    kv_cache_allocation_seconds: float | None = None
    scheduler_startup_seconds: float | None = None
    engine_startup_seconds: float | None = None


class SglangLogParser(LogParser):
    record_type = SglangStartupRecord
    kv_event_fields = (*LogParser.kv_event_fields, "max_running_requests", "context_len")
    engine = "sglang"
    engine_packages = ("sglang", "sgl_kernel")
    # SGLang captures its graphs before the scheduler summary, which is the KV line here.
    phases = ("starting", "loading", "profiling", "capturing", "kv_sized", "ready")

    # The engine's own words for a process that failed: a manager's logged exception (0.4.0 managers/scheduler.py
    # "Scheduler hit an exception: {traceback}", likewise the tokenizer and detokenizer managers and the DP
    # controller), and the launcher's handler of the SIGQUIT a failing child sends it (0.5.23
    # sglang/srt/entrypoints/engine.py:1978, logger.error).
    failure_markers = re.compile(r"^(?:\w+ hit an exception\b|Received sigquit from a child process\b)")
    # Two places only a start passes through: the scheduler process builds its Scheduler in one call, whose
    # exceptions its handler logs as "Scheduler hit an exception" before it signals the launcher (0.5.6
    # sglang/srt/managers/scheduler.py:2653 `scheduler = Scheduler(`, :2695-2698; 0.5.23 :6362, :6372), so
    # Scheduler.__init__ runs nowhere else; and the launcher waits for every scheduler's ready message in one place and
    # goes on once all are ready (0.5.6 sglang/srt/entrypoints/engine.py:915 `data = scheduler_pipe_readers[i].recv()`
    # inside _launch_subprocesses, re-raised at :922; 0.5.23 :2013 _wait_for_scheduler_ready, :2027, called at :995).
    # A traceback through either, whose header the excerpt cut, is a failed start's (gpu-logs-46 sglang/07, /08).
    # So are the model worker's constructors the Scheduler's runs, and nothing else: the TP worker (0.4.6.post5
    # sglang/srt/managers/tp_worker.py:78 and the overlap scheduler's client around it, tp_worker_overlap_thread.py:64
    # `self.worker = TpModelWorker(`; 0.5.6 scheduler.py:316, tp_worker.py:245 `self._model_runner = ModelRunner(`)
    # and the ModelRunner's __init__ with the initialize it alone calls (0.4.6.post5 model_runner.py:231, 0.5.6 :361
    # `self.initialize(min_per_gpu_memory)`). (Not the graph runner's setup: 0.5.6 model_runner.py:987 re-runs
    # init_device_graphs when a served engine updates its weights.) An excerpt that cut the scheduler's frames above
    # them stops there (gpu-logs-84 sglang/03: the overlap client's __init__ down to CudaGraphRunner's raise).
    START_FRAMES = re.compile(r'^\s*File "[^"]*(?:managers/scheduler\.py", line \d+, in __init__|'
                              r'entrypoints/engine\.py", line \d+, in '
                              r'(?:_wait_for_scheduler_ready|_launch_subprocesses)|'
                              r'managers/tp_worker(?:_overlap_thread)?\.py", line \d+, in __init__|'
                              r'model_executor/model_runner\.py", line \d+, in (?:__init__|initialize))$')
    screen_texts = ("managers/scheduler.py", "entrypoints/engine.py", "managers/tp_worker",
                    "model_executor/model_runner.py", *TRAINER_STEP_TEXTS)

    # Every wording is matched wherever it starts in the message, whatever follows it.
    rules = (
        rule(r"server_args=(?P<args>(?:ServerArgs\(|\{).*)$", _server_args),
        rule(r"^(?:server_args: |)(?P<args>ServerArgs\(.*)$", _server_args),
        rule(r"Load weight begin\. avail mem=(?P<gib>{NUM}) GB", _load_begin, primary_only=True),
        # (the engine's "Load weight end. elapsed=..., type=..., avail mem=X GB, mem usage=Y GB." - 0.5.17
        # sglang/srt/model_executor/model_runner.py:1099-1106; an author who elides its middle writes " ... " after the
        # words, "Load weight end ... avail mem=2.74 GB, mem usage=8.74 GB.", gpu-logs-63 sglang/01: the figures
        # after it are still the engine's)
        rule(r"Load weight end(?:\. (?!Committed)| (?:\.\.\.|\u2026) )", _load_end, primary_only=True),
        # (the pool's label is a word at the message's start, 0.5.17 sglang/srt/mem_cache/memory_pool.py:1659-1671
        # f"{self.allocation_label} KV Cache is allocated. ..."; spaces before it are an author's indent of the block)
        # SGLang's JAX port says it without "is" ("JAX KV Cache allocated. #tokens: N, K size: ...", "JAX MLA KV Cache
        # allocated. #tokens: N, KV size: ...", sglang-jax 0.0.1.post1 sgl_jax/srt/mem_cache/memory_pool.py:329-332 and
        # :941-944), as an author who shortens SGLang's own line does
        rule(r"^\s*(?:(?P<label>\S.*?) )??(?:(?:KV Cache|KV cache|Cache) (?:is allocated|VA upper bound)|"
             r"KV Cache allocated(?=\. #tokens: ))\. ", _kv_pool, primary_only=True),
        rule(r"^ModelRunner max_total_num_tokens: (?P<tokens>\d+)$", _runner_pool_size, primary_only=True),
        rule(r"^TPU Memory profiling: available_device_memory={NUM}GB, available_kv_cache={NUM}GB, "
             r"max_tokens=(?P<profiled_max_total_tokens>\d+),", primary_only=True),
        rule(r"Post-capture KV sizing: (?P<label>draft )?KV cache allocated\.", _kv_pool, primary_only=True),
        rule(r"^\s*K size: (?P<k>{NUM}) GB, V size: (?P<v>{NUM}) GB", _kv_halves_below, primary_only=True),
        rule(r"(?:Use [Ss]liding window memory pool\.|Post-capture KV sizing:) full_layer_tokens=(?P<full>[\d,]+), "
             r"swa_layer_tokens=(?P<swa>[\d,]+)", _swa_split, primary_only=True),
        rule(r"^Physical KV Cache limits by --mem-fraction-static: #tokens: ", _physical_pool, primary_only=True),
        rule(r"^(?P<label>VirtualKV) Cache is allocated(?: \(group_id=\d+\))?\. ", _virtual_pool, primary_only=True),
        rule(r"^Allocating (?P<gib>{NUM}) GB host memory for ", _host_memory, primary_only=True),
        # 0.5.21 states the host KV pool's tokens first ("Allocating %s hierarchical KV host pool: %d tokens, %.2f GB
        # host memory." and its packed-MTP form, sglang/srt/mem_cache/pool_host/base.py:236 and :248): a host pool too
        rule(r"^Allocating \S+ hierarchical KV host pool: (?P<tokens>[\d,]+) tokens, (?P<gib>{NUM}) GB host memory",
             _host_memory, primary_only=True),
        # the memory profile (0.5.22 pool_configurator.py profile_available_bytes; a long line, often wrapped)
        rule(r"^Memory profiling: available_gpu_memory=(?P<profile_available_gib>-?{NUM}) GB, "
             r"total_gpu_memory=(?P<profile_total_gib>{NUM}) GB, mem_fraction_static=(?P<profile_mem_fraction_static>"
             r"{NUM}), rest_memory=(?P<profile_rest_gib>-?{NUM}) GB", primary_only=True),
        # "Not enough memory. ... --mem-fraction-static." then, on the next line of the same message, the value used
        # (0.4.x "\nCurrent value: {self.server_args.mem_fraction_static=}"; 0.5.22 pool_configurator.py:95)
        rule(r"^Current value: (?:self\.)?(?:server_args\.)?mem_fraction_static=(?P<gib>{NUM})", _current_fraction),
        # server arguments shown as bare key=value pairs (an author's "server_args ... tp_size=4 ...
        # mem_fraction_static=0.8 ...", or one pair a line): the fraction the pools were sized with
        # (a back quote after it: the end of a markdown code span an author quoted the message in)
        rule(r"(?:^|\s)mem_fraction_static=(?P<gib>{NUM})(?:\s|,|`|$)", _current_fraction),
        # DeepSeek-V4's pools (0.5.22 pool_configurator.py:1526 "DSV4 pool sizes: full=F, swa=S, c4=...", :1600
        # "DSV4 memory calculation: ... bytes_per_full_token=B, available_bytes=A GB, ... full_token=F"; a 2026
        # build's "DSv4 memory calculation: bytes_per_full_token=..., available_bytes=... GB, full_token=..." and
        # "SW KV memory calculation: ..." for other sliding-window models)
        rule(r"^(?:DSV4|DSv4|SW KV) memory calculation: .*?bytes_per_full_token=(?P<cell_bytes>{NUM}), "
             r"available_bytes=(?P<pool_budget_gib>-?{NUM}) GB, .*?full_token=(?P<pool_tokens>\d+(?:,\d{3})*)",
             primary_only=True),
        rule(r"^DSV4 pool sizes: full=(?P<full>\d+(?:,\d{3})*), swa=(?P<swa>\d+(?:,\d{3})*)", _swa_split,
             primary_only=True),
        rule(r"^Initialize DeepSeekV4TokenToKVPool with ", _dsv4_pool_built, primary_only=True),
        # an all-sliding-window model (Gemma 4): one SWA pool, no full one (0.5.22 pool_configurator.py:843)
        rule(r"^Use sliding window memory pool \(all SWA\)\. swa_layer_tokens=(?P<swa>\d+(?:,\d{3})*)", _all_swa,
             primary_only=True),
        # Apple MLX: its own pool, in MB (0.5.13-0.5.23 sglang/srt/hardware_backend/mlx/kv_cache/attention_kv_pool.py:
        # 49-53 "MlxAttentionKVPool: {pool_size} slots x {num_layers} layers x {n_kv_heads} heads x {head_dim} dim,
        # dtype={dtype}, ~{mem_mb:.1f} MB"; 0.5.11-0.5.12 mlx/kv_cache/kv_pool.py:43-47 "MlxKVPool: ... slots × ...
        # layers × ..."). Every release prints the dtype and size; a guide quoting the line without them (gpu-logs-57
        # sglang/02) still states the pool's slots.
        rule(r"^Mlx(?:Attention)?KVPool: (?P<tokens>\d+(?:,\d{3})*) slots [x\u00d7] [\d,]+ layers [x\u00d7] [\d,]+ "
             r"heads [x\u00d7] [\d,]+ dim(?:, dtype=(?P<kv_cache_dtype>\S+), ~(?P<mib>{NUM}) MB)?", _mlx_pool,
             primary_only=True),
        # ... and the budget it sized that pool from (0.5.23 sglang/srt/hardware_backend/mlx/model_runner.py:694;
        # "Auto-sized KV pool: ..." in 0.5.11 model_runner.py:237-244 and 0.5.12 :302-309)
        rule(r"^Auto-sized (?:attention )?KV pool: sys_available={NUM} GB, mlx_limit={NUM} GB, mlx_used={NUM} GB, "
             r"kv_budget=(?P<pool_budget_gib>{NUM}) GB"
             r"(?:, bytes_per_slot=\d+, pool_size=(?P<mlx_pool>\d+))?", _mlx_sized_if_stated, primary_only=True),
        rule(r"^MLX stub: initialized minimal pools \(max_total_num_tokens=(?P<stub_tokens>\d+),", _mlx_stub_pools,
             primary_only=True),
        rule(r"^SWAKVPool (?:mem usage|VA upper bound): (?P<gib>{NUM}) GB, swa size: (?P<swa>[\d,]+), "
             r"full size: (?P<full>[\d,]+)", _swa_total, primary_only=True),
        # the page size an attention backend forces, said before the server arguments print it (0.5.23
        # sglang/srt/arg_groups/model_overrides/deepseek_v4.py:61-63 "Use dsv4 attention backend for {arch}, setting
        # page_size to {page_size}."; arg_groups/overrides.py:1152 "FlashMLA only supports a page_size of 64, change
        # page_size to 64."; :1161, :1171, :1185, :1195, :1294 "... changing page_size from {page_size} to 64.")
        rule(r"\b(?:setting|change|changing) page_size (?:from \S+ )?to (?P<block_size>\d+)\.", primary_only=True),
        rule(r"Setting KV cache dtype to (?P<kv_cache_dtype>\S+?)\.? for ", _kv_dtype_set),
        # 0.5.3-0.5.12 say it once before the pool (0.5.8 sglang/srt/model_executor/model_runner.py:1585)
        rule(r"Using KV cache dtype: (?P<kv_cache_dtype>\S+)", _kv_dtype_set),
        rule(r"Memory pool end\. avail mem=(?P<gib>{NUM}) GB", _pool_end, primary_only=True),
        rule(r"max_total_tokens=(?P<max_total_tokens>[\d,]+) is larger than the profiled value "
             r"(?P<profiled_max_total_tokens>-?[\d,]+)\."),
        rule(r"max_running_requests was reduced from the requested (?P<max_running_requests_requested>[\d,]+) to "
             r"(?P<max_running_requests>[\d,]+)"),
        rule(r"Automatically reduce --mem-fraction-static to (?P<mem_fraction_static_effective>{NUM})"),
        # nvidia-smi failed or printed no figure (a unified-memory GB10, MIG): the device's total from torch, in MiB
        # (0.5.23 sglang/srt/utils/common.py:790 _cuda_mem_fallback, "{reason} Falling back to
        # torch.cuda.mem_get_info(). Reported total GPU memory per device (MiB): [...], using min: N MiB.")
        rule(r"Falling back to torch\.cuda\.mem_get_info\(\)\. Reported total GPU memory per device \(MiB\): "
             r"\[[^\]]*\], using min: (?P<mib>\d+) MiB", _total_mib),
        # a speculative server's default (0.5.23 sglang/srt/arg_groups/speculative_hook.py:445 and :859, :999,
        # :1093, :1301): the summary, when it comes, states the limit used
        rule(r"Max running requests is reset to (?P<max_running_requests>\d+) for speculative decoding"),
        # the rank's request limit once its token capacity is final (0.5.13 sglang/srt/model_executor/
        # model_runner_kv_cache_mixin.py:904-907 _resolve_max_num_reqs, stored as config.max_running_requests at :962;
        # tp_worker.py:298 hands the model runner's to the scheduler, whose summary prints it): the summary, when it
        # comes, states the same limit
        rule(r"^Max concurrent requests \(per dp worker\) from the finalized token capacity: "
             r"max_num_reqs=(?P<max_running_requests>\d+)\."),
        # the rank's request limit when the hybrid model's state pool holds fewer requests than the token pool would
        # (0.5.23 sglang/srt/mem_cache/kv_cache_configurator.py:3137-3149 resolve_max_num_reqs, a warning: "max_running_
        # requests is capped to %d by the mamba state cache (max_mamba_cache_size=%d, %d state slots per request). To
        # raise it: ..."; the same in 0.5.22): the cap and the state pool's slots, never a KV figure. A cap of 0 is
        # followed by the "state cache is too small to serve any requests" RuntimeError (:3151-3160), which decides
        # the start; the warning alone does not. An author may break the line before its figures (gpu-logs-96
        # sglang/01, the figures on the next line under a deeper indent): read on until them
        rule(r"max_running_requests is capped to (?P<max_running_requests>\d+) by the mamba state cache\b(?: \("
             r"max_mamba_cache_size=(?P<state_pool_slots>[\d,]+), (?P<state_slots_per_request>\d+) state slots per "
             r"request\))?", until=r"state slots per request"),
        # the figures of "Hybrid (mamba/linear-attention) state cache is too small to serve any requests.", where the
        # message's second sentence stands on a line of its own (0.5.23 kv_cache_configurator.py:3154)
        rule(r"^max_mamba_cache_size=(?P<max_mamba_cache_size>-?[\d,]+), mamba_ratio=(?P<mamba_ratio>{NUM}), resulting "
             r"max_num_reqs=(?P<max_num_reqs>-?[\d,]+)", _state_figures),
        # ... and of "Not enough GPU memory for hybrid (mamba/linear-attention) state cache.", whose second sentence an
        # author put on a line of its own (0.5.17 kv_cache_configurator.py:1963-1972, one message: "... state cache.
        # Computed max_mamba_cache_size=N (total_rest_memory=X GB, mamba_cache_per_req=Y MB). Try: ...")
        rule(r"^\s*Computed max_mamba_cache_size=(?P<max_mamba_cache_size>-?[\d,]+) \(total_rest_memory="
             r"(?P<rest_gib>{NUM}) GB, mamba_cache_per_req=(?P<per_slot_mib>{NUM}) MB\)", _state_figures),
        rule(r"Automatically turn of+ --chunked-prefill-size", set_fields(chunked_prefill_size_effective=-1)),
        rule(r"^KV pool holds (?P<pool_tokens>-?[\d,]+) tokens, fewer than --context-length (?P<context_len>[\d,]+)"),
        rule(r"^Engine startup timings \(s\): load_weight={NUM}, kv_cache_allocation=(?P<kv_cache_allocation_seconds>"
             r"{NUM}), scheduler_e2e=(?P<scheduler_startup_seconds>{NUM}), cuda_graph=\{[^}]*\}, "
             r"tokenizer_e2e=(?P<engine_startup_seconds>{NUM})"),
        rule(r"^Capture .*(?:graph|CG|Graph).* begin\.", _graph_begin),
        rule(r"^Capture cuda graph bs \[", _graph_begin),
        # SGLang's own progress bars are steps only a start passes through: a window that ends inside one ended in that
        # phase (gpu-logs-79 sglang/03, /04: the capture bar alone, no "Capture cuda graph begin" line in the window).
        # The capture bar's description (0.5.10.post1 sglang/srt/model_executor/cuda_graph_runner.py:783-785
        # f"Capturing batches ({bs=} {avail_mem=:.2f} GB)", cpu_graph_runner.py:605-607 the same; the piecewise
        # runner's f"Capturing num tokens ({num_tokens=} {avail_mem=:.2f} GB)", piecewise_cuda_graph_runner.py:459-461)
        # may follow a joined tqdm frame ("  0%|...| 0/4 [...]Capturing batches ..."): matched anywhere in the line
        rule(r"Capturing (?:batches \(bs|num tokens \(num_tokens)=\d+ avail_mem={NUM} GB\)", phase("capturing")),
        # ... and the weights' loading bars (0.5.10.post1 sglang/srt/model_loader/weight_utils.py:679 "Loading np_cache
        # checkpoint shards", :713 "Loading safetensors checkpoint shards", :807 and :857 "Multi-thread loading
        # shards", :907 "Loading pt checkpoint shards", :935 "Multi-thread loading pt checkpoint shards"; gpu-logs-79
        # sglang/08: a window that is the multi-thread bar alone)
        rule(r"(?:Loading (?:safetensors|pt|np_cache) checkpoint shards|Multi-thread loading (?:pt checkpoint )?shards)"
             r": +\d+% Completed \|", phase("loading")),
        rule(r"^Capture .*(?:graph|CG|Graph).* end\.", _graph_captured, primary_only=True),
        rule(r"^Capture \w+ \w+ .+ begin\. ", phase("capturing")),
        rule(r"^Capture \w+ \w+ .+ end\. ", _graph_captured, primary_only=True),
        # the scheduler summary: every KV figure is final here
        # every rank prints its own (sglang 0.4.0 sglang/srt/managers/scheduler.py): rank 0's is the row's. The
        # figure ends at the comma before chunked_prefill_size (0.5.22 scheduler.py:1234-1240), or where an author
        # cut the rest of the line or elided its middle ("max_total_num_tokens=3263680 ... max_running_requests=2048",
        # gpu-logs-19 sglang/03; each later field is read on its own)
        rule(r"^max_total_num_tokens=(?P<kv_tokens>-?[\d,]+)(?:,| (?:\.\.\.|\u2026)|$)", _scheduler_summary,
             primary_only=True),
        # ... or its fields as an author re-laid them on one line: picked out of it (grep -o prints each match alone,
        # in the order found) and joined by spaces in any order, the pool's field among them, after an arrow where the
        # author showed them as a command's output ("→ context_len=1048576    max_total_num_tokens=1082627",
        # gpu-logs-92 sglang/02). The names and figures are the summary's own (0.5.22 scheduler.py:1234-1240); a
        # line of nothing but those fields is that line, whatever the order
        rule(rf"^(?:(?:\u2192|->|=>)\s+)?(?:{_SUMMARY_FIELD},?\s+)*max_total_num_tokens=(?P<kv_tokens>-?\d[\d,]*?)"
             rf"(?:,?\s+(?:{_SUMMARY_FIELD}))*,?$", _scheduler_summary, primary_only=True),
        # ... its later fields, each alone on a line, where an author broke it at its commas (0.5.22 scheduler.py:
        # 1234-1240 logs them as one message: "max_total_num_tokens=..., chunked_prefill_size=..., max_prefill_tokens=
        # ..., max_running_requests=..., context_len=..., available_gpu_mem=... GB")
        rule(r"^(?:(?:chunked_prefill_size|max_prefill_tokens|max_running_requests|context_len)=-?[\d,]+|"
             r"available_(?:gpu|cpu|npu|xpu|hpu|musa|mps|mlx)_mem={NUM} GB),?$", _summary_field_alone,
             primary_only=True),
        # the engine's own version, where a line states it (pip, check_env, launch wrappers)
        rule(r"\b(?:sglang|SGLang)(?: version)?(?:==|: | )v?(?P<version>\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)\b", version),
        rule(r"The server is fired up and ready to roll!", ready),
        # the HTTP server is up: what fails from here until "fired up" fails the warm-up request, which the server
        # sends itself once it serves (0.5.21 sglang/srt/entrypoints/http_server.py:2257 _execute_server_warmup: GET
        # /model_info, then a generate request; :2476 "fired up" after it)
        rule(r"^(?:INFO:\s+)?Application startup complete\.", _http_up),
        # ... and so when uvicorn says where it listens (it prints that after "Application startup complete.") or when
        # the warm-up's first request, GET /model_info (/get_model_info in older releases), is answered (0.5.22
        # http_server.py:2301 in _execute_server_warmup, before the generate request)
        rule(r"^(?:INFO:\s+)?Uvicorn running on ", _http_up),
        rule(r"^Running warmup (?P<name>[\w-]+)$", _custom_warmup, before_ready=True),
        # ... or when a request the server answers from its first moment is answered: the warm-up's GET /model_info,
        # or /v1/models (no startup gate: 0.5.6 sglang/srt/entrypoints/http_server.py:1203 available_models; a
        # platform's readiness probe, GPUStack's, asks it while the server warms up - gpu-logs-31 sglang/01)
        *(rule(rf'"GET /{path} HTTP/[\d.]+" 200\b', _http_up, before_ready=True) for path in ("model_info",
                                                                                          "get_model_info",
                                                                                          "v1/models")),
        rule(SERVED_REQUEST, ready, before_ready=True),
        # a resume of the memory a started engine released: RL frameworks pause the engine while their trainer runs
        # and resume it for the next rollout (verl's "resume_memory_occupation" requests, gpu-logs-55 sglang/03-04). The
        # scheduler takes it as a request (0.5.5 sglang/srt/managers/scheduler.py:557, ResumeMemoryOccupationReqInput;
        # the HTTP route, entrypoints/http_server.py:925) and re-maps what a release paused
        # (managers/scheduler_update_weights_mixin.py:139-164, removing the tags release_memory_occupation added at
        # :118-119): the start had completed before it, and a failure in it is at serving time. (A name an author
        # quotes in backticks is prose.)
        rule(r"(?<!`)\bresume_memory_occupation\b(?!`)", ready, before_ready=True),
        # a request the scheduler received and refused for its length (0.4.3.post2 sglang/srt/managers/utils.py:34-38
        # validate_input_length, called by scheduler.py:671 handle_generate_request): a user's request, as a '200 OK'
        # is (the server's own warm-up request is a few tokens) - the start had completed (gpu-logs-40 sglang/04)
        rule(r"^Input length \(\d+ tokens\) exceeds the maximum allowed length \(\d+ tokens\)\.", ready,
             before_ready=True),
        # a health check answered 200: the server is up (it answers 503 while starting, 0.5.22 http_server.py:719,
        # and is up once its warm-up request was answered, :2424)
        *(rule(answered, ready, before_ready=True) for answered in HEALTH_ANSWERED),
        # MLPerf LoadGen's summary of a finished test (base.py loadgen_rules)
        *loadgen_rules(),
        # ... and so a health check that failed there, past the start gate (_health_check_failed)
        rule(r"^Health check failed\. Server couldn't get a response from detokenizer for last \d+ seconds\.",
             _health_check_failed, before_ready=True),
        rule(r"(?P<signal>SIGTERM|SIGINT) received\.", stopping),
        *oom_part_rules(),
        # a batch the scheduler ran (0.5.18 sglang/srt/managers/scheduler_components/metrics_reporter.py:579
        # "Prefill batch{iter_msg}, #new-seq: ..."; 0.4.x "Prefill batch. #new-seq: ..."; a fork's "Prefill rank
        # batch, ..."): its event loop serves requests from here, the warm-up's first
        # ... a prefill batch that reused more cached tokens than any warm-up prompt holds: a request after an earlier
        # one, the start completed. The count is the prefix the batch's requests matched in the cache (0.5.6
        # sglang/srt/managers/scheduler_metrics_mixin.py:143 "#cached-token: {adder.log_hit_tokens}", summed at
        # schedule_policy.py:451; 0.5.23 scheduler_components/metrics_reporter.py:757). The server's own warm-up is a
        # fresh server's first request into an empty cache: a short text, three ids, or a chat with one minimal picture
        # (0.5.6 sglang/srt/entrypoints/http_server.py:1507-1547) - hundreds of tokens at most, found cached only in a
        # store kept across restarts; a few cached tokens decide nothing (gpu-logs-38 sglang/07's 11), a thousand do
        # (gpu-logs-46 sglang/06's 2212), as an over-long input is a user's (above)
        rule(r"^Prefill(?: \w+)? batch\b.*?#cached-token: [1-9]\d{3}", _batch_after_start, before_ready=True),
        # ... or a decode batch whose running requests hold a thousand tokens or more (0.5.9
        # sglang/srt/managers/scheduler_metrics_mixin.py:332-358 "#token: N" or, for a hybrid model, "#full token: N",
        # the tokens in use): the warm-up is a few tokens and 8 new ones (0.5.9 http_server.py:1702), so such a batch
        # serves a request after it - the start completed, as a cached thousand tokens say (gpu-logs-53 sglang/04)
        rule(r"^Decode(?: \w+)? batch\b.*?#(?:full )?token: [1-9]\d{3}", _batch_after_start, before_ready=True),
        # ... or a prefill batch with other requests running or queued beside it. The warm-up is one request per DP
        # rank (0.4.6.post5 sglang/srt/entrypoints/http_server.py:833-841, ["The capital city of France is"] *
        # dp_size; 0.5.6 :1515), handed one to each scheduler (0.4.6.post5 managers/data_parallel_controller.py:249-254
        # round_robin_scheduler; its shortest-queue method raises NotImplementedError), so a scheduler's prefill line
        # whose "#running-req: {running_bs}" or "#queue-req: {len(self.waiting_queue)}" is not 0 (0.4.6.post5
        # managers/scheduler.py:1146-1159, 0.5.6 managers/scheduler_metrics_mixin.py:140-146) holds requests after
        # the warm-up - the start completed (gpu-logs-89 sglang/01, sglang#6624: 50 running, 18 queued). The counts
        # and the line's "token usage" are serving figures, never a pool
        rule(r"^Prefill(?: \w+)? batch\b.*?#(?:running|queue)-req: [1-9]", _batch_after_start, before_ready=True),
        # ... or a flush of the cache refused because requests are pending: the scheduler's flush_cache, asked for by
        # /flush_cache or by a weight update that flushes after it (update_weights_from_disk/tensor/distributed with
        # flush_cache, as RL frameworks call them between rollouts), prints "Cache not flushed because there are pending
        # requests. #queue-req: {len(self.waiting_queue)}, #running-req: {len(self.running_batch.reqs)}" (0.4.8
        # sglang/srt/managers/scheduler.py:2040-2044, 0.5.6 :2250, 0.5.23 :5542). Requests queued or running beside it,
        # as beside a prefill batch (above), are requests after the warm-up - the start completed (gpu-logs-107
        # sglang/01-02, AReaL's weight updates of its generation servers with 7 and 2 requests running). The counts are
        # serving figures, never a pool
        rule(r"^Cache not flushed because there are pending requests\. "
             r"#queue-req: (?:[1-9]\d*, #running-req: \d+|\d+, #running-req: [1-9])", _batch_after_start,
             before_ready=True),
        rule(r"^(?:Prefill|Decode)(?: \w+)? batch\b", _batch_run, before_ready=True),
        # the scheduler watchdog's dump of the batch it found stuck: a batch in the event loop (0.5.5
        # sglang/srt/managers/scheduler_runtime_checker_mixin.py:250 "self.cur_batch.batch_size()=N" on its own line,
        # 0.5.4 scheduler.py:2277 the same at the head of one line; 0.5.7-0.5.10 "scheduler.cur_batch.batch_size()=N"
        # under "Scheduler debug info:", scheduler_runtime_checker_mixin.py:396, not printed while initializing)
        rule(r"^(?:self|scheduler)\.cur_batch\.batch_size\(\)=\d+", _batch_run, before_ready=True),
        # SGLang's own benchmarks, whose results come only from requests the built engine ran: bench_one_batch's
        # prefill line, after model_runner.extend on the runner it built and sized (0.5.23 sglang/benchmark/
        # one_batch.py:355-373 then :817-821 "Prefill. latency: %6.5f s, throughput: %9.2f token/s"; 0.3.6
        # bench_latency.py the same words), and bench_offline_throughput's table, printed after the engine's warm-up
        # and benchmark requests (0.5.23 sglang/benchmark/offline_throughput.py:478-506, then :512-516 "====== Offline
        # Throughput Benchmark Result =======" and "Successful requests: N"): the start had completed. Their token
        # counts, latencies and throughputs are never a pool (gpu-logs-58 sglang/02-04)
        rule(r"^Prefill\. latency: {NUM} s, throughput: *{NUM} token/s", ready, before_ready=True),
        rule(r"^=+ Offline Throughput Benchmark Result =+$", _offline_table, before_ready=True),
        rule(r"^Successful requests: +[1-9]\d*\s*$", _offline_served, before_ready=True),
        # the exit code the launcher logs on a line of its own after "Rank N scheduler is dead." (0.4.6
        # sglang/srt/entrypoints/engine.py:592, 0.5.6 :921)
        rule(r"^Exit code: (?P<code>-?\d+)$", _exit_code),
    )

    def __init__(self) -> None:
        super().__init__()
        self.speculative: bool | None = None  # whether the server arguments name a draft algorithm (None: unseen)
        self.kv_dtype_flag: str | None = None  # the server arguments' --kv-cache-dtype, until the engine resolves it
        self.runner_sized_pool = False  # the JAX port's model runner stated the pool's size
        self.dsv4_pool_built = False  # DeepSeek-V4's pool said it was built (it prints no KV line of its own)
        self.swa_split: tuple[int, int] | None = None  # a sliding-window model's full and SWA pool tokens
        self.swa_total: float | None = None  # the GiB the engine states for its two sliding-window pools together
        self.loads_done = 0  # Load weight end lines of rank 0: the first is the target model's, a second the draft's
        self.draft_loaded_last = False  # the rank's last Load weight end named a draft model's class
        self.target_loaded = False  # a Load weight end of the target model (not a draft's class) was read
        self.http_up = False  # the HTTP server said "Application startup complete." (the warm-up request comes next)
        self.summary_read = False  # the scheduler summary's first field was read (its later ones may follow alone)
        self.custom_warmups = False  # the server's lifespan ran a named warm-up ("Running warmup compile-deep-gemm")
        self.batches_run = False  # the scheduler logged a prefill or decode batch: its event loop runs requests
        self.graph_capture_failed = False  # the graph runner's "Capture ... graph failed: ..." exception was read
        self.start_frames_at: int | None = None  # rules read when a loose frame of the start (START_FRAMES) came
        self.mlx_stub_tokens: int | None = None  # the MLX stub's max_total_num_tokens (a placeholder until MLX sizes)
        self.offline_table = False  # bench_offline_throughput's result banner was read

    error_rules = (
        # 0.5.22 sglang/srt/mem_cache/kv_cache_configurator.py:2732 (0.5.14 on); the device named or not, the hint
        # parts optional (a backend's or a later release's wording)
        error("weights_leave_no_memory",
              r"Loaded weights leave no (?:\w+ )?memory for the KV cache under "
              r"--mem-fraction-static=(?P<mem_fraction_static_effective>[\d.]+)\.(?: Raise --mem-fraction-static "
              r"above (?P<suggested_mem_fraction_static>-?[\d.]+)(?: \(minimum viable = 1 - available/pre = "
              r"(?P<minimum_mem_fraction_static>-?[\d.]+)\))?)?"),
        # A sliding-window pool's fixed part leaves nothing for the full pool (0.5.22 sglang/srt/model_executor/
        # pool_configurator.py:998, and DeepSeek-V4's at :1591)
        error("full_pool_no_room",
              r"SWA pool cap \((?P<swa_tokens>[\d,]+) tokens, (?P<swa_gib>{NUM}) Gi?B\) leaves no room for the full KV "
              r"pool within the available (?P<available_gib>-?{NUM}) Gi?B"),
        # The server came up, then its warm-up request failed: a failed start (0.5.22
        # sglang/srt/entrypoints/http_server.py:2311, logger.error; the server is killed after it). SGLang's launcher
        # prints it only where its own warm-up request failed, then kills the server (0.5.6
        # sglang/srt/entrypoints/http_server.py:1491 and :1612, 0.5.23 :2384 and :2533): the warm-up's failure, a
        # failed start, even after batch lines that said requests were served beside the warm-up (users may send
        # requests once the port opens: gpu-logs-46 sglang/10, a prefill batch with 6 running before the warm-up's 502)
        error("warmup_failed", r"Initialization failed\. warmup error:", standalone=True, stage="warmup"),
        # The scheduler's watchdog found a batch stuck in its forward pass for --watchdog-timeout seconds: it dumps the
        # batch and py-spy's stacks, says so, and 5 s later sends SIGQUIT to the server (0.5.4
        # sglang/srt/managers/scheduler.py:2238-2289 watchdog_thread; 0.5.5 scheduler_runtime_checker_mixin.py:225-262;
        # 0.5.7-0.5.10 sglang/srt/utils/watchdog.py:133-163 WatchdogRaw._watchdog_once). Until 0.5.6 that watchdog is
        # the only one, so its dump of the batch ("self.cur_batch.batch_size()=N") already says it fired; from 0.5.7 a
        # soft watchdog (--soft-watchdog-timeout) dumps the same and only logs "... self.soft=True)": the kill is
        # "self.soft=False)" alone.
        # Each wording wherever it stands but inside a longer name: at a line's start as logged, or after an exception's
        # class as the release tables render every error (tests/parsers/test_parsers_releases.py), its figures also
        # grouped as the tables print them.
        error("watchdog_timeout",
              r"(?<![\w.])self\.cur_batch\.batch_size\(\)=(?P<stuck_batch_size>\d{1,3}(?:,\d{3})+|\d+)",
              standalone=True),
        error("watchdog_timeout",
              r"(?<![\w.])Watchdog timeout \(self\.watchdog_timeout="
              r"(?P<watchdog_timeout_s>\d{1,3}(?:,\d{3})+|{NUM})\)", standalone=True),
        error("watchdog_timeout",
              r"(?<![\w.])Scheduler watchdog timeout \(self\.watchdog_timeout="
              r"(?P<watchdog_timeout_s>\d{1,3}(?:,\d{3})+|{NUM}), self\.soft=False\)", standalone=True),
        # The pool budget came out at zero tokens or less: the engine's one message for it, always raised as the
        # start's RuntimeError (0.5.23 sglang/srt/model_executor/pool_configurator.py:94-99 MemoryPoolConfig
        # .__post_init__), so the wording alone is a failed start, also quoted in prose or a code span
        error("not_enough_memory",
              # (or broken by an author after "increase", the flag on the next line: a failure on its own)
              r"Not enough memory\. Please try to increase(?: --mem-fraction-static\.|$)"
              # the value used: "Current value: mem_fraction_static=0.88", or bare on the error's line ("... Current
              # value: 0.82", a 0.5.8 MetaX fork's log of 2026)
              r"(?: Current value: (?:[\w.]*?mem_fraction_static=)?(?P<mem_fraction_static_effective>[\d.]+))?",
              standalone=True),
        error("pool_too_small", r"Memory pool size is too small"),
        # --context-length above what the model config allows (0.5.22 sglang/srt/configs/model_config.py:1205
        # _derive_context_length); the same meaning, and kind, as vLLM's --max-model-len check.
        error("max_model_len_exceeds_derived",
              r"User-specified context_length \((?P<max_model_len>\d+)\) is greater than the derived context_length "
              r"\((?P<derived_max_model_len>\d+)\)"),
        error("max_running_requests_zero", r"max_running_request is zero"),
        # A command line the server's argument parser refuses: the server never starts. prepare_server_args parses
        # with a bare argparse.ArgumentParser() (0.5.8 sglang/srt/server_args.py:5256-5268), whose error() prints
        # the usage, then "<prog>: error: <message>" and exits with status 2 (CPython Lib/argparse.py
        # ArgumentParser.error); prog is sys.argv[0]'s base name: "launch_server.py" under `python -m
        # sglang.launch_server`, "sglang" under `sglang serve` (0.5.8 sglang/cli/serve.py). Only these programs:
        # another tool's argparse error in the same paste is not the server's.
        error("invalid_server_args", r"^(?:launch_server\.py|sglang): error: (?P<arg_error>\S.*)$", standalone=True),
        error("memory_unbalanced",
              r"The memory capacity is unbalanced\. Some GPUs may be occupied by other processes\."
              r"(?: ?pre_model_load_memory=(?P<pre_model_load_gib>{NUM}), local_gpu_memory=(?P<local_gpu_gib>{NUM}))?"),
        error("swa_pool_too_small",
              r"SWA pool \((?P<swa_tokens>-?[\d,]+) tokens\) cannot hold even one request: the prefill admission "
              r"floor is "
              r"sliding_window_size \((?P<sliding_window_size>-?[\d,]+)\) \+ page_size \((?P<page_size>-?[\d,]+)\)"),
        # A hybrid (Mamba) model's radix-cache strategy this platform or schedule cannot take, refused while the
        # arguments resolve (0.5.22 sglang/srt/arg_groups/mamba_hook.py:120 and :158; the same in 0.5.23): the default
        # extra_buffer wants a CUDA/MUSA/NPU/HIP/XPU platform, no_buffer the overlap schedule off.
        error("mamba_radix_cache_unsupported",
              r"(?P<strategy>extra_buffer) requires platform support for Mamba cache state snapshots"),
        error("mamba_radix_cache_unsupported",
              r"(?P<strategy>no_buffer) do not support overlap schedule"),
        # A hybrid model's state pool with no slot, or too few for one request (0.5.22
        # sglang/srt/mem_cache/kv_cache_configurator.py:3057-3070 and :2831-2839; the same in 0.5.21; 0.5.23 :3392-3402
        # and :3151-3160). (the first sentence alone where an author broke the message after it: its figures come on
        # the next line.) Both messages are only ever raised (RuntimeError, their one site each), never logged as a
        # warning, so the message alone states the failure: an author who quotes it without the exception's class
        # (gpu-logs-96 sglang/02, in a launch script's shell comment: '#   "Hybrid (mamba/linear-attention) state
        # cache is too small to serve any requests.') reports the start that refused
        error("state_pool_too_small",
              r"Not enough GPU memory for hybrid \(mamba/linear-attention\) state cache\.(?: Computed "
              r"max_mamba_cache_size=(?P<max_mamba_cache_size>-?[\d,]+) "
              r"\(total_rest_memory=(?P<rest_gib>-?[\d,]+(?:\.\d+)?) GB, "
              r"mamba_cache_per_req=(?P<per_slot_mib>-?[\d,]+(?:\.\d+)?) MB\))?", standalone=True),
        error("state_pool_too_small",
              r"Hybrid \(mamba/linear-attention\) state cache is too small to serve any requests\.(?: "
              r"max_mamba_cache_size=(?P<max_mamba_cache_size>-?[\d,]+), "
              r"mamba_ratio=(?P<mamba_ratio>-?[\d,]+(?:\.\d+)?), resulting "
              r"max_num_reqs=(?P<max_num_reqs>-?[\d,]+))?", standalone=True),
        # A kernel op the installed sgl-kernel build lacks (a CPU op of its CPU build, on the CUDA build: 0.5.22
        # sglang/srt/layers/attention/linear/kernels/gdn_triton.py:28-31 for a hybrid model on a CPU).
        error("kernel_op_missing", r"'_OpNamespace' 'sgl_kernel' object has no attribute '(?P<op>\w+)'"),
        # A hierarchical cache's host pool bigger than the host memory left, refused while the pools are built (0.5.22
        # sglang/srt/mem_cache/pool_host/base.py:241-247 and pool_host/mamba.py:179; 0.5.10
        # sglang/srt/mem_cache/memory_pool_host.py:193-199 and :1239): figures in GB of 1e9 bytes (bytes / 1e9)
        error("not_enough_host_memory",
              r"Not enough host memory available\. Requesting (?P<requested_host_gb>{NUM}) GB but only have "
              r"(?P<free_host_gb>{NUM}) GB free"),
        *device_oom_errors(),
        *fatal_signal_errors(),
        *ray_worker_death_errors(),
        *ray_serve_replica_errors(),
        *harness_pod_crash_errors(),
        *harness_start_timeout_errors(),
        error("process_died",
              r"Rank (?P<rank>\d+) scheduler died during initialization \(exit code: (?P<exit_code>-?\d+)\)",
              rank=GENERIC),
        # the launcher's words for the same while it waits for the model to load, up to 0.5.9 (0.4.6
        # sglang/srt/entrypoints/engine.py:589, 0.5.6 :918, logger.error; "Exit code: N" on a line of its own after it;
        # SGLang's log format prints no level, so the line is enough). Its first sentence alone, ending the line, is
        # the same message with the second cut by an author (a 2026 failure registry quotes "[2026-01-26 23:15:21]
        # Rank 0 scheduler is dead." then "Exit code: -9"; 0.5.8 engine.py:850-853 prints both sentences, then the
        # exit code): gpu-logs-65 sglang/07
        error("process_died",
              r"Rank (?P<rank>\d+) scheduler is dead\.(?: Please check if there are relevant logs\.|\s*$)",
              rank=GENERIC, standalone=True),
        error("process_died",
              r"Subprocess (?P<process>\S+) \(pid=(?P<pid>\d+)\) crashed with exit code (?P<exit_code>-?\d+)",
              rank=GENERIC, standalone=True),
    )

    def split_prefix(self, text: str, t: float | None) -> Line:
        match = PREFIX.search(text)
        if match is None and (tag := _GPU_ID_TAG.match(text)):
            return Line(text=text[tag.end():], raw=text, source="", prefixed=True, primary=tag.group(1) == "0",
                        rank=f"TP{tag.group(1)}", t=t)
        if match is None:
            # A wrapping program's logging prefix: its level counts, but it is not the engine's own
            # prefix (a traceback under it is still an uncaught one).
            level, msg = strip_python_logging(_RAY_ACTOR_TAG.sub("", text, count=1))
            return Line(text=msg, raw=text, level=level, t=t)
        ranks = match.group("ranks") or match.group("bare_ranks") or ""
        msg = match.group("msg") or ""
        if msg[:1] == " " and not _INDENTED_PART.match(msg):
            msg = msg.lstrip(" ")
        if msg[:4] == "[gpu" and not ranks and (tag := _GPU_ID_TAG.match(msg)):
            msg, ranks = msg[tag.end():], f"TP{tag.group(1)}"  # a time prefix before 0.2's own tag (a wrapper's)
        return Line(
            text=msg,
            raw=text,
            # Ranks share one stream and continuation lines carry no prefix: one source.
            source="",
            level=match.group("level"),
            prefixed=True,
            primary=all(int(n) == 0 for n in _TAG_RANK.findall(ranks)),
            rank=ranks.strip(),
            t=t,
        )

    def _check_failures(self, line: Line) -> None:
        if "File " in line.text and line.source not in self._tracebacks.open_sources and (
                self.START_FRAMES.match(line.text)):
            self.start_frames_at = self.rules_fired
        super()._check_failures(line)
        # wherever the failing start shows the graph runner's exception - after the scheduler's "hit an exception",
        # also where an author elided that traceback's header and frames (gpu-logs-21 sglang/02) - it failed in
        # capture: finalize places it there
        if "failed: " in line.text and _GRAPH_CAPTURE_EXCEPTION.match(line.text):
            self.graph_capture_failed = True

    def finalize(self) -> None:
        record = self.record
        named = record.error_message and _GRAPH_CAPTURE_FAILED.search(record.error_message)
        if record.failed_during is None and (named or (self.graph_capture_failed and record.error_kind is not None)):
            # the message names the phase where no frame is shown, or the runner's exception came after it
            record.failed_during = "cuda_graph_capture"
        if record.failed_during is None and record.error_kind is not None and (
                self.batches_run or "event_loop" in self._block_stage.values()):
            # after the scheduler logged a batch, or where its traceback shows the event loop (the exception logged
            # before it is the same crash's cause): in its event loop
            record.failed_during = "event_loop"
        if (self.http_up or self.custom_warmups) and not self.seen_ready and record.error_kind is not None and (
                record.failed_during in (None, "event_loop")):
            record.failed_during = "warmup"  # a start that failed between its HTTP server and "fired up"
        if record.error_kind == "warmup_failed" and record.failed_during in (None, "event_loop"):
            # SGLang says "Initialization failed. warmup error" only where its launcher's own warm-up request failed
            # (0.5.6 sglang/srt/entrypoints/http_server.py:1491 and :1612, 0.5.23 :2384 and :2533), then kills the
            # server: a failed start, whatever batch the scheduler ran before it (gpu-logs-46 sglang/10)
            record.failed_during = "warmup"
        if record.failed_during == "event_loop" and not self.seen_ready and self._nothing_of_the_start():
            # The event loop runs SGLang's own warm-up request and every later one: an excerpt that shows no line of
            # the start before such a failure does not say whether the start had completed.
            record.status = None
            record.status_note = ("undecided: a failure in the scheduler's event loop (the warm-up request's or a "
                                  "later one's) with no line of the start before it")
        if record.kv_tokens is None and record.pool_tokens is not None and record.status == STATUS_OK:
            # A start that came up, in an excerpt with the target's pool line and no summary line: the pool is
            # built with size=max_total_num_tokens (0.5.22 sglang/srt/mem_cache/kv_cache_configurator.py:1922,
            # :2261, :2377; a sliding-window pool's `size` is the full layers', swa_memory_pool.py:124 "full
            # size"), the figure the summary would print. The summary, when it comes, states it itself.
            record.kv_tokens = record.pool_tokens
        if record.num_blocks is None and record.kv_tokens is not None and record.block_size:
            record.num_blocks = record.kv_tokens // record.block_size

    def _settle_logged_frames(self) -> None:
        super()._settle_logged_frames()
        if (self.start_frames_at is not None and self.start_frames_at == self.rules_fired
                and not (self.seen_error or self.seen_ready or self.stopping)):
            # the excerpt stops in frames of the start whose header it cut, and the engine read nothing after them:
            # the start failed there, its exception not shown
            self._offer(OTHER, "a traceback through the start, cut before its header and its exception line", {},
                        GENERIC, None, Line(text="", raw=""))

    def _nothing_of_the_start(self) -> bool:
        """No line of the start was read: no load, no pool, no summary, no server arguments, no HTTP server."""
        record = self.record
        return not (self.loads_done or self.target_loaded or self.seen_kv or self.http_up or record.kv_pools
                    or self.speculative is not None or record.kv_tokens is not None or record.pool_tokens is not None)

    def close(self):
        events = super().close()
        record = self.record
        if record.status is None and record.kv_tokens is None and record.pool_tokens is not None and (
                self.runner_sized_pool or self.dsv4_pool_built or any(p.kind in _TARGET for p in record.kv_pools)):
            # an excerpt that ends before the start is decided, after the target's pool line: the pool is sized when
            # its line is printed (the size the summary would print, as above); a failed start states no pool
            record.kv_tokens = record.pool_tokens
        return events

    @classmethod
    def score(cls, text: str) -> int:
        lines = text.splitlines()[:2000]
        prefixed = sum(1 for line in lines if PREFIX.search(strip_wrappers(line)))
        hints = len(re.findall(r"sglang\.launch_server|\bsglang serve\b|sgl_kernel|ServerArgs\(", text))
        # A traceback through SGLang's own files weighs as much as a line of its own: SGLang up to 0.5.7
        # imports vLLM's layers, whose import-time lines ("INFO 12-02 01:06:36 [__init__.py:216] Automatically
        # detected platform cpu.") are all a short failing start prints besides; vLLM never imports SGLang.
        frames = len(re.findall(r"(?:site|dist)-packages/sglang/", text))
        return 10 * (prefixed + frames) + hints + 5 * cls.wording_hits(lines)
