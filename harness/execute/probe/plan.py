"""What the probe sends to one ready server, from the scenario's probe settings and what the engine logged (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.execute.probe.sampler import SAMPLE_S
from harness.scenario.prompts import LENGTH_CHECKS, number_tokens
from parsers.record import StartupRecord

# the shapes a wave can take: prompt-heavy (output_tokens generated after a long prompt: what admission sees at
# once) and decode-heavy (a short prompt that grows to L: what a scheduler admitting by the blocks a request needs
# now must preempt or retract when the pool runs out)
SHAPES = ("prompt_heavy", "decode_heavy")


@dataclass(frozen=True)
class Wave:
    """Requests of one length and shape sent at once: `length` tokens each (prompt + `output_tokens`), `sent` of
    them, numbered from `first_request` (every request of a probe has its own number, hence its own prompt)."""

    shape: str  # one of SHAPES
    length: int
    sent: int
    claimed: float | None  # the concurrency the engine's own figures give at this length
    output_tokens: int
    first_request: int = LENGTH_CHECKS

    @property
    def prompt_tokens(self) -> int:
        return self.length - self.output_tokens

    @property
    def name(self) -> str:
        """The wave's name in the row: its shape and length (prompt_heavy@512)."""
        return f"{self.shape}@{self.length}"


@dataclass(frozen=True)
class ProbePlan:
    max_len: int  # the longest request the engine says it accepts (prompt + output)
    waves: tuple[Wave, ...]
    timeout_s: float
    limits: str  # the caps, as the row says them
    shared_prefix_tokens: int = 0  # tokens every prompt starts with (0: no two requests share a prefix)


def claimed_concurrency(record: StartupRecord, length: int) -> float | None:
    """Requests of `length` tokens the engine's own figures say fit at once: vLLM states it for max_model_len
    (its "Maximum concurrency" line); otherwise the pool over the blocks (pages) one request holds."""
    if record.max_concurrency is not None and length == record.max_model_len:
        return record.max_concurrency
    if not record.kv_tokens:
        return None
    block = record.block_size or 1
    return record.kv_tokens / (math.ceil(length / block) * block)


def wave_output_tokens(shape: str, length: int, output_tokens: int, decode_prompt_tokens: int,
                       prompt_floor: int) -> int:
    """Output tokens of one request: prompt-heavy, `output_tokens` but at most half the request; decode-heavy,
    all but a `decode_prompt_tokens` prompt. Never so many that the prompt is shorter than `prompt_floor` (the
    tokens that make it unique)."""
    wanted = min(output_tokens, length // 2) if shape == "prompt_heavy" else length - decode_prompt_tokens
    return max(1, min(wanted, length - prompt_floor))


def plan_probe(lengths: list, output_tokens: int, oversubscribe: float, max_requests: int, timeout_s: float,
               record: StartupRecord, shapes: tuple[str, ...] = SHAPES, decode_prompt_tokens: int = 16,
               shared_prefix_tokens: int = 0) -> ProbePlan | str:
    """The plan, or why there is none (the engine logged no length limit or no pool)."""
    max_len = record.max_model_len
    if not max_len:
        return "the engine logged no max_model_len: no request length to probe"
    floor = shared_prefix_tokens + number_tokens()
    waves: list[Wave] = []
    first = LENGTH_CHECKS
    for item in lengths:
        length = max_len if item == "max" else int(item)
        if length > max_len:
            return f"probe length {length} is above the engine's max_model_len {max_len}"
        if length <= floor:
            return f"probe length {length} leaves no room for an output after a {floor}-token unique prompt"
        claimed = claimed_concurrency(record, length)
        sent = min(max_requests, math.ceil((claimed or 1) * oversubscribe) + 1)
        for shape in shapes:
            output = wave_output_tokens(shape, length, output_tokens, decode_prompt_tokens, floor)
            waves.append(Wave(shape, length, sent, claimed, output, first))
            first += sent
    limits = (f"<= {max_requests} requests at once; prompt-heavy: <= {output_tokens} output tokens (half a request "
              f"at most); decode-heavy: {decode_prompt_tokens}-token prompts; {timeout_s:g} s in all; metrics every "
              f"{SAMPLE_S:g} s")
    return ProbePlan(max_len, tuple(waves), timeout_s, limits, shared_prefix_tokens)
