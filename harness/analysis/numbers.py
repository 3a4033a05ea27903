"""How compare prints numbers: counts with thousands separators, signed percentages."""

from __future__ import annotations

import math


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.1f}"


def _pct(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isinf(value):
        return "+inf%"
    return f"{value:+.2f}%"
