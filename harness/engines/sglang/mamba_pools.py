"""SGLang's pools for a hybrid Mamba / linear-attention model: KV for the full-attention layers only, and a state pool
of whole-request slots (conv + temporal state of every state layer) sized first from the same budget.

Read from 0.5.22 and 0.5.23 (the same code for what is modelled here; 0.5.23 only adds max(1, ...) guards for DP
attention, which is not modelled), and 0.5.21 (MAMBA_POOLS_MODELLED). Pure: a model description and a point's
settings in, the plan or the one clause why the predictor does not size it out. Citations are 0.5.22 paths under
sglang/srt/.

1. Which layers: Nemotron-H's `hybrid_override_pattern` / `layers_block_type` (M Mamba2, * attention;
   configs/nemotron_h.py:409-422), Qwen3-Next's `full_attention_interval` (configs/qwen3_next.py:259-285), Granite 4's
   `layer_types` (configs/granitemoehybrid.py:183-195), Falcon-H1's every layer both (configs/falcon_h1.py:292-299).
2. One slot of state: configs/mamba_utils.py:117-129 mamba_cache_per_req = (conv elements x conv dtype + temporal
   elements x SSM dtype) x state layers, shapes from Mamba2StateShape.create (:198-257, head shards and group
   replication across tp) as nemotron_h.py:425-439 and qwen3_next.py:288-313 call it; the conv dtype is
   SGLANG_MAMBA_CONV_DTYPE (bfloat16 by default, whatever the model's dtype), the SSM dtype float32 unless the
   config's mamba_ssm_dtype or SGLANG_MAMBA_SSM_DTYPE (--mamba-ssm-dtype sets it, arg_groups/serving_hook.py:
   418-419) say otherwise (mamba_utils.py:46-105).
3. The radix-cache strategy (arg_groups/overrides.py:430-462 _mamba_radix_cache_resolution, arg_groups/
   model_hook.py:1025-1055 handle_mamba_radix_cache, arg_groups/mamba_hook.py:109-163): `auto` takes extra_buffer
   with the overlap schedule (or pages > 1) where the architecture and the triton linear-attention backend
   support it, else no_buffer with the overlap schedule off; extra_buffer then asserts a CUDA/MUSA/NPU/HIP/XPU
   platform, no_buffer page size 1 and the overlap schedule off.
4. The state pool first (mem_cache/kv_cache_configurator.py:2668-2741 _profile_available_bytes, :2876-3073
   _handle_max_mamba_cache): --max-mamba-cache-size as given; else with the radix cache off and
   --max-running-requests given, that; else int((rest x r / (1 + r) - per_slot) // per_slot) slots, r =
   --mamba-full-memory-ratio (0.9, arg_groups/fields/schedule.py:214-221). It takes (slots + 1) x per_slot
   (memory_pool.py:940-985: one padding slot) from the rest, before the "Loaded weights leave no GPU memory"
   check; the KV pool is sized from what is left, its cell over the full-attention layers only
   (model_executor/pool_configurator.py:226-233); with no attention layer on the rank, --max-total-tokens or the
   context length (:243-247).
5. max_running_requests: the dense rule, capped at slots // ratio, ratio 1 with the radix cache off, else 3 + the
   extra_buffer tracking slots (2 with the overlap schedule, 1 without or lazy; mem_cache/allocation_sizing.py:
   11-19), SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK moving the base (kv_cache_configurator.py:217-224, :2743-2772,
   :2815-2839).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.engines.releases import ReleaseRange
from harness.engines.settings import Settings
from harness.engines.sglang import formulas as sg
from harness.predict.kinds import HYBRID
from harness.predict.model import GiB, ModelDescription

# The releases whose Mamba pools were read (older ones keep the one line of SglangFormulas.kind_sources). 0.5.21 sizes
# alike (its _calculate_mamba_ratio spells the tracking slots out, 0.5.21 mem_cache/kv_cache_configurator.py:
# 2232-2265) and words its platform refusal otherwise (0.5.21 arg_groups/mamba_hook.py:106-112).
MAMBA_POOLS_MODELLED = ReleaseRange("0.5.21", "0.5.24")
PLATFORM_REFUSAL_NAMES_SNAPSHOTS = ReleaseRange("0.5.22")

_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
# Architectures whose radix cache takes the Mamba strategies, and those that support extra_buffer (the modelled
# ones among arg_groups/overrides.py:347-378 _MAMBA_RADIX_CACHE_ARCHS and :380-405 _MAMBA_EXTRA_BUFFER_ARCHS)
_RADIX_AND_EXTRA_BUFFER = frozenset({"NemotronHForCausalLM", "Qwen3NextForCausalLM", "GraniteMoeHybridForCausalLM",
                                     "FalconH1ForCausalLM"})
# mamba_hook.py:96-106 _platform_supports_mamba_cache_extra_buffer
_SNAPSHOT_PLATFORMS = frozenset({"cuda", "musa", "npu", "hip", "xpu"})
DEFAULT_FULL_MEMORY_RATIO = 0.9  # arg_groups/fields/schedule.py:214-221 (fallback)
BASE_RATIO = 3  # kv_cache_configurator.py:222 MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO
STRATEGY_REFUSED = "M1"
STATE_POOL_EMPTY = "M2"
STATE_POOL_SERVES_NONE = "M3"


@dataclass(frozen=True)
class StateLayout:
    """A hybrid model's layers on one TP rank, as SGLang reads them."""

    family: str
    attention_layers: int
    state_layers: int
    conv_elements: int  # one layer's conv state on one rank
    temporal_elements: int  # one layer's temporal (SSM) state on one rank
    config_ssm_dtype: str | None  # the config's mamba_ssm_dtype, where it names one

    def per_slot_bytes(self, conv_bytes: int, ssm_bytes: int) -> int:
        return (self.conv_elements * conv_bytes + self.temporal_elements * ssm_bytes) * self.state_layers


def _divide(n: int, tp: int, what: str) -> int | str:
    # distributed/utils.py divide: asserts divisibility
    return n // tp if n % tp == 0 else f"{what} ({n}) does not divide by tp {tp}"


def _mamba2_shape(tp: int, intermediate: int, n_groups: int, heads: int, head_dim: int, state: int,
                  kernel: int) -> tuple[int, int] | str:
    """(conv, temporal) elements per layer and rank: mamba_utils.py:198-257 Mamba2StateShape.create."""
    if n_groups % tp:
        n_groups += tp - n_groups  # extra_groups_for_head_shards (mamba_utils.py:29-38), as written
    conv_dim = intermediate + 2 * n_groups * state
    conv = _divide(conv_dim, tp, "the conv dimension")
    heads_rank = _divide(heads, tp, "the state heads")
    for part in (conv, heads_rank):
        if isinstance(part, str):
            return part
    return conv * (kernel - 1), heads_rank * head_dim * state


def _ints(cfg: dict, keys: tuple[str, ...]) -> dict[str, int] | str:
    missing = [k for k in keys if not isinstance(cfg.get(k), int)]
    return f"config.json lacks {', '.join(missing)}" if missing else {k: cfg[k] for k in keys}


def state_layout(model: ModelDescription, tp: int = 1) -> StateLayout | str:
    """The layout, or why the predictor does not read it (one clause)."""
    cfg = model.config
    ssm = cfg.get("mamba_ssm_dtype")
    ssm = ssm if isinstance(ssm, str) else None
    if model.architecture == "NemotronHForCausalLM":
        kinds = cfg.get("layers_block_type")
        if isinstance(kinds, list):  # configs/nemotron_h.py:195-209: the canonical list wins
            letters = {"mamba": "M", "attention": "*", "mlp": "-", "moe": "E"}
            pattern = "".join(letters.get(str(k), "?") for k in kinds)
        else:
            pattern = cfg.get("hybrid_override_pattern")
        if not isinstance(pattern, str) or set(pattern) - set("M*-E"):
            return f"Nemotron-H layer pattern {pattern!r} is not one of M, *, - and E"
        keys = _ints(cfg, ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel"))
        if isinstance(keys, str):
            return keys
        heads, head_dim = keys["mamba_num_heads"], keys["mamba_head_dim"]
        shape = _mamba2_shape(tp, heads * head_dim, keys["n_groups"], heads, head_dim, keys["ssm_state_size"],
                              keys["conv_kernel"])
        if isinstance(shape, str):
            return shape
        return StateLayout("Mamba2", pattern.count("*"), pattern.count("M"), *shape, ssm)
    if model.architecture == "Qwen3NextForCausalLM":
        keys = _ints(cfg, ("num_hidden_layers", "full_attention_interval", "linear_num_key_heads",
                           "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
                           "linear_conv_kernel_dim"))
        if isinstance(keys, str):
            return keys
        layers, interval = keys["num_hidden_layers"], keys["full_attention_interval"]
        full = sum((i + 1) % interval == 0 for i in range(layers))
        v_heads, v_dim = keys["linear_num_value_heads"], keys["linear_value_head_dim"]
        shape = _mamba2_shape(tp, v_heads * v_dim, keys["linear_num_key_heads"], v_heads, v_dim,
                              keys["linear_key_head_dim"], keys["linear_conv_kernel_dim"])
        if isinstance(shape, str):
            return shape
        return StateLayout("gated delta net", full, layers - full, *shape, ssm)
    if model.architecture == "GraniteMoeHybridForCausalLM":
        return _granite_4(cfg, tp)
    if model.architecture == "FalconH1ForCausalLM":
        return _falcon_h1(cfg, tp, ssm)
    return (f"SGLang's MambaPool for {model.architecture or model.model_type}'s state layers (mambaish_config, "
            "configs/hybrid_arch.py) is not modelled: the predictor reads Nemotron-H's, Qwen3-Next's, Granite "
            "4's and Falcon-H1's only")


# SGLang's own GraniteMoeHybridConfig defaults (configs/granitemoehybrid.py:160-165)
_GRANITE_DEFAULTS = {"mamba_d_state": 128, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_d_head": 64,
                     "mamba_n_heads": 64, "mamba_n_groups": 1}


def _granite_4(cfg: dict, tp: int) -> StateLayout | str:
    """Granite 4 (configs/granitemoehybrid.py:183-195, :279-310): layer_types mamba / attention (transformers 5.15's
    linear_attention / full_attention read as those), every 6th layer attention without it; the intermediate size is
    mamba_expand x hidden_size; its cache params name no dtype, so the config's mamba_ssm_dtype is not read."""
    layers = cfg.get("num_hidden_layers")
    if not isinstance(layers, int) or not isinstance(cfg.get("hidden_size"), int):
        return "config.json lacks num_hidden_layers or hidden_size"
    types = cfg.get("layer_types")
    if types is None:
        kinds = ["attention" if (i + 1) % 6 == 0 else "mamba" for i in range(layers)]
    else:
        aliases = {"linear_attention": "mamba", "full_attention": "attention"}
        kinds = [aliases.get(str(k), str(k)) for k in types]
    if set(kinds) - {"mamba", "attention"} or len(kinds) != layers:
        return f"Granite 4 layer_types {types!r} are not {layers} of mamba and attention"
    keys = {k: cfg[k] if isinstance(cfg.get(k), int) else default for k, default in _GRANITE_DEFAULTS.items()}
    shape = _mamba2_shape(tp, keys["mamba_expand"] * cfg["hidden_size"], keys["mamba_n_groups"],
                          keys["mamba_n_heads"], keys["mamba_d_head"], keys["mamba_d_state"], keys["mamba_d_conv"])
    if isinstance(shape, str):
        return shape
    return StateLayout("Mamba2", kinds.count("attention"), kinds.count("mamba"), *shape, None)


# SGLang's own FalconH1Config defaults (configs/falcon_h1.py:159-165)
_FALCON_DEFAULTS = {"mamba_n_heads": 128, "mamba_n_groups": 1, "mamba_d_state": 256, "mamba_d_conv": 4,
                    "mamba_expand": 2}


def _falcon_h1(cfg: dict, tp: int, ssm: str | None) -> StateLayout | str:
    """Falcon-H1 (configs/falcon_h1.py:211-224, :292-315): attention and a Mamba2 mixer in every layer; the
    intermediate size is mamba_d_ssm (1024 unless null, then mamba_expand x hidden_size), the head size
    intermediate / heads where "auto"."""
    layers, hidden = cfg.get("num_hidden_layers"), cfg.get("hidden_size")
    if not isinstance(layers, int) or not isinstance(hidden, int):
        return "config.json lacks num_hidden_layers or hidden_size"
    keys = {k: cfg[k] if isinstance(cfg.get(k), int) else default for k, default in _FALCON_DEFAULTS.items()}
    inner = cfg.get("mamba_d_ssm", 1024)
    inner = keys["mamba_expand"] * hidden if inner is None else inner
    head_dim = cfg.get("mamba_d_head", "auto")
    head_dim = inner // keys["mamba_n_heads"] if head_dim == "auto" else head_dim
    if not isinstance(inner, int) or not isinstance(head_dim, int) or head_dim * keys["mamba_n_heads"] != inner:
        return f"Falcon-H1's mamba heads ({keys['mamba_n_heads']} x {head_dim}) do not make mamba_d_ssm {inner}"
    shape = _mamba2_shape(tp, inner, keys["mamba_n_groups"], keys["mamba_n_heads"], head_dim, keys["mamba_d_state"],
                          keys["mamba_d_conv"])
    if isinstance(shape, str):
        return shape
    return StateLayout("Mamba2", layers, layers, *shape, ssm)


@dataclass(frozen=True)
class MambaPlan:
    """What SGLang settles before sizing: the layout, the per-slot bytes, the strategy and the slot ratio."""

    layout: StateLayout
    per_slot: int  # bytes of one request's state over every state layer, one rank
    conv_dtype: str
    ssm_dtype: str
    strategy: str  # "no_buffer", "extra_buffer", "extra_buffer_lazy", or "radix cache off"
    ratio: int  # state slots per running request
    max_mamba_cache_size: int | None  # --max-mamba-cache-size, or max_running_requests with the radix cache off
    full_memory_ratio: float

    def state_slots(self, rest_gib: float) -> int:
        """kv_cache_configurator.py:2978-3055: the slots given, else the share of the rest."""
        if self.max_mamba_cache_size is not None:
            return self.max_mamba_cache_size
        r = self.full_memory_ratio
        budget = rest_gib * r / (1 + r) * (1 << 30)
        return int((budget - self.per_slot) // self.per_slot)

    def state_gib(self, slots: int) -> float:
        return (slots + 1) * self.per_slot / GiB  # memory_pool.py:940-985: one padding slot

    def size_pool(self, rest_gib: float, cell: int, context_len: int, page: int, max_total: int | None,
                  mrr_arg: int | None, release: str | None, **g1) -> HybridPool:
        """The state pool, then the KV pool from what it leaves (sg.size_pool), then the request cap."""
        slots = self.state_slots(rest_gib)
        if slots <= 0:  # kv_cache_configurator.py:3057-3070
            return HybridPool(0, 0, 0, 0, 0, error=(
                f"{STATE_POOL_EMPTY}: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed "
                f"max_mamba_cache_size={slots} (total_rest_memory={rest_gib:.2f} GB, mamba_cache_per_req="
                f"{self.per_slot / (1 << 20):.2f} MB)"), state_slots=slots, state_gib=0.0)
        state = self.state_gib(slots)
        rest = rest_gib - state
        if cell == 0 and rest > 0:  # no attention layer: pool_configurator.py:243-247, :592-594
            tokens = (max_total or context_len) // page * page
            pool = sg.Pool(0, tokens, sg.resolve_max_num_reqs(tokens, context_len, mrr_arg, release=release),
                           min(context_len - 1, tokens - 1), min(context_len - 1, tokens - 1) - 5)
        else:
            pool = sg.size_pool(rest, max(cell, 1), context_len, page, max_total, mrr_arg, release=release, **g1)
        held = (f"Mamba state pool: {slots:,} slots, {state:.2f} GiB ((slots + 1) x {self.per_slot:,} B, taken "
                f"before the KV pool from a rest of {rest_gib:.2f} GiB)")
        notes = [held, *pool.notes]
        out = HybridPool(**{k: getattr(pool, k) for k in ("budget_bytes", "max_total_num_tokens",
                                                          "max_running_requests", "max_req_len", "max_req_input_len",
                                                          "error")},
                         notes=notes, state_slots=slots, state_gib=state)
        if out.error is not None:
            return out
        cap = slots // self.ratio
        if cap < out.max_running_requests:
            out.notes.append(f"max_running_requests is capped to {cap} by the mamba state cache "
                             f"(max_mamba_cache_size={slots}, {self.ratio} state slots per request)")
            out = replace(out, max_running_requests=cap)
        if out.max_running_requests <= 0:  # kv_cache_configurator.py:2831-2839
            out = replace(out, error=(
                f"{STATE_POOL_SERVES_NONE}: Hybrid (mamba/linear-attention) state cache is too small to serve any "
                f"requests. max_mamba_cache_size={slots}, mamba_ratio={self.ratio}, resulting "
                f"max_num_reqs={out.max_running_requests}"))
        return out


@dataclass
class HybridPool(sg.Pool):
    state_slots: int = 0
    state_gib: float = 0.0


def _dtype(name: str | None, default: str) -> str:
    return name if name in _DTYPE_BYTES else default


def plan(s: Settings, env: dict[str, str], model: ModelDescription, tp: int, device: str,
         release: str) -> MambaPlan | str:
    """The plan for a point of a hybrid model, or why it is not modelled ("not modelled: ...") or the refusal
    SGLang stops with while resolving its arguments ("M1: ...")."""
    layout = state_layout(model, tp)
    if isinstance(layout, str):
        return f"not modelled: {layout}"
    unmodelled = [k for k in ("speculative_algorithm", "enable_unified_memory", "enable_dp_attention",
                              "enable_linear_replayssm_spec", "enable_int8_mamba_checkpoint",
                              "enable_hierarchical_cache") if s.get(k)]
    if (s.get("pp_size") or 1) > 1:
        unmodelled.append("pp_size")
    if unmodelled:
        return f"not modelled: {', '.join(unmodelled)} with Mamba state pools"
    # mamba_utils.py:46-105: an unknown name falls back (with a warning) to the default
    conv = _dtype(env.get("SGLANG_MAMBA_CONV_DTYPE"), "bfloat16")
    ssm = _dtype(layout.config_ssm_dtype, "float32")
    ssm = _dtype(s.get("mamba_ssm_dtype") or env.get("SGLANG_MAMBA_SSM_DTYPE"), ssm)
    per_slot = layout.per_slot_bytes(_DTYPE_BYTES[conv], _DTYPE_BYTES[ssm])
    if per_slot <= 0:
        return "not modelled: no state layer on this rank"
    skip_lock = env.get("SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK", "").lower() in ("1", "true")
    strategy = s.get("mamba_radix_cache_strategy") or "auto"
    overlap_off = bool(s.get("disable_overlap_schedule"))
    page = s.get("page_size")
    if s.get("disable_radix_cache"):
        resolved, ratio = "radix cache off", 1
    else:
        # overrides.py:414-426 supports_mamba_cache_extra_buffer
        supported = (model.architecture in _RADIX_AND_EXTRA_BUFFER and device != "xpu"
                     and (s.get("linear_attn_backend") or "triton") == "triton")
        if strategy == "auto":
            if (not overlap_off or (page or 1) > 1) and supported:
                strategy = "extra_buffer"
            else:
                strategy, overlap_off = "no_buffer", True
        refusal = None
        if strategy.startswith("extra_buffer"):
            if not supported:
                refusal = f"extra_buffer is not supported for {model.architecture}; use no_buffer."
            elif device not in _SNAPSHOT_PLATFORMS and release in PLATFORM_REFUSAL_NAMES_SNAPSHOTS:
                refusal = "extra_buffer requires platform support for Mamba cache state snapshots."
            elif device not in _SNAPSHOT_PLATFORMS:
                refusal = "extra_buffer needs CUDA/MUSA/NPU/ROCm/XPU (FLA)."
            elif strategy == "extra_buffer_lazy" and overlap_off:
                # an assert of _calculate_mamba_ratio once the pool is sized (kv_cache_configurator.py:2754-2757)
                refusal = "Lazy extra buffer requires overlap schedule (--disable-overlap-schedule is incompatible)"
            elif page is not None and (s.get("mamba_track_interval") or 256) % page:
                # mamba_hook.py:126-127, an assert with no message (--mamba-track-interval 256 by default,
                # arg_groups/fields/exec_.py:468-471)
                refusal = "AssertionError (mamba_track_interval is not a multiple of page_size)"
        elif page not in (None, 1):
            refusal = "no_buffer only supports page_size=1."
        elif not overlap_off:
            refusal = "no_buffer do not support overlap schedule. Try to set disable_overlap_schedule=True."
        elif s.get("attention_backend") == "trtllm_mha":
            refusal = "no_buffer do not support trtllm_mha attention backend."
        if refusal:
            return f"{STRATEGY_REFUSED}: {refusal}"
        tracking = 0
        if strategy.startswith("extra_buffer"):
            tracking = 1 if strategy == "extra_buffer_lazy" or overlap_off else 2
        elif skip_lock:
            tracking = 1
        resolved, ratio = strategy, BASE_RATIO - (1 if skip_lock else 0) + tracking
    given = s.get("max_mamba_cache_size")
    if given is None and s.get("disable_radix_cache") and s.get("max_running_requests") is not None:
        given = s.get("max_running_requests")
    ratio_arg = s.get("mamba_full_memory_ratio")
    return MambaPlan(layout, per_slot, conv, ssm, resolved, ratio, None if given is None else int(given),
                     DEFAULT_FULL_MEMORY_RATIO if ratio_arg is None else float(ratio_arg))


def kv_cell(model: ModelDescription, layout: StateLayout, kv_dtype: str | None, tp: int, dtype: str) -> int:
    """pool_configurator.py:226-233: the dense cell over the full-attention layers only."""
    return model.kv_bytes_per_token(kv_dtype, tp, dtype) // max(1, model.num_layers) * layout.attention_layers


def describe(p: MambaPlan) -> str:
    return (f"Mamba state pool: {p.layout.state_layers} {p.layout.family} layer(s), {p.per_slot:,} B a slot (conv "
            f"{p.conv_dtype}, SSM {p.ssm_dtype}), strategy {p.strategy}, {p.ratio} slot(s) per running request; KV "
            f"for the {p.layout.attention_layers} full-attention layer(s) only")


def is_hybrid(model: ModelDescription) -> bool:
    return any(k.name == HYBRID for k in model.kinds)


def refuse(p, why: str):
    """`p` stopped by a plan's string: not modelled (one line, no numbers) or SGLang's own refusal."""
    release = f" {p.engine_version}" if p.engine_version else ""
    if why.startswith("not modelled: "):
        p.modelled = False
        p.reason = f"sglang{release}: {why.removeprefix('not modelled: ')}; no numbers"
    else:
        p.will_start = False
        p.reason = why
    return p
