"""Scenario problems: each one a located line (`FILE: engines.vllm.sweep.x[2]: message`)."""

from __future__ import annotations

import difflib
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import InputError


@dataclass(frozen=True)
class Problem:
    location: str  # dotted path into the scenario, e.g. engines.vllm.sweep.gpu_memory_utilization[2]
    message: str

    def render(self, path: str | Path) -> str:
        return f"{path}: {self.location}: {self.message}" if self.location else f"{path}: {self.message}"


class ScenarioError(InputError):
    """A scenario with problems; `str()` is one line per problem."""

    def __init__(self, path: str | Path, problems: list[Problem]):
        self.path = str(path)
        self.problems = problems
        super().__init__("\n".join(p.render(path) for p in problems))


def format_location(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def nearest(name: str, candidates: typing.Iterable[str]) -> str | None:
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return match[0] if match else None
