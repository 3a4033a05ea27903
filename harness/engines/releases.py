"""Engine releases: ordering, release ranges, and which releases the package index has (cached, injectable)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from harness.cache_dir import default_cache_dir

# distribution -> its versions on the package index, or None when the index could not be asked.
IndexLookup = Callable[[str], "list[str] | None"]

# How long a cached index answer is trusted before the index is asked again.
INDEX_CACHE_TTL_S = 24 * 3600


def version_key(version: str) -> Version:
    """Release order as pip sees it (0.10.1.1 > 0.10.1 > 0.9.2; 0.5.15.post1 > 0.5.15); local `+cpu` ignored."""
    try:
        return Version(version.split("+", 1)[0])
    except InvalidVersion:
        return Version("0")


def base_version(version: str) -> str:
    return version.split("+", 1)[0]


def newest(versions: Iterable[str]) -> str | None:
    ordered = sorted(versions, key=version_key)
    return ordered[-1] if ordered else None


@dataclass(frozen=True)
class ReleaseRange:
    """Releases from `first` (inclusive) up to `before` (exclusive); None = open on that side."""

    first: str | None = None
    before: str | None = None

    def __contains__(self, version: str) -> bool:
        key = version_key(version)
        if self.first is not None and key < version_key(self.first):
            return False
        return self.before is None or key < version_key(self.before)

    def describe(self) -> str:
        if self.first and self.before:
            return f"{self.first} up to {self.before} (excluded)"
        if self.first:
            return f"{self.first} and later"
        if self.before:
            return f"before {self.before}"
        return "every release"


@dataclass(frozen=True)
class ReleaseNote:
    """What a command should tell about the release a scenario asks for: a warning or an error."""

    level: str  # "warning" | "error"
    text: str

    @property
    def is_error(self) -> bool:
        return self.level == "error"


# ---- the package index ---------------------------------------------------------------------------

_VERSIONS_LINE = re.compile(r"^Available versions:\s*(.+)$", re.MULTILINE)


def pip_index_versions(distribution: str, timeout_s: float = 60) -> list[str] | None:
    """Versions of `distribution` on the host's configured indexes (`pip index versions`), None on failure."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", distribution],
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
