"""The versions of an environment's installed distributions, read from its site-packages .dist-info folders (no import,
no subprocess): what each results row records of its engine's key dependencies."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from packaging.utils import canonicalize_name


def site_packages(env_dir: Path) -> list[Path]:
    """The env's site-packages folders (a venv has one; lib64 may be a link to lib)."""
    found = {p.resolve(): p for pattern in ("lib/python*/site-packages", "lib64/python*/site-packages")
             for p in sorted(env_dir.glob(pattern)) if p.is_dir()}
    return list(found.values())


def installed_versions(env_dir: Path, names: tuple[str, ...]) -> dict[str, str]:
    """{name: version} of those of `names` installed in the env at `env_dir`, in the order of `names`.

    From the `.dist-info` folders' names alone, `{name}-{version}.dist-info` as installers write them (the
    binary distribution format's spec: packaging.python.org "Recording installed projects"): one listing of
    site-packages, no file read - every `envs list`, doctor and run asks this of each env, and reading each
    distribution's METADATA took 0.1-0.5 s an env."""
    wanted = {canonicalize_name(n): n for n in names}
    found: dict[str, str] = {}
    for _folder, key, version in dist_info_entries(env_dir):
        if key in wanted and wanted[key] not in found:
            found[wanted[key]] = version
    return {n: found[n] for n in names if n in found}


def dist_info_entries(env_dir: Path) -> Iterator[tuple[Path, str, str]]:
    """(the `.dist-info` folder, its canonical name, its version) of every distribution in the env's site-packages,
    from the folders' names alone (`{name}-{version}.dist-info`, as installers write them)."""
    for folder in site_packages(env_dir):
        for entry in sorted(os.listdir(folder)):
            stem, _, kind = entry.rpartition(".")
            name, dash, version = stem.partition("-")
            if kind == "dist-info" and dash and version:
                yield folder / entry, canonicalize_name(name), version


def versions_text(versions: dict[str, str]) -> str:
    """`name=version` pairs, space-separated: the results column's text ("" when none)."""
    return " ".join(f"{name}={version}" for name, version in versions.items())


def parse_versions_text(text: str | None) -> dict[str, str]:
    """The inverse of versions_text (a cell that is empty or missing: {})."""
    if not isinstance(text, str):
        return {}
    pairs = (word.partition("=") for word in text.split())
    return {name: version for name, _, version in pairs if name and version}


def changed_versions(before: str | None, after: str | None) -> list[str]:
    """Each dependency whose version differs between two cells, as "name a -> b" ("-" where absent)."""
    was, now = parse_versions_text(before), parse_versions_text(after)
    return [f"{name} {was.get(name, '-')} -> {now.get(name, '-')}" for name in dict.fromkeys([*was, *now])
            if was.get(name) != now.get(name)]
