"""`advise` against a stand-in vLLM-CPU whose KV follows vLLM-CPU's budget of its settings
(tests/support/budget_standin.py): targets met in few launches, an unreachable target with its
alternatives, a crash mid-search, Ctrl-C and --resume; the recommendation validates.

Targets are pool sizes; the stand-in reads a simulated node (tests/support/engine_reading.py
SIMULATED_NODE), the same whenever the suite runs, while the harness's first forecast comes from this
host's own reading, whatever it is then. What a launch should give is computed from the node the
stand-in read at that launch (its record), never from a reading of the test's own."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from harness.advise.search import GRAIN, Forecast, Launch, Setting, Target, Verdict, next_step
from harness.cli import main
from harness.predict.host import LOGGED_GIB_HALF_STEP
from harness.results.io import read_results
from tests.support.engine_reading import (
    StandinLaunch,
    standin_launches,
    standin_reading,
    standin_record,
    standin_scenario,
)

REPO = Path(__file__).resolve().parents[2]
BLOCK_BYTES = 128 * 512  # a 128-token block of the builtin tiny-llama in float16


def pool_target(pool_gib: float) -> int:
    """A KV target as a pool size: no host reading in it, so it means the same on any host."""
    return int(pool_gib * (1 << 30)) // BLOCK_BYTES * 128


@pytest.fixture
def scenario(tmp_path):
    return standin_scenario(tmp_path)


def _record(scenario: Path) -> list[StandinLaunch]:
    return standin_launches(standin_record(scenario.parent))


def _advise(scenario, out, *extra, env=None):
    argv = [sys.executable, "-m", "harness", "advise", str(scenario), "--engine", "vllm", "--max-model-len", "512",
            "--out", str(out), "--json", *extra]
    proc = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})}, cwd=REPO)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None)


def _launch_at(launches: list[StandinLaunch], utilization: float) -> StandinLaunch:
    return [launch for launch in launches if launch.utilization == utilization][-1]


def _harness_reads(monkeypatch, total_bytes: int, available_bytes: int) -> None:
    """The harness's own readings of the host (before the search and around each launch) patched to one node."""
    import harness.advise.loop as advise_loop
    from harness.execute import point_run
    from harness.predict.host import HostMemory

    def harness_reading(env=None, *args, **kwargs):
        return HostMemory(meminfo_total_bytes=total_bytes, numa_nodes=1, node_total_kib=(total_bytes >> 10,),
                          meminfo_available_bytes=available_bytes, node_available_bytes=(available_bytes,),
                          numa_node_dirs=1)

    for module, name in ((advise_loop, "read_host_memory"), (point_run, "read_host_memory"),
                         (point_run, "settled_host_memory")):
        monkeypatch.setattr(module, name, harness_reading)


@pytest.mark.parametrize("pool_gib", [0.75, 1.5])
def test_a_reachable_target_is_met_in_three_launches_or_fewer(scenario, tmp_path, pool_gib):
    target = pool_target(pool_gib)
    proc, answer = _advise(scenario, tmp_path / "out", "--kv-tokens", str(target))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert answer["met"] and len(answer["launches"]) <= 3, answer["launches"]
    launches = _record(scenario)
    assert [launch.utilization for launch in launches] == [launch["fraction"] for launch in answer["launches"]]
    rec = answer["recommended"]
    util = rec["args"]["gpu_memory_utilization"]
    # the lowest utilization on the 0.01 grid whose pool holds the target, by the node total the engine
    # read at that launch, and the tokens it logged
    chosen = _launch_at(launches, util)
    assert util == chosen.lowest_utilization_for(target) and rec["kv_tokens"] == chosen.kv_tokens >= target
    margin = _launch_at(launches, rec["margin"]["fraction"])
    assert rec["margin"]["fraction"] == round(util - GRAIN, 2)
    assert rec["margin"]["kv_tokens"] == margin.kv_tokens < target
    # every launch is an ordinary row of the run folder
    frame = read_results(tmp_path / "out" / "results.csv")
    assert len(frame) == len(answer["launches"]) and set(frame["status"]) == {"ok"}
    assert f"--gpu-memory-utilization {util}" in rec["command"]


def test_the_recommendation_validates_for_the_scenarios_release(scenario, tmp_path):
    proc, answer = _advise(scenario, tmp_path / "out", "--kv-tokens", str(pool_target(1.0)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    snippet = yaml.safe_load(answer["recommended"]["yaml"])
    data = yaml.safe_load(scenario.read_text())
    data["engines"]["vllm"].pop("sweep")
    data["engines"]["vllm"]["args"].update(snippet["engines"]["vllm"]["args"])
    assert snippet["engines"]["vllm"]["version"] == "0.32.0"
    checked = tmp_path / "recommended.yaml"
    checked.write_text(yaml.safe_dump(data))
    assert main(["validate", str(checked)]) == 0


def test_an_unreachable_target_says_so_with_its_alternatives(scenario, tmp_path):
    impossible = 2 * standin_reading().available_bytes // 512  # twice the memory the engine finds free, in tokens
    proc, answer = _advise(scenario, tmp_path / "out", "--kv-tokens", str(impossible))
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert not answer["met"] and len(answer["launches"]) <= 3
    assert any(a.startswith("FP8 KV cache") for a in answer["alternatives"])
    assert any(a.startswith("max_model_len") for a in answer["alternatives"])
    text = subprocess.run([sys.executable, "-m", "harness", "advise", str(scenario), "--engine", "vllm",
                           "--max-model-len", "512", "--kv-tokens", str(impossible), "--out", str(tmp_path / "o2")],
                          check=False, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert "cannot be met on this device: best reachable is" in text.stdout and "options: FP8 KV cache" in text.stdout


def test_a_crash_mid_search_is_a_row_and_narrows_the_search(tmp_path, monkeypatch, capsys):
    # Pinned on both sides, so no moment's host memory enters: the stand-in reads the simulated node and holds
    # 512 MiB beside its pool; the harness reads that same node (the stand-in's own reading, patched in) where
    # it would read this host's. The target is the stand-in's pool at 0.06 on that reading: the predictor, whose
    # estimate of what the worker holds is above 512 MiB by less than a grain of the node, puts 0.06 just short
    # and 0.07 well over, so it launches 0.06, the nearer (it meets); calibrated on it, the second launch is the
    # margin 0.05, and it crashes: a crash is "asks too much", so the search ends with 0.06 and the crash as
    # its margin instead of trying again.
    scenario = standin_scenario(tmp_path, env={"STANDIN_RSS_MIB": "512", "STANDIN_CRASH_AT_LAUNCH": "2"})
    reading = standin_reading(env={"STANDIN_RSS_MIB": "512"})
    _harness_reads(monkeypatch, reading.total_bytes, reading.available_bytes)
    target = reading.tokens_at(0.06)
    assert main(["advise", str(scenario), "--engine", "vllm", "--max-model-len", "512", "--out", str(tmp_path / "out"),
                 "--json", "--kv-tokens", str(target)]) == 0
    answer = json.loads(capsys.readouterr().out)
    frame = read_results(tmp_path / "out" / "results.csv")
    assert sorted(frame["status"]) == ["crashed", "ok"], frame[["status", "gpu_memory_utilization"]]
    first, crashed = answer["launches"]
    assert first["predicted_kv_tokens"] < target <= first["kv_tokens"]  # predicted just short, measured to meet
    assert (first["fraction"], crashed["fraction"]) == (0.06, 0.05)
    assert [launch.outcome for launch in _record(scenario)] == ["ok", "crashed"]
    assert [launch.total_bytes for launch in _record(scenario)] == [reading.total_bytes] * 2
    rec = answer["recommended"]
    assert rec["args"]["gpu_memory_utilization"] == 0.06
    assert rec["margin"] == {"fraction": 0.05, "status": "crashed", "kv_tokens": None}


def test_ctrl_c_keeps_the_rows_and_resume_continues_the_search(scenario, tmp_path):
    target = pool_target(0.75)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "harness", "advise", str(scenario), "--engine", "vllm", "--max-model-len", "512",
            "--kv-tokens", str(target), "--out", str(out)]
    # one launch (it meets), then a resumed search whose next launch hangs
    first = subprocess.run(argv + ["--max-launches", "1"], check=False, capture_output=True, text=True, timeout=300,
                           cwd=REPO)
    assert first.returncode == 0, first.stderr
    resume = argv[:-2] + ["--resume", str(out)]
    proc = subprocess.Popen(resume, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, "STANDIN_HANG_AT_LAUNCH": "2"}, start_new_session=True)
    # interrupt once the second launch's engine is hanging (its log says so), not while the run starts
    deadline = time.monotonic() + 180

    def hanging() -> bool:
        return any("hanging before the KV sizing" in log.read_text() for log in (out / "logs").glob("*.log"))

    while time.monotonic() < deadline and not hanging():
        time.sleep(0.5)
    assert hanging(), "the second launch never reached its hang"
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "--resume" in stderr and str(out) in stderr
    rows_before = len(read_results(out / "results.csv"))
    done = subprocess.run(resume + ["--json"], check=False, capture_output=True, text=True, timeout=300,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    util = answer["recommended"]["args"]["gpu_memory_utilization"]
    assert util == _launch_at(_record(scenario), util).lowest_utilization_for(target)
    assert len(read_results(out / "results.csv")) >= rows_before


def _forecast_bound_tokens(first: StandinLaunch, fraction: float) -> int:
    """How far a forecast calibrated on `first` alone can be from a launch at `fraction` on the same
    reading, by the engine's own arithmetic: its log states the request in two-decimal GiB, which fixes the
    node total to within half a step / utilization; that error scales with the step in utilization; and
    each of the two pools is whole blocks."""
    total_error = LOGGED_GIB_HALF_STEP * (1 << 30) / first.utilization
    return int(total_error * abs(fraction - first.utilization)) // 512 + 2 * 128


def test_a_predictor_wrong_in_level_and_slope_is_corrected_after_one_launch(tmp_path):
    # The engine reads a 40 GiB node, which this host's node is not (the slope: its reservation is
    # total x utilization), and keeps 512 MiB beside its pool where the predictor estimates vLLM-CPU's
    # worker at its runtime plus tiny-llama's weights, ~0.61 GiB (the level).
    scenario = standin_scenario(tmp_path, env={"STANDIN_NODE_MIB": "40960,38000"})
    proc, answer = _advise(scenario, tmp_path / "out", "--kv-tokens", str(pool_target(1.5)))
    assert proc.returncode == 0, proc.stderr[-2000:]
    launches = _record(scenario)
    first, second = answer["launches"][:2]
    assert [launch.utilization for launch in launches[:2]] == [first["fraction"], second["fraction"]]
    assert second["fraction"] != first["fraction"]
    # before any launch the predictor was wrong by more than the log's rounding could hide
    assert abs(first["predicted_kv_tokens"] - first["kv_tokens"]) > _forecast_bound_tokens(launches[0],
                                                                                           second["fraction"])
    # one launch later the forecast is the engine's own arithmetic on what that launch logged
    assert abs(second["predicted_kv_tokens"] - second["kv_tokens"]) <= _forecast_bound_tokens(launches[0],
                                                                                             second["fraction"])
    # a level-only correction would have kept the slope of the harness's own reading before the search
    harness_total = answer["device"]["total_mib"] * (1 << 20)
    assert abs(harness_total - launches[0].total_bytes) >= 4 << 30  # no host of this kind has a 40 GiB node
    level_only = first["kv_tokens"] + int(harness_total * (second["fraction"] - first["fraction"])) // 512
    assert abs(level_only - second["kv_tokens"]) > _forecast_bound_tokens(launches[0], second["fraction"])
    assert "forecast from the total the latest launch's engine read" in second["why"]


def test_a_near_boundary_target_is_met_in_three_launches_on_a_node_that_moves_between_launches(tmp_path):
    # Each launch's engine reads the node 16 MiB larger than the one before (memory still coming back:
    # 0.08 % more pool per launch at 0.30), the first 1 GiB smaller than the simulated node.
    env = {"STANDIN_NODE_GROWN_MIB": "-1024", "STANDIN_NODE_DRIFT_MIB": "16"}
    scenario = standin_scenario(tmp_path, env=env)
    # 0.5 % above what 0.30 gives on the engine's first reading: 0.30 is a near miss, 0.31 meets
    now = standin_reading(0.30, env=env)
    target = int(now.tokens_at(0.30) * 1.005)
    proc, answer = _advise(scenario, tmp_path / "out", "--kv-tokens", str(target))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert answer["met"] and len(answer["launches"]) <= 3, answer["launches"]
    launches = _record(scenario)
    assert len({launch.total_bytes for launch in launches}) == len(launches)  # every launch read another node
    rec = answer["recommended"]
    chosen = _launch_at(launches, rec["args"]["gpu_memory_utilization"])
    assert rec["kv_tokens"] == chosen.kv_tokens >= target
    margin = _launch_at(launches, rec["margin"]["fraction"])
    assert rec["margin"]["fraction"] == round(chosen.utilization - GRAIN, 2) and margin.kv_tokens < target


# ---- the search alone ---------------------------------------------------------------------------

def _exact(tokens_per_grain: int):
    return lambda s: Forecast(round(s.fraction / GRAIN) * tokens_per_grain, True)


def test_an_exact_predictor_needs_two_launches_the_answer_and_its_margin():
    target = Target(512, 10 * 1000)
    launches: list[Launch] = []
    predict = _exact(1000)
    for _ in range(5):
        step = next_step(target, launches, predict, [None], {None: 0.98}, frozenset(), 6)
        if step.done:
            break
        f = step.launch.fraction
        launches.append(Launch(step.launch, "ok", None, round(f / GRAIN) * 1000))
    assert step.done and step.best.setting.fraction == 0.10 and step.margin.setting.fraction == 0.09
    assert len(launches) == 2


def test_a_shortfall_error_is_too_little_and_other_failures_too_much():
    t = Target(512, 100)
    assert Launch(Setting(0.1), "engine_error", "max_model_len_too_large", None).verdict(
        t, frozenset({"max_model_len_too_large"})) is Verdict.SHORT
    assert Launch(Setting(0.9), "engine_error", "cpu_memory_below_requested", None).verdict(
        t, frozenset({"max_model_len_too_large"})) is Verdict.TOO_MUCH
    assert Launch(Setting(0.9), "timeout", None, None).verdict(t, frozenset()) is Verdict.TOO_MUCH
    assert Launch(Setting(0.9), "harness_error", None, None).verdict(t, frozenset()) is Verdict.UNKNOWN


def _search(target: Target, truth, predictor_for, limit: int = 8) -> tuple[list[Launch], object]:
    """advise's loop without engines: each launch measures `truth`, the predictor is rebuilt from the
    launches so far (`predictor_for(launches)`, the loop's recalibration)."""
    launches: list[Launch] = []
    for _ in range(limit):
        step = next_step(target, launches, predictor_for(launches), [None], {None: 0.98}, frozenset(), limit)
        if step.done:
            return launches, step
        launches.append(Launch(step.launch, "ok", None, truth(step.launch.fraction)))
    raise AssertionError(f"no answer in {limit} launches: {launches}")


def test_a_near_miss_explained_by_the_recalibrated_predictor_goes_one_grain_up_not_to_a_bisection():
    # SGLang-CPU 0.5.22 on cpu_budget, target 4,241,689 tokens: 0.10 measured 4,221,202 (0.5 % short)
    # where 4,256,598 was predicted; measured slope 43.7 M tokens per unit of fraction, predicted 47.9 M.
    target = Target(512, 4_241_689)

    def truth(f: float) -> int:
        return int(4_221_202 + 43.7e6 * (f - 0.10))

    def predictor_for(launches):
        # calibrated on the launches: a level from one, level and slope from two or more
        level, slope, at = 4_256_598, 47.9e6, 0.10
        if launches:
            first, last = launches[0], launches[-1]
            if len(launches) >= 2 and last.setting.fraction != first.setting.fraction:
                slope = (last.kv_tokens - first.kv_tokens) / (last.setting.fraction - first.setting.fraction)
            level, at = first.kv_tokens, first.setting.fraction
        return lambda s: Forecast(int(level + slope * (s.fraction - at)), True)

    launches, step = _search(target, truth, predictor_for)
    assert [launch.setting.fraction for launch in launches] == [0.10, 0.11]
    assert step.best.setting.fraction == 0.11 and step.margin.setting.fraction == 0.10


def test_a_predictor_wrong_in_direction_twice_is_bisected_around():
    # a predictor that calls every fraction enough, whatever was measured: after two misses it
    # predicted to meet, the search stops trusting its threshold
    target = Target(512, 1000)
    launches, step = _search(target, lambda f: int(f * 2000), lambda launches: lambda s: Forecast(10**9, True), 12)
    fractions = [launch.setting.fraction for launch in launches]
    assert fractions[:2] == [0.01, 0.02] and fractions[2] > 0.3  # the third is a bisection of (0.02, 0.98]
    assert step.best.setting.fraction == 0.5 and step.margin.setting.fraction == 0.49


@pytest.mark.parametrize("level_err", [-0.05, -0.02, 0.02, 0.05])
@pytest.mark.parametrize("slope_err", [-0.08, 0.0, 0.08])
@pytest.mark.parametrize("noise", [0.004, 0.008])
def test_every_reachable_target_is_met_in_three_launches_with_a_pool_that_moves_between_launches(level_err, slope_err,
                                                                                                   noise):
    # Measured on the real SGLang-CPU 0.5.22 (benchmarks/advise.py): the pool at one fraction moves by ~0.5 %
    # between launches (free memory read at load), so two launches a grain apart can measure 0.22 M tokens
    # apart where the slope says 0.44 M. An uncalibrated predictor off in level and slope, recalibrated on
    # the latest launch; the pool alternately above and below its line by `noise`.
    slope = 44e6  # tokens per unit of fraction, as measured

    def truth(f: float, launch: int) -> int:
        return int(slope * f * (1 + (noise if launch % 2 else -noise)))

    def predictor_for(launches):
        if not launches:
            return lambda s: Forecast(int(slope * s.fraction * (1 + level_err)), True)
        last = launches[-1]
        return lambda s: Forecast(int(last.kv_tokens + slope * (1 + slope_err) * (s.fraction - last.setting.fraction)),
                                  True)

    for kv_tokens in range(2_000_000, 30_000_000, 1_300_000):
        launches: list[Launch] = []
        for _ in range(8):
            step = next_step(Target(512, kv_tokens), launches, predictor_for(launches), [None], {None: 0.95},
                             frozenset(), 8)
            if step.done:
                break
            launches.append(Launch(step.launch, "ok", None, truth(step.launch.fraction, len(launches))))
        tried = [(launch.setting.fraction, launch.kv_tokens) for launch in launches]
        assert step.done and len(launches) <= 3, (kv_tokens, tried)
        assert step.best.kv_tokens >= kv_tokens > step.margin.kv_tokens


@pytest.mark.parametrize("harness_node_gib", [3.0, 5.5, 12.0])
def test_a_target_is_met_in_three_launches_when_the_harness_reads_another_node_than_the_engine(
        scenario, tmp_path, monkeypatch, capsys, harness_node_gib):
    # The harness's own readings of the node (its total and free memory: a VM whose memory is still coming after
    # boot, other jobs' engines) are not what the engine read (the simulated node, 24,105 MiB). A launch that
    # started is fitted whatever the harness's free reading said of it: before, a first launch the harness's
    # reading called unstartable was left out of the fit, and the search walked down one grain at a time
    # (0.25, 0.24, 0.23, 0.22, then 0.06 and 0.05 at 5.5 GiB).
    gib = 1 << 30
    _harness_reads(monkeypatch, int(harness_node_gib * gib), int((harness_node_gib - 1) * gib))
    assert main(["advise", str(scenario), "--engine", "vllm", "--max-model-len", "512", "--out", str(tmp_path / "out"),
                 "--json", "--kv-tokens", str(pool_target(0.75))]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["met"] and len(answer["launches"]) <= 3, [(x["fraction"], x["why"]) for x in answer["launches"]]


def test_a_model_kind_the_formulas_do_not_size_is_one_line_and_no_launch(scenario, tmp_path, capsys):
    # Qwen3-Next's Gated DeltaNet layers: vLLM sizes their state as KV cache groups of their own (MambaSpec), which
    # the formulas model for Nemotron-H's and Granite 4's Mamba2 layers only; advise has no forecast to search with
    # and says so before launching anything.
    model = tmp_path / "qwen3-next-tiny"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({
        "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 128,
        "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 4, "intermediate_size": 256,
        "vocab_size": 512, "torch_dtype": "bfloat16", "max_position_embeddings": 4096,
        "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention"]}))
    scenario.write_text(scenario.read_text().replace("model: {builtin: tiny-llama}", f"model: {model}"))
    assert main(["advise", str(scenario), "--engine", "vllm", "--max-model-len", "512", "--out",
                 str(tmp_path / "out"), "--kv-tokens", "100000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "advise cannot forecast this point: vllm 0.32.0: " in err[0]
    assert "MambaSpec" in err[0]
    assert _record(scenario) == []  # nothing launched
