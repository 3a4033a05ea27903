"""The pre-flight `doctor` runs in seconds, without launching an engine: what would stop a run here.

Each check is one line: what was looked at, what was found, and whether a launch would fail on it
(`blocks`). The checks are the run's own (its env resolution, driver check, idle rule, card classes),
so `doctor` says what `run` would stop on, before anything is installed or launched.
"""

from __future__ import annotations

import platform
import shutil
from dataclasses import dataclass
from pathlib import Path

from harness.engines import get_engine
from harness.envs import default_cache_dir, host_is_cpu_only, install_command, resolve_env
from harness.envs.cuda_driver import cuda_of_driver, env_driver_refusal
from harness.errors import HarnessError, InputError
from harness.execute.executors.slots import gpus_needed, usable_gpus
from harness.execute.gpu import BUSY_THRESHOLD_MIB, in_card_class, nvml_reader
from harness.execute.hub_access import hub_access
from harness.execute.point_run import free_port
from harness.model_names import is_hub_id
from harness.nvml import driver_versions
from harness.scenario.point import Point
from harness.scenario.schema import Scenario

GiB = 1 << 30


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    blocks: bool = True  # when not ok: a launch would fail (else a warning)

    @property
    def verdict(self) -> str:
        return "ok" if self.ok else ("FAIL" if self.blocks else "warn")


def _python() -> Check:
    return Check("python", True, f"{platform.python_version()} ({platform.python_implementation()})")


def _device() -> tuple[Check, list, str]:
    try:
        cpu = host_is_cpu_only()
    except InputError as exc:
        return Check("device", False, str(exc)), [], "cpu"
    if cpu:
        return Check("device", True, "CPU: no NVIDIA GPU found by NVML (or KV_HARNESS_DEVICE=cpu): the CPU engines "
                                     "size their pools from host memory"), [], "cpu"
    read = nvml_reader()
    if read is None:
        return Check("device", False, "KV_HARNESS_DEVICE=gpu, but NVML finds no NVIDIA GPU"), [], "cuda"
    try:
        indices = usable_gpus()
    except InputError as exc:
        return Check("device", False, str(exc)), [], "cuda"
    states = [read(i) for i in indices]
    listed = ", ".join(f"{s.index}: {s.name} {s.total_mib:,.0f} MiB" for s in states)
    return Check("device", True, f"{len(states)} GPU(s) usable: {listed}; driver {states[0].driver_version}"), \
        states, "cuda"


def _gpu_checks(scenario: Scenario, points: list[Point], states: list) -> list[Check]:
    out = []
    widest = max((gpus_needed(p) for p in points), default=1)
    out.append(Check("gpu count", widest <= len(states),
                     f"the widest point needs {widest} GPU(s) (TP x PP x DP); {len(states)} usable"))
    for s in states:
        busy = s.others_mib > BUSY_THRESHOLD_MIB
        apart = f"; driver reserves {s.reserved_mib:,.0f} MiB" if s.reserved_mib else ""
        apart += f"; display {s.display_mib:,.0f} MiB" if s.display_mib else ""
        out.append(Check(f"GPU {s.index} idle", not busy,
                         f"{s.others_mib:,.0f} MiB held by other processes{apart}; "
                         f"{s.total_mib - s.used_mib:,.0f} MiB free"
                         + (" (over 512 MiB: another job; free it or --wait-for-idle-gpu)" if busy else "")))
    if scenario.gpu.memory_gib and states:
        card = states[0]
        same = in_card_class(card.total_mib, scenario.gpu.memory_gib)
        fix = "" if same else (": numbers not comparable with the scenario's (set gpu.memory_gib to "
                               f"{card.total_mib / 1024:.0f} for this card)")
        out.append(Check("card class", same, f"the scenario is about a {scenario.gpu.memory_gib:g} GB card; GPU "
                                             f"{card.index} has {card.total_mib / 1024:.1f} GiB{fix}", blocks=False))
    return out


def _env_checks(scenario: Scenario, points: list[Point], device: str) -> tuple[list[Check], list[tuple[str, str]]]:
    """One line per (engine, release) of the points, and the envs `run` would install first (not there yet)."""
    out, missing = [], []
    versions = driver_versions() if device == "cuda" else None
    for engine, version in dict.fromkeys((p.engine, p.engine_version) for p in points):
        name = f"{engine} {version or ''}".strip()
        try:
            env = resolve_env(engine, version, python=scenario.engines[engine].python)
        except HarnessError as exc:
            hint = "" if scenario.engines[engine].python or "install" in str(exc) else \
                f" ({install_command(engine, version)})"
            out.append(Check(f"env {name}", False, f"{exc}{hint}"))
            if not scenario.engines[engine].python and version:
                missing.append((engine, version))
            continue
        detail = f"{env.python}: {engine} {env.engine_version}, torch {env.torch_version}"
        refusal = None
        if versions is not None:
            refusal = env_driver_refusal(env, *versions)
            detail += (f" (CUDA {env.torch_cuda or 'not known'}; driver supports "
                       f"{cuda_of_driver(versions[1]) or 'not known'})")
        out.append(Check(f"env {name}", refusal is None, refusal or detail))
    return out, missing


def _disk(missing_envs: list[tuple[str, str]], device: str, model_download_bytes: int | None) -> Check:
    """Free space under the cache against what would be written there: the envs not yet installed (each engine
    recipe's own size) and the model's files not yet cached. Nothing to write needs no space."""
    where = default_cache_dir()
    probe = where
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    parts = [(f"{engine} {version} env", get_engine(engine).installation.recipe(version, device == "cpu").disk_bytes)
             for engine, version in missing_envs]
    if model_download_bytes:
        parts.append(("the model's files", model_download_bytes))
    need = sum(size for _, size in parts)
    if not parts:
        return Check("disk", True, f"{free / GiB:.1f} GiB free under {where}; every env installed and the model "
                                   "at hand: nothing to write there but results")
    listed = " + ".join(f"{what} ~{size / GiB:.1f} GiB" for what, size in parts)
    enough = free >= need
    return Check("disk", enough, f"{free / GiB:.1f} GiB free under {where}; {listed} to write"
                 + ("" if enough else f": {(need - free) / GiB:.1f} GiB short: free space there or set "
                                      "KV_HARNESS_CACHE_DIR to a larger disk"))


def _model(scenario: Scenario) -> tuple[Check, int | None]:
    """(the model's line, bytes `run` would download for it: None when not known)."""
    model = scenario.model
    if model.startswith("builtin:"):
        return Check("model", True, f"{model}: built locally"), 0
    path = Path(model).expanduser()
    if not is_hub_id(model):
        # run hands any existing path to the engine as it is, relative ones from where it runs
        if not path.is_dir():
            return Check("model", False, f"{model}: no such directory (from {Path.cwd()}), and not a hub id"), 0
        has_config = (path / "config.json").is_file()
        return Check("model", has_config, f"{path.resolve()}: a local directory"
                     + ("" if has_config else " without config.json: the engines cannot load it")), 0
    access = hub_access(model)
    return Check("model", not access.blocks, access.detail), access.download_bytes


def _ports(points: list[Point]) -> Check:
    """Each point's server gets a free local port at launch, at or below its engine's limit (point_run.free_port):
    the same search, done now."""
    highest = min((get_engine(engine).launch.highest_port for engine in {p.engine for p in points}), default=65535)
    try:
        port = free_port(highest)
    except OSError as exc:
        return Check("port", False, f"no free local port at or below {highest} ({exc}): the servers could not listen "
                                    "on 127.0.0.1; free local ports (`ss -ltn` lists them) or stop what holds them")
    return Check("port", True, f"a free local port at or below {highest} for the servers (e.g. {port})")


def preflight(scenario: Scenario, points: list[Point]) -> list[Check]:
    """Every check, in the order a run meets them."""
    device_check, states, device = _device()
    checks = [_python(), device_check]
    if scenario.gpu.memory_gib and device == "cpu":
        checks.append(Check("scenario device", False,
                            f"the scenario is about a {scenario.gpu.memory_gib:g} GB GPU and this host has none: "
                            "run refuses (gpu: {memory_gib: null} measures the CPU engines)"))
    if device == "cuda" and states:
        checks += _gpu_checks(scenario, points, states)
    env_checks, missing_envs = _env_checks(scenario, points, device)
    model_check, download_bytes = _model(scenario)
    checks += env_checks
    checks += [_disk(missing_envs, device, download_bytes), model_check, _ports(points)]
    return checks
