"""Whether this host has NVIDIA GPUs, as NVML (nvidia-ml-py) says: the one GPU detector the env flavour
(CUDA or CPU builds) and the run's device both follow."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def device_count() -> int:
    """NVML's device count; 0 without a driver or without nvidia-ml-py."""
    try:
        import pynvml  # lazy: nvidia-ml-py may be absent (ImportError: no GPU here)

        pynvml.nvmlInit()
        return int(pynvml.nvmlDeviceGetCount())
    except Exception as exc:  # noqa: BLE001 - ImportError, NVMLError_LibraryNotFound, driver errors
        log.debug("NVML unavailable: %s", exc)
        return 0


def driver_versions() -> tuple[str, int | None] | None:
    """(the driver's version, the CUDA version it supports as NVML says it: 12080 for 12.8), None without
    a driver; the CUDA version None when NVML cannot say (a driver before CUDA 10.1's NVML)."""
    try:
        import pynvml  # lazy: nvidia-ml-py may be absent (ImportError: no GPU here)

        pynvml.nvmlInit()
        driver = pynvml.nvmlSystemGetDriverVersion()
    except Exception as exc:  # noqa: BLE001 - as device_count
        log.debug("NVML unavailable: %s", exc)
        return None
    try:
        cuda = int(pynvml.nvmlSystemGetCudaDriverVersion())
    except Exception:  # noqa: BLE001
        cuda = None
    return (driver.decode() if isinstance(driver, bytes) else driver), cuda
