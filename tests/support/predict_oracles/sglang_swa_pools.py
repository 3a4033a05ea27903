"""Oracle: SGLang's own hybrid-SWA pool sizing (0.5.22, 0.5.23) from a KV budget in bytes, run without a GPU.

Runs in the SGLang environment's interpreter, never in the harness process. Per case it builds SGLang's real
ModelConfig from the case's config.json (its hybrid-SWA test, layer split, heads and context length), the window
from the model class (sglang/srt/models/gpt_oss.py get_attention_sliding_window_size), the effective
--swa-full-tokens-ratio from ServerArgs' own resolution, and runs create_memory_pool_configurator,
KVCacheConfigurator.config_from_budget and resolve_max_num_reqs with the runtime context's getters answered
from the case (tp as the attention TP size, no DP, PP, speculative decoding or disaggregation).
stdin: JSON list of cases {"config": {config.json}, "budget_bytes", "page_size", "tp", "kv_cache_dtype",
"args": {ServerArgs fields: swa_full_tokens_ratio, max_total_tokens, max_running_requests, disable_radix_cache,
chunked_prefill_size, disable_hybrid_swa_memory}}.
stdout: JSON list, one per case: {"is_hybrid_swa", "configurator", "full", "swa", "max_total", "max_running_requests",
"window", "ratio", "error"}.
"""

import json
import logging
import sys
import tempfile
import types
from pathlib import Path

logging.disable(logging.WARNING)

import torch  # noqa: E402
from sglang.srt.arg_groups.overrides import resolution_result  # noqa: E402
from sglang.srt.configs.model_config import ModelConfig  # noqa: E402
from sglang.srt.mem_cache import kv_cache_configurator as kvc_module  # noqa: E402
from sglang.srt.mem_cache.kv_cache_configurator import KVCacheConfigurator  # noqa: E402
from sglang.srt.model_executor import pool_configurator  # noqa: E402
from sglang.srt.models.gpt_oss import get_attention_sliding_window_size  # noqa: E402
from sglang.srt.server_args import ServerArgs  # noqa: E402
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm  # noqa: E402

KV_DTYPES = {"auto": torch.bfloat16, "bfloat16": torch.bfloat16, "fp8_e4m3": torch.float8_e4m3fn}
_CONFIGS: dict[str, tuple] = {}


def _model_config(config: dict, disable_hybrid_swa_memory: bool) -> ModelConfig:
    key = json.dumps([config, disable_hybrid_swa_memory], sort_keys=True)
    if key not in _CONFIGS:
        folder = tempfile.mkdtemp(prefix="swa-config-")
        (Path(folder) / "config.json").write_text(json.dumps(config))
        _CONFIGS[key] = ModelConfig(model_path=folder, disable_hybrid_swa_memory=disable_hybrid_swa_memory)
    return _CONFIGS[key]


def _context(case: dict, ratio: float):
    a = case["args"]
    schedule = types.SimpleNamespace(
        swa_full_tokens_ratio=ratio, page_size=case["page_size"], max_total_tokens=a.get("max_total_tokens"),
        max_running_requests=a.get("max_running_requests"), chunked_prefill_size=a.get("chunked_prefill_size"),
        disable_overlap_schedule=False, mem_fraction_static=None)
    memory = types.SimpleNamespace(enable_unified_memory=False, disable_radix_cache=bool(a.get("disable_radix_cache")))
    parallel = types.SimpleNamespace(attn_tp_size=case["tp"], pp_size=1, attn_dcp_size=1)
    spec = types.SimpleNamespace(speculative_num_draft_tokens=None, speculative_algorithm=None)
    disagg = types.SimpleNamespace(disaggregation_mode="null", disaggregation_decode_extra_slots=0)
    for module in (pool_configurator, kvc_module):
        module.get_schedule = lambda: schedule
        module.get_memory = lambda: memory
        module.get_parallel = lambda: parallel
        module.get_spec = lambda: spec
        module.get_disagg = lambda: disagg


def run(case: dict) -> dict:
    a = case["args"]
    mc = _model_config(case["config"], bool(a.get("disable_hybrid_swa_memory")))
    sa = ServerArgs(model_path="unused", swa_full_tokens_ratio=a.get("swa_full_tokens_ratio"))
    ratio = resolution_result(sa, "swa_full_tokens_ratio")
    _context(case, ratio)
    out = {"is_hybrid_swa": mc.is_hybrid_swa, "ratio": ratio}
    if not mc.is_hybrid_swa:
        return out
    kvc = types.SimpleNamespace(
        model_config=mc, is_hybrid_swa=True, kv_cache_dtype=KV_DTYPES[case["kv_cache_dtype"]],
        kv_cache_dtype_str=case["kv_cache_dtype"], page_size=case["page_size"], attn_dp_size=1,
        sliding_window_size=get_attention_sliding_window_size(mc.hf_text_config),
        layer_info=types.SimpleNamespace(full_attention_layer_ids=mc.full_attention_layer_ids,
                                         swa_attention_layer_ids=mc.swa_attention_layer_ids),
        spec_algorithm=SpeculativeAlgorithm.NONE, is_draft_worker=False, spec_aux_config=None,
        fused_entry_bytes=lambda name: None, mambaish_config=None)
    kvc._apply_token_constraints = lambda tokens: KVCacheConfigurator._apply_token_constraints(kvc, tokens)
    out["window"] = kvc.sliding_window_size
    out["configurator"] = type(pool_configurator.create_memory_pool_configurator(kvc)).__name__
    if out["configurator"] != "HybridSWAPoolConfigurator":
        return out
    try:
        config = KVCacheConfigurator.config_from_budget(kvc, case["budget_bytes"])
        mrr = KVCacheConfigurator.resolve_max_num_reqs(kvc, config.max_total_num_tokens)
    except (ValueError, RuntimeError) as exc:
        return {**out, "error": str(exc)}
    return {**out, "full": config.full_max_total_num_tokens, "swa": config.swa_max_total_num_tokens,
            "max_total": config.max_total_num_tokens, "max_running_requests": mrr, "context_len": mc.context_len}


def answer(cases: list) -> list:
    return [run(case) for case in cases]


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)
