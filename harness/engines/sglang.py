"""SGLang adapter: `python -m sglang.launch_server --model-path MODEL --port N <flags>`."""

from __future__ import annotations

from typing import Any

from harness import knobs
from harness.engines.base import EngineAdapter, render_flags

# `sglang.launch_server` flags (ServerArgs) that a memory sweep plausibly names.
FLAGS = frozenset(
    """
    attention_backend chunked_prefill_size context_length cpu_offload_gb cuda_graph_backend_decode
    cuda_graph_backend_prefill cuda_graph_max_bs_decode cuda_graph_max_bs_prefill device
    disable_cuda_graph disable_cuda_graph_padding disable_radix_cache dp_size dtype
    enable_dp_attention enable_mixed_chunk enable_torch_compile ep_size kv_cache_dtype
    load_format log_level max_prefill_tokens max_running_requests max_total_tokens
    mem_fraction_static page_size pp_size quantization random_seed schedule_policy
    served_model_name skip_server_warmup skip_tokenizer_init speculative_algorithm
    tokenizer_path tp_size trust_remote_code
    """.split()
)

ADAPTER_KNOBS = {
    "mem_fraction_static": knobs.FRACTION,
    # -1 is SGLang's own "chunked prefill off".
    "chunked_prefill_size": knobs.TOKENS_OR_DISABLED,
    "max_prefill_tokens": knobs.TOKENS,
    "max_total_tokens": knobs.TOKENS,
    "max_running_requests": knobs.POSITIVE_INT,
    "context_length": knobs.TOKENS,
    "page_size": knobs.POSITIVE_INT,
    "tp_size": knobs.POSITIVE_INT,
    "pp_size": knobs.POSITIVE_INT,
    "kv_cache_dtype": knobs.STRING,
    "dtype": knobs.STRING,
}


class SglangAdapter(EngineAdapter):
    def help_command(self, python: str) -> list[str]:
        return [python, "-m", "sglang.launch_server", "--help"]

    def command(self, python: str, model: str, port: int | str, args: dict[str, Any]) -> list[str]:
        return [
            python, "-m", "sglang.launch_server",
            "--model-path", model, "--host", "127.0.0.1", "--port", str(port),
            *render_flags(args),
        ]


# The scenario's engine-neutral `defaults` say max_model_len; SGLang calls it context_length.
ADAPTER = SglangAdapter(
    name="sglang", flags=FLAGS, knobs=ADAPTER_KNOBS, aliases={"max_model_len": "context_length"}
)
