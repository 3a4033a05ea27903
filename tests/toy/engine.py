"""The toy engine: an `Engine` subclass and its log parser, registered by the seam test alone."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.engines import knobs
from harness.engines.base import Engine
from harness.engines.roles import BudgetFormulas, Column, Launch, LogReading, VenvRuntime
from parsers.base import Line, LogParser, error, kv_sized, ready, rule, version

SERVER = Path(__file__).with_name("server.py")


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
        return [program, str(SERVER), "--model", model, "--host", "127.0.0.1", "--port", str(port),
                *self.flags.render_flags(args)]


class ToyFormulas(BudgetFormulas):
    result_columns = (Column("blocks", "num_blocks"),)

    def predict(self, prediction, settings, env, model, calibration):
        # The toy's budget formula is exact: whole blocks of 16 out of the requested pool.
        tokens = settings.get("pool_tokens") or 256
        prediction.num_blocks = tokens // 16
        prediction.kv_tokens = prediction.num_blocks * 16 if prediction.num_blocks >= 2 else 0
        prediction.will_start = prediction.num_blocks >= 2
        prediction.reason = f"{prediction.num_blocks} blocks of 16"
        return prediction


class ToyEngine(Engine):
    name = "toy"
    curated_flags = frozenset({"pool_tokens"})
    knobs = {"pool_tokens": knobs.TOKENS}

    def __init__(self) -> None:
        # what the toy's interpreter must import: any Python has json
        self.launch = ToyLaunch(self, VenvRuntime("json", probe_dists=()))
        self.logs = LogReading(ToyLogParser, effective_columns=("num_blocks",))
        self.formulas = ToyFormulas(self.name)
