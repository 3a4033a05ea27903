"""The engines' real CLI flags, read from their own `--help` (never by importing them).

Each engine package bundles one list per release (`flags/<version>.txt`) so `validate`
knows every flag offline; `python -m harness envs flags ENGINE==VERSION --write` reads
them from a release (installed, or its downloaded wheel) when one comes out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.atomic import write_text
from harness.engines.releases import base_version, version_key

_OPTION_LINE = re.compile(r"^\s{2,}(--?\w.*)$")


def parse_help(text: str) -> frozenset[str]:
    """snake_case names of the long options argparse lists in a --help text."""
    names = set()
    for line in text.splitlines():
        match = _OPTION_LINE.match(line)
        if not match:
            continue
        # "--model-path MODEL_PATH, --model MODEL_PATH   description": options end at the first double space
        options = re.split(r"\s{2,}", match.group(1), maxsplit=1)[0]
        for option in options.split(", "):
            flag = option.split(" ", 1)[0]
            if flag.startswith("--") and len(flag) > 2 and not flag.endswith("-"):
                names.add(flag[2:].split("=", 1)[0].replace("-", "_"))
    names.discard("help")
    return frozenset(names)


def bundled_path(flags_dir: Path, version: str) -> Path:
    return flags_dir / f"{version.split('+', 1)[0]}.txt"


def bundled_versions(flags_dir: Path) -> list[str]:
    """Releases with a bundled list, oldest first."""
    return sorted((p.stem for p in flags_dir.glob("*.txt")), key=version_key)


def list_version_for(flags_dir: Path, version: str | None) -> str | None:
    """The bundled list that stands for `version`: its own, else the nearest older one, else the oldest."""
    versions = bundled_versions(flags_dir)
    if not versions:
        return None
    if version is None:
        return versions[-1]
    base = base_version(version)
    if base in versions:
        return base
    older = [v for v in versions if version_key(v) < version_key(base)]
    return older[-1] if older else versions[0]


def bundled_list(flags_dir: Path, version: str | None) -> tuple[str | None, frozenset[str]]:
    """(version of the list, flags): that version's list, else the nearest older bundled one, else the oldest."""
    chosen = list_version_for(flags_dir, version)
    if chosen is None:
        return None, frozenset()
    path = bundled_path(flags_dir, chosen)
    lines = path.read_text().splitlines()
    return path.stem, frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def write_bundled(flags_dir: Path, engine: str, version: str, flags: frozenset[str], source: str = "") -> Path:
    path = bundled_path(flags_dir, version)
    origin = f" ({source})" if source else ""
    write_text(path, f"# {engine} {version}: every long option its server CLI accepts, hidden ones included{origin}\n"
               + "".join(f"{name}\n" for name in sorted(flags)))
    return path


# ---- booleans: one switch, several spellings ---------------------------------------------------------
# Releases spell the off form of `enable_x` as `no_enable_x` (argparse BooleanOptionalAction) or as
# `disable_x` (vLLM 0.33.0 renamed about fifty of them), and the on form of `disable_x` as `no_disable_x`
# or `enable_x`. A switch is (stem, sense): `enable_x`, `no_disable_x` -> ("x", True); `disable_x`,
# `no_enable_x` -> ("x", False); a bare `x` is ("x", True) and `no_x` is ("x", False).

def switch(name: str) -> tuple[str, bool]:
    """(stem, sense) of a flag name read as a boolean switch."""
    sense = True
    if name.startswith("no_"):
        name, sense = name[3:], False
    if name.startswith("enable_"):
        return name[len("enable_"):], sense
    if name.startswith("disable_"):
        return name[len("disable_"):], not sense
    return name, sense


def spellings(name: str, flags: frozenset[str], sense: bool | None = None) -> list[str]:
    """The release's flags that are the same switch as `name` (with `sense`: only those meaning that)."""
    stem, own = switch(name)
    want = own if sense is None else sense
    return sorted(f for f in flags if switch(f) == (stem, want) and f != name)


def negative_form(name: str, flags: frozenset[str]) -> str | None:
    """The flag this release takes for `name: false`, or None when it has no way to say it.

    Preference: the flag argparse pairs with `name` (`no_<name>`), then any other spelling of the
    opposite sense (`disable_x` for `enable_x`).
    """
    if f"no_{name}" in flags:
        return f"no_{name}"
    stem, sense = switch(name)
    others = [f for f in flags if switch(f) == (stem, not sense)]
    return sorted(others, key=len)[0] if others else None


def is_opposite(a: str, b: str) -> bool:
    """Whether two names are the same switch with opposite meanings."""
    (sa, va), (sb, vb) = switch(a), switch(b)
    return sa == sb and va != vb


def switch_value(values: Mapping[str, Any], name: str) -> bool | None:
    """A boolean setting read from any of its spellings: `enable_x: false` and `disable_x: true` both say off.

    `values` maps flag names to typed values (a Settings); None when no spelling is set.
    """
    stem, sense = switch(name)
    found = None
    for key, value in values.items():
        if value is None or not isinstance(value, bool) or switch(key)[0] != stem:
            continue
        found = value if switch(key)[1] == sense else not value
    return found
