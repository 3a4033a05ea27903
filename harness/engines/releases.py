"""Engine releases: their order, release ranges, and the notes a command gives about one."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version


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
