"""Command-line entry point: builds the parser and maps errors to exit codes.

Each subcommand lives in `harness/commands/<name>.py` and exposes
`register(subparsers)`, which adds its parser and sets `func` to a function taking
the parsed namespace and returning the exit code. The work itself is a plain function
in that module, callable from tests without the CLI.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

from harness import __version__
from harness.errors import EXIT_HARNESS, HarnessError, Interrupted

# Order is the order shown in --help.
COMMANDS = ("run", "plan", "validate", "doctor", "predict", "advise", "parse", "compare", "report", "envs")


def commands_named(argv: list[str] | None) -> tuple[str, ...]:
    """The command modules a command line needs: only the one it names (each module imports what its command uses,
    and `parse` must not pay for pandas, pydantic and the rest at import: benchmarks/parse_speed.py holds it to
    <= 100 MB), every one when it names none (`--help`, a mistyped command: argparse lists them all)."""
    words = [a for a in (argv or []) if not a.startswith("-")]
    return (words[0],) if words and words[0] in COMMANDS else COMMANDS


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser; given the command line `argv`, with only the command it names registered."""
    parser = argparse.ArgumentParser(
        prog="python -m harness",
        description="Launch real inference servers (vLLM, SGLang) over a sweep of memory knobs and record their "
                    "KV-cache sizing.",
    )
    parser.add_argument("--version", action="version", version=f"kv-budget-harness {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands_named(argv):
        importlib.import_module(f"harness.commands.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s: %(message)s",
    )
    try:
        return int(args.func(args) or 0)
    except Interrupted as exc:
        print(exc, file=sys.stderr)
        return exc.exit_code
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # stdout closed early (`| head`): nothing more to say, and no traceback at exit either
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stdout for the rest of the process
        except OSError:
            pass
        return 0
    except Exception as exc:  # last resort: one line, exit 3, traceback only with -v
        if args.verbose:
            raise
        print(f"internal error: {type(exc).__name__}: {exc} (re-run with -v for the traceback)", file=sys.stderr)
        return EXIT_HARNESS
