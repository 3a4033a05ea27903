"""What SGLang's budget formulas predict beyond the neutral terms: the fraction, chunk and graph sizes it derives."""

from __future__ import annotations

from dataclasses import dataclass

from harness.predict.prediction import Prediction


@dataclass
class SglangPrediction(Prediction):
    ROUNDED_GIB = ("state_pool_gib",)

    mem_fraction_static: float | None = None  # as given, or the default SGLang derives
    chunked_prefill_size: int | None = None
    cuda_graph_max_bs: int | None = None
    reserved_mib: float | None = None  # the memory SGLang's default fraction keeps back
    # the prefill graph's part of that reserve (an MLA model's flat 1.5 GiB; None: its buckets x 8 MiB)
    prefill_reserve_mib: float | None = None
    max_running_requests: int | None = None
    swa_pool_tokens: int | None = None  # a hybrid sliding-window model's second pool (kv_tokens: its full pool)
    # a hybrid model's Mamba state pool (harness/engines/sglang/mamba_pools.py): slots (requests) and GiB
    state_pool_slots: int | None = None
    state_pool_gib: float | None = None
