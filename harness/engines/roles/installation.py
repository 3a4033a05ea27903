"""The install role: what an engine's release takes to install (`Recipe`), the steps its install is made of,
and the distributions its releases are published as.

Each engine says what to fetch and which workarounds a CPU-only host needs; every workaround is named
in the environment's marker file. The steps themselves (a venv, an installer, the host's package
sources) are the environment builder's (harness/envs/recipes.py): an engine sees them through
`InstallSteps`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

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


class InstallSteps(Protocol):
    """What an engine's `install` works with: the new venv, the downloaded wheel, the installer's steps."""

    recipe: Recipe
    env_dir: Path
    python: Path
    wheel: Path
    download_dir: Path
    progress: Callable[[str], None]
    # Workarounds this install turned out to need (the recipe's own list holds the unconditional ones).
    applied: list[str]

    @property
    def installer_kind(self) -> str:
        """"uv" or "pip": what the installer can do (uv's --override)."""

    def install(self, args: list[str], extra_indexes: tuple[str, ...] = ()) -> None:
        """The installer over the host's sources, plus `extra_indexes` (an engine's own, for this step)."""

    def install_engine(self) -> None:
        """The engine with its dependencies: the downloaded wheel, or the CUDA build this host's driver runs."""

    def uninstall(self, names: list[str]) -> None: ...

    def run_py(self, code: str) -> str:
        """What `code` prints, run by the env's interpreter."""

    def present_dists(self) -> set[str]: ...

    def site_packages(self) -> Path: ...


class Installation:
    """How an engine's releases are published and installed into an environment of their own."""

    # The distribution whose versions on the package index are this engine's releases (None: the
    # engine's name), and the one a CPU-only host installs when that is another (None: the same).
    index_distribution: ClassVar[str | None] = None
    cpu_distribution: ClassVar[str | None] = None
    # The server's CLI entry point for reading its flags from a release's wheel: "module:function" or
    # a module run as __main__, and the argv it sees.
    help_entry: ClassVar[tuple[str, tuple[str, ...]]] = ("", ())

    def __init__(self, engine_name: str) -> None:
        self.engine_name = engine_name

    def index_name(self) -> str:
        return self.index_distribution or self.engine_name

    # The engine's recipe module (harness/engines/<name>/recipe.py: recipe_for, install, finish_locked), imported on
    # first use so the engine's own modules do not load at CLI start; "" for an engine without one.
    recipe_module: ClassVar[str] = ""

    def _recipes(self):
        return importlib.import_module(self.recipe_module)

    def recipe(self, version: str, cpu: bool) -> Recipe:
        if not self.recipe_module:
            raise NotImplementedError
        return self._recipes().recipe_for(version, cpu)

    def install(self, steps: InstallSteps) -> None:
        """Install the downloaded wheel with its dependencies, the engine's recipe module's way where it has one."""
        if self.recipe_module:
            self._recipes().install(steps)
        else:
            steps.install_engine()

    # The engine's own kernels distributions: a change in them moves its memory figures (compare lists them first
    # among the packages that differ between two runs' envs).
    kernels_distributions: ClassVar[tuple[str, ...]] = ()

    def finish_locked(self, steps: InstallSteps, harness_made: dict[str, str]) -> None:
        """After a lock's exact packages are installed (--no-deps): what the install adds that no index holds,
        `harness_made` the {name: version} of the distributions the harness itself wrote in the locked env."""
        if self.recipe_module:
            self._recipes().finish_locked(steps, harness_made)

    def cuda_variants(self, version: str) -> tuple[str, ...]:
        """The CUDA versions ("12.9") the engine publishes `version` for besides PyPI's build, as
        `<name>==<version>+cuXYZ` (harness/envs/cuda_build.py); none known by default."""
        return ()

    def cuda_variant_sources(self, version: str, cuda: str) -> tuple[str, ...]:
        """Find-links pages that hold those builds."""
        return ()

    def flag_distribution(self, version: str) -> str:
        """The wheel `envs flags` reads a release's CLI from (the GPU wheel has the same CLI)."""
        return self.index_name()

    def prepare_flag_overlay(self, site: Path, version: str) -> None:
        """Adjust an unpacked wheel before its CLI runs over another env (e.g. force the CPU platform)."""
