"""`run --sparse` as the run's sweep strategy: the sparse loop launching through the run's own sweep (its executor,
envs, rows and progress: harness.execute.run.SweepContext), then every unlaunched point written as a predicted row."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.engines import get_engine
from harness.errors import InputError
from harness.execute.host import read_host_memory
from harness.execute.run import SweepContext
from harness.predict import load_model_description
from harness.results.rows import make_row
from harness.scenario import Point, Scenario
from harness.sparse.groups import Reading, group_key
from harness.sparse.loop import SparseOptions, SparseOutcome, check_budget, run_sparse
from harness.sparse.rows import predicted_row, rounded_up


def initial_reading(device: str, gpu_read, gpus: list[int]) -> Callable[[Point], Reading]:
    """What a group is first predicted at, before its first launch: host memory as the point's engine release
    reads it on a CPU; the first card NVML lists for the run on a GPU host (the first launch replaces it)."""
    def read(point: Point) -> Reading:
        if device == "cpu" or gpu_read is None or not gpus:
            formulas = get_engine(point.engine).require("formulas", "run --sparse")
            memory = formulas.cpu_memory(read_host_memory(point.env), point.engine_version)
            return Reading(memory.total_mib if memory else None, memory.free_mib if memory else None, False, "cpu")
        state = gpu_read(gpus[0])
        return Reading(state.total_mib, state.total_mib - state.used_mib, False, "cuda")
    return read


def _machine_columns(rows: list[dict[str, Any]], point: Point) -> dict[str, Any]:
    """The device columns of the group's last measured row (what its predictions were made for)."""
    key = group_key(point)
    mine = [r for r in rows if r.get("engine") == point.engine and r.get("device_name")]
    mine = [r for r in mine if not key.release or str(r.get("engine_version") or "").split("+")[0] == key.release]
    return {"device_name": mine[-1].get("device_name")} if mine else {}


def _annotate_verified(writer, outcome: SparseOutcome) -> None:
    """A verified row keeps its measurement and says what the sparse run had predicted for it, and whether it
    fell inside the bound."""
    for v in outcome.verified:
        e = v.estimate
        error = v.error_pct
        said = "inside" if v.inside else "OUTSIDE"
        bound = f"± {e.bound_pct:.2f} %" if e.bound_pct is not None else "(a refusal)"
        v.launch_row.update(predicted_kv_tokens=e.prediction.kv_tokens if e.prediction.will_start else None,
                     predicted_kv_gib=None if e.prediction.kv_gib is None else round(e.prediction.kv_gib, 4),
                     prediction_error_pct=None if error is None or math.isnan(error) else round(error, 3),
                     bound_pct=rounded_up(e.bound_pct),
                     bound_note=f"verify: predicted {e.prediction.kv_tokens or 0:,} {bound}, {said} its bound")
        writer.replace(v.launch_row)


def sparse_sweep(points: list[Point], model_path: str, launch_points: Callable[[list[Point]], list],
                 writer, run_id: str, options: SparseOptions, reading: Callable[[Point], Reading],
                 batch: int) -> SparseOutcome:
    """The loop over `points`, each batch launched by `launch_points` (the run's sweep: it writes the rows and
    returns the PointResults); then every unlaunched point as predicted rows, in place of earlier ones."""
    model = load_model_description(model_path)

    def launch(batch_points: list[Point]) -> list[dict[str, Any]]:
        return [make_row(r) for r in launch_points(batch_points)]

    outcome = run_sparse(points, model, launch, writer.measured_rows(), reading, options, batch=batch)
    _annotate_verified(writer, outcome)
    measured = writer.measured_rows()
    repeats: dict[tuple, list[Point]] = {}
    for p in points:
        repeats.setdefault((p.point_id, p.engine_version), []).append(p)
    predicted = [predicted_row(e, q, run_id, _machine_columns(measured, q))
                 for e in outcome.estimates for q in repeats[(e.point.point_id, e.point.engine_version)]]
    writer.set_predicted(predicted)
    return outcome


def _check_budget_here(scenario: Scenario, points: list[Point], budget: int, reading) -> None:
    """A budget below the pinning launches, refused before the run's folder exists (where the model's description
    is at hand without a download; else the sweep refuses it before its first launch)."""
    try:
        model = load_model_description(scenario.model)
    except Exception:  # noqa: BLE001 - a hub model not fetched yet: the sweep checks it
        return
    repeats = max((p.repeat for p in points), default=0) + 1
    check_budget(points, [], model, reading, budget, repeats)


@dataclass(frozen=True)
class SparseStrategy:
    """harness.execute.run.Strategy for a sparse sweep: `options` as given (--sparse, --budget, --verify)."""

    options: SparseOptions

    def checked(self, scenario: Scenario, points: list[Point], stop_after: str, device: tuple) -> SparseStrategy:
        if stop_after == "probe":
            raise InputError("--sparse predicts KV pools, and a probe's served requests are not predicted: run "
                             "--sparse with --stop-after kv or ready, or probe the full grid without --sparse")
        tolerance = self.options.tolerance_pct
        tolerance = scenario.run.tolerance_pct if tolerance is None else tolerance
        if not tolerance > 0:
            raise InputError(f"--sparse {tolerance:g}: the tolerance must be more than 0 % of the predicted KV "
                             "tokens (e.g. --sparse 1; a point whose bound is wider is launched)")
        if self.options.budget is not None and self.options.budget < 1:
            raise InputError(f"--budget {self.options.budget}: at least one launch is needed to calibrate anything")
        if self.options.budget is not None:
            _check_budget_here(scenario, points, self.options.budget, initial_reading(*device))
        return SparseStrategy(dataclasses.replace(self.options, tolerance_pct=tolerance))

    def settings(self) -> dict:
        return {"name": "sparse", "tolerance_pct": self.options.tolerance_pct, "budget": self.options.budget}

    def sweep(self, context: SweepContext) -> SparseOutcome:
        options = dataclasses.replace(self.options, seed=self.options.seed or context.run_id)
        return sparse_sweep(context.points, context.model_path, context.launch, context.writer, context.run_id,
                            options, initial_reading(context.device, context.gpu_read, context.gpus), context.batch)
