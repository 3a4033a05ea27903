"""Property tests: a line rendered from an engine's format string with random numbers
parses back to exactly those numbers (ENGINES.md §1.2, §1.3, §2.3, §2.4)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import SglangLogParser, VllmLogParser
from tests.support.gpu_lines import V10, V13, V19, V20, V21, sglang, traceback_text, v22, vllm

tokens = st.integers(min_value=0, max_value=10**9)
lengths = st.integers(min_value=1, max_value=10_000_000)
byte_counts = st.integers(min_value=-(2**40), max_value=2**44)
gib = st.floats(min_value=0, max_value=4096, allow_nan=False).map(lambda x: round(x, 2))
fraction = st.floats(min_value=0.01, max_value=1.0).map(lambda x: round(x, 3))
settings.register_profile("parsers", max_examples=150, deadline=None)
settings.load_profile("parsers")


def format_gib(x: float) -> str:
    return str(round(x, 2))  # vLLM's format_gib


def vllm_parse(*lines: str):
    parser = VllmLogParser()
    for line in lines:
        parser.feed(line + "\n")
    return parser.record


def sglang_parse(*lines: str):
    parser = SglangLogParser()
    for line in lines:
        parser.feed(line + "\n")
    return parser.record


@given(tokens, lengths, st.floats(min_value=0, max_value=1e6, allow_nan=False), st.sampled_from(["GPU", "CPU"]))
def test_vllm_kv_line(n, length, concurrency, pools):
    record = vllm_parse(vllm(V19 % (pools, f"{n:,}", f"{length:,}", concurrency), where="kv_cache_utils.py:2327"))
    assert (record.kv_tokens, record.max_model_len) == (n, length)
    assert record.max_concurrency == float("%.2f" % concurrency)
    # no release named: the line is blocks x block size (16 on a GPU, 128 on a CPU), so a count is derived only where
    # one gives the tokens
    block = 16 if pools == "GPU" else 128
    assert record.num_blocks == (n // block if n % block == 0 else None)


@given(gib, gib, st.integers(min_value=0, max_value=3600), gib)
def test_vllm_memory_lines(weights, kv, secs, graphs):
    record = vllm_parse(vllm(V10 % (format_gib(weights), 6.5), where="model_runner.py:424"),
                        vllm(V13 % format_gib(kv), where="gpu_worker.py:759"),
                        vllm(V19 % ("GPU", "16", "16", 1.0), where="kv_cache_utils.py:2327"),
                        vllm(V20 % (secs, graphs), where="model_runner.py:1127"),
                        vllm(V21 % (format_gib(graphs), "0.5", "0.1", 10.0), where="gpu_worker.py:971"))
    assert (record.weights_gib, record.kv_gib, record.graph_capture_seconds, record.cuda_graph_gib) == (
        weights, kv, float(secs), graphs)


@given(gib, gib, fraction, byte_counts, byte_counts)
def test_vllm_kv_cache_memory_suggestion(free, total, util, to_requested, to_gpu):
    line = v22(format_gib(free), format_gib(total), util, "21.64", "15.29", "0.58", "0.41", to_requested,
               format_gib(to_requested / 2**30), to_gpu, format_gib(to_gpu / 2**30), "5.73")
    record = vllm_parse(vllm(line, where="gpu_worker.py:1034"))
    assert (record.suggested_kv_cache_memory_bytes, record.suggested_kv_cache_memory_bytes_gpu_limit) == (
        to_requested, to_gpu)
    assert (record.initial_free_gib, record.total_memory_gib, record.gpu_memory_utilization) == (free, total, util)


@given(lengths, gib, gib, st.one_of(st.none(), lengths))
def test_vllm_max_model_len_error(length, needed, available, estimated):
    estimate = (f"Based on the available memory, the estimated maximum model length is {estimated}. "
                if estimated else "")
    message = (f"To serve at least one request with the model's max seq len ({length}), ({format_gib(needed)} GiB KV "
               f"cache is needed, which is larger than the available KV cache memory ({format_gib(available)} GiB). "
               f"{estimate}Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU "
               f"backend) or decreasing `max_model_len` when initializing the engine. See "
               f"https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
    lines = [vllm(line, level="ERROR", where="core.py:1510")
             for line in ["EngineCore failed to start.", *traceback_text(f"ValueError: {message}").split("\n")]]
    record = vllm_parse(*lines)
    assert (record.error_kind, record.max_model_len, record.estimated_max_model_len) == (
        "max_model_len_too_large", length, estimated)
    assert (record.error_data["needed_gib"], record.error_data["available_gib"]) == (needed, available)


@given(gib, gib, fraction, gib)
def test_vllm_free_memory_error(free, total, util, requested):
    message = (f"ValueError: Free memory on device cuda:0 ({format_gib(free)}/{format_gib(total)} GiB) on startup is "
               f"less than desired GPU memory utilization ({util}, {format_gib(requested)} GiB). Decrease GPU memory "
               f"utilization or reduce GPU memory used by other processes.")
    record = vllm_parse(vllm(message, proc="Worker_TP3", pid=9, level="ERROR", where="multiproc_executor.py:953"))
    assert record.error_data == dict(device_id="cuda:0", free_gib=free, total_gib=total, utilization=util,
                                     requested_gib=requested)


@given(tokens, gib, gib, st.integers(min_value=1, max_value=10**6), st.integers(min_value=1, max_value=10**7),
       st.sampled_from(["gpu", "cpu"]))
def test_sglang_pool_and_summary(n, k, v, requests, context, device):
    record = sglang_parse(
        sglang(f"KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: {n}, K size: {k:.2f} GB, "
               f"V size: {v:.2f} GB"),
        sglang(f"max_total_num_tokens={n}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
               f"max_running_requests={requests}, context_len={context}, available_{device}_mem={v:.2f} GB",
               ranks=" TP0", ms=".001"),
    )
    assert (record.pool_tokens, record.kv_tokens, record.kv_gib) == (n, n, round(k + v, 2))
    assert (record.max_running_requests, record.context_len, record.device, record.available_mem_gib) == (
        requests, context, device, v)


@given(st.floats(min_value=0, max_value=1e4, allow_nan=False), gib, gib)
def test_sglang_weights_line(elapsed, avail, usage):
    record = sglang_parse(sglang(f"Load weight end. elapsed={elapsed:.2f} s, type=Qwen3ForCausalLM, "
                                 f"avail mem={avail:.2f} GB, mem usage={usage:.2f} GB."))
    assert (record.weights_load_seconds, record.avail_mem_after_load_gib, record.weights_gib) == (
        float(f"{elapsed:.2f}"), avail, usage)


@given(fraction, st.floats(min_value=-2, max_value=1, allow_nan=False))
def test_sglang_weights_leave_no_memory(current, minimum):
    suggested = round(minimum + 0.0005, 3)
    message = ("ValueError: Loaded weights leave no GPU memory for the KV cache under "
               f"--mem-fraction-static={current}. "
               f"Raise --mem-fraction-static above {suggested:.3f} (minimum viable = 1 - available/pre = "
               f"{minimum:.4f}). If using speculative decoding, draft weights are now counted.")
    record = sglang_parse(sglang("Scheduler hit an exception: Traceback (most recent call last):"),
                          *traceback_text(message).split("\n")[1:])
    assert record.error_kind == "weights_leave_no_memory"
    assert record.error_data == dict(mem_fraction_static_effective=current,
                                     suggested_mem_fraction_static=float(f"{suggested:.3f}"),
                                     minimum_mem_fraction_static=float(f"{minimum:.4f}"))


processes = st.sampled_from(["EngineCore", "EngineCore_DP0", "Worker", "Worker_TP0", "VllmWorker-0", "MainProcess"])
user_prefixes = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=12)


@given(processes, st.integers(min_value=1, max_value=4_194_304), user_prefixes, tokens)
def test_vllm_prefix_variants(proc, pid, prefix, n):
    line = vllm(V19 % ("GPU", f"{n:,}", "8,192", 1.0), proc=proc, pid=pid, prefix=prefix,
                where="v1/core/kv_cache_utils.py:2327")
    assert vllm_parse(line).kv_tokens == n


def _interleavings(a: list[str], b: list[str]):
    """Random merges of two processes' lines that keep each one's own order."""
    return st.lists(st.booleans(), min_size=len(a) + len(b), max_size=len(a) + len(b)).map(
        lambda picks: _merge(a, b, picks))


def _merge(a, b, picks):
    a, b, out = list(a), list(b), []
    for take_a in picks:
        source = a if (take_a and a) or not b else b
        out.append(source.pop(0))
    return out


E3_LINE = ("ValueError: To serve at least one request with the model's max seq len (8192), (1.0 GiB KV cache is "
           "needed, which is larger than the available KV cache memory (0.5 GiB). Based on the available memory, the "
           "estimated maximum model length is 4080. Try increasing `gpu_memory_utilization`.")


def failing(exception_line: str) -> list[str]:
    return [vllm(line, level="ERROR", where="core.py:1510")
            for line in ["EngineCore failed to start.", *traceback_text(exception_line, frames=4).split("\n")]]


CHATTER = [vllm(f"Route: /v{i}, Methods: GET", proc="APIServer", pid=100, where="launcher.py:195") for i in range(6)]
CHATTER += ["Loading safetensors checkpoint shards:  50% Completed | 1/2", "INFO:     Waiting for application startup."]


@given(_interleavings(failing(E3_LINE), CHATTER))
def test_interleaving_keeps_the_known_error(lines):
    record = vllm_parse(*lines)
    assert (record.error_kind, record.error_message, record.estimated_max_model_len) == (
        "max_model_len_too_large", E3_LINE, 4080)


@given(_interleavings(failing("OSError: [Errno 28] No space left on device"), CHATTER))
def test_interleaving_keeps_an_unknown_exception(lines):
    record = vllm_parse(*lines)
    assert (record.error_kind, record.error_message) == ("other", "OSError: [Errno 28] No space left on device")


# --- round trips of recorded logs: wrapper styles, ranks, line endings, streamed or line by line ---

import re as _re  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from hypothesis import HealthCheck  # noqa: E402

from harness.engines.logs import parse_engine_file  # noqa: E402
from parsers import parse_log, read_log  # noqa: E402
from tests.support.log_wrappers import LOSSY, RECORDED, WRAPPERS  # noqa: E402

FAITHFUL = sorted(set(WRAPPERS) - LOSSY)
ENDINGS = ("\n", "\r\n")
# vLLM's per-rank KV statement (one line, or the older first of two): the engine core's name carries the rank.
KV_STATEMENT = _re.compile(r"^(.*?)\((EngineCore[^()]*?) pid=(\d+)\)(.*KV cache size: )([\d,]+)( tokens.*)$")


def _with_other_rank(lines: list[str], other_tokens: int) -> tuple[list[str], int | None]:
    """Every vLLM KV statement also printed by a second data-parallel rank, with `other_tokens`."""
    out, rank0 = [], None
    for line in lines:
        match = KV_STATEMENT.match(line)
        if match is None:
            out.append(line)
            continue
        head, _, pid, mid, tokens, tail = match.groups()
        rank0 = int(tokens.replace(",", ""))
        out.append(f"{head}(EngineCore_DP0 pid={pid}){mid}{tokens}{tail}")
        out.append(f"{head}(EngineCore_DP1 pid={int(pid) + 1}){mid}{other_tokens:,}{tail}")
    return out, rank0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(RECORDED), st.lists(st.sampled_from(FAITHFUL), min_size=1, max_size=3),
       st.sampled_from(ENDINGS), st.integers(min_value=1, max_value=10**8), st.booleans())
def test_recorded_log_round_trips(path, wrappers, ending, other_tokens, add_rank):
    text = read_log(path)
    bare = parse_log(text).to_dict()
    lines = text.split("\n")
    rank0 = None
    if add_rank and bare["engine"] == "vllm":
        lines, rank0 = _with_other_rank(lines, other_tokens)
    # a different wrapper style line by line, as when several capture tools' output is merged
    wrapped = ending.join(WRAPPERS[wrappers[i % len(wrappers)]](i, line) if line else line
                          for i, line in enumerate(lines))
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "wrapped.log"
        log.write_bytes(wrapped.encode())
        streamed = parse_engine_file(log, bare["engine"]).record.to_dict()
    by_line = parse_log(wrapped, bare["engine"]).to_dict()
    streamed["format_release"] = None
    assert streamed == by_line
    rank_fields = {"rank_note", "kv_tokens_min_rank"}
    for key, value in bare.items():
        if key in rank_fields:
            continue
        assert by_line[key] == value, f"{key}: {by_line[key]!r} != {value!r}"
    if rank0 is not None:
        assert by_line["kv_tokens"] == rank0
        assert by_line["kv_tokens_min_rank"] == (min(other_tokens, rank0) if other_tokens != rank0 else None)
        assert (by_line["rank_note"] is not None) == (other_tokens != rank0)
