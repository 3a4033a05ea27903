"""GPU protocol (DESIGN.md §7) driven by fake NVML readings and a fake clock."""

from __future__ import annotations

import pytest

from harness.execute.gpu import GpuBusyError, GpuState, nvml_reader, wait_for_release, wait_until_idle


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
    with pytest.raises(GpuBusyError, match=r"GPU 1 has 20480 MiB in use.*--wait-for-idle-gpu"):
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
    assert wait_for_release(gpus, baseline, timeout_s=60, poll_s=1, stable_polls=3, clock=clock, sleep=clock.sleep) is None
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
