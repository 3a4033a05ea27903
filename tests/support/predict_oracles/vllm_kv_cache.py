"""Oracle: vLLM's own KV planning code (block count, max concurrency, logged tokens, estimated /
auto-fit max model length) of the release installed in the interpreter it runs in.

Runs in the vLLM environment's interpreter, never in the harness process.
stdin: JSON list of cases {"config": HF config.json, "dtype", "block_size", "available_bytes",
"max_model_len" (-1 = auto), "num_gpu_blocks_override", "max_num_batched_tokens", "async_scheduling" (set after
the config is made: the CPU platform's False otherwise), "disable_hybrid_kv_cache_manager"}. A config with
kv_lora_rank gets vLLM's MLA spec (MLAAttentionSpec: one head of kv_lora_rank + qk_rope_head_dim) for every layer;
one with layer_types and sliding_window a SlidingWindowSpec of that window for each "sliding_attention" layer (what
e.g. 0.32.0 vllm/model_executor/models/gemma3.py:154-155 gives the attention layer), the groups then made by vLLM's
own get_kv_cache_groups. A Nemotron-H config (hybrid_override_pattern) or a Granite 4 one (granitemoehybrid's
layer_types) gets, for each Mamba2 layer, the MambaSpec its mixer makes (the model class's own state shapes and
dtypes, the cache config's mode and padding, one prefill checkpoint: 0.32.0
vllm/model_executor/layers/mamba/abstract.py:62-84, mamba_mixer2.py:1098-1108), after vLLM's own block-size
alignment for the CPU attention backend, or with "gpu_backend" (FLASH_ATTN, TRITON_ATTN) the one a CUDA platform
runs ("enable_prefix_caching" may turn the mode off; "block_size" null: vLLM's default); with "cudagraph_mode"
(e.g. FULL_AND_PIECEWISE, a GPU's default) the worker's CUDA-graph check of the sized pool against "max_num_seqs"
too.
stdout: JSON list of {"num_blocks", "kv_tokens", "max_concurrency", "max_model_len", "groups", "block_size", "error"}.
"""

import json
import logging
import os
import re
import sys
import tempfile

logging.disable(logging.WARNING)
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

import torch  # noqa: E402
from vllm.config import CacheConfig, ModelConfig, SchedulerConfig, VllmConfig  # noqa: E402
from vllm.v1.core import kv_cache_utils as _utils  # noqa: E402

try:  # 0.33.0 moved the KV planning functions to their own module (vllm/v1/core/kv_cache_planning.py)
    from vllm.v1.core import kv_cache_planning as _planning
except ImportError:
    _planning = None


class _KvCacheFunctions:
    """The KV sizing functions wherever this release defines them (planning module first, then utils)."""

    def __getattr__(self, name):
        for module in (_planning, _utils):
            if module is not None and hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"vllm {name} not found in kv_cache_planning or kv_cache_utils")


kcu = _KvCacheFunctions()
from vllm.v1.kv_cache_interface import FullAttentionSpec, MLAAttentionSpec, SlidingWindowSpec  # noqa: E402

DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}


def model_dir(config: dict, cache: dict) -> str:
    key = json.dumps(config, sort_keys=True)
    if key not in cache:
        path = tempfile.mkdtemp(prefix="oracle-model-")
        with open(os.path.join(path, "config.json"), "w") as f:
            json.dump({k: v for k, v in config.items() if not k.startswith("_")}, f)
        cache[key] = path
    return cache[key]


def run(case: dict, dirs: dict) -> dict:
    cfg = case["config"]
    dtype = case.get("dtype", "bfloat16")
    model_config = ModelConfig(model=model_dir(cfg, dirs), max_model_len=case["max_model_len"], dtype=dtype,
                               skip_tokenizer_init=True)
    cache = {"enable_prefix_caching": case["enable_prefix_caching"]} if "enable_prefix_caching" in case else {}
    if case.get("block_size") is not None:  # else vLLM's default, not a user-specified one
        cache["block_size"] = case["block_size"]
    cache_config = CacheConfig(num_gpu_blocks_override=case.get("num_gpu_blocks_override"), **cache)
    scheduler = {k: case[k] for k in ("max_num_batched_tokens", "max_num_seqs", "disable_hybrid_kv_cache_manager")
                 if case.get(k) is not None}
    scheduler_config = SchedulerConfig.default_factory(max_model_len=model_config.max_model_len, **scheduler)
    vllm_config = VllmConfig(model_config=model_config, cache_config=cache_config, scheduler_config=scheduler_config)
    # The engine core resolves the layout from the attention backend; pre-setting it is the
    # documented way for standalone tools. For one uniform full-attention group the block
    # bytes are the same in every layout (a sum of equal, unpadded pages).
    vllm_config.cache_config.kv_cache_layout = "LBNHC"
    if case.get("async_scheduling") is not None:
        # what a GPU platform resolves (on by default: 0.32.0 vllm/config/vllm.py:1585-1644); this interpreter's CPU
        # platform turns it off (vllm/platforms/cpu.py:330-331), which a case without the key keeps
        vllm_config.scheduler_config.async_scheduling = case["async_scheduling"]
    heads = cfg["num_attention_heads"]
    head_dim = cfg.get("head_dim") or cfg["hidden_size"] // heads
    kv_heads = max(1, cfg.get("num_key_value_heads", heads) // case.get("tp", 1))
    if cfg.get("kv_lora_rank"):
        def layer_spec():
            return MLAAttentionSpec(block_size=case["block_size"], num_kv_heads=1,
                                    head_size=cfg["kv_lora_rank"] + cfg.get("qk_rope_head_dim", 0), dtype=DTYPES[dtype])
    else:
        def layer_spec():
            return FullAttentionSpec(block_size=case["block_size"], num_kv_heads=kv_heads, head_size=head_dim,
                                     dtype=DTYPES[dtype])
    types = cfg.get("layer_types") or ["full_attention"] * cfg["num_hidden_layers"]

    def spec_of(layer_type):
        if layer_type != "sliding_attention":
            return layer_spec()
        return SlidingWindowSpec(block_size=case["block_size"], num_kv_heads=kv_heads, head_size=head_dim,
                                 dtype=DTYPES[dtype], sliding_window=cfg["sliding_window"])

    spec = {f"model.layers.{i}.self_attn.attn": spec_of(types[i]) for i in range(cfg["num_hidden_layers"])}
    if cfg.get("hybrid_override_pattern") or cfg.get("model_type") == "granitemoehybrid":
        spec = mamba_model_specs(vllm_config, cfg, kv_heads, head_dim, DTYPES[dtype], case)
    try:
        if hasattr(kcu, "get_global_kv_cache_groups"):
            # 0.33.0 (vllm/v1/core/kv_cache_planning.py:1461, called as in vllm/v1/engine/core.py:321):
            # the engine core groups the layers first and hands the groups in.
            groups = kcu.get_global_kv_cache_groups(vllm_config, [spec])
            configs = kcu.get_kv_cache_configs(vllm_config, [spec], [case["available_bytes"]], groups)
        else:
            configs = kcu.get_kv_cache_configs(vllm_config, [spec], [case["available_bytes"]])
    except ValueError as exc:
        text = str(exc)
        est = re.search(r"estimated maximum model length is (\d+)", text)
        kind = "E3" if "To serve at least one request" in text else "E4" if "auto-fit" in text else "E2"
        return {"error": kind, "estimated_max_model_len": int(est.group(1)) if est else None,
                "block_size": vllm_config.cache_config.block_size}
    scheduler = kcu.generate_scheduler_kv_cache_config(configs)
    tokens, concurrency = kcu.get_kv_cache_capacity(vllm_config, scheduler)
    if case.get("cudagraph_mode"):
        refused = cudagraph_refusal(vllm_config, configs[0], case["cudagraph_mode"])
        if refused is not None:
            return {"error": "mamba_blocks_below_max_num_seqs", "message": refused, "estimated_max_model_len": None,
                    "num_blocks": scheduler.num_blocks, "block_size": vllm_config.cache_config.block_size}
    return {"error": None, "num_blocks": scheduler.num_blocks, "kv_tokens": tokens,
            "max_concurrency": concurrency, "max_model_len": vllm_config.model_config.max_model_len,
            "groups": len(scheduler.kv_cache_groups), "block_size": vllm_config.cache_config.block_size}


def cudagraph_refusal(vllm_config, kv_cache_config, mode: str) -> str | None:
    """What the GPU worker's CUDA-graph resolution raises for this pool (None: nothing), run by vLLM's own
    CompilationConfig.resolve_cudagraph_mode_and_sizes as the model runner calls it once the pool is sized
    (0.32.0 vllm/v1/worker/gpu_model_runner.py:6851-6859), with the cudagraph mode a GPU platform resolves (the
    CPU one this interpreter runs sets none) and the Mamba2 backend's UNIFORM_BATCH support
    (v1/attention/backends/mamba_attn.py:87), the lowest beside FLASH_ATTN's."""
    from vllm.config.compilation import CUDAGraphMode
    from vllm.v1.attention.backend import AttentionCGSupport

    compilation = vllm_config.compilation_config
    compilation.cudagraph_mode = CUDAGraphMode[mode]
    try:
        compilation.resolve_cudagraph_mode_and_sizes(
            AttentionCGSupport.UNIFORM_BATCH, "Mamba2AttentionBackend", kv_cache_config=kv_cache_config,
            max_num_reqs=vllm_config.scheduler_config.max_num_seqs)
    except ValueError as exc:
        return str(exc)
    return None


# GPU attention backends a case may name; this interpreter runs the CPU platform, where neither sees a card
# (FLASH_ATTN then gives what it gives below sm100: MultipleOf(16), flash_attn.py:355-365)
GPU_BACKENDS = {"FLASH_ATTN": "vllm.v1.attention.backends.flash_attn:FlashAttentionBackend",
                "TRITON_ATTN": "vllm.v1.attention.backends.triton_attn:TritonAttentionBackend"}


def mamba_model_specs(vllm_config, cfg: dict, kv_heads: int, head_dim: int, dtype, case: dict) -> dict:
    """Nemotron-H's or Granite 4's layer specs (the Mamba2 state shapes and dtypes from the model class vLLM resolves
    for the architecture): the block size and Mamba page padding from vLLM's own block-size alignment, with
    the attention backend standing in for what _find_non_ssm_backends reads from the built model's layers (which
    this oracle does not build). On vLLM-CPU (no "gpu_backend") the CPU platform's update_block_size_for_backend
    with CPU_ATTN (platforms/cpu.py:533-545); on a GPU ("gpu_backend": FLASH_ATTN or TRITON_ATTN) the generic
    Platform.update_block_size_for_backend every CUDA platform inherits (platforms/interface.py:750-792: the
    backend's preferred block size unless --block-size was given, then _align_hybrid_block_size)."""
    import importlib

    from vllm.model_executor.models import ModelRegistry
    from vllm.platforms import current_platform
    from vllm.platforms.interface import Platform
    from vllm.v1.attention.backends.cpu_attn import CPUAttentionBackend
    from vllm.v1.kv_cache_interface import MambaSpec

    platform = type(current_platform)
    if case.get("gpu_backend"):
        # This interpreter's CPU platform resets the SSM state dtype to float32 on AVX512-BF16 hosts (0.32.0
        # vllm/platforms/cpu.py:302-316); a CUDA platform leaves what the model's own config hook made of
        # --mamba-ssm-cache-dtype (vllm/config/vllm.py:2648-2660, e.g. NemotronH's float32 default), so that is
        # run again from the flag's value
        from vllm.model_executor.models.config import MODELS_CONFIG_MAP

        vllm_config.cache_config.mamba_ssm_cache_dtype = case.get("mamba_ssm_cache_dtype", "auto")
        hook = MODELS_CONFIG_MAP.get(vllm_config.model_config.architecture)
        if hook is not None:
            hook.verify_and_update_config(vllm_config)
        module, name = GPU_BACKENDS[case["gpu_backend"]].split(":")
        backend = getattr(importlib.import_module(module), name)
        platform._find_non_ssm_backends = classmethod(lambda cls, config: [backend])
        Platform.update_block_size_for_backend.__func__(platform, vllm_config)
    else:
        platform._find_non_ssm_backends = classmethod(lambda cls, config: [CPUAttentionBackend])
        platform.update_block_size_for_backend(vllm_config)
    cache = vllm_config.cache_config
    # the model class vLLM sizes the state with, resolved as _align_hybrid_block_size does (interface.py:1040-1043)
    model_cls, _ = ModelRegistry.resolve_model_cls(vllm_config.model_config.architecture,
                                                   model_config=vllm_config.model_config)
    if cfg.get("hybrid_override_pattern"):
        pattern = cfg["hybrid_override_pattern"]
    else:  # Granite 4: layer_types as transformers normalised them (granitemoehybrid.py:322-325, :351)
        kinds = {"full_attention": "*", "linear_attention": "M"}
        pattern = "".join(kinds[t] for t in vllm_config.model_config.hf_config.layer_types)
    specs = {}
    for i, letter in enumerate(pattern):
        if letter == "*":
            specs[f"model.layers.{i}.mixer.attn"] = FullAttentionSpec(
                block_size=cache.block_size, num_kv_heads=kv_heads, head_size=head_dim, dtype=dtype)
        elif letter == "M":
            specs[f"model.layers.{i}.mixer"] = MambaSpec(
                shapes=model_cls.get_mamba_state_shape_from_config(vllm_config),
                dtypes=model_cls.get_mamba_state_dtype_from_config(vllm_config),
                block_size=cache.mamba_block_size, page_size_padded=cache.mamba_page_size_padded,
                mamba_cache_mode=cache.mamba_cache_mode, num_prefill_checkpoint_blocks=1,
                prefill_checkpoint_alignment=1)
    return specs


def answer(cases: list) -> list:
    dirs: dict = {}
    return [run(case, dirs) for case in cases]


if __name__ == "__main__":
    json.dump(answer(json.load(sys.stdin)), sys.stdout)
