"""Typed points: values parsed once by their flag's type; engine releases spelled one way; compile caches."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

import pytest

from harness.commands.common_args import engine_release
from harness.errors import InputError
from harness.execute.point_run import PointJob, compile_cache_dir
from harness.scenario import expand, parse_scenario


def _points(sweep: dict) -> list:
    return expand(parse_scenario({"name": "s", "model": "m",
                                  "engines": {"vllm": {"version": "0.32.0", "sweep": sweep}}}))


def test_settings_are_typed_once_and_the_engine_gets_the_scenarios_spelling():
    (point,) = _points({"max_model_len": ["32k"], "gpu_memory_utilization": [1], "kv_cache_memory_bytes": ["1G"]})
    assert point.settings["max_model_len"] == 32_000
    assert point.settings["gpu_memory_utilization"] == 1.0
    assert isinstance(point.settings["gpu_memory_utilization"], float)
    assert point.settings["kv_cache_memory_bytes"] == 1 << 30
    assert point.args["max_model_len"] == "32k" and point.args["kv_cache_memory_bytes"] == "1G"
    assert point.name == f"{point.point_id}-0"
    assert point.label == "max_model_len=32k gpu_memory_utilization=1 kv_cache_memory_bytes=1G"


def test_auto_max_model_len_is_minus_one_and_null_stays_the_engine_default():
    auto, default = _points({"max_model_len": ["auto", None]})
    assert auto.settings["max_model_len"] == -1
    assert default.settings["max_model_len"] is None and "max_model_len" not in default.passed_args()


def test_engine_release_spelling(caplog):
    assert engine_release("vllm==0.31.0") == ("vllm", "0.31.0")
    assert not caplog.records
    with caplog.at_level(logging.WARNING):
        assert engine_release("sglang=0.5.21") == ("sglang", "0.5.21")
    assert "write it sglang==0.5.21" in caplog.text
    with pytest.raises(InputError, match="expected ENGINE==VERSION"):
        engine_release("vllm")
    with pytest.raises(InputError, match="unknown engine"):
        engine_release("vlm==1.0")


def test_cold_cache_is_per_point_and_warm_is_shared_and_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    job = PointJob(run_id="r", run_dir=tmp_path / "run", envs={}, model_path="m", stop_after="kv", timeout_s=1,
                   wait_for_idle_gpu_s=0, keep_work_dirs=False, device="cpu")
    work = tmp_path / "run" / "work" / "p-0"
    assert compile_cache_dir(job, "vllm", "0.32.0", work) == (work / "cache", "cold")
    job = dataclasses.replace(job, compile_cache="warm")
    shared, state = compile_cache_dir(job, "vllm", "0.32.0", work)
    assert state == "cold" and shared == tmp_path / "cache" / "compile-cache" / "vllm-0.32.0"
    (shared / "inductor").mkdir()
    assert compile_cache_dir(job, "vllm", "0.32.0", Path("other")) == (shared, "warm")


def test_a_runs_gpu_baseline_reading_feeds_the_sglang_prediction():
    # SGLang sizes its pool from the free memory it finds before loading, so a card already holding
    # 4 GiB gives a smaller predicted pool than the empty card; vLLM's budget is the card total's.
    from harness.execute.point_run import predictor
    from harness.predict.host import DeviceMemory
    from harness.scenario import Point

    point = Point.of(scenario="s", engine="sglang", engine_version="0.5.22", model="Llama-3.1-8B-Instruct",
                     point_id="p", repeat=0, args={"mem_fraction_static": 0.8}, knobs={})
    predict = predictor(point, "Llama-3.1-8B-Instruct", "cuda")
    empty = predict(DeviceMemory(total_mib=24576, free_mib=24576, basis="NVML free memory before the launch"))
    busy = predict(DeviceMemory(total_mib=24576, free_mib=20480, basis="NVML free memory before the launch"))
    assert busy.kv_tokens < empty.kv_tokens


def test_a_preload_the_engine_inherits_from_the_harness_reaches_the_cpu_prediction(monkeypatch):
    # vLLM's CPU image sets LD_PRELOAD to tcmalloc for every process; the engine inherits it (process_env lays the
    # point's env over ours), so the prediction at launch must read it too - unless the point sets its own
    from harness.execute.point_run import predictor
    from harness.predict.host import DeviceMemory
    from harness.scenario import Point

    def r_basis(env: dict[str, str]) -> str:
        point = Point.of(scenario="s", engine="vllm", engine_version="0.32.0", model="builtin:llama-0.4gb",
                         point_id="p", repeat=0, args={"gpu_memory_utilization": 0.15, "max_model_len": 512,
                                                       "dtype": "float16"}, knobs={}, env=env)
        reading = DeviceMemory(total_mib=24105.26, free_mib=20000, basis="the NUMA node")
        return predictor(point, "builtin:llama-0.4gb", "cpu")(reading).estimates["R"].basis

    monkeypatch.delenv("LD_PRELOAD", raising=False)
    assert "tcmalloc" not in r_basis({})
    monkeypatch.setenv("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4")
    assert "tcmalloc (LD_PRELOAD) keeps of the warm-up" in r_basis({})
    assert "tcmalloc" not in r_basis({"LD_PRELOAD": "/opt/venv/lib/libiomp5.so"})
