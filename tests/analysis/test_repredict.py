"""Rewriting a committed results file's predicted columns (harness/analysis/repredict.rewrite_predicted) on a real run:
results/cpu_sizes' tiny-llama run, whose committed predicted columns are the current predictor's
(tests/predict/test_cpu_sizes.py checks that), so a copy with its predictions spoiled must come back to the committed
text byte for byte, and nothing else in it may move."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from harness.analysis.repredict import PREDICTED_COLUMNS, rewrite_predicted
from harness.errors import InputError
from harness.predict import load_model_description
from harness.scenario import expand, load_scenario

REPO = Path(__file__).resolve().parents[2]
RUN = REPO / "results" / "cpu_sizes" / "tiny-vllm0.32.0-sglang0.5.22"
POINTS = expand(load_scenario(REPO / "scenarios" / "cpu_sizes_tiny.yaml"))
MODEL = load_model_description("builtin:tiny-llama")


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(RUN, tmp_path / RUN.name)
    return tmp_path / RUN.name / "results.csv"


def test_spoiled_predictions_come_back_to_the_committed_text_and_nothing_else_moves(tmp_path):
    committed = (RUN / "results.csv").read_text(encoding="utf-8")
    rows = _rows(committed)
    spoiled = [i for i, row in enumerate(rows) if row["predicted_kv_tokens"]][:2]
    for i in spoiled:
        rows[i].update(predicted_kv_tokens="1", predicted_kv_gib="0.0001", prediction_error_pct="99")
    path = _copy(tmp_path)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")

    assert rewrite_predicted(path, POINTS, MODEL) == len(spoiled)
    assert path.read_text(encoding="utf-8") == committed


def test_a_file_already_current_is_left_as_it_is(tmp_path):
    path = _copy(tmp_path)
    assert rewrite_predicted(path, POINTS, MODEL) == 0
    assert path.read_text(encoding="utf-8") == (RUN / "results.csv").read_text(encoding="utf-8")
    assert set(PREDICTED_COLUMNS) <= set(_rows(path.read_text(encoding="utf-8"))[0])


def test_a_file_the_results_reader_refuses_is_left_untouched(tmp_path):
    path = _copy(tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text + text.splitlines()[-1].replace(",ok,", ",bogus-status,") + "\n", encoding="utf-8")
    before = path.read_text(encoding="utf-8")
    with pytest.raises(InputError):
        rewrite_predicted(path, POINTS, MODEL)
    assert path.read_text(encoding="utf-8") == before
