"""What the budget formulas need to know about a model, read from its config.json.

Only the shapes matter: KV bytes per token and weight bytes both follow from them.
Sources, in order: a local directory holding config.json, the Hugging Face cache
(~/.cache/huggingface/hub, never the network), or a card bundled in
`harness/predict/cards/` (config facts only) so `predict` works offline on the
common models.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.builtin_models import BUILTINS, models_dir
from harness.errors import InputError

CARDS_DIR = Path(__file__).with_name("cards")

GiB = 1 << 30
MiB = 1 << 20

DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "fp32": 4,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    # kv_cache_dtype spellings of both engines; 1 byte per element, scales not counted
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}

_DTYPE_ALIASES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32", "float": "float32"}

# vLLM pads vocab-parallel embeddings to a multiple of 64 (DEFAULT_VOCAB_PADDING_SIZE)
_VOCAB_PAD = 64

# Architectures whose q/k/v projections carry a bias even without attention_bias in config.json
_QKV_BIAS_MODEL_TYPES = ("qwen2",)


@dataclass(frozen=True)
class ModelDescription:
    name: str
    source: str  # directory, HF cache snapshot or "card:<name>"
    model_type: str
    architecture: str
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    hidden_size: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool
    max_position_embeddings: int | None
    dtype: str  # config torch_dtype, normalised ("bfloat16", "float16", "float32")
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    # config.json as read (a multimodal model's text config): each engine derives its own
    # context length from it (harness/engines/<engine>/model_len.py)
    config: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    # ---- KV cache -------------------------------------------------------------------------

    def kv_heads_per_rank(self, tp: int = 1) -> int:
        # vllm AttentionSpec and sglang get_num_kv_heads: max(1, total // tp) (heads replicate past tp)
        return max(1, self.num_kv_heads // max(1, tp))

    def kv_bytes_per_token(self, kv_cache_dtype: str | None = "auto", tp: int = 1, dtype: str | None = None) -> int:
        """layers x 2 (K and V) x kv_heads_per_rank x head_dim x element bytes, per TP rank."""
        elem = kv_element_bytes(kv_cache_dtype, resolve_dtype(dtype, self.dtype))
        return self.num_layers * 2 * self.kv_heads_per_rank(tp) * self.head_dim * elem

    def page_bytes_per_layer(self, block_size: int, kv_cache_dtype: str | None = "auto", tp: int = 1,
                             dtype: str | None = None) -> int:
        # vllm AttentionSpec.page_size_bytes = kv_heads * block_size * (head_size + head_size_v) * dtype_bytes
        elem = kv_element_bytes(kv_cache_dtype, resolve_dtype(dtype, self.dtype))
        return self.kv_heads_per_rank(tp) * block_size * 2 * self.head_dim * elem

    # ---- weights --------------------------------------------------------------------------

    def _layer_params(self) -> tuple[int, int]:
        """(sharded, replicated) parameters of one decoder layer at tp=1."""
        h, hd = self.hidden_size, self.head_dim
        q = self.num_attention_heads * hd
        kv = self.num_kv_heads * hd
        attn = h * q + 2 * h * kv + q * h
        if self.qkv_bias:
            attn += q + 2 * kv
        if self.o_bias:
            attn += h
        mlp = 3 * h * self.intermediate_size  # gate, up, down (SwiGLU)
        if self.mlp_bias:
            mlp += 2 * self.intermediate_size + h
        norms = 2 * h
        return attn + mlp, norms

    def num_params(self) -> int:
        """Parameters computed from the shapes (Llama-3.1-8B: 8,030,261,248)."""
        sharded, replicated = self._layer_params()
        embed = self.vocab_size * self.hidden_size
        lm_head = 0 if self.tie_word_embeddings else embed
        return self.num_layers * (sharded + replicated) + embed + lm_head + self.hidden_size

    def weight_bytes_per_rank(self, tp: int = 1, dtype: str | None = None) -> int:
        """Weight bytes one TP rank holds: linear layers and the padded vocab split, norms replicated."""
        tp = max(1, tp)
        elem = DTYPE_BYTES[resolve_dtype(dtype, self.dtype)]
        h, hd = self.hidden_size, self.head_dim
        q_rank = self.num_attention_heads * hd // tp
        kv_rank = self.kv_heads_per_rank(tp) * hd  # KV heads replicate once tp > num_kv_heads
        attn = h * q_rank + 2 * h * kv_rank + q_rank * h
        if self.qkv_bias:
            attn += q_rank + 2 * kv_rank
        if self.o_bias:
            attn += h
        inter = self.intermediate_size // tp
        mlp = 3 * h * inter + ((2 * inter + h) if self.mlp_bias else 0)
        layer = attn + mlp + 2 * h
        vocab_rank = math.ceil(_round_up(self.vocab_size, _VOCAB_PAD) / tp)
        embed = vocab_rank * h
        lm_head = 0 if self.tie_word_embeddings else embed
        return elem * (self.num_layers * layer + embed + lm_head + h)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("config")
        return out


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


def resolve_dtype(requested: str | None, config_dtype: str) -> str:
    """The weight/activation dtype the engine uses: --dtype, or the config's (fp32 configs run in 16 bits)."""
    if requested in (None, "auto"):
        # Both engines downcast fp32 checkpoints to a 16-bit type on GPU; the byte count is what matters.
        return "bfloat16" if config_dtype in ("float32", "float") else config_dtype
    key = str(requested).lower()
    if key not in DTYPE_BYTES or DTYPE_BYTES[key] == 1:
        raise InputError(f"dtype {requested!r} is not one of auto, bfloat16, float16, float32")
    return _DTYPE_ALIASES.get(key, key)


def kv_element_bytes(kv_cache_dtype: str | None, model_dtype: str) -> int:
    if kv_cache_dtype in (None, "auto"):
        return DTYPE_BYTES[model_dtype]
    key = str(kv_cache_dtype).lower()
    if key not in DTYPE_BYTES:
        raise InputError(f"kv_cache_dtype {kv_cache_dtype!r} is not supported by the predictor "
                         "(auto, bfloat16, float16, fp8*)")
    return DTYPE_BYTES[key]


def model_from_config(cfg: dict[str, Any], name: str, source: str) -> ModelDescription:
    """Build a description from a config.json dict (text config of a multimodal model if nested)."""
    if "text_config" in cfg and "num_hidden_layers" not in cfg:
        cfg = {**cfg["text_config"], "architectures": cfg.get("architectures")}
    try:
        hidden = int(cfg["hidden_size"])
        heads = int(cfg["num_attention_heads"])
        layers = int(cfg["num_hidden_layers"])
    except KeyError as exc:
        raise InputError(f"{source}: config.json has no {exc.args[0]!r}; "
                         "the predictor needs a decoder-only transformer config") from None
    kv_heads = int(cfg.get("num_key_value_heads") or heads)
    head_dim = int(cfg.get("head_dim") or hidden // heads)
    dtype_raw = str(cfg.get("torch_dtype") or cfg.get("dtype") or "bfloat16").replace("torch.", "")
    dtype = _DTYPE_ALIASES.get(dtype_raw.lower(), dtype_raw.lower())
    if DTYPE_BYTES.get(dtype, 1) == 1:
        raise InputError(f"{source}: config.json torch_dtype {dtype_raw!r} is not a 16/32-bit float type")
    model_type = str(cfg.get("model_type", ""))
    attention_bias = bool(cfg.get("attention_bias", False))
    archs = cfg.get("architectures") or [""]
    return ModelDescription(
        name=name,
        source=source,
        model_type=model_type,
        architecture=str(archs[0]),
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        hidden_size=hidden,
        intermediate_size=int(cfg.get("intermediate_size") or 4 * hidden),
        vocab_size=int(cfg.get("vocab_size") or 32000),
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings", False)),
        max_position_embeddings=cfg.get("max_position_embeddings"),
        dtype=dtype,
        qkv_bias=attention_bias or model_type in _QKV_BIAS_MODEL_TYPES,
        o_bias=attention_bias,
        mlp_bias=bool(cfg.get("mlp_bias", False)),
        config=dict(cfg),
    )


# ---- lookup ---------------------------------------------------------------------------------


def bundled_cards() -> dict[str, Path]:
    """Card name -> file, e.g. 'Llama-3.1-8B-Instruct'."""
    return {p.stem: p for p in sorted(CARDS_DIR.glob("*.json"))}


def _load_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: cannot read config.json ({exc})") from None


def _hf_cache_dirs() -> list[Path]:
    dirs = []
    if os.environ.get("HF_HUB_CACHE"):
        dirs.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        dirs.append(Path(os.environ["HF_HOME"]) / "hub")
    dirs.append(Path.home() / ".cache" / "huggingface" / "hub")
    return dirs


def find_in_hf_cache(repo_id: str) -> Path | None:
    """The config.json of `repo_id` in a local Hugging Face cache (its main snapshot first), else None."""
    return _find_in_hf_cache(repo_id)


def _find_in_hf_cache(repo_id: str) -> Path | None:
    folder = "models--" + repo_id.replace("/", "--")
    for hub in _hf_cache_dirs():
        snaps = hub / folder / "snapshots"
        if not snaps.is_dir():
            continue
        ref = hub / folder / "refs" / "main"
        if ref.is_file():
            cand = snaps / ref.read_text().strip() / "config.json"
            if cand.is_file():
                return cand
        found = sorted(snaps.glob("*/config.json"), key=lambda p: p.stat().st_mtime, reverse=True)
        if found:
            return found[0]
    return None


def _find_card(model: str) -> Path | None:
    cards = bundled_cards()
    wanted = model.strip().lower()
    tail = wanted.rsplit("/", 1)[-1].removeprefix("card:")
    for name, path in cards.items():
        if name.lower() == tail:
            return path
        card_id = str(_load_json(path).get("_id", "")).lower()
        if card_id and card_id == wanted:
            return path
    return None


def load_model_description(model: str) -> ModelDescription:
    """Local dir (or config.json path), then the HF cache, then a bundled card; never the network."""
    path = Path(os.path.expanduser(model))
    if path.is_dir() and (path / "config.json").is_file():
        return model_from_config(_load_json(path / "config.json"), name=model, source=str(path))
    if path.is_file() and path.name.endswith(".json"):
        return model_from_config(_load_json(path), name=model, source=str(path))
    if model.startswith("builtin:"):
        builtin = _builtin_config(model)
        if builtin is None:
            raise InputError(f"model {model!r}: unknown builtin model")
        return model_from_config(builtin[0], name=model, source=builtin[1])
    if "/" in model and not path.exists():
        cached = _find_in_hf_cache(model)
        if cached is not None:
            return model_from_config(_load_json(cached), name=model, source=str(cached.parent))
    card = _find_card(model)
    if card is not None:
        return model_from_config(_load_json(card), name=model, source=f"card:{card.stem}")
    names = ", ".join(bundled_cards())
    raise InputError(
        f"model {model!r}: no config.json found (not a local dir, not in the Hugging Face cache, "
        f"not a bundled card); bundled cards: {names}; or set the scenario's model to a directory "
        f"(or a config.json path) holding the model's config.json"
    )


def _builtin_config(model: str) -> tuple[dict[str, Any], str] | None:
    """builtin:<name>: the built copy's config.json when it exists, else the config its shape implies."""
    name = model.removeprefix("builtin:")
    shape = BUILTINS.get(name)
    if shape is None:
        return None
    built = models_dir() / name / "config.json"
    if built.is_file():
        return _load_json(built), str(built.parent)
    # Not built yet: the shape fixes every KV and weight term except the learned vocab size.
    return shape.config(), f"builtin:{name} (shape; not built yet)"
