"""run.json as a typed record (`RunInfo`), with its own format version and the results format."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.errors import InputError
from harness.results.columns import RESULTS_FORMAT_VERSION

# v1: no run_format key, `results_format_version`. v2: run_format, results_format, options,
# scenario_digest, process_groups, resumes. v3: env_locks (each env's lock, harness/envs/lock.py).
RUN_FORMAT_VERSION = 3
MAX_RUN_JSON_BYTES = 16 << 20


@dataclass
class RunInfo:
    run_id: str
    scenario: dict[str, Any]
    scenario_file: str
    started_at: str
    harness_version: str
    run_format: int = RUN_FORMAT_VERSION
    results_format: int = RESULTS_FORMAT_VERSION
    scenario_digest: str | None = None  # sha256 of the validated scenario: what resume compares
    options: dict[str, Any] = field(default_factory=dict)  # run options that shape the rows
    engines: dict[str, Any] = field(default_factory=dict)
    machine: dict[str, Any] = field(default_factory=dict)
    scenario_gpu_memory_gib: float | None = None
    measured_gpu_memory_gib: float | None = None
    warnings: list[str] = field(default_factory=list)
    stop_after: str | None = None
    timeout_s: float | None = None
    executor: dict[str, Any] = field(default_factory=dict)
    finished_at: str | None = None
    # Process groups of engines running now (pid, start-time ticks): a later run reaps what a killed one left.
    process_groups: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)  # each --resume: when, and what changed
    # A hub model fetched before the first point: {"model", "path", "seconds", "downloaded"}; not in any t_kv_s
    model_fetch: dict[str, Any] | None = None
    # {env name: its lock} for the envs the run used (an interpreter of the scenario's own has none)
    env_locks: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # keys this harness does not know, kept as read

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "extra"}
        return {**self.extra, **data}

    @classmethod
    def from_dict(cls, data: Any, source: str) -> RunInfo:
        if not isinstance(data, dict):
            raise InputError(f"{source}: not a run.json (expected a JSON object)")
        data = dict(data)
        version = data.get("run_format", 1)
        if not isinstance(version, int) or version > RUN_FORMAT_VERSION:
            raise InputError(f"{source}: run format v{version}, this harness reads up to v{RUN_FORMAT_VERSION}: "
                             "upgrade kv-budget-harness to resume it")
        if version == 1:  # step v1 -> v2
            data["results_format"] = data.pop("results_format_version", 1)
            data["options"] = {"stop_after": data.get("stop_after"), "timeout_s": data.get("timeout_s")}
            data["run_format"] = 2
        if data["run_format"] == 2:
            add_env_locks(data)
        names = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        missing = [n for n in ("run_id", "scenario", "started_at") if n not in data]
        if missing:
            raise InputError(f"{source}: not a complete run.json (no {', '.join(missing)})")
        known = {k: v for k, v in data.items() if k in names}
        known.setdefault("scenario_file", "")
        known.setdefault("harness_version", "unknown")
        return cls(**known, extra={k: v for k, v in data.items() if k not in names})

    @classmethod
    def read(cls, path: Path) -> RunInfo:
        try:
            if path.stat().st_size > MAX_RUN_JSON_BYTES:
                raise InputError(f"{path}: too large for a run.json")
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"{path}: no such file; not a run folder") from None
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{path}: damaged run.json ({exc.__class__.__name__}: {exc}); "
                             "the run cannot be resumed, start a new one") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        return cls.from_dict(data, str(path))


def add_env_locks(data: dict[str, Any]) -> None:
    """Step v2 -> v3: no env locks (a run made before locks recorded none)."""
    data.setdefault("env_locks", {})
    data["run_format"] = 3
