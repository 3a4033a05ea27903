"""Multi-pool records: every pool a startup log states is in `kv_pools`, and `kv_tokens`/`kv_gib` are the engine's
total over them, as each release computes it.

Lines are rendered from each release's own format strings (cited), with made-up numbers.
"""

from __future__ import annotations

import json

from parsers import parse_log, read_log
from parsers.record import KvPool, pools_text
from tests.support.gpu_lines import V13, V19, sglang, vllm
from tests.support.gpu_log_sets import fixture_log

SUMMARY = ("max_total_num_tokens={tokens}, chunked_prefill_size=8192, max_prefill_tokens=16384, "
           "max_running_requests=2048, context_len=32768, available_gpu_mem=5.10 GB")


def kinds(record) -> list[tuple]:
    return [(p.kind, p.name, p.tokens, p.gib) for p in record.kv_pools]


# --- SGLang: a sliding-window model's two pools ----------------------------------------------------------------

def test_sglang_swa_pools_labelled_with_the_engines_own_total():
    # 0.5.23: sglang/srt/model_executor/pool_configurator.py:888 (the split), sglang/srt/mem_cache/memory_pool.py:2088
    # (each sub-pool, labelled "Full" and "SWA" by sglang/srt/mem_cache/swa_memory_pool.py:81 and :92),
    # swa_memory_pool.py:132 (both pools' GiB), sglang/srt/managers/scheduler.py:1269 (max_total_num_tokens: the full
    # pool's tokens, pool_configurator.py:897).
    lines = [
        sglang("Use sliding window memory pool. full_layer_tokens=400000, swa_layer_tokens=320000"),
        sglang("Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 400000, K size: 1.53 GB, V size: 1.53 GB"),
        sglang("SWA KV Cache is allocated. dtype: torch.bfloat16, #tokens: 320000, K size: 6.10 GB, V size: 6.10 GB"),
        sglang("SWAKVPool mem usage: 15.27 GB, swa size: 320000, full size: 400000"),
        sglang(SUMMARY.format(tokens=400000)),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert kinds(record) == [("full", "Full KV Cache", 400_000, 3.06), ("swa", "SWA KV Cache", 320_000, 12.2)]
    assert (record.kv_tokens, record.kv_gib) == (400_000, 15.27)  # the engine's own total (not 3.06 + 12.2)
    assert (record.pool_tokens, record.swa_pool_tokens, record.kv_dtype) == (400_000, 320_000, "torch.bfloat16")
    assert record.status == "ok"


def test_sglang_swa_pools_unlabelled_in_older_releases_add_up():
    # 0.5.2: sglang/srt/model_executor/model_runner.py:1221 announces the split, then SWAKVPool builds the full
    # pool and the SWA pool (sglang/srt/mem_cache/memory_pool.py:749), each printing the one unlabelled wording
    # (:352); no total line: SWAKVPool.get_kv_size_bytes adds them (:771). The summary: scheduler.py:411.
    lines = [
        sglang("Use Sliding window memory pool. full_layer_tokens=100000, swa_layer_tokens=80000"),
        sglang("KV Cache is allocated. #tokens: 100000, K size: 0.38 GB, V size: 0.38 GB"),
        sglang("KV Cache is allocated. #tokens: 80000, K size: 1.53 GB, V size: 1.53 GB"),
        sglang(SUMMARY.format(tokens=100000)),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert kinds(record) == [("full", "KV Cache", 100_000, 0.76), ("swa", "KV Cache", 80_000, 3.06)]
    assert (record.kv_tokens, record.kv_gib, record.pool_tokens, record.swa_pool_tokens) == (
        100_000, 3.82, 100_000, 80_000)


def test_sglang_swa_total_line_alone_still_gives_the_total():
    # 0.5.5 sglang/srt/mem_cache/memory_pool.py:1099 prints the GiB unrounded
    record = parse_log(sglang("SWAKVPool mem usage: 3.0517578125 GB, swa size: 80000, full size: 100000"), "sglang")
    assert (record.kv_gib, record.pool_tokens, record.swa_pool_tokens) == (3.0517578125, 100_000, 80_000)


# --- SGLang: target and draft, and a hybrid model's state ---------------------------------------------------------

def test_sglang_a_second_unlabelled_pool_of_a_rank_is_the_draft_models():
    # A speculative start prints the target's pool, then the draft worker's, in the same wording (0.5.23
    # memory_pool.py:2088), on every rank; the excerpt need not hold the server arguments.
    pool = "KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: {k} GB, V size: {k} GB"
    lines = [sglang(pool.format(k="3.46"), ranks=" TP0"), sglang(pool.format(k="1.08"), ranks=" TP0"),
             sglang(pool.format(k="3.46"), ranks=" TP1"), sglang(pool.format(k="1.08"), ranks=" TP1")]
    record = parse_log("\n".join(lines), "sglang")
    assert kinds(record) == [("kv", "KV Cache", 454_112, 6.92), ("draft", "KV Cache", 454_112, 2.16)]
    assert (record.kv_gib, record.draft_kv_gib, record.pool_tokens) == (6.92, 2.16, 454_112)  # the target's alone


def test_sglang_hybrid_state_pool_is_listed_but_not_kv():
    # 0.5.23 sglang/srt/mem_cache/memory_pool.py:1005 (the state pool, sized in requests), then the KV pool
    lines = [
        sglang("Mamba Cache is allocated. max_mamba_cache_size: 96, conv_state size: 0.12GB, ssm_state size: 1.50GB "),
        sglang("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 200000, K size: 0.75 GB, V size: 0.75 GB"),
        sglang(SUMMARY.format(tokens=200000)),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert [(p.kind, p.name, p.slots, p.gib) for p in record.kv_pools] == [
        ("state", "Mamba Cache", 96, 1.62), ("kv", "KV Cache", None, 1.5)]
    assert (record.kv_tokens, record.kv_gib, record.state_pool_slots, record.state_pool_gib) == (200_000, 1.5, 96, 1.62)


def test_sglang_post_capture_sizing_replaces_the_upper_bound():
    # 0.5.23 memory_pool.py:2088 with post_capture_active ("VA upper bound"), then
    # sglang/srt/model_executor/model_runner_components/kv_pool_runtime.py:190 and :194
    lines = [
        sglang("Full KV Cache VA upper bound. dtype: torch.bfloat16, #tokens: 500000, K size: 1.91 GB, "
               "V size: 1.91 GB"),
        sglang("SWA KV Cache VA upper bound. dtype: torch.bfloat16, #tokens: 400000, K size: 7.63 GB, V size: 7.63 GB"),
        sglang("SWAKVPool VA upper bound: 19.08 GB, swa size: 400000, full size: 500000"),
        sglang("Post-capture KV sizing: full_layer_tokens=450000, swa_layer_tokens=360000"),
        sglang("Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 450000, KV size: 17.17 GB, "
               "avail mem=1.20 GB"),
        sglang(SUMMARY.format(tokens=450000)),
    ]
    record = parse_log("\n".join(lines), "sglang")
    assert kinds(record) == [("kv", "KV cache", 450_000, 17.17)]
    assert (record.kv_tokens, record.kv_gib, record.pool_tokens, record.swa_pool_tokens) == (
        450_000, 17.17, 450_000, 360_000)


# --- vLLM -------------------------------------------------------------------------------------------------

def test_vllm_one_kv_line_is_one_pool_with_the_available_memory():
    lines = [vllm(V13 % "5.73", where="gpu_worker.py:772"), vllm(V19 % ("GPU", "46,928", "8,192", 5.73))]
    record = parse_log("\n".join(lines), "vllm")
    assert kinds(record) == [("kv", "GPU", 46_928, 5.73)]


def test_vllm_kv_lines_of_several_workers_are_sized_to_the_smallest():
    # Up to 0.11.0 the engine core logs a KV line per worker as it sizes each (0.11.0
    # vllm/v1/core/kv_cache_utils.py:1087 and :1091), then gives every worker the smallest block count (:1284):
    # a pipeline-parallel start whose stages differ.
    lines = []
    for tokens, concurrency in (("120,000", 14.65), ("96,000", 11.72)):
        lines += [vllm(f"GPU KV cache size: {tokens} tokens", proc="EngineCore_0", where="kv_cache_utils.py:1087"),
                  vllm(f"Maximum concurrency for 8,192 tokens per request: {concurrency:.2f}x", proc="EngineCore_0",
                       where="kv_cache_utils.py:1091")]
    record = parse_log("\n".join(lines), "vllm")
    assert kinds(record) == [("worker", "GPU (worker 0)", 120_000, None), ("worker", "GPU (worker 1)", 96_000, None)]
    assert (record.kv_tokens, record.max_concurrency, record.num_blocks) == (96_000, 11.72, 6000)
    assert "2 workers" in record.rank_note


def test_vllm_kv_cache_groups_are_listed_with_their_block_sizes():
    # 0.33.0 vllm/v1/core/kv_cache_utils.py:865 (a tuple; a list in 0.30.0 :748), then the KV line (:1148), whose
    # tokens are already the groups' total: they share one pool of blocks.
    lines = [vllm("kv cache group sizes (16, 64)", where="kv_cache_utils.py:865"),
             vllm(V13 % "20.5", where="gpu_worker.py:772"),
             vllm(V19 % ("GPU", "1,048,576", "131,072", 8.0), where="kv_cache_utils.py:1148")]
    record = parse_log("\n".join(lines), "vllm")
    assert [(p.kind, p.name, p.tokens, p.gib, p.block_size) for p in record.kv_pools] == [
        ("kv", "GPU", 1_048_576, 20.5, None), ("group", "group 0", None, None, 16),
        ("group", "group 1", None, None, 64)]
    assert (record.kv_tokens, record.kv_gib, record.kv_cache_groups) == (1_048_576, 20.5, 2)
    # the tokens are a capacity over the groups, not block slots: no block count is derived from them
    assert record.num_blocks is None and record.kv_pools[0].tokens_derived.startswith("max_concurrency x max_model_len")
    record = parse_log(vllm("kv cache group sizes [16, 16, 64]", where="kv_cache_utils.py:748"), "vllm")
    assert record.kv_cache_groups == 3


def test_vllm_device_and_host_pools_are_one_line():
    # 0.33.0 kv_cache_utils.py:1144: " + host" under hisparse; the line's tokens are the smaller of the two limits
    record = parse_log(vllm(V19 % ("GPU + host", "300,000", "8,192", 36.62)), "vllm")
    assert kinds(record) == [("kv", "GPU + host", 300_000, None)]


# --- the pools as text ----------------------------------------------------------------------------------

def test_pools_text_is_json_of_what_each_pool_states():
    pools = [KvPool("full", "Full KV Cache", 400_000, 3.06), KvPool("group", "group 1", block_size=64)]
    assert json.loads(pools_text(pools)) == [
        {"kind": "full", "name": "Full KV Cache", "tokens": 400000, "gib": 3.06},
        {"kind": "group", "name": "group 1", "block_size": 64}]
    assert pools_text([]) is None


def test_the_record_with_its_pools_is_json_serialisable():
    lines = [sglang("Full KV Cache is allocated. dtype: torch.bfloat16, #tokens: 10, K size: 1.00 GB, V size: 1.00 GB")]
    data = json.loads(json.dumps(parse_log("\n".join(lines), "sglang").to_dict()))
    assert data["kv_pools"] == [{"kind": "full", "name": "Full KV Cache", "tokens": 10, "gib": 2.0,
                                 "block_size": None, "slots": None, "tokens_derived": None}]


def test_vllm_padding_layers_say_several_kv_cache_groups_share_the_pool():
    # "Add %d padding layers, may waste at most %.2f%% KV cache memory" (0.18.0 vllm/v1/core/kv_cache_utils.py:1057)
    # is logged only where layers of two or more attention types are split into KV cache groups of one size: the KV
    # line's tokens are a capacity over the groups, and no block count follows from them (gpu-logs-59 vllm/02, an MTP
    # start of Qwen3.6-27B whose block size the window never states)
    record = parse_log(read_log(fixture_log("gpu-logs-59/vllm/02-")), "vllm")
    assert (record.kv_tokens, record.max_concurrency, record.max_model_len) == (359_291, 1.37, 262_144)
    assert record.num_blocks is None
    assert record.kv_pools[0].tokens_derived.endswith("sharing the pool's blocks (padding layers)")
    # without the warning a KV pair is read as one group's: its blocks follow from the block size where some count of
    # 16-token blocks gives its tokens, and the same 359,291 (no multiple of 16) still gives none
    def pair(tokens: str):
        return [vllm(f"GPU KV cache size: {tokens} tokens", proc="EngineCore", where="kv_cache_utils.py:2116"),
                vllm("Maximum concurrency for 262,144 tokens per request: 1.37x", proc="EngineCore",
                     where="kv_cache_utils.py:2117")]
    assert parse_log("\n".join(pair("359,296")), "vllm").num_blocks == 359_296 // 16
    assert parse_log("\n".join(pair("359,291")), "vllm").num_blocks is None


def test_vllm_0_34_pool_sized_after_warm_up_replaces_the_profiled_reservation():
    # 0.34.0's extensible KV cache (on by default on CUDA): "Available KV cache memory" states the reservation made from
    # the profile (0.34.0 vllm/v1/worker/gpu_worker.py:796); after CUDA-graph capture and warm-up each worker logs the
    # blocks that fit the memory it measured (vllm/v1/worker/extensible_kv_cache.py:693-705), the length is fitted
    # again (vllm/v1/core/kv_cache_planning.py:1493-1498) and the pool is committed (extensible_kv_cache.py:536-540)
    # before the KV line (vllm/v1/core/kv_cache_utils.py:1169). Lines rendered from formats/vllm-0.34.0.tsv.
    lines = [
        vllm(V13 % "40.00", where="gpu_worker.py:796"),
        vllm("Auto-fit max_model_len: reduced from 131072 to 100000 to fit in available KV cache memory (40.00 GiB); "
             "the final length is set after CUDA graph capture and warmup", where="kv_cache_planning.py:1479"),
        vllm("Graph capturing finished in 9 secs, took 0.62 GiB", where="model_runner.py:1217"),
        vllm("Memory after warmup: 38.10 GiB free, 0.12 GiB committed to the KV cache, 1.50 GiB kept for transient "
             "activations (1.50 GiB allocated at peak, 0.00 GiB of torch reservation growth); 5000 KV cache blocks "
             "(36.62 GiB) fit within the requested 79.19 GiB. Torch may reserve up to 40.22 GiB.",
             where="extensible_kv_cache.py:693"),
        vllm("--max-model-len auto reduced max_model_len from 100000 to 91552 (36.62 GiB left for the KV cache after "
             "CUDA graph capture and warmup).", where="kv_cache_planning.py:1494"),
        vllm("Extended KV cache to 5000 blocks (36.64 GiB).", where="extensible_kv_cache.py:536"),
        vllm(V19 % ("GPU", "320,000", "91,552", 3.50), where="kv_cache_utils.py:1169"),
    ]
    record = parse_log("\n".join(lines), "vllm")
    assert (record.kv_tokens, record.kv_gib, record.num_blocks) == (320_000, 36.64, 5000)
    assert (record.autofit, record.autofit_from_len, record.max_model_len) == ("reduced", 131_072, 91_552)
    assert (record.requested_memory_gib, record.peak_activation_gib) == (79.19, 1.5)
