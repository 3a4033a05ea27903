"""Installing SGLang: the package to fetch, and the SGLang-CPU workarounds (applied on CPU-only hosts)."""

from __future__ import annotations

import re

from harness.engines.sglang.stub import STUB_DIR, build_stub
from harness.envs.recipes import GiB, InstallSteps, Recipe, base_requirements, exclude_local_cpu_torch, wheel_metadata

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

# SGLang 0.5.11 and 0.5.12 require `kernels` without a bound, next to transformers 5.6.0, whose
# transformers/integrations/hub_kernels.py:89 builds LayerRepository(...) with neither revision nor
# version; kernels 0.15 made that an error ("ValueError: Either a revision or a version must be
# specified.", kernels/layer/layer.py:117), raised at `import sglang`. 0.5.13 bounds it itself
# (`kernels<0.15,>=0.14.1`); an unbounded requirement gets that bound.
KERNELS_BOUND = "kernels<0.15"
KERNELS_BOUND_WORKAROUND = "kernels-below-0.15-as-sglang-0.5.13-pins"


def recipe_for(version: str, cpu: bool) -> Recipe:
    return Recipe("sglang", version, cpu, "sglang", int(11 * GiB), SGLANG_CPU_WORKAROUNDS if cpu else ())


def install(steps: InstallSteps) -> None:
    name = steps.env_dir.name
    if not steps.recipe.cpu:
        steps.progress(f"{name}: installing {steps.wheel.name} and its dependencies")
        steps.install([str(steps.wheel)])
        return
    reqs = exclude_local_cpu_torch(base_requirements(wheel_metadata(steps.wheel), DROPPED_ON_CPU))
    reqs, bounded = bound_kernels(reqs)
    if bounded:
        steps.applied.append(KERNELS_BOUND_WORKAROUND)
    req_file = steps.download_dir / "requirements.txt"
    req_file.write_text("\n".join(reqs) + "\n")
    steps.progress(f"{name}: installing {len(reqs)} requirements of sglang (without the cuda-tile pin)")
    steps.install(["-r", str(req_file)])
    steps.progress(f"{name}: installing {steps.wheel.name} --no-deps")
    steps.install(["--no-deps", str(steps.wheel)])
    steps.progress(f"{name}: building the stand-in libcuda.so.1")
    build_stub(steps.env_dir / STUB_DIR)


def bound_kernels(requirements: list[str]) -> tuple[list[str], bool]:
    """An unbounded `kernels` requirement replaced by `kernels<0.15` (see KERNELS_BOUND)."""
    out, bounded = [], False
    for req in requirements:
        spec, sep, marker = req.partition(";")
        if re.fullmatch(r"\s*kernels\s*", spec):
            req, bounded = KERNELS_BOUND + (f";{marker}" if sep else ""), True
        out.append(req)
    return out, bounded
