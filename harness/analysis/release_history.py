"""One results file holding several releases of an engine: its releases in order, and neighbouring-release
comparisons."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pandas as pd

from harness.analysis.compare import (
    DEFAULT_PROBE_TOLERANCE_PCT,
    DEFAULT_TOLERANCE_PCT,
    Comparison,
    Threshold,
    compare_results,
)
from harness.engines.releases import version_key
from harness.results.io import release_key


@dataclass
class ReleaseStep:
    """One engine's step from a release to the next one in the file, and what changed."""

    engine: str
    before: str
    after: str
    comparison: Comparison


def releases_in(frame: pd.DataFrame) -> dict[str, list[str]]:
    """Each engine's releases in the file, oldest first (pip's order)."""
    out: dict[str, list[str]] = {}
    for engine, rows in frame.groupby("engine", sort=True):
        found = {release_key(v) for v in rows["engine_version"]} - {""}
        out[str(engine)] = sorted(found, key=version_key)
    return out


def has_release_axis(frame: pd.DataFrame) -> bool:
    return any(len(v) > 1 for v in releases_in(frame).values())


def rows_of(frame: pd.DataFrame, engine: str, release: str) -> pd.DataFrame:
    keys = frame["engine_version"].map(release_key)
    return frame[(frame["engine"] == engine) & (keys == release)]


def release_steps(frame: pd.DataFrame, name: str, tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
                  thresholds: list[Threshold] = (),
                  probe_tolerance_pct: float = DEFAULT_PROBE_TOLERANCE_PCT) -> list[ReleaseStep]:
    """Every engine's neighbouring releases compared point by point (same point_id on both)."""
    steps = []
    for engine, releases in releases_in(frame).items():
        for before, after in itertools.pairwise(releases):
            comparison = compare_results(rows_of(frame, engine, before), rows_of(frame, engine, after),
                                         tolerance_pct, thresholds, base_name=f"{name} [{engine} {before}]",
                                         new_name=f"{name} [{engine} {after}]",
                                         probe_tolerance_pct=probe_tolerance_pct)
            steps.append(ReleaseStep(engine, before, after, comparison))
    return steps

