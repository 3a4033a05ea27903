"""What installing an engine release takes: the `Recipe`, and the steps an engine's install is made of.

Each engine package says what to fetch and which workarounds a CPU-only host needs;
every workaround is named in the environment's marker file.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from harness.errors import EXIT_HARNESS, HarnessError

if TYPE_CHECKING:
    from harness.envs.cuda_build import CudaBuild
    from harness.envs.installer import Installer

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


@dataclass
class InstallSteps:
    """What an engine's `install` works with: the new venv, the downloaded wheel, the installer."""

    recipe: Recipe
    env_dir: Path
    python: Path
    wheel: Path
    download_dir: Path
    installer: "Installer"
    log_path: Path
    progress: Callable[[str], None]
    # Workarounds this install turned out to need (the recipe's own list holds the unconditional ones).
    applied: list[str] = field(default_factory=list)
    # On a GPU host whose driver cannot run PyPI's CUDA build: the build that it runs (harness/envs/cuda_build.py).
    cuda_build: "CudaBuild | None" = None

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


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    """The canonical distribution name a requirement line starts with ("" when none)."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return _canonical(name.group(1)) if name else ""


def canonical_names(names: set[str]) -> set[str]:
    """Distribution names as requirement_name spells them."""
    return {_canonical(n) for n in names}


def wheel_metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
        if len(names) != 1:
            raise ValueError(f"{wheel.name}: no single .dist-info/METADATA inside")
        return zf.read(names[0]).decode("utf-8")


def base_requirements(metadata: str, drop: tuple[str, ...] = (), extras: tuple[str, ...] = ()) -> list[str]:
    """The wheel's `Requires-Dist` lines that apply without extras or with one of `extras`, minus the dropped names.

    An extra that names the package's own other extras (`sglang[runtime_common]; extra == "srt"`)
    brings their lines too, as pip would. Environment markers other than `extra ==` are kept; the
    installer evaluates them.
    """
    own = re.search(r"^Name:\s*(\S+)", metadata, re.MULTILINE)
    own_name = _canonical(own.group(1)) if own else None
    dropped = {_canonical(d) for d in drop}
    lines = [line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    wanted = {_canonical(e) for e in extras}
    while True:  # an extra's self-reference can name further extras: repeat until none is new
        more = set()
        for req in lines:
            spec, marker, extra = _split_requirement(req)
            own_ref = re.fullmatch(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*\[([^\]]*)\]\s*", spec)
            if own_ref and _canonical(own_ref.group(1)) == own_name and (extra is None or extra in wanted):
                more |= {_canonical(e) for e in own_ref.group(2).split(",") if e.strip()} - wanted
        if not more:
            break
        wanted |= more
    out: list[str] = []
    for req in lines:
        spec, marker, extra = _split_requirement(req)
        if extra is not None and extra not in wanted:
            continue
        if requirement_name(spec) in dropped | ({own_name} - {None}):
            continue
        line = spec.strip() + (f"; {marker}" if marker else "")
        if line not in out:
            out.append(line)
    return out


def _split_requirement(req: str) -> tuple[str, str, str | None]:
    """(spec, marker without its `extra == ...` clause, the extra's canonical name or None)."""
    spec, _, marker = req.partition(";")
    found = re.search(r"""\bextra\s*==\s*["']([^"']+)["']""", marker)
    if found is None:
        return spec, marker.strip(), None
    rest = (marker[:found.start()] + marker[found.end():]).strip()
    rest = re.sub(r"^\s*and\s+|\s+and\s*$", "", rest).strip()
    return spec, rest, _canonical(found.group(1))


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
