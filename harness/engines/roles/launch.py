"""The launch role: an engine's command line, readiness, ports, caches and the GPUs one launch takes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol

from harness.engines.roles.runtime import Runtime
from harness.errors import InputError


class FlagSpelling(Protocol):
    """The engine's flags as a release spells them (harness.engines.base.Engine)."""

    def render_flags(self, args: Mapping[str, Any], version: str | None = None) -> list[str]: ...


class Launch(ABC):
    """How an engine is started and when it is ready. `program` is what its runtime found: the
    environment's interpreter for a Python engine, the executable for a binary one."""

    runtime: Runtime
    readiness_path: ClassVar[str] = "/health"
    # The highest --port the engine accepts: some derive other ports from it (port + offset).
    highest_port: ClassVar[int] = 65535
    # Flags that multiply the GPUs one launch takes (tensor, pipeline, data parallel), by native name.
    tp_flags: ClassVar[tuple[str, ...]] = ()
    pp_flags: ClassVar[tuple[str, ...]] = ()
    dp_flags: ClassVar[tuple[str, ...]] = ()
    # The device total this engine sizes from on a GPU: "nvml" (the card's total as NVML reports it),
    # "cuda" (cudaMemGetInfo's total through the env's own torch: NVML's less what the driver reserves),
    # "nvml_min" (the smallest card NVML lists on the host, whichever card the engine runs on).
    gpu_total_source: ClassVar[str] = "nvml"

    def __init__(self, flags: FlagSpelling, runtime: Runtime) -> None:
        self.flags = flags  # the command line is spelled as the release spells its flags
        self.runtime = runtime

    @abstractmethod
    def command(self, program: str, model: str, port: int | str, args: Mapping[str, Any],
                version: str | None = None) -> list[str]:
        """The server's argv, bound to 127.0.0.1:port. `version` is the release it runs (its flag
        spellings; None: the newest bundled list)."""

    def help_command(self, program: str) -> list[str]:
        """argv printing every server flag (read by `envs flags`)."""
        return [*self.command(program, "MODEL", 0, {})[:2], "--help"]

    def cache_env(self, cache_root: Path) -> dict[str, str]:
        """Env vars that point the engine's compile and JIT caches at cache_root: torch.compile's (Inductor),
        Triton's kernels, the CUDA driver's PTX JIT cache (CUDA_CACHE_PATH, ~/.nv/ComputeCache by default)
        and FlashInfer's JIT kernels (FLASHINFER_WORKSPACE_BASE, read by the FlashInfer releases that have it;
        older ones write ~/.cache/flashinfer whatever is set). Not covered: DeepGEMM's and other kernel
        libraries' own JIT folders."""
        return {
            "TORCHINDUCTOR_CACHE_DIR": str(cache_root / "inductor"),
            "TRITON_CACHE_DIR": str(cache_root / "triton"),
            "CUDA_CACHE_PATH": str(cache_root / "cuda"),
            "FLASHINFER_WORKSPACE_BASE": str(cache_root / "flashinfer"),
        }

    def gpus_needed(self, args: Mapping[str, Any]) -> int:
        """GPUs one launch occupies: TP x PP x DP, by native name or verbatim `--flag`."""
        normalised = _normalised(args)
        return (_factor(normalised, self.tp_flags) * _factor(normalised, self.pp_flags)
                * (_factor(normalised, self.dp_flags) if self.dp_adds_gpus(normalised) else 1))

    def dp_adds_gpus(self, args: Mapping[str, Any]) -> bool:
        return True

    def tp_size(self, args: Mapping[str, Any]) -> int:
        return _factor(_normalised(args), self.tp_flags)

    def host_gpu_warning(self, host_gpus: list) -> str | None:
        """A warning about this host's GPUs that matters for this engine's sizing, or None."""
        return None


def _normalised(args: Mapping[str, Any]) -> dict[str, Any]:
    return {k.lstrip("-").replace("-", "_"): v for k, v in args.items() if v is not None and v is not False}


def _factor(args: Mapping[str, Any], names: tuple[str, ...]) -> int:
    for name in names:
        if name in args:
            try:
                value = int(args[name])
            except (TypeError, ValueError):
                raise InputError(f"{name}={args[name]!r} is not a whole number") from None
            if value < 1:
                raise InputError(f"{name}={value} must be at least 1")
            return value
    return 1
