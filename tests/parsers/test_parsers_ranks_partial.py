"""Ranks, draft pools, truncated lines, bare excerpts and engine detection (Docker paths, version lines)."""

from __future__ import annotations

import pytest

from harness.engines.logs import detect_engine, parse_engine_log
from parsers import parse_log
from tests.support.gpu_lines import sglang, vllm

KV = "GPU KV cache size: {tokens:,} tokens"
CONC = "Maximum concurrency for 4,096 tokens per request: {conc:.2f}x"
SUMMARY = ("max_total_num_tokens={tokens}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
           "max_running_requests=256, context_len=32768, available_gpu_mem=10.25 GB")


def vllm_dp(tokens_by_rank: dict[int, int]) -> list[str]:
    lines = []
    for rank, tokens in tokens_by_rank.items():
        lines.append(vllm(f"{KV.format(tokens=tokens)}, {CONC.format(conc=tokens / 4096)}",
                          proc=f"EngineCore_DP{rank}", pid=100 + rank))
    return lines


# --- ranks ------------------------------------------------------------------------------------


def test_ranks_that_agree_leave_no_note():
    record = parse_log("\n".join(vllm_dp({0: 100_000, 1: 100_000})), "vllm")
    assert (record.kv_tokens, record.kv_tokens_min_rank, record.rank_note) == (100_000, None, None)


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 0, 2)])
def test_row_has_rank_zero_and_the_record_the_minimum(order):
    tokens = {0: 120_000, 1: 90_000, 2: 110_000}
    record = parse_log("\n".join(vllm_dp({r: tokens[r] for r in order})), "vllm")
    assert record.kv_tokens == 120_000 and record.max_concurrency == round(120_000 / 4096, 2)
    assert record.kv_tokens_min_rank == 90_000
    assert "differ" in record.rank_note and "90000" in record.rank_note and "EngineCore_DP1" in record.rank_note


def test_sglang_tp_ranks_row_is_rank_zero():
    lines = [sglang(SUMMARY.format(tokens=5000), ranks=" TP1"), sglang(SUMMARY.format(tokens=6000), ranks=" TP0")]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.kv_tokens, record.kv_tokens_min_rank, record.status) == (6000, 5000, "ok")
    assert "TP1" in record.rank_note


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_excerpt_of_other_ranks_only_still_yields_their_figures(engine):
    if engine == "vllm":
        lines = vllm_dp({1: 80_000, 2: 70_000})
    else:
        lines = [sglang(SUMMARY.format(tokens=7000), ranks=" DP1 TP1"), sglang(SUMMARY.format(tokens=7000),
                                                                              ranks=" DP1 TP2")]
    record = parse_log("\n".join(lines), engine)
    assert record.status == "ok"
    assert record.kv_tokens == (80_000 if engine == "vllm" else 7000)
    assert "no rank 0 line" in record.rank_note


def test_graph_capture_of_other_ranks_does_not_add_to_rank_zero():
    end = "Capture cuda graph end. Time elapsed: 2.00 s. mem usage=0.40 GB. avail mem=9.00 GB."
    lines = [sglang(end, ranks=" TP1"), sglang(end.replace("0.40", "0.46"), ranks=" TP0"),
             sglang(SUMMARY.format(tokens=6000), ranks=" TP0")]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.cuda_graph_gib, record.graph_capture_seconds) == (0.46, 2.0)


# --- draft pools ------------------------------------------------------------------------------

POOL = "KV Cache is allocated. dtype: torch.bfloat16, #tokens: {tokens}, K size: {k:.2f} GB, V size: {k:.2f} GB"
ARGS = "server_args=ServerArgs(model_path='m', speculative_algorithm={algo}, page_size=1)"


def test_draft_pool_is_its_own_field_and_pool_not_the_device_pools():
    # The draft model's pool is sized from the same budget as the target's (its layers are in SGLang's cell size), but
    # is not the device pool: kv_gib and the tokens are the target's, draft_kv_gib the draft's.
    lines = [sglang(ARGS.format(algo="'EAGLE'")), sglang(POOL.format(tokens=50_000, k=2.0)),
             sglang(POOL.format(tokens=50_000, k=0.25)), sglang(SUMMARY.format(tokens=50_000))]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.kv_gib, record.pool_tokens, record.kv_tokens) == (4.0, 50_000, 50_000)
    assert (record.draft_kv_gib, record.draft_pool_tokens) == (0.5, 50_000)
    assert [(p.kind, p.name, p.tokens, p.gib) for p in record.kv_pools] == [
        ("kv", "KV Cache", 50_000, 4.0), ("draft", "KV Cache", 50_000, 0.5)]


def test_labelled_draft_pool_never_overwrites_the_target():
    lines = [sglang(POOL.format(tokens=50_000, k=2.0)), sglang(SUMMARY.format(tokens=50_000)),
             sglang("Post-capture KV sizing: draft KV cache allocated. dtype: torch.bfloat16, #tokens: 40000, "
                    "KV size: 0.30 GB, avail mem=1.00 GB")]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.kv_gib, record.draft_kv_gib, record.draft_pool_tokens) == (4.0, 0.3, 40_000)
    assert [(p.kind, p.tokens, p.gib) for p in record.kv_pools] == [("kv", 50_000, 4.0), ("draft", 40_000, 0.3)]


def test_without_speculation_a_second_pool_line_is_the_target_again():
    lines = [sglang(ARGS.format(algo="None")), sglang(POOL.format(tokens=50_000, k=2.0)),
             sglang(POOL.format(tokens=60_000, k=2.5))]
    record = parse_log("\n".join(lines), "sglang")
    assert (record.kv_gib, record.pool_tokens, record.draft_kv_gib) == (5.0, 60_000, None)


# --- truncated lines --------------------------------------------------------------------------


@pytest.mark.parametrize("cut", [len("max_total_num_tokens=50000,"), 60, 80, 100,
                                 len(SUMMARY.format(tokens=50000)) - 5])
def test_truncated_scheduler_summary_yields_the_fields_it_has(cut):
    text = SUMMARY.format(tokens=50000)[:cut]
    record = parse_log(sglang(text), "sglang")
    assert record.kv_tokens == 50000 and record.status == "ok"
    if "max_prefill_tokens=16384" in text:
        assert record.max_prefill_tokens == 16384
    if "max_running_requests=256" in text:
        assert record.max_running_requests == 256


def test_truncated_vllm_kv_line_yields_the_tokens():
    record = parse_log(vllm("GPU KV cache size: 123,456 tokens, Maximum concurrency for 4,0"), "vllm")
    assert (record.kv_tokens, record.status, record.max_concurrency) == (123_456, "ok", None)


# --- detection ----------------------------------------------------------------------------------


DOCKER_TRACEBACK = ('Traceback (most recent call last):\n'
                    '  File "/usr/local/lib/python3.12/dist-packages/{pkg}/entrypoints/x.py", line 1, in <module>\n'
                    '    main()\n'
                    'RuntimeError: boom\n')


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_docker_dist_packages_paths_name_the_engine(engine):
    assert detect_engine(DOCKER_TRACEBACK.format(pkg=engine)) == engine


@pytest.mark.parametrize(("text", "engine"), [
    ("GPU KV cache size: 123,456 tokens\nMaximum concurrency for 4,096 tokens per request: 30.14x\n", "vllm"),
    ("Available KV cache memory: 10.5 GiB\n", "vllm"),
    ("Load weight begin. avail mem=70.00 GB\nLoad weight end. type=LlamaForCausalLM, dtype=torch.bfloat16\n",
     "sglang"),
    (("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 5000, K size: 1.00 GB, V size: 1.00 GB\n"
      "max_total_num_tokens=5000, chunked_prefill_size=8192\n"), "sglang"),
])
def test_bare_excerpts_without_any_prefix(text, engine):
    assert detect_engine(text) == engine
    record = parse_engine_log(text)
    assert record.engine == engine and any((record.kv_tokens, record.kv_gib, record.phase != "starting"))


@pytest.mark.parametrize(("line", "engine", "version"), [
    ("(APIServer pid=1) INFO 12-01 08:50:26 [api_server.py:1839] vLLM API server version 0.11.0", "vllm", "0.11.0"),
    ("INFO 12-01 08:50:26 [api_server.py:1839] vLLM API server version 0.9.2", "vllm", "0.9.2"),
    ("[2026-01-01 10:00:00] sglang version: 0.5.22", "sglang", "0.5.22"),
    ("Successfully installed sglang-0.5.14", "sglang", None),
    ("sglang==0.4.6.post5", "sglang", "0.4.6.post5"),
])
def test_the_engine_version_line(line, engine, version):
    record = parse_log(line, engine)
    assert record.engine_version == version


# --- streamed blocks read exactly as line by line -----------------------------------------------

from pathlib import Path  # noqa: E402

from harness.engines.logs import parse_engine_file  # noqa: E402
from parsers import read_log  # noqa: E402

RECORDED = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "logs").glob("*/*.log"))


@pytest.mark.parametrize("path", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_file_streamed_in_blocks_reads_as_line_by_line(path, monkeypatch):
    from harness.engines import logs

    expected = parse_log(read_log(path)).to_dict()
    for block in (1 << 20, 997, 64):  # blocks cut anywhere, lines longer than a block included
        monkeypatch.setattr(logs, "BLOCK_BYTES", block)
        got = parse_engine_file(path).record.to_dict()
        got["format_release"] = None
        assert got == expected, f"block size {block}"


# Every real GPU log of the shared and held-out sets, as `harness parse FILE` streams it, reads as the sets are scored
# (parse_log, line by line): a log kept as a Python list of string pieces among them (gpu-logs-5 vllm/07, gpu-logs-11
# vllm/06), whose messages join only line by line.
from tests.support.gpu_log_sets import SETS, entries  # noqa: E402


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("set_name", SETS)
def test_every_gpu_log_reads_the_same_streamed_from_its_file(set_name, engine):
    for name, _, path in entries(set_name, engine):
        expected = parse_log(read_log(path), engine).to_dict()
        got = parse_engine_file(path, engine).record.to_dict()
        got["format_release"] = None
        assert got == expected, name


def test_a_kv_line_split_over_pasted_string_pieces_is_read_from_the_file():
    # the eye-read figure of the set's expected.json: 560,288 tokens, its "GPU KV cache " / "size: ..." pieces joined
    name = "06-0310-b200-python-tuples-of-implicitly-joined-strings-kv-lines-split-mid-sentence.log"
    entry = next(entry for log, entry, _ in entries("gpu-logs-11", "vllm") if log == name)
    path = next(path for log, _, path in entries("gpu-logs-11", "vllm") if log == name)
    assert parse_engine_file(path, "vllm").record.kv_tokens == entry["expected"]["kv_tokens"] == 560288
