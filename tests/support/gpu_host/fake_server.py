"""What the fake GPU engines (vllm_gpu.py, sglang_gpu.py) share: the cards they run on, the memory they hold
there, and serving until they are stopped."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from serving_api import Pool, serve_api  # tests/support/serving_api.py
from standin_engine import serve_health  # tests/support/standin_engine.py

MiB, GiB = 1 << 20, 1 << 30


def host() -> dict:
    return json.loads(Path(os.environ["KVH_FAKE_GPU_HOST"]).read_text())


def cards(described: dict) -> list[int]:
    """The NVML indices CUDA_VISIBLE_DEVICES names (the harness sets CUDA_DEVICE_ORDER=PCI_BUS_ID), else all."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return [int(v) for v in visible.split(",") if v.strip()] if visible else list(range(len(described["devices"])))


def term(name: str, default: float) -> float:
    """A model or host term the test sets in the environment (STANDIN_*)."""
    return float(os.environ.get(name, default))


def hold(described: dict, indices: list[int], nbytes: float) -> None:
    """Hold `nbytes` on each card from now on: a file the fake NVML counts (tests/support/gpu_host/pynvml.py)."""
    for i in indices:
        folder = Path(described["held_dir"]) / str(i)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / str(os.getpid())).write_text(f"{nbytes / MiB:.0f}")


def serve_until_stopped(port: int, pool: Pool | None = None) -> int:
    """Answer /health (and with a `pool`, the engine's API over it: the probe's requests and /metrics) until
    SIGTERM; the memory comes back only when the process is gone, STANDIN_LINGER_S seconds after the signal (a
    slow release)."""
    linger = term("STANDIN_LINGER_S", 0)

    def stop(*_):
        time.sleep(linger)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    if port and pool is not None:
        threading.Thread(target=serve_api, args=(pool, port), daemon=True).start()
    elif port:
        serve_health(port)
    time.sleep(3600)
    return 0
