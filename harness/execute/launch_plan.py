"""What `plan` shows: for each Point, the exact command and env it would start with."""

from __future__ import annotations

import shlex
from dataclasses import asdict, dataclass
from typing import Any

from harness.engines import get_engine
from harness.envs import resolve_env
from harness.errors import HarnessError
from harness.execute.engine_process import launch_args
from harness.scenario import Point

PORT_PLACEHOLDER = "$PORT"  # a free port is picked at launch time


@dataclass
class PlannedLaunch:
    point_id: str
    engine: str
    repeat: int
    knobs: dict[str, Any]
    args: dict[str, Any]
    argv: list[str]
    env: dict[str, str]
    python: str
    python_note: str | None  # why the interpreter is not a real path yet (environment not installed)

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["command"] = self.command
        return data


def engine_python(point: Point) -> tuple[str, str | None]:
    """The interpreter a point runs with: scenario `python`, else the provisioned environment."""
    if point.python:
        return point.python, None
    try:
        return str(resolve_env(point.engine, point.engine_version).python), None
    except HarnessError as exc:
        return f"<{point.engine}-{point.engine_version} env>/bin/python", str(exc)


def plan_launch(point: Point, stop_after: str = "ready") -> PlannedLaunch:
    python, note = engine_python(point)
    engine = get_engine(point.engine)
    argv = engine.launch.command(python, point.model, PORT_PLACEHOLDER, launch_args(engine, point.args, stop_after),
                                 version=point.engine_version)
    return PlannedLaunch(
        point_id=point.point_id, engine=point.engine, repeat=point.repeat, knobs=point.knobs,
        args=point.passed_args(), argv=argv, env=point.env, python=python, python_note=note,
    )
