"""A fake engine's log line in its release's own wording: the message template the release's source holds for a
fact (the committed format tables, harness/engines/<engine>/formats/<engine>-<release>.tsv, read from the wheels),
rendered the way the engine renders it - the template's own placeholder expressions evaluated over the
names the fake engine binds to its numbers.

Only the wording comes from the harness: every number is the fake engine's (tests/support/gpu_host/*_rules.py), so
a parser or a predictor rule that is wrong still disagrees with what the fake prints.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from harness.engines.release_formats import F_STRING, PERCENT, PLAIN, Row, read_table

FORMATS = Path(__file__).resolve().parents[3] / "harness" / "engines"
GiB_BYTES = 1 << 30


def format_gib(nbytes: float) -> str:
    """vLLM's format_gib (0.32.0 vllm/utils/mem_utils.py:30): str(round(b / GiB, 2))."""
    return f"{round(nbytes / GiB_BYTES, 2)}"


def gib(nbytes: float) -> float:
    """The `GiB = lambda b: round(b / GiB_bytes, 2)` of vLLM 0.13.0 (vllm/v1/worker/gpu_worker.py:246)."""
    return round(nbytes / GiB_BYTES, 2)


def row(engine: str, release: str, fact: str, prefer: str = "") -> Row:
    """The row of `fact` in the release's table: the first whose source contains `prefer`, else the first."""
    path = FORMATS / engine / "formats" / f"{engine}-{release}.tsv"
    rows = [r for r in read_table(path) if r.fact == fact]
    if not rows:
        raise LookupError(f"{engine} {release}: no wording for {fact!r} in {path.name}")
    return next((r for r in rows if prefer in r.source), rows[0])


def render(template_row: Row, names: dict[str, Any]) -> str:
    """The message as the release prints it: its placeholders' expressions evaluated over `names` (the engine's
    variable names; `self` and other objects as attribute bags)."""
    scope = {"format_gib": format_gib, "GiB": gib, "GiB_bytes": GiB_BYTES, **{k: _bag(v) for k, v in names.items()}}
    if template_row.style == PERCENT:
        values = tuple(eval(arg, scope) for arg in template_row.args)  # the release's own expressions
        return template_row.template % values
    if template_row.style == F_STRING:
        return eval("f" + repr(template_row.template), scope)
    if template_row.style == PLAIN:
        return template_row.template
    raise ValueError(f"{template_row.style}: not a style the fake engines print")


def _bag(value: Any) -> Any:
    """A dict as an object whose attributes are its keys (`self.init_snapshot.free_memory`), nested."""
    return SimpleNamespace(**{k: _bag(v) for k, v in value.items()}) if isinstance(value, dict) else value


def where(template_row: Row) -> str:
    """`file.py:line`, as vLLM's logger prints the call site."""
    path, line = template_row.source.rsplit(":", 1)
    return f"{path.rsplit('/', 1)[-1]}:{line}"
