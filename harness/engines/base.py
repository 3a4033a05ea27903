"""What every engine adapter provides; the launcher and sweep code only talk to this."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.knobs import Knob

# The harness owns these: it picks the port, binds to loopback and names the model.
HARNESS_OWNED_FLAGS = frozenset({"host", "port", "model", "model_path"})


def flag_name(key: str) -> str:
    """`max_num_batched_tokens` -> `--max-num-batched-tokens` (the one place that maps keys to flags)."""
    return "--" + key.replace("_", "-")


def render_flags(args: dict[str, Any]) -> list[str]:
    """Engine argv for resolved args: None = not passed, True = bare flag, False = not passed."""
    argv: list[str] = []
    for key in sorted(args):
        value = args[key]
        if value is None or value is False:
            continue
        if key.startswith("--"):  # verbatim pass-through, see README "args"
            argv.append(key)
            if value is not True:
                argv.append(str(value))
            continue
        argv.append(flag_name(key))
        if value is True:
            continue
        if isinstance(value, (list, tuple)):
            argv.extend(str(v) for v in value)
        elif isinstance(value, dict):
            argv.append(json.dumps(value, separators=(",", ":"), sort_keys=True))
        else:
            argv.append(str(value))
    return argv


@dataclass(frozen=True)
class EngineAdapter:
    """Engine-specific facts for planning a launch.

    `flags` are the engine's CLI flags in snake_case (checked by name); `knobs` are the
    ones whose values the harness checks; `aliases` map the scenario's engine-neutral
    `defaults` names to this engine's flag (e.g. max_model_len -> context_length).
    """

    name: str
    flags: frozenset[str]
    knobs: dict[str, Knob] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)

    def native_name(self, key: str) -> str:
        return self.aliases.get(key, key)

    def knows(self, key: str) -> bool:
        return key.startswith("--") or self.native_name(key) in self.flags

    def command(self, python: str, model: str, port: int | str, args: dict[str, Any]) -> list[str]:
        raise NotImplementedError
