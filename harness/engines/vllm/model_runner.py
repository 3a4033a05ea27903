"""Which GPU model runner a vLLM release runs a model with: V1 (gpu_model_runner.py) or Model Runner V2
(vllm/v1/worker/gpu/), whose CUDA-graph memory profile differs (releases.MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO)."""

from __future__ import annotations

from harness.engines.settings import Settings
from harness.engines.vllm.releases import (
    MODEL_RUNNER_V2_ARCHITECTURES,
    MODEL_RUNNER_V2_FOR_DENSE,
    MODEL_RUNNER_V2_FOR_LISTED,
    MODEL_RUNNER_V2_ONLY,
)
from harness.predict.kinds import HYBRID, MOE
from harness.predict.model import ModelDescription


def _listed(model: ModelDescription, release: str) -> bool:
    archs = set(model.config.get("architectures") or [model.architecture])
    return any(release in releases and archs & names for releases, names in MODEL_RUNNER_V2_ARCHITECTURES)


def runs_model_runner_v2(model: ModelDescription, release: str, s: Settings, env: dict[str, str]) -> bool:
    """VllmConfig.use_v2_model_runner for a generative model (0.28.0 vllm/config/vllm.py:615-666): the
    VLLM_USE_V2_MODEL_RUNNER variable when set, else a listed architecture, else (0.25.0 on) a model neither MoE nor
    hybrid; a speculative decoder other than EAGLE/MTP keeps V1 (_get_v2_model_runner_unsupported_features)."""
    if release in MODEL_RUNNER_V2_ONLY:
        return True  # Model Runner V1 is gone (releases.MODEL_RUNNER_V2_ONLY)
    flag = env.get("VLLM_USE_V2_MODEL_RUNNER", "").strip().lower()
    if flag in ("1", "true"):
        return True
    if flag in ("0", "false") or release not in MODEL_RUNNER_V2_FOR_LISTED:
        return False
    spec = s.get("speculative_config")
    if spec and "eagle" not in str(spec) and "mtp" not in str(spec):
        return False
    if _listed(model, release):
        return True
    kinds = {k.name for k in model.kinds}
    return release in MODEL_RUNNER_V2_FOR_DENSE and not kinds & {MOE, HYBRID}
