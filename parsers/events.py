"""What a streaming parser reports while it reads: one `Event` per recognised fact.

The launcher reacts to events (stop at the KV line, stop on a startup error, show the
phase); the full picture is always the parser's `record`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Startup phases, in the order vLLM goes through them. SGLang captures its graphs before
# it prints the scheduler summary, so each parser declares its own order.
PHASES = ("starting", "loading", "profiling", "kv_sized", "capturing", "ready")

VERSION = "version"  # data: engine_version
PHASE = "phase"  # data: phase
KV_SIZED = "kv_sized"  # data: the KV figures known at that line
STARTUP_ERROR = "startup_error"  # data: error_kind, error_message, plus the error's numbers
READY = "ready"  # data: {}
LATER_FAILURE = "later_failure"  # data: kind, message — a failure after the server was ready
STOPPING = "stopping"  # data: signal — the engine was told to stop; later ERROR lines are not failures

EVENT_KINDS = (VERSION, PHASE, KV_SIZED, STARTUP_ERROR, READY, LATER_FAILURE, STOPPING)


@dataclass(frozen=True)
class Event:
    kind: str
    data: dict = field(default_factory=dict)
    line: str = ""  # the log line it came from, without ANSI codes and line ends
