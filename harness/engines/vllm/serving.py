"""vLLM's OpenAI-compatible API as the probe uses it, and its metric names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.engines.roles.serving import MetricNames, ServingApi


class VllmServing(ServingApi):
    # 0.32.0 vllm/v1/metrics/loggers.py:528 num_requests_running, :538 num_requests_waiting,
    # :620 kv_cache_usage_perc (older releases: gpu_cache_usage_perc), :739 num_preemptions (a counter)
    metric_names = MetricNames(
        running=("vllm:num_requests_running",),
        waiting=("vllm:num_requests_waiting",),
        kv_usage=("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"),
        preemptions=("vllm:num_preemptions",),
    )

    def request(self, model: str, prompt_ids: Sequence[int], output_tokens: int,
                stream: bool = False) -> tuple[str, dict[str, Any]]:
        # a prompt of token ids is taken as they are; min_tokens + ignore_eos force the full output
        # (0.32.0 vllm/entrypoints/openai/completion/protocol.py:84-85); streamed, include_usage adds a last event
        # with the usage (0.32.0 vllm/entrypoints/serve/utils/api_utils.py:289-301, completion/serving.py:458)
        return "/v1/completions", {"model": model, "prompt": list(prompt_ids), "max_tokens": output_tokens,
                                   "min_tokens": output_tokens, "ignore_eos": True, "temperature": 0.0,
                                   **({"stream": True, "stream_options": {"include_usage": True}} if stream else {})}

    def generated_tokens(self, body: Mapping[str, Any]) -> int | None:
        usage = body.get("usage") or {}
        return usage.get("completion_tokens")
