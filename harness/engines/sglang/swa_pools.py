"""SGLang's two KV pools for a hybrid sliding-window model: one for the full-attention layers, one for the
sliding-window layers (SWAKVPool), split by --swa-full-tokens-ratio.

Read in 0.5.16-0.5.23 (the line numbers are 0.5.22's; 0.5.23 moves them and changes nothing read here, 0.5.16-0.5.21
only which launches take the request-capped pool, REQUEST_CAP_NEEDS_A_POSITIVE_CHUNK):
- is_hybrid_swa: the architecture is in the hybrid-SWA list and --disable-hybrid-swa-memory is off
  (sglang/srt/configs/model_config.py:1106-1109; releases.HYBRID_SWA_ARCHITECTURES); with it on, the model gets
  DefaultPoolConfigurator's one pool of every layer (pool_configurator.py:1627-1636), sized as a dense model.
- The split (pool_configurator.py:633 HybridSWAPoolConfigurator): per token and rank, a full layer takes
  kv_heads_per_rank x (head_dim + v_head_dim) x element bytes, a sliding layer the same with the swa_* heads and
  dims (:705-716); the profiled cell is full_layers x full + ratio x swa_layers x swa (:760-777), so
  full_tokens = int(budget // cell) rounded down to pages and swa_tokens = int(full_tokens x ratio) rounded down
  to pages (:833-867, :881-890). --max-total-tokens caps full_tokens and the SWA pool follows it again
  (mem_cache/kv_cache_configurator.py:2771-2792, :2873-2913 config_from_budget).
- The ratio: --swa-full-tokens-ratio, 0.8 when not given (arg_groups/fields/schedule.py:146-158), refused
  outside (0, 1] (arg_groups/kv_cache_hook.py:427-428).
- max_total_num_tokens, the scheduler's "max_total_num_tokens=" and the request limits are the full pool's
  (pool_configurator.py:869-879 _make_pool_config; kv_cache_configurator.py:349-370 hybrid_swa_token_capacity,
  logical_token_capacity; model_runner.py:1462-1489); the SWA pool's own check: sliding_window_size + page_size
  >= swa_tokens is a ValueError, raised before the full pool's "Not enough memory" (pool_configurator.py:195-213,
  :857-860; MemoryPoolConfig.__post_init__ :91-96 runs after).
Not modelled (one line instead): the request-capped SWA pool (--max-running-requests with --disable-radix-cache and
a chunked prefill, SWARequestCapPoolConfigurator :945-1019), --enable-unified-memory, post-capture sizing,
pipeline stages, DP attention, speculative drafts, mxfp8 KV.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.engines.releases import ReleaseRange
from harness.engines.settings import Settings
from harness.predict.model import GiB, ModelDescription, kv_element_bytes, resolve_dtype

# The releases whose split is read. 0.5.16-0.5.21 size it alike (0.5.16 sglang/srt/model_executor/
# pool_configurator.py:301-458, the SWA pool's check inline at :427-436 up to 0.5.19 :608-617, then
# validate_swa_pool_size; mem_cache/kv_cache_configurator.py:1593-1700 as 0.5.22's); 0.5.15 and older have no SWA
# pool check (0.5.15 pool_configurator.py:284-400) and keep the one-line refusal.
SPLIT_MODELLED = ReleaseRange("0.5.16", "0.5.24")
# The request-capped SWA pool: --max-running-requests with --disable-radix-cache and a chunked prefill (> 0) from
# 0.5.22 (pool_configurator.py:960-977 SWARequestCapPoolConfigurator); 0.5.16-0.5.21 take any chunk size given,
# -1 included (0.5.21 pool_configurator.py:874-885, 0.5.16 :510-521 SWAChunkCapPoolConfigurator).
REQUEST_CAP_NEEDS_A_POSITIVE_CHUNK = ReleaseRange("0.5.22")
# The architectures whose split is read, with the window SGLang's pool check uses: the model class's
# get_attention_sliding_window_size where it has one (GPT-OSS: sliding_window - 1, 0.5.22 sglang/srt/models/
# gpt_oss.py:131-132; model_runner_components/load_model_utils.py:144-157 resolve_sliding_window_size). Their
# layers come from layer_types, "sliding_attention" and "full_attention" (model_config.py:2592-2602, SWA_SINK_ARCHS).
WINDOW_OFFSET = {"GptOssForCausalLM": -1}
DEFAULT_RATIO = 0.8  # arg_groups/fields/schedule.py:156 fallback


@dataclass(frozen=True)
class SwaLayout:
    """How many layers each pool serves, and the window SGLang checks the SWA pool against."""

    full_layers: int
    swa_layers: int
    window: int


def layout(model: ModelDescription) -> SwaLayout | str:
    """The model's split as SGLang reads it (a str: why it is not read)."""
    cfg = model.config
    types = cfg.get("layer_types")
    if not isinstance(types, list):
        return "its layers are not named in layer_types"
    full = sum(t == "full_attention" for t in types)
    swa = sum(t == "sliding_attention" for t in types)
    if full + swa != len(types) or full == 0 or swa == 0:
        return "its layer_types are not sliding_attention and full_attention layers both"
    if len(types) != model.num_layers:
        return "its layer_types do not name every layer"
    if any(cfg.get(k) not in (None, 0) for k in ("swa_num_key_value_heads", "swa_head_dim", "v_head_dim",
                                                   "swa_v_head_dim")):
        return "its sliding-window or V heads differ from the full layers'"
    window = cfg.get("sliding_window")
    if not isinstance(window, int) or window <= 0:
        return "its sliding_window is not a number"
    return SwaLayout(full, swa, window + WINDOW_OFFSET.get(model.architecture, 0))


def split_modelled(model: ModelDescription, version: str) -> bool:
    """Whether the predictor sizes SGLang `version`'s two pools for this model (settings aside)."""
    return (version in SPLIT_MODELLED and model.architecture in WINDOW_OFFSET
            and isinstance(layout(model), SwaLayout))


@dataclass(frozen=True)
class SwaPlan:
    """The split for one launch: bytes per token of each pool on one rank, and the ratio."""

    layout: SwaLayout
    full_bytes: int  # one token in the full pool, over the full-attention layers
    swa_bytes: int  # one token in the SWA pool, over the sliding-window layers
    ratio: float

    @property
    def cell(self) -> float:
        """Budget bytes per full-pool token (pool_configurator.py:770-777): a float, as SGLang divides by it."""
        return self.full_bytes + self.ratio * self.swa_bytes

    def swa_tokens(self, full_tokens: int, page: int) -> int:
        return int(full_tokens * self.ratio) // page * page  # pool_configurator.py:854-855

    def too_small(self, swa_tokens: int, page: int) -> str | None:
        if self.layout.window + page < swa_tokens:
            return None
        return (f"G9: SWA pool ({swa_tokens} tokens) cannot hold even one request: the prefill admission floor is "
                f"sliding_window_size ({self.layout.window}) + page_size ({page}). Increase --swa-full-tokens-ratio "
                "or the total KV budget.")


def plan(model: ModelDescription, s: Settings, env: dict[str, str], version: str, tp: int,
         chunked_prefill_size: int | None) -> SwaPlan | str | None:
    """None: SGLang gives this launch one pool (not hybrid SWA); a str: the one line for a split not modelled."""
    if model.architecture not in WINDOW_OFFSET or s.get("disable_hybrid_swa_memory"):
        return None
    refused = _refused_setting(s, env, version, chunked_prefill_size)
    if refused:
        return (f"sglang {version}: {model.name} has two KV pools (full and sliding-window layers, SWAKVPool) and "
                f"{refused}; no numbers")
    found = layout(model)
    assert isinstance(found, SwaLayout)  # split_modelled checked it
    ratio = s.get("swa_full_tokens_ratio")
    ratio = DEFAULT_RATIO if ratio is None else float(ratio)
    elem = kv_element_bytes(s.get("kv_cache_dtype"), resolve_dtype(s.get("dtype"), model.dtype))
    per_layer = model.kv_heads_per_rank(tp) * 2 * model.head_dim * elem
    return SwaPlan(found, found.full_layers * per_layer, found.swa_layers * per_layer, ratio)


def _refused_setting(s: Settings, env: dict[str, str], version: str, chunked_prefill_size: int | None) -> str | None:
    if version in REQUEST_CAP_NEEDS_A_POSITIVE_CHUNK:
        capped, name = chunked_prefill_size is not None and chunked_prefill_size > 0, "SWARequestCapPoolConfigurator"
    else:
        capped, name = chunked_prefill_size is not None, "SWAChunkCapPoolConfigurator"
    if s.get("max_running_requests") is not None and s.get("disable_radix_cache") and capped:
        return ("--max-running-requests with --disable-radix-cache sizes the SWA pool from the request cap "
                f"(pool_configurator.py {name}), which the predictor does not model")
    for flag, what in (("enable_unified_memory", "one unified byte pool"), ("speculative_algorithm", "a draft's pool"),
                       ("enable_dp_attention", "DP attention's heads")):
        if s.get(flag):
            return f"--{flag.replace('_', '-')} ({what}) is not modelled with them"
    if (s.get("pp_size") or 1) > 1:
        return "pipeline stages split the layers per stage, which the predictor does not model"
    if str(s.get("kv_cache_dtype") or "").lower() == "mxfp8":
        return "an mxfp8 KV cache adds scale bytes the predictor does not model"
    if env.get("SGLANG_ENABLE_POST_CAPTURE_KV_SIZING", "").lower() in ("1", "true"):
        return "post-capture KV sizing (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING) is not modelled with them"
    return None


def ratio_error(swa: SwaPlan) -> str | None:
    if 0 < swa.ratio <= 1.0:
        return None
    return "--swa-full-tokens-ratio should be in range (0, 1.0]."  # arg_groups/kv_cache_hook.py:427-428


def finish(p, swa: SwaPlan | None, page: int, full_tokens: int, upper_full_tokens: int):
    """The SWA pool beside the full pool `p` was sized as (`full_tokens`, whatever the later checks said of it):
    its tokens, both pools' GiB, and its own check."""
    if swa is None or (p.reason or "")[:2] == "G1":  # G1: no budget at all, raised before any pool is solved
        return p
    full = max(full_tokens, 0)
    p.swa_pool_tokens = swa.swa_tokens(full, page)
    if p.kv_tokens_upper_bound and swa.too_small(swa.swa_tokens(upper_full_tokens, page), page):
        p.kv_tokens_upper_bound = 0
    layout_ = swa.layout
    p.notes.append(f"two pools (SWAKVPool): {full} tokens for the {layout_.full_layers} full-attention layers, "
                   f"{p.swa_pool_tokens} for the {layout_.swa_layers} sliding-window layers (swa_full_tokens_ratio "
                   f"{swa.ratio}); max_total_num_tokens is the full pool's")
    if p.device == "cuda" and not p.args.get("page_size"):
        # 0.5.22 arg_groups/model_overrides/gpt_oss.py:30-31, overrides.py:1124-1137
        p.notes.append("page_size 1 assumed: on a Blackwell (sm100) GPU SGLang picks the trtllm_mha backend for "
                       "GPT-OSS, which raises page_size to 64 (both pools round to 64-token pages)")
    # The SWA check runs as the pools are solved, before the full pool's own "Not enough memory" and the request
    # checks (pool_configurator.py:857-860, :91-96; tp_worker.py:413-418).
    error = swa.too_small(p.swa_pool_tokens, page)
    if error:
        p.will_start, p.reason = False, error
        p.kv_tokens, p.kv_gib, p.max_running_requests, p.max_req_len = 0, 0.0, None, None
    elif p.will_start:
        p.kv_gib = (full * swa.full_bytes + p.swa_pool_tokens * swa.swa_bytes) / GiB
    return p
