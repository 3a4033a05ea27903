"""Shared by the executor tests: a run function that records when and where each point ran,
and a stand-in sweep with one TP=2 point.

The run functions are module-level so a spawned worker (local executor) or a Ray worker
can import them; where they record is an env var, which both kinds of worker inherit.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import time
import uuid
from pathlib import Path

from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml

RECORD_DIR_ENV = "KVH_TEST_RECORD_DIR"
OK_TIMED = OK_LOG.with_suffix(".tlog")


def _record(entry: dict, folder: str | None = None) -> None:
    folder = Path(folder or os.environ[RECORD_DIR_ENV])
    (folder / f"{uuid.uuid4().hex}.json").write_text(json.dumps(entry))


def recording_run_point(point, job, gpus=None, on_phase=None, extra_env=None, record_dir: str | None = None):
    """The real run_point, with the interval it held its GPUs written down (to record_dir, else
    $KVH_TEST_RECORD_DIR; Ray workers do not see env vars set after the cluster started)."""
    from harness.execute.point_run import run_point

    t0 = time.time()
    try:
        return run_point(point, job, gpus=gpus, on_phase=on_phase, extra_env=extra_env)
    finally:
        _record({"point_id": point.point_id, "repeat": point.repeat, "gpus": list(gpus or []),
                 "cvd": (extra_env or {}).get("CUDA_VISIBLE_DEVICES"), "t0": t0, "t1": time.time(),
                 "pid": os.getpid()}, record_dir)


def fake_run_point(point, job, gpus=None, on_phase=None, extra_env=None):
    """No engine: hold the GPUs for `hold_s` (point arg) and return an ok row; `die` kills the worker,
    `busy_on` raises GpuBusyError while holding that GPU."""
    from harness.execute.executors.common import failed_result
    from harness.execute.gpu import GpuBusyError
    from parsers.record import StartupRecord

    args = point.args
    if args.get("busy_on") is not None and args["busy_on"] in (gpus or []):
        raise GpuBusyError(f"GPU {args['busy_on']} has 9000 MiB in use")
    t0 = time.time()
    if on_phase:
        on_phase("loading")
    if args.get("die"):
        os.kill(os.getpid(), signal.SIGKILL)
    if args.get("raise"):
        raise RuntimeError("boom")
    time.sleep(float(args.get("hold_s", 0.3)))
    _record({"point_id": point.point_id, "repeat": point.repeat, "gpus": list(gpus or []),
             "cvd": (extra_env or {}).get("CUDA_VISIBLE_DEVICES"), "t0": t0, "t1": time.time(), "pid": os.getpid()})
    placeholder = failed_result(point, job, "none", "", gpus=gpus)
    return dataclasses.replace(placeholder, status="ok", error_kind=None, error_message=None,
                               record=StartupRecord(kv_tokens=1000 + point.repeat))


def records(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def max_overlap(intervals: list[tuple[float, float]]) -> int:
    events = sorted([(t0, 1) for t0, _ in intervals] + [(t1, -1) for _, t1 in intervals])
    most = now = 0
    for _, step in events:  # ends sort before starts at the same instant
        now += step
        most = max(most, now)
    return most


def assert_one_point_per_gpu(entries: list[dict]) -> None:
    by_gpu: dict[int, list[tuple[float, float]]] = {}
    for e in entries:
        for g in e["gpus"]:
            by_gpu.setdefault(g, []).append((e["t0"], e["t1"]))
    for gpu, intervals in by_gpu.items():
        assert max_overlap(intervals) == 1, f"two points on GPU {gpu} at once: {sorted(intervals)}"


def standin_sweep(root: Path, values=(1, 2, 3, 4, 5, 6), tp2_value: int = 6, speed: float = 60,
                  extra: dict[int, list[str]] | None = None, timeout_s: float = 30) -> tuple[Path, Path]:
    """A scenario whose points replay the real vLLM log (about 1 s each at 60x); the point with
    max_num_batched_tokens == tp2_value has tensor_parallel_size 2. Returns (scenario, env-record dir)."""
    seen = root / "seen"
    behaviours = {}
    for v in values:
        (seen / str(v)).mkdir(parents=True)
        behaviours[v] = ["--log", str(OK_TIMED), "--speed", str(speed), "--record-env", str(seen / str(v)),
                         *(extra or {}).get(v, [])]
    python = make_fake_env(root / "env", behaviours)
    tps = [2 if v == tp2_value else 1 for v in values]
    scenario = root / "s.yaml"
    scenario.write_text(scenario_yaml(python, list(values), timeout_s=timeout_s, name="par", tensor_parallel=tps))
    return scenario, seen


def engine_saw(seen: Path) -> dict[int, list[dict]]:
    """max_num_batched_tokens -> what each stand-in started for it recorded (pid, ppid, GPU env)."""
    return {int(d.name): [json.loads(p.read_text()) for p in sorted(d.glob("[0-9]*.json"))] for d in seen.iterdir()}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def wait_gone(pid: int, timeout_s: float = 15) -> bool:
    deadline = time.monotonic() + timeout_s
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)



def check_parallel_sweep(frame, record_dir: Path, seen: Path) -> dict[int, list[dict]]:
    """What both executors must give a standin_sweep on two GPUs: six ok rows, never two points on
    one GPU, two at once, and every engine started with the GPUs its row names (the TP=2 point
    both). Returns what each engine saw, for the executor's own checks."""
    import socket

    assert len(frame) == 6 and set(frame["status"]) == {"ok"}
    assert set(frame["kv_tokens"]) == {4_194_304}
    entries = records(record_dir)
    assert_one_point_per_gpu(entries)
    assert max_overlap([(e["t0"], e["t1"]) for e in entries]) == 2
    by_value = frame.set_index(frame["max_num_batched_tokens"].astype(int))
    saw = engine_saw(seen)
    for value, starts in saw.items():
        assert len(starts) == 1
        assert starts[0]["CUDA_VISIBLE_DEVICES"] == by_value.loc[value, "gpu_indices"]
    assert by_value.loc[6, "gpu_indices"] == "0,1"
    assert set(frame["gpu_indices"]) == {"0", "1", "0,1"}
    assert set(frame["node"]) == {socket.gethostname()}
    return saw
