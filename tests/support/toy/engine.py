"""The toy engine: a binary on PATH with its own log format; an `Engine` and its parser, registered by the seam
test alone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from harness.engines import knobs
from harness.engines.base import Engine
from harness.engines.knobs import Knob
from harness.engines.roles import BinaryRuntime, Launch, LogReading
from parsers.base import Line, LogParser, error, kv_sized, ready, rule, version

BIN = Path(__file__).with_name("bin")  # toy-server: the seam test puts it on PATH


class ToyLogParser(LogParser):
    engine = "toy"
    phases = ("starting", "kv_sized", "ready")
    rules = (
        rule(r"^toy (?P<version>\d+\.\d+) starting", version),
        rule(r"^toy pool: (?P<kv_tokens>\d+) tokens in (?P<num_blocks>\d+) blocks of (?P<block_size>\d+)$", kv_sized),
        rule(r"^toy serving$", ready),
    )
    error_rules = (
        error("pool_too_small", r"^toy error: pool too small \((?P<num_blocks>\d+) blocks", standalone=True),
    )
    failure_markers = re.compile(r"^toy error:")

    def split_prefix(self, text: str, t: float | None) -> Line:
        return Line(text=text, raw=text, t=t)

    @classmethod
    def score(cls, text: str) -> int:
        return 10 * len(re.findall(r"^toy (?:pool|serving|\d)", text, re.MULTILINE))


class ToyLaunch(Launch):
    def command(self, program: str, model: str, port: int | str, args: Mapping[str, Any],
                version: str | None = None) -> list[str]:
        return [program, "--model", model, "--host", "127.0.0.1", "--port", str(port), *self.flags.render_flags(args)]


class ToyEngine(Engine):
    """A binary engine with only the roles every engine has: how it is launched and how its log is read."""

    name = "toy"
    curated_flags = frozenset({"pool_tokens"})
    knobs: ClassVar[Mapping[str, Knob]] = {"pool_tokens": knobs.TOKENS}

    def __init__(self) -> None:
        self.launch = ToyLaunch(self, BinaryRuntime("toy-server"))
        self.logs = LogReading(ToyLogParser, effective_columns=("num_blocks",))
