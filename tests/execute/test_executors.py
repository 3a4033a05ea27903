"""Local parallel executor: GPU slots, one engine per GPU, TP points, dying workers, and a
whole sweep of the stand-in engine on two fake GPUs (no NVML here: `--gpus 0,1` means two
slots with CUDA_VISIBLE_DEVICES set, the memory protocol skipped)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.engines.knobs import KnobError
from harness.errors import InputError
from harness.execute.executors import LocalGpuExecutor, make_executor
from harness.execute.executors.sequential import SequentialExecutor
from harness.execute.executors.slots import (
    GpuPool,
    default_gpus,
    gpu_env,
    gpus_needed,
    parse_gpus,
)
from harness.execute.gpu import GpuBusyError
from harness.execute.point_run import PointJob
from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from harness.results.rows import make_row
from harness.scenario import Point
from tests.support.executor_helpers import (
    RECORD_DIR_ENV,
    assert_one_point_per_gpu,
    check_parallel_sweep,
    engine_saw,
    fake_run_point,
    max_overlap,
    recording_run_point,
    records,
    standin_sweep,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def models_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


@pytest.fixture
def record_dir(tmp_path, monkeypatch):
    folder = tmp_path / "records"
    folder.mkdir()
    monkeypatch.setenv(RECORD_DIR_ENV, str(folder))
    return folder


def point(n: int, engine: str = "vllm", **args) -> Point:
    return Point.of(scenario="s", engine=engine, engine_version=None, model="m", point_id=f"p{n}", repeat=0,
                    args=args, knobs={})


def job(tmp_path) -> PointJob:
    return PointJob(run_id="r", run_dir=tmp_path / "run", envs={}, model_path="m", stop_after="kv", timeout_s=5,
                    wait_for_idle_gpu_s=0, keep_work_dirs=False, device="cpu")


# --- slots -----------------------------------------------------------------------------------------

def test_gpus_needed_counts_tensor_pipeline_and_data_parallel():
    assert gpus_needed(point(1)) == 1
    assert gpus_needed(point(1, tensor_parallel_size=4)) == 4
    assert gpus_needed(point(1, tensor_parallel_size=2, pipeline_parallel_size=2)) == 4
    assert gpus_needed(point(1, **{"--tensor-parallel-size": "2"})) == 2  # verbatim pass-through
    assert gpus_needed(point(1, "sglang", tp_size=2)) == 2
    assert gpus_needed(point(1, "sglang", tp_size=2, dp_size=2)) == 4
    assert gpus_needed(point(1, "sglang", tp_size=2, dp_size=2, enable_dp_attention=True)) == 2
    assert gpus_needed(point(1, tensor_parallel_size=None)) == 1
    with pytest.raises(InputError, match="p1: tensor_parallel_size='two'"):
        gpus_needed(point(1, **{"--tensor-parallel-size": "two"}))
    with pytest.raises(KnobError, match="tensor_parallel_size: must be a positive integer, got 'two'"):
        point(1, tensor_parallel_size="two")  # a typed knob is refused when the point is made


def test_parse_gpus():
    assert parse_gpus("0,1,3") == [0, 1, 3]
    assert parse_gpus("0-3") == [0, 1, 2, 3]
    assert parse_gpus(" 2, 0 ") == [2, 0]
    with pytest.raises(InputError, match="GPU 1 given twice; one engine per GPU"):
        parse_gpus("0,1,1")
    with pytest.raises(InputError, match="'x' is not a GPU index"):
        parse_gpus("0,x")


def test_default_gpus_follow_cuda_visible_devices(monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert default_gpus(4) == [0, 1, 2, 3]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert default_gpus(4) == [3, 1]
    assert default_gpus(4, visible="2,3") == [2, 3]
    with pytest.raises(InputError, match="no GPU 5 on this host"):
        default_gpus(4, visible="5")
    with pytest.raises(InputError, match="by UUID"):
        default_gpus(4, visible="GPU-8a2b")


def test_pool_takes_in_order_and_retires():
    pool = GpuPool([3, 1, 2])
    assert pool.take(2) == [3, 1]
    assert pool.take(2) is None
    pool.give([3])
    assert pool.take(2) == [3, 2]
    pool.retire([2])
    pool.give([3, 2, 1])
    assert pool.free == [3, 1] and pool.usable == 2
    assert gpu_env([0, 1]) == {"CUDA_VISIBLE_DEVICES": "0,1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


# --- scheduling with a fake run function (no engine) ------------------------------------------------

def test_one_point_per_gpu_and_tp_point_holds_both(tmp_path, record_dir):
    points = [point(1), point(2), point(3, tensor_parallel_size=2), point(4), point(5)]
    phases = []

    def on_start(p, index, total):
        assert total == 5 and points[index] is p
        return lambda phase: phases.append((p.point_id, phase))

    executor = LocalGpuExecutor([0, 1], run_fn=fake_run_point)
    results = list(executor.run(points, job(tmp_path), on_start))
    assert sorted(make_row(r)["point_id"] for r in results) == ["p1", "p2", "p3", "p4", "p5"]
    assert {make_row(r)["status"] for r in results} == {"ok"}
    entries = records(record_dir)
    assert_one_point_per_gpu(entries)
    assert max_overlap([(e["t0"], e["t1"]) for e in entries]) == 2  # it did run in parallel
    tp = next(e for e in entries if e["point_id"] == "p3")
    assert tp["gpus"] == [0, 1] and tp["cvd"] == "0,1"
    assert all(e["cvd"] == ",".join(map(str, e["gpus"])) for e in entries)
    assert len({e["pid"] for e in entries}) == 5  # a fresh worker per point
    by_id = {make_row(r)["point_id"]: make_row(r) for r in results}
    assert by_id["p3"]["gpu_indices"] == "0,1"
    assert by_id["p1"]["node"] == socket.gethostname()
    assert sorted(phases) == sorted((f"p{i}", "loading") for i in range(1, 6))


def test_dead_worker_costs_only_its_point(tmp_path, record_dir):
    points = [point(1), point(2, die=True), point(3, **{"raise": True}), point(4)]
    executor = LocalGpuExecutor([0, 1], run_fn=fake_run_point)
    results = {make_row(r)["point_id"]: make_row(r) for r in executor.run(points, job(tmp_path))}
    assert set(results) == {"p1", "p2", "p3", "p4"}
    assert results["p1"]["status"] == results["p4"]["status"] == "ok"
    died = results["p2"]
    assert (died["status"], died["error_kind"]) == ("harness_error", "worker_died")
    assert "killed by signal SIGKILL" in died["error_message"]
    assert results["p3"]["error_kind"] == "harness_exception" and "RuntimeError: boom" in results["p3"]["error_message"]


def test_busy_gpu_is_retired_and_points_move_to_the_others(tmp_path, record_dir, caplog):
    points = [point(i, busy_on=1, hold_s=0.05) for i in range(1, 5)]
    started = []
    results = list(LocalGpuExecutor([0, 1], run_fn=fake_run_point).run(
        points, job(tmp_path), lambda p, i, n: started.append(p.point_id)))
    assert len(results) == 4 and {make_row(r)["gpu_indices"] for r in results} == {"0"}
    assert sorted(started) == ["p1", "p2", "p3", "p4"]  # the point sent back from GPU 1 starts once
    assert "GPU 1 busy: taken out of this sweep" in caplog.text


def test_every_gpu_busy_ends_the_run_like_a_sequential_one(tmp_path, record_dir):
    points = [point(1, busy_on=0), point(2, busy_on=0)]
    with pytest.raises(GpuBusyError, match="GPU 0 has 9000 MiB in use; 2 points left unrun"):
        list(LocalGpuExecutor([0], run_fn=fake_run_point).run(points, job(tmp_path)))


def test_tp_point_wider_than_the_gpus_is_refused_before_the_run(tmp_path):
    executor = LocalGpuExecutor([0, 1])
    with pytest.raises(InputError, match=r"point p2 needs 4 GPUs .* the run has 2 \(0,1\); pass more with --gpus"):
        executor.check([point(1), point(2, tensor_parallel_size=4)])


def test_make_executor_defaults(monkeypatch):
    monkeypatch.setattr("harness.execute.executors.visible_gpu_count", lambda: 0)
    assert isinstance(make_executor("local", None), SequentialExecutor)  # no GPU, no --gpus: one slot
    fake = make_executor("local", "0,1")
    assert isinstance(fake, LocalGpuExecutor) and fake.gpus == [0, 1] and not fake.real_gpus
    monkeypatch.setattr("harness.execute.executors.visible_gpu_count", lambda: 2)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert make_executor("local", None).gpus == [0, 1]
    with pytest.raises(InputError, match="no GPU 2 on this host"):
        make_executor("local", "1,2")
    with pytest.raises(InputError, match="--gpus is for the local executor"):
        make_executor("ray", "0,1")


# --- a whole sweep of the stand-in engine -----------------------------------------------------------

def test_sweep_on_two_fake_gpus(tmp_path, record_dir):
    scenario, seen = standin_sweep(tmp_path)
    executor = LocalGpuExecutor([0, 1], run_fn=recording_run_point, real_gpus=False)
    result = run_scenario(scenario, RunOptions(out=tmp_path / "run", executor=executor))
    frame = read_results(tmp_path / "run" / "results.csv")
    # What the engine itself saw, against the row and the slot the executor gave it.
    saw = check_parallel_sweep(frame, record_dir, seen)
    assert all(starts[0]["CUDA_DEVICE_ORDER"] == "PCI_BUS_ID" for starts in saw.values())
    assert saw[6][0]["CUDA_VISIBLE_DEVICES"] == "0,1"
    for log_path in frame["log_path"]:
        assert (tmp_path / "run" / log_path).stat().st_size > 0
    assert result.warnings == [("no NVIDIA GPU: --gpus gives 2 parallel slots, each with its own "
                                "CUDA_VISIBLE_DEVICES; GPU idle/release checks skipped")]


def test_killed_worker_gives_harness_error_and_resume_completes(tmp_path, record_dir):
    scenario, seen = standin_sweep(tmp_path, values=(1, 2, 3, 4), tp2_value=0, speed=20)

    def kill_the_worker_of_point_2():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            started = list((seen / "2").glob("[0-9]*.json"))
            if started:
                import json

                supervisor = json.loads(started[0].read_text())["ppid"]  # the engine's session leader
                stat = Path(f"/proc/{supervisor}/stat").read_text()
                os.kill(int(stat[stat.rindex(")") + 2:].split()[1]), signal.SIGKILL)  # its parent: the worker
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_worker_of_point_2)
    killer.start()
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir, executor=LocalGpuExecutor([0, 1], real_gpus=False)))
    killer.join()
    frame = read_results(run_dir / "results.csv").set_index("max_num_batched_tokens")
    assert len(frame) == 4
    assert (frame.loc[2, "status"], frame.loc[2, "error_kind"]) == ("harness_error", "worker_died")
    assert [frame.loc[v, "status"] for v in (1, 3, 4)] == ["ok"] * 3
    # the engine the dead worker had started got SIGTERM through its parent-death signal
    engine_pid = engine_saw(seen)[2][0]["pid"]
    deadline = time.monotonic() + 15
    while _alive(engine_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(engine_pid)

    before = frame["started_at"]
    run_scenario(scenario, RunOptions(resume=run_dir, executor=LocalGpuExecutor([0, 1], real_gpus=False)))
    after = read_results(run_dir / "results.csv").set_index("max_num_batched_tokens")
    assert len(after) == 4 and set(after["status"]) == {"ok"}
    assert len(engine_saw(seen)[2]) == 2 and all(len(engine_saw(seen)[v]) == 1 for v in (1, 3, 4))
    assert all(after.loc[v, "started_at"] == before[v] for v in (1, 3, 4))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_cli_gpus_flag(tmp_path):
    scenario, _ = standin_sweep(tmp_path, values=(1, 2, 3), tp2_value=3, speed=60)
    env = {**os.environ, "KV_HARNESS_MODELS_DIR": str(tmp_path / "models")}
    cmd = [sys.executable, "-m", "harness", "run", str(scenario), "--gpus", "0,1", "--out", str(tmp_path / "run")]
    done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    frame = read_results(tmp_path / "run" / "results.csv")
    assert len(frame) == 3 and set(frame["status"]) == {"ok"}
    assert "0,1" in set(frame["gpu_indices"])
    wide = subprocess.run(cmd[:-2] + ["--gpus", "0", "--out", str(tmp_path / "run2")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert wide.returncode == 2
    assert wide.stderr.strip().splitlines()[-1].startswith("error: point ")
    assert not (tmp_path / "run2").exists()


def test_mixed_gpu_sizes_warn_about_sglang(tmp_path):
    from harness.execute.gpu import GpuState

    host = [GpuState(0, "L4", 23034, 0, "550"), GpuState(1, "H100", 81559, 0, "550")]
    executor = LocalGpuExecutor([1], host_gpus=lambda: host)
    assert executor.check([point(1)]) == []  # vLLM sizes from the card it runs on
    (warning,) = executor.check([point(1, "sglang")])
    assert warning.startswith("this host mixes GPU sizes (GPU 0 22 GiB, GPU 1 80 GiB): SGLang reads total GPU "
                              "memory as the smallest on the host (22 GiB, GPU 0)")
    same = LocalGpuExecutor([0, 1], host_gpus=lambda: [host[1], GpuState(0, "H100", 81559, 0, "550")])
    assert same.check([point(1, "sglang")]) == []


def _descendants(root: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_harness_killed_mid_parallel_sweep_leaves_nothing_and_resume_completes(tmp_path, sig):
    values = (1, 2, 3, 4, 5, 6)
    scenario, seen = standin_sweep(tmp_path, values=values, tp2_value=0, speed=20)
    run_dir = tmp_path / "run"
    env = {**os.environ, "KV_HARNESS_MODELS_DIR": str(tmp_path / "models")}
    cmd = [sys.executable, "-m", "harness", "run", str(scenario), "--gpus", "0,1", "--out", str(run_dir)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:  # two rows written, two more engines running
        rows = len(read_results(run_dir / "results.csv")) if (run_dir / "results.csv").exists() else 0
        if rows >= 2 and sum(len(v) for v in engine_saw(seen).values()) >= 4:
            break
        time.sleep(0.1)
    family = _descendants(proc.pid)  # the forkserver, the workers and their engines
    assert len(family) >= 5
    proc.send_signal(sig)
    proc.wait(timeout=60)
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in family) and time.monotonic() < deadline:
        time.sleep(0.1)  # after SIGKILL: forkserver sees its parent gone, workers get their parent-death signal
    assert [pid for pid in family if _alive(pid)] == []
    finished = read_results(run_dir / "results.csv")
    assert 2 <= len(finished) < 6 and set(finished["status"]) == {"ok"}

    resumed = subprocess.run(cmd[:-2] + ["--resume", str(run_dir)], cwd=REPO, env=env, capture_output=True,
                             text=True, timeout=120, check=False)
    assert resumed.returncode == 0, resumed.stderr
    complete = read_results(run_dir / "results.csv")
    assert len(complete) == 6 and set(complete["status"]) == {"ok"}
    before = finished.set_index("point_id")["started_at"]
    assert all(complete.set_index("point_id")["started_at"][pid] == before[pid] for pid in before.index)
