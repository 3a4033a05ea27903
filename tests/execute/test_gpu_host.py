"""`run` on a GPU host, simulated: the GPU host stand-in (tests/support/gpu_host: a fake NVML with its
driver and the CUDA it supports) and a fake engine env whose torch names its CUDA build."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.envs.cuda_driver import cuda_of_driver, driver_refusal
from tests.support.fake_env import OK_LOG, make_fake_env
from tests.support.gpu_host import GpuHost, both_engines_scenario, gpu24_scenario, gpu_vllm_env, install
from tests.support.probing import waves_of


def _scenario(tmp_path: Path, python: Path) -> Path:
    path = tmp_path / "gpu.yaml"
    path.write_text(f"""
name: gpu
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: 24}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    sweep: {{max_num_batched_tokens: [256]}}
run: {{timeout_s: 20, stop_after: ready}}
""")
    return path


def test_nvmls_cuda_driver_version_reads_as_major_dot_minor():
    assert (cuda_of_driver(12080), cuda_of_driver(13000), cuda_of_driver(None)) == ("12.8", "13.0", None)


@pytest.mark.parametrize("env_cuda, driver_cuda, refused", [
    ("13.0", "12.8", True),   # PyPI's torch 2.13/2.14 on most clouds' drivers
    ("12.8", "12.4", False),  # minor version compatibility within a major
    ("12.8", "13.0", False),  # a newer driver runs older builds
    (None, "12.4", False),    # a CPU build, or an env that cannot say: nothing to check
])
def test_a_driver_runs_builds_of_its_cuda_major_or_older(env_cuda, driver_cuda, refused):
    line = driver_refusal("vllm 0.32.0 env /e", "2.13.0", env_cuda, "570.133.20", driver_cuda)
    assert (line is not None) is refused


def test_a_cuda_13_env_on_a_cuda_12_driver_stops_before_the_first_launch(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("RTX4090", driver_version="570.133.20", cuda_driver_version=12080)
            .write(tmp_path / "host"))
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]}, torch_version="2.13.0", torch_cuda="13.0")
    out = tmp_path / "out"
    assert main(["run", str(_scenario(tmp_path, python)), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ("its torch 2.13.0 is a CUDA 13.0 build, which needs an NVIDIA driver for CUDA 13 "
                              "(>= 580.65.06); this host's driver 570.133.20 supports CUDA 12.8") in err[0], err
    assert not (out / "results.csv").exists()


def test_the_same_env_on_a_cuda_13_driver_launches(tmp_path, monkeypatch):
    install(monkeypatch, GpuHost.of("RTX4090", driver_version="580.82.07", cuda_driver_version=13000)
            .write(tmp_path / "host"))
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]}, torch_version="2.13.0", torch_cuda="13.0")
    out = tmp_path / "out"
    assert main(["run", str(_scenario(tmp_path, python)), "--out", str(out)]) == 0
    assert (out / "results.csv").is_file()


def test_a_card_another_job_holds_stops_the_run_counting_every_point_left_and_leaving_nothing(tmp_path, monkeypatch,
                                                                                               capsys):
    from harness.scenario import expand, load_scenario_with_releases

    install(monkeypatch, GpuHost.of("RTX4090").busy(0, 4242, 3000).write(tmp_path / "host"))
    python = make_fake_env(tmp_path / "env", {n: ["--log", str(OK_LOG)] for n in (333, 444, 555)})
    scenario = _scenario(tmp_path, python)
    scenario.write_text(scenario.read_text().replace("[256]", "[333, 444, 555]"))
    names = [p.name[:8] for p in expand(load_scenario_with_releases(scenario, None))]
    tmp_root = Path("/tmp")
    before = {d.name for d in tmp_root.glob("kvh-*")}
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 2  # the host is not ready: not a harness failure
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress lines, one line
    assert err.startswith("error: GPU busy before launch: GPU 0 has 3000 MiB in use by other processes"), err
    assert "3 point(s) of this run left unrun (0 measured" in err and f"--resume {out}" in err
    left = {d.name for d in tmp_root.glob("kvh-*")} - before
    assert not [d for d in left if any(d.startswith(f"kvh-{n}-") for n in names)]


def test_on_a_shared_card_told_so_the_run_measures_beside_the_other_job_and_each_row_says_what_it_held(
        tmp_path, monkeypatch):
    from harness.results.io import read_results

    host = GpuHost.of("RTX4090").busy(0, 4242, 3000)
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_vllm_env(tmp_path / "env")
    scenario = gpu24_scenario(tmp_path, python, "      gpu_memory_utilization: [0.8, 0.9]\n"
                                               "      max_num_batched_tokens: [2048, 2048]")
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--shared-gpu"]) == 0
    rows = read_results(out / "results.csv").set_index("gpu_memory_utilization")
    card = host.cards[0]
    assert (rows["gpu_busy_before_mib"] == card.reserved_mib + 3000).all()
    # vLLM asks for 0.8 x CUDA's total: it fits beside the other job's 3,000 MiB; 0.9 does not (its E1)
    assert rows.loc[0.8, "kv_tokens"] == _expected_tokens(card.total_mib, card.reserved_mib, 0.8)
    assert rows.loc[0.9, "status"] == "engine_error"


@pytest.mark.parametrize("card, comparable", [("L4", True), ("A10G", True), ("RTX4090", True), ("A100-80GB", False)])
def test_a_24_gb_scenario_is_comparable_on_every_card_sold_as_24_gb(tmp_path, monkeypatch, card, comparable):
    import json

    install(monkeypatch, GpuHost.of(card).write(tmp_path / "host"))
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]})
    out = tmp_path / "out"
    assert main(["run", str(_scenario(tmp_path, python)), "--out", str(out)]) == 0
    warnings = json.loads((out / "run.json").read_text())["warnings"]
    assert any("not comparable with the scenario's" in w for w in warnings) is not comparable, warnings


def test_a_gpu_host_told_cpu_measures_the_cpu_engines_and_envs_follow_the_same_detector(tmp_path, monkeypatch):
    from harness.envs import host_is_cpu_only

    install(monkeypatch, GpuHost.of("A100-80GB").write(tmp_path / "host"))
    assert host_is_cpu_only() is False
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    assert host_is_cpu_only() is True
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]})
    scenario = _scenario(tmp_path, python)
    scenario.write_text(scenario.read_text().replace("memory_gib: 24", "memory_gib: null"))
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    from harness.results.io import read_results

    row = read_results(out / "results.csv").iloc[0]
    assert str(row["device_name"]).startswith("cpu (")  # not the A100 NVML sees


@pytest.mark.parametrize("card, cuda_total", [("RTX4090", 24564 - 348), ("A100-80GB", 81920 - 870)])
def test_vllm_rows_and_predictions_take_the_total_cuda_reports_not_nvmls(tmp_path, monkeypatch, card, cuda_total):
    from harness.engines.predicting import predict_point
    from harness.predict import load_model_description
    from harness.results.io import read_results
    from harness.scenario import expand, load_scenario_with_releases

    install(monkeypatch, GpuHost.of(card).write(tmp_path / "host"))
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]}, torch_cuda="12.8")
    scenario = _scenario(tmp_path, python)
    scenario.write_text(scenario.read_text().replace("memory_gib: 24", "memory_gib: null"))
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    row = read_results(out / "results.csv").iloc[0]
    assert row["device_total_mib"] == cuda_total
    point = expand(load_scenario_with_releases(scenario, None))[0]
    free = GpuHost.of(card).cards[0].total_mib - GpuHost.of(card).cards[0].reserved_mib  # idle: NVML total - used
    from harness.execute.models import resolve_model

    expected = predict_point(point, load_model_description(resolve_model(point.model)), cuda_total, device="cuda",
                             gpu_free_mib=free)
    assert row["predicted_kv_tokens"] == expected.kv_tokens


def test_the_sequential_path_runs_on_the_card_cuda_visible_devices_names_and_describes_that_card(tmp_path,
                                                                                                  monkeypatch):
    # advise launches through the sequential executor: an 80 GB A100 must not be recorded for a run
    # the user sent to the L4
    import json

    from harness.execute.run import RunOptions, run_scenario
    from harness.results.io import read_results

    install(monkeypatch, GpuHost.of("A100-80GB", "L4").write(tmp_path / "host"))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    python = make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]})
    out = tmp_path / "out"
    run_scenario(_scenario(tmp_path, python), RunOptions(out=out))
    row = read_results(out / "results.csv").iloc[0]
    assert (row["device_name"], str(row["gpu_indices"])) == ("NVIDIA L4", "1")
    machine = json.loads((out / "run.json").read_text())["machine"]
    assert machine["gpu"]["name"] == "NVIDIA L4" and [g["index"] for g in machine["gpus"]] == [1]


# ---- the fake GPU vLLM (tests/support/gpu_host/vllm_gpu.py) on the stand-in's cards -------------------------

GiB_ = 1 << 30


def _expected_tokens(card_total_mib: int, reserved_mib: int, util: float, tp: int = 1) -> int:
    """What vLLM 0.32.0's arithmetic gives with the fake's default terms (its docstring)."""
    import math

    requested = math.ceil((card_total_mib - reserved_mib) * (1 << 20) * util)
    available = requested - (14.99 / tp + 0.30 + 0.58 + 0.41) * GiB_
    return int(available // (131072 / tp * 16)) * 16


def test_a_sweep_on_one_idle_24_gb_card_measures_what_vllm_sizes_and_waits_for_each_release(tmp_path, monkeypatch):
    from harness.results.io import read_results

    host = GpuHost.of("RTX4090")
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_vllm_env(tmp_path / "env", {"STANDIN_LINGER_S": "2"})
    scenario = gpu24_scenario(tmp_path, python, "      gpu_memory_utilization: [0.8, 0.9, 0.99]\n"
                                               "      max_num_batched_tokens: [2048, 2048, 2048]")
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    rows = read_results(out / "results.csv").set_index("gpu_memory_utilization")
    card = host.cards[0]
    for util in (0.8, 0.9):
        assert rows.loc[util, "status"] == "ok" and rows.loc[util, "kv_tokens"] == \
            _expected_tokens(card.total_mib, card.reserved_mib, util), rows.loc[util].to_dict()
        assert rows.loc[util, "device_total_mib"] == card.total_mib - card.reserved_mib
    # 0.99 of 24,216 MiB is more than is free once its CUDA context is up: vLLM's E1
    assert rows.loc[0.99, "status"] == "engine_error"
    assert "on startup is less than desired GPU memory utilization" in rows.loc[0.99, "error_message"]
    assert not rows["error_message"].fillna("").str.contains("not released").any()  # each release waited for


def test_one_point_per_card_in_parallel_on_mixed_cards_each_row_describes_its_own_card(tmp_path, monkeypatch):
    from harness.execute.executors import LocalGpuExecutor
    from harness.execute.run import RunOptions, run_scenario
    from harness.results.io import read_results

    host = GpuHost.of("L4", "RTX4090")
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_vllm_env(tmp_path / "env")
    scenario = gpu24_scenario(tmp_path, python, "      gpu_memory_utilization: [0.85, 0.9]\n"
                                               "      max_num_batched_tokens: [2048, 2048]")
    out = tmp_path / "out"
    run_scenario(scenario, RunOptions(out=out, executor=LocalGpuExecutor([0, 1], real_gpus=True)))
    rows = read_results(out / "results.csv")
    assert sorted(rows["gpu_indices"].astype(str)) == ["0", "1"]
    for _, row in rows.iterrows():
        card = host.cards[int(row["gpu_indices"])]
        assert row["device_name"] == card.name and row["status"] == "ok"
        assert row["kv_tokens"] == _expected_tokens(card.total_mib, card.reserved_mib, row["gpu_memory_utilization"])


def test_tensor_parallel_2_holds_two_cards_and_sizes_from_each_rank(tmp_path, monkeypatch):
    from harness.execute.executors import LocalGpuExecutor
    from harness.execute.run import RunOptions, run_scenario
    from harness.results.io import read_results

    host = GpuHost.of("A100-80GB", "A100-80GB")
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_vllm_env(tmp_path / "env", {"STANDIN_WEIGHTS_GIB": "120"})  # 60 GiB per rank: needs two cards
    scenario = gpu24_scenario(tmp_path, python, "      gpu_memory_utilization: [0.9]\n"
                                               "      tensor_parallel_size: [2]", memory_gib="80")
    out = tmp_path / "out"
    run_scenario(scenario, RunOptions(out=out, executor=LocalGpuExecutor([0, 1], real_gpus=True)))
    (row,) = read_results(out / "results.csv").to_dict("records")
    assert str(row["gpu_indices"]) == "0,1" and row["status"] == "ok"
    card = host.cards[0]
    import math

    requested = math.ceil((card.total_mib - card.reserved_mib) * (1 << 20) * 0.9)
    per_rank = int((requested - (120 / 2 + 0.30 + 0.58 + 0.41) * GiB_) // (131072 / 2 * 16)) * 16
    assert row["kv_tokens"] == per_rank


def test_advise_on_a_24_gb_card_meets_a_target_in_three_launches_from_cudas_total(tmp_path, monkeypatch):
    import subprocess
    import sys

    from tests.support.gpu_host import subprocess_env

    host = GpuHost.of("RTX4090")
    host_file = host.write(tmp_path / "host")
    install(monkeypatch, host_file)
    python = gpu_vllm_env(tmp_path / "env", {"STANDIN_WEIGHTS_GIB": "0.01", "STANDIN_KV_BYTES_PER_TOKEN": "512"})
    scenario = gpu24_scenario(tmp_path, python, "      gpu_memory_utilization: [0.9]\n"
                                               "      max_num_batched_tokens: [2048]")
    card = host.cards[0]
    import math

    def tokens(util: float) -> int:  # the fake's arithmetic for the scenario's own model (tiny-llama)
        requested = math.ceil((card.total_mib - card.reserved_mib) * (1 << 20) * util)
        return int((requested - (0.01 + 0.30 + 0.58 + 0.41) * GiB_) // (512 * 16)) * 16

    target = tokens(0.15) + 1  # 0.15 misses by a token, 0.16 meets
    proc = subprocess.run([sys.executable, "-m", "harness", "advise", str(scenario), "--engine", "vllm",
                           "--max-model-len", "2048", "--kv-tokens", str(target), "--out", str(tmp_path / "out"),
                           "--json"], check=False, capture_output=True, text=True, timeout=600,
                          env=subprocess_env(host_file), cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json

    answer = json.loads(proc.stdout)
    assert answer["device"]["total_mib"] == card.total_mib - card.reserved_mib  # CUDA's total, through the env
    assert answer["recommended"]["args"]["gpu_memory_utilization"] == 0.16
    assert answer["recommended"]["margin"]["fraction"] == 0.15
    assert len(answer["launches"]) <= 3, answer["launches"]


def test_the_main_job_on_one_idle_24_gb_card_measures_both_engines_as_each_sizes(tmp_path, monkeypatch):
    # scenarios/24g_8b.yaml's two engines on an RTX 4090 (a subset of its points): vLLM from CUDA's total x its
    # utilization, SGLang from the free memory its ranks read before loading x its fraction, given or its own.
    from harness.results.io import read_results

    host = GpuHost.of("RTX4090")
    install(monkeypatch, host.write(tmp_path / "host"))
    scenario = both_engines_scenario(
        tmp_path, "24g_8b", "{gpu_memory_utilization: [0.80, 0.90], max_num_batched_tokens: [2048]}",
        "{mem_fraction_static: [null, 0.62, 0.80], chunked_prefill_size: [2048, 8192]}",
        "{timeout_s: 30, stop_after: ready}")
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    rows = read_results(out / "results.csv")
    card = host.cards[0]
    assert len(rows) == 8 and (rows["device_name"] == card.name).all()
    for _, row in rows[rows["engine"] == "vllm"].iterrows():
        assert row["kv_tokens"] == _expected_tokens(card.total_mib, card.reserved_mib, row["gpu_memory_utilization"])
    sglang_rows = rows[rows["engine"] == "sglang"]
    # SGLang's own total is the smallest card nvidia-smi lists; its pre-load reading is CUDA's free memory less
    # its context (500 MiB), which the row keeps as the engine's free memory
    assert (sglang_rows["device_total_mib"] == card.total_mib).all()
    pre_gib = (card.total_mib - card.reserved_mib - 500) / 1024
    for _, row in sglang_rows.iterrows():
        fraction = row["mem_fraction_static_effective"]  # as SGLang logged it, given or its own
        assert abs(row["engine_free_mib"] / 1024 - pre_gib) <= 0.005, row.to_dict()
        budget = pre_gib * fraction - 14.99
        if budget <= 0:
            assert row["status"] == "engine_error" and "Loaded weights leave no GPU memory" in row["error_message"]
        else:
            assert row["status"] == "ok" and row["kv_tokens"] == int(budget * (1 << 30) // 131072), row.to_dict()
    default = sglang_rows[sglang_rows["mem_fraction_static"].isna()].set_index("chunked_prefill_size")
    assert default.loc[2048, "mem_fraction_static_effective"] > default.loc[8192, "mem_fraction_static_effective"]
    assert set(sglang_rows[sglang_rows["mem_fraction_static"] == 0.62]["status"]) == {"engine_error"}


def test_the_probe_on_the_gpu_host_measures_each_engines_pool_through_its_own_api(tmp_path, monkeypatch):
    # both fake GPU engines serve their API over the pool they sized (tests/support/serving_api.py): vLLM runs
    # floor(pool / 2048) requests of max_model_len at once and refuses 2,049 tokens; SGLang refuses inputs of
    # context_len - 6 tokens and cuts a full-length request's output to what context_len leaves (0.5.22
    # tp_worker.py:549-553, scheduler.py:2602-2608), as the real SGLang-CPU does (results/cpu_probe)
    from harness.results.io import read_results
    install(monkeypatch, GpuHost.of("RTX4090").write(tmp_path / "host"))
    scenario = both_engines_scenario(tmp_path, "gpu_probe", "{gpu_memory_utilization: [0.9]}",
                                     "{mem_fraction_static: [0.8]}",
                                     "{timeout_s: 60, stop_after: probe, "
                                     "probe: {output_tokens: 16, lengths: [max, 64], shapes: [prompt_heavy]}}")
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    rows = read_results(out / "results.csv").set_index("engine")
    vllm_row, sglang_row = rows.loc["vllm"], rows.loc["sglang"]
    assert (rows["status"] == "ok").all() and (rows["probe_healthy_after"] == "True").all()
    assert (vllm_row["probe_longest_served_tokens"], vllm_row["probe_refused_tokens"]) == (2048, 2049)
    assert "maximum context length is 2048 tokens" in vllm_row["probe_refusal"]
    fits = vllm_row["kv_tokens"] // 2048
    vllm_long, vllm_short = waves_of(vllm_row)["prompt_heavy@2048"], waves_of(vllm_row)["prompt_heavy@64"]
    assert vllm_long["claimed_concurrency"] == round(vllm_row["kv_tokens"] / 2048, 2)
    assert vllm_long["peak_running"] == fits and vllm_long["completed"] == vllm_long["sent"] > fits
    assert vllm_short["peak_running"] == vllm_short["sent"] == 32  # the cap, all at once
    assert (sglang_row["probe_longest_served_tokens"], sglang_row["probe_refused_tokens"]) == (2042, 2043)
    assert "Input length (2042 tokens) exceeds the maximum allowed length (2042 tokens)" in sglang_row["probe_refusal"]
    sglang_long, sglang_short = waves_of(sglang_row)["prompt_heavy@2048"], waves_of(sglang_row)["prompt_heavy@64"]
    assert sglang_long["completed"] == 0 and sglang_long["first_failure"] == "generated 14 of 16 tokens"
    assert sglang_short["completed"] == sglang_short["sent"] == 32
    # the engines' memory through the fake NVML: what each holds on the card, above the card's idle use
    assert (rows["probe_peak_memory_gib"] > 0).all()
