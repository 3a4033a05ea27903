"""`python -m harness parse`: table, JSON, engine choice and the exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.engines.logs import format_release, table_releases
from parsers.vllm import VllmStartupRecord
from tests.support.guards import HANG_GUARD_S
from tests.support.recorded_logs import SGLANG, VLLM

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["parse", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_every_field_and_null_for_unknown(capsys):
    code, out, err = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"), "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == list(VllmStartupRecord().to_dict())  # the neutral fields, then vLLM's own
    assert (data["engine"], data["status"], data["kv_tokens"], data["num_blocks"]) == ("vllm", "ok", 4194304, 32768)
    assert data["error_kind"] is None and data["estimated_max_model_len"] is None
    assert "mem_fraction_static_effective" not in data  # SGLang's, not vLLM's
    assert out.count("\n") == 1  # one JSON object on one line


def test_json_and_table_have_the_pools(capsys):
    code, out, _ = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"), "--json")
    data = json.loads(out)
    assert data["kv_pools"] == [{"kind": "kv", "name": "CPU", "tokens": data["kv_tokens"], "gib": data["kv_gib"],
                                 "block_size": None, "slots": None, "tokens_derived": None}]
    code, out, _ = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"))
    assert code == 0
    assert re.search(r"kv_pools\s+│ kind=kv, name=CPU, tokens=4194304", out)


def test_table_shows_the_results_fields(capsys):
    code, out, _ = run(capsys, str(SGLANG / "a3_cpu_engine_stubcuda.log"))
    assert code == 0
    for text in ("kv_tokens", "29420860", "mem_fraction_static_effective", "0.716", "available_mem_gib", "4.04"):
        assert text in out
    assert "suggested_kv_cache_memory_bytes" not in out  # vLLM's column: a SGLang record has no such field


def test_error_log_table(capsys):
    code, out, _ = run(capsys, str(VLLM / "err-kvbytes256KiB-maxlen2048.log"))
    assert code == 0  # the log was parsed; the engine's failure is data, not a harness error
    assert "max_model_len_too_large" in out and "estimated_max_model_len" in out and "384" in out


def test_engine_can_be_forced(capsys):
    code, out, _ = run(capsys, str(SGLANG / "a4_small_pool.log"), "--engine", "sglang", "--json")
    assert code == 0
    assert (json.loads(out)["engine"], json.loads(out)["kv_tokens"]) == ("sglang", 8192)


def test_no_rule_fired_says_so_in_one_line_and_exits_1(capsys, tmp_path):
    # The start of a vLLM log read as SGLang's: not one line is SGLang wording. It stops before the weights' shard bar,
    # which both engines word alike (SGLang's weight_utils prints vLLM's "Loading safetensors checkpoint shards") and
    # SGLang's parser reads as its loading phase.
    path = tmp_path / "start.log"
    lines = (VLLM / "serve-kvspace2-maxlen512.log").read_text().splitlines()[:40]
    lines = lines[:next(i for i, line in enumerate(lines) if line.startswith("Loading safetensors checkpoint shards"))]
    path.write_text("\n".join(line for line in lines if "ERROR" not in line) + "\n")
    code, out, err = run(capsys, str(path), "--engine", "sglang", "--json")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert "no KV sizing line and no startup error found; last phase starting" in err


def test_excerpt_of_unknown_wording_exits_1(capsys, tmp_path):
    path = tmp_path / "excerpt.log"
    path.write_text("INFO 12-01 08:50:26 [api_server.py:1] something vLLM never said\n")
    code, out, err = run(capsys, str(path))
    assert (code, out) == (1, "") and "last phase starting" in err and err.count("\n") == 1


def test_release_outside_the_tables_reads_with_the_nearest_and_says_which(capsys, tmp_path):
    text = (VLLM / "serve-kvspace2-maxlen512.log").read_text()
    newer = tmp_path / "newer.log"
    newer.write_text(re.sub(r"version \d+\.\d+\.\d+", "version 9.1.0", text))
    code, out, _ = run(capsys, str(newer), "--json")
    data = json.loads(out)
    assert code == 0 and data["engine_version"] == "9.1.0" and data["kv_tokens"] == 4194304
    assert data["format_release"] == table_releases("vllm")[-1]
    code, out, _ = run(capsys, str(VLLM / "serve-kvspace2-maxlen512.log"), "--json")
    data = json.loads(out)
    assert data["format_release"] == data["engine_version"].split("+")[0]
    code, out, _ = run(capsys, str(newer))
    assert "format_release" in out


@pytest.mark.parametrize(("version", "expected"), [
    # (a release older than every table gets the oldest: 0.5.0 since gpu-logs-40 tabled the 2024 releases)
    ("0.8.5", "0.8.5"), ("0.11.0+cpu", "0.11.0"), ("0.10.1.5", "0.10.1.1"), ("0.4.3", "0.5.0"), ("0.5.2", "0.5.0"),
    ("1.0.0", "0.34.0"),
])
def test_format_release_is_the_nearest_older_table(version, expected):
    assert format_release("vllm", version) == expected


def test_parse_streams_the_file(monkeypatch, capsys):
    # The CLI never holds the whole file: it reads line by line.
    log = SGLANG / "a4_small_pool.log"
    for method in ("read_bytes", "read_text"):
        original = getattr(Path, method)

        def guarded(self, *a, _original=original, **k):
            assert self != log, "whole-file read of the log"
            return _original(self, *a, **k)

        monkeypatch.setattr(Path, method, guarded)
    code, out, _ = run(capsys, str(log), "--json")
    assert code == 0 and json.loads(out)["kv_tokens"] == 8192


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
                           str(SGLANG / "a4_small_pool.log")],
                          check=False, capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD_S)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kv_tokens"] == 8192


def test_parse_imports_only_what_it_uses():
    # A fresh interpreter (this one has every command loaded): `parse` registers only its own command, so pandas,
    # pydantic-heavy scenario code and the rest stay out of the parse path's memory (benchmarks/parse_speed.py)
    code = ("import sys; from harness.cli import main; "
            f"main(['parse', '--json', {str(VLLM / 'serve-kvspace2-maxlen512.log')!r}]); "
            "print(sorted(m for m in ('pandas', 'numpy', 'yaml', 'httpx', 'harness.commands.run') if m in sys.modules),"
            " file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_the_full_help_still_names_every_command(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("run", "parse", "compare", "envs"))


def test_a_file_a_terminal_cut_is_read_whole(capsys, tmp_path):
    # kvcached's physical pool line on SGLang 0.5.9 (gpu-logs-29 sglang/01), the log as a 120-column terminal cut it:
    # the count's last two digits open the next line ("... #tokens: 277754" / "3, K size: 47.68 GB, ..."), which the
    # command read as 277,754 before it joined a terminal's cuts.
    from tests.support.gpu_log_sets import fixture_log
    from tests.support.log_wrappers import terminal, wrap
    log = fixture_log("gpu-logs-29/sglang/01-")
    cut = tmp_path / "cut.log"
    cut.write_text(wrap(log.read_text(), terminal(120)))
    assert "#tokens: 277754\n3, K size" in cut.read_text()
    code, out, _ = run(capsys, str(cut), "--engine", "sglang", "--json")  # (its window holds no line of SGLang's own)
    assert code == 0 and json.loads(out)["kv_tokens"] == 2777543
