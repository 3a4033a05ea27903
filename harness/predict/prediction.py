"""What a prediction holds: the engine's budget formulas' terms for one point (harness.engines.predicting makes it).

Exact terms (weights from shapes, block/page arithmetic, SGLang's
fraction formula) and estimated terms (vLLM's O/A/G, SGLang's other memory) are kept
apart: `*_upper_bound` uses exact terms only, `kv_gib`/`kv_tokens` subtract the estimates,
which `estimates` lists with their labels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar


@dataclass
class Estimate:
    """One non-exact term: its value and where it comes from."""

    gib: float
    basis: str


@dataclass
class Calibration:
    """Fitted replacement for the estimated terms (see harness.analysis.calibrate).

    The estimated terms = other_gib + per_axis_gib x the engine's calibration axis:
    vLLM: O+A+G (GPU) or the worker's RSS beyond the weights (CPU) over max_num_batched_tokens;
    SGLang: the memory gone before its pre-load reading (scaled by the fraction) plus what loading
    takes beyond the weights, over mem_fraction_static.
    """

    other_gib: float
    per_axis_gib: float = 0.0
    source: str = "calibration"


@dataclass
class Prediction:
    """The engine-neutral terms of a point's prediction; an engine's formulas fill a subclass with their own
    (harness/engines/<engine>/prediction.py), made by `BudgetFormulas.prediction_type`."""

    ROUNDED_GIB: ClassVar[tuple[str, ...]] = ()  # an engine's own GiB terms, rounded in JSON like the neutral ones

    engine: str
    point_id: str | None
    args: dict[str, Any]  # the point's knobs as given; None = engine default
    device: str
    gpu_total_mib: float | None
    tp: int
    gpu_free_mib: float | None = None  # free device memory before the engine loads (None: not measured)
    # True: gpu_free_mib was read as the engine began loading (its own processes already in it), not
    # before the launch; nothing of the engine's start-up is then left to estimate
    free_at_load: bool = False
    # the card's CUDA compute capability (8.0 for an A100, 8.9 for an L40S/RTX 4090, 9.0 for an H100): which kernels
    # an engine picks, and so what it holds, can depend on it (None: not given, assumed to need no fallback)
    gpu_capability: float | None = None
    gpu_name: str | None = None  # the card's name as torch reports it (None: not given)
    # on a CPU: the host CPU's feature flags (/proc/cpuinfo names), which decide the GEMM kernels an engine packs its
    # weights for (None: not known, as for a results row replayed on another host)
    cpu_flags: frozenset[str] | None = None
    weights_gib: float | None = None
    weights_source: str = ""  # where weights_gib comes from: the safetensors headers, or the config's estimate
    kv_bytes_per_token: int | None = None
    kv_gib_upper_bound: float | None = None
    kv_tokens_upper_bound: int | None = None
    kv_gib: float | None = None
    kv_tokens: int | None = None
    num_blocks: int | None = None
    block_size: int | None = None
    max_concurrency: float | None = None
    max_model_len: int | None = None
    max_req_len: int | None = None  # the longest request the engine will accept
    context_len: int | None = None
    will_start: bool | None = None
    reason: str = ""
    engine_version: str | None = None  # the release asked for (None: the newest the formulas model)
    modelled: bool = True  # False: the formulas are not sourced for this release or model kind, no numbers
    estimates: dict[str, Estimate] = field(default_factory=dict)
    graph_sizes: dict[str, list[int]] = field(default_factory=dict)  # captured batch sizes per graph kind
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("cpu_flags")  # a hundred names; the notes say what they decided
        for key in ("kv_gib_upper_bound", "kv_gib", "weights_gib", *self.ROUNDED_GIB):
            if out[key] is not None:
                out[key] = round(out[key], 4)
        if out["max_concurrency"] is not None:
            out["max_concurrency"] = round(out["max_concurrency"], 4)
        return out


def prediction_error_pct(predicted: float | None, measured: float | None) -> float | None:
    """(measured - predicted) / predicted x 100; None when either side is missing or predicted is 0."""
    if predicted in (None, 0) or measured is None:
        return None
    return (measured - predicted) / predicted * 100.0

