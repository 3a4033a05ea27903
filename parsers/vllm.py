"""vLLM 0.32.0 startup logs (ENGINES.md §1).

Line format: `[VLLM_LOGGING_PREFIX](<proc> pid=<pid>) <LEVEL> <MM-DD HH:MM:SS> [<file>:<line>] <msg>`;
uvicorn's own lines and Python's uncaught tracebacks come without it.
"""

from __future__ import annotations

import re

from parsers.base import (
    GENERIC,
    Line,
    LogParser,
    copy_field,
    error,
    kv_sized,
    phase,
    phase_after_kv,
    ready,
    rule,
    set_fields,
    stopping,
    version,
)

PREFIX = re.compile(
    r"^(?P<user>.*?)\((?P<proc>[^()\s]+) pid=(?P<pid>\d+)\) "
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"(?P<ts>\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?) "
    r"\[(?P<file>[^\]]+?):(?P<lineno>\d+)\](?: (?P<msg>.*))?$"
)
# Rank numbers in a process name: Worker_PP1_TP0, EngineCore_DP1, VllmWorker-3.
RANK = re.compile(r"(?:_[A-Z]*|-)(\d+)")
# Default block size when no line states it (ENGINES.md §1.4): 16 on GPUs, 128 on the CPU backend.
DEFAULT_BLOCK_SIZE = {"gpu": 16, "cpu": 128}


# --- actions ---------------------------------------------------------------------------------


def _engine_config(parser: LogParser, values: dict, line: Line) -> None:
    config = str(values["config"])
    for key, field in (("dtype", "dtype"), ("kv_cache_dtype", "kv_dtype"), ("tensor_parallel_size", "tp_size"),
                       ("device_config", "device")):
        match = re.search(rf"(?:^|, ){key}=([^,\s]+)", config)
        if match and getattr(parser.record, field) is None:
            value = match.group(1)
            if field == "device":
                value = "gpu" if value == "cuda" else value
            setattr(parser.record, field, int(value) if field == "tp_size" else value)


def _non_default_args(parser: LogParser, values: dict, line: Line) -> None:
    args = str(values["args"])
    record = parser.record
    for key, field, kind in (
        ("model", "model", str),
        ("gpu_memory_utilization", "gpu_memory_utilization", float),
        ("kv_cache_memory_bytes", "kv_cache_memory_bytes", int),
        ("block_size", "block_size", int),
        ("max_num_batched_tokens", "max_num_batched_tokens", int),
    ):
        match = re.search(rf"'{key}': ('[^']*'|-?[\d.]+)", args)
        if match and getattr(record, field) is None:
            setattr(record, field, kind(match.group(1).strip("'")))


def _kv_line(parser: LogParser, values: dict, line: Line) -> None:
    record = parser.record
    record.device = "gpu" if str(values["pools"]).startswith("GPU") else str(values["pools"]).split()[0].lower()
    kv_sized(parser, values, line)


def _graph_capture(parser: LogParser, values: dict, line: Line) -> None:
    # Model Runner V2 logs this line twice: first for the profiling capture (before the KV
    # line), then for the real one. Only the one after the KV line is the graphs' cost.
    if parser.seen_kv:
        parser.record.cuda_graph_gib = float(values["gib"])
        parser.record.graph_capture_seconds = float(values["secs"])
        parser.advance("capturing", line)
    else:
        parser.record.cuda_graph_profile_gib = float(values["gib"])


def _cuda_graph_pool(parser: LogParser, values: dict, line: Line) -> None:
    if parser.record.cuda_graph_gib is None:
        parser.record.cuda_graph_gib = float(values["actual"])


class VllmLogParser(LogParser):
    engine = "vllm"
    phases = ("starting", "loading", "profiling", "kv_sized", "capturing", "ready")

    failure_markers = re.compile(
        r"^(?:EngineCore failed to start\.|WorkerProc failed to start\.|EngineCore encountered a fatal error\."
        r"|AsyncLLM output_handler failed\.|WorkerProc hit an exception\.)"
    )

    # (regex, actions); the first match wins. Group names that are record fields are stored.
    rules = (
        # version and configuration
        rule(r"█  version (?P<version>\S+)$", version),
        rule(r"█  model   (?P<model>\S.*)$"),
        rule(r"^vLLM server version (?P<version>\S+), serving model (?P<model>.+)$", version),
        rule(r"^Initializing a V1 LLM engine \(v(?P<version>[^)]+)\) with config: (?P<config>.*)$",
             version, _engine_config),
        rule(r"^non-default args: (?P<args>\{.*\})$", _non_default_args),
        rule(r"^Using max model len (?P<max_model_len>-?\d+)$"),
        rule(r"^Chunked prefill is enabled with max_num_batched_tokens=(?P<max_num_batched_tokens>\d+)\.$",
             copy_field("chunked_prefill_size_effective", "max_num_batched_tokens")),
        rule(r"^Setting kv cache block size to (?P<block_size>\d+) for "),
        # loading
        rule(r"^Using V2 Model Runner$", set_fields(model_runner="v2")),
        rule(r"Model Runner V2 requires \w+; using the V1 model runner instead", set_fields(model_runner="v1")),
        rule(r"^(?:Loading model from scratch\.\.\.|Starting to load model .*\.\.\.)$", phase("loading")),
        rule(r"^Loading weights took (?P<weights_load_seconds>{NUM}) seconds$", phase("profiling")),
        rule(r"^Model loading took (?P<weights_gib>{NUM}) GiB memory and (?P<secs>{NUM}) seconds$",
             phase("profiling"), primary_only=True),
        # profiling and KV budget
        rule(r"^Warming up model for the compilation\.\.\.$", phase("profiling")),
        rule(r"^Estimated CUDA graph memory: (?P<cuda_graph_estimate_gib>{NUM}) GiB total$"),
        rule(r"^Available KV cache memory: (?P<kv_gib>{NUM}) GiB$", primary_only=True),
        rule(r"The current --gpu-memory-utilization=(?P<gpu_memory_utilization>{NUM}) is equivalent to "
             r"--gpu-memory-utilization=(?P<gpu_memory_utilization_equivalent>{NUM}) without CUDA graph memory "
             r"profiling\. To maintain the same effective KV cache size as before, increase "
             r"--gpu-memory-utilization to (?P<gpu_memory_utilization_suggested>{NUM})\."),
        rule(r"^CUDA graph memory profiling is disabled .* increasing --gpu-memory-utilization from "
             r"(?P<gpu_memory_utilization>{NUM}) to (?P<gpu_memory_utilization_suggested>{NUM})\.$"),
        rule(r"^Initial free memory (?P<initial_free_gib>{NUM}) GiB, reserved (?P<kv_gib>{NUM}) GiB memory for "
             r"KV Cache as specified by kv_cache_memory_bytes config", primary_only=True),
        rule(r"^Applying persisted startup plan \(fingerprint \S+\): "
             r"kv_cache_memory_bytes=(?P<kv_cache_memory_bytes>\d+) \((?P<kv_gib>{NUM}) GiB\)"),
        rule(r"^(?P<mode>Explicitly|Auto) set \((?P<kv_gib>{NUM})/(?P<total_memory_gib>{NUM})\) GiB for KV cache "
             r"on node \d+(?:, with (?P<requested_memory_gib>{NUM}) GiB requested memory for the worker\. "
             r"(?P<non_kv_gib>{NUM}) GiB memory was consumed by non-kv usages)?\.$", primary_only=True),
        rule(r"^Memory profiling takes {NUM} seconds\. Total non KV cache memory: (?P<non_kv_gib>{NUM}) ?GiB; "
             r"torch peak memory increase: {NUM} ?GiB; total consumed \(from mem_get_info\): {NUM} ?GiB; "
             r"weights memory: (?P<weights_gib>{NUM}) ?GiB\.$"),
        rule(r"^Overriding num_gpu_blocks=\d+ with num_gpu_blocks_override=(?P<num_gpu_blocks_override>\d+)$",
             copy_field("num_blocks", "num_gpu_blocks_override")),
        rule(r"^Auto-fit max_model_len: full model context length (?P<max_model_len>\d+) fits in available KV cache "
             r"memory \({NUM} GiB [A-Z]+(?: \+ {NUM} GiB host)?\)$", set_fields(autofit="fits")),
        rule(r"^Auto-fit max_model_len: reduced from (?P<autofit_from_len>\d+) to (?P<max_model_len>\d+) to fit in "
             r"available KV cache memory \({NUM} GiB [A-Z]+(?: \+ {NUM} GiB host)?\)$", set_fields(autofit="reduced")),
        rule(r"^Auto-fit max_model_len: attention-free model, using derived max_model_len=(?P<max_model_len>\d+)$",
             set_fields(autofit="attention_free")),
        # the KV line: the KV figures are final from here on
        rule(r"^(?P<pools>[A-Z]+(?: \+ host)?) KV cache size: (?P<kv_tokens>[\d,]+) tokens, Maximum concurrency for "
             r"(?P<max_model_len>[\d,]+) tokens per request: (?P<max_concurrency>{NUM})x$", _kv_line,
             primary_only=True),  # every engine core (DP rank) logs its own
        rule(r"^(?:Engine \d+|\d+ Engines): vllm cache_config_info with initialization after num_gpu_blocks is: "
             r"(?P<num_blocks>\d+)$"),
        # CUDA graphs
        rule(r"^Capturing CUDA graphs", phase_after_kv("capturing")),
        rule(r"^Graph capturing finished in (?P<secs>{NUM}) secs, took (?P<gib>{NUM}) GiB$", _graph_capture,
             primary_only=True),
        rule(r"^CUDA graph pool memory: (?P<actual>{NUM}) GiB \(actual\), (?P<cuda_graph_estimate_gib>{NUM}) GiB "
             r"\(estimated\), difference: {NUM} GiB \({NUM}%\)\.$", _cuda_graph_pool, primary_only=True),
        rule(r"^Free memory on device \((?P<initial_free_gib>{NUM})/(?P<total_memory_gib>{NUM}) GiB\) on startup\. "
             r"Desired GPU memory utilization is \((?P<gpu_memory_utilization>{NUM}), (?P<requested_memory_gib>{NUM}) "
             r"GiB\)\. Actual usage is (?P<non_kv_gib>{NUM}) GiB for consumed memory \(weights \+ non-torch\), "
             r"(?P<peak_activation_gib>{NUM}) GiB for peak activation, and {NUM} GiB for CUDAGraph memory\. "
             r"Replace gpu_memory_utilization config with "
             r"`--kv-cache-memory=(?P<suggested_kv_cache_memory_bytes>-?\d+)` \({NUM} GiB\) to fit into requested "
             r"memory, or "
             r"`--kv-cache-memory=(?P<suggested_kv_cache_memory_bytes_gpu_limit>-?\d+)` \({NUM} GiB\) to fully "
             r"utilize gpu memory\. Current kv cache memory in use is {NUM} GiB\.$", primary_only=True),
        rule(r"^init engine \(profile, create kv cache, warmup model\) took (?P<init_engine_seconds>{NUM}) s"
             r"(?: \(compilation: (?P<compilation_seconds>{NUM}) s)?"),
        # ready, and stopping
        rule(r"Application startup complete\.$", ready),
        rule(r"^\[shutdown\] .*trigger received signal=(?P<signal>\w+)", stopping),
        rule(r"^\[shutdown\] API server: shutdown triggered", stopping),
    )

    # Startup errors (ENGINES.md §1.3). Group names that are record fields are stored.
    error_rules = (
        error("free_memory_below_requested",
              r"Free memory on device (?P<device_id>\S+) \((?P<free_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on startup "
              r"is less than desired GPU memory utilization \((?P<utilization>{NUM}), (?P<requested_gib>{NUM}) GiB\)"),
        error("external_weights_exceed_budget",
              r"Externally held weights on device (?P<device_id>\S+) \((?P<external_gib>{NUM})/(?P<total_gib>{NUM}) "
              r"GiB\) exceed the desired GPU memory utilization \((?P<utilization>{NUM}), "
              r"(?P<requested_gib>{NUM}) GiB\)"),
        error("free_memory_below_budget",
              r"Free memory on device (?P<device_id>\S+) \((?P<free_gib>{NUM})/(?P<total_gib>{NUM}) GiB\) on startup "
              r"is less than the engine's budget after excluding external process's weights "
              r"\((?P<utilization>{NUM}), (?P<budget_gib>{NUM}) GiB\)"),
        error("no_kv_cache_memory", r"No available memory for the cache blocks\."),
        error("max_model_len_too_large",
              r"To serve at least one request with the model's max seq len \((?P<max_model_len>\d+)\), "
              r"\((?P<needed_gib>{NUM}) GiB KV cache is needed, which is larger than the available KV cache memory "
              r"\((?P<available_gib>{NUM}) GiB\)\. (?:Based on the available memory, the estimated maximum model "
              r"length is (?P<estimated_max_model_len>\d+)\. )?"),
        error("autofit_impossible", r"Cannot auto-fit max_model_len: not enough \w+ memory available"),
        error("memory_profiling_error",
              r"Error in memory profiling\. Initial free memory (?P<initial_free_gib>{NUM}) GiB, current free memory "
              r"(?P<current_free_gib>{NUM}) GiB\."),
        error("oom_loading_weights", r"Failed to load model - not enough GPU memory\.", standalone=True),
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
        error("cuda_oom",
              r"OutOfMemoryError: CUDA out of memory\.(?: Tried to allocate (?P<tried>{NUM}) (?P<unit>[KMG]iB))?"),
        error("process_died",
              r"Worker proc (?P<process>\S+) died unexpectedly \(exit code: (?P<exit_code>-?\d+|None)\)",
              rank=GENERIC),
    )

    def split_prefix(self, text: str, t: float | None) -> Line:
        match = PREFIX.match(text)
        if match is None:
            return Line(text=text, raw=text, t=t)
        proc = match.group("proc")
        return Line(
            text=match.group("msg") or "",
            raw=text,
            source=f"{proc}:{match.group('pid')}",
            level=match.group("level"),
            prefixed=True,
            primary=all(int(n) == 0 for n in RANK.findall(proc)),
            t=t,
        )

    def finalize(self) -> None:
        record = self.record
        if record.block_size is None and record.device in DEFAULT_BLOCK_SIZE:
            record.block_size = DEFAULT_BLOCK_SIZE[record.device]
        if record.num_blocks is None and record.kv_tokens is not None and record.block_size:
            record.num_blocks = record.kv_tokens // record.block_size

    @classmethod
    def score(cls, text: str) -> int:
        prefixed = sum(1 for line in text.splitlines()[:2000] if PREFIX.match(line))
        hints = len(re.findall(r"site-packages/vllm/|bin/vllm\b|vllm\.entrypoints|\bvLLM\b", text))
        return 10 * prefixed + hints
