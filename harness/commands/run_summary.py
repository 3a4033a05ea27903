"""`run`'s closing tables: one per engine, laid out for the width they are printed at.

What a reader looks for is never cut: each point id, release, status and error kind, and every number as the
engine logged it. Columns empty for every point of an engine are left out (SGLang logs no concurrency). Where the
table does not fit, the layouts below are tried in turn: the knob names abbreviated with a legend; then the knobs
in a table of their own; then the error kinds listed under the table, a line per failed point.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from harness.formatting import MISSING, count, is_missing
from harness.results.rows import PointResult

NUMBERS = ("kv_tokens", "max_concurrency", "predicted")


def cell(value, thousands: bool = False) -> str:
    if is_missing(value):
        return MISSING
    return count(value) if thousands and isinstance(value, (int, float)) else str(value)


def concurrency(value) -> str:
    """As the engine's log line states it (vLLM: "Maximum concurrency for 512 tokens per request: 8192.00x"),
    not as the float it was read into (8192.0)."""
    if is_missing(value):
        return MISSING
    return f"{value:.2f}x" if isinstance(value, numbers.Real) else str(value)


def abbreviation(knob: str) -> str:
    """max_num_batched_tokens -> mnbt: the initials of its words."""
    return "".join(word[0] for word in knob.split("_") if word) or knob


@dataclass(frozen=True)
class EngineRows:
    """One engine's points as the table's cells: identity, knobs and outcome columns, each a header and its cells."""

    title: str
    identity: dict[str, list[str]]
    knobs: dict[str, list[str]]
    outcome: dict[str, list[str]]
    errors: list[str]

    @classmethod
    def of(cls, engine: str, results: list[PointResult]) -> EngineRows:
        mine = [r for r in results if r.point.engine == engine]
        identity = {"point_id": [r.point.point_id for r in mine]}
        if any(r.point.release_axis for r in mine):  # each point once per release: a column says which is which
            identity["release"] = [cell(r.point.engine_version) for r in mine]
        # the knobs this sweep varied for the engine, in scenario order
        names = dict.fromkeys(k for r in mine for k in r.point.knobs)
        knobs = {k: [cell(r.point.knobs.get(k, "default")) for r in mine] for k in names}
        outcome = {"status": [r.status for r in mine],
                   "kv_tokens": [cell(r.record.kv_tokens if r.record else None, thousands=True) for r in mine],
                   "max_concurrency": [concurrency(r.record.max_concurrency if r.record else None) for r in mine],
                   "predicted": [cell(r.prediction.kv_tokens if r.prediction else None, thousands=True)
                                 for r in mine]}
        outcome = {k: v for k, v in outcome.items() if k == "status" or any(c != MISSING for c in v)}
        return cls(f"{engine}: {len(mine)} points", identity, knobs, outcome, [cell(r.error_kind) for r in mine])

    def tables(self, layout: int) -> Iterator[Table | Text]:
        """The tables (and legends) of layout 0-3: whole; knobs abbreviated; knobs apart; errors under the table."""
        short = layout >= 1 and bool(self.knobs)
        knobs = {abbreviation(k) if short else k: v for k, v in self.knobs.items()}
        outcome = dict(self.outcome)
        failed = [(point, error) for point, error in zip(self.identity["point_id"], self.errors) if error != MISSING]
        if failed and layout < 3:
            outcome["error"] = self.errors
        if layout >= 2 and knobs:
            yield _table(self.title, {**self.identity, **knobs})
            yield _table("", {**self.identity, **outcome})
        else:
            yield _table(self.title, {**self.identity, **knobs, **outcome})
        if failed and layout >= 3:
            yield Text("\n".join(f" {point}  error: {error}" for point, error in failed))
        if short:
            yield Text("  ".join(f"{abbreviation(k)} = {k}" for k in self.knobs), style="dim")


def _table(title: str, columns: dict[str, list[str]]) -> Table:
    table = Table(title=title or None, box=box.SIMPLE_HEAD, pad_edge=False)
    for header in columns:
        table.add_column(header, justify="right" if header in NUMBERS else "left", no_wrap=True)
    for row in zip(*columns.values()):
        table.add_row(*row)
    return table


class SummaryTables:
    """Every engine's table, each in the first layout whose widest table fits the width printed at (the last one
    where none does)."""

    LAYOUTS = 4

    def __init__(self, results: list[PointResult]):
        self.engines = [EngineRows.of(engine, results) for engine in sorted({r.point.engine for r in results})]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        unbounded = options.update_width(1 << 16)
        for rows in self.engines:
            for layout in range(self.LAYOUTS):
                parts = list(rows.tables(layout))
                widest = max(Measurement.get(console, unbounded, part).maximum for part in parts
                             if isinstance(part, Table))
                if widest <= options.max_width:
                    break
            yield Group(*parts)
