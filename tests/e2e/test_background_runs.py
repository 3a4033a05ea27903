"""The shared end-to-end runs (tests/support/e2e_runs.py) run on a thread of the process that launches them while
other tests run, and hand their outcome to whichever process runs the tests through the runs' folder."""

from __future__ import annotations

import threading

from tests.support import e2e_runs
from tests.support.e2e_runs import BackgroundRuns, E2ERun, wait_for_run


def _no_launch(monkeypatch, outcome=lambda run_dir: E2ERun(run_dir, None, (), 0, "", "")):
    monkeypatch.setattr(e2e_runs, "run_selection", lambda scenario, selection, run_dir, *args: outcome(run_dir))


def test_an_env_asked_for_while_a_gpu_test_runs_is_the_sessions_build(monkeypatch, tmp_path):
    asked = []
    monkeypatch.setattr(e2e_runs, "ensure_env", lambda engine, release, cache_dir, cpu: asked.append(cpu))
    _no_launch(monkeypatch)
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    runs = BackgroundRuns()
    gate = threading.Event()
    runs.pool.submit(gate.wait)  # the thread is busy: the stage starts only after the device has changed
    runs.start({"cpu_tiny_run"}, tmp_path)  # the session begins
    # what the GPU host stand-in's tests do (tests/support/gpu_host.install) before the worker asks
    monkeypatch.setenv("KV_HARNESS_DEVICE", "gpu")
    gate.set()
    wait_for_run("cpu_tiny_run", tmp_path, wait_s=60)
    runs.pool.shutdown(wait=True)  # not stop(): that interrupts the suite's own runs
    assert asked and all(cpu is True for cpu in asked)  # each engine of the stage, the CPU build


def test_a_stage_that_fails_before_launching_says_why_to_the_tests_waiting_for_it(monkeypatch, tmp_path):
    def no_env(engine, release, cache_dir, cpu):
        raise RuntimeError(f"{engine} {release}: no space left on device")

    monkeypatch.setattr(e2e_runs, "ensure_env", no_env)
    _no_launch(monkeypatch)
    runs = BackgroundRuns()
    runs.start({"cpu_budget_run"}, tmp_path)
    run = wait_for_run("cpu_budget_run", tmp_path, wait_s=60)
    runs.pool.shutdown(wait=True)
    assert run.returncode != 0 and "no space left on device" in run.stderr
    assert len(run.selection) == 9  # both stages' points, as the checks count them


def test_the_outcome_is_read_by_another_process_from_the_runs_folder(monkeypatch, tmp_path):
    # under xdist the controller launches and a worker reads: nothing but the folder passes between them
    monkeypatch.setattr(e2e_runs, "ensure_env", lambda *args: None)
    _no_launch(monkeypatch, lambda run_dir: E2ERun(run_dir, None, (), 3, "launched", ""))
    runs = BackgroundRuns()
    runs.start({"cpu_tiny_run"}, tmp_path)
    runs.pool.shutdown(wait=True)
    run = wait_for_run("cpu_tiny_run", tmp_path, wait_s=60)  # a fresh read, no state of `runs`
    assert (run.returncode, run.stdout, run.run_dir) == (3, "launched", tmp_path / "cpu_tiny_run" / "run")
