"""Pass two of validation: every engine flag a scenario names, checked against that engine."""

from __future__ import annotations

from typing import Any

from harness.engines import engine_names, get_engine
from harness.engines.cli_flags import is_opposite, spellings, switch
from harness.envs import index
from harness.scenario.problems import Problem, nearest
from harness.scenario.schema import Scenario


def _check_flag(engine: str, key: str, where: str, versions: dict[str, str | None]) -> Problem | None:
    eng = get_engine(engine)
    if eng.owns(key):
        return Problem(where, "is set by the harness; remove it")
    known = eng.known_flags(versions.get(engine))
    if key.startswith("--") or key in known:
        return None
    owners = [name for name in engine_names() if name != engine
              and key in get_engine(name).known_flags(versions.get(name))]
    if owners:
        return Problem(where, f"is a {owners[0]} flag, not a {engine} flag")
    list_version = eng.flag_list_version(versions.get(engine))
    what = f"{engine} {list_version}" if list_version else engine
    return Problem(where, f"unknown {what} flag" + _hint(key, known, what)
                   + " (prefix a flag the harness does not know with '--' in args to pass it verbatim)")


def _hint(key: str, known: frozenset[str], what: str) -> str:
    """A spelling of the same switch the release does accept, else the nearest name that is not its opposite."""
    same = spellings(key, known)
    if same:
        return f"; {what} spells it '{same[0]}'"
    # A typo keeps its meaning: `disable_prefix_cachin` is never offered `enable_prefix_caching`.
    sense = switch(key)[1]
    hint = nearest(key, [name for name in known if switch(name)[1] == sense and not is_opposite(name, key)])
    return f"; did you mean '{hint}'?" if hint else ""


def _check_value(engine: str, key: str, value: Any, where: str) -> Problem | None:
    if value is None:
        return None  # null = engine default
    knob = get_engine(engine).knob_for(key)
    error = knob.check(value) if knob else None
    return Problem(where, error) if error else None


def release_notes(scenario: Scenario, *, predicting: bool = False,
                  host_has_gpu: bool | None = None) -> tuple[list[Problem], list[Problem]]:
    """(errors, warnings) about the releases the scenario asks for, located at `engines.<e>.version`.

    A release missing from the package index is an error; one without bundled data is a warning
    naming what stands in for it. The index is asked only for releases without bundled data.
    """
    errors: list[Problem] = []
    warnings: list[Problem] = []
    for engine, spec in scenario.engines.items():
        if engine not in engine_names():
            continue
        for i, version in enumerate(spec.versions()):
            if not version:
                continue
            where = f"engines.{engine}.version" + (f"[{i}]" if spec.release_axis else "")
            for note in index.release_notes(engine, version, predicting=predicting, host_has_gpu=host_has_gpu):
                (errors if note.is_error else warnings).append(Problem(where, note.text))
    return errors, warnings


def check_knobs(scenario: Scenario) -> list[Problem]:
    """Every flag and value, checked against each release the scenario runs (a release axis: each of them)."""
    problems: list[Problem] = []
    for single in scenario.single_releases():
        problems.extend(p for p in _check_knobs_one(single) if p not in problems)
    for engine, spec in scenario.engines.items():
        if spec.release_axis and spec.python:
            # One interpreter is one release; each release of an axis runs from its own env.
            problems.append(Problem(f"engines.{engine}.python", "a release axis (a list of versions) runs each release "
                                    "from its own env; remove python, or give one version"))
    problems.extend(release_notes(scenario)[0])  # a release missing from the index: error before any launch
    return problems


def _check_knobs_one(scenario: Scenario) -> list[Problem]:
    problems: list[Problem | None] = []
    versions = {name: spec.version for name, spec in scenario.engines.items()}
    for engine, spec in scenario.engines.items():
        if engine not in engine_names():
            hint = nearest(engine, engine_names())
            problems.append(Problem(f"engines.{engine}",
                                    "unknown engine" + (f"; did you mean '{hint}'?" if hint else "")
                                    + f" (known: {', '.join(engine_names())})"))
            continue
        for key, value in scenario.defaults.items():
            problems.append(_check_flag(engine, key, f"defaults.{key}", versions)
                            or _check_value(engine, key, value, f"defaults.{key}"))
        for key, value in spec.args.items():
            where = f"engines.{engine}.args.{key}"
            problems.append(_check_flag(engine, key, where, versions) or _check_value(engine, key, value, where))
        swept: dict[str, str] = {}
        groups = [("sweep", spec.sweep)] + [(f"zip[{i}]", group) for i, group in enumerate(spec.zip)]
        for section, lists in groups:
            lengths = {len(v) for v in lists.values()}
            if section != "sweep" and len(lengths) > 1:
                sizes = ", ".join(f"{k}={len(v)}" for k, v in lists.items())
                problems.append(Problem(f"engines.{engine}.{section}", f"zipped lists differ in length ({sizes})"))
            for key, values in lists.items():
                where = f"engines.{engine}.{section}.{key}"
                if key in swept:
                    problems.append(Problem(where, f"is swept twice (also in {swept[key]})"))
                swept[key] = section
                if key in spec.args:
                    problems.append(Problem(where, f"is both swept and fixed in engines.{engine}.args"))
                flag_problem = _check_flag(engine, key, where, versions)
                if flag_problem:
                    problems.append(flag_problem)
                    continue
                if not values:
                    problems.append(Problem(where, "empty list: give at least one value (null = engine default)"))
                for i, value in enumerate(values):
                    problems.append(_check_value(engine, key, value, f"{where}[{i}]"))
    return [p for p in problems if p is not None]
