"""Oracle: SGLang's own get_cpu_memory_capacity over a described host, run in the SGLang environment.

stdin: JSON list of hosts {"meminfo_total_bytes", "numa_nodes", "node_total_kib", "cgroup_max_bytes",
"omp_threads_bind"} (with "free": true, also "meminfo_available_bytes", "cgroup_current_bytes"); stdout: JSON
list of the MiB the release reads (null for none), or with "free" the GiB get_available_gpu_memory reads.
The host's files, psutil and the NUMA layout are replaced by the description; nothing else is patched.
"""

import json
import logging
import os
import sys
import types

logging.disable(logging.WARNING)

from fake_files import FakeFiles  # noqa: E402
from sglang.srt.utils import common  # noqa: E402


def run(host: dict):
    files = {f"/sys/devices/system/node/node{i}/meminfo": f"Node {i} MemTotal:       {kib} kB\n"
             for i, kib in enumerate(host["node_total_kib"])}
    cgroup = host["cgroup_max_bytes"]
    files["/sys/fs/cgroup/memory.max"] = "max\n" if cgroup is None else f"{cgroup}\n"
    if host.get("cgroup_current_bytes") is not None:
        files["/sys/fs/cgroup/memory.current"] = f"{host['cgroup_current_bytes']}\n"

    common.psutil = types.SimpleNamespace(
        virtual_memory=lambda: types.SimpleNamespace(total=host["meminfo_total_bytes"],
                                                     available=host.get("meminfo_available_bytes")))
    common.get_cpu_ids_by_node = lambda: [str(i) for i in range(host["numa_nodes"])]
    if host["omp_threads_bind"]:
        os.environ["SGLANG_CPU_OMP_THREADS_BIND"] = "0-1"
    else:
        os.environ.pop("SGLANG_CPU_OMP_THREADS_BIND", None)
    with FakeFiles(files):
        if host.get("free"):
            # the pool's base: get_available_gpu_memory(device="cpu"), GiB
            return common.get_available_gpu_memory("cpu", 0)
        return common.get_cpu_memory_capacity()


def answer(cases: list) -> list:
    return [run(h) for h in cases]


if __name__ == "__main__":
    print(json.dumps(answer(json.load(sys.stdin))))
