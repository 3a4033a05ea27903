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

from harness.errors import InputError

log = logging.getLogger(__name__)

# Flags that multiply the GPUs one engine takes, by engine-native name (scenario keys or
# verbatim `--flag` pass-through, normalised). SGLang's dp_size only adds GPUs without
# --enable-dp-attention; with it, the DP ranks live inside the TP group.
_TP = ("tensor_parallel_size", "tp_size", "tp")
_PP = ("pipeline_parallel_size", "pp_size", "pp")
_DP = ("data_parallel_size", "dp_size", "dp")


def _normalised(args: dict) -> dict:
    return {k.lstrip("-").replace("-", "_"): v for k, v in args.items() if v is not None and v is not False}


def _factor(args: dict, names: tuple[str, ...], point_id: str) -> int:
    for name in names:
        if name in args:
            try:
                value = int(args[name])
            except (TypeError, ValueError):
                raise InputError(f"point {point_id}: {name}={args[name]!r} is not a whole number") from None
            if value < 1:
                raise InputError(f"point {point_id}: {name}={value} must be at least 1")
            return value
    return 1


def gpus_needed(point) -> int:
    """GPUs one launch of `point` occupies: TP x PP (x DP where DP adds engines)."""
    args = _normalised(point.args)
    n = _factor(args, _TP, point.point_id) * _factor(args, _PP, point.point_id)
    if not (point.engine == "sglang" and args.get("enable_dp_attention")):
        n *= _factor(args, _DP, point.point_id)
    return n


def parse_gpus(text: str) -> list[int]:
    """`--gpus 0,1,3` -> [0, 1, 3]; ranges `0-3` too. Duplicates are refused: two engines on one GPU mis-size each other."""
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


def sglang_gpu_warning(points, host_gpus: list) -> str | None:
    """SGLang sizes its defaults from the smallest GPU nvidia-smi lists, ignoring
    CUDA_VISIBLE_DEVICES (ENGINES.md 2.6): on a host with mixed cards say so, once."""
    if not host_gpus or not any(p.engine == "sglang" for p in points):
        return None
    sizes = {round(g.total_mib) for g in host_gpus}
    if len(sizes) < 2:
        return None
    smallest = min(host_gpus, key=lambda g: g.total_mib)
    listed = ", ".join(f"GPU {g.index} {g.total_mib / 1024:.0f} GiB" for g in host_gpus)
    return (f"this host mixes GPU sizes ({listed}): SGLang reads total GPU memory as the smallest on the host "
            f"({smallest.total_mib / 1024:.0f} GiB, GPU {smallest.index}) whichever GPU it runs on, so its defaults "
            "on the larger cards are those of the smallest")

