"""`validate FILE...`: check scenarios; one line per problem, exit 1 if any."""

from __future__ import annotations

import argparse
import sys

from harness.errors import EXIT_FINDING
from harness.scenario import Problem, ScenarioError, load_scenario


def validate_files(paths: list[str]) -> dict[str, list[Problem]]:
    """Problems per file (an empty list = valid)."""
    results = {}
    for path in paths:
        try:
            load_scenario(path)
            results[path] = []
        except ScenarioError as exc:
            results[path] = exc.problems
    return results


def _run(args: argparse.Namespace) -> int:
    results = validate_files(args.files)
    for path, problems in results.items():
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
