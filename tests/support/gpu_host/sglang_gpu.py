#!/usr/bin/env python3
"""A fake SGLang 0.5.22 server on the GPU host stand-in: `python -m sglang.launch_server --model-path M --port N ...`
as the harness launches it.

It sizes its KV pool the way SGLang 0.5.22 does on the cards CUDA_VISIBLE_DEVICES names (NVML indices; the harness
sets CUDA_DEVICE_ORDER=PCI_BUS_ID), by its own rules (tests/support/gpu_host/sglang_rules.py, read from the wheel,
not the harness's predictor): its fraction is --mem-fraction-static, else SGLang's own from the smallest card's
total as nvidia-smi lists them and the chunked prefill size (given, or the card's tier); the pre-load reading is the
smallest free memory of its ranks once their CUDA contexts are up; the pool is what is free after loading less that
reading x (1 - fraction), in whole cells of the model's per-rank KV bytes, page-aligned. A pool of nothing is its
"Loaded weights leave no GPU memory for the KV cache ..." error. It prints each line in 0.5.22's wording (the
committed format table, tests/support/gpu_host/wording.py), holds reading x fraction plus its context on each card
while it runs (a file the fake NVML counts), and serves SGLang's API over its pool (tests/support/serving_api.py).

The card's memory: nvidia-smi's total (the fake NVML's host file) and CUDA's free (tests/support/gpu_host/
cuda_runtime.py), less its CUDA context (STANDIN_CONTEXT_MIB, 500). What it holds - the stand-in's own figures, from
the environment (defaults: Llama-3.1-8B in bf16): STANDIN_WEIGHTS_GIB (14.99, split over --tp-size),
STANDIN_KV_BYTES_PER_TOKEN (131072, likewise). Faults: STANDIN_LINGER_S.
Not modelled: CUDA graph capture's own memory (taken after the pool, so it does not move it), hybrid/MLA/SWA
pools, the TP memory-imbalance check, --max-running-requests and --max-total-tokens.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sglang_rules as rules
from cuda_runtime import mem_get_info  # what its torch.cuda.mem_get_info would say
from fake_server import GiB, MiB, cards, hold, host, serve_until_stopped, term
from serving_api import pool_from_environment  # tests/support/serving_api.py
from wording import render, row

RELEASE = "0.5.22"
MAX_PREFILL_TOKENS = 16384  # --max-prefill-tokens' default (the server_args of real 0.5.x GPU logs)


def say(fact: str, names: dict) -> None:
    sys.stdout.write(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {render(row('sglang', RELEASE, fact), names)}\n")
    sys.stdout.flush()


def free_gib(value: float):
    """get_available_gpu_memory(...) as the line's own expression calls it, answering `value` GiB."""
    return lambda *args, **kwargs: value


def arguments() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--model-path", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--host")
    p.add_argument("--mem-fraction-static", type=float)
    p.add_argument("--chunked-prefill-size", type=int)
    p.add_argument("--context-length", type=int, default=131072)
    p.add_argument("--page-size", type=int, default=1)  # 1: what real 0.5.x GPU logs' server_args show on CUDA
    p.add_argument("--tp-size", "--tp", type=int, default=1)
    return p.parse_known_args()[0]


def main() -> int:
    args = arguments()
    described = host()
    tp = args.tp_size
    used = cards(described)[:tp]
    weights_gib = term("STANDIN_WEIGHTS_GIB", 14.99) / tp
    cell = int(term("STANDIN_KV_BYTES_PER_TOKEN", 131072) / tp)
    capacity_mib = min(d["total_mib"] for d in described["devices"])  # nvidia-smi's memory.total, every card
    settings = rules.memory_settings(capacity_mib, tp, args.chunked_prefill_size, args.mem_fraction_static,
                                     args.model_path)
    fraction = settings.mem_fraction_static
    say("server_args", {"_server_args_for_logging": str, "server_args": (
        f"ServerArgs(model_path='{args.model_path}', mem_fraction_static={fraction}, "
        f"chunked_prefill_size={settings.chunked_prefill_size}, page_size={args.page_size}, tp_size={tp}, "
        f"context_length={args.context_length})")})
    context = term("STANDIN_CONTEXT_MIB", 500) * MiB
    pre = (min(mem_get_info(rank)[0] for rank in range(len(used))) - context) / GiB
    say("load_weight_begin", {"get_available_gpu_memory": free_gib(pre), "self": {"device": "cuda", "gpu_id": 0}})
    after = pre - weights_gib
    model = type("LlamaForCausalLM", (), {})()
    say("load_weight_end", {"self": {"weight_load_time": 6.12, "model": model, "weight_load_mem_usage": weights_gib},
                            "quant_str": "", "after_avail_memory": after})
    rest = rules.rest_gib(pre, after, fraction)
    if rest <= 0:
        minimum = rules.minimum_fraction(pre, after)
        sys.stdout.write("ValueError: " + render(row("sglang", RELEASE, "error:weights_leave_no_memory"), {
            "get_schedule": lambda: _Schedule(fraction, settings.chunked_prefill_size),
            "minimum_mem_fraction_static": minimum,
            "suggested_mem_fraction_static": math.ceil(minimum * 1000) / 1000}) + "\n")
        return 1
    hold(described, used, pre * GiB * fraction + context)  # what each rank holds from here on
    tokens = rules.pool_tokens(rest, cell, args.page_size)
    side = rules.kv_side_bytes(tokens, cell, args.page_size)
    say("kv_pool", {"cache_name": "KV Cache", "self": {"post_capture_active": False, "dtype": "torch.bfloat16"},
                    "num_tokens": tokens, "k_size_GB": side / GiB, "v_size_GB": side / GiB})
    left = after - 2 * side / GiB
    say("memory_pool_end", {"get_available_gpu_memory": free_gib(left), "self": {"device": "cuda", "gpu_id": 0}})
    requests = rules.max_running_requests(tokens, args.context_length)
    say("scheduler_summary", {"get_schedule": lambda: _Schedule(fraction, settings.chunked_prefill_size), "self": {
        "max_total_num_tokens": tokens, "max_prefill_tokens": MAX_PREFILL_TOKENS, "max_running_requests": requests,
        "model_config": {"context_len": args.context_length}, "device": "cuda",
        "startup_available_gpu_memory_gb": left}})
    sys.stdout.write(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] INFO:     Application startup complete.\n")
    sys.stdout.flush()
    return serve_until_stopped(args.port, pool_from_environment("sglang", tokens, 1, args.context_length))


class _Schedule:
    """get_schedule(): the scheduler settings the lines name."""

    def __init__(self, mem_fraction_static: float, chunked_prefill_size: int):
        self.mem_fraction_static = mem_fraction_static
        self.chunked_prefill_size = chunked_prefill_size


if __name__ == "__main__":
    sys.exit(main())
