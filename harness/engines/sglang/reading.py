"""The host memory SGLang-CPU sized from, read back from its own log lines.

SGLang-CPU reads host memory twice: its default mem_fraction_static from the memory capacity when
the server arguments are settled (0.5.22 sglang/srt/utils/common.py:862 get_cpu_memory_capacity,
never logged; the fraction it gives is, in server_args), and the free memory its pool is a fraction
of just before the weights load, logged as "Load weight begin. avail mem=X GB" (0.5.22
sglang/srt/model_executor/model_runner.py:1255; GB there is GiB). Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from harness.predict.host import DeviceMemory, as_logged_mib

# The default fraction is printed rounded to 3 decimals (0.5.22 memory_hook.py: round(..., 3)).
FRACTION_HALF_STEP = 0.0005


def capacity_read(readings: list[DeviceMemory], logged_fraction: float | None,
                  fraction_for: Callable[[DeviceMemory], float | None]) -> DeviceMemory | None:
    """The first of the harness's readings whose capacity gives the default fraction SGLang logged;
    None when none does (or nothing was logged): then the capacity SGLang read is not known to a reading."""
    if logged_fraction is None:
        return None
    for reading in readings:
        fraction = fraction_for(reading)
        if fraction is not None and abs(fraction - logged_fraction) <= FRACTION_HALF_STEP / 10:
            return reading
    return None


def host_memory_read(readings: list[DeviceMemory], avail_before_load_gib: float | None,
                     logged_default_fraction: float | None,
                     fraction_for: Callable[[DeviceMemory], float | None]) -> DeviceMemory | None:
    """What SGLang-CPU read: the capacity reading that reproduces its default fraction (the launch's
    reading when the fraction was given, or none reproduces it), and the free memory it logged before
    loading (the harness's exact figure when one rounds to it)."""
    if not readings:
        return None
    base = capacity_read(readings, logged_default_fraction, fraction_for) or readings[0]
    free = as_logged_mib(avail_before_load_gib, [r.free_mib for r in reversed(readings)])
    if free is None:  # it stopped before loading: no reading of its own, the one before the launch stands
        return replace(base, free_mib=readings[0].free_mib, free_at_load=False)
    return replace(base, free_mib=free, free_at_load=True,
                   basis=base.basis + "; free memory as SGLang logged it before loading")
