"""Which GPUs a sweep may use, how many a point needs, and who holds which right now.

GPU indices are NVML indices (the order `nvidia-smi` shows). An executor hands a point
its indices through `CUDA_VISIBLE_DEVICES` together with `CUDA_DEVICE_ORDER=PCI_BUS_ID`:
CUDA's own default order (fastest first) can differ from NVML's on mixed hosts, and then
the GPU protocol would watch one card while the engine sizes itself on another.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable

from harness.engines import get_engine
from harness.errors import InputError
from harness.execute.gpu import visible_gpu_count

log = logging.getLogger(__name__)

def gpus_needed(point) -> int:
    """GPUs one launch of `point` occupies: its engine's TP x PP (x DP where DP adds engines)."""
    try:
        return get_engine(point.engine).launch.gpus_needed(point.args)
    except InputError as exc:
        raise InputError(f"point {point.point_id}: {exc}") from None


def parse_gpus(text: str) -> list[int]:
    """`--gpus 0,1,3` -> [0, 1, 3]; ranges `0-3` too. Duplicates are refused: two engines on one GPU mis-size
    each other."""
    indices: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        lo, sep, hi = part.partition("-")
        try:
            values = range(int(lo), int(hi) + 1) if sep else [int(part)]
        except ValueError:
            raise InputError(f"--gpus {text}: {part!r} is not a GPU index (give e.g. 0,1,2,3 or 0-3)") from None
        indices.extend(values)
    if not indices:
        raise InputError(f"--gpus {text!r}: no GPU index given")
    if any(i < 0 for i in indices):
        raise InputError(f"--gpus {text}: GPU indices start at 0")
    seen = sorted({i for i in indices if indices.count(i) > 1})
    if seen:
        raise InputError(f"--gpus {text}: GPU {seen[0]} given twice; one engine per GPU at a time")
    return indices


def check_gpus(indices: list[int], count: int | None) -> None:
    """Refuse indices this host does not have (count None: no NVML, any index is a fake slot)."""
    if count is None:
        return
    missing = [i for i in indices if i >= count]
    if missing:
        raise InputError(f"--gpus: no GPU {missing[0]} on this host (NVML lists {count}: 0-{count - 1})")


def default_gpus(count: int, visible: str | None = None) -> list[int]:
    """All GPUs the harness may use: those CUDA_VISIBLE_DEVICES names (as indices), else all NVML lists."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES") if visible is None else visible
    if visible is None:
        return list(range(count))
    if visible.strip() in ("", "-1"):
        raise InputError("CUDA_VISIBLE_DEVICES hides every GPU; unset it or pass --gpus")
    try:
        indices = [int(v) for v in visible.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"CUDA_VISIBLE_DEVICES={visible} names GPUs by UUID; pass --gpus with NVML indices") from None
    check_gpus(indices, count)
    return indices


def usable_gpus() -> list[int]:
    """The GPUs of this host the harness may use (default_gpus over NVML's count); [] without any."""
    count = visible_gpu_count()
    return default_gpus(count) if count else []


def gpu_env(gpus: Iterable) -> dict[str, str]:
    return {"CUDA_VISIBLE_DEVICES": ",".join(map(str, gpus)), "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}


class GpuPool:
    """Free / held / retired GPUs of one sweep. Not thread-safe: one scheduler owns it."""

    def __init__(self, gpus: list[int]):
        self.order = list(gpus)
        self.free = list(gpus)
        self.retired: set[int] = set()

    @property
    def usable(self) -> int:
        return len(self.order) - len(self.retired)

    def take(self, n: int) -> list[int] | None:
        """The first n free GPUs (in --gpus order), or None when fewer are free."""
        if len(self.free) < n:
            return None
        got, self.free = self.free[:n], self.free[n:]
        return got

    def give(self, gpus: list[int]) -> None:
        back = set(self.free) | {g for g in gpus if g not in self.retired}
        self.free = [g for g in self.order if g in back]

    def retire(self, gpus: list[int]) -> None:
        """Take GPUs out of the sweep (found busy): no further point is placed on them."""
        self.retired.update(gpus)
        self.free = [g for g in self.free if g not in self.retired]


def host_gpu_warnings(points, host_gpus: list) -> list[str]:
    """Each engine's word on this host's GPUs, once per engine the sweep runs."""
    if not host_gpus:
        return []
    engines = dict.fromkeys(p.engine for p in points)
    return [w for w in (get_engine(e).launch.host_gpu_warning(host_gpus) for e in engines) if w]
