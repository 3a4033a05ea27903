"""The interpreter an engine env is made from: one that the release's wheel accepts (its Requires-Python).

The harness's own base interpreter when the wheel accepts it; else the oldest accepted one found on this
host: `python3.N` on PATH, uv's managed Pythons, pyenv's versions. A host with none gets one line naming
the wheel's Requires-Python and how to get an interpreter, instead of the installer's "Could not find a
version that satisfies the requirement" (pip hides why: the release is there, for other Pythons).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from harness.errors import InputError

MINORS = range(9, 16)  # python3.9 ... python3.15 on PATH


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: Version

    @property
    def minor(self) -> str:
        return f"{self.version.major}.{self.version.minor}"


def wheel_requires_python(wheel: Path) -> SpecifierSet | None:
    """The Requires-Python of a wheel's METADATA, None when it states none (or an unreadable one)."""
    with zipfile.ZipFile(wheel) as zf:
        name = next((n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")), None)
        text = zf.read(name).decode("utf-8", "replace") if name else ""
    for line in text.splitlines():
        if not line.strip():
            break  # the headers end at the first blank line; the description follows
        key, _, value = line.partition(":")
        if key.strip().lower() == "requires-python":
            try:
                return SpecifierSet(value.strip())
            except InvalidSpecifier:
                return None
    return None


def interpreter_at(path: str) -> Interpreter | None:
    """The interpreter at `path` as it reports itself; None when it does not run (a pyenv shim for a
    version pyenv has not selected exits 127)."""
    try:
        proc = subprocess.run([path, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], check=False,
                              capture_output=True, text=True, timeout=30)
        return Interpreter(path, Version(proc.stdout.strip())) if proc.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, InvalidVersion):
        return None


def host_interpreters(search_path: str | None = None, home: Path | None = None) -> list[Interpreter]:
    """Every Python 3 interpreter found on this host that runs, one per version."""
    home = Path.home() if home is None else home
    paths = [shutil.which(f"python3.{minor}", path=search_path) for minor in MINORS]
    for pattern in (".local/share/uv/python/cpython-3.*/bin/python3", ".pyenv/versions/3.*/bin/python3"):
        paths += [str(p) for p in sorted(home.glob(pattern))]
    found: dict[Version, Interpreter] = {}
    for path in dict.fromkeys(p for p in paths if p and os.access(p, os.X_OK)):
        interpreter = interpreter_at(path)
        if interpreter is not None:
            found.setdefault(interpreter.version, interpreter)
    return sorted(found.values(), key=lambda i: i.version)


def interpreter_for(requirement: str, requires: SpecifierSet | None, base_python: str,
                    candidates=None) -> Interpreter:
    """The interpreter to make `requirement`'s env from: `base_python` when the wheel accepts it, else the
    oldest accepted one on this host; an InputError in one line when there is none."""
    base = interpreter_at(base_python)
    if base is None:
        raise InputError(f"{base_python}: not a working Python interpreter (to make the {requirement} env from)")
    if requires is None or requires.contains(base.version, prereleases=True):
        return base
    accepted = [i for i in (candidates or host_interpreters)() if requires.contains(i.version, prereleases=True)]
    if accepted:
        return accepted[0]
    lowest = next((s.version for s in requires if s.operator in (">=", "~=", "==")), None)
    get = f"python{lowest}" if lowest else "one"
    raise InputError(f"{requirement} needs Python {requires} (its wheel's Requires-Python); {base_python} is "
                     f"{base.version} and no accepted Python was found on this host (python3.N on PATH, uv's, "
                     f"pyenv's): install {get} (apt install {get}, or uv python install {lowest or '3.12'}) and "
                     "run again")
