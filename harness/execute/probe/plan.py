"""What the probe sends to one ready server, from the scenario's probe settings and what the engine logged (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from parsers.record import StartupRecord

# token ids the prompts are made of: low enough for any tokenizer's vocabulary (the builtin tiny-llama's learns a
# few hundred), above the special tokens models put first
FIRST_ID, ID_SPAN = 5, 190


@dataclass(frozen=True)
class Wave:
    """Requests of one length sent at once: `length` tokens each (prompt + `output_tokens`), `sent` of them."""

    length: int
    sent: int
    claimed: float | None  # the concurrency the engine's own figures give at this length
    output_tokens: int


@dataclass(frozen=True)
class ProbePlan:
    max_len: int  # the longest request the engine says it accepts (prompt + output)
    waves: tuple[Wave, ...]
    timeout_s: float
    limits: str  # the caps, as the row says them


def claimed_concurrency(record: StartupRecord, length: int) -> float | None:
    """Requests of `length` tokens the engine's own figures say fit at once: vLLM states it for max_model_len
    (its "Maximum concurrency" line); otherwise the pool over the blocks (pages) one request holds."""
    if record.max_concurrency is not None and length == record.max_model_len:
        return record.max_concurrency
    if not record.kv_tokens:
        return None
    block = record.block_size or 1
    return record.kv_tokens / (math.ceil(length / block) * block)


def plan_probe(lengths: list, output_tokens: int, oversubscribe: float, max_requests: int, timeout_s: float,
               record: StartupRecord) -> ProbePlan | str:
    """The plan, or why there is none (the engine logged no length limit or no pool)."""
    max_len = record.max_model_len
    if not max_len:
        return "the engine logged no max_model_len: no request length to probe"
    waves = []
    for item in lengths:
        length = max_len if item == "max" else int(item)
        if length > max_len:
            return f"probe length {length} is above the engine's max_model_len {max_len}"
        claimed = claimed_concurrency(record, length)
        wanted = math.ceil((claimed or 1) * oversubscribe) + 1
        # at most half the request generated: a prompt of at least as many tokens
        waves.append(Wave(length, min(max_requests, wanted), claimed, min(output_tokens, length // 2)))
    limits = (f"<= {max_requests} requests at once, <= {output_tokens} output tokens each (half a request at most), "
              f"{timeout_s:g} s in all")
    return ProbePlan(max_len, tuple(waves), timeout_s, limits)


def prompt_ids(request: int, tokens: int) -> list[int]:
    """`tokens` prompt ids for request number `request`: no two requests share a first token (up to ID_SPAN of
    them), so no prefix cache gives one request's blocks to another."""
    return [FIRST_ID + (request + 7 * j + (j * j) // 3) % ID_SPAN for j in range(tokens)]
