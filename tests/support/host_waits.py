"""The harness's host-memory waits, skipped where no real engine runs.

Before and after a point alone on a CPU host the harness waits for available memory to settle and for the
engine's memory to come back (harness/execute/host.py: up to 20 s each). A stand-in engine holds no memory,
so there is nothing of its own to wait for: the waits would only measure the host's other load - in this
suite, the real-engine runs going on in the background (tests/support/e2e_runs.py), which kept each
stand-in point waiting 3-20 s. Tests that start a real engine (marked `engine`) keep the waits; their
logic is tested with scripted readings (tests/predict/test_cpu_budget.py)."""

from __future__ import annotations

import functools

import pytest


@pytest.fixture(autouse=True)
def no_host_waits_for_stand_ins(request, monkeypatch):
    if request.node.get_closest_marker("engine") is not None:
        yield
        return
    from harness.execute import host, point_run

    # the harness's own readings, with no time to wait in: a reading (two for the settle), no sleep
    monkeypatch.setattr(point_run, "settled_host_memory",
                        functools.partial(host.settled_host_memory, window_s=0.0, timeout_s=0.0))
    monkeypatch.setattr(point_run, "wait_for_host_release",
                        functools.partial(host.wait_for_host_release, timeout_s=0.0, poll_s=0.0))
    yield
