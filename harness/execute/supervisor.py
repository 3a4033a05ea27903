"""The engine's session leader: runs the engine and kills its whole session when the harness goes.

Run as `python supervisor.py HARNESS_PID GRACE_S -- ARGV...` in a new session (stdlib only,
so it starts in milliseconds). The harness may vanish by any signal, SIGKILL included;
the engine may ignore SIGTERM or leave grandchildren: this process outlives all of that,
notices the harness gone (its parent pid changes) and SIGTERMs, then SIGKILLs, every
process of its session. It exits with the engine's exit status.
"""

import os
import signal
import subprocess
import sys
import time

POLL_S = 0.1


def _session_members(sid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                raw = fh.read()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2:].split()
        if fields[0] != "Z" and (int(fields[2]) == sid or int(fields[3]) == sid):
            found.append(int(name))
    return found


def _kill_session(grace_s: float) -> None:
    me = os.getpid()
    for sig, wait in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        for pid in _session_members(me):
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + wait
        while _session_members(me) and time.monotonic() < deadline:
            try:
                os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                pass
            time.sleep(POLL_S)


def main(argv: list[str]) -> int:
    harness_pid, grace_s = int(argv[0]), float(argv[1])
    command = argv[argv.index("--") + 1:]
    # The harness stops the whole group itself (SIGTERM, grace, SIGKILL); this process stays
    # until the engine is gone so that it can still clean up if the harness dies meanwhile.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    try:
        engine = subprocess.Popen(command, stdin=subprocess.DEVNULL)
    except OSError as exc:
        print(f"cannot start {command[0]}: {exc.strerror or exc}", file=sys.stderr, flush=True)
        return 127
    while True:
        try:
            code = engine.wait(timeout=POLL_S)
            break
        except subprocess.TimeoutExpired:
            pass
        if os.getppid() != harness_pid:  # reparented: the harness is gone
            _kill_session(grace_s)
            return 137
    # The engine is gone; its leftovers in our session must not outlive the point either.
    if _session_members(os.getpid()):
        _kill_session(min(grace_s, 2.0))
    if code < 0:
        # End as the engine ended. SIGKILL and SIGSTOP take no handler (setting one is EINVAL).
        if -code not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
