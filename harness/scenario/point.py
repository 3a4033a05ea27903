"""One engine launch of a sweep: the typed `Point` with its id, name and label."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from harness.engines import get_engine
from harness.engines.settings import Settings

# 64 bits of sha256 (16 hex digits): among 10^7 points the chance of any two sharing an id
# is about n^2 / 2^65 = 3e-6. Ids of results written with the 10-digit ids are prefixes of these.
POINT_ID_LENGTH = 16
LEGACY_POINT_ID_LENGTH = 10


def point_digest(engine: str, model: str, args: dict[str, Any], env: dict[str, str] | None = None) -> bytes:
    """sha256 of what the engine is started with; key order and null args do not matter."""
    identity: dict[str, Any] = {
        "engine": engine,
        "model": model,
        "args": {k: v for k, v in args.items() if v is not None},
    }
    if env:
        identity["env"] = env
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).digest()


def point_id(engine: str, model: str, args: dict[str, Any], env: dict[str, str] | None = None) -> str:
    """The point's id: the start of its digest, POINT_ID_LENGTH hex digits."""
    return point_digest(engine, model, args, env).hex()[:POINT_ID_LENGTH]


def point_name(point_id_: str, repeat: int, release: str | None = None) -> str:
    """The name of one (point, repeat): its log file, work dir and process names use it.
    On a release axis the release is part of it, since one point runs once per release."""
    return f"{point_id_}-{release}-{repeat}" if release else f"{point_id_}-{repeat}"


def knob_label(knobs: dict[str, Any], sep: str = " ", empty: str = "(defaults)") -> str:
    """`gpu_memory_utilization=0.9 max_num_batched_tokens=2048`; null is the engine's `default`."""
    return sep.join(f"{k}={'default' if v is None else v}" for k, v in knobs.items()) or empty


@dataclass(frozen=True)
class Point:
    """Everything needed to start one engine and to name its row."""

    scenario: str
    engine: str
    engine_version: str | None
    model: str
    point_id: str
    repeat: int
    settings: Settings
    knobs: dict[str, Any]  # only the swept keys, as the scenario names them (raw values)
    env: dict[str, str] = field(default_factory=dict)
    python: str | None = None
    # True when the scenario runs this engine on several releases: the point_id is the same on
    # each (so results line up across releases), the row's release tells them apart.
    release_axis: bool = False

    @classmethod
    def of(cls, *, engine: str, args: dict[str, Any], **fields: Any) -> Point:
        """A point from raw engine args, typed by the engine's knobs (what `expand` does per point)."""
        return cls(engine=engine, settings=Settings.parse(dict(args), get_engine(engine).knobs), **fields)

    @property
    def args(self) -> dict[str, Any]:
        """Engine-native flag -> raw value, None = not passed (what the argv is rendered from)."""
        return self.settings.raw

    def passed_args(self) -> dict[str, Any]:
        return self.settings.passed()

    @property
    def name(self) -> str:
        return point_name(self.point_id, self.repeat, self.engine_version if self.release_axis else None)

    @property
    def label(self) -> str:
        return knob_label(self.knobs)
