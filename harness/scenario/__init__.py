"""Scenario stage: YAML -> validated `Scenario` -> typed `Point`s (pure; nothing launches here)."""

from harness.engines.settings import Settings
from harness.scenario.load import load_scenario, load_scenario_with_releases, parse_scenario, read_yaml
from harness.scenario.point import Point, point_id, point_name
from harness.scenario.problems import Problem, ScenarioError
from harness.scenario.schema import BUILTIN_PREFIX, EngineSpec, RunSpec, Scenario
from harness.scenario.sweep import expand

__all__ = [
    "BUILTIN_PREFIX", "EngineSpec", "Point", "Problem", "RunSpec", "Scenario", "ScenarioError", "Settings",
    "expand", "load_scenario", "load_scenario_with_releases", "parse_scenario", "point_id", "point_name", "read_yaml",
]
