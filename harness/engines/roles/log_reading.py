"""The parse role: a fresh parser for an engine's startup log, and what of the record `compare` checks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from parsers.base import LogParser


@dataclass(frozen=True)
class LogReading:
    """How an engine's log is read.

    `parser` makes a fresh streaming parser (one per log): the engine's LogParser subclass;
    `effective_columns` are the effective settings the engine reports that `compare` checks next to the KV figures.
    """

    parser: Callable[[], LogParser]
    effective_columns: tuple[str, ...] = ()

    def make_parser(self) -> LogParser:
        return self.parser()

    def log_score(self, text: str) -> int:
        """How much `text` looks like this engine's log (0: not at all), for `parse --engine auto`."""
        return type(self.make_parser()).score(text)
