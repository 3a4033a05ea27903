"""SGLang's native /generate API as the probe uses it, and its metric names (served with --enable-metrics)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from harness.engines.roles.serving import MetricNames, ServingApi


class SglangServing(ServingApi):
    # metrics are served only when asked (0.5.22 sglang/srt/entrypoints/http_server.py:302)
    launch_args: ClassVar[Mapping[str, Any]] = {"enable_metrics": True}
    # 0.5.22 sglang/srt/observability/metrics_collector.py: num_running_reqs, num_queue_reqs, token_usage (the
    # pool's share in use), and num_retracted_requests_total (:549-553), a counter the scheduler adds each
    # retraction to (0.5.22 sglang/srt/managers/scheduler.py:4378-4388, 0.5.23 :4502-4512). Not its gauge
    # num_retracted_reqs (:544): the requests retracted at the last step, reset at every publish
    # (0.5.22 scheduler_components/metrics_reporter.py:851-853), so it misses every step between two samples.
    metric_names = MetricNames(
        running=("sglang:num_running_reqs",),
        waiting=("sglang:num_queue_reqs",),
        kv_usage=("sglang:token_usage",),
        preemptions=("sglang:num_retracted_requests",),
    )
    # where the counter is not exported (a release without it, or a multi-process registry that lists a counter
    # only once it has counted), the scheduler's own line for each retraction: "KV cache pool is full. Retract
    # requests. #retracted_reqs: N, ..." (0.5.22 sglang/srt/managers/scheduler.py:4401-4413)
    preemption_line = re.compile(r"#retracted_reqs: (\d+)")

    def request(self, model: str, prompt_ids: Sequence[int], output_tokens: int,
                stream: bool = False) -> tuple[str, dict[str, Any]]:
        # input_ids are taken as they are; min_new_tokens + ignore_eos force the full output
        # (0.5.22 sglang/srt/sampling/sampling_params.py:141,150); streamed, an event per step with the tokens
        # generated so far in meta_info, and an error as an event, not a status (0.5.22
        # sglang/srt/entrypoints/http_server.py:933-957)
        return "/generate", {"input_ids": list(prompt_ids), "stream": stream,
                             "sampling_params": {"max_new_tokens": output_tokens, "min_new_tokens": output_tokens,
                                                 "ignore_eos": True, "temperature": 0.0}}

    def generated_tokens(self, body: Mapping[str, Any]) -> int | None:
        meta = body.get("meta_info") or {}
        return meta.get("completion_tokens")
