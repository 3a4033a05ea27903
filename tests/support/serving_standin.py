#!/usr/bin/env python3
"""A stand-in vLLM server with a scripted KV pool, for the probe: it logs vLLM's KV lines for its pool, then
serves vLLM's API over it (tests/support/serving_api.py: admits, queues, preempts, refuses, dies on request).

Settings (environment):
  STANDIN_POOL_TOKENS  the pool (default 2048)        STANDIN_BLOCK  tokens per block (128)
  STANDIN_STEP_S       seconds per output token (0.1) STANDIN_CLAIM_FACTOR  the logged concurrency x this (1):
                                                      a claim the pool does not back
  STANDIN_REFUSE_ABOVE refuse requests longer than this although max_model_len admits them (a scheduler limit
                       below the logged one)
  STANDIN_DIE_AT_REQUEST  exit (code 1, an error line first) when the n-th generation request arrives
  STANDIN_PREEMPT_AT   the n-th admitted request is preempted once (requeued, the counter counted)
  STANDIN_NO_METRICS   serve no /metrics (a server launched without them)
  STANDIN_ADMIT_NOW    admit by the blocks a request needs now and preempt as requests grow (vLLM's scheduler)
  STANDIN_DROP_REUSED  close a generation request on a kept-alive connection unanswered (an idle timer firing)
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving_api import pool_from_environment, serve_api
from standin_engine import vllm_serve_parser


def main() -> int:
    args, _ = vllm_serve_parser(max_model_len=512).parse_known_args()
    tokens, block = int(os.environ.get("STANDIN_POOL_TOKENS", "2048")), int(os.environ.get("STANDIN_BLOCK", "128"))
    claim_factor = float(os.environ.get("STANDIN_CLAIM_FACTOR", "1"))
    mml = args.max_model_len
    per_request = math.ceil(mml / block) * block
    stamp = time.strftime("%m-%d %H:%M:%S")
    sys.stdout.write(f"(EngineCore pid={os.getpid()}) INFO {stamp} [standin.py:1] CPU KV cache size: {tokens:,} "
                     f"tokens, Maximum concurrency for {mml:,} tokens per request: "
                     f"{tokens / per_request * claim_factor:.2f}x\n")
    sys.stdout.flush()
    serve_api(pool_from_environment("vllm", tokens, block, mml), args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
