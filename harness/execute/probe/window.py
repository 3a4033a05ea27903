"""What the samples taken while one wave ran say (pure): the peaks, the counter's growth, and how well sampled."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from harness.execute.probe.sampler import GAP_INTERVALS, MemoryReading, Sample


@dataclass(frozen=True)
class Window:
    samples: int  # metrics answers that came while the wave ran
    duration_s: float
    longest_gap_s: float  # the longest time without an answer: from the wave's start, between two, to its end
    sparse: bool  # the longest gap exceeds GAP_INTERVALS intervals: the peaks are lower bounds
    peak_running: float | None = None
    peak_waiting: float | None = None
    peak_kv_usage: float | None = None
    peak_memory_mib: float | None = None
    counted: float | None = None  # the preemption counter's growth over the wave (None: no counter)


def _peak(values) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _counter_growth(samples: list[Sample], start: float, end: float) -> float | None:
    """The counter after the wave less the counter before it: the last reading answered by `start`, the first
    asked from `end` on (rendered after it; the latest one when the sampler stopped first)."""
    before = [s.preemptions for s in samples if s.t <= start and s.preemptions is not None]
    after = [s.preemptions for s in samples if s.asked is not None and s.asked >= end and s.preemptions is not None]
    during = [s.preemptions for s in samples if start < s.t < end and s.preemptions is not None]
    if not before:
        return None
    last = after[0] if after else (during[-1] if during else before[-1])
    return max(0.0, last - before[-1])


def _closing_memory(memory: Sequence[MemoryReading], end: float) -> list[float]:
    return [m.mib for m in memory if m.t > end][:1]


def window(samples: list[Sample], start: float, end: float, interval_s: float,
           memory: Sequence[MemoryReading] = ()) -> Window:
    """The wave from `start` (before its first request) to `end` (its last answer), read from every answer that
    came in between (a failed request is no sample) and every memory reading."""
    read = [s for s in samples if s.error is None]
    inside = [s for s in read if start < s.t <= end]
    times = [start, *sorted(s.t for s in inside), end]
    gap = max(b - a for a, b in itertools.pairwise(times))
    # the first reading at or after the end shows what the wave left (a request still counted as running)
    closing = [s for s in read if s.t > end][:1]
    seen = inside + closing
    mib = [m.mib for m in memory if start < m.t <= end] + _closing_memory(memory, end)
    return Window(len(inside), end - start, gap, gap > GAP_INTERVALS * interval_s,
                  _peak(s.running for s in seen), _peak(s.waiting for s in seen),
                  _peak(s.kv_usage for s in seen), _peak(mib), _counter_growth(read, start, end))
