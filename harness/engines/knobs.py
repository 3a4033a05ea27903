"""Value types an engine declares for its flags: each reads a scenario value into a typed one, once.

Only the flags that the harness reasons about carry a type; every other flag of an
engine is checked by name only (its bundled flag lists) and passed through as written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class KnobError(ValueError):
    """A value the flag does not accept; the text says what it must be."""


@dataclass(frozen=True)
class Knob:
    """How one flag's value is read: `parse` returns the typed value or raises KnobError."""

    kind: str
    parse: Callable[[Any], Any]

    def check(self, value: Any) -> str | None:
        """The error text for a value the flag does not accept, or None."""
        try:
            self.parse(value)
        except KnobError as exc:
            return str(exc)
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fraction(value: Any) -> float:
    if not _is_number(value):
        raise KnobError(f"must be a number in (0, 1], got {value!r}")
    if not 0 < value <= 1:
        raise KnobError(f"must be in (0, 1], got {value}")
    return float(value)


def _positive_tokens(*special: int) -> Callable[[Any], int]:
    """Token counts are positive ints; `special` lists engine sentinels such as -1."""

    allowed = ", ".join(str(s) for s in special)
    suffix = f" (or {allowed})" if special else ""

    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise KnobError(f"must be a positive integer{suffix}, got {value!r}")
        if value <= 0 and value not in special:
            raise KnobError(f"must be a positive integer{suffix}, got {value}")
        return value

    return parse


# vLLM's human_readable_int (vllm/utils/argparse_utils.py:29 in 0.32.0): upper case is binary, lower decimal.
_BINARY = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def human_readable_int(text: str) -> int:
    """'6G' = 6*2**30, '6g' = 6*10**9, '32k' = 32000, plain digits as is; KnobError otherwise."""
    text = text.strip()
    suffix = text[-1:]
    try:
        if suffix in _BINARY:
            return int(text[:-1]) * _BINARY[suffix]
        if suffix in _DECIMAL:
            return int(float(text[:-1]) * _DECIMAL[suffix])
        return int(text)
    except ValueError:
        raise KnobError(f"cannot read {text!r} as a number (e.g. 6G, 6442450944)") from None


def _max_model_len(value: Any) -> int:
    """-1 and 'auto' both mean: derive from the model, then fit to the KV pool (returned as -1)."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("auto", "-1"):
            return -1
        try:
            number = human_readable_int(text)
        except KnobError:
            raise KnobError(f"must be a positive integer, -1 or 'auto', got {value!r}") from None
        if number <= 0:
            raise KnobError(f"must be a positive integer, -1 or 'auto', got {value!r}")
        return number
    return _positive_tokens(-1)(value)


def _byte_size(value: Any) -> int:
    if isinstance(value, str):
        number = human_readable_int(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        raise KnobError(f"must be a byte count (e.g. 1073741824 or 1G), got {value!r}")
    if number < 0:
        raise KnobError(f"must not be negative, got {value!r}")
    return number


def _positive_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise KnobError(f"must be a positive integer, got {value!r}")
    return value


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise KnobError(f"must be true or false, got {value!r}")
    return value


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise KnobError(f"must be a string, got {value!r}")
    return value


FRACTION = Knob("fraction", _fraction)
TOKENS = Knob("tokens", _positive_tokens())
TOKENS_OR_DISABLED = Knob("tokens_or_disabled", _positive_tokens(-1))
MAX_MODEL_LEN = Knob("max_model_len", _max_model_len)
BYTES = Knob("bytes", _byte_size)
POSITIVE_INT = Knob("positive_int", _positive_int)
BOOLEAN = Knob("boolean", _boolean)
STRING = Knob("string", _string)
