"""Each row of a results CSV predicted again, from the reading the row recorded, with the predictor as it is now.

A run writes the predictor of its day beside each measurement; after the predictor changes, the rows are
predicted again from what each engine sized from (`device_total_mib`, and `engine_free_mib` where the engine
logged its own free reading, else the free memory before the launch) - never from the host as it is now, which
on these VMs moves by gigabytes. Only the predicted columns change.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis.calibrate import base_version, number, row_card_name, row_device, row_free
from harness.atomic import write_text
from harness.engines.predicting import predict_point
from harness.errors import InputError
from harness.predict import Prediction, prediction_error_pct
from harness.predict.model import ModelDescription
from harness.results.io import csv_cell, read_results


def row_reading(row: pd.Series) -> tuple[float | None, float | None, bool]:
    """(total MiB, free MiB, free read by the engine as it began loading) as the row recorded them."""
    total = number(row.get("device_total_mib"))
    engine_free = number(row.get("engine_free_mib"))
    if engine_free is not None:
        return total, engine_free, True
    return total, row_free(row), False


def predict_row(point: Any, row: pd.Series, model: ModelDescription, tp: int | None = None,
                cpu_flags: frozenset[str] | None = None) -> Prediction:
    """The prediction for `row` from its own recorded reading (`cpu_flags`: those of the host it ran on, where known:
    its run.json's machine)."""
    total, free, at_load = row_reading(row)
    device, name = row_device(row), row_card_name(row)
    flags = cpu_flags if device == "cpu" else None
    prediction = predict_point(point, model, total, tp=tp, device=device, gpu_free_mib=free, free_at_load=at_load,
                               gpu_name=name, cpu_flags=flags)
    if row.get("status") == "ok" and not prediction.will_start and free is not None and not at_load:
        # It started: a harness reading before the launch that says it could not was taken at another moment
        # than the engine's (as calibrate.fit_calibrations treats it)
        prediction = predict_point(point, model, total, tp=tp, device=device, gpu_free_mib=None, gpu_name=name,
                                   cpu_flags=flags)
    return prediction


def repredict(points: list[Any], frame: pd.DataFrame, model: ModelDescription, tp: int | None = None,
              cpu_flags: frozenset[str] | None = None) -> pd.DataFrame:
    """A copy of `frame` whose predicted columns are the current predictor's, row by row (rows of no point of
    `points` keep theirs); `cpu_flags`: the CPU flags of the host the rows ran on (None: not known)."""
    by_key = {(p.point_id, base_version(p.engine_version)): p for p in points}
    out = frame.copy()
    for i, row in frame.iterrows():
        point = by_key.get((row["point_id"], base_version(row.get("engine_version"))))
        if point is None:
            continue
        prediction = predict_row(point, row, model, tp=tp, cpu_flags=cpu_flags)
        measured = number(row.get("kv_tokens"))
        error = prediction_error_pct(prediction.kv_tokens, measured)
        out.at[i, "predicted_kv_tokens"] = prediction.kv_tokens
        out.at[i, "predicted_kv_gib"] = None if prediction.kv_gib is None else round(prediction.kv_gib, 4)
        out.at[i, "prediction_error_pct"] = None if error is None or math.isnan(error) else round(error, 3)
    return out


PREDICTED_COLUMNS = ("predicted_kv_tokens", "predicted_kv_gib", "prediction_error_pct")


def rewrite_predicted(csv_path: str | Path, points: list[Any], model: ModelDescription, tp: int | None = None,
                      cpu_flags: frozenset[str] | None = None) -> int:
    """Predict a committed results file's rows again (repredict) and write the predicted columns into it in place,
    every other cell as its text stood (the file's own header and format, not the frame re-serialised), so after a
    change to the predictor its evidence says what the predictor now says. Returns how many rows changed."""
    path = Path(csv_path)
    again = repredict(points, read_results(path), model, tp=tp, cpu_flags=cpu_flags)
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header, rows = list(reader.fieldnames or ()), list(reader)
    if len(rows) != len(again):
        raise InputError(f"{path}: {len(rows)} rows in the file, {len(again)} read as results; not rewritten")
    changed = 0
    for row, (_, new) in zip(rows, again.iterrows()):
        cells = {column: str(csv_cell(new[column])) for column in PREDICTED_COLUMNS if column in row}
        changed += any(row[column] != cell for column, cell in cells.items())
        row.update(cells)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, out.getvalue())  # whole or not at all: the evidence is never left half written
    return changed
