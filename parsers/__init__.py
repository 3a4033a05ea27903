"""Pure parsers for engine startup logs: text in, typed `StartupRecord` out (each engine's own subclass).

Streaming use (the launcher): `parser = make_parser("vllm")`, then `parser.feed(line)` for
every line of stdout and stderr as it arrives (interleaved is fine); each call returns the
`Event`s that line produced, and `parser.record` is the picture so far.

Whole-log use: `parse_log(read_log(path))`.

A third engine is one module with a `LogParser` subclass plus one entry in `PARSERS`.
"""

from __future__ import annotations

from pathlib import Path

from parsers.base import LogParser, terminal_width
from parsers.events import EVENT_KINDS, PHASES, Event
from parsers.record import StartupRecord
from parsers.sglang import SglangLogParser
from parsers.vllm import VllmLogParser

PARSERS: dict[str, type[LogParser]] = {
    "vllm": VllmLogParser,
    "sglang": SglangLogParser,
}
ENGINES = tuple(PARSERS)
AUTO = "auto"

__all__ = [
    "AUTO", "ENGINES", "EVENT_KINDS", "PARSERS", "PHASES", "Event", "LogParser",
    "NotAnEngineLog", "SglangLogParser", "StartupRecord", "VllmLogParser",
    "detect_engine", "make_parser", "parse_log", "read_log", "terminal_width",
]


class NotAnEngineLog(ValueError):
    """The text does not look like the output of any engine we know."""


def make_parser(engine: str) -> LogParser:
    try:
        return PARSERS[engine]()
    except KeyError:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}") from None


def detect_engine(text: str) -> str | None:
    """The engine whose log `text` most looks like, or None."""
    scores = {name: cls.score(text) for name, cls in PARSERS.items()}
    best = max(scores, key=scores.__getitem__)
    return best if scores[best] > 0 else None


def parse_log(text: str, engine: str = AUTO) -> StartupRecord:
    """Parse a whole log. Raises NotAnEngineLog when `engine` is auto and none matches."""
    if engine == AUTO:
        detected = detect_engine(text)
        if detected is None:
            raise NotAnEngineLog("no vLLM or SGLang log lines found")
        engine = detected
    parser = make_parser(engine)
    # Not splitlines(): it would also split on characters such as \x0c that can appear inside a line.
    parser.feed_whole(text.split("\n"))
    parser.close()
    return parser.record


def read_log(path: str | Path) -> str:
    """A log file's text; bytes that are not UTF-8 become U+FFFD rather than an error."""
    return Path(path).read_bytes().decode("utf-8", errors="replace")
