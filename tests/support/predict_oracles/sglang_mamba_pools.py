"""Oracle: SGLang's own Mamba strategy checks and pool sizing for a hybrid model (0.5.21-0.5.23), run without a GPU.

Runs in the SGLang environment's interpreter. stdin: JSON list of cases {"config": HF config.json, "dtype",
"context_len", "tp", "device", "fraction", "pre_gib" (free memory before loading), "available_gib" (free memory when
the pool is profiled), "args": {ServerArgs fields the Mamba path reads}, "env": {SGLANG_* variables}}; stdout: JSON
list of {"refusal"} (the strategy check's message) or {"tokens", "max_running_requests", "slots", "per_slot",
"full_attention_layers", "strategy", "error"}.

What runs is SGLang's: ModelConfig over the config (its NemotronHConfig / Qwen3NextConfig / GraniteMoeHybridConfig /
FalconH1Config, mambaish_config and mamba2_cache_params), arg_groups/model_hook.py handle_mamba_radix_cache (the
strategy's resolution and its asserts), and KVCacheConfigurator._resolve_memory_pool_config
(_profile_available_bytes, _handle_max_mamba_cache, the DefaultPoolConfigurator's cell over the full-attention
layers, resolve_max_num_reqs). Replaced: the runtime context getters (the settled arguments as plain namespaces), the
platform, the free-memory reading, and the configurator's constructor (its methods run on a plain object holding the
attributes they read), and its gc.collect() before profiling.
"""

import json
import logging
import os
import sys
import tempfile
import types

logging.disable(logging.WARNING)

import torch  # noqa: E402
from sglang.srt.arg_groups import mamba_hook, model_hook, model_override_base, overrides  # noqa: E402
from sglang.srt.configs import falcon_h1, granitemoehybrid, mamba_utils, nemotron_h, qwen3_next  # noqa: E402
from sglang.srt.configs.model_config import ModelConfig  # noqa: E402
from sglang.srt.layers.cp import utils as cp_utils  # noqa: E402
from sglang.srt.mem_cache import kv_cache_configurator as kcc  # noqa: E402
from sglang.srt.mem_cache import page_interleave  # noqa: E402
from sglang.srt.model_executor import pool_configurator  # noqa: E402
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm  # noqa: E402

NS = types.SimpleNamespace
SNAPSHOT_PLATFORMS = ("cuda", "musa", "npu", "hip", "xpu")


def _platform(device: str):
    return NS(**{f"is_{name}": device == name for name in SNAPSHOT_PLATFORMS}, is_blackwell=False, is_sm90=False,
              is_sm100=False)


def _strategy(case: dict, hf_config) -> NS:
    """handle_mamba_radix_cache over the point's arguments: the view it leaves, or AssertionError/ValueError."""
    a = case["args"]
    view = NS(disable_radix_cache=a.get("disable_radix_cache", False),
              mamba_radix_cache_strategy=a.get("mamba_radix_cache_strategy", "auto"),
              disable_overlap_schedule=a.get("disable_overlap_schedule", False), page_size=a.get("page_size"),
              linear_attn_backend=a.get("linear_attn_backend", "triton"), speculative_num_draft_tokens=None,
              mamba_track_interval=a.get("mamba_track_interval", 256), disaggregation_mode="null",
              attention_backend=a.get("attention_backend"), chunked_prefill_size=a.get("chunked_prefill_size"),
              uses_mamba_radix_cache=False)
    platform = _platform(case["device"])
    overrides.get_platform = mamba_hook.get_platform = lambda: platform
    mamba_hook.current_platform = NS(is_out_of_tree=lambda: False)
    overrides.model_config_of = lambda v: NS(hf_config=hf_config)
    model_hook.run_post_process_pass = lambda sa, fn: sa.__dict__.update(fn(sa))
    model_hook.resolved_view = lambda sa: sa
    model_hook.mamba_cache_chunk_size = lambda sa: 64
    model_hook.handle_mamba_radix_cache(view, hf_config)
    return view


_MODEL_CONFIGS: dict = {}


def _model_config(case: dict) -> ModelConfig:
    """SGLang's ModelConfig of the case's config.json, made once per config (the state shapes and layer lists are
    properties read when asked, under the case's tp)."""
    key = json.dumps([case["config"], case["context_len"], case["dtype"]], sort_keys=True)
    if key not in _MODEL_CONFIGS:
        with tempfile.TemporaryDirectory() as model_dir:
            with open(os.path.join(model_dir, "config.json"), "w") as f:
                json.dump(case["config"], f)
            _MODEL_CONFIGS[key] = ModelConfig(model_path=model_dir, context_length=case["context_len"],
                                              dtype=case["dtype"])
    return _MODEL_CONFIGS[key]


def run(case: dict) -> dict:
    for key in ("SGLANG_MAMBA_CONV_DTYPE", "SGLANG_MAMBA_SSM_DTYPE", "SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK"):
        os.environ.pop(key, None)
    os.environ.update(case.get("env", {}))
    a = case["args"]
    if a.get("mamba_ssm_dtype"):  # arg_groups/serving_hook.py:418-419
        os.environ["SGLANG_MAMBA_SSM_DTYPE"] = a["mamba_ssm_dtype"]
    tp = case["tp"]
    parallel = NS(attn_tp_size=tp, attn_dcp_size=1, attn_cp_size=1, pp_size=1, launch_world_size=1,
                  world_group=NS(cpu_group=None), attn_dp_size=1, enable_dsa_cache_layer_split=False,
                  enable_kv_cache_sharding=False)
    for module in (nemotron_h, qwen3_next, granitemoehybrid, falcon_h1, mamba_utils):
        if hasattr(module, "get_parallel"):
            module.get_parallel = lambda: parallel
    qwen3_next.linear_attn_tp_size = lambda: tp
    mc = _model_config(case)
    try:
        view = _strategy(case, mc.hf_config)
    except (AssertionError, ValueError) as exc:
        return {"refusal": str(exc)}
    schedule = NS(mem_fraction_static=case["fraction"], prefill_max_requests=None,
                  max_mamba_cache_size=a.get("max_mamba_cache_size"),
                  max_running_requests=a.get("max_running_requests"),
                  mamba_full_memory_ratio=a.get("mamba_full_memory_ratio", 0.9),
                  max_total_tokens=a.get("max_total_tokens"), page_size=a.get("page_size") or 1,
                  disable_overlap_schedule=view.disable_overlap_schedule)
    mamba = NS(enable_mamba_extra_buffer=model_override_base.mamba_extra_buffer_of(view),
               enable_mamba_extra_buffer_lazy=overrides.mamba_extra_buffer_lazy_of(view),
               enable_linear_replayssm_spec=False)
    exe = NS(mamba=mamba, graph=NS(cuda_graph_config=NS(prefill=NS(full_prefill_max_req=None, backend=None))))
    memory = NS(disable_radix_cache=view.disable_radix_cache, enable_hisparse=False, enable_unified_memory=False)

    class Context:
        def override(self, name, **values):
            for key, value in values.items():
                setattr(schedule, key, value)

    getters = dict(get_parallel=lambda: parallel, get_schedule=lambda: schedule, get_exec=lambda: exe,
                   get_memory=lambda: memory, get_context=Context,
                   get_disagg=lambda: NS(disaggregation_mode="null", enable_pd_role_switch=False),
                   get_mm=lambda: NS(mm_feature_transport=None),
                   get_spec=lambda: NS(speculative_num_draft_tokens=None))
    for module in (kcc, pool_configurator, cp_utils, page_interleave):
        for name, getter in getters.items():
            if hasattr(module, name):
                setattr(module, name, getter)
    kcc.get_available_gpu_memory = lambda *args, **kwargs: case["available_gib"]
    kcc.gc = NS(collect=lambda: 0)  # a full collection per case (~0.5 s here) frees nothing the sizing reads
    kv_dtype = getattr(torch, case["dtype"])
    attrs = dict(model_config=mc, mambaish_config=kcc.mambaish_config(mc), post_capture_kv_active=False,
                 attn_dp_size=1, pp_size=1, spec_algorithm=SpeculativeAlgorithm.NONE,
                 hybrid_gdn_config=kcc.hybrid_gdn_config(mc), hybrid_kda_config=None,
                 extra_mamba_cache_bytes_per_req=0, is_draft_worker=False, is_hybrid_swa=False,
                 layer_info=NS(start_layer=0, end_layer=mc.num_hidden_layers,
                               num_effective_layers=mc.num_hidden_layers),
                 kv_cache_dtype=kv_dtype, kv_cache_dtype_str="auto", use_mla_backend=False,
                 server_args=NS(enable_hisparse=False), device=case["device"], gpu_id=0, model_dtype=kv_dtype,
                 fused_entry_bytes=lambda kind: None)
    methods = {k: v for k, v in vars(kcc.KVCacheConfigurator).items()
               if k not in attrs and not k.startswith("__")
               and (callable(v) or isinstance(v, (property, staticmethod, classmethod)))}
    kvc = type("Configurator", (), methods)()
    kvc.__dict__.update(attrs)
    params = kvc.mambaish_config.mamba2_cache_params
    out = {"per_slot": params.mamba_cache_per_req,
           "full_attention_layers": len(kvc.mambaish_config.full_attention_layer_ids),
           "strategy": "radix cache off" if view.disable_radix_cache else view.mamba_radix_cache_strategy,
           "error": None, "tokens": None, "max_running_requests": None}
    try:
        config = kvc._resolve_memory_pool_config(case["pre_gib"])
        out.update(tokens=config.max_total_num_tokens, max_running_requests=config.max_running_requests)
    except (AssertionError, RuntimeError, ValueError) as exc:
        out["error"] = str(exc)
    out["slots"] = schedule.max_mamba_cache_size
    return out


def answer(cases: list) -> list:
    return [run(case) for case in cases]


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)
