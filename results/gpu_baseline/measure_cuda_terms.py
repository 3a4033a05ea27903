"""What a CUDA process holds on a real card besides the torch allocator's blocks, stage by stage: the terms the vLLM
predictor estimates without a GPU run (harness/engines/vllm/formulas.py CUDA_CONTEXT_GIB_ESTIMATE and
CUBLAS_HANDLES_GIB_ESTIMATE, harness/engines/vllm/non_torch.py ONE_RANK_GIB, GRAPH_MIB_PER_GRAPH_FLOOR), and what the
harness itself reads there (NVML through harness/execute/gpu.py, cudaMemGetInfo's total through
harness/execute/cuda_reading.py).

Run on a GPU host with torch: `python results/gpu_baseline/measure_cuda_terms.py OUT.json`. Each stage is measured
in a child that starts CUDA itself, as an engine's worker does; NVML, which makes no CUDA context, reads the card
from outside. "non_torch" at a stage is what the card holds beyond the idle card and torch's reserved blocks: the
quantity vLLM's profile counts as non-torch memory (0.32.0 vllm/utils/mem_utils.py, MemorySnapshot)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MiB = 1 << 20

CHILD = r"""
import json, os, sys, time
import pynvml
pynvml.nvmlInit()
handle = pynvml.nvmlDeviceGetHandleByIndex(0)
idle_used = pynvml.nvmlDeviceGetMemoryInfo(handle).used
import torch
MiB = 1 << 20
rows = []
def stage(name):
    torch.cuda.synchronize()
    free, total = torch.cuda.mem_get_info()
    used = pynvml.nvmlDeviceGetMemoryInfo(handle).used
    reserved = torch.cuda.memory_reserved()
    rows.append({"stage": name, "nvml_used_over_idle_mib": (used - idle_used) / MiB,
                 "cuda_used_mib": (total - free) / MiB, "torch_reserved_mib": reserved / MiB,
                 "non_torch_mib": (used - idle_used - reserved) / MiB})
torch.cuda.set_device(0)
torch.zeros(1, device="cuda")
stage("context: first tensor")
# vLLM 0.33.0's warm-up before its snapshot (gpu_worker.py:519-531): a 16x16 matmul and a linear with a bias
a = torch.randn(16, 16, device="cuda", dtype=torch.float16)
(a @ a).sum().item()
w = torch.randn(16, 16, device="cuda", dtype=torch.bfloat16)
torch.nn.functional.linear(w, w, torch.zeros(16, device="cuda", dtype=torch.bfloat16)).sum().item()
stage("cuBLAS and cuBLASLt: 16x16 mm, linear with bias")
x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
(x @ x).sum().item()
stage("a 4096x4096 bf16 matmul")
q = torch.randn(8, 32, 1024, 128, device="cuda", dtype=torch.bfloat16)
torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True).sum().item()
torch.softmax(x.float(), -1).topk(8).values.sum().item()
torch.nn.functional.rms_norm(x, (4096,)).sum().item() if hasattr(torch.nn.functional, "rms_norm") else None
torch.nn.functional.embedding(torch.arange(64, device="cuda"), x).sum().item()
stage("kernels a forward loads: SDPA, softmax, topk, rms_norm, embedding")
import torch.distributed as dist
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29517", world_size=1, rank=0,
                        device_id=torch.device("cuda", 0))
t = torch.ones(1024, device="cuda")
dist.all_reduce(t)
torch.cuda.synchronize()
stage("NCCL: one-rank group and its first all_reduce")
s = torch.randn(256, 4096, device="cuda", dtype=torch.bfloat16)
graph = torch.cuda.CUDAGraph()
side = torch.cuda.Stream()
with torch.cuda.stream(side):
    (s @ x).sum()
torch.cuda.current_stream().wait_stream(side)
with torch.cuda.graph(graph):
    out = s @ x
graph.replay()
stage("one CUDA graph captured and replayed")
graphs = []
for n in (8, 16, 32, 64):
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, pool=graph.pool()):
        o = s[:n] @ x
    g.replay()
    graphs.append((g, o))
stage("four more graphs in the first graph's pool")
dist.destroy_process_group()
print("KVH-STAGES " + json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda,
                                  "module_loading": os.environ.get("CUDA_MODULE_LOADING", "(torch's default)"),
                                  "stages": rows}), flush=True)
"""


def harness_readings() -> dict:
    """The card as the harness reads it: NVML's state, the driver, cudaMemGetInfo's total through a child."""
    from harness.execute.cuda_reading import cuda_total_mib
    from harness.execute.gpu import in_card_class, nvml_reader
    from harness.nvml import device_count, driver_versions

    state = nvml_reader()(0)
    cuda_total = cuda_total_mib(sys.executable, {}, 0)
    return {"device_count": device_count(), "driver_versions": driver_versions(), "nvml": state.__dict__,
            "others_mib": state.others_mib, "cuda_total_mib": cuda_total,
            "nvml_total_less_cuda_total_mib": state.total_mib - cuda_total if cuda_total else None,
            "in_card_class_80": in_card_class(state.total_mib, 80)}


def child_stages(module_loading: str | None) -> dict:
    env = dict(os.environ)
    if module_loading:
        env["CUDA_MODULE_LOADING"] = module_loading
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CHILD], check=False, env=env, capture_output=True, text=True,
                          timeout=240)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("KVH-STAGES ")), None)
    if line is None:
        return {"error": proc.stderr[-3000:], "returncode": proc.returncode}
    return {**json.loads(line[len("KVH-STAGES "):]), "wall_s": round(time.monotonic() - started, 1)}


def main() -> None:
    out = {"harness": harness_readings(), "lazy": child_stages(None), "eager": child_stages("EAGER"),
           "lazy_again": child_stages(None)}
    out["harness_after"] = harness_readings()
    text = json.dumps(out, indent=1, default=str)
    print(text)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
