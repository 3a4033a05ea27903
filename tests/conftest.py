"""Fixtures every test module can use without importing them."""

import json
import os
import signal

import pytest

from harness.atomic import write_text
from tests.support.e2e_runs import (  # noqa: F401 - the shared runs' fixtures
    BACKGROUND,
    RUNS,
    cpu_budget_run,
    cpu_tiny_run,
    is_xdist_worker,
    runs_root,
)
from tests.support.engine_envs import sglang_env, vllm_env  # noqa: F401 - session fixtures (install or reuse the engines)
from tests.support.host_waits import no_host_waits_for_stand_ins  # noqa: F401 - autouse: no host waits for stand-ins

# The suite measures the CPU engines wherever it runs: on a GPU host too (KV_HARNESS_DEVICE=cpu: -cpu envs, host
# memory as the device), so its engine tests check what holds there as here; the GPU path is tested against the
# GPU host stand-in (tests/support/gpu_host), which clears this for its own tests.
os.environ.setdefault("KV_HARNESS_DEVICE", "cpu")

# No test reaches the network: `predict` on a hub id asks the Hub for the safetensors headers
# (harness/predict/stored_weights.py); offline, huggingface_hub refuses at once and the predictor says it
# used config.json. Tests of the hub path serve a FakeHub (tests/support/fake_hub.py) to a child process
# with this cleared.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Tests interrupt the harness with SIGINT as a terminal's Ctrl-C would. A suite started as a background
# job of a non-interactive shell (`cmd &` in a script) inherits SIGINT ignored, and so would every
# harness it starts: Python installs no KeyboardInterrupt handler then, and Ctrl-C does nothing. A
# handler here (unlike "ignored") is reset to the default on exec, so each child gets Python's own.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    """The fast suite first; then the engine tests, those that read the shared real-engine runs last:
    a failure of the fast suite shows in the first minutes, and the other engine tests (installs,
    oracles, flag lists) overlap the runs going on in the background. Stable: each part keeps its order."""
    def order(item) -> int:
        if item.get_closest_marker("engine") is None:
            return 0
        uses = [i for i, name in enumerate(RUNS) if name in item.fixturenames]
        return 2 + min(uses) if uses else 1  # in the order the runs finish

    items.sort(key=order)


# An xdist worker's CPU priority, once it has collected, below the controller's, whose thread launches the shared
# real-engine runs: their launches are the suite's longest chain (a dozen engine starts of 80-100 s each, one after
# the other), and the workers' tests fill the CPU they leave. Not while collecting: the launches begin when a worker
# has collected, and collecting at the lower priority on a busy host took 3.7 min (a CI beside other jobs). Mildly:
# at 10, beside a busy loop and the launches, a worker had ~10 % of a core, and two tests' subprocesses outlived
# their guards (`vllm --help` read for its flags: 300 s; `report`'s first matplotlib font cache: 120 s); at 5 a worker
# weighs a third of a nice-0 process (CFS weights 335 against 1024), not a tenth.
WORKER_NICENESS = 5


def _wanted_runs_path(config):
    return runs_root(config) / "wanted.json"


@pytest.hookimpl(tryfirst=True)  # before xdist's own: its worker tells the controller it has collected
def pytest_collection_finish(session):
    """Start the shared real-engine runs the selected tests need, in the background (tests/support/e2e_runs.py);
    under xdist, name them for the controller, which starts them, and lower the worker's priority."""
    if session.config.option.collectonly:
        return
    wanted = sorted({name for item in session.items for name in RUNS if name in getattr(item, "fixturenames", ())})
    worker = is_xdist_worker(session.config)
    if worker:
        os.nice(WORKER_NICENESS)
    if not wanted:
        return
    if worker:
        write_text(_wanted_runs_path(session.config), json.dumps(wanted))
    else:
        BACKGROUND.start(wanted, runs_root(session.config))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """The controller: a worker has collected, and named the runs its tests need (each worker the same)."""
    path = _wanted_runs_path(node.config)
    if path.is_file():
        BACKGROUND.start(json.loads(path.read_text()), runs_root(node.config))


def pytest_sessionfinish(session):
    BACKGROUND.stop()
