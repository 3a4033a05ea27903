#!/usr/bin/env python3
"""A fake vLLM server on the GPU host stand-in: `vllm serve MODEL --port N ...` as the harness launches it, as
the release STANDIN_VLLM_RELEASE names (default 0.32.0; the releases vllm_rules.RELEASES, whose source was read).

It sizes its KV cache the way that release does on the cards CUDA_VISIBLE_DEVICES names (NVML indices; the
harness sets CUDA_DEVICE_ORDER=PCI_BUS_ID), by its own rules (tests/support/gpu_host/vllm_rules.py, read from the
wheels, not the harness's predictor): requested = ceil(CUDA total x --gpu-memory-utilization) (CUDA's total:
NVML's less the driver's reservation), refused when the card's free memory is below it (E1, vllm/v1/worker/utils.py
request_memory); else the KV memory is --kv-cache-memory-bytes when given, or requested - weights - non-torch -
activation peak - the CUDA-graph estimate (where the release subtracts it); then 16-token blocks of the model's
KV bytes, the length check against them (the null block held back from 0.29.0: E2/E3 with the estimated length),
and the release's logged token count. It prints each line in the release's own wording (the committed format tables,
tests/support/gpu_host/wording.py), holds what it asked for on each of its cards while it runs (a file the fake NVML
counts: tests/support/gpu_host/pynvml.py), and serves vLLM's API over its pool (tests/support/serving_api.py).

The card's memory: CUDA's total and free (tests/support/gpu_host/cuda_runtime.py), less the fake's CUDA context
(STANDIN_CONTEXT_MIB, 500: taken before it reads free memory, outside the budget). What it holds - the stand-in's
own figures, from the environment (defaults: Llama-3.1-8B in bf16 on one card): STANDIN_WEIGHTS_GIB (14.99, split
over --tensor-parallel-size), STANDIN_KV_BYTES_PER_TOKEN (131072, likewise), STANDIN_NON_TORCH_GIB (0.30),
STANDIN_ACTIVATION_GIB (0.58), STANDIN_GRAPH_GIB (0.41; 0 with --enforce-eager). Faults: STANDIN_LINGER_S=<s> keeps
holding the memory that long after SIGTERM (a slow release).
Not modelled: vLLM's profiling itself, hybrid/MLA/sliding-window pools, pipeline parallel, NCCL buffers, auto-fit
(--max-model-len -1), num_gpu_blocks_override.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from standin_engine import vllm_serve_parser  # tests/support/standin_engine.py

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vllm_rules as rules
from cuda_runtime import mem_get_info  # what its torch.cuda.mem_get_info would say
from fake_server import GiB, MiB, cards, hold, host, serve_until_stopped, term
from serving_api import pool_from_environment  # tests/support/serving_api.py
from wording import render, row, where


def say(release: str, fact: str, names: dict, prefer: str = "") -> None:
    """One INFO line of the engine core, in the release's wording for `fact`."""
    template = row("vllm", release, fact, prefer)
    stamp = time.strftime("%m-%d %H:%M:%S")
    sys.stdout.write(f"(EngineCore pid={os.getpid()}) INFO {stamp} [{where(template)}] {render(template, names)}\n")
    sys.stdout.flush()


def fail(release: str, fact: str, names: dict) -> int:
    """The startup error the engine raises, as its traceback's last line."""
    sys.stdout.write(f"ValueError: {render(row('vllm', release, 'error:' + fact), names)}\n")
    sys.stdout.flush()
    return 1


def estimated_msg(release: str, estimate: int) -> str:
    """The E3 message's estimate sentence (0.32.0 kv_cache_utils.py:1023-1028; 0.13.0 :705-708 has no space after
    it), empty when not even one token fits."""
    if estimate <= 0:
        return ""
    end = " " if rules.from_release(release, "0.14.0") else ""
    return f"Based on the available memory, the estimated maximum model length is {estimate}.{end}"


def main() -> int:
    p = vllm_serve_parser(max_model_len=131072)
    p.set_defaults(gpu_memory_utilization=None)
    p.add_argument("--tensor-parallel-size", type=int, default=1)
    p.add_argument("--enforce-eager", action="store_true")
    p.add_argument("--kv-cache-memory-bytes", type=int)
    args, _ = p.parse_known_args()
    release = rules.known(os.environ.get("STANDIN_VLLM_RELEASE", "0.32.0"))
    described = host()
    tp = args.tensor_parallel_size
    used = cards(described)[:tp]
    weights = term("STANDIN_WEIGHTS_GIB", 14.99) / tp * GiB
    bytes_per_block = int(term("STANDIN_KV_BYTES_PER_TOKEN", 131072) / tp) * rules.BLOCK_SIZE_CUDA
    say(release, "version", {"VLLM_VERSION": release, "vllm_config": f"model={args.model!r}, "
        f"max_seq_len={args.max_model_len}, tensor_parallel_size={tp}, device_config=cuda"}, "core.py")
    util = args.gpu_memory_utilization or rules.default_utilization(release)
    total = mem_get_info(0)[1]
    requested = rules.requested_bytes(total, util, release)
    # the worker's snapshot comes after its CUDA context is up: that much of the card is no longer free
    context = term("STANDIN_CONTEXT_MIB", 500) * MiB
    free = min(mem_get_info(rank)[0] for rank in range(len(used))) - context
    snapshot = {"free_memory": free, "total_memory": total, "device_": "cuda:0"}
    if free < requested:
        config = {"gpu_memory_utilization": util}
        return fail(release, "free_memory_below_requested", {
            "init_snapshot": snapshot, "cache_config": config, "requested_memory": requested,
            "self": {"init_snapshot": snapshot, "cache_config": config, "requested_memory": requested}})
    hold(described, used, requested + context)  # what the worker holds from here on
    say(release, "weights_gib", {"self": {"model_memory_usage": weights}, "m": {"consumed_memory": weights},
                                 "time_after_load": 6.431207, "time_before_load": 0.0}, "gpu_model_runner.py")
    available = kv_memory(release, args, requested, weights, snapshot)
    sizing = rules.size_kv(available, bytes_per_block, rules.BLOCK_SIZE_CUDA, args.max_model_len, release)
    if sizing.error is not None:
        return fail(release, sizing.error, {
            "max_model_len": args.max_model_len, "needed_memory": sizing.needed_bytes,
            "available_memory": sizing.checked_bytes,
            "estimated_msg": estimated_msg(release, sizing.estimated_max_model_len)})
    say_tokens(release, sizing, args.max_model_len)
    return serve_until_stopped(args.port, pool_from_environment("vllm", sizing.kv_tokens, rules.BLOCK_SIZE_CUDA,
                                                                args.max_model_len))


def kv_memory(release: str, args, requested: float, weights: float, snapshot: dict) -> int:
    """The KV bytes: --kv-cache-memory-bytes as given (profiling skipped, 0.32.0 gpu_worker.py:649-675), else
    what the budget leaves after the stand-in's terms, logged as "Available KV cache memory"."""
    if args.kv_cache_memory_bytes is not None:
        say(release, "kv_cache_memory_given", {"kv_cache_memory_bytes": args.kv_cache_memory_bytes,
                                               "self": {"init_snapshot": snapshot}})
        return args.kv_cache_memory_bytes
    graph = 0.0 if args.enforce_eager else term("STANDIN_GRAPH_GIB", 0.41) * GiB
    non_kv = weights + (term("STANDIN_NON_TORCH_GIB", 0.30) + term("STANDIN_ACTIVATION_GIB", 0.58)) * GiB
    if rules.graph_estimate_subtracted(release):
        non_kv += graph
    available = rules.available_bytes(requested, non_kv, release)
    say(release, "kv_gib", {"self": {"available_kv_cache_memory_bytes": available}})
    return available


def say_tokens(release: str, sizing: rules.KvSizing, max_model_len: int) -> None:
    """The KV size and concurrency: one line from 0.22-era releases on, two before (the table says which)."""
    names = {"pools": "GPU", "num_tokens": sizing.kv_tokens, "num_tokens_str": f"{sizing.kv_tokens:,}",
             "max_model_len": max_model_len, "max_model_len_str": f"{max_model_len:,}",
             "max_concurrency": sizing.max_concurrency}
    say(release, "kv_tokens", names)
    if "Maximum concurrency" not in row("vllm", release, "kv_tokens").template:
        say(release, "max_concurrency", names)


if __name__ == "__main__":
    sys.exit(main())
