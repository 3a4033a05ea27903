"""`doctor SCENARIO`: the pre-flight in seconds, without launching: what would stop `run` on this host."""

from __future__ import annotations

import argparse
import json

from rich.table import Table

from harness.commands.common_args import add_json
from harness.commands.console import output_console
from harness.errors import EXIT_FINDING
from harness.execute.preflight import preflight
from harness.execute.run import selected_points


def _run(args: argparse.Namespace) -> int:
    scenario, points, _warnings = selected_points(args.scenario)
    checks = preflight(scenario, points)
    failed = [c for c in checks if not c.ok and c.blocks]
    if args.json:
        print(json.dumps([{"check": c.name, "verdict": c.verdict, "detail": c.detail} for c in checks], indent=1))
    else:
        table = Table(title=f"doctor {args.scenario}", show_lines=False)
        for column in ("check", "", "detail"):
            table.add_column(column, overflow="fold")
        for c in checks:
            table.add_row(c.name, c.verdict, c.detail)
        console = output_console()
        console.print(table)
        console.print(f"{len(failed)} check(s) would stop a run" if failed else "nothing here would stop a run")
    return EXIT_FINDING if failed else 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "doctor", help="pre-flight: what would stop a run of SCENARIO on this host (exit 1 if anything)",
        description="Python, the device (GPUs, their idle state, the card class), each engine env (and its CUDA "
                    "build against the driver), disk, the model and ports: checked in seconds, nothing launched.",
        epilog="example: python -m harness doctor scenarios/24g_8b.yaml",
    )
    parser.add_argument("scenario", metavar="SCENARIO")
    add_json(parser)
    parser.set_defaults(func=_run)
