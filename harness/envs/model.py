"""What an engine environment is, where it lives, and its marker file."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from harness.atomic import write_json
from harness.cache_dir import default_cache_dir
from harness.engines import engine_names, get_engine
from harness.envs.dists import installed_versions, versions_text
from harness.errors import InputError
from harness.nvml import device_count

# Written last by an install: a directory without it is half-built and never used.
MARKER = "kv-harness-env.json"
MARKER_FORMAT = 1

DEVICE_ENV_VAR = "KV_HARNESS_DEVICE"  # "cpu" or "gpu": overrides driver detection

_VERSION_RE = re.compile(r"^[0-9][0-9A-Za-z.+!_-]*$")


@dataclass(frozen=True)
class EngineEnv:
    """One engine's interpreter and what its server process needs from it.

    `python` is `<env>/bin/python` as is (not symlink-resolved), so its `bin` directory holds
    the env's console scripts (an engine may start from one of them).

    `env_vars` are to be laid over the parent environment (the launcher drops PYTHONPATH,
    PYTHONHOME and VIRTUAL_ENV first): PATH with the env's `bin` first, VIRTUAL_ENV, and what
    the engine itself needs (`Engine.runtime_env`, e.g. a CPU workaround's library path).
    """

    engine: str
    requested_version: str | None
    path: Path  # the environment directory (sys.prefix of `python`)
    python: Path
    engine_version: str  # as the engine reports it (`<engine>.__version__`)
    torch_version: str
    cpu: bool  # provisioned for a host without an NVIDIA driver
    env_vars: dict[str, str] = field(default_factory=dict)
    managed: bool = True  # False: an interpreter the scenario named (`engines.<e>.python`)
    package: str | None = None  # what was installed from the registry: `<distribution>==<version>`
    workarounds: tuple[str, ...] = ()  # CPU fixes applied at install (named by the engine's recipe)
    torch_cuda: str | None = None  # the CUDA its torch was built for ("13.0"); None: a CPU build, or not known
    # the engine's key dependencies as installed ("transformers=4.57.1 triton=3.5.0"; harness/envs/dists.py)
    dependency_versions: str = ""
    lock_digest: str = ""  # its lock's digest (harness/envs/lock.py); "" without one: not managed, or not yet derived

    @property
    def name(self) -> str:
        return self.path.name

    def version_mismatch(self) -> str | None:
        """A one-line warning when the engine reports another version than the one asked for."""
        if not self.requested_version or _base_version(self.engine_version) == _base_version(self.requested_version):
            return None
        return (f"{self.engine} at {self.python} reports version {self.engine_version}, "
                f"the scenario asks for {self.requested_version}")


def _base_version(v: str) -> str:
    return v.split("+", 1)[0]


def check_engine(engine: str) -> str:
    if engine not in engine_names():
        raise InputError(f"unknown engine {engine!r} (known: {', '.join(engine_names())})")
    return engine


def check_version(version: str) -> str:
    if not _VERSION_RE.match(version):
        raise InputError(f"bad engine version {version!r}: expected a release like 0.32.0")
    return version


def parse_spec(spec: str) -> tuple[str, str | None]:
    """`ENGINE==0.32.0` -> (ENGINE, "0.32.0"); `ENGINE` -> (ENGINE, None)."""
    engine, sep, version = spec.strip().partition("==")
    if not sep and re.search(r"[<>=!~]", spec):
        name = re.split(r"[<>=!~]", spec.strip(), maxsplit=1)[0]
        raise InputError(f"{spec!r}: pin one version with ==, e.g. {name}==0.32.0")
    engine = check_engine(engine.strip().lower())
    if not sep:
        return engine, None
    return engine, check_version(version.strip())


def envs_dir(cache_dir: Path | None = None) -> Path:
    return Path(cache_dir if cache_dir is not None else default_cache_dir()) / "envs"


def env_name(engine: str, version: str, cpu: bool) -> str:
    return f"{engine}-{version}{'-cpu' if cpu else ''}"


def host_is_cpu_only() -> bool:
    """True when NVML finds no NVIDIA GPU ($KV_HARNESS_DEVICE=cpu|gpu overrides: cpu measures the CPU
    engines on a GPU host). The run's device follows the same answer."""
    forced = os.environ.get(DEVICE_ENV_VAR, "").strip().lower()
    if forced in ("cpu", "gpu", "cuda"):
        return forced == "cpu"
    if forced:
        raise InputError(f"${DEVICE_ENV_VAR}={forced!r}: expected cpu or gpu")
    return device_count() == 0


def env_python(env_dir: Path) -> Path:
    return env_dir / "bin" / "python"


def runtime_env_vars(engine: str, env_dir: Path, bin_dir: Path, cpu: bool, *, managed: bool = True,
                     cache_dir: Path | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    """What an engine process needs from its environment (see EngineEnv)."""
    base = dict(os.environ if base is None else base)
    out = {
        "PATH": os.pathsep.join([str(bin_dir), *[p for p in base.get("PATH", "").split(os.pathsep) if p]]),
        "VIRTUAL_ENV": str(env_dir),
    }
    out.update(get_engine(engine).launch.runtime.runtime_env(env_dir, cpu, cache_dir, managed))
    return out


def read_marker(env_dir: Path) -> dict | None:
    """The marker's content, or None when the env is absent or half-built."""
    try:
        data = json.loads((env_dir / MARKER).read_text())
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != MARKER_FORMAT:
        return None
    return data


def write_marker(env_dir: Path, info: dict) -> None:
    # atomic: the marker is either complete or absent
    write_json(env_dir / MARKER, dict(sorted({"format": MARKER_FORMAT, **info}.items())))


def env_from_marker(env_dir: Path, info: dict) -> EngineEnv:
    cpu = bool(info["cpu"])
    python = env_python(env_dir)
    return EngineEnv(
        engine=info["engine"],
        requested_version=info.get("requested_version"),
        path=env_dir,
        python=python,
        engine_version=info["engine_version"],
        torch_version=info["torch_version"],
        cpu=cpu,
        env_vars=runtime_env_vars(info["engine"], env_dir, python.parent, cpu),
        managed=True,
        package=info.get("package"),
        workarounds=tuple(info.get("workarounds", ())),
        torch_cuda=info.get("torch_cuda") or cuda_of_local_tag(info["torch_version"]),
        dependency_versions=key_dependency_versions(info["engine"], env_dir),
        lock_digest=(info.get("lock") or {}).get("digest", "") if isinstance(info.get("lock"), dict) else "",
    )


def key_dependency_versions(engine: str, env_dir: Path) -> str:
    """The engine's key dependencies as installed in `env_dir`, as the results column's text."""
    runtime = get_engine(engine).launch.runtime
    names = getattr(runtime, "key_dependencies", ())
    return versions_text(installed_versions(env_dir, names)) if names else ""


def cuda_of_local_tag(torch_version: str) -> str | None:
    """The CUDA a torch build's local version names ("2.9.1+cu128" -> "12.8"); None without one (PyPI's
    default build of a release has no tag: only the env's torch can say, and envs made before it was
    asked do not)."""
    tag = torch_version.partition("+")[2]
    if not (tag.startswith("cu") and tag[2:].isdigit() and len(tag) >= 5):
        return None
    return f"{int(tag[2:-1])}.{tag[-1]}"


def env_summary(env: EngineEnv) -> dict:
    d = asdict(env)
    d["path"], d["python"] = str(env.path), str(env.python)
    d["workarounds"] = list(env.workarounds)
    return d
