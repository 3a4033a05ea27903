"""Any fatal start is an error: a startup log that ends with an exception, whatever its wording.

A rule that names the exception wins (its kind and numbers); any other exception that ends the log before the
server was ready is `engine_error` with kind `other` and the exception's own line as the message. A log cut off with
no exception stays undecided (the launcher tells a crash from a timeout), an exception the engine went on after
was not fatal, and one after readiness is a later failure, as before.
"""

from __future__ import annotations

import pytest

from parsers import events as ev
from parsers import make_parser, parse_log
from parsers.vllm import VllmLogParser
from tests.support.gpu_lines import V19, sglang, traceback_text, vllm, vllm_head, vllm_record

KV = vllm(V19 % ("GPU", "46,928", "8,192", 5.73), where="kv_cache_utils.py:1147")
# Noise a dying vLLM leaves after its last exception (Python's resource tracker, a torch warning).
NOISE = [("/usr/lib/python3.12/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear "
          "to be 1 leaked shared_memory objects to clean up at shutdown"),
         "  warnings.warn('resource_tracker: There appear to be %d '"]
UNKNOWN = ("torch._inductor.exc.InductorError: CalledProcessError: Command '['gcc', 'x.c']' returned non-zero exit "
           "status 1.")


def logged_exception(message: str, exception_line: str, level: str = "ERROR", proc: str = "EngineCore") -> list[str]:
    """An exception vLLM logs (logger.exception): a message whose every line, traceback included, carries the prefix."""
    return vllm_record(f"{message}\n{traceback_text(exception_line)}", level=level, proc=proc, where="core.py:1")


def read(engine: str, lines: list[str]):
    return parse_log("\n".join(lines), engine)


@pytest.mark.parametrize("tail", [[], NOISE], ids=["ends", "then-noise"])
def test_a_logged_exception_of_any_wording_that_ends_the_start_is_an_engine_error(tail):
    # A wording no failure marker knows (a newer release's, a plugin's): the log ends with its exception.
    lines = vllm_head() + logged_exception("Engine could not be brought up.", UNKNOWN) + tail
    record = read("vllm", lines)
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", "other", UNKNOWN)


def test_the_exception_is_settled_when_the_log_ends_and_the_launcher_hears_of_it():
    # While the log goes on, a logged exception may be one the engine survives: the error is known at close,
    # which the launcher calls when the engine's output ends (harness/execute/launcher.py drain).
    parser = make_parser("vllm")
    events = parser.feed_lines(vllm_head() + logged_exception("Engine could not be brought up.", UNKNOWN))
    assert ev.STARTUP_ERROR not in [e.kind for e in events] and parser.record.status is None
    closing = parser.close()
    assert [(e.kind, e.data["error_kind"]) for e in closing if e.kind == ev.STARTUP_ERROR] == [
        (ev.STARTUP_ERROR, "other")]
    assert parser.record.status == "engine_error"


def test_an_exception_after_the_kv_line_that_ends_the_start_is_an_engine_error():
    # e.g. a crash in CUDA-graph capture after the pool was built (an exception of no kind of its own: the runtime
    # API's "CUDA error: out of memory" is an OOM since gpu-logs-48, test_parsers_gpu_log_sets)
    exception = "RuntimeError: CUDA error: an illegal memory access was encountered"
    lines = vllm_head() + [KV] + logged_exception("Capture failed.", exception)
    record = read("vllm", lines)
    assert (record.status, record.error_kind, record.kv_tokens) == ("engine_error", "other", 46_928)
    assert record.error_message == exception


def test_a_message_continued_below_the_exception_line_is_kept():
    exception = "pydantic_core._pydantic_core.ValidationError: 1 validation error for CacheConfig"
    lines = vllm_record(f"Config failed.\n{traceback_text(exception)}\n  Value error, block size must be 16 "
                        "[type=value_error, input_value=7]", level="ERROR", where="core.py:1")
    record = read("vllm", lines)
    assert record.error_message == f"{exception}: Value error, block size must be 16"


def test_a_known_error_keeps_its_kind_and_numbers():
    known = ("ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is "
             "needed, which is larger than the available KV cache memory (7.12 GiB). Based on the available memory, "
             "the estimated maximum model length is 58336.")
    record = read("vllm", vllm_head() + logged_exception("Engine could not be brought up.", known))
    assert (record.error_kind, record.estimated_max_model_len) == ("max_model_len_too_large", 58336)


def test_an_exception_stated_on_an_error_line_without_traceback():
    line = vllm("RuntimeError: NCCL error: unhandled system error", level="ERROR", where="x.py:9")
    record = read("vllm", vllm_head() + [line])
    assert (record.status, record.error_kind) == ("engine_error", "other")
    assert record.error_message == "RuntimeError: NCCL error: unhandled system error"


def test_a_log_cut_off_without_an_exception_stays_undecided():
    assert read("vllm", vllm_head()).status is None
    assert read("sglang", [sglang("Load weight begin. avail mem=10.00 GB")]).status is None


@pytest.mark.parametrize("level", ["WARNING", "INFO", "DEBUG"])
def test_an_exception_logged_below_error_is_one_the_engine_survives(level):
    lines = vllm_head() + logged_exception("Optional kernel unavailable.", "ImportError: no module x", level=level)
    assert read("vllm", lines).status is None


def test_an_exception_the_engine_went_on_after_did_not_end_the_start():
    lines = vllm_head() + logged_exception("Optional kernel unavailable.", "ImportError: no module x") + [KV]
    record = read("vllm", lines)
    assert (record.status, record.error_kind) == ("ok", None)
    # ... and a log cut off after the engine went on is still a cut-off log
    later = vllm("Loading weights took 4.20 seconds", where="default_loader.py:1")
    lines = vllm_head() + logged_exception("Optional kernel unavailable.", "ImportError: no module x") + [later]
    assert read("vllm", lines).status is None


def test_an_exception_after_ready_stays_a_later_failure():
    ready = vllm("Application startup complete.", proc="APIServer", pid=100, where="launcher.py:1")
    lines = vllm_head() + [KV, ready] + logged_exception("Request failed.", "RuntimeError: boom")
    record = read("vllm", lines)
    assert (record.status, record.error_kind) == ("ok", None)
    uncaught = traceback_text("RuntimeError: engine dead").split("\n")
    record = read("vllm", vllm_head() + [KV, ready] + uncaught)
    assert (record.status, record.later_failure) == ("ok", "RuntimeError: engine dead")


def test_an_interrupt_is_a_stop_not_an_error():
    lines = vllm_head() + logged_exception("Interrupted.", "KeyboardInterrupt")
    assert read("vllm", lines).status is None


def test_a_stop_the_engine_was_asked_for_is_not_an_error():
    stop = vllm("[shutdown] EngineCore: trigger received signal=SIGTERM", where="core.py:1526")
    lines = vllm_head() + logged_exception("Engine could not be brought up.", UNKNOWN) + [stop]
    assert read("vllm", lines).status is None


# --- SGLang -------------------------------------------------------------------------------------------

SIGQUIT = "Received sigquit from a child process. It usually means the child failed."  # 0.5.23 engine.py:1978


def test_sglang_launcher_hearing_a_child_failed_is_an_engine_error():
    # The launcher's SIGQUIT handler (0.5.23 sglang/srt/entrypoints/engine.py:1978, logger.error): a child died,
    # whatever it printed; alone, the line is the message.
    record = read("sglang", [sglang("Load weight begin. avail mem=10.00 GB"), sglang(SIGQUIT)])
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", "other", SIGQUIT)


def test_sglang_scheduler_exception_of_any_wording_names_the_exception():
    # 0.5.23 sglang/srt/managers/scheduler.py:6372 logger.error(f"Scheduler hit an exception: {traceback}"),
    # then the launcher's SIGQUIT line: the exception is the message.
    exception = "RuntimeError: CUDA error: an illegal memory access was encountered"
    lines = [sglang("Load weight begin. avail mem=10.00 GB"),
             sglang(f"Scheduler hit an exception: {traceback_text(exception)}"), sglang(SIGQUIT)]
    record = read("sglang", lines)
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", "other", exception)


def test_sglang_exception_logged_by_another_process_ends_the_start():
    lines = [sglang("Load weight begin. avail mem=10.00 GB"),
             *f"[2026-11-29 20:00:00 TP1] Worker failed: {traceback_text(UNKNOWN)}".split("\n")]
    record = read("sglang", lines)
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", "other", UNKNOWN)


# SGLang's scheduler watchdog: a batch stuck in its forward pass for --watchdog-timeout seconds. Until 0.5.6 the only
# watchdog, whose dump of the batch is followed by a SIGQUIT to the server (0.5.5
# sglang/srt/managers/scheduler_runtime_checker_mixin.py:225-262); from 0.5.7 the dump is "Scheduler debug info:" and
# only "... self.soft=False)" kills (0.5.10 sglang/srt/utils/watchdog.py:133-163).
WATCHDOG_DUMP = ["self.cur_batch.batch_size()=1", "self.cur_batch.reqs=[Req(rid=a1, input_ids=[1, 2], output_ids=[3])]",
                 "self.max_total_num_tokens=101632, available_size=101504, evictable_size=0, protected_size=0"]
STARTED = [sglang("Load weight begin. avail mem=10.00 GB"),
           sglang('INFO:     127.0.0.1:1 - "GET /v1/models HTTP/1.1" 200 OK')]


def test_sglang_watchdog_firing_before_fired_up_is_a_start_that_failed_in_warm_up():
    record = read("sglang", STARTED + [sglang(WATCHDOG_DUMP[0]), *WATCHDOG_DUMP[1:],
                                       sglang("Watchdog timeout (self.watchdog_timeout=300)")])
    assert (record.status, record.error_kind, record.failed_during) == ("engine_error", "watchdog_timeout", "warmup")
    assert record.kv_tokens is None  # the dump's pool check is not the pool line


def test_sglang_watchdog_firing_after_the_server_served_is_not_a_failed_start():
    lines = STARTED + [sglang("The server is fired up and ready to roll!"), sglang(WATCHDOG_DUMP[0])]
    record = read("sglang", lines)
    assert (record.status, record.later_failure_kind) == ("ok", "watchdog_timeout")


def test_sglang_soft_watchdog_only_reports():
    lines = STARTED + [sglang("Scheduler debug info:"), "scheduler.cur_batch.batch_size()=1",
                       sglang("Scheduler watchdog timeout (self.watchdog_timeout=60.0, self.soft=True)")]
    assert read("sglang", lines).status is None
    hard = lines[:-1] + [sglang("Scheduler watchdog timeout (self.watchdog_timeout=60.0, self.soft=False)")]
    record = read("sglang", hard)
    assert (record.status, record.error_kind, record.failed_during) == ("engine_error", "watchdog_timeout", "warmup")
    assert record.error_data["watchdog_timeout_s"] == 60.0


def test_sglang_watchdog_dump_with_no_line_of_the_start_decides_nothing():
    # the batch is in the event loop, which runs the warm-up request and every later one
    assert read("sglang", [sglang(WATCHDOG_DUMP[0]), *WATCHDOG_DUMP[1:]]).status is None


# --- vLLM's refusal of max_num_seqs above the Mamba cache blocks -------------------------------------

def mamba_refusal(max_num_reqs: int, num_blocks: int) -> str:
    # 0.33.0 vllm/config/compilation.py:1525 (ValueError, after the whole profile), its f-string
    return (f"max_num_seqs ({max_num_reqs}) exceeds available Mamba cache "
            f"blocks ({num_blocks}). Each decode sequence "
            "requires one Mamba cache block, so CUDA graph capture cannot "
            "proceed. Please lower max_num_seqs to at most "
            f"{num_blocks} or increase "
            "gpu_memory_utilization.")


def test_vllm_mamba_blocks_below_max_num_seqs_is_named_with_its_numbers():
    lines = vllm_head() + [KV] + vllm_record("EngineCore failed to start.\n"
                                             + traceback_text(f"ValueError: {mamba_refusal(1024, 313)}"),
                                             level="ERROR", where="core.py:1584")
    record = read("vllm", lines)
    assert (record.status, record.error_kind) == ("engine_error", "mamba_blocks_below_max_num_seqs")
    assert record.error_data == {"max_num_seqs": 1024, "mamba_cache_blocks": 313}
    assert record.kv_tokens == 46_928  # the pool was sized before the refusal


# --- every release's own fatal wording, from the format tables ----------------------------------------------

def fatal_rows():
    from harness.engines.release_formats import read_table, table_paths

    out = []
    for engine in ("vllm", "sglang"):
        for path in table_paths(engine):
            release = path.stem.split("-", 1)[1]
            for row in read_table(path):
                if row.fact == "fatal":
                    out.append(pytest.param(engine, row, id=f"{engine}-{release}:{row.template[:40]}"))
    return out


def fatal_lines(engine: str, template: str, exception_line: str | None) -> list[str]:
    """The process's failure as it prints it: its words, and the traceback it logs with them (or none)."""
    trace = traceback_text(exception_line) if exception_line else ""
    if engine == "vllm":
        message = template.replace("%s", "7")
        return vllm_record(f"{message}\n{trace}" if trace else message, level="ERROR", where="core.py:1")
    if "{traceback}" in template:
        return sglang(template.replace("{traceback}", trace or "7")).split("\n")
    return [sglang(template), *trace.split("\n")] if trace else [sglang(template)]


FATAL_ROWS = fatal_rows()


def test_the_tables_hold_each_engines_fatal_wording():
    assert {p.values[0] for p in FATAL_ROWS} == {"vllm", "sglang"}


def _only_a_started_engine_prints(engine: str, template: str) -> bool:
    return engine == "vllm" and VllmLogParser.SERVING_FAILURES.match(template) is not None


@pytest.mark.parametrize(("engine", "row"), FATAL_ROWS)
def test_each_releases_fatal_wording_is_an_engine_error_at_once(engine, row):
    # A failure marker: the error is known as the line is read (the launcher can stop waiting), and the exception
    # logged with it names it.
    parser = make_parser(engine)
    events = parser.feed_lines(fatal_lines(engine, row.template, UNKNOWN))
    assert ev.STARTUP_ERROR in [e.kind for e in events], row.template
    parser.close()
    alone = read(engine, fatal_lines(engine, row.template, None))
    if _only_a_started_engine_prints(engine, row.template):
        # ... except that a wording only an engine that had started prints (vLLM's "EngineCore encountered a fatal
        # error.", "AsyncLLM output_handler failed.": parsers/vllm.py SERVING_FAILURES) says, in a log with no line
        # of the start, that the start had completed: at close the failure is a later one (gpu-logs-30 vllm/02)
        record = parser.record
        assert (record.status, record.error_kind, record.later_failure_kind, record.later_failure) == (
            "ok", None, "other", UNKNOWN)
        assert (alone.status, alone.error_kind, alone.later_failure_kind) == ("ok", None, "other")
        return
    assert (parser.record.status, parser.record.error_kind, parser.record.error_message) == (
        "engine_error", "other", UNKNOWN)
    assert (alone.status, alone.error_kind) == ("engine_error", "other")


def test_the_logged_exception_is_the_cause_of_the_failure_that_follows_it():
    # vLLM's API server reports the engine core's death with its own uncaught exception, "See root cause above"
    # (0.33.0 vllm/v1/engine/utils.py:1470): the engine core's logged exception is the message, whatever its wording.
    api = traceback_text("RuntimeError: Engine core initialization failed. See root cause above. Failed core "
                         "proc(s): {'EngineCore': 1}").split("\n")
    lines = vllm_head() + logged_exception("Engine could not be brought up.", UNKNOWN) + api
    record = read("vllm", lines)
    assert (record.status, record.error_kind, record.error_message) == ("engine_error", "other", UNKNOWN)
    # ... and so it is before a failure marker of another process
    marker = vllm_record("EngineCore failed to start.\n" + traceback_text("Exception: WorkerProc initialization "
                                                                          "failed. See stack trace for root cause."),
                         level="ERROR", where="core.py:1584")
    lines = vllm_head() + logged_exception("Worker could not load.", UNKNOWN, proc="Worker_TP1") + marker
    assert read("vllm", lines).error_message == UNKNOWN


def test_sglang_soft_watchdog_only_dumps_and_a_hard_ones_figure_is_read_in_each_releases_wording():
    # From 0.5.7 the soft watchdog (--soft-watchdog-timeout) logs "... self.soft=True)" and its dump
    # "scheduler.cur_batch.batch_size()=N" and the server goes on (0.5.10 sglang/srt/utils/watchdog.py:153,
    # scheduler_runtime_checker_mixin.py:396): no failure
    soft_line = sglang("Scheduler watchdog timeout (self.watchdog_timeout=300.0, self.soft=True)")
    soft = read("sglang", STARTED + [sglang("Scheduler debug info:"), "scheduler.cur_batch.batch_size()=1", soft_line])
    assert soft.error_kind is None and soft.status != "engine_error"
    # the hard watchdog's line of 0.4.0-0.5.6 (0.4.6 sglang/srt/managers/scheduler.py:1592) and of 0.5.7 on
    for line in ("Watchdog timeout (self.watchdog_timeout=300.0)",
                 "Scheduler watchdog timeout (self.watchdog_timeout=300.0, self.soft=False)"):
        record = read("sglang", STARTED + [sglang(line)])
        assert (record.status, record.error_kind, record.error_data) == (
            "engine_error", "watchdog_timeout", {"watchdog_timeout_s": 300.0})
