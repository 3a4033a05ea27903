"""Fixtures every test module can use without importing them."""

from tests.engine_envs import sglang_env, vllm_env  # noqa: F401 - session fixtures (install or reuse the engines)
