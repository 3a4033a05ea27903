"""compare on probed points: the real probes of SGLang-CPU 0.5.22 and 0.5.23 as first committed (results v6,
read through the v7 migration: tests/fixtures/results/cpu_probe_v6*), and copies of them with one measured behaviour
changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.analysis.compare import Mark, compare_results
from harness.analysis.compare_render import render_text
from harness.cli import main
from harness.results.io import read_results, write_results
from harness.results.probe import read_waves, waves_text

DATA = Path(__file__).resolve().parents[1] / "fixtures" / "results"
SMALL_POOL = "350dffdeaf9b9b6c"  # max_total_tokens 2048: 4 requests of 512 claimed


@pytest.fixture(scope="module")
def sglang_522():
    frame = read_results(DATA / "cpu_probe_v6" / "results.csv")
    return frame[frame["engine"] == "sglang"].reset_index(drop=True)


@pytest.fixture(scope="module")
def sglang_523():
    return read_results(DATA / "cpu_probe_v6_sglang0.5.23" / "results.csv")


def _changed(frame, point_id=SMALL_POOL, **values):
    copy = frame.copy()
    for column, value in values.items():
        if column not in ("status", "error_kind", "error_message"):
            copy[column] = copy[column].astype(object)
        copy.loc[copy["point_id"] == point_id, column] = value
    return copy


def _wave_changed(frame, name, point_id=SMALL_POOL, **figures):
    """A copy with one wave's figures changed (a new `wave`: that wave renamed, e.g. probed at another length)."""
    text = frame.loc[frame["point_id"] == point_id, "probe_waves"].iloc[0]
    waves = [{**w, **figures} if w["wave"] == name else w for w in read_waves(text)]
    return _changed(frame, point_id, probe_waves=waves_text(waves))


def _wave_figure(frame, wave, figure, point_id=SMALL_POOL):
    text = frame.loc[frame["point_id"] == point_id, "probe_waves"].iloc[0]
    return next(w[figure] for w in read_waves(text) if w["wave"] == wave)


def _point(comparison, point_id=SMALL_POOL):
    return next(p for p in comparison.points if p.point_id == point_id)


def test_the_real_upgrade_0_5_22_to_0_5_23_behaves_the_same_within_the_probes_tolerance(sglang_522, sglang_523):
    comparison = compare_results(sglang_522, sglang_523)
    assert comparison.findings == [] and comparison.exit_code == 0
    # the 2,048-token pool ran 31 short requests at once on 0.5.22 and 32 on 0.5.23: within 10 %, and shown
    wobble = _point(comparison)
    assert wobble.mark is Mark.NOISE
    assert [c.text() for c in wobble.behaviour] == ["prompt_heavy@64 peak_running 31 -> 32 (+3.23%)"]
    assert "prompt_heavy@64 peak_running 31 -> 32" in render_text(comparison)
    # tightened to 0 %, it would be a finding, but the node's memory moved between the two runs (23,001 and
    # 24,105 MiB: this VM's NUMA node): the CPU engines size from it, so the point is not comparable
    strict = _point(compare_results(sglang_522, sglang_523, probe_tolerance_pct=0))
    assert strict.mark is Mark.NOT_COMPARABLE and not strict.findings
    assert strict.notes[-1].startswith("not comparable: host memory 23,001 MiB vs 24,105 MiB")
    # on one host, the same difference at 0 % is a finding
    same_host = compare_results(sglang_522, _wave_changed(sglang_522, "prompt_heavy@64", peak_running=32),
                                probe_tolerance_pct=0)
    assert _point(same_host).mark is Mark.BEHAVIOUR_CHANGED and same_host.exit_code == 1


def test_a_refusal_length_one_token_shorter_is_a_finding_whatever_the_tolerance(sglang_522):
    new = _changed(sglang_522, probe_longest_served_tokens=505, probe_refused_tokens=506)
    comparison = compare_results(sglang_522, new, tolerance_pct=50, probe_tolerance_pct=50)
    point = _point(comparison)
    assert point.mark is Mark.BEHAVIOUR_CHANGED and comparison.exit_code == 1
    assert [f.split(": ", 1)[1] for f in point.findings] == [
        "under the probe, probe_longest_served_tokens 506 -> 505 (-0.20%), beyond the 0% tolerance",
        "under the probe, probe_refused_tokens 507 -> 506 (-0.20%), beyond the 0% tolerance",
    ]


def test_fewer_requests_run_at_once_is_a_finding_beyond_the_probe_tolerance(sglang_522):
    base_running = _wave_figure(sglang_522, "prompt_heavy@64", "peak_running")
    new = _wave_changed(sglang_522, "prompt_heavy@64", peak_running=base_running // 2)
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.BEHAVIOUR_CHANGED and point.kv.pct == 0
    assert f"under the probe, prompt_heavy@64 peak_running {base_running} -> {base_running // 2}" in point.findings[0]


def test_a_server_that_no_longer_survives_its_probe_is_a_new_failure(sglang_522):
    new = _changed(sglang_522, status="probe_failed", error_kind="probe_failed",
                   error_message="the engine exited while serving the probe", probe_healthy_after="False")
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.NEW_FAILURE
    assert "ok -> probe_failed/probe_failed (the engine exited while serving the probe)" in point.findings[0]


def test_a_probed_run_against_an_unprobed_one_is_said_once_and_noted_per_point(sglang_522):
    # the same settings, the same point_id: the probe is a stage, not a setting. The launches differed (SGLang
    # serves metrics only when the probe asks), which the comparison says rather than joining them without a word
    probe_columns = [c for c in sglang_522.columns if c.startswith("probe_")]
    unprobed = sglang_522.copy()
    unprobed[probe_columns] = None
    comparison = compare_results(unprobed, sglang_522, base_name="ready.csv", new_name="probed.csv")
    point = _point(comparison)
    assert point.mark is Mark.SAME and not point.findings and comparison.exit_code == 0
    assert point.notes == ["probed in the new file only: behaviour not compared"]
    assert comparison.warnings == [
        ("probed.csv was probed (stop_after: probe), ready.csv was not: the same points, launched with the probe's "
        "serving flags on one side only (SGLang: --enable-metrics); the KV figures are compared, the behaviour "
        "under load is not")]
    assert "warning: probed.csv was probed" in render_text(comparison)


def test_waves_of_other_lengths_or_shapes_are_not_compared_with_each_other(sglang_522):
    new = _wave_changed(sglang_522, "prompt_heavy@64", wave="prompt_heavy@128", len_tokens=128, peak_running=1)
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.SAME and not point.findings
    assert point.notes == ["waves in the base file only, not compared: prompt_heavy@64",
                           "waves in the new file only, not compared: prompt_heavy@128"]


def test_a_sparsely_sampled_wave_says_its_peaks_are_lower_bounds(sglang_522):
    new = _wave_changed(sglang_522, "prompt_heavy@512", peaks_lower_bound=True, longest_gap_s=0.9)
    point = _point(compare_results(sglang_522, new))
    assert "sampled sparsely or cut short: prompt_heavy@512 (its peaks are lower bounds)" in point.notes


def test_the_cli_takes_the_probe_tolerance_and_thresholds_and_says_the_change_in_json(tmp_path, sglang_522, capsys):
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    write_results(sglang_522.to_dict("records"), base)
    write_results(_wave_changed(sglang_522, "prompt_heavy@512", peak_running=3).to_dict("records"), new)
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "50"]) == 0
    capsys.readouterr()
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "50",
                 "--threshold", "probe_peak_running:0%", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    point = next(p for p in answer["points"] if p["point_id"] == SMALL_POOL)
    assert point["mark"] == "behaviour changed"
    assert [(c["column"], c["base"], c["new"]) for c in point["behaviour_changed"]] == [
        ("prompt_heavy@512 peak_running", 4, 3)]
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "-1"]) == 2


COMMITTED = Path(__file__).resolve().parents[2] / "results" / "cpu_probe"


@pytest.mark.parametrize("suffix", ["-timed", ""])  # the current runs (the timed sampler), and the ones before
def test_the_committed_v7_probes_show_what_their_readme_says(suffix):
    # results/cpu_probe as re-run in results v7: vLLM-CPU preempts decode-heavy work at claims of 4 and 8; SGLang-CPU
    # 0.5.22 and 0.5.23 hold it to their claim; the two SGLang releases compare the same, wave for wave
    first = read_results(COMMITTED / f"vllm0.32.0-sglang0.5.22{suffix}" / "results.csv")
    second = read_results(COMMITTED / f"sglang0.5.23{suffix}" / "results.csv")
    for _, row in first[first["engine"] == "vllm"].iterrows():
        decode = next(w for w in read_waves(row["probe_waves"]) if w["wave"] == "decode_heavy@512")
        assert decode["claimed_concurrency"] <= 8 and decode["preemptions"] > 0
        assert decode["preemptions_from"] == "counter" and decode["completed"] == decode["sent"]
    for frame in (first[first["engine"] == "sglang"], second):
        for _, row in frame.iterrows():
            for wave in read_waves(row["probe_waves"]):
                assert wave["preemptions"] == 0 and wave["peak_running"] <= max(wave["claimed_concurrency"], 32)
    sglang = compare_results(first[first["engine"] == "sglang"].reset_index(drop=True), second)
    assert sglang.findings == [] and all(not p.behaviour for p in sglang.points)
