"""The stand-in libcuda.so.1 that lets SGLang-CPU import its CUDA-linked kernel package, built with gcc.

Every entry point answers CUDA_ERROR_NO_DEVICE (100): sgl_kernel's extension links
libcuda.so.1 and needs only to load, never to run a kernel.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from harness.errors import EXIT_HARNESS, HarnessError

SOURCE = Path(__file__).with_name("libcuda_stub.c")
LIBNAME = "libcuda.so.1"
STUB_DIR = "libcuda-stub"  # inside an SGLang-CPU env (and the shared one in the cache dir)


def build_stub(out_dir: Path, cc: str | None = None) -> Path:
    """Compile the stub into `out_dir/libcuda.so.1` (atomically) and return its path."""
    cc = cc or os.environ.get("CC") or "gcc"
    if not shutil.which(cc):
        raise HarnessError(f"building the stand-in libcuda for SGLang-CPU needs a C compiler: {cc!r} not found "
                           "(apt-get install gcc)", exit_code=EXIT_HARNESS)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / LIBNAME
    tmp = out_dir / f".{LIBNAME}.{os.getpid()}.tmp"
    argv = [cc, "-shared", "-fPIC", "-O2", "-Wl,-soname," + LIBNAME, "-o", str(tmp), str(SOURCE)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        first = (proc.stderr.strip().splitlines() or ["no output"])[0]
        raise HarnessError(f"{cc} failed to build {LIBNAME} from {SOURCE}: {first}", exit_code=EXIT_HARNESS)
    os.replace(tmp, target)
    return target


def shared_stub_dir(cache_dir: Path) -> Path:
    """A stub for interpreters the harness did not provision (scenario `python:` on a CPU host)."""
    d = cache_dir / STUB_DIR
    if not (d / LIBNAME).is_file():
        build_stub(d)
    return d
