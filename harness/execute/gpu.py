"""GPU protocol through NVML: refuse a busy GPU, record the baseline,
wait for memory to come back after a server stops.

Everything here takes a `read` function (GPU index -> GpuState) so tests can drive it
with fake devices; `nvml_reader()` gives the real one, or None on a host without an
NVIDIA driver, where the protocol is skipped and recorded as such.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.errors import EXIT_USAGE, HarnessError
from harness.nvml import device_count

log = logging.getLogger(__name__)

# Memory other CUDA work holds above this is another job on the card. The driver's reservation and a
# desktop's display server are apart (GpuState.others_mib): neither goes away, and both are on the row.
BUSY_THRESHOLD_MIB = 512
RELEASE_TOLERANCE_MIB = 64
NO_GPU_NOTE = "no NVIDIA GPU (NVML unavailable): GPU idle/release checks skipped"


@dataclass(frozen=True)
class GpuState:
    index: int
    name: str
    total_mib: float
    used_mib: float  # all in use, as NVML's v1 memory info counts it: the driver's reservation included
    driver_version: str
    reserved_mib: float = 0.0  # what the driver reserves (v2 memory info; ~870 MiB on an idle A100-80GB)
    display_mib: float = 0.0  # graphics processes (a display server) that run no CUDA work

    @property
    def others_mib(self) -> float:
        """Memory other CUDA work holds: neither the driver's reservation nor a desktop's display."""
        return max(0.0, self.used_mib - self.reserved_mib - self.display_mib)


Reader = Callable[[int], GpuState]


class GpuBusyError(HarnessError):
    """The host is not ready (another process holds the card): not a failure of the harness."""

    exit_code = EXIT_USAGE


def nvml_reader() -> Reader | None:
    """A reader backed by NVML, or None where there is no NVIDIA driver or no nvidia-ml-py."""
    try:
        import pynvml  # lazy: nvidia-ml-py may be absent (ImportError: no GPU here)

        pynvml.nvmlInit()
        if pynvml.nvmlDeviceGetCount() == 0:
            return None
    except Exception as exc:  # noqa: BLE001 - ImportError, NVMLError_LibraryNotFound, driver errors
        log.debug("NVML unavailable: %s", exc)
        return None

    driver = pynvml.nvmlSystemGetDriverVersion()
    driver = driver.decode() if isinstance(driver, bytes) else driver

    def read(index: int) -> GpuState:
        handle = pynvml.nvmlDeviceGetHandleByIndex(index)
        name = pynvml.nvmlDeviceGetName(handle)
        compute = _process_memory(pynvml, "nvmlDeviceGetComputeRunningProcesses", handle)
        graphics = _process_memory(pynvml, "nvmlDeviceGetGraphicsRunningProcesses", handle)
        display = sum(used for pid, used in graphics.items() if pid not in compute and used is not None)
        try:
            # v2 reports the driver's reservation apart (drivers >= 510); v1's used includes it
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle, version=pynvml.nvmlMemory_v2)
            total, used, reserved = memory.total, memory.reserved + memory.used, memory.reserved
        except (AttributeError, pynvml.NVMLError):
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle)
            total, used = memory.total, memory.used
            held = list({**graphics, **compute}.values())
            # without v2, what no process holds is the driver's (when every process's memory is known)
            reserved = max(0, used - sum(held)) if None not in held else 0
        return GpuState(index, name.decode() if isinstance(name, bytes) else name, total / 2**20, used / 2**20,
                        driver, reserved / 2**20, display / 2**20)

    return read


def _process_memory(pynvml, function: str, handle) -> dict[int, int | None]:
    """pid -> bytes held (None where NVML cannot say: another container's process, say)."""
    try:
        processes = getattr(pynvml, function)(handle)
    except (AttributeError, pynvml.NVMLError):
        return {}
    return {p.pid: p.usedGpuMemory for p in processes}


# A card "sold as N GB" has a little less than N GiB usable to NVML: the L4 and A10G, cloud "24 GB" cards,
# report 23,034 and 23,028 MiB (22.5 GiB), the RTX 3090/4090 24,576 MiB; an L40S "48 GB" 46,068 MiB (45.0
# GiB); an H100 "80 GB" 81,559 MiB. A scenario's gpu.memory_gib names such a class.
CARD_CLASS_LOW = 0.93  # the smallest card of a class, as a share of its size (L4: 22.49 / 24)
CARD_CLASS_HIGH = 1.01


def in_card_class(card_mib: float, class_gib: float) -> bool:
    """Whether a card of `card_mib` (NVML's total) is one sold as `class_gib` GB."""
    return CARD_CLASS_LOW <= card_mib / 1024 / class_gib <= CARD_CLASS_HIGH


def visible_gpu_count() -> int:
    return device_count()


def wait_until_idle(read: Reader, indices: list[int], wait_s: float = 0.0, poll_s: float = 2.0,
                    threshold_mib: float = BUSY_THRESHOLD_MIB, clock=time.monotonic,
                    sleep=time.sleep) -> dict[int, GpuState]:
    """Baseline per GPU; raises GpuBusyError if a GPU stays above the threshold for wait_s."""
    deadline = clock() + wait_s
    while True:
        states = {i: read(i) for i in indices}
        busy = {i: s for i, s in states.items() if s.others_mib > threshold_mib}
        if not busy:
            return states
        if clock() >= deadline:
            shown = ", ".join(f"GPU {i} has {s.others_mib:.0f} MiB in use by other processes" for i, s in busy.items())
            hint = "" if wait_s else (" (free it, pass --wait-for-idle-gpu SECONDS, or --shared-gpu to measure "
                                      "beside it)")
            raise GpuBusyError(f"GPU busy before launch: {shown}; another process would change every number{hint}")
        sleep(poll_s)


def wait_for_release(read: Reader, baseline: dict[int, GpuState], timeout_s: float = 120.0, poll_s: float = 1.0,
                     stable_polls: int = 3, tolerance_mib: float = RELEASE_TOLERANCE_MIB,
                     clock=time.monotonic, sleep=time.sleep) -> str | None:
    """Wait until used memory is back at baseline for `stable_polls` polls in a row.

    Returns None when released, or a note naming what still holds memory at the timeout
    (recorded on the row; the caller must not start the next point on a dirty GPU).
    """
    deadline = clock() + timeout_s
    streak = 0
    while True:
        states = {i: read(i) for i in baseline}
        dirty = {i: s for i, s in states.items() if s.used_mib > baseline[i].used_mib + tolerance_mib}
        streak = 0 if dirty else streak + 1
        if streak >= stable_polls:
            return None
        if clock() >= deadline:
            return "GPU memory not released within {:.0f} s: {}".format(timeout_s, ", ".join(
                f"GPU {i} at {s.used_mib:.0f} MiB vs baseline {baseline[i].used_mib:.0f} MiB"
                for i, s in dirty.items()))
        sleep(poll_s)
