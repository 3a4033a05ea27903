"""Ask an interpreter which engine and torch it has: a subprocess, never an import here."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from harness.childproc import child_environ
from harness.engines import get_engine
from harness.errors import EXIT_HARNESS, HarnessError

TAG = "KV-HARNESS-PROBE "

# Runs inside the engine's interpreter. Engines print on import, so the answer is one tagged line.
PROBE_SCRIPT = r"""
import importlib, importlib.metadata as md, json, platform, sys
module, dist_names, checks = sys.argv[1], [d for d in sys.argv[2].split(",") if d], sys.argv[3:]
out = {"prefix": sys.prefix, "python_version": platform.python_version()}
mod = importlib.import_module(module)
out["engine_version"] = str(getattr(mod, "__version__", ""))
try:
    import torch
    out["torch_version"] = str(torch.__version__)
    out["torch_cuda"] = getattr(getattr(torch, "version", None), "cuda", None)
except ImportError:
    out["torch_version"] = ""
dists = {}
for name in dist_names:
    try:
        dists[name] = md.version(name)
    except md.PackageNotFoundError:
        pass
out["dists"] = dists
for name in checks:
    importlib.import_module(name)
print("KV-HARNESS-PROBE " + json.dumps(out), flush=True)
"""


def probe(python: Path, engine: str, env_vars: dict[str, str] | None = None, checks: tuple[str, ...] = (),
          timeout_s: float = 600.0) -> dict:
    """{prefix, python_version, engine_version, torch_version, torch_cuda, dists} as seen by `python`
    (torch_cuda: the CUDA its torch was built for, None for a CPU build).

    `checks` are extra modules that must import (e.g. sgl_kernel, which needs the libcuda stub).
    """
    eng = get_engine(engine)
    module = eng.launch.runtime.module or engine
    dists = dict.fromkeys([*eng.launch.runtime.probe_dists, *eng.launch.runtime.key_dependencies])
    env = child_environ(env_vars)
    try:
        proc = subprocess.run([str(python), "-c", PROBE_SCRIPT, module, ",".join(dists),
                               *checks], env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
    except FileNotFoundError:
        raise HarnessError(f"{python}: interpreter not found") from None
    except PermissionError:
        raise HarnessError(f"{python}: not executable") from None
    except subprocess.TimeoutExpired:
        raise HarnessError(f"{python}: importing {module} took over {timeout_s:.0f} s",
                           exit_code=EXIT_HARNESS) from None
    for line in proc.stdout.splitlines():
        if line.startswith(TAG):
            return json.loads(line[len(TAG):])
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    why = lines[-1].strip() if lines else f"exit code {proc.returncode}"
    # A package that tries several builds (sgl_kernel's load_utils) ends on its last fallback's error
    # ("No module named 'common_ops'"); the dynamic loader's refusal before it is the cause.
    loader = next((ln.strip().lstrip("- ") for ln in lines if _LOADER_ERROR.search(ln)), None)
    if loader and loader not in why:
        why += f" (first: {loader})"
    raise HarnessError(f"{python} cannot import {module}: {why}")


_LOADER_ERROR = re.compile(r"(ImportError|OSError): .*(undefined symbol|cannot open shared object file|"
                           r"version `[A-Z]+_[\d.]+' not found)")
