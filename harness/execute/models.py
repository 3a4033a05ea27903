"""Building the builtin models on disk, so a run needs no model hub: `builtin:tiny-llama` and the other
shapes of harness.builtin_models (sliding-window Gemma 3, Qwen3 MoE, hybrid Nemotron-H).

Each is real enough for both engines to load and size a KV cache: its config, random fp16
weights in safetensors under the checkpoint names the engines' loaders read, and a byte-level
BPE tokenizer trained here on a few sentences (model vocab = tokenizer vocab).
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from harness.builtin_models import ALL_BUILTINS, TinyLlamaShape, TinyShape, models_dir
from harness.errors import InputError
from harness.model_names import BUILTIN_PREFIX, is_hub_id

log = logging.getLogger(__name__)

CORPUS = [
    "The harness launches real inference servers and reads their startup logs.",
    "How many tokens of KV cache does each engine really allocate on this card?",
    "vLLM measures free memory after a dummy forward pass; SGLang computes a static fraction.",
    "Numbers: 0 1 2 3 4 5 6 7 8 9 10 100 1000 2048 4096 8192 16384.",
    "A quick brown fox jumps over the lazy dog while the GPU idles.",
]


def _train_tokenizer(target: Path, vocab_size: int) -> int:
    # lazy: tokenizers loads only to build the tiny model
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(unk_token=None))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<s>", "</s>", "<pad>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(CORPUS * 4, trainer=trainer)
    tokenizer.save(str(target / "tokenizer.json"))
    (target / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>",
        "model_max_length": 1 << 20,
        "chat_template": "{% for m in messages %}{{ m['content'] }}\n{% endfor %}",
    }, indent=2))
    return tokenizer.get_vocab_size()


def _initial(name: str, dims: tuple[int, ...], rng):
    """A tensor's starting values: norms and Mamba's D at one, its A_log at log(1..heads) (A = -1..-heads,
    as Mamba2 initialises it), everything else (weights, conv biases, dt_bias) small and random."""
    import numpy as np  # lazy: numpy loads only to write a tiny model

    if name.endswith(("norm.weight", ".D")):
        return np.ones(dims, np.float16)
    if name.endswith(".A_log"):
        return np.log(np.arange(1, dims[0] + 1)).astype(np.float16)
    return (rng.standard_normal(dims) * 0.02).astype(np.float16)


def _write_weights(target: Path, shape: TinyShape, vocab: int, seed: int = 0) -> None:
    # lazy: numpy and safetensors load only to write the tiny model
    import numpy as np
    from safetensors.numpy import save_file

    rng = np.random.default_rng(seed)
    tensors = {name: _initial(name, dims, rng) for name, dims in shape.tensor_shapes(vocab).items()}
    save_file(tensors, str(target / "model.safetensors"), metadata={"format": "pt"})


def _write_config(target: Path, shape: TinyShape, vocab: int) -> None:
    (target / "config.json").write_text(json.dumps(shape.config(vocab), indent=2))
    (target / "generation_config.json").write_text(json.dumps({"bos_token_id": 0, "eos_token_id": 1}))


def build_builtin(target: Path, shape: TinyShape) -> Path:
    """Write a loadable tiny model of `shape` into `target` (created; must not exist)."""
    target.mkdir(parents=True)
    vocab = shape.vocab_rows(_train_tokenizer(target, shape.vocab_target))
    _write_config(target, shape, vocab)
    _write_weights(target, shape, vocab)
    return target


def build_tiny_llama(target: Path, shape: TinyShape = TinyLlamaShape()) -> Path:
    """Write a loadable tiny Llama into `target` (created; must not exist)."""
    return build_builtin(target, shape)


def resolve_model(model: str) -> str:
    """The path or id to hand the engine: builtins are built once into the models dir."""
    if not model.startswith(BUILTIN_PREFIX):
        return model
    name = model[len(BUILTIN_PREFIX):]
    if name not in ALL_BUILTINS:
        raise InputError(f"model: unknown builtin '{name}' (known: {', '.join(ALL_BUILTINS)})")
    final = models_dir() / name
    if (final / "config.json").exists():
        return str(final)
    final.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the final place and rename, so a half-built model is never used.
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=final.parent))
    try:
        build_builtin(staging / "m", ALL_BUILTINS[name])
        try:
            (staging / "m").rename(final)
        except OSError:
            if not (final / "config.json").exists():  # someone else won the race only if it's complete
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    log.info("built %s at %s", model, final)
    return str(final)


# What the engines load from a hub repo: configs, tokenizers, safetensors weights; not the duplicate
# formats some repos also carry (Llama's original/*.pth is another 16 GB).
MODEL_FILES = ["*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "*.jinja", "*.py"]
NOT_MODEL_FILES = ["original/*", "*.pth", "*.bin", "*.gguf", "*.onnx", "*.h5", "*.msgpack"]


@dataclass(frozen=True)
class ModelFetch:
    model: str
    path: str
    seconds: float

    def to_dict(self) -> dict:
        return {"model": self.model, "path": self.path, "seconds": round(self.seconds, 1)}


def fetch_model(model: str, clock=time.monotonic) -> ModelFetch | None:
    """A hub model's files into the local Hugging Face cache before the first point, so no point's timeout
    or t_kv_s carries the download; what is cached already is not fetched again. One line, before anything
    launches, when the Hub refuses (a gated repo and no token or no access, a repo that is not there) or
    cannot be reached with the model not cached. None for builtin and local models."""
    if not is_hub_id(model):
        return None
    # lazy: huggingface_hub costs ~0.4 s; only a hub model needs it
    from huggingface_hub import get_token, snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    start = clock()
    try:
        path = snapshot_download(model, allow_patterns=MODEL_FILES, ignore_patterns=NOT_MODEL_FILES)
    except GatedRepoError:
        if get_token():
            raise InputError(f"model {model}: gated on the Hugging Face Hub, and the token this host has (HF_TOKEN or "
                             "huggingface-cli login) has no access: accept its terms on "
                             f"https://huggingface.co/{model} with that account") from None
        raise InputError(f"model {model}: gated on the Hugging Face Hub, and no token is set: set HF_TOKEN (or run "
                         f"huggingface-cli login) for an account that accepted its terms on "
                         f"https://huggingface.co/{model}") from None
    except RepositoryNotFoundError:
        raise InputError(f"model {model}: no such repository on the Hugging Face Hub (or a private one the token "
                         "cannot see)") from None
    except LocalEntryNotFoundError:
        raise InputError(f"model {model}: not in the local Hugging Face cache and the Hub cannot be reached "
                         "(offline, or HF_HUB_OFFLINE=1): download it where the Hub is reachable") from None
    except HfHubHTTPError as exc:
        raise InputError(f"model {model}: the Hugging Face Hub refused the download: "
                         f"{str(exc).splitlines()[0]}") from None
    return ModelFetch(model, str(path), clock() - start)
