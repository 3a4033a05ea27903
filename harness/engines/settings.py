"""A point's engine settings: every value as the scenario wrote it and as its flag's type reads it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.engines.knobs import Knob, KnobError


@dataclass(frozen=True)
class Settings(Mapping[str, Any]):
    """Engine-native flag name -> typed value (None = the engine's default, the flag is not passed).

    `raw` keeps the scenario's spelling (`"32k"`, `"auto"`): the engine gets exactly that on its
    command line and the point id hashes it. Reading a setting gives the typed value (`32000`,
    `-1`): a fraction is a float, a token count an int, a boolean a bool, a byte size an int.
    Flags without a declared type are typed as written.
    """

    raw: dict[str, Any] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: dict[str, Any], knobs: Mapping[str, Knob]) -> Settings:
        """Raises KnobError for a value its flag does not accept (scenario checks report it first)."""
        values = {}
        for key, value in raw.items():
            knob = knobs.get(key)
            try:
                values[key] = knob.parse(value) if knob is not None and value is not None else value
            except KnobError as exc:
                raise KnobError(f"{key}: {exc}") from None
        return cls(dict(raw), values)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def passed(self) -> dict[str, Any]:
        """The raw settings the engine is started with (null ones are left to the engine)."""
        return {k: v for k, v in self.raw.items() if v is not None}

    def number(self, key: str, default: Any = None) -> Any:
        value = self.values.get(key)
        return default if value is None else value

    def is_on(self, key: str) -> bool:
        return self.values.get(key) is True
