"""A GPU host for tests: a described set of cards behind a fake NVML (tests/support/gpu_host/pynvml.py).

    host = GpuHost.one("A100-80GB").write(tmp_path)   # the host file; KVH_FAKE_GPU_HOST points at it
    install(monkeypatch, host_file)                   # in-process: pynvml is the fake
    subprocess_env(host_file)                         # for a child: PYTHONPATH and KVH_FAKE_GPU_HOST

Its fake engines (vllm_gpu.py, sglang_gpu.py) size their KV caches by rules read from each release's own source
(vllm_rules.py, sglang_rules.py; never the harness's predictor, so a wrong harness rule fails a GPU-path test:
tests/execute/test_gpu_host_rules.py) and print each line in the release's wording (wording.py).

The cards' figures are what NVML reports for them on real hosts (nvidia-smi output in public issues):
an idle A100-SXM4-80GB reserves ~870 MiB of its 81,920 MiB, an idle RTX 4090 that drives a desktop shows
Xorg and a compositor as graphics processes (~770 MiB), an L4/A10G has 23,034 MiB.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Process:
    pid: int
    used_mib: int
    kind: str = "compute"  # or "graphics" (a display server)


@dataclass(frozen=True)
class Card:
    name: str
    total_mib: int
    reserved_mib: int
    processes: tuple[Process, ...] = ()


CARDS = {
    "A100-80GB": Card("NVIDIA A100-SXM4-80GB", 81920, 870),
    "H100-80GB": Card("NVIDIA H100 80GB HBM3", 81559, 552),
    "RTX4090": Card("NVIDIA GeForce RTX 4090", 24564, 348),
    "RTX4090-desktop": Card("NVIDIA GeForce RTX 4090", 24564, 348,
                            (Process(1811, 612, "graphics"), Process(2290, 158, "graphics"))),
    "L4": Card("NVIDIA L4", 23034, 327),
    "A10G": Card("NVIDIA A10G", 23028, 331),
}


@dataclass(frozen=True)
class GpuHost:
    cards: tuple[Card, ...]
    driver_version: str = "570.133.20"
    cuda_driver_version: int = 12080  # CUDA 12.8
    nvml_v2: bool = True  # False: a driver before 510, no memory info v2

    @classmethod
    def of(cls, *names: str, **kw) -> GpuHost:
        return cls(tuple(CARDS[n] for n in names), **kw)

    def busy(self, index: int, pid: int, used_mib: int) -> GpuHost:
        """The same host with another process holding `used_mib` on card `index`."""
        cards = list(self.cards)
        cards[index] = replace(cards[index], processes=(*cards[index].processes, Process(pid, used_mib)))
        return replace(self, cards=tuple(cards))

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "gpu-host.json"
        data = {"driver_version": self.driver_version, "cuda_driver_version": self.cuda_driver_version,
                "nvml_v2": self.nvml_v2, "held_dir": str(folder / "held"),
                "devices": [{**asdict(c), "processes": [asdict(p) for p in c.processes]} for c in self.cards]}
        path.write_text(json.dumps(data, indent=1))
        return path


def held_dir(host_file: Path) -> Path:
    return Path(json.loads(host_file.read_text())["held_dir"])


def install(monkeypatch, host_file: Path) -> None:
    """This process's `import pynvml` is the fake, over `host_file`; the device is NVML's to say (the suite's
    KV_HARNESS_DEVICE=cpu, tests/conftest.py, cleared)."""
    monkeypatch.delenv("KV_HARNESS_DEVICE", raising=False)
    monkeypatch.setenv("KVH_FAKE_GPU_HOST", str(host_file))
    monkeypatch.syspath_prepend(str(FOLDER))
    monkeypatch.delitem(sys.modules, "pynvml", raising=False)
    import pynvml  # noqa: F401 - the fake, now first on the path

    assert Path(sys.modules["pynvml"].__file__).parent == FOLDER


def subprocess_env(host_file: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.pop("KV_HARNESS_DEVICE", None)
    env["KVH_FAKE_GPU_HOST"] = str(host_file)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(FOLDER), env.get("PYTHONPATH", "")]))
    return env


def gpu_vllm_env(root: Path, env: dict[str, str] | None = None, torch_cuda: str = "12.8",
                 version: str = "0.32.0") -> Path:
    """A fake engine env whose `vllm` is the fake GPU vLLM (vllm_gpu.py) of release `version` (one of
    vllm_rules.RELEASES), with `env` set for it; returns its interpreter (engines.vllm.python)."""
    from tests.support.fake_env import make_fake_env

    python = make_fake_env(root, {}, version=version, torch_version="2.9.1", torch_cuda=torch_cuda)
    exports = "".join(f"export {k}={v}\n" for k, v in {"STANDIN_VLLM_RELEASE": version, **(env or {})}.items())
    vllm = python.parent / "vllm"
    vllm.write_text(f"#!/bin/sh\n{exports}exec {sys.executable} {FOLDER / 'vllm_gpu.py'} \"$@\"\n")
    vllm.chmod(0o755)
    return python


def gpu_sglang_env(root: Path, env: dict[str, str] | None = None, torch_cuda: str = "12.8") -> Path:
    """A fake engine env whose `python -m sglang.launch_server` is the fake GPU SGLang 0.5.22 (sglang_gpu.py),
    with `env` set for it; returns its interpreter (engines.sglang.python)."""
    from tests.support.fake_env import make_fake_env

    python = make_fake_env(root, {}, torch_version="2.9.1", torch_cuda=torch_cuda)
    site = root / "site"
    (site / "sglang").mkdir()
    (site / "sglang" / "__init__.py").write_text("__version__ = '0.5.22'\n")
    (site / "sglang" / "launch_server.py").write_text(
        f"import os, sys\nos.environ.update({dict(env or {})!r})\n"
        f"os.execv({sys.executable!r}, [{sys.executable!r}, {str(FOLDER / 'sglang_gpu.py')!r}, *sys.argv[1:]])\n")
    dist = site / "sglang-0.5.22.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.22\n")
    return python


def gpu24_scenario(folder: Path, python: Path, zip_block: str, memory_gib: str = "24", version: str = "0.32.0") -> Path:
    """`folder`/gpu24.yaml: the fake GPU vLLM `version` at `python` over `zip_block`'s zipped knobs (indented
    lines)."""
    path = folder / "gpu24.yaml"
    path.write_text(f"""
name: gpu24
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: {memory_gib}}}
defaults: {{max_model_len: 2048}}
engines:
  vllm:
    version: "{version}"
    python: {python}
    zip:
{zip_block}
run: {{timeout_s: 30, stop_after: ready}}
""")
    return path


def both_engines_scenario(folder: Path, name: str, vllm_sweep: str, sglang_sweep: str, run: str) -> Path:
    """`folder`/`name`.yaml: the fake GPU vLLM 0.32.0 and SGLang 0.5.22 (envs made under `folder`) on a 24 GiB card,
    max_model_len 2048 in bf16, each over its sweep (YAML flow mappings) and the `run` block."""
    vllm, sglang = gpu_vllm_env(folder / "vllm-env"), gpu_sglang_env(folder / "sglang-env")
    path = folder / f"{name}.yaml"
    path.write_text(f"""
name: {name}
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: 24}}
defaults: {{max_model_len: 2048, dtype: bfloat16}}
engines:
  vllm:
    version: "0.32.0"
    python: {vllm}
    sweep: {vllm_sweep}
  sglang:
    version: "0.5.22"
    python: {sglang}
    sweep: {sglang_sweep}
run: {run}
""")
    return path
