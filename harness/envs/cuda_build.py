"""Which CUDA build of an engine release to install on this GPU host, decided before anything is installed.

An engine's PyPI wheel pins one torch (`Requires-Dist: torch==X`), and PyPI carries torch X for one CUDA
version: torch 2.13 and 2.14 (vLLM 0.32/0.33, SGLang 0.5.22/0.5.23) are CUDA 13.0 builds, which need a
CUDA 13 driver (>= 580), while most clouds run CUDA 12 drivers. There the PyPI env would install (~21 GiB)
and then fail at CUDA init in every point. PyTorch publishes each torch for other CUDA versions on its
own indexes (https://download.pytorch.org/whl/cuXYZ), and vLLM publishes its releases for other CUDA
versions beside each GitHub release (vllm-X+cuXYZ-...whl; vLLM docs, "Install with a specific CUDA
version"); an engine whose compiled parts follow its torch's CUDA installs from those. An engine that
publishes no build for the driver's CUDA major is refused here in one line, before the download.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from harness.envs.cuda_driver import MIN_DRIVER
from harness.envs.installer import Sources
from harness.errors import InputError

# Where PyTorch's CUDA-variant indexes live; a mirror (or a test's local index) by $KV_HARNESS_TORCH_INDEX.
TORCH_INDEX_ENV = "KV_HARNESS_TORCH_INDEX"
TORCH_INDEX = "https://download.pytorch.org/whl"

# The CUDA version of PyPI's torch build, per torch minor (PyTorch's release notes: the "default" CUDA of
# each release's pip wheels). Only releases the engines in this harness pin; others are not pre-checked
# (the env's own torch is still compared with the driver before the first launch).
PYPI_TORCH_CUDA = {"2.13": "13.0", "2.14": "13.0"}


@dataclass(frozen=True)
class CudaBuild:
    """An engine release built for another CUDA than PyPI's: what to install and from where."""

    cuda: str  # "12.9"
    requirements: tuple[str, ...]  # e.g. ("vllm==0.32.0+cu129", "torch==2.13.0+cu129")
    sources: Sources  # the host's sources plus the variant's (torch's CUDA index, the engine's release page)

    @property
    def tag(self) -> str:
        return cuda_tag(self.cuda)


def cuda_tag(cuda: str) -> str:
    """"12.9" -> "cu129" (PyTorch's and vLLM's spelling)."""
    major, minor = cuda.split(".")[:2]
    return f"cu{major}{minor}"


def torch_index(cuda: str) -> str:
    return f"{os.environ.get(TORCH_INDEX_ENV, TORCH_INDEX).rstrip('/')}/{cuda_tag(cuda)}"


def torch_pin(metadata: str) -> str | None:
    """X from the wheel's `Requires-Dist: torch==X` (no local label), None when it pins no exact torch."""
    m = re.search(r"^Requires-Dist:\s*torch\s*==\s*([0-9][0-9.]*)\s*(?:;|$)", metadata, re.MULTILINE)
    return m.group(1) if m else None


def pypi_torch_cuda(torch_version: str) -> str | None:
    return PYPI_TORCH_CUDA.get(".".join(torch_version.split(".")[:2]))


def _major(cuda: str) -> int:
    return int(cuda.split(".", maxsplit=1)[0])


def plan_cuda_build(engine, version: str, metadata: str, sources: Sources, driver_version: str,
                    driver_cuda: str | None) -> CudaBuild | None:
    """None when PyPI's build runs on this driver (or either CUDA is not known); the build to install when
    it does not and the engine publishes one for the driver's CUDA major; else InputError, one line."""
    torch = torch_pin(metadata)
    build_cuda = pypi_torch_cuda(torch) if torch else None
    if build_cuda is None or driver_cuda is None or _major(build_cuda) <= _major(driver_cuda):
        return None
    install = engine.require("installation", "a CUDA build")
    usable = [c for c in install.cuda_variants(version) if _major(c) == _major(driver_cuda)]
    if not usable:
        need = MIN_DRIVER.get(_major(build_cuda))
        raise InputError(
            f"{engine.name} {version} pins torch {torch}, whose PyPI build is CUDA {build_cuda} and needs an NVIDIA "
            f"driver for CUDA {_major(build_cuda)}{f' (>= {need})' if need else ''}; this host's driver "
            f"{driver_version} supports CUDA {driver_cuda}, and {engine.name} publishes no CUDA "
            f"{_major(driver_cuda)} build of {version} this harness knows of. Update the driver, or run an env you "
            f"built for CUDA {_major(driver_cuda)} (engines.{engine.name}.python)")
    # the newest the driver supports itself, else the newest of its major (minor version compatibility)
    def key(c: str) -> tuple[int, ...]:
        return tuple(int(p) for p in c.split("."))

    within = [c for c in usable if key(c) <= key(driver_cuda)]
    cuda = max(within or usable, key=key)
    tag = cuda_tag(cuda)
    extra = install.cuda_variant_sources(version, cuda)
    return CudaBuild(
        cuda=cuda,
        requirements=(f"{install.index_name()}=={version}+{tag}", f"torch=={torch}+{tag}"),
        sources=Sources(index_url=sources.index_url,
                        extra_index_urls=(*sources.extra_index_urls, torch_index(cuda)),
                        find_links=(*sources.find_links, *extra)),
    )
