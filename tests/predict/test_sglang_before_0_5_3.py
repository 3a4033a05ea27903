"""SGLang 0.4.0-0.5.2 (issue #29): the rules of the releases before the reserve formula, each case checked against
the release's own code (release + file:line beside it), then against real logs of those releases: public GPU logs
(tests/fixtures/predict/sglang-gpu-public, SOURCES.md names each one's source) and this project's CPU runs of 0.5.1
and 0.5.2 (results/sglang_history/releases-0.5.1-0.5.7). A log's pool is checked from the inputs it states (free
memory before and after loading, the fraction): the logs print GB with two decimals, so the pool is known to
within (2 - f) x 0.005 GiB of cells."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from harness.engines.predicting import predict
from harness.engines.sglang import formulas as sg
from harness.predict import load_model_description, model_from_config
from harness.predict.host import HostMemory
from harness.predict.model import GiB
from parsers import parse_log, read_log

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "predict" / "sglang-gpu-public"


@pytest.fixture(scope="module")
def llama8b():
    return load_model_description("meta-llama/Llama-3.1-8B-Instruct")


def _qwen3_0_6b():
    # Qwen/Qwen3-0.6B config.json: 28 layers, 8 KV heads of 128
    return model_from_config({"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "hidden_size": 1024,
                              "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                              "num_hidden_layers": 28, "intermediate_size": 3072, "vocab_size": 151936,
                              "max_position_embeddings": 40960, "torch_dtype": "bfloat16",
                              "tie_word_embeddings": True}, "Qwen/Qwen3-0.6B", "Qwen3-0.6B config.json")


def _fraction(release, mib, tp=1, pp=1, device="cuda"):
    return sg.memory_settings(mib, tp, pp, device=device, release=release).mem_fraction_static


# ---- each rule against the release's code ---------------------------------------------------------------------

def test_0_4_8_to_0_5_2_take_one_minus_the_reserved_mem_table():
    # 0.5.2 sglang/srt/server_args.py:452-498 (0.4.8 :274-316): (2.8 + tp*pp/10) GiB under 35 GiB, (9.5 + tp*pp/2)
    # under 90, (12 + tp*pp/2) under 160, 32 GiB above, rounded to 3 places
    assert _fraction("0.5.2", 24 * 1024) == round(1 - 2.9 * 1024 / (24 * 1024), 3) == 0.879
    assert _fraction("0.4.8", 81559) == round((81559 - 10 * 1024) / 81559, 3) == 0.874
    assert _fraction("0.5.0rc2", 81559, tp=2, pp=2) == round((81559 - 11.5 * 1024) / 81559, 3) == 0.856
    assert _fraction("0.5.1", 143771, tp=8) == round((143771 - 16 * 1024) / 143771, 3) == 0.886
    assert _fraction("0.4.10", 183359, tp=8) == round((183359 - 32 * 1024) / 183359, 3) == 0.821
    settings = sg.memory_settings(81559, 1, release="0.5.2")
    assert settings.reserved_mib == 10 * 1024 and settings.graph_reserve_mib == 0 and settings.prefill_bs == []


def test_0_4_7_tp_x_pp_table_with_its_large_card_rules():
    # 0.4.7 server_args.py:253-283: the table by tp x pp up to 81,920 MiB, 0.79 above 180,000 MiB, and above 96 GiB
    # min(f + 48 GiB x (1 - f) / card, 1 - 18 GiB / card), unrounded
    assert _fraction("0.4.7", 81559) == 0.88 and _fraction("0.4.7", 81559, tp=2, pp=2) == 0.85
    assert _fraction("0.4.7", 81559, tp=8, pp=2) == 0.79
    assert _fraction("0.4.7", 143771) == min(0.88 + 48 * 1024 * 0.12 / 143771, (143771 - 18 * 1024) / 143771)
    assert _fraction("0.4.7", 143771) == pytest.approx(0.87180, abs=1e-5)
    assert _fraction("0.4.7", 183359) == 0.79
    assert _fraction("0.4.7", 90000, tp=4) == 0.88  # between 80 and 96 GiB the table is not read


def test_0_4_6_tp_table_and_13_gib_above_80_gib():
    # 0.4.6 server_args.py:224-238: by tp alone (pp not counted) up to 81,920 MiB, 1 - 13 GiB / card above
    assert _fraction("0.4.6", 81559, tp=4) == 0.85 and _fraction("0.4.6", 81559, tp=2, pp=4) == 0.87
    assert _fraction("0.4.6.post2", 143771) == (143771 - 13 * 1024) / 143771
    # no card size (an XPU: get_device_memory_capacity reads none, 0.4.6 utils.py:1173-1184): `None <= 81920`
    # stops it (0.4.6 :225)
    assert _fraction("0.4.6", None) is None and _fraction("0.4.6", 16 * 1024, device="xpu") is None
    assert sg.memory_settings(None, release="0.4.6", mem_fraction_static=0.8).mem_fraction_static == 0.8
    p = predict("sglang", {"device": "xpu"}, load_model_description("builtin:tiny-llama"), 16 * 1024,
                engine_version="0.4.6")
    assert p.will_start is False and "TypeError: '<=' not supported" in p.reason


def test_0_4_0_to_0_4_5_tp_table_alone():
    # 0.4.5 server_args.py:233-243, 0.4.0 :158-168: 0.88 / 0.87 / 0.85 / 0.81 / 0.79 at tp 1 / 2 / 4 / 8 / 16
    assert [_fraction("0.4.5", 143771, tp=tp) for tp in (1, 2, 4, 8, 16)] == [0.88, 0.87, 0.85, 0.81, 0.79]
    assert _fraction("0.4.0", 24 * 1024, tp=2) == 0.87 and _fraction("0.4.3", 183359) == 0.88
    # the table does not read the card: no size gives it too (0.4.5 :233-243; 0.88 in 0.4.7-0.5.2 at any tp)
    assert _fraction("0.4.5", None, tp=4) == 0.85 and _fraction("0.4.7", None, tp=4) == _fraction("0.5.2", None, tp=4)
    assert _fraction("0.5.2", None, tp=4) == 0.88


@pytest.mark.parametrize("release, mib, chunk", [
    ("0.5.2", 24 * 1024, 2048), ("0.5.2", 34 * 1024, 2048), ("0.5.2", 81559, 8192), ("0.5.2", 183359, 16384),
    ("0.5.2", None, 4096),  # 0.5.2 server_args.py:509-518
    ("0.4.7", 24_999, 2048), ("0.4.7", 25_000, 8192), ("0.4.7", 183359, 16384), ("0.4.7", None, 8192),  # :286-295
    ("0.4.6", 25_600, 8192), ("0.4.6", 183359, 8192), ("0.4.0", 23034, 2048),  # 0.4.6 :241-245, 0.4.0 :171-175
])
def test_default_chunked_prefill_size_before_0_5_3(release, mib, chunk):
    assert sg.memory_settings(mib, 1, release=release).chunked_prefill_size == chunk


@pytest.mark.parametrize("release, mib, tp, max_bs", [
    ("0.5.2", 34 * 1024, 1, 8), ("0.5.2", 34 * 1024, 4, 80), ("0.5.2", 81559, 1, None),  # 0.5.2 :521-527
    ("0.4.7", 30_000, 1, None), ("0.4.6", 24_000, 4, 80),  # 0.4.6 :260-266: under 25,000 MiB, else the runner's
    ("0.4.5", 81559, 1, 160), ("0.4.1", 23034, 4, 80),  # 0.4.5 :260-268, 0.4.1 :190-198
    ("0.4.0", 23034, 4, 8), ("0.4.0", 81559, 8, 160),  # 0.4.0 :178-182
])
def test_default_cuda_graph_max_bs_before_0_5_3(release, mib, tp, max_bs):
    assert sg.memory_settings(mib, tp, release=release).decode_max_bs == max_bs


def test_request_pool_one_slot_larger_up_to_0_4_6():
    # 0.4.6 model_runner.py:795 size=max_num_reqs + 1, tp_worker min(tokens // 2, pool size); 0.4.7 :926
    assert sg.resolve_max_num_reqs(444_500, 131072, release="0.4.6") == 2049
    assert sg.resolve_max_num_reqs(444_500, 131072, release="0.4.7") == 2048
    assert sg.resolve_max_num_reqs(3_000, 512, release="0.4.0") == 1500  # half the pool is smaller
    assert sg.resolve_max_num_reqs(444_500, 131072, 16, release="0.4.0") == 16  # given: used as is


def test_estimate_after_the_cap_in_0_4_0_and_0_4_1():
    # 0.4.1 model_runner.py:519-535 estimates from the capped pool; 0.4.2 :585-613 from the profiled one
    # 10,000 tokens under --max-total-tokens at context 4096: 1250 -> 2048 (+ 1); 1,000,000 profiled: 4096 (+ 1)
    assert sg.resolve_max_num_reqs(10_000, 4096, release="0.4.1", profiled_tokens=1_000_000) == 2049
    assert sg.resolve_max_num_reqs(10_000, 4096, release="0.4.2", profiled_tokens=1_000_000) == 4097
    assert sg.resolve_max_num_reqs(10_000, 4096, release="0.4.7", profiled_tokens=1_000_000) == 4096


def test_pages_from_0_4_4_and_the_zero_request_check_from_0_4_6():
    rest = 1000 * 512 / (1 << 30)  # 1000 cells of 512 bytes
    # 0.4.4 model_runner.py:708-712 rounds to pages; 0.4.3 has no --page-size
    assert sg.size_pool(rest, 512, 4096, page_size=64, release="0.4.4").max_total_num_tokens == 960
    assert sg.size_pool(rest, 512, 4096, page_size=64, release="0.4.3").max_total_num_tokens == 1000
    one = 1 * 512 / (1 << 30)
    # a one-token pool: half of it is 0 requests, its own assertion from 0.4.6 (tp_worker.py:119), before only
    # "Memory pool size is too small"
    assert sg.size_pool(one, 512, 4096, release="0.4.6").error == "G4: max_running_request is zero"
    assert sg.size_pool(one, 512, 4096, release="0.4.5").error == "G3: Memory pool size is too small"


def test_not_enough_memory_says_no_more_before_0_5_3():
    # 0.5.2 model_runner.py:1317-1319; 0.5.3 :1495-1499 appends the fraction
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.2").error == (
        "G2: Not enough memory. Please try to increase --mem-fraction-static.")
    assert sg.size_pool(-0.1, 512, 512, mem_fraction_static=0.1, release="0.5.3").error.endswith(
        "Current value: self.server_args.mem_fraction_static=0.1")


def test_longer_context_allowed_by_default_in_0_4_4_to_0_5_0(llama8b):
    # get_bool_env_var(..., default="True") in 0.4.4 configs/model_config.py:83-85 to 0.5.0rc2 :169-171; 0.4.3 :73
    # and 0.5.1 :176 refuse unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is set
    def run(release, env=None):
        return predict("sglang", {"context_length": 200_000}, llama8b, 81559, engine_version=release, env=env)

    for release in ("0.4.4", "0.4.6", "0.5.0rc2"):
        p = run(release)
        assert p.will_start and p.context_len == 200_000, release
        assert not run(release, {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "false"}).will_start
    for release in ("0.4.3", "0.5.1", "0.5.2"):
        assert not run(release).will_start and "greater than the derived" in run(release).reason, release
        assert run(release, {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}).will_start


def test_the_predicted_range_reaches_0_4_0_and_the_cpu_engine_0_4_8(llama8b):
    assert predict("sglang", {}, llama8b, 81559, engine_version="0.4.0").modelled
    old = predict("sglang", {}, llama8b, 81559, engine_version="0.3.6")
    assert not old.modelled and "models sglang 0.4.0 up to 0.5.24 (excluded)" in old.reason
    # the CPU engine (SGLANG_USE_CPU_ENGINE) comes with 0.4.8 (0.4.8 sglang/srt/utils.py:173)
    tiny = load_model_description("builtin:tiny-llama")
    cpu = {"device": "cpu", "max_total_tokens": 4096, "context_length": 512}
    p = predict("sglang", cpu, tiny, 24105, device="cpu", engine_version="0.4.8")
    assert p.modelled and p.mem_fraction_static == 0.88 and p.chunked_prefill_size == 4096  # no CPU size
    assert not predict("sglang", cpu, tiny, 24105, device="cpu", engine_version="0.4.7").modelled


def test_cpu_reads_no_size_and_the_whole_hosts_free_memory_before_0_5_2():
    host = HostMemory(meminfo_total_bytes=64 * GiB, numa_nodes=2, node_total_kib=(32 * 1024 * 1024,) * 2,
                      meminfo_available_bytes=40 * GiB)
    # no CPU branch in get_device_memory_capacity up to 0.5.2 (0.5.2 sglang/srt/utils.py:1406-1419)
    assert sg.cpu_memory_capacity_mib(host, "0.5.2") is None and sg.cpu_memory_capacity_mib(host, "0.5.3") == 32768
    assert sg.memory_settings(24105, device="cpu", release="0.5.2").mem_fraction_static == 0.88
    assert sg.memory_settings(24105, device="xpu", release="0.5.2").mem_fraction_static == 0.88
    # psutil's available memory, per NUMA node from 0.5.2 (0.5.2 utils.py:435-439; 0.5.1 :413-415 the whole host)
    assert sg.cpu_free_memory_mib(host, "0.5.1") == 40 * 1024 and sg.cpu_free_memory_mib(host, "0.5.2") == 20 * 1024
    assert sg.cpu_device_memory(host, "0.5.1").free_mib == 40 * 1024


# ---- against public GPU logs of those releases -----------------------------------------------------------------

def _server_arg(name: str, key: str) -> str:
    return re.search(rf"\b{key}=([^,)]+)", read_log(FIXTURES / name)).group(1)


def _pool_from_logged_inputs(record, cell: int, release: str, fraction: float):
    """The pool SGLang sized from what the log states: rest = after loading - before loading x (1 - f)
    (0.4.0 model_runner.py:466-468, 0.5.2 :1123-1125), and how many tokens the two-decimal readings hide."""
    before, after = record.avail_mem_before_load_gib, record.avail_mem_after_load_gib
    _, rest = sg.rest_memory_gib(fraction, before - after, before, before)
    pool = sg.size_pool(rest, cell, record.context_len, release=release)
    return pool, math.ceil(0.005 * (2 - fraction) * (1 << 30) / cell)


# (log, releases it may be, card MiB, tp, model): 01's card is an H100 80GB (81,559 MiB); 02's four L4 (23,034 MiB)
# run QwQ-32B, Qwen2.5-32B's shape (64 layers, 8 KV heads); 06's R1-Distill-Qwen-7B has Qwen2.5-7B's (28 layers,
# 4 KV heads) on an RTX 3090 (24,576 MiB); 04's card is not named (3.23 GB free): any under 25,000 MiB. The two
# stand-ins have the cells of the logged models but not their context (131,072; the cards' is 32,768).
GPU_LOGS = [
    ("01-h100-llama31-8b-docs-0.4.1.log", ("0.4.1", "0.4.2"), 81559, 1, "meta-llama/Llama-3.1-8B-Instruct"),
    ("02-l4x4-qwq32b-tp4-0.4.3.log", ("0.4.3",), 23034, 4, "Qwen/Qwen2.5-32B-Instruct"),
    ("04-wsl-qwen3-0.6b-0.4.6.log", ("0.4.6.post2",), 8 * 1024, 1, "Qwen/Qwen3-0.6B"),
    ("04-wsl-qwen3-0.6b-0.4.6.log", ("0.4.6.post2",), 24_000, 1, "Qwen/Qwen3-0.6B"),
    ("06-rtx3090-r1distill-qwen7b-dockerdesktop.log", ("0.4.2",), 24576, 1, "Qwen/Qwen2.5-7B-Instruct"),
]


@pytest.mark.parametrize("name, releases, mib, tp, model_name", GPU_LOGS, ids=str)
def test_public_gpu_logs_of_0_4_x_are_what_the_predictor_gives(name, releases, mib, tp, model_name):
    record = parse_log(read_log(FIXTURES / name), "sglang")
    model = _qwen3_0_6b() if model_name == "Qwen/Qwen3-0.6B" else load_model_description(model_name)
    cell = model.kv_bytes_per_token("auto", tp)
    for release in releases:
        p = predict("sglang", {"tp_size": tp}, model, mib, engine_version=release)
        assert p.modelled, p.reason
        assert p.mem_fraction_static == record.mem_fraction_static_effective, release
        assert p.chunked_prefill_size == record.chunked_prefill_size_effective, release
        assert p.cuda_graph_max_bs == int(_server_arg(name, "cuda_graph_max_bs")), release
        assert p.context_len == record.context_len or model_name.startswith("Qwen/Qwen2.5"), release
        pool, hidden = _pool_from_logged_inputs(record, cell, release, p.mem_fraction_static)
        assert abs(pool.max_total_num_tokens - record.kv_tokens) <= hidden, (release, pool.max_total_num_tokens)
        assert pool.max_running_requests == record.max_running_requests == 2049, release


def test_public_gpu_log_of_0_4_10_or_0_5_0_takes_no_extra_request_slot():
    # 03: RTX 5080 (16,303 MiB), Qwen3-0.6B, defaults: max_running_requests 2048 (0.4.7+ request pool), chunk 2048
    # and captured bs [1, 2, 4, 8] (under 35 GiB, tp 1); the log states no pre-load reading, so no pool check
    record = parse_log(read_log(FIXTURES / "03-rtx5080-qwen3-0.6b.log"), "sglang")
    for release in ("0.4.10", "0.5.0rc2"):
        p = predict("sglang", {}, _qwen3_0_6b(), 16303, engine_version=release)
        assert (p.chunked_prefill_size, p.cuda_graph_max_bs) == (record.chunked_prefill_size_effective, 8)
        assert sg.resolve_max_num_reqs(record.kv_tokens, record.context_len, release=release) == \
            record.max_running_requests == 2048
        # the 0.4.8-0.5.2 table: 1 - 2.9 GiB / 16,303 MiB
        assert p.mem_fraction_static == 0.818


def test_public_gpu_log_of_0_4_0_has_the_extra_request_slot():
    # 22 (Mistral-7B, ~0.4.0): 56,524 tokens at context 32,768 -> estimate 2048, the pool's extra slot makes 2049
    record = parse_log(read_log(FIXTURES / "22-mistral7b-0.4.0-2468.log"), "sglang")
    assert sg.resolve_max_num_reqs(record.kv_tokens, record.context_len, release="0.4.0") == \
        record.max_running_requests == 2049


def test_public_gpu_log_of_0_4_2_or_0_4_3_says_not_enough_memory_as_the_predictor_does():
    # 14 (DeepSeek-R1, tp 4, ~0.4.2-0.4.3): a pool of no tokens is the bare "Not enough memory" (0.4.2
    # model_runner.py:615-618), the predictor's G2 word for word
    record = parse_log(read_log(FIXTURES / "14-tp4-notenough-tke-dsr1.log"), "sglang")
    for release in ("0.4.2", "0.4.3"):
        error = sg.size_pool(-0.1, 512, 4096, mem_fraction_static=0.9, release=release).error
        assert record.error_message == "RuntimeError: " + error.removeprefix("G2: ")
