"""vLLM adapter: `vllm serve MODEL --port N <flags>`."""

from __future__ import annotations

import os
from typing import Any

from harness import knobs
from harness.engines.base import EngineAdapter, render_flags

# `vllm serve` flags (EngineArgs + frontend) that a memory sweep plausibly names.
FLAGS = frozenset(
    """
    api_server_count async_scheduling attention_backend block_size 
    compilation_config cpu_offload_gb cudagraph_capture_sizes data_parallel_size
    disable_custom_all_reduce disable_log_stats disable_uvicorn_access_log distributed_executor_backend
    download_dir dtype enable_chunked_prefill enable_expert_parallel enable_log_requests
    enable_prefix_caching enforce_eager gpu_memory_utilization hf_overrides kv_cache_dtype
    kv_cache_memory_bytes kv_offloading_size kv_transfer_config language_model_only
    limit_mm_per_prompt load_format long_prefill_token_threshold max_cudagraph_capture_size
    max_logprobs max_model_len max_num_batched_tokens max_num_seqs
    num_gpu_blocks_override performance_mode pipeline_parallel_size quantization revision
    scheduling_policy seed served_model_name skip_tokenizer_init speculative_config 
    tensor_parallel_size tokenizer tokenizer_mode trust_remote_code uvicorn_log_level
    """.split()
)

ADAPTER_KNOBS = {
    "gpu_memory_utilization": knobs.FRACTION,
    "max_num_batched_tokens": knobs.TOKENS,
    "max_num_seqs": knobs.POSITIVE_INT,
    "max_model_len": knobs.MAX_MODEL_LEN,
    "block_size": knobs.POSITIVE_INT,
    "num_gpu_blocks_override": knobs.POSITIVE_INT,
    "tensor_parallel_size": knobs.POSITIVE_INT,
    "pipeline_parallel_size": knobs.POSITIVE_INT,
    "kv_cache_dtype": knobs.STRING,
    "dtype": knobs.STRING,
}


class VllmAdapter(EngineAdapter):
    def command(self, python: str, model: str, port: int | str, args: dict[str, Any]) -> list[str]:
        # The env's own `vllm` script, beside its interpreter: the CLI entry point, never an import here.
        vllm = os.path.join(os.path.dirname(python), "vllm")
        return [vllm, "serve", model, "--host", "127.0.0.1", "--port", str(port), *render_flags(args)]

    def help_command(self, python: str) -> list[str]:
        return [*self.command(python, "MODEL", 0, {})[:2], "--help=all"]

    def cache_env(self, cache_root):
        # VLLM_CACHE_ROOT holds torch.compile artefacts: a warm one changes startup (and KV) figures.
        return {**super().cache_env(cache_root), "VLLM_CACHE_ROOT": str(cache_root / "vllm")}


ADAPTER = VllmAdapter(name="vllm", flags=FLAGS, knobs=ADAPTER_KNOBS)
