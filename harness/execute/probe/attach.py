"""The probe of one point, as the launcher calls it once the server is ready: its plan from what the engine
logged, the server's address and the engine's memory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.engines.base import Engine
from harness.execute.probe.drive import Server, run_probe
from harness.execute.probe.plan import plan_probe
from harness.execute.procs import group_members, group_rss_mib
from harness.results.probe import ProbeResult
from harness.scenario.schema import ProbeSpec

# pid -> the engine's memory now (MiB); None: measure the process group's resident memory (a CPU engine)
MemoryReader = Callable[[int], float | None]


def point_prober(engine: Engine, spec: ProbeSpec, port: int, model: str,
                 memory: MemoryReader | None = None, log_path: Path | None = None) -> Callable[[Any, int], ProbeResult]:
    """What the launcher calls with (the record so far, the group leader's PID) when the server is ready;
    `log_path` is the engine's log as the launcher writes it (where a scheduler's preemptions are read)."""
    serving = engine.require("serving", "stop_after: probe")

    def probe(record, pid: int) -> ProbeResult:
        plan = plan_probe(spec.lengths, spec.output_tokens, spec.oversubscribe, spec.max_requests, spec.timeout_s,
                          record, tuple(spec.shapes), spec.decode_prompt_tokens, spec.shared_prefix_tokens)
        if isinstance(plan, str):
            return ProbeResult(None, None, None, (), True, None, f"not probed: {plan}", not_run=plan)
        server = Server(base_url=f"http://127.0.0.1:{port}", readiness_path=engine.launch.readiness_path,
                        model=model, serving=serving, alive=lambda: bool(group_members(pid)),
                        memory_mib=(lambda: memory(pid)) if memory is not None else (lambda: group_rss_mib(pid)),
                        log_path=log_path)
        return run_probe(plan, server)

    return probe
