"""Where the harness keeps what it builds and fetches: engine envs, wheels, compile and index caches."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV_VAR = "KV_HARNESS_CACHE_DIR"


def default_cache_dir() -> Path:
    """`$KV_HARNESS_CACHE_DIR`, else `$XDG_CACHE_HOME/kv-budget-harness`, else `~/.cache/kv-budget-harness`.

    Engine environments live in its `envs/` subdirectory.
    """
    if os.environ.get(CACHE_ENV_VAR):
        return Path(os.environ[CACHE_ENV_VAR]).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "kv-budget-harness"
