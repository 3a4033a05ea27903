"""Arguments several commands share, defined once: --json, --tolerance-pct, engine releases and their warnings."""

from __future__ import annotations

import argparse
import logging

from harness.envs import parse_spec
from harness.errors import InputError

log = logging.getLogger(__name__)


def add_json(parser: argparse.ArgumentParser, what: str = "print JSON instead of a table") -> None:
    parser.add_argument("--json", action="store_true", help=what)


def add_tolerance(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    parser.add_argument("--tolerance-pct", type=float, default=default, metavar="PCT", help=what)


def warn_releases(path: str, scenario, *, predicting: bool = False) -> list[str]:
    """Print (stderr) what is said about the releases the scenario asks for; returns the lines."""
    import sys

    from harness.scenario.checks import release_notes

    lines = [f"warning: {p.render(path)}" for p in release_notes(scenario, predicting=predicting)[1]]
    for line in lines:
        print(line, file=sys.stderr)
    return lines


def example_releases() -> list[str]:
    """`ENGINE==VERSION` of every registered engine's newest bundled flag list: real examples for --help."""
    from harness.engines import engine_names, get_engine

    out = []
    for name in engine_names():
        version = get_engine(name).flag_list_version(None)
        out.append(f"{name}=={version or 'VERSION'}")
    return out


def engine_release(text: str) -> tuple[str, str]:
    """`ENGINE==VERSION` -> (engine, version). The old `ENGINE=VERSION` is read too, with a note."""
    item = text.strip()
    if "==" not in item and item.count("=") == 1:
        engine, _, version = item.partition("=")
        log.warning("--engine-version %s: write it %s==%s (one spelling for every engine release option)",
                    item, engine, version)
        item = f"{engine}=={version}"
    engine, version = parse_spec(item)
    if version is None:
        raise InputError(f"--engine-version {text!r}: expected ENGINE==VERSION, e.g. {engine}==0.31.0")
    return engine, version


def engine_versions(items: list[str] | None) -> dict[str, str]:
    return dict(engine_release(item) for item in items or [])
