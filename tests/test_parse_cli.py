"""`python -m harness parse`: table, JSON, engine choice and the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from parsers import StartupRecord
from tests.test_parsers_recorded import SGLANG, VLLM

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["parse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_every_field_and_null_for_unknown(capsys):
    code, out, err = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"), "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == list(StartupRecord().to_dict())
    assert (data["engine"], data["status"], data["kv_tokens"], data["num_blocks"]) == ("vllm", "ok", 4194304, 32768)
    assert data["error_kind"] is None and data["mem_fraction_static_effective"] is None
    assert out.count("\n") == 1  # one JSON object on one line


def test_table_shows_the_results_fields(capsys):
    code, out, _ = run(capsys, str(SGLANG / "a3_cpu_engine_stubcuda.log"))
    assert code == 0
    for text in ("kv_tokens", "29420860", "mem_fraction_static_effective", "0.716", "available_mem_gib", "4.04"):
        assert text in out
    assert "suggested_kv_cache_memory_bytes" in out  # unknown results fields are listed too, as "-"


def test_error_log_table(capsys):
    code, out, _ = run(capsys, str(VLLM / "err-kvbytes256KiB-maxlen2048.log"))
    assert code == 0  # the log was parsed; the engine's failure is data, not a harness error
    assert "max_model_len_too_large" in out and "estimated_max_model_len" in out and "384" in out


def test_engine_can_be_forced(capsys):
    code, out, _ = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"), "--engine", "sglang", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["engine"], data["kv_tokens"], data["engine_version"]) == ("sglang", None, None)


def test_not_an_engine_log_exits_1(capsys, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\nmilk\n")
    code, out, err = run(capsys, str(path))
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "not a log of any known engine (vllm, sglang)" in err and str(path) in err


@pytest.mark.parametrize("make", [lambda p: p / "missing.log", lambda p: p])
def test_missing_file_or_directory_exits_2(capsys, tmp_path, make):
    code, out, err = run(capsys, str(make(tmp_path)))
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1


def test_unknown_engine_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["parse", str(VLLM / "serve-kvspace2-maxlen512.log"), "--engine", "tgi"])
    assert exc.value.code == 2


def test_module_entry_point():
    proc = subprocess.run([sys.executable, "-m", "harness", "parse", "--json",
                           str(SGLANG / "a4_small_pool.log")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kv_tokens"] == 8192
