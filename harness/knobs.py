"""What a scenario may say about an engine flag: its value type and range.

Only the flags that the harness reasons about carry a type here; every other flag of
an engine is checked by name only (see each adapter's FLAGS) and passed through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class Knob:
    """A value check: returns an error text, or None when the value is acceptable."""

    check: Callable[[Any], str | None]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fraction(value: Any) -> str | None:
    if not _is_number(value):
        return f"must be a number in (0, 1], got {value!r}"
    if not 0 < value <= 1:
        return f"must be in (0, 1], got {value}"
    return None


def _positive_tokens(*special: int) -> Callable[[Any], str | None]:
    """Token counts are positive ints; `special` lists engine sentinels such as -1."""

    allowed = ", ".join(str(s) for s in special)
    suffix = f" (or {allowed})" if special else ""

    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            return f"must be a positive integer{suffix}, got {value!r}"
        if value <= 0 and value not in special:
            return f"must be a positive integer{suffix}, got {value}"
        return None

    return check


def _max_model_len(value: Any) -> str | None:
    # vLLM accepts -1 / "auto" (derive, then auto-fit to the KV pool) and "32k"-style strings.
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "auto" or (text[:-1].isdigit() and text[-1:] in ("k", "m")) or text.isdigit():
            return None
        return f"must be a positive integer, -1 or 'auto', got {value!r}"
    return _positive_tokens(-1)(value)


def _positive_int(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return f"must be a positive integer, got {value!r}"
    return None


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {value!r}"


FRACTION = Knob(_fraction)
TOKENS = Knob(_positive_tokens())
TOKENS_OR_DISABLED = Knob(_positive_tokens(-1))
MAX_MODEL_LEN = Knob(_max_model_len)
POSITIVE_INT = Knob(_positive_int)
STRING = Knob(_string)
