"""The packages that differ between two runs' envs, from the real SGLang-CPU 0.5.22 and 0.5.23 envs' locks."""

from __future__ import annotations

import json
from pathlib import Path

from harness.analysis.package_changes import lock_changes, release_step_changes, results_lock_changes
from harness.envs.lock import locks_in

LOCKS = Path(__file__).resolve().parents[1] / "fixtures" / "locks"
OLD, NEW = (locks_in(LOCKS / f"sglang-{v}-cpu.lock.json")[0] for v in ("0.5.22", "0.5.23"))


def test_two_sglang_envs_list_their_kernels_and_flashinfer_first_and_not_sglang_itself():
    changes = lock_changes({OLD.env: OLD}, {NEW.env: NEW})
    texts = [c.text() for c in changes]
    assert texts[:2] == ["sglang: flashinfer-python 0.7.1 -> 0.7.2 (moves memory)",
                         "sglang: sglang-kernel 0.4.9 -> 0.4.10 (moves memory)"]
    assert [c.change.moves_memory for c in changes].count(True) == 2
    assert "sglang: timm 1.0.16 -> 1.0.25" in texts and not any(": sglang " in t for t in texts)
    assert len(texts) == 13  # as the two envs' site-packages listings differ, sglang itself left out


def test_a_release_axis_runs_steps_pair_each_releases_env(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "r", "env_locks": {OLD.env: OLD.to_dict(),
                                                                                NEW.env: NEW.to_dict()}}))
    csv = tmp_path / "results.csv"
    assert [c.text() for c in release_step_changes(csv, "sglang", "0.5.22", "0.5.23")] == [
        c.text() for c in lock_changes({OLD.env: OLD}, {NEW.env: NEW})]


def test_runs_without_locks_list_nothing(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "run.json").write_text(json.dumps({"run_id": "r", "run_format": 2}))
    assert results_lock_changes(tmp_path / "a" / "results.csv", tmp_path / "b" / "results.csv") == []
