"""Pure parsers for engine startup logs: text in, typed `StartupRecord` out (each engine's own subclass).

Streaming use (the launcher): `parser = make_parser("vllm")`, then `parser.feed(line)` for
every line of stdout and stderr as it arrives (interleaved is fine); each call returns the
`Event`s that line produced, and `parser.record` is the picture so far.

Whole-log use: `parse_log(read_log(path))`.

A third engine is one module with a `LogParser` subclass plus one entry in `PARSERS`.
"""

from __future__ import annotations

import codecs
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
    "decode_log", "detect_engine", "log_encoding", "make_parser", "parse_log", "read_log", "terminal_width",
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


# How much of a file's head decides its encoding.
ENCODING_HEAD_BYTES = 4096


def log_encoding(head: bytes) -> str:
    """How a log file is encoded, from its first bytes: UTF-8 unless a byte-order mark or UTF-16's NUL bytes say so.

    A log saved by a Windows tool is not always UTF-8. Windows PowerShell 5.1's `>` and `Out-File` write "Unicode" -
    UTF-16LE with a byte-order mark - by default, and every Unicode encoding it writes carries a BOM (UTF-8 too);
    PowerShell 6 and later write UTF-8 without one (learn.microsoft.com: about_Character_Encoding;
    about_Redirection, `>` is `Out-File` with no parameters). A UTF-8 log holds no NUL byte, so NULs at every other
    byte of the head are UTF-16 without its mark (cmd's `/u` output): the high byte of each ASCII character (a CJK
    character's may be NUL on the other side, so the side with the NULs is the one with many times more of them).
    """
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # before UTF-16: FF FE 00 00 starts with FF FE
        return "utf-32"
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"  # the codec reads the mark and drops it
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    sample = head[:ENCODING_HEAD_BYTES]
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd >= 8 and odd >= 8 * even:
        return "utf-16-le"
    if even >= 8 and even >= 8 * odd:
        return "utf-16-be"
    return "utf-8"


def decode_log(data: bytes) -> str:
    """A log file's bytes as text, in the encoding its head shows; bytes that do not decode become U+FFFD."""
    return data.decode(log_encoding(data[:ENCODING_HEAD_BYTES]), errors="replace")


def read_log(path: str | Path) -> str:
    """A log file's text (UTF-8, or UTF-16 / a BOM a Windows tool wrote); bytes that do not decode become U+FFFD."""
    return decode_log(Path(path).read_bytes())
