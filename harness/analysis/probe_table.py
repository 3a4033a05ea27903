"""What the probe measured, per point and per wave, read from a results table (pure): what `report` draws and
tabulates under "Under the probe"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.formatting import is_missing
from harness.results.probe import SHORT_WAVE, WAVE_PREFIXES


@dataclass(frozen=True)
class ProbedWave:
    engine: str
    engine_version: str
    point_id: str
    repeat: int
    short: bool  # the second (short) wave
    length: int
    sent: int
    claimed: float | None  # the engine's own figures' concurrency at this length
    measured: int | None  # requests run at once (peak running)
    ratio: float | None  # measured / claimed
    peak_waiting: int | None
    preemptions: int | None
    peak_kv_usage: float | None  # 0..1
    completed: int
    failed: int
    first_failure: str | None

    @property
    def label(self) -> str:
        return f"{self.engine} {self.point_id[:8]} L={self.length}"


@dataclass(frozen=True)
class ProbedPoint:
    engine: str
    engine_version: str
    point_id: str
    repeat: int
    status: str
    longest_served: int | None
    refused_len: int | None
    refusal: str | None
    healthy_after: bool | None
    peak_memory_mib: float | None
    kv_gib: float | None  # the pool the engine logged, beside the memory its processes reached


def _value(row: pd.Series, column: str) -> Any:
    value = row.get(column)
    return None if is_missing(value) else value


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _probed_rows(frame: pd.DataFrame) -> pd.DataFrame:
    if "probe_limits" not in frame:
        return frame.iloc[:0]
    return frame[frame["probe_limits"].notna() & ~frame["probe_limits"].astype(str).str.startswith("not probed")]


def probed_points(frame: pd.DataFrame) -> list[ProbedPoint]:
    out = []
    for _, row in _probed_rows(frame).iterrows():
        healthy = _value(row, "probe_healthy_after")
        out.append(ProbedPoint(
            str(row["engine"]), str(row["engine_version"]), str(row["point_id"]), int(row["repeat"]),
            str(row["status"]), _int(_value(row, "probe_longest_served")), _int(_value(row, "probe_refused_len")),
            _value(row, "probe_refusal"), None if healthy is None else str(healthy) == "True",
            _value(row, "probe_peak_memory_mib"), _value(row, "kv_gib")))
    return out


def probed_waves(frame: pd.DataFrame) -> list[ProbedWave]:
    out = []
    for _, row in _probed_rows(frame).iterrows():
        for prefix in WAVE_PREFIXES:
            length = _value(row, f"{prefix}len")
            if length is None:
                continue
            get = lambda name, p=prefix, r=row: _value(r, f"{p}{name}")  # noqa: E731 - one row's wave
            out.append(ProbedWave(
                str(row["engine"]), str(row["engine_version"]), str(row["point_id"]), int(row["repeat"]),
                prefix == SHORT_WAVE, int(length),
                int(get("sent") or 0), get("claimed_concurrency"), _int(get("peak_running")),
                get("concurrency_ratio"), _int(get("peak_waiting")), _int(get("preemptions")),
                get("peak_kv_usage"), int(get("completed") or 0), int(get("failed_requests") or 0),
                get("first_failure")))
    return out
