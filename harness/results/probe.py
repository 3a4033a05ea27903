"""What the probe measured on one ready server (frozen), and its results columns.

Every wave is written, in one column (`probe_waves`, JSON text like `kv_pools`): a list of objects, each named by
its shape and length (`prompt_heavy@512`), so a probe of four lengths and two shapes keeps its eight waves and a
reader finds a wave by what it was, not by its position."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

MIB_PER_GIB = 1024


@dataclass(frozen=True)
class WaveResult:
    """Requests of one length and shape sent at once, and what the server's metrics showed while it served them."""

    shape: str  # prompt_heavy | decode_heavy (harness/execute/probe/plan.py SHAPES)
    length: int  # tokens per request, prompt + output
    output_tokens: int  # asked of each request
    sent: int
    claimed: float | None  # the concurrency the engine's own figures give at this length
    completed: int  # served with every output token
    failed: int
    failure: str | None  # the first failed request's status and message
    # the engine's running-requests gauge as sampled, or its streams' overlap where higher (None: neither)
    peak_running: int | None
    peak_waiting: int | None
    preemptions: int | None  # preempted (retracted) during the wave
    preemptions_from: str | None  # "counter" (the engine's metric) or "log" (its scheduler's lines)
    peak_kv_usage: float | None  # the pool's peak share in use, 0..1
    samples: int = 0  # metrics readings while the wave ran
    duration_s: float | None = None
    longest_gap_s: float | None = None  # the longest time without a reading
    sparse: bool = False  # that gap exceeds 4 intervals: the peaks are lower bounds
    cut: bool = False  # the probe's time ran out during this wave: what it measured until then
    resent: int = 0  # requests sent once more: the server closed their connection before answering (not a failure)

    @property
    def name(self) -> str:
        return f"{self.shape}@{self.length}"

    @property
    def ratio(self) -> float | None:
        """Measured concurrency (peak running) over the claimed one."""
        if self.peak_running is None or not self.claimed:
            return None
        return self.peak_running / self.claimed


@dataclass(frozen=True)
class ProbeResult:
    longest_served: int | None  # the longest request served (prompt + output tokens)
    refused_len: int | None  # the shortest length refused (the longest served + 1, where refused)
    refusal: str | None  # that refusal's status and the engine's message
    waves: tuple[WaveResult, ...]
    healthy_after: bool  # the server still answered its readiness URL after the probe
    peak_memory_mib: float | None  # the engine processes' peak (CPU: resident memory; GPU: per device, summed)
    limits: str
    failure: str | None = None  # why the probe ended early: the server died or stopped answering
    not_run: str | None = None  # why nothing was sent (the engine logged no length to probe): not a failure
    incomplete: str | None = None  # the probe's time ran out: what was cut (the server itself was fine)

    @property
    def failed(self) -> bool:
        return self.not_run is None and (self.failure is not None or not self.healthy_after)


# one wave's keys in probe_waves, in this order (units in the names where a figure has one); peaks_lower_bound:
# sampled too sparsely (a gap over 4 intervals) or cut short, so its peaks are at least what it says
WAVE_KEYS = ("wave", "shape", "len_tokens", "prompt_tokens", "output_tokens", "sent", "claimed_concurrency",
             "completed", "failed_requests", "first_failure", "peak_running", "peak_waiting", "preemptions",
             "preemptions_from", "peak_kv_usage", "concurrency_ratio", "duration_s", "samples", "longest_gap_s",
             "peaks_lower_bound", "cut", "resent_requests")
# numbers, typed as such when a results file is read
PROBE_NUMERIC: tuple[str, ...] = ("probe_longest_served_tokens", "probe_refused_tokens", "probe_peak_memory_gib")
PROBE_COLUMNS: tuple[str, ...] = (
    "probe_longest_served_tokens", "probe_refused_tokens", "probe_refusal", "probe_waves",
    "probe_healthy_after", "probe_peak_memory_gib", "probe_incomplete", "probe_limits",
)


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def wave_entry(wave: WaveResult) -> dict[str, Any]:
    values = (wave.name, wave.shape, wave.length, wave.length - wave.output_tokens, wave.output_tokens, wave.sent,
              _round(wave.claimed, 2), wave.completed, wave.failed, wave.failure, wave.peak_running,
              wave.peak_waiting, wave.preemptions, wave.preemptions_from, _round(wave.peak_kv_usage, 4),
              _round(wave.ratio, 3), _round(wave.duration_s, 2), wave.samples, _round(wave.longest_gap_s, 3),
              wave.sparse or wave.cut, wave.cut, wave.resent)
    return dict(zip(WAVE_KEYS, values))


def waves_text(waves: list[dict[str, Any]]) -> str:
    return json.dumps(waves, separators=(",", ":"))


def read_waves(text: Any) -> list[dict[str, Any]]:
    """probe_waves's entries (none where the cell is empty or not a list of objects)."""
    if not isinstance(text, str) or not text.strip():
        return []
    try:
        data = json.loads(text)
    except ValueError:
        return []
    return [w for w in data if isinstance(w, dict) and "wave" in w] if isinstance(data, list) else []


def probe_fields(probe: ProbeResult | None) -> dict[str, Any]:
    """The probe's results columns (empty where the point was not probed)."""
    if probe is None:
        return {}
    return {
        "probe_longest_served_tokens": probe.longest_served, "probe_refused_tokens": probe.refused_len,
        "probe_refusal": probe.refusal, "probe_waves": waves_text([wave_entry(w) for w in probe.waves]),
        "probe_healthy_after": probe.healthy_after,
        "probe_peak_memory_gib": _round(None if probe.peak_memory_mib is None
                                        else probe.peak_memory_mib / MIB_PER_GIB, 3),
        "probe_incomplete": probe.incomplete, "probe_limits": probe.limits,
    }
