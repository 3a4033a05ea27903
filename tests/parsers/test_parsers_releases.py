"""Every release's own wording, read into the right field.

The tables under harness/engines/<engine>/formats/ hold, per release, each message template
the parsers read, as written in that release's source, and the record field each
placeholder feeds. Each row is rendered here with numbers (plain, with thousands
separators where the source prints through `%s`/`{}`/`{:,}`, negative where a figure can
be) and fed to the parser in the shape the engine prints it; the parser must read back
exactly the printed numbers. A release whose wording the parser cannot read fails by
name, e.g. `vllm-0.10.1:kv_tokens`.
"""

from __future__ import annotations

import re

import pytest

from harness.engines.release_formats import (
    F_STRING,
    FORMAT,
    PERCENT,
    fork_table_paths,
    load_spec,
    read_table,
    table_paths,
)
from parsers import PARSERS, make_parser
from parsers.lines import coerce
from parsers.record import field_kinds

ENGINES = ("vllm", "sglang")
SPECS = {engine: load_spec(engine) for engine in ENGINES}
# Figures an engine can print below zero (a suggestion or profile that came out negative).
SIGNED = {"suggested_kv_cache_memory_bytes", "suggested_kv_cache_memory_bytes_gpu_limit", "kv_tokens",
          "profiled_max_total_tokens", "avail_mem_after_load_gib", "avail_mem_after_pool_gib", "available_mem_gib",
          "error_data.minimum_mem_fraction_static", "error_data.suggested_mem_fraction_static",
          "error_data.kv_capacity_tokens"}
STRINGS = {"engine_version": "0.99.1", "kv_dtype": "torch.float8_e4m3fn", "model": "org/Some-Model-8B"}
# Values whose magnitude is bounded by meaning (a fraction, a utilization).
FRACTIONS = {"gpu_memory_utilization", "gpu_memory_utilization_equivalent", "gpu_memory_utilization_suggested",
             "mem_fraction_static_effective", "error_data.utilization", "error_data.minimum_mem_fraction_static",
             "error_data.suggested_mem_fraction_static"}

PERCENT_SPEC = re.compile(r"%(?:\((?P<key>\w+)\))?(?P<flags>[-+ #0,]*)(?P<width>\d+|\*)?(?:\.(?P<prec>\d+))?"
                          r"(?P<type>[diouxXeEfFgGcrsa%])")


# --- placeholders of a template ------------------------------------------------------------------


def f_string_placeholders(template: str, args: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """(start, end, format spec) of each `{...}` of an f-string template, in order."""
    out, i, n = [], 0, 0
    while i < len(template):
        ch = template[i]
        if ch in "{}" and template[i + 1:i + 2] == ch:
            i += 2
            continue
        if ch == "{":
            depth, j = 1, i + 1
            while depth:
                depth += {"{": 1, "}": -1}.get(template[j], 0)
                j += 1
            inner = template[i + 1:j - 1]
            rest = inner[len(args[n]):] if n < len(args) and inner.startswith(args[n]) else inner
            rest = re.sub(r"^\s*(?:=\s*)?(?:![rsa])?", "", rest)
            out.append((i, j, rest[1:] if rest.startswith(":") else ""))
            n += 1
            i = j
            continue
        i += 1
    return out


def placeholders(row) -> list[tuple[int, int, str]]:
    """(start, end, spec) per placeholder; a %-spec keeps its `%`."""
    if row.style == PERCENT:
        return [(m.start(), m.end(), m.group(0)) for m in PERCENT_SPEC.finditer(row.template)
                if m.group("type") != "%"]
    if row.style in (F_STRING, FORMAT):
        return f_string_placeholders(row.template, row.args if row.style == F_STRING else ())
    return []


def unescape_literal(text: str, style: str) -> str:
    if style == PERCENT:
        return text.replace("%%", "%")
    if style in (F_STRING, FORMAT):
        return text.replace("{{", "{").replace("}}", "}")
    return text


# --- values -------------------------------------------------------------------------------------------


# every engine's record fields (no two engines give one name two kinds)
FIELD_KINDS = {name: kind for parser in PARSERS.values() for name, kind in field_kinds(parser.record_type).items()}


def sample(field: str, variant: str) -> int | float | str:
    if field in STRINGS:
        return STRINGS[field]
    kind = FIELD_KINDS.get(field)
    if kind is None:  # a startup error's number: GiB and fractions are floats, counts ints
        kind = float if field.endswith("_gib") or field in FRACTIONS else int
    negative = variant == "negative" and field in SIGNED
    if field in FRACTIONS:
        return -0.1234 if negative else 0.8765
    if kind is int:
        return -1234567 if negative else 1234567
    return -12.5 if negative else 12345.67


def format_value(value, spec: str, style: str, variant: str) -> str:
    if style == PERCENT:
        kind = spec[-1]
        if kind in "sr":
            if variant == "grouped" and isinstance(value, int):
                return f"{value:,}"
            return str(value) if kind == "s" else repr(value)
        if kind in "di" and isinstance(value, float):
            value = int(value)
        if kind in "di" and isinstance(value, str):
            return value
        return spec % value if not isinstance(value, str) else value
    if isinstance(value, str):
        return value
    if not spec:
        if variant == "grouped" and isinstance(value, int):
            return f"{value:,}"
        return str(round(value, 2)) if isinstance(value, float) else str(value)
    if spec[-1:] in ("d", "x") and isinstance(value, float):
        value = int(value)
    if spec[-1:] in ("f", "e", "g", "%") and isinstance(value, int):
        value = float(value)
    return format(value, spec)


# Helpers that print a figure with its unit, as the engines' code calls them (the template holds only the call): HPU's
# format_bytes() prints "{size:.4g} {Ki,Mi,Gi,Ti}B" and HabanaMemoryProfiler.get_summary_string() "<consumed> of device
# memory (<used>/<total> used) and <consumed> of host memory (...)" (vllm-gaudi vllm_gaudi/extension/profiler.py;
# vllm 0.8.5 imports the same from vllm_hpu_extension.profiler). A figure of this table is always in GiB.
PRINTED_UNITS = (
    (re.compile(r"^format_bytes\("), " GiB"),
    (re.compile(r"\bget_summary_string\(\)$"),
     " GiB of device memory (7 GiB/94.62 GiB used) and 7 GiB of host memory (7 GiB/1007 GiB used)"),
)


def printed_unit(expr: str) -> str:
    return next((suffix for regex, suffix in PRINTED_UNITS if regex.search(expr)), "")


def filler(spec: str, style: str, expr: str, samples: tuple) -> str:
    for regex, text in samples:
        if re.search(regex, expr):
            return text
    if style == PERCENT:
        return "7" if spec[-1] in "sdi" else format(7.0, spec[1:]) if spec[-1] in "feEgG" else "7"
    if spec and spec[-1] in "feEgG%":
        return format(7.0, spec)
    return "7"


def render(row, table: list, spec_module, variant: str, depth: int = 0) -> tuple[str, dict]:
    """The message as the engine would print it, and {field: value the parser must read}."""
    fact = next(f for f in spec_module.FACTS if f.name == row.fact)
    samples = getattr(fact, "samples", ()) or ()
    out, expected, pos = [], {}, 0
    for n, (start, end, pspec) in enumerate(placeholders(row)):
        out.append(unescape_literal(row.template[pos:start], row.style))
        field = row.fields[n] if n < len(row.fields) else "-"
        expr = row.args[n] if n < len(row.args) else ""
        if field.startswith("@"):
            nested = next((r for r in table if r.fact == field[1:]), None)
            text, sub = render(nested, table, spec_module, variant, depth + 1) if nested and depth < 2 else ("", {})
            expected.update(sub)
        elif field == "-":
            text = filler(pspec, row.style, expr, samples) + printed_unit(expr)
        elif field.endswith("+"):  # one of several figures the record holds the sum of
            value = 12.25 if variant != "negative" else 1.5
            text = format_value(value, pspec, row.style, variant)
            sums = expected.setdefault(field[:-1], [])
            sums.append(float(text))
        else:
            text = format_value(sample(field, variant), pspec, row.style, variant)
            expected[field] = text
            text += printed_unit(expr)
        out.append(text)
        pos = end
    out.append(unescape_literal(row.template[pos:], row.style))
    message = "".join(out)
    for name, value in list(expected.items()):
        if isinstance(value, list):
            expected[name] = round(sum(value), 2)
    if fact.expect and any(f == "-" and any(re.search(r, e) for r, _ in samples)
                           for f, e in zip(row.fields, row.args)):
        expected.update(dict(fact.expect))
    if fact.literal:
        match = re.search(fact.literal, row.template)
        if match:
            mapped = dict(fact.literal_map)
            expected.update({k: mapped.get(v, v) for k, v in match.groupdict().items() if v is not None})
    return message, expected


# --- feeding ------------------------------------------------------------------------------------------


def vllm_lines(message: str, level: str = "INFO") -> list[str]:
    # The logo's colour slots (${w}, ${o}, ${b}, ${r}) are empty in a monochrome log.
    message = re.sub(r"\$\{[a-z]\}", "", message)
    return [f"(EngineCore pid=200) {level} 11-29 20:00:00 [x.py:1] {line}" for line in message.split("\n")]


def sglang_lines(message: str) -> list[str]:
    first, *rest = message.split("\n")
    return [f"[2026-11-29 20:00:00] {first}", *rest]


def traceback_lines(message: str) -> list[str]:
    first, *rest = message.split("\n")
    return ["Traceback (most recent call last):",
            '  File "/venv/lib/python3.11/site-packages/pkg/mod.py", line 10, in f', "    call()",
            f"ValueError: {first}", *rest]


def preamble(engine: str, fact, table: list, spec_module) -> list[str]:
    """Lines that must come before this fact for it to mean what it says (e.g. after the KV line)."""
    if not getattr(fact, "after_kv", False):
        return []
    lines = []
    for name in ("kv_tokens", "v0_blocks", "max_concurrency"):  # (V0 sized its cache in blocks: its KV line)
        row = next((r for r in table if r.fact == name), None)
        if row is not None:
            lines += vllm_lines(render(row, table, spec_module, "plain")[0])
    return lines


def read(engine: str, lines: list[str]):
    parser = make_parser(engine)
    parser.feed_lines(lines)
    parser.close()
    return parser.record


def expected_value(field: str, text: str):
    if field.startswith("error_data."):
        return coerce(float, text) if re.fullmatch(r"-?[\d,]*\.?\d+(?:e[-+]?\d+)?", text) else text
    kind = FIELD_KINDS[field]
    if kind is int and "." in text:
        return int(float(text.replace(",", "")))
    return coerce(kind, text)


def actual_value(record, field: str):
    if field.startswith("error_data."):
        return record.error_data.get(field.split(".", 1)[1])
    return getattr(record, field)


def cases():
    out = []
    for engine in ENGINES:
        for path in [*table_paths(engine), *fork_table_paths(engine)]:
            version = path.stem.split("-", 1)[1] if path.parent.name == "formats" else path.stem
            table = read_table(path)
            counts: dict[str, int] = {}
            unread = {f.name for f in SPECS[engine].FACTS if f.unread}
            for row in table:
                if row.fact in unread:
                    continue
                counts[row.fact] = counts.get(row.fact, 0) + 1
                suffix = f"#{counts[row.fact]}" if counts[row.fact] > 1 else ""
                out.append(pytest.param(engine, version, row, table, id=f"{engine}-{version}:{row.fact}{suffix}"))
    return out


CASES = cases()


def test_there_are_tables_for_both_engines():
    engines = {case.values[0] for case in CASES}
    assert engines == set(ENGINES)


@pytest.mark.parametrize(("engine", "version", "row", "table"), CASES)
def test_release_wording_is_read(engine, version, row, table):
    spec_module = SPECS[engine]
    fact = next(f for f in spec_module.FACTS if f.name == row.fact)
    for variant in ("plain", "grouped", "negative"):
        message, expected = render(row, table, spec_module, variant)
        is_error = row.fact.startswith("error:")
        if is_error:
            lines = traceback_lines(message)
        elif engine == "vllm":
            lines = preamble(engine, fact, table, spec_module) + vllm_lines(message)
        else:
            lines = sglang_lines(message)
        record = read(engine, lines)
        if is_error:
            assert record.error_kind == row.fact.split(":", 1)[1], (variant, message)
        # A row whose placeholders feed nothing would pass without checking anything.
        assert expected or is_error or not placeholders(row), f"{row.fact}: nothing read from {message!r}"
        for field, text in expected.items():
            want = expected_value(field, text) if isinstance(text, str) else text
            got = actual_value(record, field)
            assert got == want, f"{field} ({variant}): got {got!r}, expected {want!r} from {message!r}"


# --- how the two-line KV statement of older vLLM releases is completed ----------------------------

OLD_KV = "(EngineCore_0 pid=7) INFO 05-01 10:00:00 [kv_cache_utils.py:634] GPU KV cache size: 1,234,567 tokens"
OLD_CONCURRENCY = ("(EngineCore_0 pid=7) INFO 05-01 10:00:00 [kv_cache_utils.py:637] Maximum concurrency for 8,192 "
                   "tokens per request: 150.70x")


def test_two_line_kv_statement_is_one_kv_event_with_both_figures():
    # vllm 0.8.5 vllm/v1/core/kv_cache_utils.py:634 and :637 log these one after the other.
    parser = make_parser("vllm")
    assert [e.kind for e in parser.feed(OLD_KV)] == []
    events = parser.feed(OLD_CONCURRENCY)
    kv = [e for e in events if e.kind == "kv_sized"]
    assert len(kv) == 1
    assert kv[0].data["kv_tokens"] == 1_234_567 and kv[0].data["max_concurrency"] == 150.7
    assert kv[0].data["max_model_len"] == 8192
    assert parser.record.status == "ok"


def test_kv_size_line_alone_is_completed_by_the_next_line_or_the_end():
    parser = make_parser("vllm")
    parser.feed(OLD_KV)
    events = parser.feed("(EngineCore_0 pid=7) INFO 05-01 10:00:01 [core.py:1] something else")
    assert [e.data["kv_tokens"] for e in events if e.kind == "kv_sized"] == [1_234_567]
    parser = make_parser("vllm")
    parser.feed(OLD_KV)
    assert parser.record.status is None
    assert [e.kind for e in parser.close()] == ["phase", "kv_sized"]
    assert parser.record.status == "ok"


def test_a_server_that_came_up_is_ok_even_if_its_kv_line_was_not_read():
    record = read("vllm", ["(APIServer pid=1) INFO 05-01 10:00:00 [api_server.py:1] some future KV wording: 12 tokens",
                           "(APIServer pid=1) INFO:     Application startup complete."])
    assert record.status == "ok" and record.kv_tokens is None and record.phase == "ready"
    record = read("sglang", ["[2026-01-01 10:00:00] The server is fired up and ready to roll!"])
    assert record.status == "ok" and record.kv_tokens is None


def test_a_speculative_draft_pool_does_not_overwrite_the_target_pool():
    record = read("sglang", [
        ("[2026-01-01 10:00:00] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 500000, K size: 3.00 GB, "
         "V size: 3.00 GB"),
        ("[2026-01-01 10:00:01] Draft KV Cache is allocated. dtype: torch.bfloat16, #tokens: 500000, K size: 0.10 GB, "
         "V size: 0.10 GB"),
    ])
    assert record.pool_tokens == 500_000 and record.draft_kv_gib == 0.2
    assert record.kv_gib == 6.0 and [p.kind for p in record.kv_pools] == ["kv", "draft"]  # the target's GiB


# --- rows that look like the pool and are not; the forks' tables against the spec ----------------------------------
# A row whose fact is `unread` (a compile hint, a profile run's cost, a host reservation, a stub's budget) is kept in
# its table for reference and feeds no field: rendered after a real KV statement it must leave the pool as that
# statement gave it, and alone it must not make one. A fork's or backend plugin's table is written by hand from its
# source: each of its rows must be the fact the engine's spec assigns to its template.

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
