"""Turning raw output into clean text lines, and log text into numbers.

Engine output arrives with ANSI colour codes, `\\r` line ends (vLLM ends every line of a
multi-line message with one), tqdm bars that redraw with a bare `\\r`, and bytes that are
not UTF-8. Everything engine-specific lives in the engine modules, not here.
"""

from __future__ import annotations

import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A number as Python prints it (format_gib is str(round(x, 2)); byte counts may be negative).
NUM = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
# A timestamped capture (`.tlog`) puts "<seconds since start>\t" before each line.
RELATIVE_TIME = re.compile(r"^(\d+\.\d+)\t")
_INT = re.compile(r"^-?\d{1,3}(?:,\d{3})+$|^-?\d+$")
_FLOAT = re.compile(rf"^{NUM}$")


def clean_segments(raw: str | bytes) -> list[str]:
    """One raw line -> the text lines it holds (a `\\r` inside a line starts a new one)."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    text = ANSI.sub("", raw).rstrip("\r\n")
    return text.split("\r") if "\r" in text else [text]


def split_relative_time(line: str) -> tuple[float | None, str]:
    match = RELATIVE_TIME.match(line)
    if match is None:
        return None, line
    return float(match.group(1)), line[match.end():]


def to_int(text: str) -> int:
    return int(text.replace(",", ""))


def to_number(text: str | None) -> int | float | str | None:
    """Convert by shape: `1,024` -> 1024, `0.92` -> 0.92, `None` -> None, else the text."""
    if text is None or text == "None":
        return None
    if _INT.match(text):
        return to_int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def coerce(kind: type, text: str | None):
    """Convert to a record field's type (a GiB figure stays float even when printed `1`)."""
    if text is None or text == "None":
        return None
    if kind is int:
        return to_int(text)
    if kind is float:
        return float(text.replace(",", ""))
    if kind is bool:
        return text == "True"
    return text.strip("'\"")
