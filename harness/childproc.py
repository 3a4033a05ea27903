"""What every child process of the harness gets: a clean environment, and death with its parent."""

from __future__ import annotations

import ctypes
import os
import signal

# Our own interpreter's settings must not leak into an engine's interpreter.
LEAKY_VARS = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")


def child_environ(overlay: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment minus the leaky variables, with `overlay` laid over it."""
    env = {k: v for k, v in os.environ.items() if k not in LEAKY_VARS}
    env.update(overlay or {})
    return env


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Linux PR_SET_PDEATHSIG: this process gets `sig` when its parent thread dies (no-op elsewhere)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, sig)
    except (OSError, AttributeError):
        pass
