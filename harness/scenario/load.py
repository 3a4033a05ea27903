"""Reading a scenario file: YAML text -> validated `Scenario`, every problem as one located line."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.errors import InputError
from harness.scenario.checks import check_knobs
from harness.scenario.problems import Problem, ScenarioError
from harness.scenario.schema import Scenario, pydantic_problems
from harness.scenario.sweep import duplicate_problems, probe_problems

# A scenario is a page of YAML; anything near these limits is a mistake or an attack,
# and both would otherwise cost all the memory the machine has.
MAX_SCENARIO_BYTES = 1 << 20
MAX_YAML_NODES = 200_000  # nodes after expanding aliases (an alias bomb is tiny text, huge data)


class _BoundedLoader(yaml.SafeLoader):
    """safe_load that refuses duplicate keys and alias expansion past MAX_YAML_NODES."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen: dict[Any, Any] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    continue  # unhashable key: the base constructor reports it
                if first is not key_node:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r} (first at line {first.start_mark.line + 1}); "
                                    "YAML would keep only the last one", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node, memo: dict[int, int]) -> int:
    """Node count with every alias expanded, computed without expanding (memoised per node)."""
    known = memo.get(id(node))
    if known is not None:
        return known
    memo[id(node)] = MAX_YAML_NODES + 1  # a cycle (recursive alias) counts as too big
    if isinstance(node, yaml.MappingNode):
        size = 1 + sum(_expanded_size(k, memo) + _expanded_size(v, memo) for k, v in node.value)
    elif isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded_size(v, memo) for v in node.value)
    else:
        size = 1
    memo[id(node)] = min(size, MAX_YAML_NODES + 1)
    return memo[id(node)]


def _read_bounded(path: Path) -> str:
    def fail(message: str):
        return ScenarioError(path, [Problem("", message)])

    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise fail("no such file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise fail("cannot read: symbolic link loop") from None
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise fail("cannot read: is a directory, expected a scenario YAML file") from None
    if not stat.S_ISREG(info.st_mode):
        # A FIFO would block and /dev/zero never ends: only regular files are scenarios.
        raise fail("cannot read: not a regular file (a pipe, device or socket); give a scenario YAML file")
    if info.st_size > MAX_SCENARIO_BYTES:
        raise fail(f"cannot read: {info.st_size:,} bytes, a scenario is at most {MAX_SCENARIO_BYTES:,}")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_SCENARIO_BYTES + 1)  # the file may grow between stat and read
    except OSError as exc:
        raise fail(f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise fail(f"cannot read: more than {MAX_SCENARIO_BYTES:,} bytes, a scenario is at most that")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"cannot read: not UTF-8 text (byte {exc.start})") from None


def _yaml_problem(exc: yaml.YAMLError) -> Problem:
    mark = getattr(exc, "problem_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return Problem(where, f"YAML syntax error: {problem}" if not problem.startswith("duplicate key") else problem)


def parse_yaml_text(text: str, path: str | Path = "<scenario>") -> Any:
    loader = _BoundedLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _expanded_size(node, {}) > MAX_YAML_NODES:
            raise ScenarioError(path, [Problem("", f"YAML expands to more than {MAX_YAML_NODES:,} nodes "
                                                   "(aliases repeated or recursive); write the scenario out")])
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise ScenarioError(path, [_yaml_problem(exc)]) from None
    except RecursionError:
        raise ScenarioError(path, [Problem("", "YAML nested too deeply")]) from None
    finally:
        loader.dispose()


def read_yaml(path: str | Path) -> Any:
    path = Path(path)
    return parse_yaml_text(_read_bounded(path), path)


def parse_scenario(data: Any, path: str | Path = "<scenario>") -> Scenario:
    """Validate already-loaded YAML data; raises ScenarioError listing every problem."""
    if not isinstance(data, dict):
        raise ScenarioError(path, [Problem("", "must be a YAML mapping with name, model, engines; "
                                               f"got {type(data).__name__}")])
    if "gpu" in data and data["gpu"] is None:
        data = {k: v for k, v in data.items() if k != "gpu"}  # `gpu: null`: no GPU size to compare with (CPU)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(path, pydantic_problems(exc)) from None
    problems = check_knobs(scenario) or duplicate_problems(scenario) or probe_problems(scenario)
    if problems:
        raise ScenarioError(path, problems)
    return scenario


def load_scenario_with_releases(path: str | Path, engine_versions: dict[str, str] | None = None) -> Scenario:
    """Load a scenario as if it named these engine releases (`--engine-version`): every check,
    flags and releases included, is made against the release that will run."""
    data = read_yaml(path)
    engines = data.get("engines") if isinstance(data, dict) else None
    for engine, version in (engine_versions or {}).items():
        if not isinstance(engines, dict) or engine not in engines:
            raise InputError(f"--engine-version {engine}=={version}: no engine {engine!r} in {path}")
        if not isinstance(engines[engine], dict):
            engines[engine] = {}
        engines[engine]["version"] = version
    return parse_scenario(data, path)


def load_scenario(path: str | Path) -> Scenario:
    return parse_scenario(read_yaml(path), path)
