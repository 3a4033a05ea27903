"""What capture tools and log setups put around engine lines (Docker and Compose prefixes, timestamps, Python
logging, colours, CR/LF), as functions of (line number, line), applied to the recorded real logs under
tests/fixtures/logs/; `LOSSY` names those that take away something the parsers use and `KEPT_BY_LOSSY`
what must survive them.
"""

from __future__ import annotations

import re
from pathlib import Path

LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"
RECORDED = sorted(LOGS.glob("*/*.log"))
VLLM_PROC = re.compile(r"^\([^()]*? pid=\d+\) ")
VLLM_LEVEL = re.compile(r"^(\([^()]*? pid=\d+\) )?(DEBUG|INFO|WARNING|ERROR|CRITICAL) (?=\d\d-\d\d )")


def docker_timestamps(i: int, line: str) -> str:
    return f"2026-11-29T20:{i // 60 % 60:02d}:{i % 60:02d}.{i:09d}Z {line}"


def compose(i: int, line: str) -> str:
    return f"vllm-server-1  | {line}"


def compose_with_timestamps(i: int, line: str) -> str:
    return compose(i, docker_timestamps(i, line))


def python_logging(i: int, line: str) -> str:
    return f"2026-11-29 20:00:{i % 60:02d},123 - launcher - INFO - {line}"


def ansi_colour(i: int, line: str) -> str:
    line = VLLM_PROC.sub(lambda m: f"\x1b[1;36m{m.group(0).rstrip()}\x1b[0;0m ", line)
    return re.sub(r"\b(INFO|WARNING|ERROR)\b", "\x1b[32m\\1\x1b[0m", line, count=1)


def trailing_spaces(i: int, line: str) -> str:
    return line + "   \t"


def crlf(i: int, line: str) -> str:
    return line + "\r"


def without_process_tag(i: int, line: str) -> str:
    return VLLM_PROC.sub("", line)


def without_level(i: int, line: str) -> str:
    return VLLM_LEVEL.sub(lambda m: m.group(1) or "", line)


WRAPPERS = {f.__name__: f for f in (docker_timestamps, compose, compose_with_timestamps, python_logging, ansi_colour,
                                     trailing_spaces, crlf, without_process_tag, without_level)}
# Wrappers that take away something the parser uses to tell failures apart: what must still hold.
LOSSY = {"without_level", "without_process_tag", "python_logging"}
KEPT_BY_LOSSY = ("engine", "engine_version", "status", "error_kind", "kv_tokens", "kv_gib", "num_blocks",
                 "block_size", "max_concurrency", "max_model_len", "estimated_max_model_len", "context_len",
                 "max_running_requests", "mem_fraction_static_effective", "chunked_prefill_size_effective")


def wrap(text: str, wrapper) -> str:
    lines = text.split("\n")
    return "\n".join(wrapper(i, line) if line else line for i, line in enumerate(lines))
