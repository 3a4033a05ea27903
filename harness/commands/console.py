"""Rich consoles for command output."""

from __future__ import annotations

from rich.console import Console


def output_console(width: int = 220) -> Console:
    """A terminal gets its own width; a pipe or file gets wide tables instead of folding them at 80 columns."""
    console = Console()
    return console if console.is_terminal else Console(width=width)
