"""Install, find, list and remove engine environments under the cache directory.

An env is built in place at `<cache>/envs/<engine>-<version>[-cpu]` (venvs are not
relocatable, so it is not built elsewhere and renamed) under a per-env lock, and its marker
file is written last. A directory without the marker is a half-built env: it is never used,
and the next install removes it; a failing or interrupted install removes it at once.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from harness import __version__ as harness_version
from harness.clock import utc_now
from harness.engines import get_engine
from harness.engines.requirements import wheel_metadata
from harness.engines.roles import BinaryRuntime
from harness.engines.roles.installation import Recipe
from harness.envs.bytecode import BYTECODE_KEY, compile_bytecode
from harness.envs.cuda_build import CudaBuild, plan_cuda_build
from harness.envs.cuda_driver import cuda_of_driver
from harness.envs.dists import versions_text
from harness.envs.index import index_note, release_note
from harness.envs.installer import Installer, check_network, choose_installer, download_wheel
from harness.envs.interpreters import interpreter_at, interpreter_for, wheel_requires_python
from harness.envs.lock_record import LOCK_KEY, lock_for_new_env
from harness.envs.model import (
    MARKER,
    EngineEnv,
    check_engine,
    check_version,
    default_cache_dir,
    env_from_marker,
    env_name,
    env_python,
    envs_dir,
    host_is_cpu_only,
    read_marker,
    runtime_env_vars,
    write_marker,
)
from harness.envs.probe import probe
from harness.envs.recipes import VenvInstallSteps
from harness.errors import EXIT_HARNESS, HarnessError, InputError
from harness.nvml import driver_versions

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


def _log_progress(msg: str) -> None:
    log.info("%s", msg)


def install_command(engine: str, version: str, cache_dir: Path | None = None) -> str:
    cmd = f"python -m harness envs install {engine}=={version}"
    if cache_dir is not None and Path(cache_dir) != default_cache_dir():
        cmd += f" --cache-dir {cache_dir}"
    return cmd


# --- resolve ---------------------------------------------------------------------------------------

def resolve_env(engine: str, version: str | None, python: str | None = None, cache_dir: Path | None = None,
                *, cpu: bool | None = None) -> EngineEnv:
    """The interpreter a scenario's engine runs with.

    `python` (an existing interpreter, scenario `engines.<e>.python`) takes precedence; else the
    provisioned env for engine + version (+ "-cpu" on a host without an NVIDIA driver). A missing
    env raises HarnessError naming the `envs install` command.
    """
    check_engine(engine)
    cpu = host_is_cpu_only() if cpu is None else cpu
    runtime = get_engine(engine).launch.runtime
    if isinstance(runtime, BinaryRuntime):
        return binary_env(engine, version, runtime, Path(python).expanduser() if python else None, cpu)
    if python:
        return _external_env(engine, version, Path(python).expanduser(), cache_dir, cpu)
    if not version:
        raise InputError(f"engines.{engine}: give `version` (a provisioned env) or `python` (an existing interpreter)")
    check_version(version)
    env_dir = envs_dir(cache_dir) / env_name(engine, version, cpu)
    info = read_marker(env_dir)
    cmd = install_command(engine, version, cache_dir)
    if info is not None:
        if not env_python(env_dir).exists():
            raise HarnessError(f"{env_dir}: environment is broken (no bin/python); rebuild it: {cmd} --force")
        return env_from_marker(env_dir, info)
    if env_dir.exists():
        raise HarnessError(f"{env_dir} is half-built or from another harness format (no valid {MARKER}); "
                           f"rebuild it: {cmd}")
    device = " (CPU build)" if cpu else ""
    raise HarnessError(f"no {engine} {version}{device} environment at {env_dir}; install it: {cmd}")


_probe_memo: dict[tuple[str, str, float], dict] = {}


def _external_env(engine: str, version: str | None, python: Path, cache_dir: Path | None, cpu: bool) -> EngineEnv:
    if not python.exists():
        raise InputError(f"engines.{engine}.python: {python} does not exist")
    if not os.access(python, os.X_OK) or python.is_dir():
        raise InputError(f"engines.{engine}.python: {python} is not an executable interpreter")
    # An interpreter of one of our own envs: its marker already says everything.
    env_dir = python.parent.parent
    info = read_marker(env_dir)
    if info is not None and info.get("engine") == engine and env_python(env_dir).resolve() == python.resolve():
        return dataclasses.replace(env_from_marker(env_dir, info), requested_version=version)
    key = (str(python), engine, python.stat().st_mtime)
    if key not in _probe_memo:
        _probe_memo[key] = probe(python, engine)
    found = _probe_memo[key]
    env_dir = Path(found["prefix"])
    env_vars = runtime_env_vars(engine, env_dir, python.parent, cpu, managed=False,
                                cache_dir=Path(cache_dir) if cache_dir else default_cache_dir())
    return EngineEnv(
        engine=engine, requested_version=version, path=env_dir, python=python,
        engine_version=found["engine_version"], torch_version=found["torch_version"], cpu=cpu,
        env_vars=env_vars, managed=False, torch_cuda=found.get("torch_cuda"),
        # the interpreter's own answer: an external env's site-packages may be anywhere on its path
        dependency_versions=versions_text({name: found["dists"][name] for name in _key_dependencies(engine)
                                           if name in found.get("dists", {})}),
    )


def _key_dependencies(engine: str) -> tuple[str, ...]:
    return getattr(get_engine(engine).launch.runtime, "key_dependencies", ())


def binary_env(engine: str, version: str | None, runtime: BinaryRuntime, program: Path | None,
               cpu: bool) -> EngineEnv:
    """A binary engine's program (the scenario's path, else the runtime's on PATH) and the release it prints.

    Nothing is installed or probed: `python` holds the program, there is no torch."""
    found = program or runtime.locate()
    if found is None:
        raise InputError(f"engines.{engine}: {runtime.program} is not on PATH; install {engine}, or name its "
                         f"program with engines.{engine}.python")
    if not (found.is_file() and os.access(found, os.X_OK)):
        raise InputError(f"engines.{engine}: {found} is not an executable program")
    printed = runtime.release(found)
    if printed is None:
        raise InputError(f"engines.{engine}: `{found} {' '.join(runtime.version_args)}` printed no release")
    return EngineEnv(engine=engine, requested_version=version, path=found.parent, python=found, engine_version=printed,
                     torch_version="", cpu=cpu, env_vars={}, managed=False)


# --- install ---------------------------------------------------------------------------------------

@contextlib.contextmanager
def _env_lock(root: Path, name: str, progress: Progress) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f".{name}.lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            progress(f"waiting for another process working on {root / name}")
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def check_disk(where: Path, needed_bytes: int, what: str) -> None:
    """Refuse before downloading anything when the env cannot fit."""
    probe_dir = where
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    free = shutil.disk_usage(probe_dir).free
    if free < needed_bytes:
        raise HarnessError(
            f"not enough disk for {what}: needs about {needed_bytes / 2**30:.1f} GiB under {where}, "
            f"{free / 2**30:.1f} GiB free (free space, or set the cache dir elsewhere with --cache-dir)",
            exit_code=EXIT_HARNESS,
        )


def dir_size(path: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_size
            except OSError:
                pass
    return total


def install_env(engine: str, version: str, cache_dir: Path | None = None, *, cpu: bool | None = None,
                base_python: str | None = None, force: bool = False, installer: Installer | None = None,
                progress: Progress | None = None, resolved_at: str | None = None) -> EngineEnv:
    """Provision `<cache>/envs/<engine>-<version>[-cpu]` and return it; an existing complete env is reused.

    `base_python` is the interpreter the venv is made from (default: the harness's own base
    interpreter); `force` rebuilds a complete env; `installer` defaults to uv when found, else pip;
    `resolved_at` resolves as the index stood on that date (uv's --exclude-newer), recorded in the env's lock.
    """
    check_engine(engine)
    check_version(version)
    progress = progress or _log_progress
    cpu = host_is_cpu_only() if cpu is None else cpu
    check_release_buildable(engine, version, cpu)
    recipe = get_engine(engine).require("installation", "envs install").recipe(version, cpu)
    root = envs_dir(cache_dir)
    name = env_name(engine, version, cpu)
    env_dir = root / name
    with _env_lock(root, name, progress):
        info = read_marker(env_dir)
        if info is not None and not force and env_python(env_dir).exists():
            progress(f"{name}: already installed at {env_dir}")
            _compile_once(env_dir, info, progress)
            return env_from_marker(env_dir, read_marker(env_dir))
        if env_dir.exists():
            progress(f"{name}: removing {'the existing' if info else 'a half-built'} env at {env_dir}")
            _rmtree(env_dir)
        check_disk(root, recipe.disk_bytes, f"{name} ({recipe.requirement})")
        inst = installer or choose_installer()
        if resolved_at:
            if inst.kind != "uv":
                raise InputError("--resolved-at needs uv (its --exclude-newer): pip install uv")
            inst = dataclasses.replace(inst, exclude_newer=resolved_at)
        check_network(inst.sources, recipe.package)
        log_path = root / f"{name}.install.log"
        log_path.write_text(f"# {recipe.requirement} into {env_dir} with {inst.kind}\n")
        progress(f"{name}: installing {recipe.requirement} (log: {log_path})")
        started = time.monotonic()
        try:
            info = _build(recipe, env_dir, inst, base_python or _base_interpreter(), log_path, progress)
            progress(f"{name}: compiling its Python sources to bytecode")
            compile_bytecode(env_python(env_dir), log_path)
            info[BYTECODE_KEY] = True
        except BaseException:
            # Never leave a half-built env behind, whatever stopped the build (error, Ctrl-C).
            _rmtree(env_dir)
            raise
        info["install_seconds"] = round(time.monotonic() - started, 1)
        info["size_bytes"] = dir_size(env_dir)
        info["installer"] = inst.describe()
        progress(f"{name}: recording its lock (every installed distribution, with the index uv takes it from)")
        info[LOCK_KEY] = lock_for_new_env(env_dir, info, inst, resolved_at=resolved_at).to_dict()
        write_marker(env_dir, info)
        progress(f"{name}: {engine} {info['engine_version']}, torch {info['torch_version']}, "
                 f"{info['size_bytes'] / 2**30:.1f} GiB, {info['install_seconds']:.0f} s")
        return env_from_marker(env_dir, read_marker(env_dir))


def ensure_bytecode(env: EngineEnv, progress: Progress | None = None) -> EngineEnv:
    """A managed env built before installs compiled bytecode, compiled now (once; under the env's lock).
    Other envs (a scenario's own interpreter) are the user's and left as they are."""
    info = read_marker(env.path) if env.managed else None
    if info is None or info.get(BYTECODE_KEY):
        return env
    with _env_lock(env.path.parent, env.path.name, progress or _log_progress):
        _compile_once(env.path, read_marker(env.path) or info, progress or _log_progress)
    return env


def _compile_once(env_dir: Path, info: dict, progress: Progress) -> None:
    if info.get(BYTECODE_KEY):
        return
    progress(f"{env_dir.name}: compiling its Python sources to bytecode (once; launches then skip it)")
    compile_bytecode(env_python(env_dir), env_dir.parent / f"{env_dir.name}.install.log")
    write_marker(env_dir, {**info, BYTECODE_KEY: True})


def check_release_buildable(engine: str, version: str, cpu: bool) -> None:
    """Refuse, in one line, a release the index lacks or this host has no build of (before the installer does)."""
    note = index_note(engine, version)
    if note is not None and note.is_error:
        raise InputError(note.text)
    line = release_note(engine, version, host_has_gpu=not cpu)
    if line:
        raise InputError(line)


def _base_interpreter() -> str:
    # The harness may itself run in a venv; an engine env is made from the interpreter under it.
    return getattr(sys, "_base_executable", None) or sys.executable


def _build(recipe: Recipe, env_dir: Path, inst: Installer, base_python: str, log_path: Path,
           progress: Progress) -> dict:
    name = env_dir.name
    engine = get_engine(recipe.engine)
    # The engine's wheel first (whatever Pythons it accepts): its Requires-Python picks the interpreter.
    progress(f"{name}: fetching {recipe.requirement}")
    base = interpreter_at(base_python)
    staged = env_dir.parent / f".{name}.download"
    shutil.rmtree(staged, ignore_errors=True)
    try:
        wheel = download_wheel(recipe.requirement, staged, base.minor if base else "3.11", inst.sources, log_path,
                               ignore_requires_python=True)
        requires = wheel_requires_python(wheel)
        chosen = interpreter_for(recipe.requirement, requires, base_python)
        if base is None or chosen.minor != base.minor:
            progress(f"{name}: {recipe.requirement} needs Python {requires}: using "
                     f"{chosen.path} ({chosen.version})")
            shutil.rmtree(staged)
            wheel = download_wheel(recipe.requirement, staged, chosen.minor, inst.sources, log_path)
        cuda = None if recipe.cpu else _cuda_build(engine, recipe.version, wheel, inst)
        progress(f"{name}: creating venv ({inst.kind}) from {chosen.path}")
        inst.create(env_dir, chosen.path, log_path)
        python = env_python(env_dir)
        download = env_dir / ".kv-harness-download"
        shutil.move(str(staged), str(download))
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    wheel = download / wheel.name
    steps = VenvInstallSteps(recipe=recipe, env_dir=env_dir, python=python, wheel=wheel, download_dir=download,
                         installer=inst, log_path=log_path, progress=progress, cuda_build=cuda)
    engine.require("installation", "envs install").install(steps)
    shutil.rmtree(download, ignore_errors=True)

    progress(f"{name}: asking the env for its {recipe.engine} and torch versions")
    env_vars = runtime_env_vars(recipe.engine, env_dir, python.parent, recipe.cpu)
    found = probe(python, recipe.engine, env_vars, engine.launch.runtime.probe_imports(env_dir, recipe.cpu))
    problem = engine.launch.runtime.check_probe(found, recipe.cpu)
    if problem:
        raise HarnessError(f"{env_dir}: {problem}", exit_code=EXIT_HARNESS)
    if found["engine_version"].split("+")[0] != recipe.version:
        progress(f"warning: {recipe.requirement} reports version {found['engine_version']}")
    return {
        "engine": recipe.engine,
        "requested_version": recipe.version,
        "cpu": recipe.cpu,
        "package": recipe.requirement,
        "engine_version": found["engine_version"],
        "torch_version": found["torch_version"],
        "torch_cuda": found.get("torch_cuda"),
        "python_version": found["python_version"],
        "dists": found["dists"],
        "workarounds": [*recipe.workarounds, *steps.applied],
        "cuda_build": cuda.tag if cuda else None,  # a CUDA build installed for this host's driver, not PyPI's
        "created_utc": utc_now().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "harness_version": harness_version,
    }


def _cuda_build(engine, version: str, wheel: Path, inst: Installer) -> CudaBuild | None:
    """On a GPU host: the CUDA build its driver runs when PyPI's does not (harness/envs/cuda_build.py);
    a one-line refusal, before the venv and the ~20 GiB of dependencies, when the engine publishes none."""
    versions = driver_versions()
    if versions is None:
        return None
    driver, nvml_cuda = versions
    return plan_cuda_build(engine, version, wheel_metadata(wheel), inst.sources, driver, cuda_of_driver(nvml_cuda))


def _rmtree(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


# --- list / remove -----------------------------------------------------------------------------------

def list_envs(cache_dir: Path | None = None) -> list[EngineEnv]:
    """Complete envs under the cache dir, by name."""
    root = envs_dir(cache_dir)
    out = []
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        info = read_marker(d) if d.is_dir() else None
        if info is not None:
            out.append(env_from_marker(d, info))
    return out


def incomplete_envs(cache_dir: Path | None = None) -> list[Path]:
    """Env directories without a marker: half-built (or being built right now)."""
    root = envs_dir(cache_dir)
    return [d for d in sorted(root.iterdir()) if d.is_dir() and not d.name.startswith(".")
            and read_marker(d) is None] if root.is_dir() else []


def env_info(env: EngineEnv) -> dict:
    """The marker's content for a managed env ({} otherwise): size, install time, installer, dists."""
    return (read_marker(env.path) or {}) if env.managed else {}


def remove_env(engine: str, version: str, cache_dir: Path | None = None, *, cpu: bool | None = None,
               progress: Progress | None = None) -> Path:
    check_engine(engine)
    check_version(version)
    cpu = host_is_cpu_only() if cpu is None else cpu
    return remove_env_named(env_name(engine, version, cpu), cache_dir, progress=progress)


def remove_env_named(name: str, cache_dir: Path | None = None, *, progress: Progress | None = None) -> Path:
    """Remove `<cache>/envs/<name>` (complete or half-built) and its install log."""
    root = envs_dir(cache_dir)
    if not name or "/" in name or name.startswith("."):
        raise InputError(f"{name!r} is not an environment name (see `envs list`)")
    env_dir = root / name
    if not env_dir.exists():
        raise InputError(f"no environment {name!r} under {root}")
    progress = progress or _log_progress
    with _env_lock(root, name, progress):
        _rmtree(env_dir)
        (root / f"{name}.install.log").unlink(missing_ok=True)
    (root / f".{name}.lock").unlink(missing_ok=True)
    progress(f"removed {env_dir}")
    return env_dir


__all__ = [
    "MARKER",
    "check_disk",
    "check_release_buildable",
    "dir_size",
    "env_info",
    "incomplete_envs",
    "install_command",
    "install_env",
    "list_envs",
    "remove_env",
    "remove_env_named",
    "resolve_env",
]
