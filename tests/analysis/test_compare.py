"""compare: results CSVs built from real parsed engine logs, checked end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from harness.analysis.compare import (
    Mark,
    compare_results,
    parse_threshold,
)
from harness.analysis.compare_render import render_markdown, render_text
from harness.cli import main
from harness.results.columns import COLUMNS, RESULTS_FORMAT_VERSION
from harness.results.io import FORMAT_LINE, parse_results, read_results
from tests.support.results_from_logs import (
    FAILED_START_LOG,
    LOGS,
    POINTS,
    SGLANG_POINTS,
    VLLM_POINTS,
    row,
    rows,
    write,
)

OK_VLLM = VLLM_POINTS[0]  # started, 2097152 tokens
AUTOFIT = VLLM_POINTS[4]  # started with a 512-token pool


@pytest.fixture
def base_rows():
    return rows(run_id="base")


def _compare(tmp_path, base, new, *args):
    base_csv, new_csv = write(tmp_path, "base", base), write(tmp_path, "new", new)
    return main(["compare", str(base_csv), str(new_csv), *args])


def _by_id(comparison):
    return {p.point_id: p for p in comparison.points}


def test_unchanged_copy_exits_0_and_marks_every_point_same(tmp_path, base_rows, capsys):
    assert _compare(tmp_path, base_rows, rows(run_id="new")) == 0
    out = capsys.readouterr().out
    assert f"no change beyond tolerance in {len(POINTS)} points" in out

    comparison = compare_results(pd.DataFrame(base_rows), pd.DataFrame(rows(run_id="new")))
    marks = {p.point_id: p.mark for p in comparison.points}
    failed = VLLM_POINTS[5].point_id
    assert marks.pop(failed) is Mark.STILL_FAILING
    assert set(marks.values()) == {Mark.SAME}
    assert comparison.findings == [] and comparison.regressions == [] and comparison.exit_code == 0


def test_three_percent_kv_drop_beyond_one_percent_is_named_and_exits_1(tmp_path, base_rows, capsys):
    new = rows(run_id="new")
    target = next(r for r in new if r["point_id"] == OK_VLLM.point_id)
    before = target["kv_tokens"]
    target["kv_tokens"] = round(before * 0.97)

    assert _compare(tmp_path, base_rows, new, "--tolerance-pct", "1") == 1
    out = capsys.readouterr().out
    changed = [line for line in out.splitlines() if line.startswith("changed:")]
    assert len(changed) == 1
    assert OK_VLLM.point_id in changed[0] and "-3.00%" in changed[0] and "beyond the 1% tolerance" in changed[0]
    assert f"{before:,} -> {round(before * 0.97):,}" in changed[0]

    comparison = compare_results(read_results(tmp_path / "base/results.csv"),
                                 read_results(tmp_path / "new/results.csv"), 1.0)
    (regression,) = comparison.regressions
    assert regression.point_id == OK_VLLM.point_id and regression.mark is Mark.WORSE
    assert regression.kv.delta == round(before * 0.97) - before
    assert regression.ratio == pytest.approx(0.97, abs=1e-6)


def test_same_drop_within_a_wider_tolerance_is_shown_but_passes(tmp_path, base_rows, capsys):
    new = rows(run_id="new")
    next(r for r in new if r["point_id"] == OK_VLLM.point_id)["kv_tokens"] = round(2097152 * 0.97)
    assert _compare(tmp_path, base_rows, new, "--tolerance-pct", "5") == 0
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if OK_VLLM.point_id in line)
    assert line.startswith(Mark.NOISE.value) and "-3.00%" in line and "0.9700" in line


def test_started_before_fails_now_exits_1_even_with_huge_tolerance(tmp_path, base_rows, capsys):
    new = [row(p, log=FAILED_START_LOG if p == OK_VLLM else None, run_id="new") for p in POINTS]
    assert _compare(tmp_path, base_rows, new, "--tolerance-pct", "1000000") == 1
    out = capsys.readouterr().out
    changed = [line for line in out.splitlines() if line.startswith("changed:")]
    assert len(changed) == 1
    assert OK_VLLM.point_id in changed[0] and "started before, fails now: ok -> engine_error" in changed[0]

    comparison = compare_results(pd.DataFrame(base_rows), pd.DataFrame(new), tolerance_pct=1e6)
    point = _by_id(comparison)[OK_VLLM.point_id]
    assert point.mark is Mark.NEW_FAILURE and comparison.regressions == [point]


def test_fails_before_starts_now_is_reported_as_fixed(base_rows):
    base = [row(p, log=FAILED_START_LOG if p == OK_VLLM else None) for p in POINTS]
    comparison = compare_results(pd.DataFrame(base), pd.DataFrame(base_rows), tolerance_pct=1e6)
    point = _by_id(comparison)[OK_VLLM.point_id]
    assert point.mark is Mark.FIXED and comparison.exit_code == 1
    assert comparison.regressions == []  # better is a change, not a regression
    assert "failed before, starts now" in point.findings[0]


def test_added_and_removed_points_are_listed_and_exit_1(tmp_path, capsys):
    base = rows(POINTS[:-1])  # the last SGLang point was not in the base sweep
    new = rows(POINTS[1:], run_id="new")  # and the first vLLM point is gone from the new run
    assert _compare(tmp_path, base, new) == 1
    out = capsys.readouterr().out
    assert f"changed: vllm {POINTS[0].point_id}" in out and "only in" in out

    comparison = compare_results(pd.DataFrame(base), pd.DataFrame(new), base_name="b.csv", new_name="n.csv")
    points = _by_id(comparison)
    assert points[POINTS[0].point_id].mark is Mark.REMOVED
    assert points[POINTS[-1].point_id].mark is Mark.ADDED
    assert "only in b.csv (no row in n.csv)" in points[POINTS[0].point_id].findings[0]
    assert "only in n.csv (no row in b.csv)" in points[POINTS[-1].point_id].findings[0]
    assert [p.point_id for p in comparison.regressions] == [POINTS[0].point_id]
    # the rest, less the still-failing
    assert sum(1 for p in comparison.points if p.mark is Mark.SAME) == len(POINTS) - 3


def test_repeats_compare_medians_and_show_the_spread(base_rows):
    base = rows(repeats=3)
    new = rows(repeats=3, run_id="new")
    # One noisy repeat: the median does not move, the spread is shown and noted.
    noisy = next(r for r in new if r["point_id"] == OK_VLLM.point_id and r["repeat"] == 1)
    noisy["kv_tokens"] = round(noisy["kv_tokens"] * 0.95)
    comparison = compare_results(pd.DataFrame(base), pd.DataFrame(new), tolerance_pct=1.0)
    point = _by_id(comparison)[OK_VLLM.point_id]
    assert point.mark is Mark.SAME and comparison.exit_code == 0
    assert point.new.kv_median == 2097152 and point.new.kv_spread_pct == pytest.approx(5.0, abs=0.01)
    assert any("spread 5.00%" in note for note in point.notes)
    assert "(n=3, spread 5.00%)" in render_text(comparison)

    # Two of three repeats lower: the median moves, beyond tolerance.
    next(r for r in new if r["point_id"] == OK_VLLM.point_id and r["repeat"] == 2)["kv_tokens"] = noisy["kv_tokens"]
    comparison = compare_results(pd.DataFrame(base), pd.DataFrame(new), tolerance_pct=1.0)
    assert _by_id(comparison)[OK_VLLM.point_id].mark is Mark.WORSE


def test_a_failing_repeat_is_a_new_failure(base_rows):
    base = rows(repeats=2)
    new = [row(p, repeat=r, run_id="new", log=FAILED_START_LOG if (p == OK_VLLM and r == 1) else None)
           for p in POINTS for r in range(2)]
    point = _by_id(compare_results(pd.DataFrame(base), pd.DataFrame(new)))[OK_VLLM.point_id]
    assert point.mark is Mark.NEW_FAILURE
    assert "ok -> r0:ok, r1:engine_error/" in point.findings[0]


def test_effective_setting_change_uses_its_threshold(tmp_path, base_rows, capsys):
    pool = SGLANG_POINTS[1]
    new = rows(run_id="new")
    target = next(r for r in new if r["point_id"] == pool.point_id)
    target["mem_fraction_static_effective"] = 0.74  # logged 0.719: +2.92%
    assert _compare(tmp_path, base_rows, new) == 1
    assert "mem_fraction_static_effective 0.719 -> 0.74 (+2.92%)" in capsys.readouterr().out
    assert _compare(tmp_path, base_rows, new, "--threshold", "mem_fraction_static_effective:5%") == 0
    point = _by_id(compare_results(pd.DataFrame(base_rows), pd.DataFrame(new), 1.0,
                                   [parse_threshold("mem_fraction_static_effective:5%")]))[pool.point_id]
    assert point.mark is Mark.NOISE and [c.column for c in point.settings] == ["mem_fraction_static_effective"]


def test_engine_versions_and_machines_of_both_sides_are_shown(base_rows):
    base = rows(engine_version="0.31.0", driver_version="570.124")
    new = rows(run_id="new", device_name="NVIDIA L4", driver_version="580.65")
    comparison = compare_results(pd.DataFrame(base), pd.DataFrame(new), base_name="old.csv", new_name="new.csv")
    text = render_text(comparison)
    assert "old.csv: scenario cpu_tiny, run base, sglang 0.31.0, vllm 0.31.0" in text
    assert "new.csv: scenario cpu_tiny, run new, sglang 0.5.22, vllm 0.32.0" in text
    assert [w.split(":")[0] for w in comparison.warnings] == ["device_name differs", "driver_version differs"]
    assert ("warning: device_name differs: cpu (old.csv) vs NVIDIA L4 (new.csv): KV numbers may not be comparable"
            in text)
    assert comparison.exit_code == 0  # a warning, not a finding
    assert "**warning:** device_name differs" in render_markdown(comparison)


def test_json_and_markdown_outputs(tmp_path, base_rows, capsys):
    new = rows(run_id="new")
    next(r for r in new if r["point_id"] == AUTOFIT.point_id)["kv_tokens"] = 640
    assert _compare(tmp_path, base_rows, new, "--json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 1 and data["regressions"] == []
    point = next(p for p in data["points"] if p["point_id"] == AUTOFIT.point_id)
    assert point["mark"] == "more KV" and point["kv_tokens"]["base"] == 512 and point["kv_tokens"]["new"] == 640
    assert point["kv_tokens"]["pct"] == pytest.approx(25.0) and point["ratio"] == pytest.approx(1.25)
    assert point["knobs"] == {"gpu_memory_utilization": None, "max_num_batched_tokens": None, "max_model_len": -1,
                              "kv_cache_memory_bytes": 262144}

    assert _compare(tmp_path, base_rows, new, "--markdown") == 1
    markdown = capsys.readouterr().out
    assert "| mark | point | base kv_tokens | new kv_tokens | delta | % | ratio | outcome / settings |" in markdown
    assert f"| more KV | vllm {AUTOFIT.point_id} (" in markdown and "| 512 | 640 | 128 | +25.00% | 1.2500 |" in markdown


# --- bad input: exit 2 with the reason ----------------------------------------------------


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _good(tmp_path):
    return str(write(tmp_path, "good", rows()))


def _exit_and_error(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err.strip()
    return code, err


def test_missing_columns(tmp_path, capsys):
    frame = pd.DataFrame(rows(), columns=list(COLUMNS)).drop(columns=["kv_tokens", "status"])
    bad = _csv(tmp_path, "bad.csv", frame.to_csv(index=False))
    code, err = _exit_and_error(capsys, ["compare", _good(tmp_path), bad])
    assert code == 2 and err == f"error: {bad}: missing columns: status, kv_tokens"


def test_not_a_results_csv(tmp_path, capsys):
    good = _good(tmp_path)
    other = _csv(tmp_path, "other.csv", "a,b\n1,2\n")  # some other table
    code, err = _exit_and_error(capsys, ["compare", other, good])
    assert code == 2
    assert err.startswith(f"error: {other}: not a kv-budget-harness results CSV (its first line should be")

    engine_log = str(LOGS / OK_VLLM.log)
    code, err = _exit_and_error(capsys, ["compare", good, engine_log])
    assert code == 2 and err.startswith(f"error: {engine_log}: not a kv-budget-harness results CSV")

    code, err = _exit_and_error(capsys, ["compare", good, str(tmp_path / "nowhere.csv")])
    assert code == 2 and err == f"error: {tmp_path / 'nowhere.csv'}: no such file"
    code, err = _exit_and_error(capsys, ["compare", str(tmp_path), good])
    assert code == 2 and err.startswith(f"error: {tmp_path}: is a directory")


def test_other_format_version_is_refused_with_what_to_do(tmp_path, capsys):
    good = write(tmp_path, "good", rows())
    newer_version = RESULTS_FORMAT_VERSION + 1
    newer = tmp_path / "newer" / "results.csv"
    newer.parent.mkdir()
    newer.write_text(good.read_text())
    (newer.parent / "run.json").write_text(f'{{"results_format": {newer_version}}}')
    code, err = _exit_and_error(capsys, ["compare", str(good), str(newer)])
    assert code == 2 and err == (f"error: {newer}: results format v{newer_version}, this harness reads up to "
                                 f"v{RESULTS_FORMAT_VERSION}: upgrade kv-budget-harness to read it")


def test_different_scenarios(tmp_path, capsys):
    base = write(tmp_path, "base", rows())
    new = write(tmp_path, "new", rows(scenario="24g_8b"))
    code, err = _exit_and_error(capsys, ["compare", str(base), str(new)])
    assert code == 2 and err == f"error: different scenarios: {base} is 'cpu_tiny', {new} is '24g_8b'"


@pytest.mark.parametrize("column, value, reason", [
    ("status", "exploded",
     "status 'exploded' is not one of ok, engine_error, timeout, crashed, harness_error, probe_failed"),
    ("kv_tokens", "lots", "kv_tokens 'lots' is not a number"),
    ("point_id", "", "column point_id is empty"),
])
def test_corrupt_values_name_the_line(tmp_path, capsys, column, value, reason):
    table = rows()
    table[2][column] = value
    bad = write(tmp_path, "bad", table)
    code, err = _exit_and_error(capsys, ["compare", _good(tmp_path), str(bad)])
    assert code == 2 and err == f"error: {bad}: line 4: {reason}"  # header, rows 0-1, then row 2


def test_duplicate_point_and_repeat(tmp_path, capsys):
    table = rows()
    bad = write(tmp_path, "dup", table + [dict(table[0])])
    code, err = _exit_and_error(capsys, ["compare", str(bad), _good(tmp_path)])
    # A row is (point, release, repeat): the message names the release the duplicate is on.
    assert code == 2 and err == (f"error: {bad}: line {len(table) + 2}: point {table[0]['point_id']} on "
                                 f"{table[0]['engine_version']} repeat 0 appears twice")


def test_bad_threshold_syntax_is_refused_when_arguments_are_parsed(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["compare", "a.csv", "b.csv", "--threshold", "kv_tokens=1"])
    assert exit_info.value.code == 2
    assert "threshold 'kv_tokens=1' is not COLUMN:PERCENT (for example kv_tokens:1%)" in capsys.readouterr().err
    with pytest.raises(ValueError, match="weights_gib is not compared"):
        parse_threshold("weights_gib:2%")
    assert str(parse_threshold(" block_size : 0 ")) == "block_size:0%"


def test_negative_tolerance(tmp_path, capsys):
    good = _good(tmp_path)
    code, err = _exit_and_error(capsys, ["compare", good, good, "--tolerance-pct", "-1"])
    assert code == 2 and err == "error: --tolerance-pct must be >= 0, got -1.0"


def test_round_trip_keeps_every_column_and_value(tmp_path):
    table = rows()
    frame = read_results(write(tmp_path, "rt", table))
    assert list(frame.columns) == list(COLUMNS)
    for original, (_, back) in zip(table, frame.iterrows()):
        for column in ("point_id", "status", "kv_tokens", "mem_fraction_static_effective", "engine_version"):
            value = original.get(column)
            assert (pd.isna(back[column]) if value in (None, "") else back[column] == value), column
    assert parse_results(FORMAT_LINE + "\n" + ",".join(COLUMNS) + "\n").empty


def test_a_harness_error_is_not_an_engine_failure_but_is_not_a_pass_either(base_rows):
    new = rows(run_id="new")
    target = next(r for r in new if r["point_id"] == OK_VLLM.point_id)
    target.update(status="harness_error", error_kind=None, kv_tokens=None,
                  error_message="GPU 0 busy: 1200 MiB used before launch")
    comparison = compare_results(pd.DataFrame(base_rows), pd.DataFrame(new), base_name="b.csv", new_name="n.csv")
    point = _by_id(comparison)[OK_VLLM.point_id]
    assert point.mark is Mark.NOT_COMPARABLE and comparison.regressions == [] and comparison.exit_code == 1
    assert point.findings == [(f"{point.label}: not measured in n.csv "
                               "(harness error: r0: GPU 0 busy: 1200 MiB used before launch)")]

    # With a second repeat that ran, the point is compared on that one and the other is noted.
    base2, new2 = rows(repeats=2), rows(repeats=2, run_id="new")
    next(r for r in new2 if r["point_id"] == OK_VLLM.point_id and r["repeat"] == 1).update(
        status="harness_error", kv_tokens=None, error_message="engine env missing")
    point = _by_id(compare_results(pd.DataFrame(base2), pd.DataFrame(new2)))[OK_VLLM.point_id]
    assert point.mark is Mark.SAME and point.new.repeats == [0]
    assert "new: repeats left out after a harness error: r1: engine env missing" in point.notes


def test_text_report_exactly(tmp_path):
    points = (VLLM_POINTS[0], VLLM_POINTS[5])
    base, new = rows(points), rows(points, run_id="new")
    new[0]["kv_tokens"] = round(new[0]["kv_tokens"] * 0.97)
    comparison = compare_results(read_results(write(tmp_path, "b", base)), read_results(write(tmp_path, "n", new)),
                                 base_name="base.csv", new_name="new.csv")
    machine = "device_name=cpu, device_total_mib=24576, torch_version=2.9.0+cpu, compile_cache=cold"
    expected = f"""\
base.csv: scenario cpu_tiny, run base, vllm 0.32.0; {machine}
new.csv: scenario cpu_tiny, run new, vllm 0.32.0; {machine}
tolerance: kv_tokens:1%, block_size:1%, max_concurrency:1%, mem_fraction_static_effective:1%, chunked_prefill_size_effective:1%, max_running_requests:1%

mark           point                                                                     base kv_tokens                        new kv_tokens                         delta    %       ratio   outcome / settings
less KV        vllm 77b54a67f02f64cc (max_model_len=512, kv_cache_memory_bytes=default)  2,097,152                             2,034,237                             -62,915  -3.00%  0.9700
still failing  vllm 199d894d50dbed7e (max_model_len=2048, kv_cache_memory_bytes=262144)  engine_error/max_model_len_too_large  engine_error/max_model_len_too_large  -        -       -       engine_error/max_model_len_too_large

changed: vllm 77b54a67f02f64cc (max_model_len=512, kv_cache_memory_bytes=default): kv_tokens 2,097,152 -> 2,034,237 (-3.00%), beyond the 1% tolerance

1 of 2 points changed (1 less KV)
"""  # noqa: E501 - the report's exact text, as wide as its table
    assert render_text(comparison) == expected
