"""What the budget formulas need to know about a model, read from its config.json and its safetensors headers.

KV bytes per token follow from the config's shapes; weight bytes from the safetensors headers when they
can be read (exact bytes per dtype as stored: MoE experts, FP8, packed int4, scales), else from the shapes
(dense, 16-bit). Sources, in order: a local directory holding config.json, the Hugging Face cache
(~/.cache/huggingface/hub), or a card bundled in `harness/predict/cards/` (config facts only) so
`predict` works offline on the common models; only `load_model_description(..., fetch_headers=True)`
asks the hub, and then for the safetensors headers alone.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from harness.builtin_models import ALL_BUILTINS, models_dir
from harness.errors import InputError
from harness.model_names import is_hub_id
from harness.predict.config_weights import DeclaredWeights, declared_weights, tied_embeddings
from harness.predict.kinds import ModelKind, model_kinds
from harness.predict.rank_split import rank_groups
from harness.predict.stored_weights import (
    HeaderError,
    StoredTensor,
    StoredWeights,
    hub_weights,
    local_weights,
    size_text,
)

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

# keys of a multimodal config.json's top level that its text config does not repeat
_OUTER_KEYS = ("quantization_config", "vision_config", "audio_config")


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
    # the checkpoint's tensors as its safetensors headers state them (None: not read), and why not
    stored: StoredWeights | None = field(default=None, compare=False, repr=False)
    stored_note: str = field(default="", compare=False)

    @property
    def kinds(self) -> list[ModelKind]:
        """What the config shows beyond dense full attention (harness.predict.kinds)."""
        return model_kinds(self.config)

    # ---- KV cache -------------------------------------------------------------------------

    @property
    def mla_latent_dim(self) -> int | None:
        """kv_lora_rank + qk_rope_head_dim of a multi-head latent attention model (None: not MLA)."""
        rank = self.config.get("kv_lora_rank")
        if rank in (None, 0):
            return None
        return int(rank) + int(self.config.get("qk_rope_head_dim") or 0)

    def kv_heads_per_rank(self, tp: int = 1) -> int:
        # vllm AttentionSpec and sglang get_num_kv_heads: max(1, total // tp) (heads replicate past tp)
        if self.mla_latent_dim is not None:
            return 1  # MLA: one latent "head" per token, on every rank
        return max(1, self.num_kv_heads // max(1, tp))

    def kv_bytes_per_token(self, kv_cache_dtype: str | None = "auto", tp: int = 1, dtype: str | None = None) -> int:
        """layers x 2 (K and V) x kv_heads_per_rank x head_dim x element bytes, per TP rank; MLA: layers x
        (kv_lora_rank + qk_rope_head_dim) x element bytes, the latent alone, the same on every rank."""
        elem = kv_element_bytes(kv_cache_dtype, resolve_dtype(dtype, self.dtype))
        return self.num_layers * self._kv_width(tp) * elem

    def page_bytes_per_layer(self, block_size: int, kv_cache_dtype: str | None = "auto", tp: int = 1,
                             dtype: str | None = None) -> int:
        # vllm AttentionSpec.page_size_bytes = kv_heads * block_size * (head_size + head_size_v) * dtype_bytes;
        # MLAAttentionSpec: one head of kv_lora_rank + qk_rope_head_dim, head_size_v 0 (0.32.0
        # vllm/v1/kv_cache_interface.py:686-698)
        elem = kv_element_bytes(kv_cache_dtype, resolve_dtype(dtype, self.dtype))
        return block_size * self._kv_width(tp) * elem

    def _kv_width(self, tp: int) -> int:
        """Elements one token's cache takes in one layer on one rank."""
        latent = self.mla_latent_dim
        if latent is not None:
            return latent
        return self.kv_heads_per_rank(tp) * 2 * self.head_dim

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

    @cached_property
    def declared(self) -> DeclaredWeights:
        """The tensors config.json declares, stored as its quantization_config says (harness.predict.config_weights)."""
        return declared_weights(self.config, self.dtype)

    def weight_bytes_per_rank(self, tp: int = 1, dtype: str | None = None) -> int:
        """Weight bytes one TP rank holds: from the safetensors headers when read, else from the tensors config.json
        declares (experts, quantization); split by the config's dense shapes when those account for every byte,
        else divided by tp."""
        stored = self._stored_bytes(dtype)
        measured = stored or self._declared_bytes(dtype)
        if measured[0] == self._shaped_weight_bytes(1, dtype):
            return self._shaped_weight_bytes(tp, dtype)
        if max(1, tp) == 1:
            return measured[0]
        if stored is not None:
            return self._split_per_rank(self.stored.tensors, tp, dtype, counted=True)
        return self._split_per_rank(self.declared.weights.tensors, tp, dtype, counted=False)

    def _split_per_rank(self, tensors: tuple[StoredTensor, ...], tp: int, dtype: str | None, counted: bool) -> int:
        """One rank's share of `tensors` as vLLM's layers cut them (harness.predict.rank_split): routers and norms
        whole, K/V projections by KV heads (replicated past tp), the rest / tp."""
        replicated, kv, sharded = rank_groups(tensors)

        def held(group: tuple[StoredTensor, ...]) -> int:
            return self._held_bytes(group, dtype, counted)[0]
        kv_share = self.kv_heads_per_rank(tp) / max(1, self.num_kv_heads)
        return held(replicated) + math.ceil(held(kv) * kv_share) + math.ceil(held(sharded) / tp)

    def weights_source(self, tp: int = 1, dtype: str | None = None) -> str:
        """One line: where weight_bytes_per_rank's figure comes from."""
        measured = self._stored_bytes(dtype)
        if measured is None:
            return self._declared_source(tp, dtype)
        total, adjustments = measured
        line = self.stored.describe()
        if adjustments:
            line += "; " + "; ".join(adjustments)
        if total == self._shaped_weight_bytes(1, dtype):
            return line + "; the config's shapes account for every byte, split per rank by those shapes"
        line += f"; {size_text(total)} as the engine holds it"
        return line + _approximate_split(tp)

    def _declared_source(self, tp: int, dtype: str | None) -> str:
        """The weights line without tensors read: what config.json declares and which terms were counted."""
        run_dtype = resolve_dtype(dtype, self.dtype)
        why = f"; {self.stored_note}" if self.stored_note else ""
        total, adjustments = self._declared_bytes(dtype)
        terms = self.declared.terms
        if total == self._shaped_weight_bytes(1, dtype):
            extra = "".join(f", {t}" for t in terms)
            return f"estimated from config.json (dense, {run_dtype}{extra}){why}"
        line = (f"estimated from config.json ({', '.join(terms) or 'dense'}): "
                f"{size_text(self.declared.stored_bytes)} as a checkpoint stores it")
        if adjustments:
            line += "; " + "; ".join(adjustments)
        return line + f"; {size_text(total)} as the engine holds it" + _approximate_split(tp) + why

    def weights_notes(self) -> list[str]:
        """What the weights estimate from config.json leaves out (no tensors read): towers, unmodelled schemes."""
        if self.stored is not None:
            return []
        return [f"weights: {note}; the safetensors headers (a local copy, the HF cache or the hub) would count it"
                for note in self.declared.unmodelled]

    def _declared_bytes(self, dtype: str | None) -> tuple[int, list[str]]:
        """(bytes the engine holds for the tensors config.json declares at tp=1, what was adjusted)."""
        # one declared tensor stands for all experts of a layer: their number is not the checkpoint's
        return self._held_bytes(self.declared.weights.tensors, dtype, counted=False)

    def _stored_bytes(self, dtype: str | None) -> tuple[int, list[str]] | None:
        """(bytes the engine holds for the stored tensors at tp=1, what was adjusted) - None without tensors.

        Float tensors are held at the run dtype, the way both engines cast them, but for a quantized model's F32
        scales; every other dtype (FP8, packed ints) as stored. Embedding/LM-head rows pad the vocab to a
        multiple of 64; a tied LM head stored anyway and the tensors of speculative-decoding layers (MTP: layers
        past num_hidden_layers, mtp.*) are not loaded for plain serving."""
        if self.stored is None or not self.stored.tensors:
            return None
        return self._held_bytes(self.stored.tensors, dtype)

    def _held_bytes(self, tensors: tuple[StoredTensor, ...], dtype: str | None,
                    counted: bool = True) -> tuple[int, list[str]]:
        """What the engine holds of `tensors` at tp=1 (see _stored_bytes), and what was adjusted (`counted`: the
        tensors are a checkpoint's own, one per stored tensor, so their number means something)."""
        elem = DTYPE_BYTES[resolve_dtype(dtype, self.dtype)]
        quantized = bool(self.config.get("quantization_config"))
        padded_vocab = _round_up(self.vocab_size, _VOCAB_PAD)
        total = draft = draft_n = 0
        recast: set[str] = set()
        padded = tied = False
        for t in tensors:
            n = t.nbytes
            size = _STORED_FLOAT_BYTES.get(t.dtype)
            if size is not None and (size == 2 or not quantized or not _is_scale(t.name)) and size != elem:
                n = n // size * elem
                recast.add(t.dtype)
            if _is_draft_layer(t.name, self.num_layers):
                draft, draft_n = draft + n, draft_n + 1
                continue
            if self.tie_word_embeddings and t.name.endswith("lm_head.weight"):
                tied = True
                continue
            if len(t.shape) == 2 and t.shape[0] == self.vocab_size and padded_vocab != self.vocab_size:
                n = n // self.vocab_size * padded_vocab
                padded = True
            total += n
        notes = []
        if recast:
            notes.append(f"{'/'.join(sorted(recast))} tensors held at {resolve_dtype(dtype, self.dtype)}")
        if padded:
            notes.append(f"vocab rows padded {self.vocab_size} -> {padded_vocab}")
        if tied:
            notes.append("a stored lm_head.weight not counted (tied to the embeddings)")
        if draft_n:
            what = f"{draft_n} tensors ({size_text(draft)})" if counted else size_text(draft)
            notes.append(f"{what} of speculative-decoding layers not counted")
        return total, notes

    def _shaped_weight_bytes(self, tp: int = 1, dtype: str | None = None) -> int:
        """The dense estimate from the config's shapes: linear layers and the padded vocab split, norms replicated."""
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
        out.pop("stored")
        return out


def _approximate_split(tp: int) -> str:
    if max(1, tp) <= 1:
        return ""
    return (f", split over tp={tp} as vLLM cuts each tensor (routers and norms whole on every rank, K/V heads "
            "replicated past tp, the rest / tp; block scales' rounding per rank not counted)")


def _round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m


# element bytes of the safetensors float dtypes the engines cast to the run dtype
_STORED_FLOAT_BYTES = {"BF16": 2, "F16": 2, "F32": 4}
_DECODER_LAYER = re.compile(r"^(?:model\.)?(?:language_model\.)?(?:model\.)?layers\.(\d+)\.")


def _is_scale(name: str) -> bool:
    """A quantization scale the quant methods create in float32 whatever the model dtype (weight_scale,
    weight_scale_inv, input_scale, weight_scale_2, k_scale/v_scale: vLLM 0.32.0 fp8.py:300-345, modelopt.py).
    Every other float parameter of a quantized model (embeddings, norms, the LM head, AWQ/GPTQ `scales`) is
    created in the model dtype (params_dtype), so a float32 config's copy is held at 16 bits: vLLM downcasts a
    float32 config (its own "Downcasting torch.float32 to torch.bfloat16": tests/fixtures/predict/gpu-oos4 v11)."""
    return name.rsplit(".", 1)[-1].endswith(("_scale", "_scale_inv", "_scale_2"))


def _is_draft_layer(name: str, num_layers: int) -> bool:
    """A tensor of a multi-token-prediction layer: a decoder layer past num_hidden_layers, or under mtp.*."""
    if name.startswith("mtp."):
        return True
    match = _DECODER_LAYER.match(name)
    return match is not None and int(match.group(1)) >= num_layers


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
        # the weights estimate needs what a multimodal config keeps at its top level: how it is quantized, its towers
        outer = {k: cfg[k] for k in _OUTER_KEYS if k in cfg and k not in cfg["text_config"]}
        cfg = {**cfg["text_config"], **outer, "architectures": cfg.get("architectures")}
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
        tie_word_embeddings=tied_embeddings(cfg),
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


def load_model_description(model: str, fetch_headers: bool = False) -> ModelDescription:
    """Local dir (or config.json path), then the HF cache, then a bundled card; the safetensors headers beside
    the config when there are any. `fetch_headers`: a hub id with no local tensors has its headers fetched
    (huggingface_hub, headers only); a failure there leaves the config's estimate, with the reason noted."""
    try:
        desc = _load_config(model)
    except InputError as exc:
        if not fetch_headers or not is_hub_id(model):
            raise
        desc = _hub_config(model, exc)
    return _with_stored_weights(desc, model, fetch_headers)


def _hub_config(repo_id: str, not_found: InputError) -> ModelDescription:
    """config.json of a hub repo not cached here, downloaded into the HF cache (the one whole file asked for)."""
    # huggingface_hub is imported here, not at module level: only a hub id met nowhere else needs it
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

    try:
        # one HEAD first: on a host the Hub cannot reach it fails at once, where hf_hub_download retries a connection
        # error five times with backoff (huggingface_hub 2.4 utils/_http.py http_backoff), ~40 s of warnings
        get_hf_file_metadata(hf_hub_url(repo_id, "config.json"), timeout=10)
        path = Path(hf_hub_download(repo_id, "config.json", etag_timeout=10))
    except Exception as exc:  # noqa: BLE001 - no network, a gated or missing repo: each is the same refusal
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{not_found}; the hub did not give its config.json either ({type(exc).__name__}: "
                         f"{reason[:200]})") from None
    return model_from_config(_load_json(path), name=repo_id, source=str(path.parent))


def _load_config(model: str) -> ModelDescription:
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


def _with_stored_weights(desc: ModelDescription, model: str, fetch_headers: bool) -> ModelDescription:
    """`desc` with its checkpoint's safetensors headers: the folder its config came from, else the hub."""
    folder = Path(desc.source)
    folder = folder.parent if folder.is_file() else folder
    note = ""
    if folder.is_dir():
        try:
            stored = local_weights(folder)
        except HeaderError as exc:
            stored, note = None, f"safetensors headers unreadable ({exc})"
        if stored is not None:
            return replace(desc, stored=stored)
    repo_id = _hub_id(model, desc)
    if repo_id is None:
        return replace(desc, stored_note=note) if note else desc
    if not fetch_headers:
        return replace(desc, stored_note=note or f"no safetensors files here for {repo_id}; hub headers not asked")
    try:
        return replace(desc, stored=hub_weights(repo_id))
    except Exception as exc:  # noqa: BLE001 - no network, a gated or missing repo: every failure falls back alike
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return replace(desc, stored_note=f"hub headers of {repo_id} not read ({type(exc).__name__}: {reason[:200]})")


def _hub_id(model: str, desc: ModelDescription) -> str | None:
    """The hub repo id `model` names: itself when it reads owner/name and is no local path, or a card's _id."""
    if model.startswith("builtin:") or Path(os.path.expanduser(model)).exists():
        return None
    if desc.source.startswith("card:"):
        card_id = str(desc.config.get("_id") or "")
        return card_id if "/" in card_id else (model if is_hub_id(model) else None)
    return model if is_hub_id(model) else None


def _builtin_config(model: str) -> tuple[dict[str, Any], str] | None:
    """builtin:<name>: the built copy's config.json when it exists, else the config its shape implies."""
    name = model.removeprefix("builtin:")
    shape = ALL_BUILTINS.get(name)
    if shape is None:
        return None
    built = models_dir() / name / "config.json"
    if built.is_file():
        return _load_json(built), str(built.parent)
    # Not built yet: the shape fixes every KV and weight term except the learned vocab size.
    return shape.config(), f"builtin:{name} (shape; not built yet)"
