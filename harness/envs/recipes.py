"""Installing an engine release into a new venv: the concrete steps an engine's `install` is given."""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.engines.roles.installation import Recipe
from harness.errors import EXIT_HARNESS, HarnessError

if TYPE_CHECKING:
    from harness.envs.cuda_build import CudaBuild
    from harness.envs.installer import Installer


@dataclass
class VenvInstallSteps:
    """The steps of an install into a new venv (harness.engines.roles.installation.InstallSteps is an engine's view)."""

    recipe: Recipe
    env_dir: Path
    python: Path
    wheel: Path
    download_dir: Path
    installer: Installer
    log_path: Path
    progress: Callable[[str], None]
    # Workarounds this install turned out to need (the recipe's own list holds the unconditional ones).
    applied: list[str] = field(default_factory=list)
    # On a GPU host whose driver cannot run PyPI's CUDA build: the build that it runs (harness/envs/cuda_build.py).
    cuda_build: CudaBuild | None = None

    @property
    def installer_kind(self) -> str:
        return self.installer.kind

    def install(self, args: list[str], extra_indexes: tuple[str, ...] = ()) -> None:
        """The installer over the host's sources, plus `extra_indexes` (an engine's own, for this step)."""
        installer = self.installer
        if extra_indexes:
            sources = installer.sources
            installer = dataclasses.replace(installer, sources=dataclasses.replace(
                sources, extra_index_urls=(*sources.extra_index_urls, *extra_indexes)))
        installer.install(self.python, args, self.log_path)

    def install_engine(self) -> None:
        """The engine with its dependencies: the downloaded wheel, or the CUDA build this host's driver runs."""
        if self.cuda_build is None:
            self.install([str(self.wheel)])
            return
        self.progress(f"{self.env_dir.name}: installing the CUDA {self.cuda_build.cuda} build: "
                      f"{' '.join(self.cuda_build.requirements)}")
        installer = dataclasses.replace(self.installer, sources=self.cuda_build.sources)
        installer.install(self.python, list(self.cuda_build.requirements), self.log_path)

    def uninstall(self, names: list[str]) -> None:
        self.installer.uninstall(self.python, names, self.log_path)

    def run_py(self, code: str) -> str:
        return run_py(self.python, code)

    def present_dists(self) -> set[str]:
        return set(self.run_py(_PRESENT_DISTS).split())

    def site_packages(self) -> Path:
        return Path(self.run_py("import sysconfig; print(sysconfig.get_paths()['purelib'])"))


_PRESENT_DISTS = ("import importlib.metadata as md; "
                  "print(' '.join(sorted({(d.metadata['Name'] or '').lower() for d in md.distributions()})))")


def run_py(python: Path, code: str) -> str:
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise HarnessError(f"{python}: {out.stderr.strip().splitlines()[-1:] or ['failed']}", exit_code=EXIT_HARNESS)
    return out.stdout.strip()
