"""What CUDA's cudaMemGetInfo reports on the GPU host stand-in, for a fake engine env's torch
(`torch.cuda.mem_get_info`): the devices CUDA_VISIBLE_DEVICES names (NVML indices; the harness sets
CUDA_DEVICE_ORDER=PCI_BUS_ID, NVML's order), each with NVML's total less what the driver reserves (an idle
A100-80GB: 81,920 - 870 = 81,050 MiB, torch's "79.15 GiB"), and free = that less what processes hold."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pynvml import held  # the fake NVML beside it: one reading of what the fake engines hold

MiB = 1 << 20


def mem_get_info(device: int = 0) -> tuple[int, int]:
    host = json.loads(Path(os.environ["KVH_FAKE_GPU_HOST"]).read_text())
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    order = ([int(x) for x in visible.split(",") if x.strip()] if visible is not None
             else list(range(len(host["devices"]))))
    if device >= len(order):
        raise RuntimeError("CUDA error: invalid device ordinal")
    index = order[device]
    card = host["devices"][index]
    total = (card["total_mib"] - card.get("reserved_mib", 0)) * MiB
    used = (sum(p["used_mib"] for p in card.get("processes", [])) + sum(mib for _, mib in held(host, index))) * MiB
    return total - used, total
