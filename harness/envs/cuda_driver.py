"""Whether this host's NVIDIA driver runs an env's CUDA build: checked before the first launch.

A CUDA x.y build runs on a driver that supports CUDA x.z for any z (CUDA's minor version compatibility,
since 11.1; NVIDIA's CUDA Compatibility guide, "Minor Version Compatibility"), never on a driver of an
older major: torch 2.13/2.14's PyPI builds are CUDA 13.0 and need a CUDA 13 driver (>= 580), while most
clouds run CUDA 12.x drivers. Such an env installs fine and then fails at CUDA init in every point.
"""

from __future__ import annotations

# The oldest driver of each CUDA major (CUDA Toolkit release notes, table 3, "minimum required driver").
MIN_DRIVER = {11: "450.80.02", 12: "525.60.13", 13: "580.65.06"}


def cuda_of_driver(nvml_cuda: int | None) -> str | None:
    """NVML's CUDA driver version (12080) as "12.8"."""
    if not nvml_cuda:
        return None
    return f"{nvml_cuda // 1000}.{nvml_cuda % 1000 // 10}"


def _major(cuda: str) -> int:
    return int(cuda.split(".", maxsplit=1)[0])


def driver_refusal(env_label: str, torch_version: str, env_cuda: str | None, driver_version: str,
                   driver_cuda: str | None) -> str | None:
    """One line when the driver cannot run the env's build, else None (also when either is not known)."""
    if not env_cuda or not driver_cuda or _major(env_cuda) <= _major(driver_cuda):
        return None
    need = MIN_DRIVER.get(_major(env_cuda))
    return (f"{env_label}: its torch {torch_version} is a CUDA {env_cuda} build, which needs an NVIDIA driver for "
            f"CUDA {_major(env_cuda)}{f' (>= {need})' if need else ''}; this host's driver {driver_version} supports "
            f"CUDA {driver_cuda}: every point would fail at CUDA init. Update the driver, or use an env built for "
            f"CUDA {_major(driver_cuda)} (engines.<engine>.python: an interpreter whose torch is a "
            f"cu{_major(driver_cuda)}x build)")


def env_driver_refusal(env, driver_version: str, nvml_cuda: int | None) -> str | None:
    """driver_refusal for an engine env (its torch's CUDA build) on a driver NVML describes."""
    return driver_refusal(f"{env.engine} {env.engine_version} env {env.path}", env.torch_version,
                          getattr(env, "torch_cuda", None), driver_version, cuda_of_driver(nvml_cuda))
