"""Arguments several commands share, defined once: --json, --tolerance-pct, engine releases and their warnings."""

from __future__ import annotations

import argparse
import logging
import sys

from harness.engines import engine_names, get_engine
from harness.errors import InputError

# harness.envs and harness.scenario (pydantic, yaml) are imported where they are used: `parse` takes only --json from
# here, and its memory is held to benchmarks/parse_speed.py's bound

log = logging.getLogger(__name__)


def add_json(parser: argparse.ArgumentParser, what: str = "print JSON instead of a table") -> None:
    parser.add_argument("--json", action="store_true", help=what)


def add_tolerance(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    parser.add_argument("--tolerance-pct", type=float, default=default, metavar="PCT", help=what)


def warn_releases(path: str, scenario, *, predicting: bool = False) -> list[str]:
    """Print (stderr) what is said about the releases the scenario asks for; returns the lines."""
    from harness.scenario.checks import release_notes  # lazy: pydantic and yaml stay out of `parse` (see above)

    lines = [f"warning: {p.render(path)}" for p in release_notes(scenario, predicting=predicting)[1]]
    for line in lines:
        print(line, file=sys.stderr)
    return lines


def example_releases() -> list[str]:
    """`ENGINE==VERSION` of every registered engine's newest bundled flag list: real examples for --help."""
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
    from harness.envs import parse_spec  # lazy: pydantic stays out of `parse` (see above)

    engine, version = parse_spec(item)
    if version is None:
        raise InputError(f"--engine-version {text!r}: expected ENGINE==VERSION, e.g. {engine}==0.31.0")
    return engine, version


def engine_versions(items: list[str] | None) -> dict[str, str | list[str]]:
    """Each engine's release, or its releases in order for `ENGINE==A,B,C` (the release as a sweep axis)."""
    out: dict[str, str | list[str]] = {}
    for item in items or []:
        first, *rest = item.split(",")
        engine, version = engine_release(first)
        releases = [version]
        for more in rest:
            if not more.strip():
                raise InputError(f"--engine-version {item!r}: an empty release in the list; write ENGINE==A,B,C")
            releases.append(engine_release(f"{engine}=={more.strip()}")[1])
        if len(set(releases)) < len(releases):
            raise InputError(f"--engine-version {item!r}: a release is listed twice")
        out[engine] = releases if len(releases) > 1 else releases[0]
    return out
