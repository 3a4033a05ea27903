"""Isolated engine environments: one venv per engine release, started from its own interpreter.

    install_env(ENGINE, "0.32.0")        -> EngineEnv (built once, then reused)
    ensure_bytecode(env)                 -> the env, its sources compiled (envs built before that was done)
    resolve_env(ENGINE, "0.32.0")        -> EngineEnv, or HarnessError naming `envs install`
    resolve_env(ENGINE, None, python=p)  -> EngineEnv for an existing interpreter
    list_envs(), remove_env(ENGINE, "0.32.0"), default_cache_dir()

Each env's lock (every distribution in it: lock.py) is in its marker; locked_install.py rebuilds an env from one.

Envs live in `<cache>/envs/<engine>-<version>[-cpu]`; the cache dir is `$KV_HARNESS_CACHE_DIR`,
else `~/.cache/kv-budget-harness`. `-cpu` envs are built on hosts without an NVIDIA driver
(`$KV_HARNESS_DEVICE=cpu|gpu` overrides the detection).
"""

from harness.cache_dir import CACHE_ENV_VAR, default_cache_dir
from harness.envs.manage import (
    ensure_bytecode,
    incomplete_envs,
    install_command,
    install_env,
    list_envs,
    remove_env,
    remove_env_named,
    resolve_env,
)
from harness.envs.model import (
    DEVICE_ENV_VAR,
    EngineEnv,
    env_name,
    envs_dir,
    host_is_cpu_only,
    parse_spec,
)

__all__ = [
    "CACHE_ENV_VAR", "DEVICE_ENV_VAR", "EngineEnv", "default_cache_dir", "ensure_bytecode", "env_name", "envs_dir",
    "host_is_cpu_only", "incomplete_envs", "install_command", "install_env", "list_envs", "parse_spec",
    "remove_env", "remove_env_named", "resolve_env",
]
