"""A fake `pynvml` (nvidia-ml-py's module) over a described GPU host, with NVML's semantics.

Put this folder first on PYTHONPATH (a subprocess) or install it in sys.modules (in-process;
tests/support/gpu_host/__init__.py does both) and set KVH_FAKE_GPU_HOST to a host file written by
`GpuHost.write`. What it models, from nvidia-ml-py 13.x pynvml.py and NVML's documentation:
- devices in PCI order whatever CUDA_VISIBLE_DEVICES says (NVML does not read it);
- memory info v1 (`nvmlDeviceGetMemoryInfo(h)`): used includes what the driver reserves, free = total - used;
  v2 (`version=nvmlMemory_v2`): `reserved` apart, used = what processes hold, free = total - reserved - used;
  a driver before 510 has no v2 (NVMLError_FunctionNotFound);
- compute and graphics processes with their memory (`usedGpuMemory`), and memory held by the fake GPU
  engines: a file HELD_DIR/<device index>/<pid> with the MiB it holds, counted while that pid lives;
- the driver's version string and the CUDA version it supports (`nvmlSystemGetCudaDriverVersion`: 12040
  for 12.4).
Not modelled: MIG, ECC, clocks, NVLink, events; a host file read at every call (tests change it live).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

MiB = 1 << 20
nvmlMemory_v2 = 0x02000028  # noqa: N816 - nvidia-ml-py's names
NVML_SUCCESS = 0


class NVMLError(Exception):
    def __init__(self, value: int = 999, text: str = "Unknown Error"):
        super().__init__(text)
        self.value = value


class NVMLError_LibraryNotFound(NVMLError):  # noqa: N801 - nvidia-ml-py's names
    def __init__(self):
        super().__init__(12, "NVML Shared Library Not Found")


class NVMLError_FunctionNotFound(NVMLError):  # noqa: N801
    def __init__(self):
        super().__init__(13, "Function Not Found")


class NVMLError_InvalidArgument(NVMLError):  # noqa: N801
    def __init__(self):
        super().__init__(2, "Invalid Argument")


class NVMLError_Uninitialized(NVMLError):  # noqa: N801
    def __init__(self):
        super().__init__(1, "Uninitialized")


_initialized = False


def _host() -> dict:
    path = os.environ.get("KVH_FAKE_GPU_HOST")
    if not path or not Path(path).is_file():
        raise NVMLError_LibraryNotFound()
    return json.loads(Path(path).read_text())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def held(host: dict, index: int) -> list[tuple[int, int]]:
    """(pid, MiB) the fake engines hold on device `index`."""
    folder = Path(host.get("held_dir") or "/nonexistent") / str(index)
    out = []
    for entry in folder.glob("*") if folder.is_dir() else []:
        try:
            pid, mib = int(entry.name), int(float(entry.read_text() or 0))
        except (ValueError, OSError):
            continue
        if _alive(pid):
            out.append((pid, mib))
    return out


def _device(handle) -> tuple[dict, dict]:
    if not _initialized:
        raise NVMLError_Uninitialized()
    host = _host()
    return host, host["devices"][handle.index]


def nvmlInit() -> None:  # noqa: N802
    global _initialized
    _host()
    _initialized = True


nvmlInitWithFlags = lambda flags: nvmlInit()  # noqa: E731,N816


def nvmlShutdown() -> None:  # noqa: N802
    global _initialized
    _initialized = False


def nvmlSystemGetDriverVersion() -> str:  # noqa: N802
    return _host()["driver_version"]


def nvmlSystemGetCudaDriverVersion() -> int:  # noqa: N802
    return int(_host()["cuda_driver_version"])


nvmlSystemGetCudaDriverVersion_v2 = nvmlSystemGetCudaDriverVersion  # noqa: N816


def nvmlDeviceGetCount() -> int:  # noqa: N802
    if not _initialized:
        raise NVMLError_Uninitialized()
    return len(_host()["devices"])


def nvmlDeviceGetHandleByIndex(index: int):  # noqa: N802
    if not 0 <= index < nvmlDeviceGetCount():
        raise NVMLError_InvalidArgument()
    return SimpleNamespace(index=index)


def nvmlDeviceGetName(handle) -> str:  # noqa: N802
    return _device(handle)[1]["name"]


def nvmlDeviceGetUUID(handle) -> str:  # noqa: N802
    return f"GPU-fake0000-0000-0000-0000-{handle.index:012d}"


def nvmlDeviceGetIndex(handle) -> int:  # noqa: N802
    return handle.index


def _processes(host: dict, device: dict, kind: str) -> list[SimpleNamespace]:
    listed = [SimpleNamespace(pid=p["pid"], usedGpuMemory=p["used_mib"] * MiB)
              for p in device.get("processes", []) if p.get("kind", "compute") == kind]
    if kind == "compute":
        listed += [SimpleNamespace(pid=pid, usedGpuMemory=mib * MiB)
                   for pid, mib in held(host, device_index(device, host))]
    return listed


def device_index(device: dict, host: dict) -> int:
    return host["devices"].index(device)


def nvmlDeviceGetComputeRunningProcesses(handle) -> list:  # noqa: N802
    host, device = _device(handle)
    return _processes(host, device, "compute")


def nvmlDeviceGetGraphicsRunningProcesses(handle) -> list:  # noqa: N802
    host, device = _device(handle)
    return _processes(host, device, "graphics")


def _used_by_processes(host: dict, device: dict) -> int:
    by_engines = sum(mib for _, mib in held(host, device_index(device, host)))
    return (by_engines + sum(p["used_mib"] for p in device.get("processes", []))) * MiB


def nvmlDeviceGetMemoryInfo(handle, version=None):  # noqa: N802
    host, device = _device(handle)
    total, reserved = device["total_mib"] * MiB, device.get("reserved_mib", 0) * MiB
    used = _used_by_processes(host, device)
    if not version:
        return SimpleNamespace(total=total, used=reserved + used, free=total - reserved - used)
    if not host.get("nvml_v2", True):
        raise NVMLError_FunctionNotFound()
    return SimpleNamespace(version=version, total=total, reserved=reserved, used=used, free=total - reserved - used)
