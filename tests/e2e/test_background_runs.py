"""The shared end-to-end runs (tests/support/e2e_runs.py) ask for their engine envs from a worker thread while
other tests run: what they ask for must be what the session began with, whatever those tests set meanwhile."""

from __future__ import annotations

from tests.support import e2e_runs
from tests.support.e2e_runs import BackgroundRuns, E2ERun


def test_an_env_asked_for_while_a_gpu_test_runs_is_the_sessions_build(monkeypatch, tmp_path_factory):
    asked = []
    monkeypatch.setattr(e2e_runs, "ensure_env", lambda engine, release, cache_dir, cpu: asked.append(cpu))
    monkeypatch.setattr(e2e_runs, "run_selection", lambda *args: E2ERun(tmp_path_factory.mktemp("r"), None, (), 0,
                                                                        "", ""))
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    runs = BackgroundRuns()
    runs.start({"cpu_tiny_run"}, tmp_path_factory, quiet=True)  # the session begins: nothing quiet to launch
    # what the GPU host stand-in's tests do (tests/support/gpu_host.install) before the worker asks
    monkeypatch.setenv("KV_HARNESS_DEVICE", "gpu")
    runs.start({"cpu_tiny_run"}, tmp_path_factory)
    runs.futures["cpu_tiny_run", 0].result()
    runs.pool.shutdown(wait=True)  # not stop(): that interrupts the suite's own runs
    assert asked and all(cpu is True for cpu in asked)  # each engine of the stage, the CPU build
