"""Where each pinned package comes from, as uv says it: `uv pip compile --no-deps --emit-index-annotation` over
the env's pins annotates each with the index (or find-links folder) it is taken from ("    # from file:///opt/wheels").

No installer records this in the env (a wheel from an index leaves no direct_url.json), so it is asked once,
when the lock is made; a failure (no uv, no network) leaves the sources "index" and costs nothing else.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from packaging.utils import canonicalize_name

from harness.envs.installer import Installer
from harness.envs.redact import redact_url

# argv -> stdout ("" on failure); tests pass their own.
Compile = Callable[[Sequence[str]], str]

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==\S+")
_FROM = re.compile(r"^\s+# from (\S+)")


def _run(argv: Sequence[str]) -> str:
    try:
        proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=300, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return proc.stdout if proc.returncode == 0 else ""


def parse_annotations(text: str) -> dict[str, str]:
    """{canonical name: the index its annotation names} from uv's compiled requirements."""
    out: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        pin = _PIN.match(line)
        if pin:
            current = canonicalize_name(pin.group(1))
            continue
        where = _FROM.match(line)
        if where and current:
            out[current] = redact_url(where.group(1))
    return out


def index_sources(pins: Sequence[str], python_minor: str, installer: Installer, run: Compile = _run) -> dict[str, str]:
    """The index uv takes each of `pins` (name==version) from, for `python_minor`; {} without uv."""
    if installer.kind != "uv" or not installer.uv or not pins:
        return {}
    with tempfile.TemporaryDirectory(prefix="kv-harness-lock-") as tmp:
        req = Path(tmp) / "pins.txt"
        req.write_text("\n".join(pins) + "\n")
        argv = [installer.uv, "pip", "compile", "--quiet", "--no-deps", "--emit-index-annotation", "--no-header",
                "--python-version", python_minor, *installer.sources.uv_args(), str(req)]
        return parse_annotations(run(argv))
