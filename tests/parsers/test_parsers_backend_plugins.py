"""Backend plugins' own memory lines, on real log lines where a public one was found, else in the shape the source
prints (harness/engines/vllm/forks/*.tsv name the source of each wording)."""

from __future__ import annotations

from parsers import make_parser, parse_log, read_log
from tests.support.gpu_log_sets import FIXTURES


def read(engine: str, lines: list[str]):
    parser = make_parser(engine)
    parser.feed_lines(lines)
    parser.close()
    return parser.record


# vLLM's own HPU worker (0.5-0.9.x), as its Gaudi guide quotes a server's startup: vllm-project/vllm
# docs/source/getting_started/gaudi-installation.rst at 58f89a090b6a4a645183eb0049435e15ba1bf301 ("Each described step
# is logged by vLLM server, as follows")
GAUDI_GUIDE = [
    ("INFO 08-02 17:37:52 hpu_model_runner.py:430] Pre-loading model weights on hpu:0 took 14.97 GiB of device memory "
    "(14.97 GiB/94.62 GiB used) and 2.95 GiB of host memory (475.2 GiB/1007 GiB used)"),
    ("INFO 08-02 17:37:52 hpu_model_runner.py:438] Wrapping in HPU Graph took 0 B of device memory "
    "(14.97 GiB/94.62 GiB used) and -252 KiB of host memory (475.2 GiB/1007 GiB used)"),
    ("INFO 08-02 17:37:52 hpu_model_runner.py:442] Loading model weights took in total 14.97 GiB of device memory "
    "(14.97 GiB/94.62 GiB used) and 2.95 GiB of host memory (475.2 GiB/1007 GiB used)"),
    ("INFO 08-02 17:37:54 hpu_worker.py:134] Model profiling run took 504 MiB of device memory (15.46 GiB/94.62 GiB "
    "used) and 180.9 MiB of host memory (475.4 GiB/1007 GiB used)"),
    ("INFO 08-02 17:37:54 hpu_worker.py:158] Free device memory: 79.16 GiB, 39.58 GiB usable "
    "(gpu_memory_utilization=0.5), 15.83 GiB reserved for HPUGraphs (VLLM_GRAPH_RESERVED_MEM=0.4), 23.75 GiB "
    "reserved for KV cache"),
    "INFO 08-02 17:37:54 hpu_executor.py:85] # HPU blocks: 1519, # CPU blocks: 0",
    ("INFO 08-02 17:37:54 hpu_worker.py:190] Initializing cache engine took 23.73 GiB of device memory (39.2 GiB/94.62 "
    "GiB used) and -1.238 MiB of host memory (475.4 GiB/1007 GiB used)"),
    "INFO 08-02 17:38:43 hpu_model_runner.py:1206] Warmup finished in 49 secs, allocated 14.19 GiB of device memory",
    ("INFO 08-02 17:38:43 hpu_executor.py:91] init_cache_engine took 37.92 GiB of device memory (53.39 GiB/94.62 GiB "
    "used) and 57.86 MiB of host memory (475.4 GiB/1007 GiB used)"),
]


def test_gaudi_guide_log_is_read_and_its_profiler_lines_are_not_the_pool():
    record = read("vllm", GAUDI_GUIDE)
    assert record.weights_gib == 14.97  # the load's device memory, not the pre-load line's or the wrapping's
    assert record.kv_gib == 23.75 and record.gpu_memory_utilization == 0.5
    assert record.num_blocks == 1519 and record.device == "hpu"
    assert record.status == "ok"


def test_gaudi_plugin_budget_reads_the_usable_share_in_any_unit():
    # vllm-gaudi 091bbad vllm_gaudi/v1/worker/hpu_worker.py:423: a dummy block's share (MiB here), then the usable KV
    line = ("(EngineCore_DP0 pid=7) INFO 01-21 06:56:10 [hpu_worker.py:432] Free device memory: 94.62 GiB, 89.89 GiB "
            "usable (gpu_memory_utilization=0.95), 8.989 GiB reserved for HPUGraphs (VLLM_GRAPH_RESERVED_MEM=0.1), "
            "1.5 MiB reserved for KV cache dummy block 80.9 GiB reserved for usable KV cache")
    record = read("vllm", [line])
    assert record.kv_gib == 80.9 and record.gpu_memory_utilization == 0.95 and record.device == "hpu"
    small = read("vllm", [line.replace("80.9 GiB reserved for usable", "512 MiB reserved for usable")])
    assert small.kv_gib == 0.5


def test_rbln_resize_is_its_own_field_and_the_compile_hint_is_never_the_pool():
    prefix = "(EngineCore_DP0 pid=7) INFO 06-26 10:00:00 [dynamic_kv_sizer.py:1] "
    record = read("vllm", [
        "(EngineCore_DP0 pid=7) INFO 06-26 10:00:00 [kv_cache_utils.py:1] GPU KV cache size: 65,536 tokens",
        ("(EngineCore_DP0 pid=7) INFO 06-26 10:00:00 [kv_cache_utils.py:2] Maximum concurrency for 8,192 tokens per "
        "request: 8.00x"),
        prefix + "[Dynamic KV] compiling with 4 KV blocks instead of 1024; resized after warm-up from the compiled "
        "profile.",
        prefix + "[Dynamic KV] reallocating KV cache: 4 -> 1536 blocks",
    ])
    assert record.kv_tokens == 65_536 and record.resized_num_blocks == 1536
    assert record.num_blocks != 4


def test_spyre_states_its_pool_in_vllms_words_with_its_device_named():
    # vllm-spyre fc6b54b vllm_spyre/platform.py:139, :163, :164
    prefix = "INFO 04-10 07:00:00 [platform.py:{}] "
    record = read("vllm", [
        prefix.format(139) + "Spyre constraint: num blocks rounded from 2049 to 2052 (multiple of batch size=4)",
        prefix.format(163) + "Spyre KV cache size: 131328 tokens",
        prefix.format(164) + "Maximum concurrency for 32768 tokens per request: 4.01x",
    ])
    assert record.kv_tokens == 131_328 and record.num_blocks == 2052 and record.device == "spyre"
    assert record.max_concurrency == 4.01 and record.status == "ok"


def test_metal_mlx_path_report_is_never_the_pool():
    # vllm-metal 211a1e4 vllm_metal/v1/cache_policy.py:1190: what it hands vLLM's scheduler on its MLX path
    record = read("vllm", [("INFO 08-22 21:00:00 [cache_policy.py:1190] MLX path: reporting 2.15 GB for scheduler "
                           "admission control (one max-length sequence, max_model_len=4096)")])
    assert record.kv_gib is None and record.kv_tokens is None and record.num_blocks is None


def test_mlx_runner_budget_is_the_pool_budget_not_the_pool():
    # sglang 0.5.23 sglang/srt/hardware_backend/mlx/model_runner.py:694, then the pool line (kv_cache/
    # attention_kv_pool.py:49) that states the pool
    record = read("sglang", [
        ("[2026-11-30 10:00:00] Auto-sized attention KV pool: sys_available=40.12 GB, mlx_limit=48.0 GB, "
        "mlx_used=16.20 GB, kv_budget=25.51 GB, bytes_per_slot=131072, pool_size=208977"),
        ("[2026-11-30 10:00:00] MlxAttentionKVPool: 208978 slots x 32 layers x 8 heads x 128 dim, "
        "dtype=mlx.core.bfloat16, ~26122.3 MB"),
    ])
    assert record.pool_budget_gib == 25.51 and record.pool_tokens == 208_978 and record.kv_gib == 25.51


# Third-party tools inside the engine's process that print their own cache sizes and token counts: never the pool.
# LMCache (its own "[time] LMCache INFO: ..." format inside vLLM's worker prefix): LMCache/LMCache#792 (config banner,
# 2025-06-07), #1878 (store, 2025-10-25), #955 (lookup, 2025-07-02). Dynamo's KV block manager, as
# ai-dynamo/dynamo#5987 shows its allocation summary (Rust tracing, 2026-02-05).
THIRD_PARTY = [
    ("(VllmWorker rank=0 pid=247) [2025-06-07 20:33:02,562] LMCache INFO: LMCache Configuration: {'chunk_size': 256, "
     "'local_cpu': True, 'max_local_cpu_size': '300.0 GB', 'local_disk': None, 'max_local_disk_size': '0.0 GB', "
     "'remote_url': None} (config.py:579:lmcache.v1.config)"),
    ("(Worker_TP0 pid=202465) [2025-10-25 20:33:17,697] LMCache INFO: Storing KV cache for 7500 out of 7500 tokens "
     "(skip_leading_tokens=0) for request cmpl-8e936853a65d4336b2a2670ba4ca142a-0 "
     "(vllm_v1_adapter.py:1090:lmcache.integration.vllm.vllm_v1_adapter)"),
    ("[2025-07-02 16:41:43,868] LMCache INFO: Reqid: 861, Total tokens 1558, LMCache hit tokens: 0, need to load: 0 "
     "(vllm_v1_adapter.py:745:lmcache.integration.vllm.vllm_v1_adapter)"),
    ("2026-02-05T10:00:00.000000Z  INFO kvbm::leader: KVBM Leader block allocation: G1 (GPU)=199892 blocks, G2 (Host)="
     "22756 blocks, G3 (Disk)=0 blocks, bytes_per_block=2359296"),
]
POOL = [
    "(EngineCore_DP0 pid=7) INFO 10-25 20:30:00 [gpu_worker.py:1] Available KV cache memory: 60.12 GiB",
    "(EngineCore_DP0 pid=7) INFO 10-25 20:30:00 [kv_cache_utils.py:1] GPU KV cache size: 492,496 tokens",
    ("(EngineCore_DP0 pid=7) INFO 10-25 20:30:00 [kv_cache_utils.py:2] Maximum concurrency for 8,192 tokens per "
     "request: 60.12x"),
]


def test_third_party_kv_figures_never_state_the_pool():
    alone = read("vllm", THIRD_PARTY)
    assert alone.kv_tokens is None and alone.kv_gib is None and alone.num_blocks is None
    after = read("vllm", POOL + THIRD_PARTY)
    assert (after.kv_tokens, after.kv_gib, after.num_blocks) == (492_496, 60.12, read("vllm", POOL).num_blocks)
    record = read("sglang", THIRD_PARTY)
    assert record.kv_tokens is None and record.kv_gib is None and record.pool_tokens is None


def set39(name: str):
    """A log of gpu-logs-39 (vLLM on accelerator plugins and vendor forks), by its number."""
    folder = FIXTURES / "gpu-logs-39" / "vllm"
    path = next(folder.glob(f"{name}-*.log"))
    return parse_log(read_log(path), "vllm")


def test_rbln_kv_cache_layout_line_is_the_allocated_pool():
    # vllm-rbln 95c7a25 vllm_rbln/v1/worker/rbln_model_runner.py:5077-5083, on vllm-rbln PR#589's own example
    record = set39("02")
    assert record.num_blocks == 370 and record.kv_gib == 11.562
    assert record.kv_tokens is None  # its block size is in no line of the window: no token count is made up
    assert record.status is None
    # the allocated size outranks the estimate the worker handed vLLM before it (rbln_worker.py:386)
    prefix = "(EngineCore pid=9) [vllm-rbln] INFO 2026-05-07 10:00:00,000 [{}] "
    estimated_then_made = read("vllm", [
        prefix.format("rbln_worker.py:386") + "available_memory_estimate = 59.39 GiB",
        prefix.format("rbln_model_runner.py:5077") + ("KV cache: num_blocks=1689, num_groups=1, num_tensors=32, "
                                                      "total=59.379 GiB"),
    ])
    assert estimated_then_made.kv_gib == 59.379 and estimated_then_made.num_blocks == 1689


def test_cpu_platforms_own_kv_space_is_the_kv_budget():
    # 0.18.0 vllm/platforms/cpu.py:136 (get_device_total_memory, VLLM_CPU_KVCACHE_SPACE unset), the budget the CPU
    # worker hands the engine (cpu_worker.py:135-136); here under vllm-spyre-next, torch-spyre/sendnn-inference PR#881
    record = set39("07")
    assert record.kv_gib == 251.88 and record.device == "cpu" and record.kv_tokens is None
    assert record.max_model_len == 131072 and record.status is None


def test_nxd_inference_weights_load_is_the_weights_load_time():
    # aws-neuron/neuronx-distributed-inference 4bcdc54 application_base.py:421 on its logger "Neuron"
    record = set39("03")
    assert abs(record.weights_load_seconds - 12.716184116) < 1e-6
    assert record.num_blocks == 4 and record.kv_tokens == 4096 and record.status == "ok"


def test_neuron_v0_blocks_are_one_sequence_each():
    # 0.9.0 vllm/platforms/neuron.py:55-58: "neuron needs block_size = max_model_len"; the server's --max-model-len
    # 1024 is the only length in the window, and no concurrency line follows the blocks line
    record = set39("13")
    assert record.num_blocks == 4 and record.configured_max_model_len == 1024
    assert record.kv_tokens == 4 * 1024  # not 4 x the GPU's default 16
    # with its concurrency line the block size is the one the concurrency implies, as before
    assert set39("12").kv_tokens == 4096
