"""A model whose weights are pinned from a log's own line (vLLM's "Model loading took X GiB"), for real GPU logs of
checkpoints whose weights the config alone does not give yet (MoE experts, FP8, online quantization).

Explicit and test-only: the prediction's weights_source says where the figure came from. Once the weights-from-config
rules (branch config-weights) are merged, the cases that use this can take the config's figure instead."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from harness.predict import model_from_config
from harness.predict.model import GiB, ModelDescription


@dataclasses.dataclass(frozen=True)
class LoggedWeights(ModelDescription):
    """A ModelDescription whose weight_bytes_per_rank is the logged figure (bytes one rank loaded)."""

    logged_bytes_per_rank: int = 0
    logged_line: str = ""

    def weight_bytes_per_rank(self, tp: int = 1, dtype: str | None = None) -> int:
        return self.logged_bytes_per_rank

    def weights_source(self, tp: int = 1, dtype: str | None = None) -> str:
        return f"pinned from the log: {self.logged_line}"

    def weights_notes(self) -> list[str]:
        return []


def config_model(path: Path) -> ModelDescription:
    """A fixture config (tests/fixtures/predict/vllm-gpu-public/*.json) as the predictor reads it."""
    cfg = json.loads(path.read_text())
    return model_from_config(cfg, cfg["_id"], f"fixture {path.name}")


def with_logged_weights(model: ModelDescription, gib_per_rank: float, line: str) -> LoggedWeights:
    fields = {f.name: getattr(model, f.name) for f in dataclasses.fields(model)}
    return LoggedWeights(**fields, logged_bytes_per_rank=round(gib_per_rank * GiB), logged_line=line)
