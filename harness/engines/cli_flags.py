"""The engines' real CLI flags, read from their own `--help` (never by importing them).

Each engine package bundles one list per release (`flags/<version>.txt`) so `validate`
knows every flag offline; `python -m harness envs flags ENGINE==VERSION --write` reads
them again from an installed environment when a release adds flags.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.atomic import write_text

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


def version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in version.split("."))


def bundled_versions(flags_dir: Path) -> list[str]:
    """Releases with a bundled list, oldest first."""
    return sorted((p.stem for p in flags_dir.glob("*.txt")), key=version_key)


def bundled_list(flags_dir: Path, version: str | None) -> tuple[str | None, frozenset[str]]:
    """(version of the list, flags): that version's list, else the newest bundled one, else nothing."""
    path = bundled_path(flags_dir, version) if version else None
    if path is None or not path.is_file():
        versions = bundled_versions(flags_dir)
        if not versions:
            return None, frozenset()
        path = bundled_path(flags_dir, versions[-1])
    lines = path.read_text().splitlines()
    return path.stem, frozenset(l.strip() for l in lines if l.strip() and not l.startswith("#"))


def write_bundled(flags_dir: Path, engine: str, version: str, flags: frozenset[str]) -> Path:
    path = bundled_path(flags_dir, version)
    write_text(path, f"# {engine} {version}: long options of its server CLI, from its own --help\n"
               + "".join(f"{name}\n" for name in sorted(flags)))
    return path
