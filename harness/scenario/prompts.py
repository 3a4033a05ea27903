"""The probe's prompts (pure): every request of a probe has a number, and its prompt spells that number in its first
tokens, so no two requests share a prefix (a block a prefix cache could hand from one to another) unless the
scenario asks for a shared one. The scenario's checks and the probe's plan both need how long that takes."""

from __future__ import annotations

# token ids the prompts are made of: low enough for any tokenizer's vocabulary (the builtin tiny-llama's learns a
# few hundred), above the special tokens models put first
FIRST_ID, ID_SPAN = 5, 190
# request numbers one probe can use: the length checks below LENGTH_CHECKS, then every wave's requests after them
# (at most 4 lengths x 2 shapes x 512 requests, ProbeSpec's bounds)
LENGTH_CHECKS = 64
REQUEST_NUMBERS = LENGTH_CHECKS + 4 * 2 * 512


def number_tokens(span: int = ID_SPAN) -> int:
    """How many prompt tokens spell a request number (in base `span`, a fixed width): 2 at the default span, 13
    at the smallest (2)."""
    width, reach = 1, span
    while reach < REQUEST_NUMBERS:
        width, reach = width + 1, reach * span
    return width


def prompt_ids(request: int, tokens: int, shared_prefix_tokens: int = 0, span: int = ID_SPAN) -> list[int]:
    """`tokens` prompt ids for request number `request`: the shared prefix, then the number itself in base `span`
    (number_tokens(span) of them), then a filler. Two requests' numbers differ in a digit, so no two requests
    share the tokens after the shared prefix (a prefix cache gives no block of one request to another), for every
    number below REQUEST_NUMBERS and any span from 2."""
    width = number_tokens(span)
    if not 0 <= request < REQUEST_NUMBERS:
        raise ValueError(f"request number {request} is outside 0..{REQUEST_NUMBERS - 1}")
    if tokens < shared_prefix_tokens + width:
        raise ValueError(f"a prompt of {tokens} tokens cannot hold a {shared_prefix_tokens}-token shared prefix "
                         f"and a {width}-token request number")
    shared = [FIRST_ID + (3 * j) % span for j in range(shared_prefix_tokens)]
    digits = [FIRST_ID + (request // span ** k) % span for k in reversed(range(width))]
    rest = tokens - shared_prefix_tokens - width
    filler = [FIRST_ID + (request + 7 * j + (j * j) // 3) % span for j in range(rest)]
    return shared + digits + filler
