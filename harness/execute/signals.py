"""Holding SIGINT/SIGTERM/SIGHUP while a stop and its row must complete, then acting on them."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

HELD = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

_enabled = False  # set by the processes that write rows (the run, a local worker); not in a Ray task
_depth = 0
_pending: list[int] = []
_saved: dict[int, object] = {}


def _record(signum, _frame) -> None:
    _pending.append(signum)


def enable() -> None:
    """Holding applies in this process from now on (Ray cancels a task by interrupting it: no hold there)."""
    global _enabled
    _enabled = True


def hold() -> None:
    """From now on a held signal is recorded, not acted on (nested holds count)."""
    global _depth
    if not _enabled or threading.current_thread() is not threading.main_thread():
        return  # only the main thread receives signals in Python
    _depth += 1
    if _depth == 1:
        for sig in HELD:
            _saved[sig] = signal.getsignal(sig)
            signal.signal(sig, _record)


def release() -> None:
    """Undo one hold; at the outermost, restore the handlers and deliver what arrived meanwhile."""
    global _depth
    if threading.current_thread() is not threading.main_thread() or _depth == 0:
        return
    _depth -= 1
    if _depth:
        return
    for sig, handler in _saved.items():
        signal.signal(sig, handler)
    _saved.clear()
    if _pending:
        sig = _pending[0]
        _pending.clear()
        handler = signal.getsignal(sig)
        if callable(handler):
            handler(sig, None)
        elif handler == signal.SIG_DFL:
            if sig == signal.SIGINT:
                raise KeyboardInterrupt
            signal.raise_signal(sig)


def holding() -> bool:
    return _depth > 0


@contextmanager
def held():
    hold()
    try:
        yield
    finally:
        release()
