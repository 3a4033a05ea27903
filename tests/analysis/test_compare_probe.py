"""compare on probed points: the real probes of SGLang-CPU 0.5.22 and 0.5.23 (results/cpu_probe), and copies
of them with one measured behaviour changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.analysis.compare import Mark, compare_results
from harness.analysis.compare_render import render_text
from harness.cli import main
from harness.results.io import read_results, write_results

DATA = Path(__file__).resolve().parents[2] / "results" / "cpu_probe"
SMALL_POOL = "350dffdeaf9b9b6c"  # max_total_tokens 2048: 4 requests of 512 claimed


@pytest.fixture(scope="module")
def sglang_522():
    frame = read_results(DATA / "vllm0.32.0-sglang0.5.22" / "results.csv")
    return frame[frame["engine"] == "sglang"].reset_index(drop=True)


@pytest.fixture(scope="module")
def sglang_523():
    return read_results(DATA / "sglang0.5.23" / "results.csv")


def _changed(frame, point_id=SMALL_POOL, **values):
    copy = frame.copy()
    for column, value in values.items():
        if column not in ("status", "error_kind", "error_message"):
            copy[column] = copy[column].astype(object)
        copy.loc[copy["point_id"] == point_id, column] = value
    return copy


def _point(comparison, point_id=SMALL_POOL):
    return next(p for p in comparison.points if p.point_id == point_id)


def test_the_real_upgrade_0_5_22_to_0_5_23_behaves_the_same_within_the_probes_tolerance(sglang_522, sglang_523):
    comparison = compare_results(sglang_522, sglang_523)
    assert comparison.findings == [] and comparison.exit_code == 0
    # the 2,048-token pool ran 31 short requests at once on 0.5.22 and 32 on 0.5.23: within 10 %, and shown
    wobble = _point(comparison)
    assert wobble.mark is Mark.NOISE
    assert [c.text() for c in wobble.behaviour] == ["probe_short_peak_running 31 -> 32 (+3.23%)"]
    assert "probe_short_peak_running 31 -> 32" in render_text(comparison)
    # tightened to 0 %, it would be a finding, but the node's memory moved between the two runs (23,001 and
    # 24,105 MiB: this VM's NUMA node): the CPU engines size from it, so the point is not comparable
    strict = _point(compare_results(sglang_522, sglang_523, probe_tolerance_pct=0))
    assert strict.mark is Mark.NOT_COMPARABLE and not strict.findings
    assert strict.notes[-1].startswith("not comparable: host memory 23,001 MiB vs 24,105 MiB")
    # on one host, the same difference at 0 % is a finding
    same_host = compare_results(sglang_522, _changed(sglang_522, probe_short_peak_running=32), probe_tolerance_pct=0)
    assert _point(same_host).mark is Mark.BEHAVIOUR_CHANGED and same_host.exit_code == 1


def test_a_refusal_length_one_token_shorter_is_a_finding_whatever_the_tolerance(sglang_522):
    new = _changed(sglang_522, probe_longest_served=505, probe_refused_len=506)
    comparison = compare_results(sglang_522, new, tolerance_pct=50, probe_tolerance_pct=50)
    point = _point(comparison)
    assert point.mark is Mark.BEHAVIOUR_CHANGED and comparison.exit_code == 1
    assert [f.split(": ", 1)[1] for f in point.findings] == [
        "under the probe, probe_longest_served 506 -> 505 (-0.20%), beyond the 0% tolerance",
        "under the probe, probe_refused_len 507 -> 506 (-0.20%), beyond the 0% tolerance",
    ]


def test_fewer_requests_run_at_once_is_a_finding_beyond_the_probe_tolerance(sglang_522):
    base_running = sglang_522.loc[sglang_522["point_id"] == SMALL_POOL, "probe_short_peak_running"].iloc[0]
    new = _changed(sglang_522, probe_short_peak_running=base_running // 2)
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.BEHAVIOUR_CHANGED and point.kv.pct == 0
    assert "under the probe, probe_short_peak_running" in point.findings[0]


def test_a_server_that_no_longer_survives_its_probe_is_a_new_failure(sglang_522):
    new = _changed(sglang_522, status="probe_failed", error_kind="probe_failed",
                   error_message="the engine exited while serving the probe", probe_healthy_after="False")
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.NEW_FAILURE
    assert "ok -> probe_failed/probe_failed (the engine exited while serving the probe)" in point.findings[0]


def test_a_point_probed_on_one_side_only_is_noted_not_judged(sglang_522):
    unprobed = _changed(sglang_522, **{c: None for c in sglang_522.columns if c.startswith("probe_")})
    comparison = compare_results(unprobed, sglang_522)
    point = _point(comparison)
    assert point.mark is Mark.SAME and not point.findings
    assert point.notes == ["probed in the new file only: behaviour not compared"]


def test_waves_of_other_lengths_are_not_compared_with_each_other(sglang_522):
    new = _changed(sglang_522, probe_short_len=128, probe_short_peak_running=1)
    point = _point(compare_results(sglang_522, new))
    assert point.mark is Mark.SAME and not point.findings
    assert point.notes == ["probed at other lengths (probe_short_len 64 -> 128): that wave is not compared"]


def test_the_cli_takes_the_probe_tolerance_and_thresholds_and_says_the_change_in_json(tmp_path, sglang_522, capsys):
    base, new = tmp_path / "base.csv", tmp_path / "new.csv"
    write_results(sglang_522.to_dict("records"), base)
    write_results(_changed(sglang_522, probe_peak_running=3).to_dict("records"), new)
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "50"]) == 0
    capsys.readouterr()
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "50",
                 "--threshold", "probe_peak_running:0%", "--json"]) == 1
    answer = json.loads(capsys.readouterr().out)
    point = next(p for p in answer["points"] if p["point_id"] == SMALL_POOL)
    assert point["mark"] == "behaviour changed"
    assert [(c["column"], c["base"], c["new"]) for c in point["behaviour_changed"]] == [("probe_peak_running", 4, 3)]
    assert main(["compare", str(base), str(new), "--probe-tolerance-pct", "-1"]) == 2
