"""What capture tools and log setups put around engine lines does not change the record.

Each wrapper (tests/support/log_wrappers.py) is applied to every line of every recorded real log;
the record must be the one the bare log gives.
"""

from __future__ import annotations

import pytest

from parsers import make_parser, parse_log, read_log
from tests.support.gpu_log_sets import fixture_log
from tests.support.log_wrappers import KEPT_BY_LOSSY, LOSSY, RECORDED, WRAPPERS, wrap


def applicable():
    """(log, wrapper) pairs where the wrapper changes the log (SGLang has no process tag or level)."""
    out = []
    for path in RECORDED:
        text = read_log(path)
        for name in sorted(WRAPPERS):
            if wrap(text, WRAPPERS[name]) != text:
                out.append(pytest.param(path, name, id=f"{path.parent.name}/{path.stem}-{name}"))
    return out


@pytest.mark.parametrize(("path", "name"), applicable())
def test_wrapped_log_gives_the_bare_record(path, name):
    text = read_log(path)
    wrapped = wrap(text, WRAPPERS[name])
    bare = parse_log(text).to_dict()
    got = parse_log(wrapped, bare["engine"]).to_dict()
    keys = [k for k in KEPT_BY_LOSSY if k in bare] if name in LOSSY else bare.keys()  # the engine's own fields
    for key in keys:
        assert got[key] == bare[key], f"{key}: {got[key]!r} != {bare[key]!r}"


@pytest.mark.parametrize("name", ["docker_timestamps", "compose_with_timestamps", "ansi_colour"])
def test_wrapped_log_is_still_detected(name):
    from parsers import detect_engine
    for path in RECORDED:
        text = read_log(path)
        engine = detect_engine(text)
        assert detect_engine(wrap(text, WRAPPERS[name])) == engine, path


def test_a_transcript_kept_as_colour_tuples_with_module_tags_reads_its_start():
    # A report's terminal picture of a real vLLM 0.10.2 start (gpu-oos13 v47's source): each line a
    # '("INFO [kv_cache_utils]   GPU KV cache size: 452,800 tokens", CYAN),' tuple, the file tags shortened to modules.
    # The figures are the log's own, and its REPORT.md's ("29.08 GiB", "452,800 tokens", "110.5x").
    from pathlib import Path
    log = (Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "gpu-oos13"
           / "v47-h100-qwen3-30b-a3b-2507-fp8online-u0.90-v0.10.2-excerpt.log")
    record = parse_log(read_log(log), "vllm")
    assert (record.kv_tokens, record.max_concurrency, record.max_model_len) == (452800, 110.55, 4096)
    assert record.weights_gib == 29.0788 and record.status == "ok"


@pytest.mark.parametrize(("shown", "bare"), [
    ("16433 [2026-07-23 15:23:26 DP2 TP2 EP2] Scheduler hit an exception: Traceback (most recent call last):",
     "[2026-07-23 15:23:26 DP2 TP2 EP2] Scheduler hit an exception: Traceback (most recent call last):"),
    ('16434   File "/usr/local/src/sglang/python/sglang/srt/managers/scheduler.py", line 4656, in run_event_loop',
     '  File "/usr/local/src/sglang/python/sglang/srt/managers/scheduler.py", line 4656, in run_event_loop'),
    ("12\tINFO 05-07 02:13:52 [loader.py:458] Loading weights took 0.10 seconds",
     "INFO 05-07 02:13:52 [loader.py:458] Loading weights took 0.10 seconds"),
    # not a log line after the number: kept as it is
    ("3 errors were found", "3 errors were found"),
])
def test_an_editors_line_numbers_are_not_part_of_the_line(shown, bare):
    # vim's `:set number` (sglang#32182, gpu-logs-30 sglang/04), `cat -n`: the number and one space or a tab
    from parsers.lines import strip_wrappers
    assert strip_wrappers(shown) == bare


@pytest.mark.parametrize(("shown", "bare"), [
    # a terminal's wrap inside SGLang's summary, the first row's padding kept (Ascend/sglang#522, gpu-logs-33 sglang/01)
    ("[2026-04-24 12:25:35] max_total_num_tokens=525952, max_running_requests=8, context_len=262" + " " * 150
     + "144, available_gpu_mem=11.84 GB",
     ("[2026-04-24 12:25:35] max_total_num_tokens=525952, max_running_requests=8, context_len=262144, "
      "available_gpu_mem=11.84 GB")),
    ("context_len=32" + " " * 7 + "768", "context_len=32768"),
    # not one number: a column after a value, a decimal after spaces, an assignment's spaces
    ("bs=1   2.5 s", "bs=1   2.5 s"),
    ("x = 1   2,", "x = 1   2,"),
    ("tp=8   dp=2", "tp=8   dp=2"),
])
def test_a_number_a_terminal_wrapped_is_one_number_again(shown, bare):
    from parsers.lines import clean_segments
    assert clean_segments(shown) == [bare]


def test_a_repr_of_many_carriage_return_bars_is_read_in_linear_time():
    # python_list_lines over gpu-logs-7 vllm/12: a capture bar redrawn 28 times with "\r" on one line, shown as its
    # repr ("'...\\rCapturing ...\\r...',"): the pasted-literal test backtracked through 2^n ways (minutes) before
    import time

    from parsers import make_parser
    bars = "\r".join(f"Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):  {k}%| | {k}/67 [00:00<00:03]"
                     for k in range(40))
    started = time.perf_counter()
    parser = make_parser("vllm")
    parser.feed_lines([f"    {'(EngineCore_DP0 pid=1) ' + bars!r},"])
    parser.close()
    assert time.perf_counter() - started < 2


# Real GPU-set logs (tests/fixtures/gpu-logs*) through every wrapper, a sample chosen across what the recorded CPU logs
# lack: multi-rank prefixes, tracebacks, Ray's nested tags, other backends, other pools, and the logs whose repr
# (python_list_lines) hung the pasted-literal test. (A sweep of every GPU log x every wrapper, 643 x 16, found the other
# mismatches in logs that are documents already (a Python source's literals, markdown, hand-wrapped lines): a capture
# tool's prefix on such a line is no real tool's output.)
GPU_SAMPLE = (
    "gpu-logs-7/vllm/12-", "gpu-logs-25/vllm/05-", "gpu-logs-26/vllm/06-",  # repr of "\r" bars (hang), ANSI, v0 workers
    "gpu-logs-10/sglang/07-", "gpu-logs-10/vllm/03-",  # ranks: eight TP ranks' KV lines, TP/EP worker prefixes
    "gpu-logs-10/sglang/02-", "gpu-logs-10/vllm/02-",  # tracebacks
    "gpu-logs-12/vllm/08-", "gpu-logs-12/vllm/13-",  # Ray: nested RayWorkerWrapper ip prefixes, RayTaskError
    "gpu-logs-10/vllm/08-", "gpu-logs-11/sglang/03-", "gpu-logs-11/vllm/03-",  # TPU, ROCm, CPU backends
    "gpu-logs-10/sglang/11-", "gpu-logs-11/sglang/01-",  # SWA pools, a Mamba state beside the KV
    # an author's summary line broken before its number, whose next line a container's time stamp does not join to it
    # (the width of a terminal's cut, taken from its widest line, read 2048 and the stamp's year as 20482026)
    "gpu-logs-12/sglang/09-",
)


def _gpu_sample():
    out = []
    for prefix in GPU_SAMPLE:
        path = fixture_log(prefix)
        text = read_log(path)
        for name in sorted(WRAPPERS):
            if wrap(text, WRAPPERS[name]) != text:
                out.append(pytest.param(path, name, id=f"{prefix}{name}"))
    return out


@pytest.mark.parametrize(("path", "name"), _gpu_sample())
def test_a_wrapped_gpu_log_gives_the_bare_record(path, name):
    engine = path.parent.name
    text = read_log(path)
    bare = parse_log(text, engine).to_dict()
    got = parse_log(wrap(text, WRAPPERS[name]), engine).to_dict()
    keys = [k for k in KEPT_BY_LOSSY if k in bare] if name in LOSSY else bare.keys()
    for key in keys:
        assert got[key] == bare[key], f"{key}: {got[key]!r} != {bare[key]!r}"


@pytest.mark.parametrize(("shown", "bare"), [
    # grep -n over a file (its name first) whose lines start with a time or a date (gpu-logs-17 vllm/06, gpu-logs-10
    # vllm/01 through the grep_n wrapper)
    ("server.log:12:16:07:44 [kv_cache_utils.py:1319]     GPU KV cache size: 1,000 tokens",
     "16:07:44 [kv_cache_utils.py:1319]     GPU KV cache size: 1,000 tokens"),
    ("server.log:3:2026-03-30 13:12:04 | kv_cache_utils | 1 | INFO : GPU KV cache size: 10 tokens",
     "2026-03-30 13:12:04 | kv_cache_utils | 1 | INFO : GPU KV cache size: 10 tokens"),
    ("run.log-40-05:21:50 (EngineCore pid=75) INFO x", "05:21:50 (EngineCore pid=75) INFO x"),
])
def test_grep_n_with_a_file_name_before_a_line_that_starts_with_a_time(shown, bare):
    from parsers.lines import _shown
    assert _shown(shown) == bare


# A terminal's hard wrap (tests/support/log_wrappers.py `terminal`): every piece of a long line but its last exactly as
# wide as the terminal, cut anywhere, a number too ("... #tokens: 27775" / "43, K size: ..."), which the parser once
# read as its first part. The sample: the recorded CPU logs, the GPU sample above, and four GPU logs whose KV count a
# cut used to shorten (gpu-logs-29 sglang/01 at 120 columns: 277754 for 2,777,543).
TERMINAL_WIDTHS = (80, 120)
CUT_KV_COUNTS = ("gpu-logs-29/sglang/01-", "gpu-logs-11/sglang/01-", "gpu-logs-24/sglang/05-", "gpu-logs-12/vllm/07-")
# Cases whose text shows no sign of the terminal (one line cut once inside a word, which an author's wrap at a space
# looks like): nothing is joined, so what that line states after its cut is not read.
NO_SIGN_OF_THE_WIDTH = {("08-tpu-v6e-", 80), ("03-mi355x-rocm-container-", 120), ("03-cpu-0300-k8s-", 120),
                        ("09-jetson-unified-memory-", 120)}


def _terminal_cases():
    from tests.support.log_wrappers import terminal
    paths = [(path, None) for path in RECORDED]
    paths += [(path, path.parent.name) for path in map(fixture_log, GPU_SAMPLE + CUT_KV_COUNTS)]
    out = []
    for path, engine in paths:
        text = read_log(path)
        for width in TERMINAL_WIDTHS:
            if wrap(text, terminal(width)) == text:
                continue
            marks = [pytest.mark.xfail(strict=True, reason="no sign of the terminal's width")] if any(
                path.name.startswith(stem) and width == w for stem, w in NO_SIGN_OF_THE_WIDTH) else []
            out.append(pytest.param(path, engine, width, marks=marks, id=f"{path.parent.name}/{path.stem}-{width}"))
    return out


@pytest.mark.parametrize(("path", "engine", "width"), _terminal_cases())
def test_a_log_a_terminal_wrapped_gives_the_bare_record(path, engine, width):
    from tests.support.log_wrappers import terminal
    text = read_log(path)
    bare = parse_log(text, engine or "auto").to_dict()
    got = parse_log(wrap(text, terminal(width)), bare["engine"]).to_dict()
    for key in bare:
        assert got[key] == bare[key], f"{key}: {got[key]!r} != {bare[key]!r}"


@pytest.mark.parametrize(("prefix", "width"), [
    ("gpu-logs-16/vllm/06-", 80),  # a ValueError a terminal cut at 80 columns inside its figures and a word
    ("gpu-logs-10/vllm/09-", None),  # an author's wrap at 81 columns over five lines, two of them that wide
    ("gpu-logs-7/vllm/04-", None),  # ... at 100 columns (two lines of 97)
    ("gpu-logs-36/vllm/04-", None),  # ... two lines of 74, one of them the KV memory line
    ("gpu-logs-37/vllm/01-", None),  # the widest line followed by an author's '...'
    ("gpu-logs-24/sglang/04-", None),  # two prefixless KV lines of one width, each its own record
])
def test_the_terminal_width_a_real_log_shows(prefix, width):
    from parsers import terminal_width
    assert terminal_width(read_log(fixture_log(prefix)).split("\n")) == width


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_ray_serves_own_record_format_gives_its_level_and_message(engine):
    # gpu-logs-68 vllm/08's controller line (ray PR#66230): "%(levelname)s %(asctime)s {component_name}
    # {component_id} -- %(message)s" (Ray 2.46.0 ray/serve/_private/logging_utils.py:120, constants.py:240-245) under
    # Ray's actor tag; its fields before " -- " are not the message
    line = next(text for text in read_log(fixture_log("gpu-logs-68/vllm/08-")).splitlines() if "controller" in text)
    parser = make_parser(engine)
    split = parser.split_prefix(line, None)
    message = ("Deployment 'LLMServer:claude-sonnet-4-5-20250929' in application 'anthropic-direct' has 1 replicas "
               "that have taken more than 30s to initialize.")
    assert (split.level, split.text) == ("WARNING", message)
