"""What a point produced is a frozen PointResult; its results row is made once, at the CSV edge (results/rows.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from harness.execute.point_run import PointJob
from harness.results.columns import COLUMNS, MEASURED, SPARSE
from harness.results.io import read_results
from harness.results.rows import EngineBuild, make_row
from harness.results.writer import ResultsWriter
from tests.support.results_from_logs import point_result

REPO = Path(__file__).resolve().parents[2]


def test_a_point_result_and_its_parts_are_frozen():
    result = point_result()
    for value, name in ((result, "status"), (result.timings, "wall_s"), (result.device, "total_mib"),
                        (result.build, "engine_version"), (result.prediction, "kv_tokens")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, None)


def test_the_row_of_a_recorded_result_has_the_csv_columns_and_its_values():
    result = point_result()
    row = make_row(result)
    assert tuple(row) == COLUMNS
    assert row["engine_version"] == "0.32.0"  # the log's own release wins over what the env reported
    assert row["kv_tokens"] == 4_194_304 and row["block_size"] == 128
    # the record's own columns carry its values; SGLang's columns stay empty on a vLLM row
    assert {k: row[k] for k in MEASURED} == {k: getattr(result.record, k, None) for k in MEASURED}
    assert row["max_running_requests"] is None and not hasattr(result.record, "max_running_requests")
    assert row["predicted_kv_gib"] == 1.9123 and row["prediction_error_pct"] == 4.858  # (4194304 - 4e6) / 4e6
    assert (row["t_kv_s"], row["t_ready_s"], row["wall_s"], row["engine_free_mib"]) == (1.235, None, 3.0, 21000.0)
    assert (row["gpu_indices"], row["node"], row["device_total_mib"]) == ("0,1", "host-1", 22563)
    assert row["max_num_batched_tokens"] == 2048 and row["extra_args"] == '{"enforce_eager": true}'


def test_the_writer_writes_the_row_made_from_the_result(tmp_path):
    path = tmp_path / "results.csv"
    writer = ResultsWriter(path)
    writer.add(point_result("a"))
    writer.add(point_result("b", status="timeout", error_kind="timeout", error_message="no KV sizing line",
                            record=None, prediction=None, gpus=None))
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)
    frame = read_results(path)
    assert list(frame["point_id"]) == ["a", "b"]
    assert frame.loc[0, "kv_tokens"] == 4_194_304 and frame.loc[0, "gpu_indices"] == "0,1"
    assert frame.loc[1, "status"] == "timeout" and frame[list(MEASURED)].iloc[1].isna().all()
    # a point run again replaces its row: one row per (point, release, repeat)
    writer.add(point_result("a", status="crashed"))
    assert list(read_results(path)["status"]) == ["timeout", "crashed"]


def test_a_placeholder_result_has_no_measurement_and_names_no_missing_log(tmp_path):
    from harness.execute.executors.common import failed_result

    job = PointJob(run_id="r", run_dir=tmp_path, envs={}, model_path="m", stop_after="kv", timeout_s=1,
                   wait_for_idle_gpu_s=0, keep_work_dirs=False, device="cpu")
    result = failed_result(point_result().point, job, "worker_died", "worker process 1 died", gpus=["3"],
                           node="n", log_dir=tmp_path)
    row = make_row(result)
    assert (row["status"], row["error_kind"]) == ("harness_error", "worker_died")
    assert (row["gpu_indices"], row["node"]) == ("3", "n")
    assert row["log_path"] is None and row["engine_version"] is None and row["kv_tokens"] is None


def test_only_the_results_package_makes_a_row():
    # The execute stage hands back PointResults and the run's display reads their typed fields; a row dict built
    # or changed elsewhere is a second place rows come from.
    for path in sorted([*(REPO / "harness" / "execute").rglob("*.py"), REPO / "harness" / "commands" / "run.py"]):
        text = path.read_text()
        assert not re.search(r"\bmake_row\b|\.row\b|\brow\[", text), f"{path.relative_to(REPO)} builds or reads a row"


def test_the_pools_the_log_states_are_a_text_column_read_back_as_written(tmp_path):
    from parsers import parse_log
    from parsers.record import pools_text

    # sglang 0.5.23's lines (tests/parsers/test_parsers_pools.py cites them)
    lines = ["Use sliding window memory pool. full_layer_tokens=400000, swa_layer_tokens=320000",
             "Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 400000, K size: 1.53 GB, V size: 1.53 GB",
             "SWA KV Cache is allocated. dtype: torch.bfloat16, #tokens: 320000, K size: 6.10 GB, V size: 6.10 GB",
             "SWAKVPool mem usage: 15.27 GB, swa size: 320000, full size: 400000"]
    record = parse_log("\n".join(f"[2026-11-29 20:00:00] {line}" for line in lines), "sglang")
    row = make_row(point_result(record=record))
    assert row["kv_pools"] == pools_text(record.kv_pools) and row["kv_gib"] == 15.27
    assert row["kv_pools"].startswith('[{"kind":"full","name":"Full KV Cache","tokens":400000,"gib":3.06}')
    writer = ResultsWriter(tmp_path / "results.csv")
    writer.add(point_result("a", record=record))
    writer.add(point_result("b", record=None, status="timeout"))
    frame = read_results(tmp_path / "results.csv")
    assert frame.loc[0, "kv_pools"] == row["kv_pools"] and frame["kv_pools"].isna().iloc[1]


def _written_without(columns: tuple[str, ...]) -> str:
    """A results file of two rows as an older format wrote it: the current text less `columns`."""
    import csv
    import io

    from harness.results.io import to_csv_text

    current = to_csv_text([make_row(point_result("a")), make_row(point_result("b", record=None))])
    rows = list(csv.reader(io.StringIO(current)))
    keep = [i for i, name in enumerate(rows[0]) if name not in columns]
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([row[i] for i in keep] for row in rows)
    return out.getvalue()


def test_a_v4_file_reads_with_empty_pools(tmp_path):
    import json

    from harness.results.io import migrate

    assert make_row(point_result("a"))["kv_pools"].startswith('[{"kind":"kv","name":"CPU"')
    v4 = _written_without(("kv_pools", "dependency_versions", "env_lock"))
    path = tmp_path / "results.csv"
    path.write_text(v4)
    (tmp_path / "run.json").write_text(json.dumps({"results_format": 4}))
    frame = read_results(path)
    assert list(frame.columns) == list(COLUMNS) and frame["kv_pools"].isna().all()
    assert frame.loc[0, "kv_tokens"] == 4_194_304
    migrated = migrate(v4, 4, "v4.csv")
    header, first = migrated.splitlines()[:2]
    assert header.endswith(",kv_pools,dependency_versions,env_lock") and first.endswith(",,")
    cut = v4 + "c,s"  # a row cut short stays short: the writer re-runs it
    assert migrate(cut, 4, "v4.csv").splitlines()[-1] == "c,s"


def test_a_v5_file_reads_with_no_dependency_versions(tmp_path):
    import json

    from harness.results.io import migrate

    assert make_row(point_result("a", build=EngineBuild("0.32.0", "2.13.0+cpu", "transformers=5.19.0 triton=3.9.0"))
                    )["dependency_versions"] == "transformers=5.19.0 triton=3.9.0"
    v5 = _written_without(("dependency_versions", "env_lock", *SPARSE))
    path = tmp_path / "results.csv"
    path.write_text(v5)
    (tmp_path / "run.json").write_text(json.dumps({"results_format": 5}))
    frame = read_results(path)
    assert list(frame.columns) == list(COLUMNS) and frame["dependency_versions"].isna().all()
    assert frame.loc[0, "kv_pools"].startswith('[{"kind":"kv"')
    header = migrate(v5, 5, "v5.csv").splitlines()[0]
    assert header.endswith(",kv_pools,dependency_versions,env_lock," + ",".join(SPARSE))


def test_old_results_without_locks_read_with_an_empty_env_lock_and_their_run_json_with_no_env_locks():
    from harness.results.runinfo import RunInfo

    probe = Path(__file__).resolve().parents[2] / "results" / "cpu_probe" / "vllm0.32.0-sglang0.5.22"
    frame = read_results(probe / "results.csv")  # results v7, run format v2: written before locks
    assert list(frame.columns) == list(COLUMNS) and frame["env_lock"].isna().all() and len(frame) > 0
    info = RunInfo.read(probe / "run.json")
    assert info.run_format == 3 and info.env_locks == {}
