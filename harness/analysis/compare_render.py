"""How a `Comparison` reads: the terminal table and the Markdown one (the judgement itself is in compare.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.formatting import number as _num
from harness.formatting import pct as _pct
from harness.formatting import text_table

if TYPE_CHECKING:
    from harness.analysis.compare import Comparison, Side

def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _kv_cell(side: Side | None) -> str:
    if side is None:
        return "absent"
    if not side.measured:
        return "harness_error"
    if side.all_failed:
        return side.outcome_text()
    text = _num(side.kv_median)
    if side.kv_spread_pct is not None:
        text += f" (n={len(side.kv)}, spread {side.kv_spread_pct:.2f}%)"
    return text


TABLE_HEADER = ("mark", "point", "base kv_tokens", "new kv_tokens", "delta", "%", "ratio", "outcome / settings")


def table_rows(comparison: Comparison) -> list[tuple[str, ...]]:
    """One row per point, the same in text and Markdown."""
    rows = []
    for p in comparison.points:
        kv = p.kv
        detail = []
        if p.base and p.new and (p.base.failed or p.new.failed):
            was, now = p.base.outcome_text(), p.new.outcome_text()
            detail.append(now if was == now else f"{was} -> {now}")
        detail += [c.text() for c in p.settings] + [c.text() for c in p.behaviour]
        rows.append((
            p.mark.value, p.label, _kv_cell(p.base), _kv_cell(p.new),
            _num(kv.delta) if kv and kv.delta is not None else "-",
            _pct(kv.pct) if kv else "-", _ratio(p.ratio), "; ".join(detail),
        ))
    return rows


def _context_lines(comparison: Comparison) -> list[str]:
    lines = []
    for side in (comparison.base, comparison.new):
        versions = ", ".join(f"{e} {'/'.join(v) or '?'}" for e, v in side.engine_versions.items())
        machine = ", ".join(f"{k}={'/'.join(v)}" for k, v in side.machine.items() if v)
        lines.append(f"{side.name}: scenario {side.scenario or '?'}, run {', '.join(side.run_ids) or '?'}, "
                     f"{versions or 'no rows'}; {machine or 'machine not recorded'}")
    limits = ", ".join(f"{c}:{p:g}%" for c, p in comparison.thresholds.items()
                       if comparison.probed or not c.startswith("probe_"))
    lines.append(f"tolerance: {limits}")
    return lines


def package_lines(comparison: Comparison) -> list[str]:
    """The packages that differ between the runs' envs (beyond the engines themselves), memory-moving first."""
    changes = comparison.package_changes
    if not changes:
        return []
    return [f"packages that differ between the runs' envs ({len(changes)}):"] + [f"  {c.text()}" for c in changes]


def render_text(comparison: Comparison) -> str:
    out = _context_lines(comparison)
    out += [f"warning: {w}" for w in comparison.warnings]
    out += package_lines(comparison)
    out += ["", text_table(TABLE_HEADER, table_rows(comparison))]
    notes = [f"{p.label}: {n}" for p in comparison.points for n in p.notes]
    if notes:
        out += [""] + [f"note: {n}" for n in notes]
    if comparison.findings:
        out += [""] + [f"changed: {f}" for f in comparison.findings]
    out += ["", comparison.summary()]
    return "\n".join(out) + "\n"


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(comparison: Comparison) -> str:
    out = ["## Engine-upgrade comparison", ""]
    out += [f"- {_md_cell(line)}" for line in _context_lines(comparison)]
    out += [f"- **warning:** {_md_cell(w)}" for w in comparison.warnings]
    if comparison.package_changes:
        out += ["", f"Packages that differ between the runs' envs ({len(comparison.package_changes)}):", ""]
        out += [f"- {_md_cell(c.text())}" for c in comparison.package_changes]
    out += ["", "| " + " | ".join(TABLE_HEADER) + " |", "|" + "---|" * len(TABLE_HEADER)]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in table_rows(comparison)]
    notes = [f"{p.label}: {n}" for p in comparison.points for n in p.notes]
    if notes:
        out += ["", "Notes:", ""] + [f"- {_md_cell(n)}" for n in notes]
    if comparison.findings:
        out += ["", "Changes beyond tolerance:", ""] + [f"- {_md_cell(f)}" for f in comparison.findings]
    out += ["", f"**{comparison.summary()}**", ""]
    return "\n".join(out)
