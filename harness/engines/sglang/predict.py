"""An SGLang point's settings mapped onto SGLang's budget formulas: the prediction for one launch."""

from __future__ import annotations

import math
from dataclasses import dataclass

from harness.engines.settings import Settings
from harness.engines.sglang import formulas as sg
from harness.engines.sglang import mamba_pools, swa_pools
from harness.engines.sglang.prediction import SglangPrediction
from harness.engines.sglang.releases import (
    CPU_HAS_A_SIZE,
    CPU_MEMORY_FROM_MEMINFO_CAPPED,
    CUDA_GRAPH_MAX_BS_FLAG,
    DEEPSEEK_OVERRIDE_ARCHITECTURES,
    LONGER_CONTEXT_ALLOWED_BY_DEFAULT,
    MLA_PREFILL_GRAPH_RESERVE_MIB,
    PREFILL_RESERVE_BY_DEFAULT,
    RESERVE_FORMULA,
    VLM_DEFAULT_FRACTION_LOWERED,
    VLM_FRACTION_ALWAYS_LOWERED,
    VLM_FRACTION_FACTOR,
    default_fraction_rule,
    modelled_release,
)
from harness.engines.sglang.vlm_fraction import vlm_fraction_factor
from harness.predict import Calibration, Estimate
from harness.predict.kinds import MLA, SPARSE_MLA
from harness.predict.model import GiB, ModelDescription, resolve_dtype


def _on(s: Settings, key: str) -> bool:
    return bool(s.get(key))


def _decode_max_bs(s: Settings, release: str) -> int | None:
    """--cuda-graph-max-bs-decode, or --cuda-graph-max-bs where the release has it (releases.CUDA_GRAPH_MAX_BS_FLAG)."""
    given = s.get("cuda_graph_max_bs_decode")
    if given is None and release in CUDA_GRAPH_MAX_BS_FLAG and s.get("cuda_graph_max_bs") is not None:
        given = int(s.get("cuda_graph_max_bs"))
    return given


@dataclass
class _Point:
    """What predict works out for the point before sizing the pool, shared by its steps."""

    release: str
    device: str
    pp: int
    dtype: str
    kv_dtype: str | None
    mla: bool
    decode_backend: str = ""
    prefill_backend: str = ""
    settings: sg.MemorySettings | None = None
    swa: swa_pools.SwaPlan | None = None
    mamba: mamba_pools.MambaPlan | None = None
    cell: float = 0.0  # KV bytes a token
    weights: int = 0
    page: int = 1
    context_len: int = 0
    vlm: bool = False  # a vision_config in config.json
    vision_config: dict | None = None
    language_only: bool = False  # --language-only / --language-model-only: no vision tower, no VLM fraction


def predict(p: SglangPrediction, s: Settings, env: dict[str, str], model: ModelDescription,
            calibration: Calibration | None, derived_context_len: int) -> SglangPrediction:
    """`s` holds typed settings: numbers are numbers, flags booleans.

    Each step records on `p` what it found; one that declines or refuses says why there and the prediction ends."""
    release = modelled_release(p.engine_version)
    # MLA: SglangFormulas.unmodelled_kind_note has let only the releases and architectures read for it through
    pt = _Point(release, str(s.get("device") or p.device), s.get("pp_size") or 1,
                resolve_dtype(s.get("dtype"), model.dtype), s.get("kv_cache_dtype"), model.mla_latent_dim is not None)
    pt.decode_backend, pt.prefill_backend = _graph_backends(s, env, pt)
    pt.settings = _memory_settings(p, s, model, pt)
    pt.vision_config = model.config.get("vision_config")
    pt.vlm = isinstance(pt.vision_config, dict)
    pt.language_only = _on(s, "language_only") or _on(s, "language_model_only")
    if not _fraction(p, pt) or not _pools(p, s, env, model, pt):
        return p
    if not _context(p, s, env, pt, derived_context_len) or not _state_pool(p, s, env, model, pt):
        return p
    _fraction_note(p, pt)
    return _device_pool(p, s, calibration, pt)


def _graph_backends(s: Settings, env: dict[str, str], pt: _Point) -> tuple[str, str]:
    """The decode and prefill CUDA-graph backends the point runs (sg.BACKEND_DISABLED where none)."""
    return sg.graph_backends(
        "cuda" if pt.device == "cuda" else pt.device,
        disable_cuda_graph=_on(s, "disable_cuda_graph"),
        disable_prefill_cuda_graph=_on(s, "disable_prefill_cuda_graph"),
        disable_decode_cuda_graph=_on(s, "disable_decode_cuda_graph"),
        cuda_graph_backend_decode=s.get("cuda_graph_backend_decode"),
        cuda_graph_backend_prefill=s.get("cuda_graph_backend_prefill"),
        pp_size=pt.pp, release=pt.release,
        # is_cpu() is SGLANG_USE_CPU_ENGINE=1 (0.5.19 sglang/srt/utils/common.py:215-217)
        cpu_engine=env.get("SGLANG_USE_CPU_ENGINE") == "1",
        disable_piecewise_cuda_graph=_on(s, "disable_piecewise_cuda_graph"),
    )


def _memory_settings(p: SglangPrediction, s: Settings, model: ModelDescription, pt: _Point) -> sg.MemorySettings:
    """SGLang's handle_gpu_memory_settings for the point: fraction, chunked prefill, graph batch sizes."""
    release = pt.release
    if _on(s, "enable_piecewise_cuda_graph") and release not in PREFILL_RESERVE_BY_DEFAULT:
        p.notes.append(f"--enable-piecewise-cuda-graph: sglang {release}'s opt-in piecewise graph reserve is not "
                       "modelled (the fraction below leaves it out)")
    settings = sg.memory_settings(
        p.gpu_total_mib, p.tp, pt.pp, device=pt.device,
        chunked_prefill_size=s.get("chunked_prefill_size"),
        max_prefill_tokens=s.get("max_prefill_tokens"),
        mem_fraction_static=s.get("mem_fraction_static"),
        max_running_requests=s.get("max_running_requests"), max_total_tokens=s.get("max_total_tokens"),
        cuda_graph_max_bs_decode=_decode_max_bs(s, release),
        cuda_graph_max_bs_prefill=s.get("cuda_graph_max_bs_prefill"),
        decode_backend=pt.decode_backend, prefill_backend=pt.prefill_backend,
        disable_cuda_graph_padding=_on(s, "disable_cuda_graph_padding"),
        torch_compile_max_bs=s.get("torch_compile_max_bs"),
        model_path=model.name, context_length=s.get("context_length"), release=release, mla=pt.mla,
    )
    p.chunked_prefill_size = settings.chunked_prefill_size
    p.cuda_graph_max_bs = settings.decode_max_bs
    return settings


def _fraction(p: SglangPrediction, pt: _Point) -> bool:
    """Records mem_fraction_static and the reserve where the release has a size to take them from; False where
    there is none (p says why)."""
    settings, device, release = pt.settings, pt.device, pt.release
    if _vlm_fraction_unmodelled(p, pt):
        return False
    f = settings.mem_fraction_static
    if f is None and device == "cuda":  # SGLang reads the card; the harness was not told its size
        p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
        return False
    if f is None:  # 0.4.6 reads no size off CUDA and compares None with 81,920 MiB (0.4.6 server_args.py:225)
        p.will_start = False
        p.reason = (f"sglang {release} stops without a device size when --mem-fraction-static is not given: "
                    "TypeError: '<=' not supported between instances of 'NoneType' and 'int'")
        return False
    if (p.gpu_total_mib is not None or settings.mem_fraction_static_given or device == "cuda"
            or (device == "cpu" and release not in CPU_HAS_A_SIZE)):
        p.mem_fraction_static = f
        p.reserved_mib = settings.reserved_mib if p.gpu_total_mib is not None else None
        if pt.mla and pt.prefill_backend != sg.BACKEND_DISABLED:
            # the flat MLA term, kept when trtllm_mla turns the graph off afterwards (_mla_page)
            p.prefill_reserve_mib = MLA_PREFILL_GRAPH_RESERVE_MIB
    elif modelled_release(p.engine_version) in CPU_MEMORY_FROM_MEMINFO_CAPPED:
        p.notes.append("mem_fraction_static depends on /proc/meminfo's MemTotal capped by the container's memory "
                       "limit, per NUMA node (give --gpu-memory-mib)")
    else:
        p.notes.append("mem_fraction_static depends on the smallest NUMA node's MemTotal (give --gpu-memory-mib)")
    p.graph_sizes = {"decode": settings.decode_bs if pt.decode_backend != sg.BACKEND_DISABLED else [],
                     "prefill": settings.prefill_bs if pt.prefill_backend != sg.BACKEND_DISABLED else []}
    return True


def _vlm_fraction_unmodelled(p: SglangPrediction, pt: _Point) -> bool:
    """A model with a vision tower: 0.4.4's fraction x 0.95 (releases.VLM_FRACTION_ALWAYS_LOWERED); from 0.4.10 the
    default lowered by the tower's size (VLM_DEFAULT_FRACTION_LOWERED, vlm_fraction.py), declined in one line where
    config.json leaves the tower's size to the transformers class (p says why)."""
    if not pt.vlm or pt.settings.mem_fraction_static is None:
        return False
    release = pt.release
    if release in VLM_FRACTION_ALWAYS_LOWERED:
        pt.settings.mem_fraction_static *= VLM_FRACTION_FACTOR
        p.notes.append(f"multimodal: sglang {release} multiplies mem_fraction_static by {VLM_FRACTION_FACTOR} "
                       "(model_runner.py:242-247)")
        return False
    if release not in VLM_DEFAULT_FRACTION_LOWERED or pt.settings.mem_fraction_static_given or pt.language_only:
        return False
    factor = vlm_fraction_factor(pt.vision_config)
    if isinstance(factor, str):
        p.modelled = False
        p.reason = (f"sglang {release}: the model is multimodal and SGLang {release} lowers its default "
                    f"mem_fraction_static by the vision tower's size (adjust_mem_fraction_for_vlm), but {factor}; "
                    "give --mem-fraction-static; no numbers")
        return True
    default = pt.settings.mem_fraction_static
    pt.settings.mem_fraction_static = default * factor
    p.notes.append(f"multimodal: sglang {release} lowers the default mem_fraction_static {default:.3f} by the "
                   f"vision tower's size, x {factor:.4f} = {pt.settings.mem_fraction_static:.4f} "
                   "(adjust_mem_fraction_for_vlm, 0.4.10 server_args.py:1946-1985)")
    return False


def _pools(p: SglangPrediction, s: Settings, env: dict[str, str], model: ModelDescription, pt: _Point) -> bool:
    """The KV cell, the weights and the page: one pool, or the two of a sliding-window model (swa_pools); False
    where those are not sized or refused (p says why)."""
    swa = swa_pools.plan(model, s, env, pt.release, p.tp, pt.settings.chunked_prefill_size)  # None: one pool
    if isinstance(swa, str):  # two pools the predictor does not size for these settings: one line
        p.modelled, p.reason = False, swa
        return False
    if swa is not None and swa_pools.ratio_error(swa):
        p.will_start, p.reason = False, swa_pools.ratio_error(swa)
        return False
    pt.swa = swa
    # MLA: (kv_lora_rank + qk_rope_head_dim) x layers x kv dtype bytes, on every TP rank alike (0.5.22
    # pool_configurator.py:353-380); dense: layers x 2 x kv heads per rank x head_dim x bytes
    pt.cell = swa.cell if swa is not None else model.kv_bytes_per_token(pt.kv_dtype, p.tp, pt.dtype)
    pt.weights = model.weight_bytes_per_rank(p.tp, pt.dtype)
    p.kv_bytes_per_token = pt.cell
    p.weights_gib = pt.weights / GiB
    pt.page = s.get("page_size") or 1
    if pt.mla:
        pt.page = _mla_page(p, s, model, pt.device, pt.release, pt.page, pt.prefill_backend)
    return True


def _context(p: SglangPrediction, s: Settings, env: dict[str, str], pt: _Point, derived_context_len: int) -> bool:
    """The context length: the given one, else the model's; False where SGLang refuses a longer one (p says why)."""
    ctx_arg = s.get("context_length")
    pt.context_len = p.context_len = ctx_arg or derived_context_len
    allow_longer = env.get("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN")
    if pt.release in LONGER_CONTEXT_ALLOWED_BY_DEFAULT:  # unset counts as true in 0.4.4-0.5.0
        allowed = allow_longer is None or allow_longer.lower() in ("1", "true")
    else:
        allowed = allow_longer in ("1", "true", "True")
    if ctx_arg and ctx_arg > derived_context_len and allowed:
        p.notes.append(f"context_length ({ctx_arg}) is greater than the derived context_length ({derived_context_len}):"
                       " SGLang warns and uses it")
    elif ctx_arg and ctx_arg > derived_context_len:
        # sglang/srt/configs/model_config.py:1205
        p.will_start = False
        p.reason = (f"context_length ({ctx_arg}) is greater than the derived context_length "
                    f"({derived_context_len}); set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to allow it")
        return False
    return True


def _state_pool(p: SglangPrediction, s: Settings, env: dict[str, str], model: ModelDescription, pt: _Point) -> bool:
    """A hybrid model's state pool beside the KV of its full-attention layers (mamba_pools); False where it is not
    sized (p says why)."""
    if not mamba_pools.is_hybrid(model):
        return True
    mamba = mamba_pools.plan(s, env, model, p.tp, pt.device, pt.release)
    if isinstance(mamba, str):
        mamba_pools.refuse(p, mamba)
        return False
    if pt.swa is not None or any(k.name in (MLA, SPARSE_MLA) for k in model.kinds):
        # each is read alone (swa_pools.py, mamba_pools.py, the MLA cell): a model with both is not sized
        p.modelled = False
        p.reason = (f"sglang {pt.release}: {model.name} has a Mamba state pool beside "
                    + ("two sliding-window pools" if pt.swa is not None else "latent (MLA) attention")
                    + ", which the predictor does not size together; no numbers")
        return False
    pt.mamba = mamba
    pt.cell = p.kv_bytes_per_token = mamba_pools.kv_cell(model, mamba.layout, pt.kv_dtype, p.tp, pt.dtype)
    p.notes.append(mamba_pools.describe(mamba))
    return True


def _fraction_note(p: SglangPrediction, pt: _Point) -> None:
    """Where the default fraction came from: the release's graph-reserve formula, or its older rule."""
    rule, settings = default_fraction_rule(pt.release), pt.settings
    if rule != RESERVE_FORMULA:
        if not settings.mem_fraction_static_given:
            p.notes.append(f"sglang {pt.release}'s default fraction comes from its {rule} (no graph or activation "
                           "term)")
        return
    p.notes.append(f"graph reserve {settings.graph_reserve_mib:.0f} MiB: decode {pt.decode_backend} "
                   f"({len(settings.decode_bs)} sizes, max_bs {settings.decode_max_bs}), prefill {pt.prefill_backend} "
                   f"({len(settings.prefill_bs)} buckets, max_bs {settings.prefill_max_bs})")


def _device_pool(p: SglangPrediction, s: Settings, calibration: Calibration | None, pt: _Point) -> SglangPrediction:
    """The pool from the device's memory: what the fraction leaves after the weights, less the other memory SGLang
    takes (fitted, or estimated per device); a CPU point without a size is sized by its --max-total-tokens alone."""
    f, max_total, mrr_arg = pt.settings.mem_fraction_static, s.get("max_total_tokens"), s.get("max_running_requests")
    if p.gpu_total_mib is None:
        if max_total is not None and pt.device == "cpu" and pt.mamba is None:
            # Explicit pool on the CPU: the RAM-sized pool is far larger, so the cap decides.
            return _pool(p, float("inf"), float("inf"), pt.cell, pt.context_len, pt.page, max_total, mrr_arg, f,
                         None, pt.swa, None)
        p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
        return p
    total_gib = p.gpu_total_mib / 1024
    free_gib = None if p.gpu_free_mib is None else p.gpu_free_mib / 1024
    base_gib, upper_rest = sg.rest_memory_gib(f, pt.weights / GiB, total_gib, free_gib)
    other = _other_memory(p, calibration, pt.device, f)
    # G1 text: pre = free before load (measured, else card minus context), available = pre - weights - other
    pre = base_gib if free_gib is not None else total_gib - other
    if free_gib is not None:
        p.notes.append(f"pool sized from {p.gpu_free_mib:.0f} MiB free before loading (default fraction from the "
                       f"{p.gpu_total_mib:.0f} MiB total)")
    return _pool(p, upper_rest, upper_rest - other, pt.cell, pt.context_len, pt.page, max_total, mrr_arg, f,
                 (pre, pre - pt.weights / GiB - other), pt.swa, pt.mamba)


def _other_memory(p: SglangPrediction, calibration: Calibration | None, device: str, f: float) -> float:
    """GiB SGLang takes beside the weights and the pool, recorded on p.estimates: the calibration's fit, the CPU
    engine's processes and load extra, or the GPU's CUDA context and non-torch allocations."""
    if calibration is not None:
        other = calibration.other_gib + calibration.per_axis_gib * f
        p.estimates["fitted"] = Estimate(other, f"{calibration.source}: other memory {calibration.other_gib:.3f} GiB"
                                         + (f" + {calibration.per_axis_gib:.3f} GiB x mem_fraction_static"
                                            if calibration.per_axis_gib else ""))
        return other
    if device == "cpu":
        # Read as SGLang began loading, the free memory already holds its processes; read before the
        # launch, they are to come (S).
        startup = 0.0 if p.free_at_load else f * sg.CPU_STARTUP_GIB_ESTIMATE
        if not p.free_at_load:
            p.estimates["S"] = Estimate(startup, f"estimate: the engine's processes take "
                                                 f"~{sg.CPU_STARTUP_GIB_ESTIMATE} GiB before SGLang's pre-load "
                                                 f"reading, x fraction {f}")
        p.estimates["L"] = Estimate(sg.CPU_LOAD_EXTRA_GIB_ESTIMATE, "estimate: taken between SGLang's two readings "
                                                                    "beyond the weights")
        return startup + sg.CPU_LOAD_EXTRA_GIB_ESTIMATE
    if p.free_at_load and p.gpu_free_mib is not None:  # SGLang's own pre-load reading: the context is out of it
        p.estimates["L"] = Estimate(sg.LOAD_EXTRA_GIB_ESTIMATE, "estimate: taken while loading beyond the weights "
                                                                "(the free memory is SGLang's pre-load reading)")
        return sg.LOAD_EXTRA_GIB_ESTIMATE
    p.estimates["O"] = Estimate(sg.OTHER_GIB_ESTIMATE, "estimate: CUDA context + non-torch allocations during load "
                                                       "(constant)")
    return sg.OTHER_GIB_ESTIMATE


def _mla_page(p: SglangPrediction, s: Settings, model: ModelDescription, device: str, release: str, page: int,
              prefill_backend: str) -> int:
    """An MLA model's page size: the one its attention backend forces when the point names that backend, else the
    page given (1 by default: fa3 on sm90, triton elsewhere, FlashInfer on sm100 for an architecture without the
    DeepSeek overrides; intel_amx on a CPU), with a note where the card's backend would change it."""
    attention = s.get("attention_backend")
    decode_attention = s.get("decode_attention_backend") or attention
    prefill_attention = s.get("prefill_attention_backend") or attention
    forced = sg.mla_page_size(page, release, attention, s.get("decode_attention_backend"))
    if forced != page:
        p.notes.append(f"MLA: attention backend {decode_attention} takes page size {forced}, not {page} "
                       "(overrides.py:1085-1150 _mla_backend_page_constraints)")
        page = forced
    archs = model.config.get("architectures") or [model.architecture]
    if (prefill_attention == "trtllm_mla" and "DeepseekV3ForCausalLM" in archs
            and prefill_backend != sg.BACKEND_DISABLED and s.get("cuda_graph_backend_prefill") is None):
        # after the fraction is set (pipeline.py:208 then :235): the reserve keeps its 1.5 GiB, no graph is captured
        p.graph_sizes["prefill"] = []
        p.notes.append("MLA: trtllm_mla turns DeepSeek-V3's prefill CUDA graph off after the fraction was set "
                       "(cuda_graph_hook.py:241-274): the reserve above still holds its 1.5 GiB")
    if device != "cpu" and not any(s.get(k) for k in ("attention_backend", "decode_attention_backend",
                                                      "prefill_attention_backend")):
        if model.architecture in DEEPSEEK_OVERRIDE_ARCHITECTURES:
            p.notes.append(f"MLA: page size {page} is that of fa3 (sm90) and triton; on sm100 (B200/GB200) SGLang "
                           "picks trtllm_mla for this architecture (model_overrides/deepseek_v2.py:178-189), page 64"
                           + (" and no prefill CUDA graph" if "DeepseekV3ForCausalLM" in archs else "")
                           + ": give attention_backend trtllm_mla there")
        else:
            p.notes.append(f"MLA: page size {page} is that of SGLang's default MLA backend on every CUDA card "
                           "(fa3 on sm90, flashinfer on sm100, else triton; model_override_base.py:268-330)")
    return page


def _pool(p: SglangPrediction, upper_rest: float, best_rest: float, cell: float, context_len: int, page: int,
          max_total: int | None, mrr_arg: int | None, f: float,
          g1: tuple[float, float] | None, swa: swa_pools.SwaPlan | None = None,
          mamba: mamba_pools.MambaPlan | None = None) -> SglangPrediction:
    if math.isinf(best_rest):
        tokens = max_total // page * page
        mrr = sg.resolve_max_num_reqs(tokens, context_len, mrr_arg, release=p.engine_version) if tokens > 0 else 0
        up = best = sg.Pool(tokens * cell, tokens, mrr,
                            min(context_len - 1, tokens - 1), min(context_len - 1, tokens - 1) - 5,
                            error=None if tokens > 0 else "G2: Not enough memory.")
        if 0 < tokens < context_len:
            best.notes.append(sg.pool_shorter_than_context_note(tokens, context_len, best.max_req_len,
                                                                p.engine_version))
    else:
        pre, avail = g1 if g1 else (None, None)
        size = sg.size_pool if mamba is None else mamba.size_pool
        up = size(upper_rest, cell, context_len, page, max_total, mrr_arg, release=p.engine_version)
        best = size(best_rest, cell, context_len, page, max_total, mrr_arg, pre_model_load_gib=pre,
                    mem_fraction_static=f, available_after_load_gib=avail, release=p.engine_version)
        if mamba is not None:
            p.state_pool_slots, p.state_pool_gib = best.state_slots, best.state_gib
    p.kv_tokens_upper_bound = up.max_total_num_tokens if up.error is None else 0
    p.kv_gib_upper_bound = max(0.0, upper_rest) if not math.isinf(upper_rest) else up.max_total_num_tokens * cell / GiB
    if mamba is not None:  # the state pool's share is not KV
        p.kv_gib_upper_bound = max(0.0, p.kv_gib_upper_bound - up.state_gib)
    p.kv_tokens = best.max_total_num_tokens if best.error is None else 0
    p.kv_gib = p.kv_tokens * cell / GiB
    p.max_running_requests = best.max_running_requests or None
    p.max_req_len = best.max_req_len or None
    p.notes.extend(best.notes)
    if best.error:
        p.will_start = False
        p.reason = best.error
    else:
        p.will_start = True
        p.reason = f"{best.max_total_num_tokens} tokens; max request {best.max_req_len} tokens"
    return swa_pools.finish(p, swa, page, best.max_total_num_tokens, up.max_total_num_tokens)
