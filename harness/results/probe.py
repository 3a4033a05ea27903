"""What the probe measured on one ready server (frozen), and its results columns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WaveResult:
    """Requests of one length sent at once, and what the server's metrics showed while it served them."""

    length: int  # tokens per request, prompt + output
    sent: int
    claimed: float | None  # the concurrency the engine's own figures give at this length
    completed: int  # served with every output token
    failed: int
    failure: str | None  # the first failed request's status and message
    # the engine's running-requests gauge as sampled, or its streams' overlap where higher (None: neither)
    peak_running: int | None
    peak_waiting: int | None
    preemptions: int | None  # preempted (retracted) during the wave
    peak_kv_usage: float | None  # the pool's peak share in use, 0..1

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

    @property
    def failed(self) -> bool:
        return self.not_run is None and (self.failure is not None or not self.healthy_after)


# the first wave (L = max_model_len by default) and the second (a short L) have columns of their own, named with
# these prefixes (in this order)
LONG_WAVE = "probe_"
SHORT_WAVE = "probe_short_"
WAVE_PREFIXES = (LONG_WAVE, SHORT_WAVE)
_WAVE = ("len", "sent", "claimed_concurrency", "completed", "failed_requests", "peak_running", "peak_waiting",
         "preemptions", "peak_kv_usage", "concurrency_ratio")
_WAVE_TEXT = ("first_failure",)  # the first failed request's status and the engine's message
# numbers, typed as such when a results file is read
PROBE_NUMERIC: tuple[str, ...] = ("probe_longest_served", "probe_refused_len",
                                  *(prefix + name for prefix in WAVE_PREFIXES for name in _WAVE),
                                  "probe_peak_memory_mib")
PROBE_COLUMNS: tuple[str, ...] = (
    "probe_longest_served", "probe_refused_len", "probe_refusal",
    *(prefix + name for prefix in WAVE_PREFIXES for name in _WAVE + _WAVE_TEXT),
    "probe_healthy_after", "probe_peak_memory_mib", "probe_limits",
)


def _wave_fields(prefix: str, wave: WaveResult | None) -> dict[str, Any]:
    if wave is None:
        return {}
    values = (wave.length, wave.sent, None if wave.claimed is None else round(wave.claimed, 2), wave.completed,
              wave.failed, wave.peak_running, wave.peak_waiting, wave.preemptions,
              None if wave.peak_kv_usage is None else round(wave.peak_kv_usage, 4),
              None if wave.ratio is None else round(wave.ratio, 3), wave.failure)
    return {f"{prefix}{name}": value for name, value in zip(_WAVE + _WAVE_TEXT, values)}


def probe_fields(probe: ProbeResult | None) -> dict[str, Any]:
    """The probe's results columns (empty where the point was not probed)."""
    if probe is None:
        return {}
    waves = list(probe.waves) + [None, None]
    return {
        "probe_longest_served": probe.longest_served, "probe_refused_len": probe.refused_len,
        "probe_refusal": probe.refusal, **_wave_fields(LONG_WAVE, waves[0]), **_wave_fields(SHORT_WAVE, waves[1]),
        "probe_healthy_after": probe.healthy_after,
        "probe_peak_memory_mib": None if probe.peak_memory_mib is None else round(probe.peak_memory_mib, 1),
        "probe_limits": probe.limits,
    }
