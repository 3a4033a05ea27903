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


# --- how people show a log (issue 42: the third set of real GPU logs) ------------------------------------------

def grep_n(i: int, line: str) -> str:
    return f"server.log:{i + 1}:{line}"


def html_tags(i: int, line: str) -> str:
    # a rendered page: the level coloured in a span, entities for what HTML must escape
    line = line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"\b(INFO|WARNING|ERROR)\b", r'<span class="log-\1">\1</span>', line, count=1)


def k8s_box(i: int, line: str) -> str:
    return f"│ {line}   │"


def ray_serve_nested(i: int, line: str) -> str:
    # Ray Serve's replica tag before the engine's own process tag, Ray's node address inside it
    # (the lines of a vLLM process Ray runs: those with its process tag)
    if not VLLM_PROC.match(line):
        return line
    tagged = re.sub(r"^\(([^()]*?) pid=(\d+)\)", r"(\1 pid=\2, ip=10.0.0.2)", line)
    return f"(ServeReplica:default:VLLMDeployment pid=4242) {tagged}"


ENGINE_PREFIX = re.compile(r"^(?:\([^()]*? pid=\d+\) )?(?:(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) )?"
                           r"(?:\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? )?\[[^\]\s]+\.py:\d+\] "
                           r"|^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z]+\d+)*\] ")


def _level_and_message(line: str) -> tuple[str, str] | None:
    match = ENGINE_PREFIX.match(line)
    return None if match is None else (match.group("level") or "INFO", line[match.end():])


def rust_tracing(i: int, line: str) -> str:
    found = _level_and_message(line)
    if found is None:
        return line
    return f"2026-11-29T20:00:{i % 60:02d}.123456Z  {found[0]} dynamo_llm::engine: {found[1]}"


def logfmt(i: int, line: str) -> str:
    found = _level_and_message(line)
    if found is None:
        return line
    message = found[1].rstrip("\r").replace("\\", "\\\\").replace('"', '\\"')
    return f'time=2026-11-29T20:00:{i % 60:02d}Z level={found[0].lower()} name=engine msg="{message}"'


def journald(i: int, line: str) -> str:
    """journalctl's default output (-o short): time, host, identifier[pid] (gpu-logs-56 vllm/01, vllm/04)."""
    return f"Nov 29 20:{i // 60 % 60:02d}:{i % 60:02d} gpu-host-01 vllm-serve.sh[{4100 + i % 3}]: {line}"


def journald_iso(i: int, line: str) -> str:
    """journalctl -o short-iso: an ISO time with its offset, then host and identifier[pid]."""
    return f"2026-11-29T20:{i // 60 % 60:02d}:{i % 60:02d}-06:00 h python3[{i % 7 + 1}]: {line}"


def journald_in_a_dedented_literal(i: int, line: str) -> str:
    """A journal kept in a test's textwrap.dedent literal, each line indented with the code (gpu-logs-56 vllm/06)."""
    return "    " + journald(i, line)


def python_list_lines(i: int, line: str) -> str:
    return f"    {line!r},"


_ANSI = re.compile(r"(\x1b\[[0-9;]*[A-Za-z])")


def terminal(width: int):
    """A terminal that wraps lines at `width` columns, copied with the wrap's line ends (a hard wrap: tmux's
    capture-pane without -J, a screenshot's text); colour codes take no column."""
    def cut(i: int, line: str) -> str:
        pieces, piece, columns = [], "", 0
        for token in _ANSI.split(line):
            if _ANSI.fullmatch(token):
                piece += token
                continue
            for char in token:
                if columns == width:
                    pieces, piece, columns = [*pieces, piece], "", 0
                piece, columns = piece + char, columns + 1
        return "\n".join([*pieces, piece])
    cut.__name__ = f"terminal_{width}"
    return cut


WRAPPERS = {f.__name__: f for f in (docker_timestamps, compose, compose_with_timestamps, python_logging, ansi_colour,
                                     trailing_spaces, crlf, without_process_tag, without_level, grep_n, html_tags,
                                     k8s_box, ray_serve_nested, rust_tracing, logfmt, python_list_lines, journald,
                                     journald_iso, journald_in_a_dedented_literal)}
# Wrappers that take away something the parser uses to tell failures apart: what must still hold.
LOSSY = {"without_level", "without_process_tag", "python_logging", "rust_tracing", "logfmt"}
KEPT_BY_LOSSY = ("engine", "engine_version", "status", "error_kind", "kv_tokens", "kv_gib", "num_blocks",
                 "block_size", "max_concurrency", "max_model_len", "estimated_max_model_len", "context_len",
                 "max_running_requests", "mem_fraction_static_effective", "chunked_prefill_size_effective")


def wrap(text: str, wrapper) -> str:
    lines = text.split("\n")
    return "\n".join(wrapper(i, line) if line else line for i, line in enumerate(lines))
