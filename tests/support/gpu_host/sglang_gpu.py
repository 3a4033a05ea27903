#!/usr/bin/env python3
"""A fake SGLang 0.5.22 server on the GPU host stand-in: `python -m sglang.launch_server --model-path M --port N ...`
as the harness launches it.

It sizes its KV pool the way SGLang 0.5.22 does on the cards CUDA_VISIBLE_DEVICES names (NVML indices; the harness
sets CUDA_DEVICE_ORDER=PCI_BUS_ID). Its fraction is --mem-fraction-static, else SGLang's own from the smallest
card's total as nvidia-smi lists them (the formula comes from harness/engines/sglang/formulas.py, which
tests/predict/test_predict_oracle.py checks against SGLang's own handle_gpu_memory_settings). The pre-load reading
is the smallest free memory of its ranks once their CUDA contexts are up (sglang/srt/distributed/bootstrap.py); the pool
is what is free after loading less that reading x (1 - fraction), i.e. reading x fraction - weights (0.5.22
kv_cache_configurator.py `_profile_available_bytes`), in tokens of the model's per-rank KV bytes. A pool of
nothing is G1, "Loaded weights leave no GPU memory for the KV cache ..." (ENGINES.md §2.4). It prints SGLang's GPU
lines for what it did (the wording of real 2026 GPU logs, ../shared/gpu-logs/sglang/05-*), holds reading x fraction
plus its context on each card while it runs (a file the fake NVML counts), and serves SGLang's API over its pool
(tests/support/serving_api.py, for the probe).

Model terms from the environment (defaults: Llama-3.1-8B in bf16): STANDIN_WEIGHTS_GIB (14.99, split over
--tp-size), STANDIN_KV_BYTES_PER_TOKEN (131072, likewise), STANDIN_CONTEXT_MIB (500). Faults: STANDIN_LINGER_S.
Not modelled: CUDA graph capture's own memory (taken after the pool, so it does not move it), hybrid/MLA/SWA
pools, the TP memory-imbalance check, max_running_requests beyond the default rule.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from harness.engines.sglang.formulas import memory_settings, resolve_max_num_reqs

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_runtime import mem_get_info  # what its torch.cuda.mem_get_info would say
from fake_server import GiB, MiB, cards, hold, host, serve_until_stopped, term
from serving_api import pool_from_environment  # tests/support/serving_api.py


def say(text: str) -> None:
    sys.stdout.write(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] {text}\n")
    sys.stdout.flush()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--model-path", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--host")
    p.add_argument("--mem-fraction-static", type=float)
    p.add_argument("--chunked-prefill-size", type=int)
    p.add_argument("--context-length", type=int, default=131072)
    p.add_argument("--tp-size", "--tp", type=int, default=1)
    args, _ = p.parse_known_args()
    described = host()
    tp = args.tp_size
    used = cards(described)[:tp]
    weights = term("STANDIN_WEIGHTS_GIB", 14.99) / tp * GiB
    per_token = term("STANDIN_KV_BYTES_PER_TOKEN", 131072) / tp
    capacity_mib = min(d["total_mib"] for d in described["devices"])  # nvidia-smi's memory.total, every card
    settings = memory_settings(capacity_mib, tp=tp, chunked_prefill_size=args.chunked_prefill_size,
                               mem_fraction_static=args.mem_fraction_static, release="0.5.22")
    fraction = settings.mem_fraction_static
    say(f"server_args=ServerArgs(model_path='{args.model_path}', mem_fraction_static={fraction}, "
        f"chunked_prefill_size={settings.chunked_prefill_size}, tp_size={tp}, context_length={args.context_length})")
    say("Init torch distributed begin.")
    context = term("STANDIN_CONTEXT_MIB", 500) * MiB
    say(f"Init torch distributed ends. elapsed=0.26 s, mem usage={context / GiB:.2f} GB")
    pre = min(mem_get_info(rank)[0] for rank in range(len(used))) - context
    say(f"Load weight begin. avail mem={pre / GiB:.2f} GB")
    after = pre - weights
    say("Load weight end. elapsed=6.12 s, type=LlamaForCausalLM, dtype=torch.bfloat16, "
        f"avail mem={after / GiB:.2f} GB, mem usage={weights / GiB:.2f} GB.")
    rest = after - pre * (1 - fraction)
    if rest <= 0:
        minimum = 1 - after / pre
        sys.stdout.write(f"ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static="
                         f"{fraction}. Raise --mem-fraction-static above {-(-minimum * 1000 // 1) / 1000:.3f} (minimum "
                         f"viable = 1 - available/pre = {minimum:.4f}). If using speculative decoding, draft weights "
                         "are now counted.\n")
        return 1
    hold(described, used, pre * fraction + context)  # what each rank holds from here on
    tokens = int(rest // per_token)
    say("Using KV cache dtype: torch.bfloat16")
    say(f"KV Cache is allocated. #tokens: {tokens}, K size: {tokens * per_token / 2 / GiB:.2f} GB, "
        f"V size: {tokens * per_token / 2 / GiB:.2f} GB")
    left = (after - tokens * per_token) / GiB
    say(f"Memory pool end. avail mem={left:.2f} GB")
    requests = resolve_max_num_reqs(tokens, args.context_length, release="0.5.22")
    say(f"max_total_num_tokens={tokens}, chunked_prefill_size={settings.chunked_prefill_size}, "
        f"max_prefill_tokens=16384, max_running_requests={requests}, context_len={args.context_length}, "
        f"available_gpu_mem={left:.2f} GB")
    say("INFO:     Application startup complete.")
    return serve_until_stopped(args.port, pool_from_environment("sglang", tokens, 1, args.context_length))


if __name__ == "__main__":
    sys.exit(main())
