"""Weights from the checkpoint's safetensors headers (harness/predict/stored_weights.py, ModelDescription):
exact bytes per dtype as stored - MoE experts, FP8, packed int4, scales - from a local folder, a sharded
index, the HF cache; a dense checkpoint's prediction unchanged; the config's estimate, said, without tensors.
"""

from __future__ import annotations

import json
import math

import pytest

from harness.engines.predicting import predict
from harness.predict import load_model_description, model_from_config
from harness.predict.model import GiB
from harness.predict.stored_weights import HeaderError, local_weights, read_header
from tests.support.checkpoints import dense_llama, tensor_bytes, write_checkpoint

HIDDEN, EXPERTS, LAYERS, VOCAB = 64, 4, 2, 128


def moe_fp8() -> tuple[dict, dict[str, tuple[str, tuple[int, ...]]]]:
    """A Qwen3-MoE-like FP8 checkpoint: BF16 embeddings and norms, F8_E4M3 linear layers with F32 block scales,
    4 experts per layer, and one int4 layer packed in I32 with U8 zero points (as stored, whatever the method)."""
    config = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": HIDDEN,
              "intermediate_size": 256, "moe_intermediate_size": 32, "num_hidden_layers": LAYERS,
              "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "vocab_size": VOCAB,
              "num_experts": EXPERTS, "num_experts_per_tok": 2, "max_position_embeddings": 4096,
              "torch_dtype": "bfloat16", "tie_word_embeddings": False,
              "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    t: dict[str, tuple[str, tuple[int, ...]]] = {
        "model.embed_tokens.weight": ("BF16", (VOCAB, HIDDEN)), "lm_head.weight": ("BF16", (VOCAB, HIDDEN)),
        "model.norm.weight": ("BF16", (HIDDEN,))}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        for name, rows in (("q_proj", 64), ("k_proj", 32), ("v_proj", 32), ("o_proj", 64)):
            t[p + f"self_attn.{name}.weight"] = ("F8_E4M3", (rows, HIDDEN))
            t[p + f"self_attn.{name}.weight_scale_inv"] = ("F32", (1, 1))
        t[p + "mlp.gate.weight"] = ("BF16", (EXPERTS, HIDDEN))
        for e in range(EXPERTS):
            for name, shape in (("gate_proj", (32, HIDDEN)), ("up_proj", (32, HIDDEN)), ("down_proj", (HIDDEN, 32))):
                t[p + f"mlp.experts.{e}.{name}.weight"] = ("F8_E4M3", shape)
                t[p + f"mlp.experts.{e}.{name}.weight_scale_inv"] = ("F32", (1, 1))
        t[p + "input_layernorm.weight"] = ("BF16", (HIDDEN,))
        t[p + "post_attention_layernorm.weight"] = ("BF16", (HIDDEN,))
    t["model.layers.0.mlp.shared_expert.down_proj.qweight"] = ("I32", (HIDDEN // 8, 32))  # 8 int4 per int32
    t["model.layers.0.mlp.shared_expert.down_proj.qzeros"] = ("U8", (1, 16))
    return config, t


def test_an_moe_fp8_checkpoint_weighs_exactly_what_its_tensors_store(tmp_path):
    config, tensors = moe_fp8()
    write_checkpoint(tmp_path / "m", config, {"model.safetensors": tensors})
    model = load_model_description(str(tmp_path / "m"))
    stored = sum(n for n in (tensor_bytes({k: v}) for k, v in tensors.items()))
    assert model.stored is not None and len(model.stored.tensors) == len(tensors)
    assert model.stored.total_bytes == stored
    assert set(model.stored.bytes_by_dtype()) == {"BF16", "F8_E4M3", "F32", "I32", "U8"}
    assert model.stored.bytes_by_dtype()["F8_E4M3"] == sum(
        tensor_bytes({k: v}) for k, v in tensors.items() if v[0] == "F8_E4M3")
    assert model.weight_bytes_per_rank(1) == stored  # every dtype as stored: FP8 1 byte, scales F32, int4 packed
    # at tp 2 each rank holds one of the 2 KV heads, the routers and norms whole, the rest halved (rank_split.py)
    whole = tensor_bytes({k: v for k, v in tensors.items() if k.endswith(("mlp.gate.weight", "norm.weight"))})
    assert model.weight_bytes_per_rank(2) == whole + math.ceil((stored - whole) / 2)
    assert model.weight_bytes_per_rank(1) != model._shaped_weight_bytes(1)  # the dense guess is something else
    source = model.weights_source(2)
    assert source.startswith(f"safetensors headers ({tmp_path / 'm'}): {len(tensors)} tensors in 1 file,")
    assert "split over tp=2 as vLLM cuts each tensor" in source and "\n" not in source
    assert model.weights_notes() == []  # the experts were counted: nothing to warn about


def test_the_prediction_uses_the_stored_bytes_and_says_where_they_come_from(tmp_path):
    config, tensors = moe_fp8()
    write_checkpoint(tmp_path / "m", config, {"model.safetensors": tensors})
    model = load_model_description(str(tmp_path / "m"))
    for engine in ("vllm", "sglang"):
        p = predict(engine, {}, model, 24576)
        # vLLM's figure adds the rotary cos/sin cache it builds with the model: 4096 positions x 16 x 2 B
        rope = 4096 * 16 * 2 if engine == "vllm" else 0
        assert p.modelled and p.weights_gib == (model.stored.total_bytes + rope) / GiB
        assert p.weights_source.startswith("safetensors headers (")
        assert not [n for n in p.notes if n.startswith("weights:")]


def test_shards_follow_the_index_and_skip_a_second_copy_and_draft_layers(tmp_path):
    config, tensors = moe_fp8()
    names = sorted(tensors)
    half = len(names) // 2
    shards = {"model-00001-of-00002.safetensors": {k: tensors[k] for k in names[:half]},
              "model-00002-of-00002.safetensors": {k: tensors[k] for k in names[half:]}}
    write_checkpoint(tmp_path / "m", config, shards)
    # Mistral-style second copy beside the index: not what the engines load
    write_checkpoint(tmp_path / "m", config, {"consolidated.safetensors": tensors}, index=False)
    (tmp_path / "m" / "config.json").write_text(json.dumps(config))
    stored = local_weights(tmp_path / "m")
    assert stored is not None and stored.files == 2 and stored.total_bytes == tensor_bytes(tensors)

    # an MTP layer (past num_hidden_layers) is loaded only as a speculative-decoding draft: not counted
    mtp = {f"model.layers.{LAYERS}.mlp.experts.0.up_proj.weight": ("F8_E4M3", (32, HIDDEN))}
    write_checkpoint(tmp_path / "d", config, {**shards, "model-mtp.safetensors": mtp})
    model = load_model_description(str(tmp_path / "d"))
    assert len(model.stored.tensors) == len(tensors) + 1
    assert model.weight_bytes_per_rank(1) == tensor_bytes(tensors)
    assert "1 tensors (0.00 MiB) of speculative-decoding layers not counted" in model.weights_source()


@pytest.mark.parametrize("vocab", [128, 100])  # 100: the engines pad the vocab rows to 128
def test_a_dense_checkpoint_predicts_as_its_config_did(tmp_path, vocab):
    config, tensors = dense_llama(vocab=vocab)
    write_checkpoint(tmp_path / "m", config, {"model.safetensors": tensors})
    with_tensors = load_model_description(str(tmp_path / "m"))
    from_config = model_from_config(config, name=str(tmp_path / "m"), source="config only")
    assert with_tensors.stored is not None and from_config.stored is None
    for tp in (1, 2, 4):
        assert with_tensors.weight_bytes_per_rank(tp) == from_config.weight_bytes_per_rank(tp)
    assert "the config's shapes account for every byte" in with_tensors.weights_source()
    assert from_config.weights_source() == "estimated from config.json (dense, float16)"
    for engine in ("vllm", "sglang"):
        a, b = predict(engine, {}, with_tensors, 24576), predict(engine, {}, from_config, 24576)
        a.weights_source = b.weights_source = ""
        assert a.to_json() == b.to_json()


def test_a_float32_checkpoint_is_held_at_the_run_dtype(tmp_path):
    config, tensors = dense_llama()
    tensors = {k: ("F32", shape) for k, (_, shape) in tensors.items()}
    config["torch_dtype"] = "float32"
    config["vocab_size"] = 128
    tensors["model.embed_tokens.weight"] = tensors["lm_head.weight"] = ("F32", (128, 64))
    write_checkpoint(tmp_path / "m", config, {"model.safetensors": tensors})
    model = load_model_description(str(tmp_path / "m"))
    assert model.weight_bytes_per_rank(1) == tensor_bytes(tensors) // 2  # both engines run fp32 configs in 16 bits
    assert "F32 tensors held at bfloat16" in model.weights_source()


def test_a_model_in_the_hf_cache_reads_its_snapshot(tmp_path, monkeypatch):
    config, tensors = moe_fp8()
    repo = tmp_path / "hf" / "hub" / "models--org--moe"
    write_checkpoint(repo / "snapshots" / "abc123", config, {"model.safetensors": tensors})
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    model = load_model_description("org/moe")
    assert model.stored is not None and model.weight_bytes_per_rank(1) == tensor_bytes(tensors)


def test_no_tensors_anywhere_counts_the_experts_and_fp8_the_config_declares(tmp_path):
    config, tensors = moe_fp8()
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(config))
    model = load_model_description(str(tmp_path / "m"))
    assert model.stored is None
    # the checkpoint above stores what the config declares, plus an int4 shared expert its config does not declare
    declared = tensor_bytes({k: v for k, v in tensors.items() if ".shared_expert." not in k})
    assert model.weight_bytes_per_rank(1) == declared
    assert model.weights_source().startswith("estimated from config.json (4 experts in 2 layers, "
                                             "fp8 block 128x128 scales): ")
    p = predict("vllm", {}, model, 24576)
    assert p.modelled and p.kv_tokens is not None  # MoE changes the weights, not the KV formula
    assert [n for n in p.notes if n.startswith("weights:")] == []  # experts and fp8 counted: nothing to warn about


def test_an_offline_hub_id_falls_back_to_the_card_and_says_why():
    # the suite runs with HF_HUB_OFFLINE=1 (tests/conftest.py): huggingface_hub refuses before any request
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct", fetch_headers=True)
    assert model.stored is None
    source = model.weights_source()
    assert source.startswith("estimated from config.json (dense, bfloat16); hub headers of "
                             "meta-llama/Llama-3.1-8B-Instruct not read (")
    assert round(model.weight_bytes_per_rank() / GiB, 2) == 14.96
    assert "hub headers not asked" in load_model_description("meta-llama/Llama-3.1-8B-Instruct").weights_source()


def test_a_broken_header_is_said_not_guessed(tmp_path):
    config, _ = dense_llama()
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(json.dumps(config))
    (tmp_path / "m" / "model.safetensors").write_bytes((1000).to_bytes(8, "little") + b"{")
    with pytest.raises(HeaderError, match="header cut short"):
        read_header(tmp_path / "m" / "model.safetensors")
    model = load_model_description(str(tmp_path / "m"))
    assert model.stored is None and "safetensors headers unreadable" in model.weights_source()
