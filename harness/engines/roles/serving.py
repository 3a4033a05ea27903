"""The serving role: how the probe talks to a ready server (one request of exact token ids, forced to its full
output length) and which of its metrics say what the scheduler is doing."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class MetricNames:
    """The engine's Prometheus metric names, as a family name (no `_total`); the first name a server
    exports wins, so one entry covers releases that renamed a metric."""

    running: tuple[str, ...]  # gauge: requests being run
    waiting: tuple[str, ...]  # gauge: requests queued
    kv_usage: tuple[str, ...]  # gauge: the share of the KV pool in use, 0..1
    # counter: requests preempted (retracted) so far. Never a gauge: one of the count at the last step misses
    # every step between two samples
    preemptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Refusal:
    """A request the server would not serve: its HTTP status and the engine's own message."""

    status: int
    message: str


class ServingApi(ABC):
    """A ready server's HTTP API as the probe uses it, on 127.0.0.1."""

    metrics_path: ClassVar[str] = "/metrics"
    # flags the probe needs the server launched with (SGLang serves no metrics unless asked)
    launch_args: ClassVar[Mapping[str, Any]] = {}
    metric_names: ClassVar[MetricNames]
    # a line of the engine's log that says how many requests its scheduler preempted (group 1), read when the
    # server exports no preemption counter (None: its log says nothing the probe reads)
    preemption_line: ClassVar[re.Pattern[str] | None] = None

    @abstractmethod
    def request(self, model: str, prompt_ids: Sequence[int], output_tokens: int,
                stream: bool = False) -> tuple[str, dict[str, Any]]:
        """(path, JSON body) of one request: exactly these prompt tokens, exactly `output_tokens` generated
        (end-of-sequence ignored, greedy). Streamed: its tokens sent as server-sent events while they are made,
        the last event saying how many were generated."""

    @abstractmethod
    def generated_tokens(self, body: Mapping[str, Any]) -> int | None:
        """How many tokens the server says it has generated (so far), from its answer's JSON or one streamed
        event's (None: it does not say)."""

    def stream_error(self, event: Mapping[str, Any]) -> str | None:
        """The engine's message when a streamed event reports an error instead of tokens (both engines send
        {"error": ...} in the stream once the response has started)."""
        error = event.get("error")
        if not error:
            return None
        return str(error.get("message", error) if isinstance(error, Mapping) else error)[:500]

    def refusal(self, status: int, body: str) -> Refusal:
        """The engine's message from an error answer: the JSON's message where it gives one, else the text."""
        try:
            data = json.loads(body)
        except ValueError:
            return Refusal(status, body.strip()[:500])
        if isinstance(data, dict):
            error = data.get("error", data)
            message = error.get("message") if isinstance(error, dict) else error
            if message:
                return Refusal(status, str(message)[:500])
        return Refusal(status, body.strip()[:500])
