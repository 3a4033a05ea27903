"""Which SGLang releases the budget formulas hold for, and what changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/sglang/formulas.py) are read from 0.5.22's code and 0.5.23's
# differences are modelled; every older release from 0.4.0 is modelled by the BudgetRules below, each rule
# read from that release's wheel (dense text models; speculative decoding, DP attention, PD and VLM paths
# are not modelled in any release). 0.5.3 brought the reserve formula 512 + activations + tp*pp/8 GiB +
# graphs (0.5.3 sglang/srt/server_args.py:637-674); 0.4.0-0.5.2 took the fraction from tables
# (DEFAULT_FRACTION below). The CPU engine begins at 0.4.8 (SGLANG_USE_CPU_ENGINE, 0.4.8 sglang/srt/utils.py:173;
# 0.4.7 has the intel_amx backend, server_args.py:329-331, but no is_cpu() path).
PREDICTED_RELEASES = ReleaseRange("0.4.0", "0.5.24")
PREDICTED_RELEASES_CPU = ReleaseRange("0.4.8", "0.5.24")

# Where the default mem_fraction_static comes from, per release (formulas.table_memory_settings):
# - "reserve formula" from 0.5.3 (formulas.memory_settings);
# - "reserved_mem table" 0.4.8-0.5.2: round(1 - reserved_mem / card, 3), reserved_mem (2.8 + tp*pp/10) GiB under
#   35 GiB, (9.5 + tp*pp/2) under 90, (12 + tp*pp/2) under 160, 32 GiB above; 0.88 without a card size
#   (0.5.2 sglang/srt/server_args.py:452-498, 0.4.8 :274-316);
# - "tp x pp table, large-card rules" 0.4.7: 0.88/0.87/0.85/0.81/0.79 by tp*pp for cards <= 81,920 MiB (0.88
#   above or without a size), then 0.79 above 180,000 MiB on CUDA, min(f + 48 GiB x (1 - f) / card,
#   1 - 18 GiB / card) above 96 GiB, unrounded (0.4.7 server_args.py:253-283);
# - "tp table, 13 GiB above 80 GiB" 0.4.6: the table by tp for cards <= 81,920 MiB, 1 - 13 GiB / card above,
#   unrounded; no card size is a TypeError (`None <= 81920`, 0.4.6 server_args.py:224-238);
# - "tp table" 0.4.0-0.4.5: the table by tp alone (0.4.5 server_args.py:233-243, 0.4.0 :158-168).
RESERVE_FORMULA, RESERVED_MEM_TABLE = "reserve formula", "reserved_mem table"
LARGE_CARD_RULES, THIRTEEN_GIB_ABOVE_80, TP_TABLE = ("tp x pp table, large-card rules", "tp table, 13 GiB above 80 GiB",
                                                     "tp table")
DEFAULT_FRACTION = ((ReleaseRange("0.5.3"), RESERVE_FORMULA), (ReleaseRange("0.4.8", "0.5.3"), RESERVED_MEM_TABLE),
                    (ReleaseRange("0.4.7", "0.4.8"), LARGE_CARD_RULES),
                    (ReleaseRange("0.4.6", "0.4.7"), THIRTEEN_GIB_ABOVE_80), (ReleaseRange(None, "0.4.6"), TP_TABLE))
# The default chunked_prefill_size before 0.5.3: 2048 under 35 GiB, 8192 under 160 GiB, 16384 above, 4096 without
# a size in 0.4.8-0.5.2 (0.5.2 server_args.py:509-518, 0.4.8 :318-327); 0.4.7: 16384 above 180,000 MiB, 2048 under
# 25,000 MiB, else 8192 (16384 with PD disaggregation, not modelled; 0.4.7 :286-295); 0.4.0-0.4.6: 2048 under
# 25,000 MiB, else 8192 (0.4.6 :241-245, 0.4.0 :171-175).
CHUNK_BY_35_160_GIB = ReleaseRange("0.4.8")
CHUNK_16384_ABOVE_180_GB = ReleaseRange("0.4.7", "0.4.8")
# The default cuda_graph_max_bs before 0.5.3: 8 at tp < 4 and 80 at tp >= 4 on small cards (under 35 GiB from
# 0.4.8, 0.4.8 server_args.py:331-337; under 25,000 MiB before); on larger cards 160 up to 0.4.5 (0.4.5 :260-268),
# left to the graph runner's capture list from 0.4.6 (0.4.6 :260-266, no else); 0.4.0 takes 8 at any tp
# (0.4.0 :178-182). It does not move the pool before 0.5.3 (no graph term in the fraction).
GRAPH_MAX_BS_SMALL_CARD_35_GIB = ReleaseRange("0.4.8")
GRAPH_MAX_BS_LEFT_TO_RUNNER = ReleaseRange("0.4.6")
GRAPH_MAX_BS_80_AT_TP4 = ReleaseRange("0.4.1")
# The pool itself is sized alike in every release from 0.4.0: rest = free memory after loading - `total` x (1 - f),
# `total` the free memory read once torch.distributed is up, before loading (min over ranks):
# model_runner.py init_torch_distributed -> init_memory_pool(min_per_gpu_memory) -> profile_max_num_token
# (0.4.0 model_runner.py:148, :166, :466; 0.4.6 :177, :215, :707; 0.5.2 :240, :379, :1123).
# SGLang reads no CPU size before 0.5.3 (get_device_memory_capacity has no CPU branch, nor an XPU one: 0.5.2
# sglang/srt/utils.py:1406-1419): the fraction is the no-size one. Its free memory is psutil's available memory,
# divided by the NUMA node count from 0.5.2 (0.5.2 utils.py:435-439; 0.5.1 utils.py:413-415 the whole host).
CPU_HAS_A_SIZE = ReleaseRange("0.5.3")
CPU_FREE_PER_NUMA_NODE = ReleaseRange("0.5.2")
# The pool is rounded down to whole pages from 0.4.4 (0.4.4 model_runner.py:708-712; 0.4.3 has no --page-size).
POOL_PAGE_ROUNDING = ReleaseRange("0.4.4")
# The request pool holds max_num_reqs + 1 slots up to 0.4.6 (0.4.6 model_runner.py:795, 0.4.0 :517), so the
# default max_running_requests is min(tokens // 2, estimate + 1): the 2049 of those releases' logs; max_num_reqs
# from 0.4.7 (0.4.7 :926).
REQ_POOL_ONE_EXTRA_SLOT = ReleaseRange(None, "0.4.7")
# max_running_requests of zero is its own assertion from 0.4.6 (0.4.6 tp_worker.py:119; 0.4.5 has none).
MRR_ZERO_CHECKED = ReleaseRange("0.4.6")
# 0.4.0-0.4.1 estimate max_num_reqs after the --max-total-tokens cap (0.4.1 model_runner.py:519-535); 0.4.2-0.5.9
# before it (0.4.2 :585-613), 0.5.10 after it again (MRR_ESTIMATE_FROM_CAPPED_POOL).
MRR_ESTIMATE_AFTER_CAP_UP_TO_0_4_1 = ReleaseRange(None, "0.4.2")
# A --context-length longer than the model's is allowed unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN is false in
# 0.4.4-0.5.0 (get_bool_env_var(..., default="True"), 0.4.4 sglang/srt/configs/model_config.py:83-85, 0.5.0rc2
# :169-171); refused unless it is set up to 0.4.3 (0.4.3 :73) and from 0.5.1 (0.5.1 :176).
LONGER_CONTEXT_ALLOWED_BY_DEFAULT = ReleaseRange("0.4.4", "0.5.1")

# The default decode graph max_bs is capped at --max-running-requests from 0.5.22 (0.5.22
# sglang/srt/arg_groups/memory_hook.py:83, :182-188); older releases reserve for the tier's max_bs.
DECODE_MAX_BS_CAPPED_BY_MAX_RUNNING = ReleaseRange("0.5.22")
# --cuda-graph-max-bs is the decode graphs' max batch size: the ServerArgs field itself up to 0.5.18 (0.4.8
# sglang/srt/server_args.py:331-337 sets its default; flags/0.5.8.txt, from that release's --help), in 0.5.19 a
# deprecated alias storing into cuda_graph_max_bs_decode (0.5.19 server_args.py:3928-3935); gone from 0.5.20
# (flags/0.5.20.txt).
CUDA_GRAPH_MAX_BS_FLAG = ReleaseRange(None, "0.5.20")

# Releases that differ from 0.5.22 in one rule each (server_args.py up to 0.5.18, arg_groups/ from 0.5.19):
# the < 35 GiB tier: 2048 tokens / decode max_bs 16|80 in 0.5.3-0.5.4 (0.5.3 server_args.py:574-586), 24|80 in
# 0.5.4.post1-0.5.19 (0.5.4.post1 :669-681, 0.5.19 memory_hook.py:74-87), 4096 / 48|160 from 0.5.20.
TIER_BELOW_35_GIB = ((ReleaseRange("0.5.20"), (4096, 48, 160)), (ReleaseRange("0.5.4.post1", "0.5.20"), (2048, 24, 80)),
                     (ReleaseRange(None, "0.5.4.post1"), (2048, 16, 80)))
# No card size (nvidia-smi unreadable, SGLANG_CPU_OMP_THREADS_BIND on CPU): 0.88 before 0.5.20 (0.5.19
# memory_hook.py:266, 0.5.3 server_args.py:674), 0.95 from 0.5.20 (0.5.22 memory_hook.py:329); the XPU
# +2 GiB from 0.5.20 (0.5.20 memory_hook.py:315).
NO_SIZE_FALLBACK_095 = ReleaseRange("0.5.20")
XPU_RESERVE = ReleaseRange("0.5.20")
# The decode graph term is reserved only while the decode graph is on from 0.5.15 (0.5.15 server_args.py:3639);
# 0.5.3-0.5.14 add max_bs x 2 even with --disable-cuda-graph (0.5.10 :1290, 0.5.14 :3285).
DECODE_RESERVE_FOLLOWS_GRAPH = ReleaseRange("0.5.15")
# The prefill (piecewise) graph term: none by default before 0.5.10 (0.5.9 :1043-1046, opt-in only);
# 0.5.10-0.5.13 on unless --disable-piecewise-cuda-graph, pp > 1 or a non-CUDA engine, and not turned
# off by --disable-cuda-graph (0.5.10 :1078-1139, :1305-1308); 0.5.14 torch.compile piecewise, off with
# --disable-cuda-graph too (0.5.14 :2942-2944, :3009-3011); 0.5.15-0.5.18 keep a pp > 1 prefill graph
# (0.5.15 :3341-3377, no pp rule); from 0.5.19 pp > 1 turns the default off (0.5.19 cuda_graph_hook.py:122-133)
# and an explicit one is capped at 8192 tokens (memory_hook.py:196-204).
PREFILL_RESERVE_BY_DEFAULT = ReleaseRange("0.5.10")
PREFILL_FOLLOWS_DISABLE_CUDA_GRAPH = ReleaseRange("0.5.14")
PREFILL_OFF_WITH_PP = (ReleaseRange("0.5.10", "0.5.15"), ReleaseRange("0.5.19"))
# The default CUDA prefill graph is `breakable` from 0.5.15 (0.5.15 cuda_graph_config.py:95-101); 0.5.10-0.5.14
# capture piecewise (torch.compile) graphs.
PREFILL_BREAKABLE_ON_CUDA = ReleaseRange("0.5.15")
PREFILL_PP_CAP_8192 = ReleaseRange("0.5.19")
# A non-CUDA host's default prefill graph: off only for SGLANG_USE_CPU_ENGINE=1 (is_cpu()) up to 0.5.19
# (0.5.19 cuda_graph_hook.py:169-190, 0.5.10 server_args.py:1101); 0.5.22 defaults it to disabled on
# every non-CUDA device (0.5.22 cuda_graph_config.py:119-123). 0.5.20/0.5.21 are taken as 0.5.22.
PREFILL_OFF_ON_EVERY_NON_CUDA_DEVICE = ReleaseRange("0.5.20")
# Prefill max_bs: capped by max_total_tokens and llama-2 from 0.5.10 (0.5.10 :1263-1275; 0.5.9 caps
# nothing), by --context-length in 0.5.13-0.5.16 (0.5.13 :1582-1585, gone in 0.5.17 :4733-4745).
PREFILL_CAPS_TOTAL_TOKENS = ReleaseRange("0.5.10")
PREFILL_CAP_CONTEXT_LENGTH = ReleaseRange("0.5.13", "0.5.17")
# On CPU the decode max_bs of the reserve is torch_compile_max_bs (default 32) from 0.5.10 (0.5.10
# :1231-1252); 0.5.3-0.5.9 take the tier of the RAM size (0.5.9 :892-896 sets no CPU value).
CPU_DECODE_MAX_BS_FROM_TORCH_COMPILE = ReleaseRange("0.5.10")
# max_running_requests: given, it is used as is up to 0.5.9 (0.5.3 model_runner.py:1431-1441), capped at
# the estimate (2048-4096) in 0.5.10-0.5.13 (0.5.10 model_runner_kv_cache_mixin.py:840-851), at tokens // 2
# from 0.5.14 (0.5.14 :981-994). In 0.4.2-0.5.9 the estimate is made from the profiled tokens before the
# --max-total-tokens cap and page rounding.
MRR_GIVEN_CAPPED_AT_HALF_POOL = ReleaseRange("0.5.14")
MRR_GIVEN_CAPPED_AT_ESTIMATE = ReleaseRange("0.5.10", "0.5.14")
MRR_ESTIMATE_FROM_CAPPED_POOL = ReleaseRange("0.5.10")
# Weights that leave nothing are their own error from 0.5.14 (0.5.14 model_runner_kv_cache_mixin.py:103-117);
# before, the negative pool is "Not enough memory", with the fraction appended up to 0.5.10 (0.5.3
# model_runner.py:1495-1499 "Current value: self.server_args.mem_fraction_static=F", 0.5.10 mixin:55-60
# "Current value: mem_fraction_static=F"). "Memory pool size is too small" also fires for
# max_req_input_len <= 0 up to 0.5.13 (0.5.13 tp_worker.py:309-311).
WEIGHTS_LEAVE_NO_MEMORY_ERROR = ReleaseRange("0.5.14")
# 0.5.2 and older say no more (0.5.2 model_runner.py:1317-1319, 0.4.0 :501-503).
NOT_ENOUGH_MEMORY_SUFFIX = (
    (ReleaseRange("0.5.3", "0.5.10"), " Current value: self.server_args.mem_fraction_static={f}"),
    (ReleaseRange("0.5.10", "0.5.12"), " Current value: mem_fraction_static={f}"))
TOO_SMALL_CHECKS_INPUT_LEN = ReleaseRange(None, "0.5.14")

# The newest release the formulas model: a point that names no release is predicted as this one.
NEWEST_PREDICTED = "0.5.23"

# 0.5.23 warns when the KV pool holds fewer tokens than the context length (before: silent).
# 0.5.23 sglang/srt/managers/tp_worker.py:558 get_worker_info.
POOL_SHORTER_THAN_CONTEXT_WARNS = ReleaseRange("0.5.23")

# The CPU backend's "device" size: 0.5.22 reads each NUMA node's MemTotal and takes the smallest
# (0.5.22 sglang/srt/utils/common.py:862 get_cpu_memory_capacity); 0.5.23 divides /proc/meminfo's
# MemTotal, capped by the container's cgroup memory.max, by the NUMA node count
# (0.5.23 sglang/srt/utils/common.py:911 get_cpu_memory_capacity).
CPU_MEMORY_FROM_MEMINFO_CAPPED = ReleaseRange("0.5.23")


def modelled_release(version: str | None) -> str:
    """The release whose rules apply: the one asked for, else the newest modelled."""
    return version or NEWEST_PREDICTED


def tier_below_35_gib(version: str | None) -> tuple[int, int, int]:
    """(chunked_prefill_size, decode max_bs at tp < 4, at tp >= 4) of the < 35 GiB tier."""
    release = modelled_release(version)
    return next(value for releases, value in TIER_BELOW_35_GIB if release in releases)


def not_enough_memory_suffix(version: str | None, fraction: float) -> str:
    release = modelled_release(version)
    return next((text.format(f=fraction) for releases, text in NOT_ENOUGH_MEMORY_SUFFIX if release in releases), "")


def prefill_off_with_pp(version: str | None) -> bool:
    release = modelled_release(version)
    return any(release in releases for releases in PREFILL_OFF_WITH_PP)


def default_fraction_rule(version: str | None) -> str:
    """Which of releases.DEFAULT_FRACTION's rules gives this release's default mem_fraction_static."""
    release = modelled_release(version)
    return next(rule for releases, rule in DEFAULT_FRACTION if release in releases)

# A sliding-window model gets SGLang's two pools (full + SWA, SWAKVPool) only when the release makes it hybrid SWA; any
# other (Gemma 2/3, Mistral, Qwen2 with a window, ...) gets one pool holding every layer's K and V, sized as a dense
# model. Which models are hybrid, read release by release (HYBRID_SWA_BY_RELEASE below); seen on SGLang-CPU 0.5.22 and
# 0.5.23: tiny Gemma 3 logs "KV Cache is allocated" and hybrid_swa=False (results/cpu_kinds), and on a GPU 0.4.4 sized
# gemma-3-4b-it as one pool of all 34 layers (tests/fixtures/predict/gpu-oos/s03-h200-gemma3-4b-pr4826.log).
SLIDING_WINDOW_DENSE_POOL = ReleaseRange(None, "0.5.24")
HYBRID_SWA_ARCHITECTURES = frozenset({
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMDSpark", "DeepseekV4ForCausalLMNextN",
    "DiffusionGemmaForBlockDiffusion", "EmbeddingGemma2Model", "Gemma4ForCausalLM", "Gemma4ForConditionalGeneration",
    "Gemma4UnifiedForConditionalGeneration", "GptOssForCausalLM", "GraniteMoeSWAForCausalLM", "GraniteSWAForCausalLM",
    "IQuestQ1ForCausalLM", "IQuestQ1MTP", "InklingForConditionalGeneration", "InklingForConditionalGenerationMTP",
    "LagunaForCausalLM", "Llama4ForConditionalGeneration", "MellumForCausalLM", "MiMoV2FlashForCausalLM",
    "MiMoV2ForCausalLM", "MiMoV2MTP", "MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration",
    "Step3p5ForCausalLM", "Step3p5MTP", "Step3p7ForConditionalGeneration", "UnlimitedOCRForCausalLM",
    "BeamForCausalLM",  # 0.5.23
})
# - 0.4.0-0.4.9: no SWA pool by default. 0.4.8 and older have none at all (no SWAKVPool in model_executor/
#   model_runner.py); 0.4.9 makes only Llama 4 hybrid, and only with --hybrid-kvcache-ratio (0.4.9
#   configs/model_config.py:653-668 is_hybrid_model), which the predictor declines (LLAMA4_HYBRID_RATIO_FLAG).
# - 0.4.10: every model whose class has get_attention_sliding_window_size is hybrid unless
#   --disable-hybrid-swa-memory (0.4.10 model_runner.py:280-290, :669-673): the Gemma 2/3/3n classes
#   (models/gemma2.py, gemma3_causal.py, gemma3_mm.py, gemma3n_causal.py, gemma3n_mm.py); split by
#   set_num_token_hybrid (:986-1063), not modelled.
# - 0.5.0-0.5.7: Gemma 2/3/3n (and Olmo 2 from 0.5.5) are forced back to one pool ("Disable hybrid SWA memory for
#   {model_arch} as it is not yet supported", 0.5.0rc2 server_args.py:2167-2179, 0.5.5 :1017-1035); GPT-OSS is
#   forced to one pool in 0.5.0rc2 (:2161) but only with the triton_kernel MoE runner by 0.5.5 (:993-997): taken as
#   hybrid (declined) in 0.5.0-0.5.7. 0.5.1-0.5.4 and 0.5.6-0.5.7 lie between the two releases read.
# - 0.5.8 on: the architectures listed in is_hybrid_swa_model (0.5.8 configs/model_config.py:1220-1228, 0.5.10
#   :1438-1448, 0.5.14 :1842-1876 which adds a config's own is_hybrid_swa, 0.5.16 :1903-1940, 0.5.22 as above).
#   Releases between two read ones take the later list (a superset): an architecture listed only later is
#   declined rather than sized as one pool.
_GEMMA_WINDOW_CLASSES = frozenset({"Gemma2ForCausalLM", "Gemma3ForCausalLM", "Gemma3ForConditionalGeneration",
                                   "Gemma3nForCausalLM", "Gemma3nForConditionalGeneration"})
_HYBRID_0_5_8 = frozenset({"Llama4ForConditionalGeneration", "GptOssForCausalLM", "MiMoV2FlashForCausalLM",
                           "MiMoV2MTP"})
_HYBRID_0_5_10 = _HYBRID_0_5_8 | {"Step3p5ForCausalLM", "Step3p5MTP"}
_HYBRID_0_5_14 = _HYBRID_0_5_10 | {"DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "MiMoV2ForCausalLM",
                                   "Step3p7ForConditionalGeneration", "Gemma4ForCausalLM",
                                   "Gemma4ForConditionalGeneration", "Gemma4UnifiedForConditionalGeneration",
                                   "LagunaForCausalLM"}
HYBRID_SWA_BY_RELEASE = (
    (ReleaseRange(None, "0.4.10"), frozenset()),
    # GPT-OSS has no class in 0.4.10's wheel; listed so that a build that has one is declined, not guessed
    (ReleaseRange("0.4.10", "0.5.0rc0"), _GEMMA_WINDOW_CLASSES | {"GptOssForCausalLM"}),
    (ReleaseRange("0.5.0rc0", "0.5.8"), frozenset({"GptOssForCausalLM"})),
    (ReleaseRange("0.5.8", "0.5.10"), _HYBRID_0_5_8),
    (ReleaseRange("0.5.10", "0.5.14"), _HYBRID_0_5_10),
    (ReleaseRange("0.5.14", "0.5.16"), _HYBRID_0_5_14),
    (ReleaseRange("0.5.16", "0.5.24"), HYBRID_SWA_ARCHITECTURES),
)
# A multimodal model's fraction: 0.4.4 multiplies it by 0.95 whether given or not (0.4.4.post1
# model_executor/model_runner.py:242-247, "Automatically reduce --mem-fraction-static ... because this is a multimodal
# model": gemma-3-4b-it's 0.4.4 log sizes its pool at 0.88 x 0.95); 0.4.5-0.4.9 do not (no such line in 0.4.5, 0.4.6,
# 0.4.8 model_runner.py); from 0.4.10 the default fraction (never a given one) is lowered by the vision tower's size
# (adjust_mem_fraction_for_vlm, 0.4.10 server_args.py:325-335, :1946-1985; 0.5.10 :1334; 0.5.22
# arg_groups/memory_hook.py:283-290, :334, :419-464): vlm_fraction.py, declined in one line only where config.json
# leaves the tower's size to the transformers class.
VLM_FRACTION_ALWAYS_LOWERED = ReleaseRange("0.4.4", "0.4.5")
VLM_FRACTION_FACTOR = 0.95
VLM_DEFAULT_FRACTION_LOWERED = ReleaseRange("0.4.10")
# A config's own is_hybrid_swa opts it in from 0.5.14 (0.5.14 configs/model_config.py:1873-1875).
CONFIG_OPTS_INTO_HYBRID_SWA = ReleaseRange("0.5.14")
# 0.4.9-0.5.x: Llama 4's chunked-attention split, opt-in with --hybrid-kvcache-ratio (0.4.9 model_config.py:653-668,
# model_runner.py:965-990 set_num_token_hybrid): not modelled.
LLAMA4_HYBRID_RATIO_FLAG = "hybrid_kvcache_ratio"


def is_hybrid_swa(architecture: str | None, config: dict, version: str | None) -> bool:
    """Whether SGLang `version` gives a sliding-window model of this architecture its two pools (full + SWA) when
    --disable-hybrid-swa-memory is off (HYBRID_SWA_BY_RELEASE)."""
    release = modelled_release(version)
    archs = next(archs for releases, archs in HYBRID_SWA_BY_RELEASE if release in releases)
    listed = set(config.get("architectures") or []) | {architecture or ""}
    if listed & archs:
        return True
    return release in CONFIG_OPTS_INTO_HYBRID_SWA and bool(config.get("is_hybrid_swa"))

# Multi-head latent attention: SGLang gives a model one latent of kv_lora_rank + qk_rope_head_dim per token and layer,
# the same on every TP rank, when its architecture makes ModelConfig.attention_arch MLA (0.5.22
# sglang/srt/configs/model_config.py:1258-1288, :1334-1338; 0.5.23 :1367-1397, :1443-1447): cell = latent x layers x
# kv dtype bytes (0.5.22 sglang/srt/model_executor/pool_configurator.py:353-380 _compute_cell_size), the pool
# MLATokenToKVPool ((size + page_size) x 1 x latent per layer, 0.5.22 sglang/srt/mem_cache/memory_pool.py:4672,
# :4726-4738). Read in 0.5.18-0.5.23 (the same cell and pool in 0.5.18 pool_configurator.py:235, memory_pool.py:3932;
# 0.5.19 :248, :3968; 0.5.20 :295, :4325; 0.5.21 :278, :4395); 0.5.14-0.5.17 differ (a breakable prefill graph is
# turned off for MLA before the fraction is set, 0.5.17 server_args.py:4469 "MLA attention (non-DSA)") and older
# releases are not read: they keep the one-line refusal.
MLA_LATENT_POOL = ReleaseRange("0.5.18", "0.5.24")
# The text architectures of those branches (the multimodal ones are not modelled); a config with kv_lora_rank under any
# other architecture is sized as MHA by SGLang, which the predictor does not attempt. 0.5.18 model_config.py:877;
# Dots3Note from 0.5.19 (0.5.19 model_config.py:923), HYV4 from 0.5.20 (:1092), GigaChat 3.5 from 0.5.21 (:1178).
_MLA_TEXT_ARCHITECTURES = frozenset({"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "Glm4MoeLiteForCausalLM",
                                     "LongcatFlashForCausalLM", "MistralLarge3ForCausalLM", "MiniCPM3ForCausalLM"})
MLA_ARCHITECTURES = ((ReleaseRange("0.5.21"), _MLA_TEXT_ARCHITECTURES | {"Dots3NoteForCausalLM", "HYV4ForCausalLM",
                                                                          "GigaChat35ForCausalLM"}),
                     (ReleaseRange("0.5.20", "0.5.21"), _MLA_TEXT_ARCHITECTURES | {"Dots3NoteForCausalLM",
                                                                                   "HYV4ForCausalLM"}),
                     (ReleaseRange("0.5.19", "0.5.20"), _MLA_TEXT_ARCHITECTURES | {"Dots3NoteForCausalLM"}),
                     (ReleaseRange(None, "0.5.19"), _MLA_TEXT_ARCHITECTURES))
# The prefill graph's default max_bs for an MLA model: 2048 tokens in 0.5.18-0.5.22 (0.5.22 memory_hook.py:237-240,
# 0.5.19 :192, 0.5.18 server_args.py:4926), the chunk size capped at 8192 from 0.5.23 (memory_hook.py:235-238); its
# reserve is a flat 1.5 GiB instead of 8 MiB a bucket ("MLA backend overhead is much higher than expected with fa3",
# 0.5.22 memory_hook.py:386-391, 0.5.19 :324, 0.5.18 server_args.py:5108, 0.5.23 the same). The trtllm_mla prefill
# graph switch-off below comes after the fraction in every one (0.5.18 server_args.py:3677 then :3690).
MLA_PREFILL_MAX_BS_CAPPED_CHUNK = ReleaseRange("0.5.23")
MLA_PREFILL_MAX_BS_2048 = 2048
MLA_PREFILL_MAX_BS_CAP = 8192
MLA_PREFILL_GRAPH_RESERVE_MIB = 1.5 * 1024
# The architectures the DeepSeek overrides apply to (0.5.22 sglang/srt/arg_groups/model_overrides/deepseek_v2.py:37-50):
# on sm100 with no attention backend given they pick trtllm_mla (:178-189; 0.5.19 :111).
DEEPSEEK_OVERRIDE_ARCHITECTURES = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM",
    "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration", "HYV4ForCausalLM",
    "HYV4ForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM",
})
# MLA decode backends that force a page size (0.5.22 sglang/srt/arg_groups/overrides.py:1085-1150
# _mla_backend_page_constraints): FlashMLA 64 always; TRT-LLM MLA, CuteDSL MLA and tokenspeed_mla 32 or 64, else 64;
# hpc_ops 64. Cutlass MLA 128 up to 0.5.19 (0.5.19 overrides.py:1142-1149, 0.5.18 :2146-2149); tokenspeed_mla's snap
# is gone in 0.5.23 (0.5.23 overrides.py:1144).
MLA_PAGE_FIXED = {"flashmla": 64, "hpc_ops": 64}
MLA_PAGE_32_OR_64 = frozenset({"trtllm_mla", "cutedsl_mla", "tokenspeed_mla"})
CUTLASS_MLA_PAGE_128 = ReleaseRange(None, "0.5.20")
TOKENSPEED_MLA_PAGE = ReleaseRange(None, "0.5.23")


def mla_architectures(version: str | None) -> frozenset[str]:
    """The text architectures SGLang `version` sizes as MLA (releases.MLA_ARCHITECTURES)."""
    release = modelled_release(version)
    return next(archs for releases, archs in MLA_ARCHITECTURES if release in releases)
