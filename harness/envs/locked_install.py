"""`envs install --lock`: an env rebuilt with exactly the distributions a lock names.

uv's pip interface installs the lock's pins with --no-deps (the set is the lock's, nothing resolved), the
engine adds what no index holds (harness-made dists, the stand-in libcuda: Installation.finish_locked), and the
installed set is read back and compared with the lock. The env is built in a relocatable venv beside its place
and moved into it whole once complete: an install that stops (a version no index has) leaves nothing behind.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from harness import __version__ as harness_version
from harness.clock import utc_now
from harness.engines import get_engine
from harness.envs.bytecode import BYTECODE_KEY, compile_bytecode
from harness.envs.index import index_versions
from harness.envs.installer import Installer, choose_installer
from harness.envs.interpreters import interpreter_for
from harness.envs.lock import HARNESS_SOURCE, INDEX_SOURCE, EnvLock, LockedPackage, diff_locks, installed_packages
from harness.envs.lock_record import DERIVED_LATER, LOCK_KEY, lock_for_new_env, marker_lock
from harness.envs.manage import _base_interpreter, _env_lock, _log_progress, _rmtree, check_disk, dir_size
from harness.envs.model import (
    check_engine,
    env_from_marker,
    env_name,
    env_python,
    envs_dir,
    read_marker,
    runtime_env_vars,
    write_marker,
)
from harness.envs.probe import probe
from harness.envs.recipes import VenvInstallSteps
from harness.errors import EXIT_HARNESS, HarnessError, InputError

Progress = Callable[[str], None]
# (name, version the lock names) -> the version to build instead, or None: what --allow-drift asks
Nearest = Callable[[str, str], "str | None"]

_MISSING = (re.compile(r"no version of ([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s,]+)"),
            re.compile(r"Because ([A-Za-z0-9][A-Za-z0-9._-]*) was not found in the package registry"))
MAX_DRIFT_ROUNDS = 20


@dataclass(frozen=True)
class LockedBuild:
    lock: EnvLock
    allow_drift: bool = False
    compile: bool = True  # bytecode now (else on the first run, as for an env built before that was done)


def missing_package(line: str) -> str | None:
    """The package an installer's refusal names (uv: "no version of foo==1.2", "foo was not found ...")."""
    for pattern in _MISSING:
        m = pattern.search(line)
        if m:
            return m.group(1)
    return None


def nearest_version(name: str, version: str) -> str | None:
    """The release on the index closest to `version`: the newest at or below it, else the oldest above."""
    try:
        wanted = Version(version)
        found = sorted({Version(v) for v in index_versions(name) or []})
    except InvalidVersion:
        return None
    below = [v for v in found if v <= wanted]
    above = [v for v in found if v > wanted]
    best = below[-1] if below else (above[0] if above else None)
    return str(best) if best is not None else None


def pin_line(package: LockedPackage) -> str:
    """What the installer is given for one locked package: a direct URL as such, else name==version."""
    if is_direct(package.source):
        return f"{package.name} @ {package.source}"
    return package.pin


def is_direct(source: str) -> bool:
    return source.startswith("git+") or source.split("?", maxsplit=1)[0].endswith((".whl", ".tar.gz", ".zip"))


def install_from_lock(build: LockedBuild, cache_dir: Path | None = None, *, force: bool = False,
                      installer: Installer | None = None, base_python: str | None = None,
                      progress: Progress | None = None, nearest: Nearest = nearest_version):
    """The env `build.lock` names, at `<cache>/envs/<its name>`: reused when one with the same digest is there,
    else built (an env of that name with other packages: replaced with --force, else refused)."""
    lock, progress = build.lock, progress or _log_progress
    check_engine(lock.engine)
    name = env_name(lock.engine, lock.version, lock.cpu)
    root = envs_dir(cache_dir)
    target = root / name
    inst = installer or choose_installer()
    with _env_lock(root, name, progress):
        existing = _existing(target, lock, force, inst, progress)
        if existing is not None:
            return existing
        if inst.kind != "uv":
            raise InputError("installing from a lock needs uv (its pip interface installs the pinned set): "
                             "pip install uv")
        recipe = get_engine(lock.engine).require("installation", "envs install").recipe(lock.version, lock.cpu)
        check_disk(root, recipe.disk_bytes, f"{name} (from lock {lock.digest})")
        staging = root / f".{name}.building-{os.getpid()}"
        log_path = root / f"{name}.install.log"
        log_path.write_text(f"# {name} from lock {lock.digest} ({len(lock.packages)} packages) with uv\n")
        progress(f"{name}: installing the {len(lock.packages)} packages of lock {lock.digest} (log: {log_path})")
        try:
            info = _build(build, recipe, staging, inst, base_python or _base_interpreter(), log_path, progress,
                          nearest)
            if target.exists():
                progress(f"{name}: replacing the env at {target}")
                _rmtree(target)
            os.rename(staging, target)
        except BaseException:
            _rmtree(staging)  # nothing half-built is left, whatever stopped the build
            raise
        return env_from_marker(target, info)


def _existing(target: Path, lock: EnvLock, force: bool, inst: Installer, progress: Progress):
    info = read_marker(target)
    if info is None or not env_python(target).exists():
        return None
    have = marker_lock(target)
    if have is None:  # built before locks: its lock derived now from what is installed (never reinstalled)
        have = lock_for_new_env(target, info, inst, derived=DERIVED_LATER)
        info = {**info, LOCK_KEY: have.to_dict()}
        write_marker(target, info)
    if have.digest == lock.digest and not force:
        progress(f"{target.name}: already installed with lock {lock.digest}")
        return env_from_marker(target, info)
    if force:
        return None
    changes = diff_locks(have, lock).lines()
    raise InputError(f"{target}: the installed env differs from lock {lock.digest} in {len(changes)} packages "
                     f"({', '.join(changes[:5])}{', ...' if len(changes) > 5 else ''}); replace it with --force")


def _build(build: LockedBuild, recipe, staging: Path, inst: Installer, base_python: str, log_path: Path,
           progress: Progress, nearest: Nearest) -> dict:
    lock = build.lock
    _rmtree(staging)
    started = time.monotonic()
    chosen = interpreter_for(lock.package or lock.engine, SpecifierSet(f"=={lock.python_minor}.*"), base_python)
    inst.create(staging, chosen.path, log_path, relocatable=True)
    python = env_python(staging)
    pins = {p.name: p for p in lock.packages if p.source != HARNESS_SOURCE}
    drift = _install_pins(pins, python, lock.env, inst, log_path, build.allow_drift, nearest, progress)
    # the engine's steps name the env by its folder: the staging one is named for the user as the env
    steps = VenvInstallSteps(recipe=recipe, env_dir=staging, python=python, wheel=staging, download_dir=staging,
                             installer=inst, log_path=log_path,
                             progress=lambda msg: progress(msg.replace(staging.name, lock.env)))
    harness_made = {p.name: p.version for p in lock.packages if p.source == HARNESS_SOURCE}
    get_engine(lock.engine).require("installation", "envs install").finish_locked(steps, harness_made)
    drift += _check_installed(staging, lock, drift, build.allow_drift)
    info = _marker(lock, staging, python, inst)
    if build.compile:
        progress(f"{lock.env}: compiling its Python sources to bytecode")
        compile_bytecode(python, log_path)
        info[BYTECODE_KEY] = True
    info["install_seconds"] = round(time.monotonic() - started, 1)
    info["size_bytes"] = dir_size(staging)
    info["installer"] = inst.describe()
    info[LOCK_KEY] = lock_for_new_env(staging, info, inst, resolved_at=lock.resolved_at, drift=tuple(drift),
                                      derived=f"from lock {lock.digest}", name=lock.env).to_dict()
    write_marker(staging, info)
    return info


def _install_pins(pins: dict[str, LockedPackage], python: Path, name: str, inst: Installer, log_path: Path,
                  allow_drift: bool, nearest: Nearest, progress: Progress) -> list[str]:
    """The pins installed (--no-deps); each one no index has: a one-line refusal, or with allow_drift its
    nearest release, recorded."""
    drift: list[str] = []
    req = log_path.with_name(f".{name}.lock-pins.txt")
    for _ in range(MAX_DRIFT_ROUNDS):
        req.write_text("\n".join(pin_line(p) for p in pins.values()) + "\n")
        try:
            inst.install(python, ["--no-deps", "-r", str(req)], log_path)
            req.unlink()
            return drift
        except InputError as exc:
            missing = missing_package(str(exc))
            locked = pins.get(canonicalize_name(missing)) if missing else None
            if locked is None:
                raise
            if not allow_drift:
                raise InputError(f"cannot rebuild {name} exactly: "
                                 f"{locked.name}=={locked.version} is on no index of this host "
                                 f"(--allow-drift builds the nearest release and records it)") from None
            instead = nearest(locked.name, locked.version)
            if instead is None or instead == locked.version:
                raise InputError(f"{locked.name}=={locked.version} is on no index of this host, and no other "
                                 f"release of it either") from None
            progress(f"drift: {locked.name} {locked.version} is on no index; building {instead}")
            drift.append(f"{locked.name} {locked.version} -> {instead}")
            pins[locked.name] = LockedPackage(locked.name, instead, INDEX_SOURCE)
    raise HarnessError(f"more than {MAX_DRIFT_ROUNDS} packages of the lock are on no index", exit_code=EXIT_HARNESS)


def _check_installed(staging: Path, lock: EnvLock, drift: list[str], allow_drift: bool) -> list[str]:
    """What the built env holds that the lock does not say (beyond the recorded drift): a refusal, or drift."""
    drifted = {line.split(" ", 1)[0] for line in drift}
    built = EnvLock(lock.env, lock.engine, lock.version, lock.cpu, lock.python_version,
                    tuple(installed_packages(staging)))
    changes = [c for c in diff_locks(lock, built).changes if c.name not in drifted]
    if not changes:
        return []
    if not allow_drift:
        lines = ", ".join(c.text() for c in changes[:8])
        raise InputError(f"the env built from lock {lock.digest} differs from it in {len(changes)} packages: {lines}")
    return [c.text() for c in changes]


def _marker(lock: EnvLock, env_dir: Path, python: Path, inst: Installer) -> dict:
    engine = get_engine(lock.engine)
    env_vars = runtime_env_vars(lock.engine, env_dir, python.parent, lock.cpu)
    found = probe(python, lock.engine, env_vars, engine.launch.runtime.probe_imports(env_dir, lock.cpu))
    problem = engine.launch.runtime.check_probe(found, lock.cpu)
    if problem:
        raise HarnessError(f"{env_dir}: {problem}", exit_code=EXIT_HARNESS)
    return {"engine": lock.engine, "requested_version": lock.version, "cpu": lock.cpu, "package": lock.package,
            "engine_version": found["engine_version"], "torch_version": found["torch_version"],
            "torch_cuda": found.get("torch_cuda"), "python_version": found["python_version"],
            "dists": found["dists"], "workarounds": list(lock.workarounds), "cuda_build": None,
            "created_utc": utc_now().strftime("%Y-%m-%dT%H:%M:%SZ"), "harness_version": harness_version,
            "from_lock": lock.digest}
