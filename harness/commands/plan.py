"""`plan SCENARIO`: every sweep point and the exact engine command, without launching."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from harness.commands.common_args import add_json
from harness.commands.console import output_console
from harness.execute.launch_plan import PlannedLaunch, plan_launch
from harness.execute.run import selected_points
from harness.scenario.point import knob_label


def build_plan(scenario_path: str, engine_versions: dict[str, str] | None = None, engines: list[str] | None = None,
               points: list[str] | None = None) -> list[PlannedLaunch]:
    """The launches a run with these options would make (`run --dry-run` passes its own)."""
    scenario, selected, warnings = selected_points(scenario_path, engine_versions, engines, points)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return [plan_launch(point, scenario.run.stop_after) for point in selected]


def render_table(launches: list[PlannedLaunch], console: Console) -> None:
    table = Table(title=f"{len(launches)} points", show_lines=True)
    for column in ("point_id", "engine", "repeat", "knobs", "command", "env"):
        table.add_column(column, overflow="fold")
    for launch in launches:
        table.add_row(
            launch.point_id, launch.engine, str(launch.repeat),
            knob_label(launch.knobs, sep="\n", empty=""),
            launch.command,
            "\n".join(f"{k}={v}" for k, v in launch.env.items()),
        )
    console.print(table)
    for note in sorted({launch.python_note for launch in launches if launch.python_note}):
        console.print(f"[yellow]note:[/] {note}")


def _run(args: argparse.Namespace) -> int:
    launches = build_plan(args.scenario, getattr(args, "engine_versions", None), getattr(args, "engines", None),
                          getattr(args, "points", None))
    if args.json:
        print(json.dumps([launch.to_json() for launch in launches], indent=2))
    else:
        render_table(launches, output_console(width=240))  # commands are long
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "plan", help="list every sweep point and its exact engine command (no launch)",
        description="Expand the scenario's sweep and show each point's id, knobs, command line and env.",
        epilog="example: python -m harness plan scenarios/24g_8b.yaml --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", help="scenario YAML file")
    add_json(parser, "print a JSON list instead of a table")
    parser.set_defaults(func=_run)
