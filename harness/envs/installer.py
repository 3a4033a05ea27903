"""Create a venv and install packages into it, with uv when available, else venv + pip.

Both back ends get the same package sources, read from the host's pip configuration
(index-url, extra-index-url, find-links, including PIP_* variables), so that uv finds what
pip would find (e.g. a CPU torch wheel that lies in a find-links directory). The host's pip
*constraints* are deliberately not applied: they cap the harness's own interpreter, while an
engine env must get exactly the torch the engine pins. Hence PIP_CONFIG_FILE=/dev/null for
every pip call made inside an engine env.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.childproc import child_environ
from harness.envs.redact import redact_text
from harness.errors import EXIT_HARNESS, HarnessError, InputError

log = logging.getLogger(__name__)

PYPI_SIMPLE = "https://pypi.org/simple"
INSTALLER_ENV_VAR = "KV_HARNESS_INSTALLER"  # "uv" or "pip": force a back end


@dataclass(frozen=True)
class Sources:
    index_url: str = PYPI_SIMPLE
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()

    def pip_args(self) -> list[str]:
        args = ["--index-url", self.index_url]
        for url in self.extra_index_urls:
            args += ["--extra-index-url", url]
        for link in self.find_links:
            args += ["--find-links", link]
        return args

    def uv_args(self) -> list[str]:
        args = self.pip_args()
        if self.extra_index_urls:
            # pip picks the best version across all indexes; uv's default stops at the first index
            # that has the package, which would let a partial local mirror shadow PyPI.
            args += ["--index-strategy", "unsafe-best-match"]
        return args

    def remote_indexes(self) -> list[str]:
        return [u for u in (self.index_url, *self.extra_index_urls) if u.startswith(("http://", "https://"))]


def parse_pip_config(text: str) -> Sources:
    """Sources from `pip config list` output (`global.find-links='/opt/wheels'`, `:env:.index-url=...`)."""
    values: dict[str, list[str]] = {"index-url": [], "extra-index-url": [], "find-links": []}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if not sep:
            continue
        section, _, name = key.strip().rpartition(".")
        if name not in values or section not in ("global", "install", "download", ":env:"):
            continue
        value = raw.strip().strip("'\"")
        for item in value.split():
            if item not in values[name]:
                values[name].append(item)
    index = values["index-url"][-1] if values["index-url"] else PYPI_SIMPLE
    return Sources(index_url=index, extra_index_urls=tuple(values["extra-index-url"]),
                   find_links=tuple(values["find-links"]))


def host_sources() -> Sources:
    """The package sources the host's pip is configured with."""
    try:
        out = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                             timeout=60, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    return parse_pip_config(out)


def check_network(sources: Sources, project: str, timeout_s: float = 15.0) -> None:
    """Fail fast, in one line, when the package registry cannot be reached at all."""
    urls = sources.remote_indexes()
    if not urls:
        return  # local indexes only: nothing to reach
    errors = []
    for base in urls:
        url = f"{base.rstrip('/')}/{project}/"
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout_s):
                return
        except urllib.error.HTTPError:
            return  # the server answered (404 = no such project there): the network is fine
        except (urllib.error.URLError, OSError) as exc:
            errors.append(f"{url} ({getattr(exc, 'reason', exc)})")
    raise HarnessError(f"no network: cannot reach the package registry at {'; '.join(errors)}",
                       exit_code=EXIT_HARNESS)


# --- error messages -----------------------------------------------------------------------------

_PIP_NOT_FOUND = re.compile(r"(Could not find a version that satisfies the requirement .*)")
_UV_NOT_FOUND = re.compile(r"(Because (?:there is no version of|.* was not found in the package registry).*)")
_NET_HINTS = ("Failed to fetch", "Failed to establish a new connection", "Temporary failure in name resolution",
              "Network is unreachable", "Connection refused", "dns error", "error sending request")


def _shorten_versions(line: str, keep: int = 6) -> str:
    """pip lists every release it found; the newest few say enough."""
    m = re.search(r"\(from versions: ([^)]*)\)", line)
    if not m:
        return line
    versions = [v.strip() for v in m.group(1).split(",") if v.strip()]
    if len(versions) <= keep:
        return line
    short = f"(from versions: ..., {', '.join(versions[-keep:])})"
    return line[: m.start()] + short + line[m.end():]


def summarize_failure(output: str) -> tuple[str, bool]:
    """(the one line that says why an install failed, whether it names a missing version)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", output)
    m = _PIP_NOT_FOUND.search(text)
    if m:
        line = m.group(1).strip()
        if line.endswith("(from versions: none)") and any(h in text for h in _NET_HINTS):
            hint = next(ln for ln in text.splitlines() if any(h in ln for h in _NET_HINTS))
            return f"no network: {hint.strip()}", False
        return _shorten_versions(line), True
    # uv wraps long messages over several lines behind "╰─▶"; join them before matching.
    joined = re.sub(r"\s*\n\s*", " ", text)
    m = _UV_NOT_FOUND.search(joined)
    if m:
        line = m.group(1)
        line = line.split(" And because", 1)[0].split(" hint:", 1)[0]
        return line.strip(), True
    for hint in _NET_HINTS:
        if hint in text:
            line = next(ln for ln in text.splitlines() if hint in ln)
            return "no network: " + re.sub(r"^(cause|error):\s*", "", line.strip()), False
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if ln.lower().startswith(("error", "×", "x "))]
    return ((errs or lines or ["no output"])[-1])[:500], False


# --- back ends ------------------------------------------------------------------------------------

Runner = Callable[[Sequence[str], dict[str, str | None] | None, Path], None]

# pip inside an engine env: the sources come as flags (Sources, already read from the host's
# config and PIP_* variables), nothing else; a value of None removes the variable.
PIP_ENV: dict[str, str | None] = {"PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": None, "PIP_INDEX_URL": None,
                                  "PIP_EXTRA_INDEX_URL": None, "PIP_CONSTRAINT": None, "PIP_NO_INDEX": None}


def run_logged(argv: Sequence[str], env: dict[str, str | None] | None, log_path: Path) -> None:
    """Run one step, appending its output to the install log; a failure raises with the key line."""
    full_env = child_environ()
    for key, value in (env or {}).items():
        if value is None:
            full_env.pop(key, None)
        else:
            full_env[key] = value
    log.debug("running %s", " ".join(argv))
    with open(log_path, "a") as fh:
        fh.write(f"$ {redact_text(' '.join(argv))}\n")  # an index URL may hold user:password
        fh.flush()
        start = fh.tell()
        # Straight into the log (not a pipe), so `tail -f` on it shows a long install as it goes.
        proc = subprocess.run(list(argv), env=full_env, stdout=fh, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        with open(log_path, errors="replace") as fh:
            fh.seek(start)
            output = fh.read()
        line, missing = summarize_failure(output)
        line = redact_text(line)
        if missing:
            raise InputError(line)
        raise HarnessError(f"{Path(argv[0]).name} failed: {line} (full log: {log_path})", exit_code=EXIT_HARNESS)


@dataclass
class Installer:
    """One back end. `kind` is "uv" or "pip"; `uv` is the uv executable when kind == "uv"."""

    kind: str
    sources: Sources
    uv: str | None = None
    run: Runner = field(default=run_logged)
    # --resolved-at: resolve as the index stood at this date or time (uv's --exclude-newer); None: as it stands now
    exclude_newer: str | None = None

    def describe(self) -> str:
        if self.kind == "uv":
            out = subprocess.run([self.uv, "--version"], capture_output=True, text=True, check=False).stdout
            return out.strip() or "uv"
        return "venv + pip"

    def create(self, env_dir: Path, base_python: str, log_path: Path, relocatable: bool = False) -> None:
        """A new venv; `relocatable` (uv only): one that still works once moved (relative activation scripts and
        entry points), so that a locked env is built beside its place and moved into it whole."""
        if self.kind == "uv":
            self.run([self.uv, "venv", "--quiet", *(["--relocatable"] if relocatable else []), "--python",
                      base_python, str(env_dir)], None, log_path)
        else:
            self.run([base_python, "-m", "venv", str(env_dir)], None, log_path)

    def install(self, python: Path, args: Sequence[str], log_path: Path) -> None:
        if self.kind == "uv":
            newer = ["--exclude-newer", self.exclude_newer] if self.exclude_newer else []
            argv = [self.uv, "pip", "install", "--python", str(python), *self.sources.uv_args(), *newer, *args]
            self.run(argv, {"UV_NO_PROGRESS": "1"}, log_path)
        else:
            argv = [str(python), "-m", "pip", "install", "--progress-bar", "off", *self.sources.pip_args(), *args]
            self.run(argv, PIP_ENV, log_path)

    def uninstall(self, python: Path, names: Sequence[str], log_path: Path) -> None:
        if self.kind == "uv":
            self.run([self.uv, "pip", "uninstall", "--python", str(python), *names], None, log_path)
        else:
            self.run([str(python), "-m", "pip", "uninstall", "-y", *names], PIP_ENV, log_path)


def find_uv() -> str | None:
    # Beside the harness's interpreter first: `.venv/bin/python -m harness` is often run without activation.
    local = Path(sys.executable).parent / "uv"
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which("uv")


def choose_installer(kind: str | None = None, sources: Sources | None = None) -> Installer:
    """uv when found (much faster), else venv + pip; `kind` or $KV_HARNESS_INSTALLER forces one."""
    kind = (kind or os.environ.get(INSTALLER_ENV_VAR) or "").strip().lower() or None
    if kind not in (None, "uv", "pip"):
        raise InputError(f"installer {kind!r}: expected uv or pip")
    sources = sources if sources is not None else host_sources()
    uv = find_uv() if kind in (None, "uv") else None
    if kind == "uv" and not uv:
        raise InputError("installer uv requested but no uv executable found (pip install uv)")
    return Installer(kind="uv", sources=sources, uv=uv) if uv else Installer(kind="pip", sources=sources)


def download_wheel(requirement: str, dest: Path, python_version: str, sources: Sources, log_path: Path,
                   run: Runner = run_logged, ignore_requires_python: bool = False) -> Path:
    """Fetch the engine's own wheel (no dependencies) with the host's pip.

    This is the step that tells whether the registry has the version at all, with the registry's
    own message, before anything large is downloaded. `ignore_requires_python`: fetch it whatever Pythons
    it accepts (its Requires-Python then chooses the env's interpreter).
    """
    dest.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off",
            "--python-version", python_version, "--timeout", "60", "--retries", "2",
            *(["--ignore-requires-python"] if ignore_requires_python else []),
            "--dest", str(dest), *sources.pip_args(), requirement]
    run(argv, PIP_ENV, log_path)
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise HarnessError(f"pip download {requirement}: expected one wheel in {dest}, found {len(wheels)}",
                           exit_code=EXIT_HARNESS)
    return wheels[0]
