"""GPU protocol (DESIGN.md §7) driven by fake NVML readings and a fake clock, and NVML's reader over the
GPU host stand-in (tests/support/gpu_host: NVML's v1/v2 memory semantics, processes, display servers)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import EXIT_USAGE
from harness.execute.gpu import (
    GpuBusyError,
    GpuState,
    in_card_class,
    nvml_reader,
    wait_for_release,
    wait_until_idle,
)
from tests.support.gpu_host import CARDS, GpuHost, install

# What the harness's own readers returned on a real H100 (results/gpu_baseline/h100-torch2.11-cu130/README.md)
REAL_H100 = Path(__file__).resolve().parents[2] / "results" / "gpu_baseline" / "h100-torch2.11-cu130" / "readings.json"


class FakeGpus:
    """Used MiB per GPU follows a script: one list entry per read; the last repeats."""

    def __init__(self, scripts: dict[int, list[float]]):
        self.scripts = {i: list(s) for i, s in scripts.items()}
        self.reads = 0

    def __call__(self, index: int) -> GpuState:
        self.reads += 1
        script = self.scripts[index]
        used = script.pop(0) if len(script) > 1 else script[0]
        return GpuState(index, "Fake H100", 81559.0, used, "550.54")


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_idle_gpu_gives_the_baseline():
    baseline = wait_until_idle(FakeGpus({0: [300.0]}), [0])
    assert baseline[0].used_mib == 300.0 and baseline[0].name == "Fake H100"


def test_busy_gpu_is_refused_at_once_naming_the_memory():
    with pytest.raises(GpuBusyError, match=r"GPU 1 has 20480 MiB in use by other processes.*--wait-for-idle-gpu"):
        wait_until_idle(FakeGpus({0: [0.0], 1: [20480.0]}), [0, 1])


def test_wait_for_idle_waits_until_free_within_the_bound():
    clock = FakeClock()
    gpus = FakeGpus({0: [20480.0, 20480.0, 100.0]})
    baseline = wait_until_idle(gpus, [0], wait_s=10, poll_s=2, clock=clock, sleep=clock.sleep)
    assert baseline[0].used_mib == 100.0 and clock.now == 4


def test_wait_for_idle_gives_up_after_the_bound():
    clock = FakeClock()
    with pytest.raises(GpuBusyError):
        wait_until_idle(FakeGpus({0: [20480.0]}), [0], wait_s=5, poll_s=2, clock=clock, sleep=clock.sleep)
    assert clock.now == 6


def test_release_needs_consecutive_stable_polls_at_baseline():
    clock = FakeClock()
    baseline = {0: GpuState(0, "Fake", 81559.0, 300.0, "x")}
    # EngineCore outlives its API server: memory drops, bounces back, then settles.
    gpus = FakeGpus({0: [70000.0, 300.0, 9000.0, 310.0, 320.0, 300.0]})
    assert wait_for_release(gpus, baseline, timeout_s=60, poll_s=1, stable_polls=3, clock=clock,
                            sleep=clock.sleep) is None
    assert gpus.reads == 6


def test_release_timeout_is_reported_not_raised():
    clock = FakeClock()
    baseline = {0: GpuState(0, "Fake", 81559.0, 300.0, "x")}
    note = wait_for_release(FakeGpus({0: [5000.0]}), baseline, timeout_s=3, poll_s=1, clock=clock, sleep=clock.sleep)
    assert note == "GPU memory not released within 3 s: GPU 0 at 5000 MiB vs baseline 300 MiB"


def test_no_nvidia_gpu_here_means_protocol_skipped():
    # This project's CI machines have no NVIDIA driver; on a GPU host this reader is real.
    import shutil

    if shutil.which("nvidia-smi"):
        pytest.skip("host has an NVIDIA driver")
    assert nvml_reader() is None


# ---- NVML's reader on the GPU host stand-in ----------------------------------------------------------

def _reader(monkeypatch, tmp_path, host: GpuHost):
    install(monkeypatch, host.write(tmp_path))
    read = nvml_reader()
    assert read is not None
    return read


@pytest.mark.parametrize("nvml_v2", [True, False], ids=["memory-info-v2", "driver-before-510"])
def test_an_idle_datacenter_card_is_idle_though_its_driver_reserves_memory(monkeypatch, tmp_path, nvml_v2):
    # NVML v1 counts the driver's ~870 MiB on an idle A100-80GB as used: above the 512 MiB threshold
    read = _reader(monkeypatch, tmp_path, GpuHost.of("A100-80GB", nvml_v2=nvml_v2))
    state = wait_until_idle(read, [0])[0]
    assert (state.used_mib, state.reserved_mib, state.others_mib) == (870, 870, 0)
    assert state.total_mib == 81920 and state.name == "NVIDIA A100-SXM4-80GB"


def test_a_real_idle_h100_is_idle_of_its_class_and_the_stand_in_reads_such_a_card_alike(monkeypatch, tmp_path):
    real = json.loads(REAL_H100.read_text())["harness"]
    state = GpuState(**real["nvml"])
    assert wait_until_idle(lambda index: state, [0])[0].others_mib == 0
    assert in_card_class(state.total_mib, 80)
    # vLLM sizes from cudaMemGetInfo's total: NVML's less the driver's reservation (harness/execute/cuda_reading.py)
    assert real["cuda_total_mib"] == state.total_mib - state.reserved_mib
    # the stand-in's H100 with this driver's reservation (480 MiB on 580, where its public nvidia-smi had 552)
    card = replace(CARDS["H100-80GB"], reserved_mib=int(state.reserved_mib))
    host = GpuHost((card,), driver_version=state.driver_version, cuda_driver_version=real["driver_versions"][1])
    assert _reader(monkeypatch, tmp_path, host)(0) == state


def test_a_card_that_drives_a_desktop_is_idle_and_its_display_is_counted_in_use(monkeypatch, tmp_path):
    read = _reader(monkeypatch, tmp_path, GpuHost.of("RTX4090-desktop"))
    state = wait_until_idle(read, [0])[0]
    assert (state.display_mib, state.others_mib) == (770, 0)
    assert state.used_mib == 348 + 770  # the row's "busy before" keeps it: the engine cannot use it


@pytest.mark.parametrize("nvml_v2", [True, False], ids=["memory-info-v2", "driver-before-510"])
def test_another_job_on_the_card_is_busy_and_that_is_not_a_harness_failure(monkeypatch, tmp_path, nvml_v2):
    read = _reader(monkeypatch, tmp_path, GpuHost.of("L4", "A100-80GB", nvml_v2=nvml_v2).busy(1, 4242, 3000))
    assert wait_until_idle(read, [0])[0].others_mib == 0
    with pytest.raises(GpuBusyError,
                       match=r"^GPU busy before launch: GPU 1 has 3000 MiB in use by other processes;") as caught:
        wait_until_idle(read, [0, 1])
    assert caught.value.exit_code == EXIT_USAGE


def test_a_reader_without_a_driver_is_none(monkeypatch, tmp_path):
    install(monkeypatch, GpuHost.of("L4").write(tmp_path))
    monkeypatch.setenv("KVH_FAKE_GPU_HOST", str(tmp_path / "no-such-host.json"))  # libnvidia-ml not found
    assert nvml_reader() is None
