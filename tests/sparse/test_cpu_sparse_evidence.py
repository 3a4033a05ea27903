"""results/cpu_sparse: the committed sparse runs against the committed full grid, as its README states them - launches,
every predicted row against the grid's measured row (outcome, KV tokens within 1 % and within its own bound), and
--verify 5 inside the bounds. Fitted: each sparse run's own measured rows; checked: every predicted row, against grid
rows launched at another time (out of sample)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.predict import load_model_description
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from harness.sparse.evidence import against_grid

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "results" / "cpu_sparse"
GRID = RESULTS / "grid-vllm0.32.0-sglang0.5.22" / "results.csv"
MODEL = load_model_description("builtin:llama-1.4gb")
POINTS = expand(load_scenario(REPO / "scenarios" / "cpu_sparse.yaml"))


def _sparse(engine: str, folder: str):
    frame = read_results(RESULTS / folder / "results.csv")
    points = [p for p in POINTS if p.engine == engine]
    grid = read_results(GRID)
    return frame, against_grid(points, MODEL, frame, grid[grid["engine"] == engine])


@pytest.mark.parametrize(("engine", "folder"), [("vllm", "sparse-vllm0.32.0")])
def test_the_sparse_run_launches_a_third_of_the_grid_and_every_predicted_row_holds(engine, folder):
    frame, table = _sparse(engine, folder)
    verify = frame["bound_note"].fillna("").str.startswith("verify:")
    launched = (frame["source"] == "measured") & ~verify
    assert len(frame) == 24 and launched.sum() <= 8, launched.sum()
    assert len(table) == (frame["source"] == "predicted").sum()
    assert (table["predicted_status"] == table["grid_status"]).all()
    refused = table["grid_status"] != "ok"
    assert (table[refused]["predicted_kind"] == table[refused]["grid_kind"]).all()
    started = table[~refused]
    assert started["error_pct"].abs().le(1.0).all(), started
    assert (started["error_pct"].abs() <= started["bound_pct"]).all(), started


@pytest.mark.parametrize(("engine", "folder"), [("vllm", "sparse-vllm0.32.0")])
def test_verify_5_finds_all_five_inside_their_bounds(engine, folder):
    frame, _ = _sparse(engine, folder)
    notes = frame["bound_note"].fillna("")
    verified = notes[notes.str.startswith("verify:")]
    assert len(verified) == 5 and verified.str.contains("inside its bound").all(), list(verified)
