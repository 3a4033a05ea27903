"""The probe's prompts: every request's own, in its first block, for any request number a probe can use and any
span of token ids (a small vocabulary), so no prefix cache shares a block between two requests."""

from __future__ import annotations

import pytest

from harness.scenario.prompts import FIRST_ID, REQUEST_NUMBERS, number_tokens, prompt_ids

BLOCK = 16  # the smallest block an engine caches by (vLLM's default on a GPU)


@pytest.mark.parametrize("span", [2, 3, 7, 190])
def test_no_two_of_512_requests_share_their_first_block_in_any_vocabulary(span):
    firsts = {tuple(prompt_ids(n, BLOCK, span=span)) for n in range(512)}
    assert len(firsts) == 512
    assert all(FIRST_ID <= t < FIRST_ID + span for n in range(512) for t in prompt_ids(n, 300, span=span))


def test_every_request_number_of_a_probe_has_its_own_first_block():
    # the length checks, then 4 lengths x 2 shapes x 512 requests: each its own, at the widest number (span 2)
    assert number_tokens(2) == 13 <= BLOCK and number_tokens() == 2
    assert len({tuple(prompt_ids(n, BLOCK, span=2)) for n in range(REQUEST_NUMBERS)}) == REQUEST_NUMBERS
    assert len({tuple(prompt_ids(n, 2)) for n in range(REQUEST_NUMBERS)}) == REQUEST_NUMBERS


def test_a_shared_prefix_is_shared_and_the_rest_is_still_each_requests_own():
    prompts = [prompt_ids(n, 40, shared_prefix_tokens=32) for n in range(512)]
    assert len({tuple(p[:32]) for p in prompts}) == 1 and len({tuple(p[32:]) for p in prompts}) == 512


def test_a_prompt_too_short_for_its_number_is_refused_not_repeated():
    with pytest.raises(ValueError, match="cannot hold a 0-token shared prefix and a 2-token request number"):
        prompt_ids(5, 1)
    with pytest.raises(ValueError, match="outside"):
        prompt_ids(REQUEST_NUMBERS, 16)
