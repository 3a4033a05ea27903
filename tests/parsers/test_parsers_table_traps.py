"""The tables' rows that look like the pool and are not, and the forks' tables against the spec that names their facts.

A row whose fact is `unread` (a compile hint, a profile run's cost, a host reservation, a stub's budget) is kept in
its table for reference and feeds no field: rendered after a real KV statement it must leave the pool as that
statement gave it, and alone it must not make one. A fork's or backend plugin's table is written by hand from its
source: each of its rows must be the fact the engine's spec assigns to its template, so that the spec, the table and
the parser say the same thing.
"""

from __future__ import annotations

import pytest

from harness.engines.release_formats import fork_table_paths, read_table, table_paths
from tests.parsers.test_parsers_releases import ENGINES, SPECS, read, render, sglang_lines, vllm_lines

# A real pool statement for each engine to render the trap after (figures of a Llama-3-8B on one 80 GiB GPU).
POOL_LINES = {
    "vllm": vllm_lines("Available KV cache memory: 60.12 GiB") + vllm_lines("GPU KV cache size: 492,496 tokens")
    + vllm_lines("Maximum concurrency for 8,192 tokens per request: 60.12x"),
    "sglang": sglang_lines("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 480000, K size: 29.30 GB, V size: "
                           "29.30 GB")
    + sglang_lines("max_total_num_tokens=480000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
                   "max_running_requests=2048, context_len=8192, available_gpu_mem=12.04 GB"),
}
POOL_FIELDS = ("kv_tokens", "kv_gib", "num_blocks", "pool_tokens")


def unread_rows():
    """One case per distinct unread wording of every table (releases share most of theirs)."""
    out, seen = [], set()
    for engine in ENGINES:
        unread = {f.name for f in SPECS[engine].FACTS if f.unread}
        for path in [*table_paths(engine), *fork_table_paths(engine)]:
            table = read_table(path)
            for row in table:
                if row.fact in unread and (engine, row.fact, row.template) not in seen:
                    seen.add((engine, row.fact, row.template))
                    out.append(pytest.param(engine, row, table, id=f"{engine}:{path.stem}:{row.fact}:{len(out)}"))
    return out


def pool(record) -> tuple:
    return tuple(getattr(record, name, None) for name in POOL_FIELDS)


@pytest.mark.parametrize(("engine", "row", "table"), unread_rows())
def test_an_unread_wording_never_states_the_pool(engine, row, table):
    message, _ = render(row, table, SPECS[engine], "plain")
    lines = vllm_lines(message) if engine == "vllm" else sglang_lines(message)
    alone = read(engine, lines)
    assert alone.kv_tokens is None and alone.kv_gib is None, message
    assert pool(read(engine, POOL_LINES[engine] + lines)) == pool(read(engine, POOL_LINES[engine])), message


def fork_rows():
    return [pytest.param(engine, row, id=f"{engine}:{path.stem}:{row.fact}:{n}")
            for engine in ENGINES for path in fork_table_paths(engine)
            for n, row in enumerate(read_table(path))]


@pytest.mark.parametrize(("engine", "row"), fork_rows())
def test_a_fork_row_is_the_fact_its_spec_names(engine, row):
    spec = SPECS[engine]
    contexts = {c for f in spec.FACTS if f.name == row.fact for c in f.contexts}
    classified = {getattr(spec.classify(row.template, context), "name", None) for context in contexts}
    assert row.fact in classified, (row.template, classified)
    assert spec.KEYWORDS.search(row.template), row.template  # a wheel scan would keep it


def test_every_fork_table_names_its_source_and_commit():
    for engine in ENGINES:
        for path in fork_table_paths(engine):
            head = path.read_text(encoding="utf-8").splitlines()[0]
            assert head.startswith(f"# {engine} "), path.name
            assert " at " in head and len(head.rsplit(" at ", 1)[1].split()[0]) >= 7, path.name
