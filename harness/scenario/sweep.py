"""Sweep expansion: a validated Scenario -> the ordered list of typed Points."""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Iterator
from typing import Any

from harness.engines import get_engine
from harness.engines.settings import Settings
from harness.scenario.point import POINT_ID_LENGTH, Point, point_digest
from harness.scenario.problems import Problem
from harness.scenario.prompts import number_tokens
from harness.scenario.schema import EngineSpec, Scenario


def _axes(spec: EngineSpec) -> list[list[tuple[tuple[str, Any], ...]]]:
    """Each axis is a list of settings; a setting is a tuple of (key, value) pairs."""
    axes = [[((key, value),) for value in values] for key, values in spec.sweep.items()]
    for group in spec.zip:
        keys = list(group)
        axes.append([tuple(zip(keys, values)) for values in zip(*group.values())])
    return axes


def _engine_combinations(scenario: Scenario, engine: str, spec: EngineSpec
                         ) -> Iterator[tuple[dict[str, Any], dict[str, Any], str, dict[str, str]]]:
    eng = get_engine(engine)
    base = {eng.native_name(k): v for k, v in scenario.defaults.items()}
    base.update({eng.native_name(k): v for k, v in spec.args.items()})
    env = spec.env_strings()
    for combination in itertools.product(*_axes(spec)):
        knobs = dict(pair for setting in combination for pair in setting)
        args = {**base, **{eng.native_name(k): v for k, v in knobs.items()}}
        yield knobs, args, point_digest(engine, scenario.model, args, env), env


def expand(scenario: Scenario) -> list[Point]:
    points = []
    for engine, spec in scenario.engines.items():
        start = len(points)
        knob_types = get_engine(engine).knobs
        for knobs, args, digest, env in _engine_combinations(scenario, engine, spec):
            pid = digest.hex()[:POINT_ID_LENGTH]
            settings = Settings.parse(args, knob_types)
            for repeat in range(scenario.run.repeats):
                points.append(Point(
                    scenario=scenario.name, engine=engine, engine_version=None,
                    model=scenario.model, point_id=pid, repeat=repeat, settings=settings,
                    knobs=dict(knobs), env=dict(env), python=spec.python, release_axis=spec.release_axis,
                ))
        # Release by release, every point on each: one release's env is needed at a time.
        points[start:] = [dataclasses.replace(p, engine_version=version)
                          for version in spec.versions() for p in points[start:]]
    return points


def duplicate_problems(scenario: Scenario) -> list[Problem]:
    """Points whose resolved arguments are equal (same digest), and distinct points sharing an id."""
    problems = []
    for engine, spec in scenario.engines.items():
        count: Counter[bytes] = Counter()
        first_knobs: dict[bytes, dict] = {}
        by_id: dict[bytes, bytes] = {}  # id prefix -> the digest first seen with it
        for knobs, _args, digest, _env in _engine_combinations(scenario, engine, spec):
            count[digest] += 1
            if count[digest] > 1:
                first_knobs.setdefault(digest, knobs)
                continue
            prefix = digest[:POINT_ID_LENGTH // 2]
            other = by_id.setdefault(prefix, digest)
            if other != digest:
                problems.append(Problem(f"engines.{engine}", f"points {{{_shown(knobs)}}} and another share point_id "
                                        f"{prefix.hex()} although their arguments differ; change a value slightly"))
        for digest, knobs in first_knobs.items():
            problems.append(Problem(f"engines.{engine}", f"duplicate point {{{_shown(knobs)}}} appears {count[digest]} "
                                    f"times (point_id {digest.hex()[:POINT_ID_LENGTH]}): the same resolved arguments"))
    return problems


def _shown(knobs: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in knobs.items())


def probe_problems(scenario: Scenario, stop_after: str | None = None) -> list[Problem]:
    """A probe that cannot run as written (run.stop_after probe, or `stop_after` as the command line overrides
    it): an engine without a serving API, a request length above a point's max_model_len."""
    if (stop_after or scenario.run.stop_after) != "probe":
        return []
    problems = []
    lengths = [n for n in scenario.run.probe.lengths if isinstance(n, int)]
    for engine, spec in scenario.engines.items():
        eng = get_engine(engine)
        if eng.serving is None:
            problems.append(Problem(f"engines.{engine}", "has no serving API: stop_after: probe needs one"))
            continue
        limits = {args.get(eng.native_name("max_model_len")) for _, args, _, _ in
                  _engine_combinations(scenario, engine, spec)}
        shortest = min((int(v) for v in limits if isinstance(v, int) and v > 0), default=None)
        for length in lengths:
            if shortest is not None and length > shortest:
                problems.append(Problem("run.probe.lengths", f"{length} is above max_model_len {shortest} of "
                                                             f"engines.{engine}: a request can be at most that long"))
    return problems + _prompt_problems(scenario.run.probe, lengths)


def _prompt_problems(probe, lengths: list[int]) -> list[Problem]:
    """Prompts that cannot be made as asked: a request must hold the shared prefix, its own number and at least
    one output token, and a decode-heavy one its short prompt and an output."""
    floor = probe.shared_prefix_tokens + number_tokens()
    shortest = min(lengths, default=None)
    if shortest is not None and shortest <= floor:
        return [Problem("run.probe.lengths", f"{shortest} tokens leave no output after a {floor}-token prompt "
                                             f"(shared_prefix_tokens {probe.shared_prefix_tokens} + the request's "
                                             "number)")]
    if "decode_heavy" in probe.shapes and shortest is not None and probe.decode_prompt_tokens >= shortest:
        return [Problem("run.probe.decode_prompt_tokens", f"{probe.decode_prompt_tokens} leaves no output in a "
                                                          f"request of {shortest} tokens")]
    return []
