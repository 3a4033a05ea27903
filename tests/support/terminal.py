"""A command run in a real pseudo-terminal of a given size, and its screen read back as a person sees it:
pexpect gives the command a terminal (so rich draws its live view, with its redraws), pyte plays the
bytes back onto a screen of the same size."""

from __future__ import annotations

import time

import pexpect
import pyte


def screen_after(argv: list[str], columns: int, rows: int, *, env: dict, cwd,
                 timeout_s: float) -> tuple[list[str], int]:
    """(the screen's lines once the command has exited, right-stripped; its exit status)."""
    screen = pyte.Screen(columns, rows)
    stream = pyte.ByteStream(screen)
    child = pexpect.spawn(argv[0], argv[1:], cwd=str(cwd), env=env, dimensions=(rows, columns))
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            try:
                stream.feed(child.read_nonblocking(65536, timeout=max(0.1, deadline - time.monotonic())))
            except pexpect.EOF:
                break
            except pexpect.TIMEOUT:
                raise AssertionError(f"still running after {timeout_s:g} s; its screen:\n"
                                     + "\n".join(line.rstrip() for line in screen.display)) from None
    finally:
        child.close(force=True)
    return [line.rstrip() for line in screen.display], child.exitstatus
