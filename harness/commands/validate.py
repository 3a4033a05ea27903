"""`validate FILE...`: check scenarios; one line per problem, exit 1 if any."""

from __future__ import annotations

import argparse
import sys

from harness.errors import EXIT_FINDING
from harness.scenario import Problem, ScenarioError, load_scenario
from harness.scenario.checks import release_notes


def validate_files(paths: list[str], warnings: dict[str, list[Problem]] | None = None) -> dict[str, list[Problem]]:
    """Problems per file (an empty list = valid); `warnings` collects what is said about each valid file's releases."""
    results = {}
    for path in paths:
        try:
            scenario = load_scenario(path)
            results[path] = []
            if warnings is not None:
                warnings[path] = release_notes(scenario)[1]
        except ScenarioError as exc:
            results[path] = exc.problems
    return results


def _run(args: argparse.Namespace) -> int:
    warnings: dict[str, list[Problem]] = {}
    results = validate_files(args.files, warnings)
    for path, problems in results.items():
        for warning in warnings.get(path, []):
            print(f"warning: {warning.render(path)}", file=sys.stderr)
        if problems:
            for problem in problems:
                print(problem.render(path), file=sys.stderr)
        else:
            print(f"{path}: ok")
    return EXIT_FINDING if any(results.values()) else 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "validate", help="check scenario files; exit 1 if any is invalid",
        description="Check each scenario's keys, types, engine flags and value ranges before anything launches.",
        epilog="example: python -m harness validate scenarios/*.yaml",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="scenario YAML files")
    parser.set_defaults(func=_run)
