"""The main job end to end on real engines: `run scenarios/cpu_tiny.yaml` with vLLM-CPU
and SGLang-CPU. Slow (several engine starts): marked `engine`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.results.io import read_results
from parsers import parse_log, read_log
from tests.test_launcher_real import _alive_in

pytestmark = pytest.mark.engine

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def cpu_tiny_run(vllm_env, sglang_env, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("cpu_tiny") / "run"
    proc = subprocess.run([sys.executable, "-m", "harness", "run", "scenarios/cpu_tiny.yaml", "--out", str(run_dir)],
                          cwd=REPO, capture_output=True, text=True, env=dict(os.environ))
    return proc, run_dir


def test_run_exits_0_and_writes_a_row_per_point(cpu_tiny_run):
    proc, run_dir = cpu_tiny_run
    assert proc.returncode == 0, proc.stderr[-3000:]
    frame = read_results(run_dir / "results.csv")
    counts = frame["engine"].value_counts().to_dict()
    assert counts["vllm"] >= 2 and counts["sglang"] >= 2
    assert (run_dir / "run.json").is_file()
    # the summary table is printed
    assert "kv_tokens" in proc.stdout and "results:" in proc.stdout


def test_no_engine_process_outlives_the_run(cpu_tiny_run):
    # Every engine process got paths under the run folder (its compile caches) in its environment.
    _, run_dir = cpu_tiny_run
    assert _alive_in(run_dir) == []


def test_kv_figures_match_the_engine_logs(cpu_tiny_run):
    _, run_dir = cpu_tiny_run
    frame = read_results(run_dir / "results.csv")
    for _, row in frame.iterrows():
        record = parse_log(read_log(run_dir / row["log_path"]), row["engine"])
        if row["status"] == "ok":
            assert row["kv_tokens"] == record.kv_tokens, row["point_id"]
        assert row["estimated_max_model_len"] == record.estimated_max_model_len or (
            row["estimated_max_model_len"] != row["estimated_max_model_len"] and record.estimated_max_model_len is None)


def test_one_point_is_a_real_startup_error(cpu_tiny_run):
    _, run_dir = cpu_tiny_run
    frame = read_results(run_dir / "results.csv")
    errors = frame[frame["status"] == "engine_error"]
    assert len(errors) >= 1
    assert set(errors["engine"]) == {"vllm"}
    # 256 KiB KV pool = 4 blocks of 128 tokens, minus the null block
    assert set(errors["estimated_max_model_len"]) == {384}
    assert (frame[frame["status"] != "engine_error"]["status"] == "ok").all()


def test_predictions_match_the_cpu_measurements_exactly(cpu_tiny_run):
    _, run_dir = cpu_tiny_run
    frame = read_results(run_dir / "results.csv")
    ok = frame[frame["status"] == "ok"]
    assert (ok["predicted_kv_tokens"] == ok["kv_tokens"]).all(), ok[["point_id", "kv_tokens", "predicted_kv_tokens"]]
    assert (ok["prediction_error_pct"] == 0).all()


BASELINE = REPO / "results" / "cpu_tiny" / "baseline-vllm0.32.0-sglang0.5.22" / "results.csv"


def _node_memtotal_mib() -> float:
    # What SGLang-CPU 0.5.22 sizes its default fraction from: the smallest NUMA node's MemTotal, in MiB
    # (sglang/srt/utils/common.py:862 get_cpu_memory_capacity). On a VM it can move between runs.
    totals = [int(p.read_text().split("\n", 1)[0].split()[3]) for p in Path("/sys/devices/system/node").glob("node*/meminfo")]
    return float(min(totals) // 1024)


def _host_fraction_tolerance_pct() -> float:
    """How far SGLang's effective mem_fraction_static may move between the baseline's host and this one.

    f = 1 - R / T (R: the reserve the scenario fixes, T: the node's MemTotal). The baseline's T follows
    from its own f; this host's f is the formula's for this host's T. Their distance, plus the engine's
    rounding to 3 decimals, is what a different host memory alone moves; anything beyond is a change.
    """
    predicted = _fractions_for(_node_memtotal_mib())
    base = read_results(BASELINE)
    base = base[base["engine"] == "sglang"]
    worst = max(abs(predicted - f) / f * 100 for f in base["mem_fraction_static_effective"])
    return worst + 0.0005 / predicted * 100


def _fractions_for(total_mib: float) -> float:
    from harness.commands.predict import predict_scenario

    report = predict_scenario(str(REPO / "scenarios" / "cpu_tiny.yaml"), gpu_memory_mib=total_mib, device="cpu")
    (fraction,) = {p.mem_fraction_static for p in report.predictions if p.engine == "sglang"}
    return fraction


def test_sglang_effective_fraction_is_the_formula_for_this_hosts_memory(cpu_tiny_run):
    _, run_dir = cpu_tiny_run
    frame = read_results(run_dir / "results.csv")
    measured = frame[frame["engine"] == "sglang"]["mem_fraction_static_effective"]
    assert (abs(measured - _fractions_for(_node_memtotal_mib())) <= 0.001).all(), measured


def test_no_change_against_the_committed_baseline(cpu_tiny_run):
    # A difference means the engines or the harness changed behaviour: the output says what. The one
    # host-dependent setting may move by what this host's memory explains (checked exactly above).
    _, run_dir = cpu_tiny_run
    tolerance = _host_fraction_tolerance_pct()
    proc = subprocess.run([sys.executable, "-m", "harness", "compare", str(BASELINE), str(run_dir / "results.csv"),
                           "--threshold", f"mem_fraction_static_effective:{tolerance:.3f}%"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
