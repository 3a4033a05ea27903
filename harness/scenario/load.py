"""Reading a scenario file: YAML text -> validated `Scenario`, every problem as one located line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.scenario.checks import check_knobs
from harness.scenario.problems import Problem, ScenarioError
from harness.scenario.schema import Scenario, pydantic_problems
from harness.scenario.sweep import duplicate_problems


def read_yaml(path: str | Path) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(path, [Problem("", "no such file")]) from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise ScenarioError(path, [Problem("", f"cannot read: {exc.__class__.__name__}: {exc}")]) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(path, [Problem(where, f"YAML syntax error: {problem}")]) from None


def parse_scenario(data: Any, path: str | Path = "<scenario>") -> Scenario:
    """Validate already-loaded YAML data; raises ScenarioError listing every problem."""
    if not isinstance(data, dict):
        raise ScenarioError(path, [Problem("", f"must be a YAML mapping with name, model, engines; got {type(data).__name__}")])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(path, pydantic_problems(exc)) from None
    problems = check_knobs(scenario) or duplicate_problems(scenario)
    if problems:
        raise ScenarioError(path, problems)
    return scenario


def load_scenario(path: str | Path) -> Scenario:
    return parse_scenario(read_yaml(path), path)
