"""Where an engine's server program comes from: a Python environment of its own, or a binary on PATH."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Runtime:
    """How the program that starts an engine is found."""


@dataclass(frozen=True)
class VenvRuntime(Runtime):
    """The engine runs from a Python environment (a managed venv, or an interpreter the scenario names).

    `module` is what that interpreter must import for the engine; `probe_dists` the distributions whose
    versions the env's marker records at install; `key_dependencies` those besides the engine and torch whose
    release can move what the engine sizes (kernels, model loading): each row records their versions, and
    `compare --explain` names a change in them.
    """

    module: str
    probe_dists: tuple[str, ...] = ("torch",)
    key_dependencies: tuple[str, ...] = ()

    def runtime_env(self, env_dir: Path, cpu: bool, cache_dir: Path | None, managed: bool) -> dict[str, str]:
        """What the engine process needs beyond PATH and VIRTUAL_ENV."""
        return {}

    def probe_imports(self, env_dir: Path, cpu: bool) -> tuple[str, ...]:
        """Extra modules that must import for the environment to count as working."""
        return ()

    def check_probe(self, found: dict, cpu: bool) -> str | None:
        """What is wrong with a freshly installed environment, as one line, or None."""
        return None


@dataclass(frozen=True)
class BinaryRuntime(Runtime):
    """The engine is an executable: `program` on PATH (or a path), its release printed by `version_args`."""

    program: str
    version_args: tuple[str, ...] = ("--version",)

    def locate(self) -> Path | None:
        found = shutil.which(self.program)
        return Path(found) if found else None

    def release(self, program: Path) -> str | None:
        """The release `program` says it is: the first version-like word of its `version_args` output."""
        try:
            done = subprocess.run([str(program), *self.version_args], capture_output=True, text=True, timeout=60,
                                  check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        found = re.search(r"\b(\d+(?:\.\d+)+[\w.+-]*)", done.stdout + done.stderr)
        return found.group(1) if found else None
