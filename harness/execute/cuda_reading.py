"""The device total CUDA reports to an engine (cudaMemGetInfo), read through the engine env's own torch.

vLLM sizes its budget from this total, not NVML's: on a 24 GB card several hundred MiB less (what the
driver reserves). It is read once per (interpreter, device) in a process, in a child that sees only that
device, the way the engine will (CUDA_DEVICE_ORDER=PCI_BUS_ID: NVML's order)."""

from __future__ import annotations

import logging
import subprocess

from harness.childproc import child_environ

log = logging.getLogger(__name__)

TAG = "KVH-CUDA-MEM "
SCRIPT = f"import torch; free, total = torch.cuda.mem_get_info(0); print({TAG!r}, free, total, flush=True)"
_read: dict[tuple[str, int], float | None] = {}


def cuda_total_mib(python: str, env_vars: dict[str, str], index: int, timeout_s: float = 120) -> float | None:
    """cudaMemGetInfo's total of NVML device `index` as the env's torch reads it; None when it cannot."""
    key = (str(python), index)
    if key not in _read:
        env = child_environ({**env_vars, "CUDA_DEVICE_ORDER": "PCI_BUS_ID", "CUDA_VISIBLE_DEVICES": str(index)})
        try:
            proc = subprocess.run([str(python), "-c", SCRIPT], check=False, env=env, capture_output=True, text=True,
                                  timeout=timeout_s)
            line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(TAG)), None)
            _read[key] = int(line.split()[-1]) / 2**20 if line else None
            if line is None:
                log.warning("no CUDA memory reading from %s on GPU %d: %s", python, index,
                            (proc.stderr.strip().splitlines() or ["no output"])[-1])
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("no CUDA memory reading from %s on GPU %d: %s", python, index, exc)
            _read[key] = None
    return _read[key]


def engine_gpu_total_mib(source: str, python: str, env_vars: dict[str, str], read, indices: list[int],
                         device_count: int) -> float | None:
    """The total an engine sizes from on its first device (`Engine.gpu_total_source`); None: NVML's own."""
    if source == "cuda":
        return cuda_total_mib(python, env_vars, indices[0])
    if source == "nvml_min" and device_count:
        return min(read(i).total_mib for i in range(device_count))
    return None
