"""`doctor SCENARIO` on the GPU host stand-in (tests/support/gpu_host) and on this CPU host: what would stop
a run, in seconds, without launching anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from tests.support.fake_env import OK_LOG, make_fake_env
from tests.support.gpu_host import GpuHost, install


def _scenario(tmp_path: Path, python: Path, memory_gib="24", tp: int = 1) -> Path:
    path = tmp_path / "gpu.yaml"
    path.write_text(f"""
name: gpu
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: {memory_gib}}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    args: {{tensor_parallel_size: {tp}}}
    sweep: {{max_num_batched_tokens: [256]}}
""")
    return path


def _doctor(capsys, scenario: Path) -> tuple[int, dict[str, dict]]:
    rc = main(["doctor", str(scenario), "--json"])
    return rc, {c["check"]: c for c in json.loads(capsys.readouterr().out)}


def _env(tmp_path, cuda="12.8"):
    return make_fake_env(tmp_path / "env", {256: ["--log", str(OK_LOG)]}, torch_version="2.9.1", torch_cuda=cuda)


@pytest.mark.parametrize("card", ["A100-80GB", "RTX4090-desktop", "L4"])
def test_an_idle_card_of_any_kind_passes_and_says_what_it_holds_back(tmp_path, monkeypatch, capsys, card):
    install(monkeypatch, GpuHost.of(card).write(tmp_path / "host"))
    rc, checks = _doctor(capsys, _scenario(tmp_path, _env(tmp_path), memory_gib="80" if card == "A100-80GB" else "24"))
    assert rc == 0, checks
    assert checks["GPU 0 idle"]["verdict"] == "ok" and "0 MiB held by other processes" in checks["GPU 0 idle"]["detail"]
    assert checks["card class"]["verdict"] == "ok"
    assert "(CUDA 12.8; driver supports 12.8)" in checks["env vllm 0.32.0"]["detail"]


def test_a_cuda_13_env_on_a_cuda_12_driver_fails_naming_both(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("A100-80GB", cuda_driver_version=12040, driver_version="550.54.15")
            .write(tmp_path / "host"))
    rc, checks = _doctor(capsys, _scenario(tmp_path, _env(tmp_path, cuda="13.0"), memory_gib="80"))
    assert rc == 1
    env = checks["env vllm 0.32.0"]
    assert env["verdict"] == "FAIL" and "needs an NVIDIA driver for CUDA 13" in env["detail"] \
        and "driver 550.54.15 supports CUDA 12.4" in env["detail"]


def test_a_busy_card_and_a_point_wider_than_the_host_fail(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("L4").busy(0, 777, 6000).write(tmp_path / "host"))
    rc, checks = _doctor(capsys, _scenario(tmp_path, _env(tmp_path), tp=2))
    assert rc == 1
    assert checks["GPU 0 idle"]["verdict"] == "FAIL"
    assert "6,000 MiB held by other processes" in checks["GPU 0 idle"]["detail"]
    assert checks["gpu count"]["verdict"] == "FAIL" and "needs 2 GPU(s)" in checks["gpu count"]["detail"]


def test_a_card_of_another_class_warns_without_failing(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("A100-80GB").write(tmp_path / "host"))
    rc, checks = _doctor(capsys, _scenario(tmp_path, _env(tmp_path)))
    assert rc == 0 and checks["card class"]["verdict"] == "warn"


def test_a_gpu_scenario_on_a_cpu_host_and_a_missing_env_fail(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("L4").write(tmp_path / "host"))
    monkeypatch.setenv("KVH_FAKE_GPU_HOST", str(tmp_path / "no-driver.json"))
    scenario = _scenario(tmp_path, tmp_path / "no-such-python")
    rc, checks = _doctor(capsys, scenario)
    assert rc == 1
    assert checks["device"]["verdict"] == "ok" and checks["device"]["detail"].startswith("CPU")
    assert checks["scenario device"]["verdict"] == "FAIL"
    assert checks["env vllm 0.32.0"]["verdict"] == "FAIL" and "does not exist" in checks["env vllm 0.32.0"]["detail"]


def _free_disk(monkeypatch, free_gib: float) -> None:
    """A host whose cache disk has `free_gib` free (the only reading of the host's disk doctor makes)."""
    import shutil

    from harness.execute import preflight

    usage = shutil.disk_usage("/")
    monkeypatch.setattr(preflight.shutil, "disk_usage",
                        lambda _path: type(usage)(usage.total, usage.total - int(free_gib * (1 << 30)),
                                                  int(free_gib * (1 << 30))))


def test_every_env_installed_needs_no_disk_however_little_is_free(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("L4").write(tmp_path / "host"))
    _free_disk(monkeypatch, 5)
    rc, checks = _doctor(capsys, _scenario(tmp_path, _env(tmp_path)))
    assert rc == 0, checks
    assert checks["disk"]["verdict"] == "ok" and "5.0 GiB free" in checks["disk"]["detail"]


def test_an_env_to_install_is_weighed_against_the_free_disk(tmp_path, monkeypatch, capsys):
    """No `python:` and an empty cache: run installs the SGLang env first, whose recipe says ~11 GiB."""
    install(monkeypatch, GpuHost.of("L4").write(tmp_path / "host"))
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    scenario = tmp_path / "sg.yaml"
    scenario.write_text("""
name: sg
model: {builtin: tiny-llama}
gpu: {memory_gib: 24}
engines:
  sglang:
    version: "0.5.22"
    sweep: {mem_fraction_static: [0.8]}
""")
    _free_disk(monkeypatch, 5)
    rc, checks = _doctor(capsys, scenario)
    assert rc == 1
    disk = checks["disk"]
    assert disk["verdict"] == "FAIL" and "sglang 0.5.22 env ~11.0 GiB" in disk["detail"] \
        and "6.0 GiB short" in disk["detail"] and "KV_HARNESS_CACHE_DIR" in disk["detail"]
    _free_disk(monkeypatch, 40)
    assert _doctor(capsys, scenario)[1]["disk"]["verdict"] == "ok"


def test_a_relative_model_dir_is_a_directory_not_a_hub_id(tmp_path, monkeypatch, capsys):
    install(monkeypatch, GpuHost.of("L4").write(tmp_path / "host"))
    (tmp_path / "models" / "mine").mkdir(parents=True)
    (tmp_path / "models" / "mine" / "config.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    path = _scenario(tmp_path, _env(tmp_path))
    path.write_text(path.read_text().replace("{builtin: tiny-llama}", "models/mine"))
    rc, checks = _doctor(capsys, path)
    assert checks["model"]["verdict"] == "ok" and checks["model"]["detail"].startswith(str(tmp_path / "models"))
    path.write_text(path.read_text().replace("models/mine", "models/mine/missing"))
    rc, checks = _doctor(capsys, path)
    assert rc == 1 and checks["model"]["verdict"] == "FAIL" and "no such directory" in checks["model"]["detail"]


def test_no_free_local_port_fails_naming_the_fix(tmp_path, monkeypatch, capsys):
    """A host where nothing can listen on loopback (every bind refused, scripted)."""
    import socket

    install(monkeypatch, GpuHost.of("L4").write(tmp_path / "host"))
    scenario = _scenario(tmp_path, _env(tmp_path))

    def refuse(_self, _address):
        raise OSError(98, "Address already in use")

    monkeypatch.setattr(socket.socket, "bind", refuse)
    rc, checks = _doctor(capsys, scenario)
    assert rc == 1 and checks["port"]["verdict"] == "FAIL"
    assert "no free local port at or below 65535" in checks["port"]["detail"] and "ss -ltn" in checks["port"]["detail"]
