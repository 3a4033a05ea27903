"""One prediction per run point: maps the point's engine args onto the engine's formulas.

`predict(...)` is the pure core (engine name + args + model + card); `predict_point(...)`
reads a RunPoint. Exact terms (weights from shapes, block/page arithmetic, SGLang's
fraction formula) and estimated terms (vLLM's O/A/G, SGLang's other memory) are kept
apart: `*_upper_bound` uses exact terms only, `kv_gib`/`kv_tokens` subtract the estimates,
which `estimates` lists with their labels.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from harness.errors import InputError
from harness.predict import sglang_formulas as sg
from harness.predict import vllm_formulas as vf
from harness.predict.model import DTYPE_BYTES, GiB, MiB, ModelDescription, resolve_dtype

ENGINES = ("vllm", "sglang")


@dataclass
class Estimate:
    """One non-exact term: its value and where it comes from."""

    gib: float
    basis: str


@dataclass
class Calibration:
    """Fitted replacement for the estimated terms (see harness.predict.calibrate).

    vLLM: O+A+G = other_gib + per_batched_token_gib x max_num_batched_tokens.
    SGLang: other = other_gib.
    """

    other_gib: float
    per_batched_token_gib: float = 0.0
    source: str = "calibration"


@dataclass
class Prediction:
    engine: str
    point_id: str | None
    args: dict[str, Any]  # the point's knobs as given; None = engine default
    device: str
    gpu_total_mib: float | None
    tp: int
    mem_fraction_static: float | None = None
    chunked_prefill_size: int | None = None
    cuda_graph_max_bs: int | None = None
    reserved_mib: float | None = None
    weights_gib: float | None = None
    kv_bytes_per_token: int | None = None
    kv_gib_upper_bound: float | None = None
    kv_tokens_upper_bound: int | None = None
    kv_gib: float | None = None
    kv_tokens: int | None = None
    num_blocks: int | None = None
    block_size: int | None = None
    max_concurrency: float | None = None
    max_model_len: int | None = None
    estimated_max_model_len: int | None = None
    max_num_batched_tokens: int | None = None
    max_num_seqs: int | None = None
    gpu_memory_utilization: float | None = None
    budget_gib: float | None = None
    max_running_requests: int | None = None
    max_req_len: int | None = None
    context_len: int | None = None
    will_start: bool | None = None
    reason: str = ""
    estimates: dict[str, Estimate] = field(default_factory=dict)
    graph_sizes: dict[str, list[int]] = field(default_factory=dict)  # captured batch sizes per graph kind
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("kv_gib_upper_bound", "kv_gib", "weights_gib", "budget_gib"):
            if out[key] is not None:
                out[key] = round(out[key], 4)
        if out["max_concurrency"] is not None:
            out["max_concurrency"] = round(out["max_concurrency"], 4)
        return out


def _int_or_none(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise InputError(f"{name}: expected an integer, got {value!r}")
    try:
        return int(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected an integer, got {value!r}") from None


def human_readable_int(value: Any, name: str) -> int | None:
    """vllm/utils/argparse_utils.py:29: '6G' = 6*2**30, '6g' = 6*10**9, plain ints as is."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    text = str(value).strip()
    suffix = text[-1:]
    binary = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    decimal = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
    try:
        if suffix in binary:
            return int(text[:-1]) * binary[suffix]
        if suffix in decimal:
            return int(float(text[:-1]) * decimal[suffix])
        return int(text)
    except ValueError:
        raise InputError(f"{name}: cannot read {value!r} as a byte count (e.g. 6G, 6442450944)") from None


def _max_model_len(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in ("auto", "-1"):
        return -1
    return human_readable_int(value, "max_model_len")


def _flag(args: dict[str, Any], key: str) -> bool:
    return bool(args.get(key))


# ---- vLLM -------------------------------------------------------------------------------------


def _predict_vllm(p: Prediction, args: dict[str, Any], env: dict[str, str], model: ModelDescription,
                  calibration: Calibration | None) -> Prediction:
    tp, device = p.tp, p.device
    dtype = resolve_dtype(args.get("dtype"), model.dtype)
    kv_dtype = args.get("kv_cache_dtype")
    block_size = _int_or_none(args.get("block_size"), "block_size") or (
        vf.DEFAULT_BLOCK_SIZE_CPU if device == "cpu" else vf.DEFAULT_BLOCK_SIZE_CUDA)
    util = float(args.get("gpu_memory_utilization") or vf.DEFAULT_GPU_MEMORY_UTILIZATION)
    requested_len = _max_model_len(args.get("max_model_len"))
    derived = model.vllm_max_model_len
    length = derived if requested_len in (None, -1) else requested_len
    total = p.gpu_total_mib * MiB if p.gpu_total_mib is not None else None
    world = tp * (_int_or_none(args.get("pipeline_parallel_size"), "pipeline_parallel_size") or 1)
    mnbt, mns = vf.resolve_batch(
        _int_or_none(args.get("max_num_batched_tokens"), "max_num_batched_tokens"),
        _int_or_none(args.get("max_num_seqs"), "max_num_seqs"), length,
        vf.batch_defaults(total, device=device, world_size=world),
        enable_chunked_prefill=args.get("enable_chunked_prefill") is not False,
        performance_mode=str(args.get("performance_mode") or "balanced"),
    )
    page = model.page_bytes_per_layer(block_size, kv_dtype, tp, dtype)
    bpb = page * model.num_layers  # _get_kv_cache_bytes_per_block, one uniform group
    weights = model.weight_bytes_per_rank(tp, dtype)
    p.block_size, p.max_num_batched_tokens, p.max_num_seqs = block_size, mnbt, mns
    p.gpu_memory_utilization = util
    p.kv_bytes_per_token = model.kv_bytes_per_token(kv_dtype, tp, dtype)
    p.weights_gib = weights / GiB
    p.context_len = length

    explicit_kv = human_readable_int(args.get("kv_cache_memory_bytes"), "kv_cache_memory_bytes")
    if device == "cpu" and env.get("VLLM_CPU_KVCACHE_SPACE", "") != "":
        # platforms/cpu.py:324-327: the env var, when set, replaces the flag
        raw = env["VLLM_CPU_KVCACHE_SPACE"]
        try:
            explicit_kv = int(raw) * GiB
        except ValueError:
            p.will_start = False
            p.reason = f"VLLM_CPU_KVCACHE_SPACE={raw!r} is not an integer: vLLM's int() fails at startup"
            return p
        if args.get("kv_cache_memory_bytes") is not None:
            p.notes.append(f"VLLM_CPU_KVCACHE_SPACE={raw} overrides --kv-cache-memory-bytes "
                           f"{args['kv_cache_memory_bytes']} (platforms/cpu.py:324)")
        else:
            p.notes.append(f"KV space from VLLM_CPU_KVCACHE_SPACE={raw} GiB")

    if explicit_kv is not None:
        upper = best = explicit_kv
        p.notes.append("KV size given explicitly: no profiling, gpu_memory_utilization ignored")
    elif total is None:
        p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
        return _vllm_blocks_only(p, model, bpb, block_size, requested_len, derived, args)
    else:
        budget = vf.budget_bytes(total, util)
        p.budget_gib = budget / GiB
        upper = budget - weights
        if calibration is not None:
            overhead = (calibration.other_gib + calibration.per_batched_token_gib * mnbt) * GiB
            p.estimates["fitted"] = Estimate(overhead / GiB, f"{calibration.source}: "
                                             f"{calibration.other_gib:.3f} GiB + "
                                             f"{calibration.per_batched_token_gib * 1024:.4f} MiB "
                                             "x max_num_batched_tokens")
        else:
            other = vf.OTHER_GIB_ESTIMATE * GiB
            act = vf.activation_estimate_bytes(model, mnbt, min(mns, mnbt), tp, DTYPE_BYTES[dtype])
            eager = _flag(args, "enforce_eager") or device != "cuda"
            sizes = [] if eager else vf.cudagraph_capture_sizes(
                mns, mnbt, _int_or_none(args.get("max_cudagraph_capture_size"), "max_cudagraph_capture_size"))
            full = vf.full_decode_sizes(mns, sizes)
            n_graphs = len(sizes) + len(full)
            if sizes:
                p.graph_sizes = {"piecewise": sizes, "full_decode": full}
            graphs = n_graphs * vf.GRAPH_MIB_PER_SIZE_ESTIMATE * MiB
            if env.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "1") == "0":
                graphs = 0.0
            p.estimates["O"] = Estimate(other / GiB, "estimate: non-torch memory after the snapshot (constant)")
            p.estimates["A"] = Estimate(act / GiB, f"estimate: dummy-forward peak for {mnbt} tokens, "
                                                   f"{min(mns, mnbt)} sampled rows")
            p.estimates["G"] = Estimate(graphs / GiB, f"estimate: {n_graphs} CUDA graphs x "
                                                      f"{vf.GRAPH_MIB_PER_SIZE_ESTIMATE} MiB" if graphs else
                                        "no CUDA graphs (eager, CPU, or estimate disabled)")
            overhead = other + act + graphs
        best = int(upper - overhead)
        ctx = vf.CUDA_CONTEXT_GIB_ESTIMATE * GiB
        if device == "cuda" and budget > total - ctx:
            p.will_start = False
            p.reason = (f"E1 likely: requested {budget / GiB:.2f} GiB exceeds free memory on an empty card "
                        f"(~{(total - ctx) / GiB:.2f} GiB after a ~{vf.CUDA_CONTEXT_GIB_ESTIMATE} GiB CUDA context)")

    if requested_len is not None and requested_len > derived and env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN") != "1":
        # vllm/config/model.py:2662 (E7), raised by the API server before any memory is touched
        p.will_start = False
        p.reason = (f"E7: User-specified max_model_len ({requested_len}) is greater than the derived max_model_len "
                    f"({derived}); set VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 to allow it")
        return p
    num_override = _int_or_none(args.get("num_gpu_blocks_override"), "num_gpu_blocks_override")
    up = vf.size_kv(upper, bpb, block_size, requested_len if requested_len is not None else derived,
                    derived, num_override)
    kv = vf.size_kv(best, bpb, block_size, requested_len if requested_len is not None else derived,
                    derived, num_override)
    p.kv_gib_upper_bound = up.available_bytes / GiB
    p.kv_tokens_upper_bound = up.kv_tokens if up.error is None else 0
    p.kv_gib = kv.available_bytes / GiB
    p.num_blocks = kv.num_blocks
    p.max_concurrency = kv.max_concurrency
    p.max_model_len = kv.max_model_len
    p.context_len = kv.max_model_len
    p.max_req_len = kv.max_model_len
    p.estimated_max_model_len = kv.estimated_max_model_len
    p.notes.extend(kv.notes)
    if kv.error is not None:
        p.kv_tokens = 0
        p.will_start = False
        at_upper = f" (at the upper bound it would start: {up.kv_tokens} tokens)" if up.error is None else ""
        p.reason = kv.error + at_upper
    else:
        p.kv_tokens = kv.kv_tokens
        if p.will_start is None:
            p.will_start = True
            p.reason = (f"{kv.num_blocks} blocks of {block_size} tokens; "
                        f"{kv.max_concurrency:.2f}x requests of {kv.max_model_len} tokens")
    return p


def _vllm_blocks_only(p, model, bpb, block_size, requested_len, derived, args) -> Prediction:
    num_override = _int_or_none(args.get("num_gpu_blocks_override"), "num_gpu_blocks_override")
    if num_override is None:
        return p
    kv = vf.size_kv(0, bpb, block_size, requested_len if requested_len is not None else derived, derived, num_override)
    p.kv_gib = p.kv_gib_upper_bound = kv.available_bytes / GiB
    p.num_blocks, p.max_concurrency, p.max_model_len = kv.num_blocks, kv.max_concurrency, kv.max_model_len
    p.kv_tokens = p.kv_tokens_upper_bound = kv.kv_tokens if kv.error is None else 0
    p.will_start = kv.error is None
    p.reason = kv.error or "num_gpu_blocks_override fixes the pool"
    return p


# ---- SGLang -----------------------------------------------------------------------------------


def _predict_sglang(p: Prediction, args: dict[str, Any], env: dict[str, str], model: ModelDescription,
                    model_path: str, calibration: Calibration | None) -> Prediction:
    tp = p.tp
    device = str(args.get("device") or p.device)
    pp = _int_or_none(args.get("pp_size"), "pp_size") or 1
    dtype = resolve_dtype(args.get("dtype"), model.dtype)
    kv_dtype = args.get("kv_cache_dtype")
    decode_backend, prefill_backend = sg.graph_backends(
        "cuda" if device == "cuda" else device,
        disable_cuda_graph=_flag(args, "disable_cuda_graph"),
        disable_prefill_cuda_graph=_flag(args, "disable_prefill_cuda_graph"),
        disable_decode_cuda_graph=_flag(args, "disable_decode_cuda_graph"),
        cuda_graph_backend_decode=args.get("cuda_graph_backend_decode"),
        cuda_graph_backend_prefill=args.get("cuda_graph_backend_prefill"),
        pp_size=pp,
    )
    max_total = _int_or_none(args.get("max_total_tokens"), "max_total_tokens")
    mrr_arg = _int_or_none(args.get("max_running_requests"), "max_running_requests")
    settings = sg.memory_settings(
        p.gpu_total_mib, tp, pp, device=device,
        chunked_prefill_size=_int_or_none(args.get("chunked_prefill_size"), "chunked_prefill_size"),
        max_prefill_tokens=_int_or_none(args.get("max_prefill_tokens"), "max_prefill_tokens"),
        mem_fraction_static=args.get("mem_fraction_static"),
        max_running_requests=mrr_arg, max_total_tokens=max_total,
        cuda_graph_max_bs_decode=_int_or_none(args.get("cuda_graph_max_bs_decode"), "cuda_graph_max_bs_decode"),
        cuda_graph_max_bs_prefill=_int_or_none(args.get("cuda_graph_max_bs_prefill"), "cuda_graph_max_bs_prefill"),
        decode_backend=decode_backend, prefill_backend=prefill_backend,
        disable_cuda_graph_padding=_flag(args, "disable_cuda_graph_padding"),
        torch_compile_max_bs=_int_or_none(args.get("torch_compile_max_bs"), "torch_compile_max_bs"),
        model_path=model_path,
    )
    f = settings.mem_fraction_static
    p.chunked_prefill_size = settings.chunked_prefill_size
    p.cuda_graph_max_bs = settings.decode_max_bs
    if p.gpu_total_mib is not None or settings.mem_fraction_static_given or device == "cuda":
        p.mem_fraction_static = f
        p.reserved_mib = settings.reserved_mib if p.gpu_total_mib is not None else None
    else:
        p.notes.append("mem_fraction_static depends on the node's MemTotal (give --gpu-memory-mib)")
    p.graph_sizes = {"decode": settings.decode_bs if decode_backend != sg.BACKEND_DISABLED else [],
                     "prefill": settings.prefill_bs if prefill_backend != sg.BACKEND_DISABLED else []}
    cell = model.kv_bytes_per_token(kv_dtype, tp, dtype)
    weights = model.weight_bytes_per_rank(tp, dtype)
    p.kv_bytes_per_token = cell
    p.weights_gib = weights / GiB
    page = _int_or_none(args.get("page_size"), "page_size") or 1
    ctx_arg = _int_or_none(args.get("context_length"), "context_length")
    context_len = ctx_arg or model.sglang_context_len
    p.context_len = context_len
    if ctx_arg and ctx_arg > model.sglang_context_len and env.get("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN") not in (
            "1", "true", "True"):
        # sglang/srt/configs/model_config.py:1205
        p.will_start = False
        p.reason = (f"context_length ({ctx_arg}) is greater than the derived context_length "
                    f"({model.sglang_context_len}); set SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 to allow it")
        return p
    p.notes.append(f"graph reserve {settings.graph_reserve_mib:.0f} MiB: decode {decode_backend} "
                   f"({len(settings.decode_bs)} sizes, max_bs {settings.decode_max_bs}), prefill {prefill_backend} "
                   f"({len(settings.prefill_bs)} buckets, max_bs {settings.prefill_max_bs})")

    if p.gpu_total_mib is None:
        if max_total is not None and device == "cpu":
            # Explicit pool on the CPU: the RAM-sized pool is far larger, so the cap decides.
            return _sglang_pool(p, float("inf"), float("inf"), cell, context_len, page, max_total, mrr_arg, f, None)
        p.reason = "no device size: give the scenario's gpu.memory_gib or --gpu-memory-mib"
        return p

    total_gib = p.gpu_total_mib / 1024
    upper_rest = total_gib * f - weights / GiB
    if calibration is not None:
        other = calibration.other_gib
        p.estimates["fitted"] = Estimate(other, f"{calibration.source}: other memory {other:.3f} GiB")
    else:
        other = sg.OTHER_GIB_ESTIMATE
        p.estimates["O"] = Estimate(other, "estimate: CUDA context + non-torch allocations during load (constant)")
    best_rest = upper_rest - other
    # G1 text: pre = free before load (card minus context), available = pre - weights - other
    pre = total_gib - other
    return _sglang_pool(p, upper_rest, best_rest, cell, context_len, page, max_total, mrr_arg, f,
                        (pre, pre - weights / GiB - other))


def _sglang_pool(p: Prediction, upper_rest: float, best_rest: float, cell: int, context_len: int, page: int,
                 max_total: int | None, mrr_arg: int | None, f: float, g1: tuple[float, float] | None) -> Prediction:
    if math.isinf(best_rest):
        tokens = max_total // page * page
        mrr = sg.resolve_max_num_reqs(tokens, context_len, mrr_arg) if tokens > 0 else 0
        up = best = sg.Pool(tokens * cell, tokens, mrr,
                            min(context_len - 1, tokens - 1), min(context_len - 1, tokens - 1) - 5,
                            error=None if tokens > 0 else "G2: Not enough memory.")
    else:
        pre, avail = g1 if g1 else (None, None)
        up = sg.size_pool(upper_rest, cell, context_len, page, max_total, mrr_arg)
        best = sg.size_pool(best_rest, cell, context_len, page, max_total, mrr_arg, pre_model_load_gib=pre,
                            mem_fraction_static=f, available_after_load_gib=avail)
    p.kv_tokens_upper_bound = up.max_total_num_tokens if up.error is None else 0
    p.kv_gib_upper_bound = max(0.0, upper_rest) if not math.isinf(upper_rest) else up.max_total_num_tokens * cell / GiB
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
    return p


# ---- entry points -----------------------------------------------------------------------------


def predict(engine: str, args: dict[str, Any], model: ModelDescription, gpu_total_mib: float | None,
            tp: int | None = None, device: str = "cuda", env: dict[str, str] | None = None,
            point_id: str | None = None, knobs: dict[str, Any] | None = None, model_path: str = "",
            calibration: Calibration | None = None) -> Prediction:
    if engine not in ENGINES:
        raise InputError(f"engine {engine!r}: the predictor knows {', '.join(ENGINES)}")
    args = dict(args or {})
    if engine == "sglang":
        # SGLang's own device flag decides the platform (memory_hook reads cfg.device)
        device = str(args.get("device") or device)
        tp_arg = args.get("tp_size", args.get("tensor_parallel_size"))
    else:
        tp_arg = args.get("tensor_parallel_size")
    tp_eff = int(tp) if tp is not None else (_int_or_none(tp_arg, "tp") or 1)
    p = Prediction(engine=engine, point_id=point_id, args=dict(knobs if knobs is not None else args), device=device,
                   gpu_total_mib=gpu_total_mib, tp=tp_eff)
    env = {k: str(v) for k, v in (env or {}).items()}
    if engine == "vllm":
        return _predict_vllm(p, args, env, model, calibration)
    return _predict_sglang(p, args, env, model, model_path, calibration)


def predict_point(point: Any, model: ModelDescription, gpu_total_mib: float | None, tp: int | None = None,
                  device: str = "cuda", calibration: Calibration | None = None) -> Prediction:
    """Prediction for one RunPoint (harness.sweep.RunPoint: engine, args, knobs, env, point_id, model)."""
    return predict(point.engine, point.args, model, gpu_total_mib, tp=tp, device=device, env=point.env,
                   point_id=point.point_id, knobs=point.knobs, model_path=str(point.model), calibration=calibration)


def prediction_error_pct(predicted: float | None, measured: float | None) -> float | None:
    """(measured - predicted) / predicted x 100; None when either side is missing or predicted is 0."""
    if predicted in (None, 0) or measured is None:
        return None
    return (measured - predicted) / predicted * 100.0

