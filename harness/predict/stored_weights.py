"""A model's weights as its safetensors files store them: each tensor's dtype, shape and bytes, from the headers only.

A safetensors file opens with an 8-byte little-endian header length and a JSON header naming each tensor's
dtype, shape and data_offsets (https://huggingface.co/docs/safetensors/index#format); the bytes a tensor
takes as stored are its data_offsets' difference, whatever the dtype: FP8 (1 byte), packed int4 in I32/U8
tensors, NVFP4's packed U8 and its scales, MoE experts one tensor each. Local files: the header is read with
the standard library (the `safetensors` package opens tensors for a framework; the offsets are the header's).
Hub repos: huggingface_hub's `get_safetensors_metadata`, which range-requests the headers, never the data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SAFETENSORS_INDEX = "model.safetensors.index.json"
SAFETENSORS_SINGLE = "model.safetensors"
# safetensors refuses headers over 100 MB (safetensors/src/tensor.rs MAX_HEADER_SIZE); so do we
MAX_HEADER_BYTES = 100_000_000

GiB = 1 << 30


class HeaderError(ValueError):
    """A safetensors file whose header cannot be read."""


@dataclass(frozen=True)
class StoredTensor:
    name: str
    dtype: str  # the header's spelling: BF16, F16, F32, F8_E4M3, I32, U8, ...
    shape: tuple[int, ...]
    nbytes: int  # as stored: data_offsets[1] - data_offsets[0]


@dataclass(frozen=True)
class StoredWeights:
    """Every tensor of a checkpoint's safetensors shards, as their headers state them."""

    tensors: tuple[StoredTensor, ...]
    files: int
    origin: str  # where the headers came from: a directory, or the hub repo

    @property
    def total_bytes(self) -> int:
        return sum(t.nbytes for t in self.tensors)

    def bytes_by_dtype(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.tensors:
            out[t.dtype] = out.get(t.dtype, 0) + t.nbytes
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def describe(self) -> str:
        """'safetensors headers (DIR): 291 tensors in 4 files, 14.96 GiB as stored (BF16 14.96 GiB)'."""
        by_dtype = ", ".join(f"{d} {size_text(b)}" for d, b in self.bytes_by_dtype().items())
        files = f"{self.files} file{'s' if self.files != 1 else ''}"
        return (f"safetensors headers ({self.origin}): {len(self.tensors)} tensors in {files}, "
                f"{size_text(self.total_bytes)} as stored ({by_dtype})")


def size_text(nbytes: float) -> str:
    """GiB with two decimals from 1 GiB up, MiB below (a tiny test model's weights are not '0.00 GiB')."""
    return f"{nbytes / GiB:.2f} GiB" if nbytes >= GiB else f"{nbytes / (1 << 20):.2f} MiB"


def read_header(path: Path) -> dict:
    """The JSON header of one safetensors file (the 8-byte length, then that many bytes of JSON)."""
    try:
        with Path(path).open("rb") as f:
            raw = f.read(8)
            if len(raw) < 8:
                raise HeaderError(f"{path}: shorter than a safetensors header length")
            size = int.from_bytes(raw, "little")
            if size > MAX_HEADER_BYTES:
                raise HeaderError(f"{path}: header length {size} is over safetensors' {MAX_HEADER_BYTES} bytes")
            body = f.read(size)
    except OSError as exc:
        raise HeaderError(f"{path}: {exc}") from None
    if len(body) < size:
        raise HeaderError(f"{path}: header cut short ({len(body)} of {size} bytes)")
    try:
        header = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HeaderError(f"{path}: header is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise HeaderError(f"{path}: header is not a JSON object")
    return header


def tensors_of_header(header: dict, where: str) -> list[StoredTensor]:
    out = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            start, end = info["data_offsets"]
            shape = tuple(int(d) for d in info["shape"])
            out.append(StoredTensor(name, str(info["dtype"]), shape, int(end) - int(start)))
        except (KeyError, TypeError, ValueError):
            raise HeaderError(f"{where}: tensor {name!r} has no dtype/shape/data_offsets") from None
    return out


def shard_names(directory: Path) -> list[str]:
    """The safetensors files the engines load from `directory`: the index's shards, else model.safetensors,
    else every *.safetensors (none: []). With an index, other .safetensors beside it (Mistral's
    consolidated.safetensors, a second copy) are not counted."""
    index = directory / SAFETENSORS_INDEX
    if index.is_file():
        try:
            weight_map = json.loads(index.read_text()).get("weight_map") or {}
        except (OSError, json.JSONDecodeError, AttributeError) as exc:
            raise HeaderError(f"{index}: cannot read the shard index ({exc})") from None
        return sorted(set(weight_map.values()))
    if (directory / SAFETENSORS_SINGLE).is_file():
        return [SAFETENSORS_SINGLE]
    return sorted(p.name for p in directory.glob("*.safetensors"))


def local_weights(directory: Path) -> StoredWeights | None:
    """The stored weights of a local model directory (an HF cache snapshot too); None without safetensors files."""
    names = shard_names(directory)
    if not names:
        return None
    tensors: list[StoredTensor] = []
    for name in names:
        path = directory / name
        tensors += tensors_of_header(read_header(path), str(path))
    return StoredWeights(tuple(tensors), len(names), str(directory))


def hub_weights(repo_id: str, timeout: float = 10.0) -> StoredWeights:
    """The stored weights of a hub repo from its headers only (huggingface_hub range-requests each shard's
    header; the shard index is the one whole file it downloads). Raises whatever the client raises."""
    # huggingface_hub is imported here, not at module level: only `predict` on a hub id not in the cache needs it
    from huggingface_hub import HfApi

    meta = HfApi().get_safetensors_metadata(repo_id, timeout=timeout)
    tensors = [StoredTensor(name, str(info.dtype), tuple(info.shape), info.data_offsets[1] - info.data_offsets[0])
               for file in meta.files_metadata.values() for name, info in file.tensors.items()]
    return StoredWeights(tuple(tensors), len(meta.files_metadata), f"hub {repo_id}")
