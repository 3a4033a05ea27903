"""Tiny checkpoints for the predictor's weight tests: config.json and safetensors files written by the
`safetensors` package itself (not by the harness's header reader), tensors of any stored dtype (BF16,
F8_E4M3, packed int4 in I32, U8 scales, F32), zero-filled.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import safetensors

# safetensors.TensorSpec's dtype names for the header's spellings, with their element bytes
SPEC_DTYPES = {"BF16": ("bfloat16", 2), "F16": ("float16", 2), "F32": ("float32", 4), "F8_E4M3": ("float8_e4m3fn", 1),
               "I32": ("int32", 4), "U8": ("uint8", 1)}


def safetensors_bytes(tensors: dict[str, tuple[str, tuple[int, ...]]]) -> bytes:
    """A safetensors file of `tensors` (name -> (header dtype, shape)), zero-filled."""
    buffers, specs = [], {}
    for name, (dtype, shape) in tensors.items():
        spec_dtype, size = SPEC_DTYPES[dtype]
        nbytes = int(np.prod(shape)) * size if shape else size
        buffer = np.zeros(max(1, nbytes), dtype=np.uint8)
        buffers.append(buffer)  # kept alive while serialize reads the pointers
        specs[name] = safetensors.TensorSpec(dtype=spec_dtype, shape=list(shape), data_ptr=buffer.ctypes.data,
                                             data_len=nbytes)
    return bytes(safetensors.serialize(specs))


def tensor_bytes(tensors: dict[str, tuple[str, tuple[int, ...]]]) -> int:
    """What the tensors take as stored: elements x element bytes."""
    return sum(int(np.prod(shape)) * SPEC_DTYPES[dtype][1] for dtype, shape in tensors.values())


def write_checkpoint(folder: Path, config: dict, shards: dict[str, dict[str, tuple[str, tuple[int, ...]]]],
                     index: bool | None = None) -> dict[str, bytes]:
    """config.json plus one safetensors file per shard (an index when there are several, or when asked);
    returns every file's bytes by name (what a FakeHub repo serves)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"config.json": json.dumps(config).encode()}
    for name, tensors in shards.items():
        files[name] = safetensors_bytes(tensors)
    if index if index is not None else len(shards) > 1:
        weight_map = {t: name for name, tensors in shards.items() for t in tensors}
        files["model.safetensors.index.json"] = json.dumps({"metadata": {}, "weight_map": weight_map}).encode()
    for name, body in files.items():
        (folder / name).write_bytes(body)
    return files


def dense_llama(hidden: int = 64, heads: int = 4, kv_heads: int = 2, inter: int = 128, layers: int = 2,
                vocab: int = 100, dtype: str = "F16") -> tuple[dict, dict[str, tuple[str, tuple[int, ...]]]]:
    """A Llama config and every tensor a Llama checkpoint of that shape stores."""
    head_dim = hidden // heads
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
              "intermediate_size": inter, "num_hidden_layers": layers, "num_attention_heads": heads,
              "num_key_value_heads": kv_heads, "head_dim": head_dim, "vocab_size": vocab,
              "max_position_embeddings": 2048, "tie_word_embeddings": False,
              "torch_dtype": {"F16": "float16", "BF16": "bfloat16"}[dtype]}
    tensors = {"model.embed_tokens.weight": (dtype, (vocab, hidden)), "lm_head.weight": (dtype, (vocab, hidden)),
               "model.norm.weight": (dtype, (hidden,))}
    for i in range(layers):
        p = f"model.layers.{i}."
        tensors |= {p + "self_attn.q_proj.weight": (dtype, (heads * head_dim, hidden)),
                    p + "self_attn.k_proj.weight": (dtype, (kv_heads * head_dim, hidden)),
                    p + "self_attn.v_proj.weight": (dtype, (kv_heads * head_dim, hidden)),
                    p + "self_attn.o_proj.weight": (dtype, (hidden, heads * head_dim)),
                    p + "mlp.gate_proj.weight": (dtype, (inter, hidden)),
                    p + "mlp.up_proj.weight": (dtype, (inter, hidden)),
                    p + "mlp.down_proj.weight": (dtype, (hidden, inter)),
                    p + "input_layernorm.weight": (dtype, (hidden,)),
                    p + "post_attention_layernorm.weight": (dtype, (hidden,))}
    return config, tensors
