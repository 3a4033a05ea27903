"""The harness's host-memory waits, skipped where no real engine runs.

Before and after a point alone on a CPU host the harness waits for available memory to settle and for the
engine's memory to come back (harness/execute/host.py: up to 20 s each). A stand-in engine holds no memory,
so there is nothing of its own to wait for: the waits would only measure the host's other load - in this
suite, the real-engine runs going on in the background (tests/support/e2e_runs.py), which kept each
stand-in point waiting 3-20 s. Tests that start a real engine (marked `engine`) keep the waits; their
logic is tested with scripted readings (tests/predict/test_cpu_budget.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def no_host_waits_for_stand_ins(request, monkeypatch):
    if request.node.get_closest_marker("engine") is not None:
        yield
        return
    from harness.execute import point_run

    # one reading, as the settle would have returned at once on a quiet host
    monkeypatch.setattr(point_run, "settled_host_memory", lambda env=None: point_run.read_host_memory(env))
    monkeypatch.setattr(point_run, "wait_for_host_release", lambda before, env=None: None)
    yield
