"""Which SGLang log/exception wording feeds which StartupRecord field (read by release_formats)."""

from __future__ import annotations

import re

from harness.engines.release_formats import Fact, classifier, field_mapper

PACKAGE = "sglang"
KEYWORDS = re.compile(
    r"server_args|ServerArgs|Load weight|KV Cache|KV cache|KV size|K size|Memory pool|Capture|[Cc]uda graph|CUDA graph"
    r"|max_total_num_tokens|max_total_tokens|Not enough memory|mem-fraction-static|mem_fraction_static"
    r"|[Cc]hunked.prefill|profiled|context.length|context_len|fired up|#tokens|kv_cache_dtype|avail mem|GB"
    r"|max_running_requests|memory"
)


def distributions(version: str) -> tuple[str, ...]:
    return ("sglang",)


FACTS: tuple[Fact, ...] = ()
FACT_ORDER = tuple(f.name for f in FACTS)
classify = classifier(FACTS)
field_for = field_mapper()
