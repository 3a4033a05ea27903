"""The lock an env's marker holds: made when the env is built, derived once for an env built before locks
(from what is installed: the env is never reinstalled for it), read by runs for their run.json and rows."""

from __future__ import annotations

import dataclasses
import fcntl
from pathlib import Path

from harness.envs.installer import Installer, choose_installer
from harness.envs.lock import EnvLock, derive_lock
from harness.envs.lock_sources import index_sources
from harness.envs.model import EngineEnv, read_marker, write_marker
from harness.errors import HarnessError

LOCK_KEY = "lock"
DERIVED_LATER = "from the installed env"


def lock_for_new_env(env_dir: Path, marker: dict, installer: Installer, *, resolved_at: str | None = None,
                     derived: str = "at install", drift: tuple[str, ...] = (), name: str | None = None) -> EnvLock:
    """The lock of an env just built: what is installed, with the index uv takes each package from."""
    first = derive_lock(env_dir, marker, derived=derived, resolved_at=resolved_at, drift=drift, name=name)
    sources = index_sources([p.pin for p in first.packages if p.source == "index"], first.python_minor, installer)
    return derive_lock(env_dir, marker, sources=sources, derived=derived, resolved_at=resolved_at, drift=drift,
                       name=name)


def marker_lock(env_dir: Path) -> EnvLock | None:
    """The lock in the env's marker; None for an env without one (built before locks, or not managed)."""
    info = read_marker(env_dir) or {}
    data = info.get(LOCK_KEY)
    return EnvLock.from_dict(data, str(env_dir)) if isinstance(data, dict) else None


def ensure_lock(env: EngineEnv, installer: Installer | None = None) -> EngineEnv:
    """A managed env with its lock (derived now, once, for one built before locks), its digest on the env;
    an interpreter the scenario named is the user's: no lock, as before."""
    if not env.managed or read_marker(env.path) is None:
        return env
    lock = marker_lock(env.path)
    if lock is None:
        lock = _derive_once(env.path, installer)
    return dataclasses.replace(env, lock_digest=lock.digest)


def _derive_once(env_dir: Path, installer: Installer | None) -> EnvLock:
    # under the env's own lock file (the one install and remove hold): two runs derive it once
    with open(env_dir.parent / f".{env_dir.name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            info = read_marker(env_dir)
            if info is None:
                raise HarnessError(f"{env_dir}: its marker went away while its lock was derived")
            if isinstance(info.get(LOCK_KEY), dict):
                return EnvLock.from_dict(info[LOCK_KEY], str(env_dir))
            lock = lock_for_new_env(env_dir, info, installer or _quiet_installer(), derived=DERIVED_LATER)
            write_marker(env_dir, {**info, LOCK_KEY: lock.to_dict()})
            return lock
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _quiet_installer() -> Installer:
    try:
        return choose_installer()
    except HarnessError:
        return choose_installer("pip")  # no uv: the sources stay "index"
