"""`run --dry-run` shows what the run would launch with its options; `run --baseline` compares only the selection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.results.io import read_results
from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml


@pytest.fixture(autouse=True)
def models_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


def test_dry_run_honours_engines_points_and_engine_version(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path / "cache"))  # no env installed: shown as placeholders
    assert main(["plan", "scenarios/cpu_tiny.yaml", "--json"]) == 0
    every = json.loads(capsys.readouterr().out)
    first_vllm = next(p["point_id"] for p in every if p["engine"] == "vllm")

    assert main(["run", "scenarios/cpu_tiny.yaml", "--dry-run", "--engines", "sglang"]) == 0
    shown = capsys.readouterr().out
    assert "sglang" in shown and "vllm serve" not in shown and first_vllm not in shown

    assert main(["run", "scenarios/cpu_tiny.yaml", "--dry-run", "--points", first_vllm]) == 0
    shown = capsys.readouterr().out
    assert first_vllm in shown and "1 points" in shown

    assert main(["run", "scenarios/cpu_tiny.yaml", "--dry-run", "--engines", "vllm",
                 "--engine-version", "vllm==0.31.0"]) == 0
    shown = capsys.readouterr().out
    # the environment shown is the one of the release asked for (not installed here: named as such)
    assert "<vllm-0.31.0 env>/bin/vllm" in shown and "vllm-0.32.0" not in shown


def test_baseline_compares_only_the_selected_points(tmp_path, capsys):
    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG)], 2: ["--log", str(OK_LOG)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1, 2], timeout_s=20))
    assert main(["run", str(scenario), "--out", str(tmp_path / "base")]) == 0
    base = read_results(tmp_path / "base" / "results.csv")
    one = base["point_id"].iloc[0]
    capsys.readouterr()
    code = main(["run", str(scenario), "--out", str(tmp_path / "new"), "--points", one,
                 "--baseline", str(tmp_path / "base" / "results.csv")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "baseline: compared 1 of its 2 points (this run selected points " + one + ")" in out
    assert "only in base" not in out


def test_the_engines_tmpdir_is_short_whatever_the_run_folders_path(tmp_path):
    # Engines put Unix sockets in TMPDIR (vLLM's ZMQ IPC paths may not exceed 107 bytes); a run folder
    # deep in a long path must not make every point fail.
    seen = tmp_path / "seen"
    seen.mkdir()
    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG), "--record-env", str(seen)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1], timeout_s=20))
    out = tmp_path / ("a-rather-long-folder-name-" * 6) / "run"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    (record,) = [json.loads(p.read_text()) for p in seen.glob("*.json")]
    assert len(record["TMPDIR"]) < 40 and not str(record["TMPDIR"]).startswith(str(tmp_path))
    assert not Path(record["TMPDIR"]).exists()  # removed with the point's work dir
