"""Sweep expansion: a Scenario -> the ordered list of RunPoints, each with a stable id."""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.engines import get_adapter
from harness.scenario import EngineSpec, Problem, Scenario

POINT_ID_LENGTH = 10


@dataclass
class RunPoint:
    """One engine launch: everything needed to start it and to name its row."""

    scenario: str
    engine: str
    engine_version: str | None
    model: str
    point_id: str
    repeat: int
    args: dict[str, Any]  # snake_case flag -> value, engine-native names; None = not passed
    knobs: dict[str, Any]  # only the swept keys, as the scenario names them
    env: dict[str, str] = field(default_factory=dict)
    python: str | None = None

    def passed_args(self) -> dict[str, Any]:
        return {k: v for k, v in self.args.items() if v is not None}


def point_id(engine: str, model: str, args: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """Short hash of what the engine is started with; key order and null args do not matter."""
    identity: dict[str, Any] = {
        "engine": engine,
        "model": model,
        "args": {k: v for k, v in args.items() if v is not None},
    }
    if env:
        identity["env"] = env
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:POINT_ID_LENGTH]


def _axes(spec: EngineSpec) -> list[list[tuple[tuple[str, Any], ...]]]:
    """Each axis is a list of settings; a setting is a tuple of (key, value) pairs."""
    axes = [[((key, value),) for value in values] for key, values in spec.sweep.items()]
    for group in spec.zip:
        keys = list(group)
        axes.append([tuple(zip(keys, values)) for values in zip(*group.values())])
    return axes


def _engine_combinations(scenario: Scenario, engine: str, spec: EngineSpec):
    adapter = get_adapter(engine)
    base = {adapter.native_name(k): v for k, v in scenario.defaults.items()}
    base.update({adapter.native_name(k): v for k, v in spec.args.items()})
    env = spec.env_strings()
    for combination in itertools.product(*_axes(spec)):
        knobs = dict(pair for setting in combination for pair in setting)
        args = {**base, **{adapter.native_name(k): v for k, v in knobs.items()}}
        yield knobs, args, point_id(engine, scenario.model, args, env), env


def expand(scenario: Scenario) -> list[RunPoint]:
    points = []
    for engine, spec in scenario.engines.items():
        for knobs, args, pid, env in _engine_combinations(scenario, engine, spec):
            for repeat in range(scenario.run.repeats):
                points.append(RunPoint(
                    scenario=scenario.name, engine=engine, engine_version=spec.version,
                    model=scenario.model, point_id=pid, repeat=repeat, args=dict(args),
                    knobs=dict(knobs), env=dict(env), python=spec.python,
                ))
    return points


def duplicate_problems(scenario: Scenario) -> list[Problem]:
    problems = []
    for engine, spec in scenario.engines.items():
        seen = Counter()
        knobs_of = {}
        for knobs, _args, pid, _env in _engine_combinations(scenario, engine, spec):
            seen[pid] += 1
            knobs_of[pid] = knobs
        for pid, count in seen.items():
            if count > 1:
                shown = ", ".join(f"{k}={v}" for k, v in knobs_of[pid].items())
                problems.append(Problem(f"engines.{engine}", f"duplicate point {{{shown}}} appears {count} times (point_id {pid})"))
    return problems
