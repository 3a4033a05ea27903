#!/usr/bin/env python3
"""A scripted stand-in engine: replays a recorded real startup log with its timing and
misbehaves on request, so the launcher's fault handling is tested against real output.

Log files: `*.tlog` ("<seconds>\t<line>") replays with timing; plain logs replay at once.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import signal
import sys
import threading
import time

KV_LINE = re.compile(r"KV cache size:|KV Cache is allocated|max_total_num_tokens=")


def read_lines(path: str) -> list[tuple[float, bytes]]:
    with open(path, "rb") as f:
        raw = f.read().split(b"\n")
    if raw and raw[-1] == b"":
        raw.pop()
    if path.endswith(".tlog"):
        out = []
        for line in raw:
            stamp, _, text = line.partition(b"\t")
            out.append((float(stamp), text + b"\n"))
        return out
    return [(0.0, line + b"\n") for line in raw]


_SERVING: list[int] = []


def vllm_serve_parser(max_model_len: int) -> argparse.ArgumentParser:
    """`vllm serve MODEL` with the flags the budget stand-ins size from (the rest is theirs to add or ignore)."""
    p = argparse.ArgumentParser()
    p.add_argument("serve")
    p.add_argument("model")
    p.add_argument("--port", type=int)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.92)
    p.add_argument("--max-model-len", type=int, default=max_model_len)
    return p


def serve_health(port: int) -> None:
    if port in _SERVING:  # an engine has several KV lines (SGLang: the pool, then the summary): serve once
        return
    _SERVING.append(port)

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # http.server's naming
            self.send_response(200 if self.path in ("/health", "/model_info", "/server_info", "/version") else 404)
            self.end_headers()
            self.wfile.write(b'{"version": "0.0.0-standin"}')

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", port), Health)
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--log", required=True)
    p.add_argument("--speed", type=float, default=0.0, help="0 = no delays; 1 = real time; 10 = 10x faster")
    p.add_argument("--stream", choices=("stdout", "stderr"), default="stdout")
    p.add_argument("--port", type=int)
    p.add_argument("--serve-after-kv", action="store_true", help="answer /health once the KV line is out")
    p.add_argument("--serve-at-start", action="store_true", help="answer /health from the start")
    p.add_argument("--crash-before-kv", action="store_true")
    p.add_argument("--exit-early", action="store_true", help="exit 0 before the KV line")
    p.add_argument("--die-after-kv", action="store_true")
    p.add_argument("--hang", action="store_true", help="stop printing before the KV line and sleep forever")
    p.add_argument("--ignore-sigterm", action="store_true")
    p.add_argument("--fork-child", metavar="PIDFILE", help="fork a child that outlives us; write its pid here")
    p.add_argument("--partial-last-line", metavar="TEXT", help="end with TEXT and no newline, then exit 1")
    p.add_argument("--interleave", action="store_true", help="alternate lines between stdout and stderr")
    p.add_argument("--shutdown-error", action="store_true", help="on SIGTERM print ERROR lines, then exit")
    p.add_argument("--then-sleep", type=float, default=3600.0, help="after the replay, stay up this long")
    p.add_argument("--record-env", metavar="DIR", help="write DIR/<pid>.json: pid, parent, GPU env, start time")
    args = p.parse_args()
    if args.serve_at_start and args.port:
        serve_health(args.port)

    if args.record_env:
        seen = {"pid": os.getpid(), "ppid": os.getppid(), "t_start": time.time(), "port": args.port,
                **{k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS",
                                                 "TMPDIR", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR",
                                                 "CUDA_CACHE_PATH", "FLASHINFER_WORKSPACE_BASE", "VLLM_CACHE_ROOT")}}
        tmp = os.path.join(args.record_env, f".{os.getpid()}.json")
        with open(tmp, "w") as f:
            json.dump(seen, f)
        os.replace(tmp, os.path.join(args.record_env, f"{os.getpid()}.json"))

    outs = [sys.stdout.buffer, sys.stderr.buffer] if args.interleave else [getattr(sys, args.stream).buffer]

    def emit(i: int, line: bytes) -> None:
        out = outs[i % len(outs)]
        out.write(line)
        out.flush()

    if args.ignore_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif args.shutdown_error:
        def on_term(*_):
            emit(0, b"(APIServer pid=1) ERROR 11-29 20:00:00 [launcher.py:1] Engine core proc EngineCore died "
                    b"unexpectedly, shutting down client.\n")
            emit(0, b"[2026-11-29 20:00:00] ERROR:    Traceback (most recent call last): KeyboardInterrupt\n")
            os._exit(0)
        signal.signal(signal.SIGTERM, on_term)

    if args.fork_child:
        child = os.fork()
        if child == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL to the group ends it
            time.sleep(3600)
            os._exit(0)
        with open(args.fork_child, "w") as f:
            f.write(str(child))

    start = time.monotonic()
    for i, (stamp, line) in enumerate(read_lines(args.log)):
        is_kv = bool(KV_LINE.search(line.decode("utf-8", "replace")))
        if is_kv and (args.crash_before_kv or args.exit_early or args.hang):
            if args.hang:
                time.sleep(3600)
            # A native crash: no Python traceback, nothing a parser can name.
            emit(i, b"Fatal Python error: Segmentation fault (stand-in crash before KV sizing)\n"
                 if args.crash_before_kv else b"")
            return 1 if args.crash_before_kv else 0
        if args.speed:
            delay = stamp / args.speed - (time.monotonic() - start)
            if delay > 0:
                time.sleep(delay)
        emit(i, line)
        if is_kv and args.die_after_kv:
            return 7
        if is_kv and args.serve_after_kv and args.port:
            serve_health(args.port)
    if args.partial_last_line:
        emit(0, args.partial_last_line.encode())
        return 1
    time.sleep(args.then_sleep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
