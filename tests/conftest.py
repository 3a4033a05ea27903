"""Fixtures every test module can use without importing them."""

import signal

from tests.engine_envs import sglang_env, vllm_env  # noqa: F401 - session fixtures (install or reuse the engines)
from tests.support.e2e_runs import cpu_budget_run, cpu_tiny_run  # noqa: F401 - the shared real-engine runs

# Tests interrupt the harness with SIGINT as a terminal's Ctrl-C would. A suite started as a background
# job of a non-interactive shell (`cmd &` in a script) inherits SIGINT ignored, and so would every
# harness it starts: Python installs no KeyboardInterrupt handler then, and Ctrl-C does nothing. A
# handler here (unlike "ignored") is reset to the default on exec, so each child gets Python's own.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    """The fast suite first, the engine tests (real installs and launches, most of the time) after it:
    a failure of the fast suite shows in the first minutes. Stable: each part keeps its order."""
    items.sort(key=lambda item: item.get_closest_marker("engine") is not None)
