"""SGLang startup logs: the rule tables for the lines its scheduler and server print (sglang/srt).

Line format: `[YYYY-MM-DD HH:MM:SS(.mmm)?( DP0)?( TP1)...] <msg>`; no level, file or
version. A multi-line message carries the prefix on its first line only.
"""

from __future__ import annotations

import re

from parsers.base import (
    GENERIC,
    Line,
    LogParser,
    error,
    kv_sized,
    phase,
    ready,
    rule,
    stopping,
)
from parsers.lines import coerce
from parsers.record import FIELD_KINDS

PREFIX = re.compile(
    r"^\[(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:\.(?P<ms>\d{3}))?(?P<ranks>(?: [A-Z_]+\d+)*)\](?: (?P<msg>.*))?$"
)

# server_args keys read into the record: dict key -> record field.
SERVER_ARGS = {
    "model_path": "model",
    "mem_fraction_static": "mem_fraction_static_effective",
    "chunked_prefill_size": "chunked_prefill_size_effective",
    "max_prefill_tokens": "max_prefill_tokens",
    "max_total_tokens": "max_total_tokens",
    "page_size": "block_size",
    "tp_size": "tp_size",
    "dtype": "dtype",
}
_SCALAR = r"(None|True|False|-?\d+(?:\.\d+)?|'[^']*')"
_GRAPH = r"'{stage}': \{{'backend': '(?P<backend>\w+)', 'max_bs': (?P<max_bs>\d+|None)"


# --- actions ---------------------------------------------------------------------------------


def _server_args(parser: LogParser, values: dict, line: Line) -> None:
    text = str(values["args"])
    record = parser.record
    for key, field in SERVER_ARGS.items():
        match = re.search(rf"'{key}': {_SCALAR}", text)
        if match:
            setattr(record, field, coerce(FIELD_KINDS[field], match.group(1)))
    if (match := re.search(rf"'device': {_SCALAR}", text)) and match.group(1) != "None":
        record.device = "gpu" if match.group(1).strip("'") == "cuda" else match.group(1).strip("'")
    for stage in ("decode", "prefill"):
        match = re.search(_GRAPH.format(stage=stage), text)
        if match:
            setattr(record, f"cuda_graph_{stage}_backend", match.group("backend"))
            setattr(record, f"cuda_graph_{stage}_max_bs", coerce(int, match.group("max_bs")))


def _kv_pool(parser: LogParser, values: dict, line: Line) -> None:
    if "kv" in values:
        parser.record.kv_gib = float(values["kv"])
    else:
        parser.record.kv_gib = round(float(values["k"]) + float(values["v"]), 2)


def _graph_captured(parser: LogParser, values: dict, line: Line) -> None:
    # One line per captured graph set (target/draft, prefill/decode/verify): they add up.
    record = parser.record
    record.cuda_graph_gib = round((record.cuda_graph_gib or 0.0) + float(values["gib"]), 2)
    record.graph_capture_seconds = round((record.graph_capture_seconds or 0.0) + float(values["secs"]), 2)


def _scheduler_summary(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    record.device = str(values["dev"])
    record.max_model_len = record.context_len
    kv_sized(parser, values, line)


class SglangLogParser(LogParser):
    engine = "sglang"
    # SGLang captures its graphs before the scheduler summary, which is the KV line here.
    phases = ("starting", "loading", "profiling", "capturing", "kv_sized", "ready")

    failure_markers = re.compile(r"^\w+ hit an exception\b")

    rules = (
        rule(r"^server_args=(?P<args>\{.*\})$", _server_args),
        rule(r"^Load weight begin\. avail mem=(?P<avail_mem_before_load_gib>{NUM}) GB$", phase("loading"),
             primary_only=True),
        rule(r"^Load weight end\. elapsed=(?P<weights_load_seconds>{NUM}) s, type=\w+, (?:.*, )?"
             r"avail mem=(?P<avail_mem_after_load_gib>{NUM}) GB, mem usage=(?P<weights_gib>{NUM}) GB\.$",
             phase("profiling"), primary_only=True),
        rule(r"^(?:.+ )?KV Cache (?:is allocated|VA upper bound)\. dtype: (?P<kv_dtype>\S+), "
             r"#tokens: (?P<pool_tokens>\d+), "
             r"(?:K size: (?P<k>{NUM}) GB, V size: (?P<v>{NUM}) GB|KV size: (?P<kv>{NUM}) GB)$",
             _kv_pool, primary_only=True),
        rule(r"^Post-capture KV sizing: KV cache allocated\. dtype: (?P<kv_dtype>\S+), #tokens: (?P<pool_tokens>\d+), "
             r"KV size: (?P<kv_gib>{NUM}) GB, avail mem={NUM} GB$", primary_only=True),
        rule(r"^Memory pool end\. avail mem=(?P<avail_mem_after_pool_gib>{NUM}) GB$", primary_only=True),
        rule(r"^max_total_tokens=(?P<max_total_tokens>\d+) is larger than the profiled value "
             r"(?P<profiled_max_total_tokens>\d+)\."),
        rule(r"^max_running_requests was reduced from the requested (?P<max_running_requests_requested>\d+) to "
             r"(?P<max_running_requests>\d+)"),
        rule(r"^Capture \w+ \w+ .+ begin\. ", phase("capturing")),
        rule(r"^Capture \w+ \w+ .+ end\. (?:bs=\[[^\]]*\], )?elapsed=(?P<secs>{NUM}) s, mem usage=(?P<gib>{NUM}) GB, "
             r"avail mem={NUM} GB\.$", _graph_captured, primary_only=True),
        # the scheduler summary: every KV figure is final here
        rule(r"^max_total_num_tokens=(?P<kv_tokens>\d+), "
             r"chunked_prefill_size=(?P<chunked_prefill_size_effective>-?\d+|None), "
             r"max_prefill_tokens=(?P<max_prefill_tokens>\d+), max_running_requests=(?P<max_running_requests>\d+), "
             r"context_len=(?P<context_len>\d+), available_(?P<dev>gpu|cpu)_mem=(?P<available_mem_gib>{NUM}) GB$",
             _scheduler_summary),
        rule(r"^The server is fired up and ready to roll!$", ready),
        rule(r"^(?P<signal>SIGTERM|SIGINT) received\.", stopping),
    )

    error_rules = (
        error("weights_leave_no_memory",
              r"Loaded weights leave no GPU memory for the KV cache under "
              r"--mem-fraction-static=(?P<mem_fraction_static_effective>[\d.]+)\. Raise --mem-fraction-static above "
              r"(?P<suggested_mem_fraction_static>-?[\d.]+) \(minimum viable = 1 - available/pre = "
              r"(?P<minimum_mem_fraction_static>-?[\d.]+)\)"),
        error("not_enough_memory",
              r"Not enough memory\. Please try to increase --mem-fraction-static\."
              r"(?: Current value: mem_fraction_static=(?P<mem_fraction_static_effective>[\d.]+))?"),
        error("pool_too_small", r"Memory pool size is too small"),
        error("max_running_requests_zero", r"max_running_request is zero"),
        error("memory_unbalanced",
              r"The memory capacity is unbalanced\. Some GPUs may be occupied by other processes\."
              r"(?: ?pre_model_load_memory=(?P<pre_model_load_gib>{NUM}), local_gpu_memory=(?P<local_gpu_gib>{NUM}))?"),
        error("swa_pool_too_small",
              r"SWA pool \((?P<swa_tokens>\d+) tokens\) cannot hold even one request: the prefill admission floor is "
              r"sliding_window_size \((?P<sliding_window_size>\d+)\) \+ page_size \((?P<page_size>\d+)\)"),
        error("cuda_oom",
              r"OutOfMemoryError: CUDA out of memory\.(?: Tried to allocate (?P<tried>{NUM}) (?P<unit>[KMG]iB))?"),
        error("process_died",
              r"Rank (?P<rank>\d+) scheduler died during initialization \(exit code: (?P<exit_code>-?\d+)\)",
              rank=GENERIC),
        error("process_died",
              r"Subprocess (?P<process>\S+) \(pid=(?P<pid>\d+)\) crashed with exit code (?P<exit_code>-?\d+)",
              rank=GENERIC, standalone=True),
    )

    def split_prefix(self, text: str, t: float | None) -> Line:
        match = PREFIX.match(text)
        if match is None:
            return Line(text=text, raw=text, t=t)
        ranks = match.group("ranks")
        return Line(
            text=match.group("msg") or "",
            raw=text,
            # Ranks share one stream and continuation lines carry no prefix: one source.
            source="",
            prefixed=True,
            primary=all(int(n) == 0 for n in re.findall(r"\d+", ranks)),
            t=t,
        )

    def finalize(self) -> None:
        record = self.record
        if record.num_blocks is None and record.kv_tokens is not None and record.block_size:
            record.num_blocks = record.kv_tokens // record.block_size

    @classmethod
    def score(cls, text: str) -> int:
        prefixed = sum(1 for line in text.splitlines()[:2000] if PREFIX.match(line))
        hints = len(re.findall(r"site-packages/sglang/|sglang\.launch_server|\bsglang serve\b|sgl_kernel", text))
        return 10 * prefixed + hints
