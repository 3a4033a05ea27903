"""How the harness prints numbers in tables and reports: counts, decimals, percentages, missing values."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

MISSING = "-"


def is_missing(value: Any) -> bool:
    """None, an empty cell, or a NaN (how pandas reads an empty CSV cell)."""
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def count(value: Any) -> str:
    """A whole number with thousands separators: 2,097,152."""
    return f"{int(value):,}"


def number(value: Any, missing: str = MISSING) -> str:
    """Whole numbers as counts, others to 4 significant digits (one decimal from 1000 on)."""
    if is_missing(value):
        return missing
    if float(value).is_integer():
        return count(value)
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}"


def fixed(value: Any, digits: int = 2, missing: str = MISSING) -> str:
    """Floats to `digits` decimals, ints as counts, booleans as yes/NO, text as it is."""
    if is_missing(value):
        return missing
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return count(value)
    return str(value)


def pct(value: float | None, missing: str = MISSING) -> str:
    """A signed percentage: +1.54%."""
    if is_missing(value):
        return missing
    if math.isinf(value):
        return "+inf%"
    return f"{value:+.2f}%"


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns of plain text two spaces apart, never wrapped or cut: the tables a command prints for a file
    or a CI log (rich draws them, as it draws the terminal's)."""
    table = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style=None)
    for name in header:
        table.add_column(name, no_wrap=True, overflow="ignore")
    for row in rows:
        table.add_row(*row)
    console = Console(width=1 << 16, no_color=True, color_system=None, highlight=False, markup=False, emoji=False)
    with console.capture() as out:
        console.print(table)
    return "\n".join(line.rstrip() for line in out.get().splitlines())
