"""The pre-flight `doctor` runs in seconds, without launching an engine: what would stop a run here.

Each check is one line: what was looked at, what was found, and whether a launch would fail on it
(`blocks`). The checks are the run's own (its env resolution, driver check, idle rule, card classes),
so `doctor` says what `run` would stop on, before anything is installed or launched.
"""

from __future__ import annotations

import platform
import shutil
import socket
from dataclasses import dataclass
from pathlib import Path

from harness.envs import default_cache_dir, host_is_cpu_only, install_command, resolve_env
from harness.envs.cuda_driver import cuda_of_driver, env_driver_refusal
from harness.errors import HarnessError, InputError
from harness.execute.executors.slots import gpus_needed, usable_gpus
from harness.execute.gpu import BUSY_THRESHOLD_MIB, in_card_class, nvml_reader
from harness.nvml import driver_versions
from harness.predict.model import find_in_hf_cache
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
        out.append(Check("card class", same, f"the scenario is about a {scenario.gpu.memory_gib:g} GB card; GPU "
                                             f"{card.index} has {card.total_mib / 1024:.1f} GiB"
                                             + ("" if same else ": numbers not comparable with the scenario's"),
                         blocks=False))
    return out


def _env_checks(scenario: Scenario, points: list[Point], device: str) -> list[Check]:
    out = []
    versions = driver_versions() if device == "cuda" else None
    for engine, version in dict.fromkeys((p.engine, p.engine_version) for p in points):
        name = f"{engine} {version or ''}".strip()
        try:
            env = resolve_env(engine, version, python=scenario.engines[engine].python)
        except HarnessError as exc:
            hint = "" if scenario.engines[engine].python or "install" in str(exc) else \
                f" ({install_command(engine, version)})"
            out.append(Check(f"env {name}", False, f"{exc}{hint}"))
            continue
        detail = f"{env.python}: {engine} {env.engine_version}, torch {env.torch_version}"
        refusal = None
        if versions is not None:
            refusal = env_driver_refusal(env, *versions)
            detail += (f" (CUDA {env.torch_cuda or 'not known'}; driver supports "
                       f"{cuda_of_driver(versions[1]) or 'not known'})")
        out.append(Check(f"env {name}", refusal is None, refusal or detail))
    return out


def _disk() -> Check:
    where = default_cache_dir()
    probe = where
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    enough = free >= 12 * GiB  # an SGLang env (~10 GiB) and a small model
    return Check("disk", enough, f"{free / GiB:.1f} GiB free under {where}"
                 + ("" if enough else ": an engine env takes 3-10 GiB, an 8B model 16 GB"))


def _model(scenario: Scenario) -> Check:
    model = scenario.model
    if model.startswith("builtin:"):
        return Check("model", True, f"{model}: built locally")
    path = Path(model).expanduser()
    if model.startswith(("/", "./", "../", "~")):
        return Check("model", path.is_dir(), f"{path}: {'a local directory' if path.is_dir() else 'no such directory'}")
    config = find_in_hf_cache(model)
    if config is not None and any(config.parent.glob("*.safetensors")):
        return Check("model", True, f"{model}: weights in the Hugging Face cache ({config.parent})")
    return Check("model", False, f"{model}: weights not in the Hugging Face cache: the first point downloads them "
                                 "inside its timeout (download it first: huggingface-cli download " + model + ")",
                 blocks=False)


def _port() -> Check:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return Check("port", True, f"a free local port for the servers (e.g. {port})")


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
    checks += _env_checks(scenario, points, device)
    checks += [_disk(), _model(scenario), _port()]
    return checks
