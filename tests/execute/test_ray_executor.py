"""Ray executor on a local Ray cluster this module starts (`num_gpus=2` declares two logical
GPUs on a CPU-only host): the stand-in sweep, one engine per GPU, a TP=2 point holding
both, a task killed mid-run, a node without the engine environment."""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.envs import EngineEnv
from harness.errors import InputError
from harness.execute.executors.ray_executor import RAY_MISSING, RayExecutor
from harness.execute.point_run import PointJob
from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from harness.results.rows import make_row
from harness.scenario import Point
from tests.support.executor_helpers import (
    check_parallel_sweep,
    engine_saw,
    recording_run_point,
    standin_sweep,
    wait_gone,
)


@pytest.fixture(autouse=True)
def models_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    ray = pytest.importorskip("ray")
    # address="local": always a new cluster of our own, whatever /tmp/ray/ray_current_cluster or
    # RAY_ADDRESS name (a killed earlier head leaves them behind). Its files in a private temp dir.
    # Small on purpose: two cores shared with other work. The object store minimum is 75 MiB.
    ray.init(address="local", num_cpus=2, num_gpus=2, include_dashboard=False, object_store_memory=80 * 2**20,
             log_to_driver=False, configure_logging=False, _temp_dir=str(tmp_path_factory.mktemp("ray")))
    yield ray
    ray.shutdown()


def test_without_ray_the_error_is_one_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    with pytest.raises(InputError) as caught:
        RayExecutor().check([])
    assert str(caught.value) == RAY_MISSING == (
        "--executor ray needs Ray, which is not installed: pip install 'kv-budget-harness[ray]'")


def test_sweep_on_two_logical_gpus(ray_cluster, tmp_path):
    scenario, seen = standin_sweep(tmp_path)
    (tmp_path / "records").mkdir()
    run_fn = functools.partial(recording_run_point, record_dir=str(tmp_path / "records"))
    started = []
    run_scenario(scenario, RunOptions(out=tmp_path / "run", executor=RayExecutor(run_fn=run_fn)),
                 on_point_start=lambda p, i, n: started.append((p.point_id, n)))
    frame = read_results(tmp_path / "run" / "results.csv")
    saw = check_parallel_sweep(frame, tmp_path / "records", seen)
    # not Ray's per-task OMP_NUM_THREADS=1: the engine starts as it would locally
    assert all(starts[0]["OMP_NUM_THREADS"] == os.environ.get("OMP_NUM_THREADS") for starts in saw.values())
    for log_path in frame["log_path"]:  # the logs came back with the rows
        assert "KV cache size" in (tmp_path / "run" / log_path).read_text()
    assert sorted(started) == sorted((pid, 6) for pid in frame["point_id"])
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["executor"] == {"kind": "ray", "address": "local", "nodes": 1, "gpus": 2.0}


def test_killed_task_gives_harness_error_and_resume_completes(ray_cluster, tmp_path):
    scenario, seen = standin_sweep(tmp_path, values=(1, 2, 3), tp2_value=0, speed=20)

    def kill_the_worker_of_point_2():
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            started = list((seen / "2").glob("[0-9]*.json"))
            if started:
                supervisor = json.loads(started[0].read_text())["ppid"]  # the engine's session leader
                stat = Path(f"/proc/{supervisor}/stat").read_text()
                os.kill(int(stat[stat.rindex(")") + 2:].split()[1]), signal.SIGKILL)  # the Ray worker running it
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_worker_of_point_2)
    killer.start()
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir, executor=RayExecutor()))
    killer.join()
    frame = read_results(run_dir / "results.csv").set_index("max_num_batched_tokens")
    assert len(frame) == 3
    row = frame.loc[2]
    assert (row["status"], row["error_kind"]) == ("harness_error", "worker_died")
    assert row["error_message"].startswith("Ray: WorkerCrashedError: ")
    assert row["node"] == socket.gethostname() and row["gpu_indices"] in ("0", "1")
    assert [frame.loc[v, "status"] for v in (1, 3)] == ["ok", "ok"]
    assert wait_gone(engine_saw(seen)[2][0]["pid"])  # the dead worker's engine: its supervisor killed it

    run_scenario(scenario, RunOptions(resume=run_dir, executor=RayExecutor()))
    after = read_results(run_dir / "results.csv").set_index("max_num_batched_tokens")
    assert len(after) == 3 and set(after["status"]) == {"ok"}
    assert len(engine_saw(seen)[2]) == 2 and len(engine_saw(seen)[1]) == 1
    assert (run_dir / after.loc[2, "log_path"]).stat().st_size > 0


def _env(python: Path, managed: bool, version: str | None) -> EngineEnv:
    return EngineEnv(engine="vllm", requested_version=version, path=python.parent.parent, python=python,
                     engine_version=version or "0.32.0", torch_version="2.0.0", cpu=True, managed=managed)


def test_node_without_the_engine_environment(ray_cluster, tmp_path):
    points = [Point.of(scenario="s", engine="vllm", engine_version=None, model="m", point_id=f"p{i}", repeat=0,
                       args={}, knobs={}) for i in (1, 2)]
    missing = tmp_path / "nowhere" / "bin" / "python"
    rows = {}
    for point, env in zip(points, (_env(missing, False, None), _env(missing, True, "9.9.9"))):
        job = PointJob(run_id="r", run_dir=tmp_path / "run", envs={"vllm": env}, model_path="m", stop_after="kv",
                       timeout_s=5, wait_for_idle_gpu_s=0, keep_work_dirs=False, device="cpu")
        rows.update({make_row(r)["point_id"]: make_row(r) for r in RayExecutor().run([point], job)})
    node = socket.gethostname()
    assert rows["p1"]["status"] == rows["p2"]["status"] == "harness_error"
    assert rows["p1"]["error_kind"] == rows["p2"]["error_kind"] == "env_missing"
    assert rows["p1"]["error_message"] == (f"node {node}: engines.vllm.python {missing} does not exist on this node "
                                           "(install the engine there at the same path)")
    assert rows["p2"]["error_message"].startswith(f"node {node}: no vllm 9.9.9")
    assert "install it: python -m harness envs install vllm==9.9.9" in rows["p2"]["error_message"]


def test_point_wider_than_any_node_is_refused(ray_cluster):
    wide = Point.of(scenario="s", engine="vllm", engine_version=None, model="m", point_id="wide", repeat=0,
                    args={"tensor_parallel_size": 4}, knobs={})
    with pytest.raises(InputError,
                       match="point wide needs 4 GPUs on one node; the largest node of the Ray cluster has 2"):
        RayExecutor().check([wide])


def test_interrupted_driver_cancels_tasks_and_their_engines_stop(ray_cluster, tmp_path):
    scenario, seen = standin_sweep(tmp_path, values=(1, 2), tp2_value=0, speed=1, timeout_s=300)  # a minute each
    interrupted = []

    def engines() -> list[dict]:
        return [s for starts in engine_saw(seen).values() for s in starts]

    def ctrl_c_once_both_engines_run():
        deadline = time.monotonic() + 60
        while len(engines()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        interrupted.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=ctrl_c_once_both_engines_run, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_scenario(scenario, RunOptions(out=tmp_path / "run", executor=RayExecutor()))
    # well inside the launcher's stop grace: the tasks were cancelled, not waited out or force-killed
    assert time.monotonic() - interrupted[0] < 20
    assert len(engines()) == 2
    assert all(wait_gone(e["pid"]) for e in engines())  # the cancelled tasks' launchers stopped them
    assert not (tmp_path / "run" / "results.csv").exists()  # interrupted points leave no row: resume runs them


def test_stale_cluster_files_do_not_capture_the_test_cluster(ray_cluster, tmp_path):
    # A dead head's address left in RAY_ADDRESS would make a plain ray.init() connect there; ours is local.
    context = ray_cluster.get_runtime_context()
    assert context.gcs_address and ray_cluster.cluster_resources().get("GPU") == 2


def test_connect_failure_names_token_authentication(monkeypatch):
    from harness.execute.executors.ray_executor import auth_hint

    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    line = auth_hint("127.0.0.1:6390", "Failed to connect to Ray cluster at 10.0.0.1:6379")
    assert "set RAY_AUTH_MODE=token" in line and "RAY_AUTH_TOKEN" in line and "\n" not in line
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    assert "refused the token" in auth_hint("127.0.0.1:6390", "Unauthenticated: invalid auth token")
    # Ray reports a refused token as a plain connect failure: a listening GCS port tells them apart
    failed = "Failed to connect to Ray cluster at 192.0.2.2:6390"
    assert "refused the token" in auth_hint("127.0.0.1:6390", failed, listening=lambda address: True)
    assert "no Ray cluster there" in auth_hint("127.0.0.1:6390", failed, listening=lambda address: False)
