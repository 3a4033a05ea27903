"""The harness's host-memory waits, bounded to nothing where no real engine runs.

Before and after a point alone on a CPU host the harness waits for available memory to settle and for the
engine's memory to come back (harness/execute/host.py: up to 20 s each). A stand-in engine holds no memory,
so there is nothing of its own to wait for: the waits would only measure the host's other load - in this
suite, the real-engine runs going on in the background (tests/support/e2e_runs.py), which kept each
stand-in point waiting 3-20 s. $KV_HARNESS_HOST_WAIT_S=0 (the harness's own bound, which a harness started
as a child process reads too) leaves one reading and no wait. Tests that start a real engine (marked
`engine`), and the shared real-engine runs (their environment is the session's, taken before any test),
keep the waits; their logic is tested with scripted readings (tests/predict/test_cpu_budget.py)."""

from __future__ import annotations

import pytest

from harness.execute.host import HOST_WAIT_ENV


@pytest.fixture(autouse=True)
def no_host_waits_for_stand_ins(request, monkeypatch):
    if request.node.get_closest_marker("engine") is None:
        monkeypatch.setenv(HOST_WAIT_ENV, "0")
    yield
