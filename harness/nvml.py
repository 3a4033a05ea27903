"""Whether this host has NVIDIA GPUs, as NVML (nvidia-ml-py) says: the one GPU detector the env flavour
(CUDA or CPU builds) and the run's device both follow."""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def device_count() -> int:
    """NVML's device count; 0 without a driver or without nvidia-ml-py."""
    try:
        import pynvml

        pynvml.nvmlInit()
        return int(pynvml.nvmlDeviceGetCount())
    except Exception as exc:  # noqa: BLE001 - ImportError, NVMLError_LibraryNotFound, driver errors
        log.debug("NVML unavailable: %s", exc)
        return 0
