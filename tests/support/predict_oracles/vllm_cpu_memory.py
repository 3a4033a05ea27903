"""Oracle: vLLM-CPU's own get_memory_node_info and its KV request, run in the vLLM environment.

stdin: JSON list of hosts {"node_meminfo": {"MemTotal": kB, "MemFree": kB, ...} or null, "meminfo_total_bytes",
"meminfo_available_bytes", "cgroup": {path: text}, "utilization"}; stdout: JSON list of
[total bytes, available bytes, requested bytes] per host. The node's meminfo file, the cgroup files and
psutil are replaced by the description; the request is cpu_worker's ceil(total x utilization).
"""

import json
import logging
import math
import sys
import types

logging.disable(logging.WARNING)

import vllm.utils.cpu_resource_utils as cru  # noqa: E402
from fake_files import FakeFiles  # noqa: E402

NODE = "/sys/devices/system/node/node0/meminfo"


def run(host: dict):
    files = dict(host["cgroup"])
    if host["node_meminfo"] is not None:
        files[NODE] = "".join(f"Node 0 {key}:    {kib} kB\n" for key, kib in host["node_meminfo"].items())

    cru.psutil = types.SimpleNamespace(virtual_memory=lambda: types.SimpleNamespace(
        total=host["meminfo_total_bytes"], available=host["meminfo_available_bytes"]))
    cru.get_cgroup_memory_limit.cache_clear()
    fake = FakeFiles(files)
    real_exists, cru.os.path.exists = cru.os.path.exists, fake.exists
    try:
        with fake:
            info = cru.get_memory_node_info(0)
    finally:
        cru.os.path.exists = real_exists
    # vllm/v1/worker/cpu_worker.py:72-75 (0.32.0): the worker's reservation
    requested = math.ceil(info.total_memory * host["utilization"])
    return [info.total_memory, info.available_memory, requested]


def answer(cases: list) -> list:
    return [run(h) for h in cases]


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
