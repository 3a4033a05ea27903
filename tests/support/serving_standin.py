#!/usr/bin/env python3
"""A stand-in vLLM server with a scripted KV pool, for the probe: it logs vLLM's KV lines for its pool, then
serves /health, /v1/completions (prompts as token ids) and /metrics with vLLM 0.32.0's metric names.

Its scheduler admits a request when the request's blocks (ceil(L / block)) are free and queues it otherwise;
a request holds its blocks for STANDIN_STEP_S seconds per output token. Settings (environment):
  STANDIN_POOL_TOKENS  the pool (default 2048)        STANDIN_BLOCK  tokens per block (128)
  STANDIN_STEP_S       seconds per output token (0.02) STANDIN_CLAIM_FACTOR  the logged concurrency x this (1):
                                                      a claim the pool does not back
  STANDIN_REFUSE_ABOVE refuse requests longer than this although max_model_len admits them (a scheduler limit
                       below the logged one)
  STANDIN_DIE_AT_REQUEST  exit (code 1, an error line first) when the n-th generation request arrives
  STANDIN_PREEMPT_AT   the n-th admitted request is preempted once (requeued, the counter counted)
"""

from __future__ import annotations

import http.server
import json
import math
import os
import sys
import threading
import time
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from standin_engine import vllm_serve_parser

POOL = int(os.environ.get("STANDIN_POOL_TOKENS", "2048"))
BLOCK = int(os.environ.get("STANDIN_BLOCK", "128"))
STEP_S = float(os.environ.get("STANDIN_STEP_S", "0.02"))
CLAIM_FACTOR = float(os.environ.get("STANDIN_CLAIM_FACTOR", "1"))
REFUSE_ABOVE = int(os.environ.get("STANDIN_REFUSE_ABOVE", "0")) or None
DIE_AT = int(os.environ.get("STANDIN_DIE_AT_REQUEST", "0")) or None
PREEMPT_AT = int(os.environ.get("STANDIN_PREEMPT_AT", "0")) or None

REGISTRY = CollectorRegistry()
RUNNING = Gauge("vllm:num_requests_running", "running", ["engine"], registry=REGISTRY)
WAITING = Gauge("vllm:num_requests_waiting", "waiting", ["engine"], registry=REGISTRY)
USAGE = Gauge("vllm:kv_cache_usage_perc", "usage", ["engine"], registry=REGISTRY)
PREEMPTED = Counter("vllm:num_preemptions", "preemptions", ["engine"], registry=REGISTRY)


def say(text: str) -> None:
    stamp = time.strftime("%m-%d %H:%M:%S")
    sys.stdout.write(f"(EngineCore pid={os.getpid()}) INFO {stamp} [standin.py:1] {text}\n")
    sys.stdout.flush()


class Scheduler:
    def __init__(self) -> None:
        self.free = POOL // BLOCK
        self.running = self.waiting = self.requests = self.admitted = 0
        self.lock = threading.Condition()

    def _publish(self) -> None:
        RUNNING.labels("0").set(self.running)
        WAITING.labels("0").set(self.waiting)
        USAGE.labels("0").set(1 - self.free / (POOL // BLOCK))

    def serve(self, length: int, output_tokens: int) -> None:
        blocks = math.ceil(length / BLOCK)
        with self.lock:
            self.waiting += 1
            self._publish()
            while self.free < blocks:
                self.lock.wait()
            self.waiting -= 1
            self.free -= blocks
            self.running += 1
            self.admitted += 1
            preempt = self.admitted == PREEMPT_AT
            self._publish()
        time.sleep(STEP_S * output_tokens / (2 if preempt else 1))
        if preempt:  # give the blocks back, count it, and queue again for the rest
            PREEMPTED.labels("0").inc()
            with self.lock:
                self.free += blocks
                self.running -= 1
                self._publish()
                self.lock.notify_all()
            self.serve(length, output_tokens - output_tokens // 2)
            return
        with self.lock:
            self.free += blocks
            self.running -= 1
            self._publish()
            self.lock.notify_all()


def main() -> int:
    args, _ = vllm_serve_parser(max_model_len=512).parse_known_args()
    mml = args.max_model_len
    per_request = math.ceil(mml / BLOCK) * BLOCK
    say(f"CPU KV cache size: {POOL:,} tokens, Maximum concurrency for {mml:,} tokens per request: "
        f"{POOL / per_request * CLAIM_FACTOR:.2f}x")
    scheduler = Scheduler()
    scheduler._publish()
    PREEMPTED.labels("0")

    class Api(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # http.server's naming
            if self.path == "/health":
                self._answer(200, b"")
            elif self.path == "/metrics":
                self._answer(200, generate_latest(REGISTRY), "text/plain; version=0.0.4")
            else:
                self._answer(404, b"{}")

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if self.path != "/v1/completions":
                self._answer(404, b"{}")
                return
            with scheduler.lock:
                scheduler.requests += 1
                number = scheduler.requests
            if number == DIE_AT:
                sys.stdout.write("ERROR stand-in: the engine core died under load (STANDIN_DIE_AT_REQUEST)\n")
                sys.stdout.flush()
                os._exit(1)
            prompt, output_tokens = body["prompt"], body["max_tokens"]
            length = len(prompt) + output_tokens
            limit = min(mml, REFUSE_ABOVE or mml)
            if length > limit:
                message = (f"This model's maximum context length is {limit} tokens. However, you requested "
                           f"{length} tokens ({len(prompt)} in the messages, {output_tokens} in the completion).")
                self._answer(400, json.dumps({"error": {"message": message, "code": 400}}).encode())
                return
            scheduler.serve(length, output_tokens)
            usage = {"prompt_tokens": len(prompt), "completion_tokens": output_tokens}
            self._answer(200, json.dumps({"choices": [{"text": "x" * output_tokens}], "usage": usage}).encode())

        def log_message(self, *args):
            pass

    # a backlog like uvicorn's: the probe opens every request's connection at once
    http.server.ThreadingHTTPServer.request_queue_size = 1024
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Api)
    server.daemon_threads = True
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
