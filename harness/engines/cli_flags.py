"""The engines' real CLI flags, read from their own `--help` (never by importing them).

Lists for the target versions are bundled (`flags/<engine>-<version>.txt`) so `validate`
knows every flag offline; `python -m harness envs flags ENGINE==VERSION --write` reads
them again from an installed environment when an engine release adds flags.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

FLAGS_DIR = Path(__file__).resolve().parent / "flags"
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


def bundled_path(engine: str, version: str) -> Path:
    return FLAGS_DIR / f"{engine}-{version.split('+', 1)[0]}.txt"


def _version_key(path: Path) -> tuple:
    return tuple(int(p) if p.isdigit() else 0 for p in path.stem.split("-", 1)[1].split("."))


def bundled_list(engine: str, version: str | None) -> tuple[str | None, frozenset[str]]:
    """(version of the list, flags): that version's list, else the newest bundled one, else nothing."""
    path = bundled_path(engine, version) if version else None
    if path is None or not path.is_file():
        candidates = sorted(FLAGS_DIR.glob(f"{engine}-*.txt"), key=_version_key)
        if not candidates:
            return None, frozenset()
        path = candidates[-1]
    lines = path.read_text().splitlines()
    return path.stem.split("-", 1)[1], frozenset(l.strip() for l in lines if l.strip() and not l.startswith("#"))


def help_argv(engine: str, python: str) -> list[str]:
    from harness.engines import get_adapter

    return get_adapter(engine).help_command(python)


def read_engine_flags(engine: str, python: str, env: dict[str, str], timeout_s: float = 300) -> frozenset[str]:
    """Run the engine's --help from its own interpreter and parse it."""
    proc = subprocess.run(help_argv(engine, python), env=env, capture_output=True, text=True, timeout=timeout_s)
    flags = parse_help(proc.stdout)
    if proc.returncode != 0 or not flags:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{engine} --help failed (exit {proc.returncode}): {tail[0]}")
    return flags


def write_bundled(engine: str, version: str, flags: frozenset[str]) -> Path:
    path = bundled_path(engine, version)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {engine} {version}: long options of its server CLI, from its own --help\n"
                    + "".join(f"{name}\n" for name in sorted(flags)))
    return path
