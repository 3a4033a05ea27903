"""A scripted KV pool behind vLLM's or SGLang's HTTP API, for the stand-in engines the probe drives
(tests/support/serving_standin.py on the CPU, tests/support/gpu_host/*_gpu.py on the GPU host stand-in).

The scheduler admits a request when its pages (ceil(L / page)) are free and queues it otherwise; a request holds
its pages for `step_s` seconds per output token, streaming a token event every step when asked to stream. The
API is each engine's as the harness's serving role uses it (harness/engines/<engine>/serving.py): vLLM's
/v1/completions (token-id prompts, usage in the answer or in the last streamed event) with vLLM 0.32.0's metric
names; SGLang's /generate (input_ids, meta_info.completion_tokens, errors of a streamed request as an event) with
SGLang 0.5.22's metric names and its request limits (0.5.22 tp_worker.py:549-553: inputs below
min(context_len, pool) - 1 - 5 tokens; scheduler.py:2602-2608: the output cut to the length left).
With `admit_now` the scheduler admits as vLLM does, by the pages a request needs now (its prompt and the token
it is about to make), takes a page as a request grows into it, and when none is free preempts the request that
needs it (its pages freed, the counter counted, requeued to recompute what it had: vLLM's recompute preemption).
Not modelled: chunked prefill, prefix caching, a token budget per step, decode speed that depends on the batch.
"""

from __future__ import annotations

import http.server
import json
import math
import os
import sys
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest


@dataclass(frozen=True)
class Pool:
    """What the stand-in serves with, and its scripted faults."""

    engine: str  # "vllm" or "sglang": whose API and metric names
    tokens: int  # the KV pool
    page: int  # tokens per block (vLLM) / page (SGLang)
    max_model_len: int  # vLLM's max_model_len, SGLang's context_len
    # seconds per output token. The tests count the requests generating at once, which the pool bounds only while a
    # request outlasts the time the harness takes to send a wave: 16 tokens are 1.6 s, several times the spread of
    # 32 requests sent at once on a 2-core host busy with other tests (at 0.02 s, 0.32 s, a busy host spread one
    # wave over more than that and a GPU host test counted fewer at once than the pool runs).
    step_s: float = 0.1
    refuse_above: int | None = None  # a scheduler limit below max_model_len
    die_at: int | None = None  # exit (code 1, an error line first) when the n-th generation request arrives
    preempt_at: int | None = None  # the n-th admitted request is preempted once (requeued, counted)
    metrics: bool = True  # False: /metrics answers 404 (a server launched without them)
    admit_now: bool = False  # admit by the pages needed now, grow, and preempt (vLLM); else by the full length
    # a generation request on a kept-alive connection is closed unanswered, its body unread: the engines' uvicorn
    # closing an idle connection as the request arrives (its timeout_keep_alive firing then)
    drop_reused: bool = False


class Scheduler:
    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.pages = pool.tokens // pool.page
        self.free = self.pages
        self.running = self.waiting = self.requests = self.admitted = 0
        self.lock = threading.Condition()
        self.registry = CollectorRegistry()
        names = (("vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
                  "vllm:num_preemptions") if pool.engine == "vllm" else
                 ("sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:token_usage",
                  "sglang:num_retracted_reqs"))
        self._running = Gauge(names[0], "running", ["engine"], registry=self.registry)
        self._waiting = Gauge(names[1], "waiting", ["engine"], registry=self.registry)
        self._usage = Gauge(names[2], "usage", ["engine"], registry=self.registry)
        self._preempted = Counter(names[3], "preemptions", ["engine"], registry=self.registry)
        self._preempted.labels("0")
        self._publish()

    def _publish(self) -> None:
        self._running.labels("0").set(self.running)
        self._waiting.labels("0").set(self.waiting)
        self._usage.labels("0").set(1 - self.free / self.pages if self.pages else 0)

    def _admit(self, pages: int) -> bool:
        """Wait for `pages` free pages, take them; whether this admission is the scripted preemption."""
        with self.lock:
            self.waiting += 1
            self._publish()
            while self.free < pages:
                self.lock.wait()
            self.waiting -= 1
            self.free -= pages
            self.running += 1
            self.admitted += 1
            self._publish()
            return self.admitted == self.pool.preempt_at

    def _release(self, pages: int, preempted: bool) -> None:
        with self.lock:
            self.free += pages
            self.running -= 1
            if preempted:
                self._preempted.labels("0").inc()
            self._publish()
            self.lock.notify_all()

    def _grow(self) -> bool:
        """One more page for a growing request; False: none is free (the request is preempted)."""
        with self.lock:
            if self.free < 1:
                return False
            self.free -= 1
            self._publish()
            return True

    def serve_growing(self, prompt: int, output_tokens: int, token=lambda: None) -> None:
        """admit_now: admitted by the pages its prompt and next token need, one more page as it grows into it."""
        made = 0
        while made < output_tokens:
            held = math.ceil((prompt + made + 1) / self.pool.page)
            self._admit(held)
            while made < output_tokens:
                needed = math.ceil((prompt + made + 1) / self.pool.page)
                if needed > held:
                    if not self._grow():
                        break
                    held += 1
                time.sleep(self.pool.step_s)
                made += 1
                token()
            self._release(held, preempted=made < output_tokens)

    def serve(self, length: int, output_tokens: int, token=lambda: None) -> None:
        """Admit the request, then hold its pages while it makes `output_tokens` tokens (`token` after each)."""
        if self.pool.admit_now:
            self.serve_growing(length - output_tokens, output_tokens, token)
            return
        pages = math.ceil(length / self.pool.page)
        preempt = self._admit(pages)
        made = output_tokens // 2 if preempt else output_tokens
        for _ in range(made):
            time.sleep(self.pool.step_s)
            token()
        self._release(pages, preempted=preempt)  # a preemption: the pages go back, counted, the rest queues again
        if preempt:
            self.serve(length, output_tokens - made, token)


def _vllm_limit(pool: Pool, prompt: int, output: int) -> tuple[int, str] | None:
    limit = min(pool.max_model_len, pool.refuse_above or pool.max_model_len)
    if prompt + output > limit:
        return 400, (f"This model's maximum context length is {limit} tokens. However, you requested "
                     f"{prompt + output} tokens ({prompt} in the messages, {output} in the completion).")
    return None


def _sglang_limits(pool: Pool, prompt: int, output: int) -> tuple[int, str] | int:
    """The refusal, or the output tokens SGLang will make (cut to what its request length leaves)."""
    max_req_len = min(pool.max_model_len - 1, pool.tokens - 1, (pool.refuse_above or pool.max_model_len) - 1)
    max_input = max_req_len - 5
    if prompt >= max_input:
        return 400, (f"Input length ({prompt} tokens) exceeds the maximum allowed length ({max_input} tokens). "
                     "Use a shorter input or enable --allow-auto-truncate.")
    return min(output, max_req_len - 1 - prompt)


def serve_api(pool: Pool, port: int) -> None:
    """Serve the pool on 127.0.0.1:`port` until the process ends (blocks)."""
    scheduler = Scheduler(pool)

    class Api(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        answered = 0  # requests answered on this connection (one handler a connection)

        def _answer(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.answered += 1
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _events(self):
            """Start a stream of server-sent events (its end closes the connection); returns the sender."""
            self.answered += 1
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True

            def send(event) -> None:
                data = event if isinstance(event, str) else json.dumps(event)
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()
            return send

        def do_GET(self):  # http.server's naming
            path = urlsplit(self.path).path  # a query (the probe names its wave in one) is not the route
            if path in ("/health", "/health_generate", "/v1/models", "/model_info", "/server_info", "/version"):
                self._answer(200, b"{}")
            elif path == "/metrics" and pool.metrics:
                self._answer(200, generate_latest(scheduler.registry), "text/plain; version=0.0.4")
            else:
                self._answer(404, b"{}")

        def do_POST(self):
            if pool.drop_reused and self.answered:
                self.close_connection = True
                return
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            wanted = "/v1/completions" if pool.engine == "vllm" else "/generate"
            if self.path != wanted:
                self._answer(404, b"{}")
                return
            with scheduler.lock:
                scheduler.requests += 1
                number = scheduler.requests
            if number == pool.die_at:
                sys.stdout.write("ERROR stand-in: the engine core died under load (STANDIN_DIE_AT_REQUEST)\n")
                sys.stdout.flush()
                os._exit(1)
            if pool.engine == "vllm":
                self._vllm(body)
            else:
                self._sglang(body)

        def _vllm(self, body) -> None:
            prompt, output = len(body["prompt"]), body["max_tokens"]
            refused = _vllm_limit(pool, prompt, output)
            if refused:
                self._answer(refused[0], json.dumps({"error": {"message": refused[1], "code": refused[0]}}).encode())
                return
            usage = {"prompt_tokens": prompt, "completion_tokens": output}
            if not body.get("stream"):
                scheduler.serve(prompt + output, output)
                self._answer(200, json.dumps({"choices": [{"text": "x" * output}], "usage": usage}).encode())
                return
            send = self._events()
            scheduler.serve(prompt + output, output, lambda: send({"choices": [{"text": "x"}], "usage": None}))
            if (body.get("stream_options") or {}).get("include_usage"):
                send({"choices": [], "usage": usage})
            send("[DONE]")

        def _sglang(self, body) -> None:
            prompt, params = len(body["input_ids"]), body["sampling_params"]
            limits = _sglang_limits(pool, prompt, params["max_new_tokens"])
            if isinstance(limits, tuple):
                error = {"message": limits[1], "type": "invalid_request_error", "code": limits[0]}
                if body.get("stream"):
                    self._events()({"error": error})
                else:
                    self._answer(limits[0], json.dumps({"error": error}).encode())
                return
            output = limits
            if not body.get("stream"):
                scheduler.serve(prompt + output, output)
                meta = {"prompt_tokens": prompt, "completion_tokens": output}
                self._answer(200, json.dumps({"text": "x" * output, "meta_info": meta}).encode())
                return
            send, made = self._events(), [0]

            def token() -> None:
                made[0] += 1
                send({"text": "x" * made[0], "meta_info": {"prompt_tokens": prompt, "completion_tokens": made[0]}})
            scheduler.serve(prompt + output, output, token)
            send("[DONE]")

        def log_message(self, *args):
            pass

    # a backlog like uvicorn's: the probe opens every request's connection at once
    http.server.ThreadingHTTPServer.request_queue_size = 1024
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Api)
    server.daemon_threads = True
    server.serve_forever()


def pool_from_environment(engine: str, tokens: int, page: int, max_model_len: int) -> Pool:
    """The pool an engine stand-in sized, with the faults the test asked for in STANDIN_* variables."""
    return Pool(engine, tokens, page, max_model_len,
                step_s=float(os.environ.get("STANDIN_STEP_S", Pool.step_s)),
                refuse_above=int(os.environ.get("STANDIN_REFUSE_ABOVE", "0")) or None,
                die_at=int(os.environ.get("STANDIN_DIE_AT_REQUEST", "0")) or None,
                preempt_at=int(os.environ.get("STANDIN_PREEMPT_AT", "0")) or None,
                metrics=not os.environ.get("STANDIN_NO_METRICS"),
                admit_now=bool(os.environ.get("STANDIN_ADMIT_NOW")),
                drop_reused=bool(os.environ.get("STANDIN_DROP_REUSED")))

