#!/usr/bin/env python3
"""A fake vLLM 0.32.0 server on the GPU host stand-in: `vllm serve MODEL --port N ...` as the harness launches it.

It sizes its KV cache the way vLLM 0.32.0 does on the cards CUDA_VISIBLE_DEVICES names (NVML indices; the
harness sets CUDA_DEVICE_ORDER=PCI_BUS_ID): requested = ceil(CUDA total x --gpu-memory-utilization) (CUDA's
total: NVML's less the driver's reservation), refused when the card's free memory is below it (E1, vllm/v1/
worker/utils.py request_memory); else KV = requested - weights - non-torch - activation peak - CUDA graphs,
in 16-token blocks. It prints vLLM's GPU lines for what it did (the wording of real 0.32-era GPU logs,
../shared/gpu-logs and ENGINES.md V10/V13/V19/E1), holds `requested` MiB on each of its cards while it runs
(a file the fake NVML counts: tests/support/gpu_host/pynvml.py), and serves vLLM's API over its pool
(tests/support/serving_api.py, for the probe).

The model's terms come from the environment (defaults: Llama-3.1-8B in bf16 on one card): STANDIN_WEIGHTS_GIB
(14.99, split over --tensor-parallel-size), STANDIN_KV_BYTES_PER_TOKEN (131072, likewise), STANDIN_NON_TORCH_GIB
(0.30), STANDIN_ACTIVATION_GIB (0.58), STANDIN_GRAPH_GIB (0.41; 0 with --enforce-eager), STANDIN_CONTEXT_MIB
(500: its CUDA context, taken before it reads free memory, outside the budget). Faults:
STANDIN_LINGER_S=<s> keeps holding the memory that long after SIGTERM (a slow release).
Not modelled: vLLM's profiling itself, hybrid/MLA/sliding-window pools, pipeline parallel, NCCL buffers.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from standin_engine import vllm_serve_parser  # tests/support/standin_engine.py

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_runtime import mem_get_info  # what its torch.cuda.mem_get_info would say
from fake_server import GiB, MiB, cards, hold, host, serve_until_stopped, term
from serving_api import pool_from_environment  # tests/support/serving_api.py

BLOCK = 16


def say(text: str, level: str = "INFO", where: str = "gpu_worker.py:759") -> None:
    stamp = time.strftime("%m-%d %H:%M:%S")
    sys.stdout.write(f"(EngineCore pid={os.getpid()}) {level} {stamp} [{where}] {text}\n")
    sys.stdout.flush()


def main() -> int:
    p = vllm_serve_parser(max_model_len=131072)
    p.add_argument("--tensor-parallel-size", type=int, default=1)
    p.add_argument("--enforce-eager", action="store_true")
    args, _ = p.parse_known_args()
    described = host()
    used = cards(described)[:args.tensor_parallel_size]
    tp = args.tensor_parallel_size
    weights = term("STANDIN_WEIGHTS_GIB", 14.99) / tp * GiB
    per_token = term("STANDIN_KV_BYTES_PER_TOKEN", 131072) / tp
    non_torch, activation = term("STANDIN_NON_TORCH_GIB", 0.30) * GiB, term("STANDIN_ACTIVATION_GIB", 0.58) * GiB
    graph = 0.0 if args.enforce_eager else term("STANDIN_GRAPH_GIB", 0.41) * GiB
    say("vLLM API server version 0.32.0", where="api_server.py:1")
    util = args.gpu_memory_utilization
    first = described["devices"][used[0]]
    total = (first["total_mib"] - first.get("reserved_mib", 0)) * MiB
    requested = math.ceil(total * util)
    # the worker's snapshot comes after its CUDA context is up: that much of the card is no longer free
    context = term("STANDIN_CONTEXT_MIB", 500) * MiB
    free = min(mem_get_info(rank)[0] for rank in range(len(used))) - context
    if free < requested:
        sys.stdout.write(f"ValueError: Free memory on device cuda:0 ({free / GiB:.2f}/{total / GiB:.2f} GiB) on "
                         f"startup is less than desired GPU memory utilization ({util}, {requested / GiB:.2f} GiB). "
                         "Decrease GPU memory utilization or reduce GPU memory used by other processes.\n")
        return 1
    hold(described, used, requested + context)  # what the worker holds from here on
    say(f"Model loading took {weights / GiB:.2f} GiB memory and 6.431207 seconds", where="gpu_model_runner.py:5149")
    available = requested - weights - non_torch - activation - graph
    say(f"Available KV cache memory: {available / GiB:.2f} GiB")
    tokens = max(0, int(available // (per_token * BLOCK))) * BLOCK
    say(f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {args.max_model_len:,} tokens per request: "
        f"{tokens / args.max_model_len:.2f}x", where="kv_cache_utils.py:2327")
    return serve_until_stopped(args.port, pool_from_environment("vllm", tokens, BLOCK, args.max_model_len))


if __name__ == "__main__":
    sys.exit(main())
