"""What the probe measured, per point and per wave, read from a results table (pure): what `report` draws and
tabulates under "Under the probe"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from harness.formatting import is_missing
from harness.results.probe import read_waves


@dataclass(frozen=True)
class ProbedWave:
    engine: str
    engine_version: str
    point_id: str
    repeat: int
    shape: str  # prompt_heavy | decode_heavy
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
    samples: int | None = None  # metrics readings while it ran
    duration_s: float | None = None
    longest_gap_s: float | None = None
    lower_bound: bool = False  # sampled too sparsely, or cut short: the peaks are lower bounds
    preemptions_from: str | None = None

    @property
    def name(self) -> str:
        return f"{self.shape}@{self.length}"

    @property
    def label(self) -> str:
        return f"{self.engine} {self.point_id[:8]} {self.name}"


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
    peak_memory_gib: float | None
    kv_gib: float | None  # the pool the engine logged, beside the memory its processes reached
    incomplete: str | None = None  # the probe's time ran out: what was cut


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
            str(row["status"]), _int(_value(row, "probe_longest_served_tokens")),
            _int(_value(row, "probe_refused_tokens")), _value(row, "probe_refusal"),
            None if healthy is None else str(healthy) == "True", _value(row, "probe_peak_memory_gib"),
            _value(row, "kv_gib"), _value(row, "probe_incomplete")))
    return out


def probed_waves(frame: pd.DataFrame) -> list[ProbedWave]:
    out = []
    for _, row in _probed_rows(frame).iterrows():
        for wave in read_waves(_value(row, "probe_waves")):
            get = wave.get
            out.append(ProbedWave(
                str(row["engine"]), str(row["engine_version"]), str(row["point_id"]), int(row["repeat"]),
                str(get("shape")), int(get("len_tokens")), int(get("sent") or 0), get("claimed_concurrency"),
                _int(get("peak_running")), get("concurrency_ratio"), _int(get("peak_waiting")),
                _int(get("preemptions")), get("peak_kv_usage"), int(get("completed") or 0),
                int(get("failed_requests") or 0), get("first_failure"), _int(get("samples")), get("duration_s"),
                get("longest_gap_s"), bool(get("peaks_lower_bound") or get("cut")), get("preemptions_from")))
    return out
