"""A third engine is one package, one parser and one registry line: the toy engine under tests/support/toy - a
binary on PATH, no venv, with only the launch and parse roles - goes through plan, a real sweep of its own server,
compare and report with no harness module changed; the commands that need a role it lacks say so in one line."""

from __future__ import annotations

import json
import os

import pytest

from harness.cli import main
from harness.engines import registry
from harness.results.io import read_results, write_results
from tests.support.toy.engine import BIN


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setitem(registry.ENGINES, "toy", "tests.support.toy.engine:ToyEngine")
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("PATH", f"{BIN}{os.pathsep}{os.environ['PATH']}")
    scenario = tmp_path / "toy.yaml"
    scenario.write_text("""
name: toy_sweep
model: {builtin: tiny-llama}
engines:
  toy:
    sweep:
      pool_tokens: [64, 200, 8]
run: {timeout_s: 30, stop_after: ready}
""")
    return scenario


def test_toy_engine_plan_run_compare_report(toy, tmp_path, capsys):
    assert main(["validate", str(toy)]) == 0
    assert main(["plan", str(toy)]) == 0
    plan = capsys.readouterr().out
    assert f"{BIN}/toy-server --model" in plan and "--pool-tokens" in plan

    run_dir = tmp_path / "run"
    assert main(["run", str(toy), "--out", str(run_dir)]) == 0
    frame = read_results(run_dir / "results.csv")
    by_pool = {json.loads(row["extra_args"])["pool_tokens"]: row for _, row in frame.iterrows()}
    assert by_pool[64]["status"] == "ok" and by_pool[64]["kv_tokens"] == 64 and by_pool[64]["num_blocks"] == 4
    assert by_pool[200]["kv_tokens"] == 192
    assert frame["predicted_kv_tokens"].isna().all()  # no formulas role: no prediction, the row still measured
    assert by_pool[8]["status"] == "engine_error" and by_pool[8]["error_kind"] == "pool_too_small"
    assert set(frame["engine"]) == {"toy"} and set(frame["engine_version"]) == {"1.0"}
    capsys.readouterr()

    base = run_dir / "results.csv"
    assert main(["compare", str(base), str(base)]) == 0
    changed = read_results(base)
    changed.loc[changed["kv_tokens"] == 64, "kv_tokens"] = 48
    changed_path = tmp_path / "changed.csv"
    write_results(changed.to_dict("records"), changed_path)
    assert main(["compare", str(base), str(changed_path)]) == 1
    assert "64 -> 48" in capsys.readouterr().out.replace(",", "")

    assert main(["report", str(base), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert "toy" in report and "pool_too_small" in report

    assert main(["parse", str(run_dir / by_pool[64]["log_path"]), "--json"]) == 0
    assert '"kv_tokens": 64' in capsys.readouterr().out


def test_the_toy_is_unknown_without_its_registry_line(tmp_path, capsys):
    scenario = tmp_path / "toy.yaml"
    scenario.write_text("name: t\nmodel: {builtin: tiny-llama}\nengines:\n  toy: {python: /usr/bin/python3}\n")
    assert main(["validate", str(scenario)]) == 1
    assert "engines.toy: unknown engine" in capsys.readouterr().err


def test_commands_needing_a_role_the_toy_lacks_say_so_in_one_line(toy, capsys):
    assert main(["advise", str(toy), "--engine", "toy", "--max-model-len", "64", "--kv-tokens", "1000"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == "error: toy has no advise knobs: advise needs one"
    assert main(["envs", "install", "toy==1.0"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == \
        "error: toy has no install recipe: envs install needs one"


def test_a_binary_engine_missing_from_path_is_one_line(toy, monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert main(["run", str(toy), "--out", str(toy.parent / "run")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: engines.toy: toy-server is not on PATH; install toy, or name its program with engines.toy.python")
