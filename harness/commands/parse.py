"""`parse LOGFILE`: one engine startup log in, its parsed record out."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness.commands.common_args import add_json
from harness.engines import engine_names
from harness.engines.logs import AUTO, parse_engine_file
from harness.errors import EXIT_FINDING, HarnessError, InputError
from harness.formatting import MISSING, is_missing
from parsers import LogParser, NotAnEngineLog, StartupRecord


def parse_file(path: str | Path, engine: str = AUTO) -> StartupRecord:
    """Parse one log file, streamed. Missing file: InputError (exit 2); not an engine log: exit 1."""
    return _parse_stream(Path(path), engine).record


def _parse_stream(path: Path, engine: str) -> LogParser:
    try:
        return parse_engine_file(path, engine)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a log file") from None
    except NotAnEngineLog:
        raise HarnessError(f"{path}: not a log of any known engine ({', '.join(engine_names())}); "
                           f"pass --engine to parse it anyway", exit_code=EXIT_FINDING) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def nothing_found(parser: LogParser) -> str | None:
    """One line when no rule read anything: the log holds no KV sizing line and no startup error."""
    record = parser.record
    if parser.rules_fired or record.error_kind is not None or record.status is not None:
        return None
    return f"no KV sizing line and no startup error found; last phase {record.phase}"


def render_table(record: StartupRecord, console: Console) -> None:
    values = record.to_dict()
    table = Table(title=f"{record.engine} {record.engine_version or ''}".strip(), show_header=True)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for name in record.CSV_FIELDS:  # the results columns always, unknown ones as "-"
        table.add_row(name, _show(values[name]))
    extras = [(n, v) for n, v in values.items() if n not in record.CSV_FIELDS and v not in (None, {}, "", [])]
    if extras:
        table.add_section()
        for name, value in extras:
            table.add_row(name, _show(value))
    console.print(table)


def _show(value) -> str:
    if is_missing(value):
        return MISSING
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list):  # the pools: one a line, what each states
        return "\n".join(", ".join(f"{k}={v}" for k, v in item.items() if v is not None) for item in value)
    return str(value)


def _run(args: argparse.Namespace) -> int:
    parser = _parse_stream(Path(args.logfile), args.engine)
    if (note := nothing_found(parser)) is not None:
        raise HarnessError(f"{args.logfile}: {note}", exit_code=EXIT_FINDING)
    record = parser.record
    if args.json:
        print(json.dumps(record.to_dict()))
    else:
        render_table(record, Console())
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "parse", help="parse one engine startup log into its KV-cache record",
        description="Read a vLLM or SGLang startup log and print every memory-sizing fact and startup error it states.",
        epilog="example: python -m harness parse results/24g_8b/run1/logs/p03-0.log --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("logfile", help="the engine's log (stdout and stderr)")
    parser.add_argument("--engine", choices=(AUTO, *engine_names()), default=AUTO,
                        help="which engine wrote it (default: detect from the text)")
    add_json(parser, "print one JSON object (null for unknown)")
    parser.set_defaults(func=_run)
