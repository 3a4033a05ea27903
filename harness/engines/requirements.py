"""A wheel's requirements as an engine's install reads them: its METADATA, the lines that apply, names canonical."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path


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
            out.append(spec + (f";{marker}" if sep else ""))
        else:
            out.append(req)
    return out
