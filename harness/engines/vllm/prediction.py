"""What vLLM's budget formulas predict beyond the neutral terms: its budget and its scheduler's limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from harness.predict.prediction import Prediction


@dataclass
class VllmPrediction(Prediction):
    ROUNDED_GIB: ClassVar[tuple[str, ...]] = ("budget_gib",)

    gpu_memory_utilization: float | None = None
    budget_gib: float | None = None  # ceil(total x gpu_memory_utilization), or --kv-cache-memory-bytes' plan
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    estimated_max_model_len: int | None = None  # what fits, when max_model_len does not
