"""Which releases the package index has (asked through pip, cached under the harness cache, injectable),
and what a command says when a release is not there or has no build for this host."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from harness.cache_dir import default_cache_dir
from harness.engines import get_engine
from harness.engines.releases import ReleaseNote, base_version, newest

# distribution -> its versions on the package index, or None when the index could not be asked.
IndexLookup = Callable[[str], "list[str] | None"]

# How long a cached index answer is trusted before the index is asked again.
INDEX_CACHE_TTL_S = 24 * 3600

_VERSIONS_LINE = re.compile(r"^Available versions:\s*(.+)$", re.MULTILINE)


def pip_index_versions(distribution: str, timeout_s: float = 60) -> list[str] | None:
    """Versions of `distribution` on the host's configured indexes (`pip index versions`), None on failure."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", distribution], check=False,
                             capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = _VERSIONS_LINE.search(out.stdout)
    if out.returncode != 0 or not match:
        return None
    return [v.strip() for v in match.group(1).split(",") if v.strip()]


def _cache_file(distribution: str) -> Path:
    return default_cache_dir() / "index" / f"{distribution}.json"


def cached_lookup(lookup: IndexLookup, ttl_s: float = INDEX_CACHE_TTL_S) -> IndexLookup:
    """`lookup` with its answers kept in memory and under `<cache>/index/` for `ttl_s`."""
    memo: dict[str, list[str] | None] = {}

    def ask(distribution: str) -> list[str] | None:
        if distribution in memo:
            return memo[distribution]
        path = _cache_file(distribution)
        try:
            data = json.loads(path.read_text())
            if time.time() - data["asked_at"] < ttl_s:
                memo[distribution] = data["versions"]
                return data["versions"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        versions = lookup(distribution)
        memo[distribution] = versions
        if versions is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps({"asked_at": time.time(), "versions": versions}))
                tmp.replace(path)
            except OSError:
                pass  # a read-only cache only costs a second lookup
        return versions

    return ask


_lookup: IndexLookup = cached_lookup(pip_index_versions)


def set_index_lookup(lookup: IndexLookup) -> IndexLookup:
    """Replace how the index is asked (tests pass a dict's .get); returns the previous lookup."""
    global _lookup
    previous, _lookup = _lookup, lookup
    return previous


# Set to 1 to never ask the index (releases without bundled data are then not checked).
OFFLINE_ENV_VAR = "KV_HARNESS_OFFLINE"


def index_versions(distribution: str) -> list[str] | None:
    """The releases of `distribution` on the package index (None: the index could not be asked)."""
    if os.environ.get(OFFLINE_ENV_VAR) == "1":
        return None
    return _lookup(distribution)


def index_note(engine: str, version: str) -> ReleaseNote | None:
    """An error when the release is not on the package index; a warning when the index cannot be asked."""
    eng = get_engine(engine)
    if base_version(version) in eng.known_releases() or eng.installation is None:
        return None
    name = eng.installation.index_name()
    found = index_versions(name)
    if found is None:
        return ReleaseNote("warning",
                           f"{engine} {version}: could not ask the package index whether {name} {version} exists")
    if base_version(version) in {base_version(v) for v in found}:
        return None
    latest = newest(found)
    return ReleaseNote("error", f"{engine} {version} is not a release of {name} on the package index"
                                + (f" (newest: {latest})" if latest else ""))


def release_note(engine: str, version: str, host_has_gpu: bool) -> str | None:
    """One line when this host cannot run the release at all (no build for it here), else None."""
    install = get_engine(engine).installation
    cpu_distribution = install.cpu_distribution if install else None
    if host_has_gpu or cpu_distribution is None:
        return None
    found = index_versions(cpu_distribution)
    if found is None or base_version(version) in {base_version(v) for v in found}:
        return None
    return (f"{engine} {version}: no {cpu_distribution} build of this release (newest "
            f"{cpu_distribution}: {newest(found) or 'none'}); {engine} {version} needs a GPU host")


def release_notes(engine: str, version: str | None, *, predicting: bool = False,
                  host_has_gpu: bool | None = None) -> list[ReleaseNote]:
    """Everything to say about the release a scenario asks for, errors first.

    The index is asked only for releases without bundled data; `host_has_gpu=False` adds the
    no-build line; `predicting` adds the predictor's range.
    """
    if not version:
        return []
    notes = [n for n in [index_note(engine, version)] if n is not None]
    if host_has_gpu is not None:
        line = release_note(engine, version, host_has_gpu)
        if line:
            notes.append(ReleaseNote("error", line))
    notes += get_engine(engine).offline_release_notes(version, predicting=predicting)
    return sorted(notes, key=lambda n: not n.is_error)
