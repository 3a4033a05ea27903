"""Turning raw output into clean text lines, and log text into numbers.

Engine output arrives with ANSI colour codes, `\\r` line ends (vLLM ends every line of a
multi-line message with one), tqdm bars that redraw with a bare `\\r`, bytes that are not
UTF-8, trailing spaces, and whatever the tool that captured it put in front: `docker logs
-t` timestamps, compose `name  | ` prefixes, a Python-logging prefix of a wrapping program.
This module removes all of that in one place (`clean_segments`, `strip_wrappers`); the
engine modules only know their engine's own prefix.
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
    text = (ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip("\r\n")
    return text.split("\r") if "\r" in text else [text]


# What capture tools put before a line, outermost first. Each is removed at most once, in
# this order: `docker logs -t` (RFC 3339 with nanoseconds), compose/`kubectl --prefix`
# service names, then `docker logs -t` again (compose puts its name first).
# Exactly one separating space is theirs: a traceback's indentation after it is the engine's.
_DOCKER_TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? "
_COMPOSE = r"(?:[A-Za-z0-9][\w.\-/]*\s*\| ?|\[pod/[^\]]+\] )"
WRAPPER = re.compile(rf"^(?:{_DOCKER_TS})?(?:{_COMPOSE})?(?:{_DOCKER_TS})?")
LEVEL_NAMES = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL"
# A Python-logging prefix of a program that wraps the engine (or of an engine whose own
# format was switched off): `INFO:name:msg`, `2025-01-01 10:00:00,123 - name - INFO - msg`,
# `2025-01-01 10:00:00,123 INFO name: msg`, `[2025-01-01 10:00:00] [INFO] msg`.
PY_LOGGING = re.compile(
    rf"^(?:\[?\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s*(?:-\s*|\|\s*)?)?"
    rf"(?:[\w.]+\s+-\s+)?\[?(?P<level>{LEVEL_NAMES})\]?"
    rf"(?::[\w.<>]+:|:\s+|\s+-\s+(?:[\w.]+\s+-\s+)?|\s+\|\s+|\s+[\w.]+:\s+|\s+)"
)


def strip_wrappers(text: str) -> str:
    """`text` without the capture tools' prefixes (docker timestamps, compose names)."""
    match = WRAPPER.match(text)
    return text[match.end():] if match and match.end() else text


def strip_python_logging(text: str) -> tuple[str | None, str]:
    """(level, message) of a line with a Python-logging prefix; (None, text) otherwise."""
    match = PY_LOGGING.match(text)
    if match is None:
        return None, text
    level = match.group("level")
    return ("WARNING" if level == "WARN" else "CRITICAL" if level == "FATAL" else level), text[match.end():]


def split_relative_time(line: str) -> tuple[float | None, str]:
    match = RELATIVE_TIME.match(line) if "\t" in line else None
    if match is None:
        return None, line
    return float(match.group(1)), line[match.end():]


def to_int(text: str) -> int:
    text = text.replace(",", "")
    return int(text) if re.fullmatch(r"-?\d+", text) else int(float(text))


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
