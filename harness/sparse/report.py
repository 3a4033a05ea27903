"""What a sparse run says after its tables: launches against points, each group's unknown terms, what stayed
unresolved, and what --verify found against each bound."""

from __future__ import annotations

from harness.sparse.loop import SparseOutcome, Verified
from harness.sparse.terms import describe


def _verified_line(v: Verified) -> str:
    e = v.estimate
    said = "inside" if v.inside else "OUTSIDE"
    where = f"verify {e.point.engine} {e.point.point_id}#{v.launch_row.get('repeat')} {e.point.label}"
    if not e.prediction.will_start:
        return (f"{where}: predicted a refusal, measured {v.launch_row.get('status')} "
                f"{v.launch_row.get('error_kind') or ''}: {said}")
    error = "no KV" if v.error_pct is None else f"{v.error_pct:+.2f} %"
    bound = "no bound" if e.bound_pct is None else f"± {e.bound_pct:.2f} %"
    return (f"{where}: predicted {e.prediction.kv_tokens:,} {bound}, measured {v.measured_tokens or 0:,.0f} "
            f"({error}, {v.launch_row.get('status')}): {said}")


def sparse_lines(outcome: SparseOutcome, launched: int) -> list[str]:
    predicted = len(outcome.estimates)
    lines = [(f"sparse: {launched} launches this run; {predicted} points predicted (rows with source predicted and "
              "their bound), every other point measured")]
    lines += [f"  {key.describe()}: unknown terms {describe(key.engine, terms)}"
              for key, terms in outcome.terms.items()]
    lines += [f"  {line}" for line in outcome.scatter]
    lines += [f"  unresolved: {line}" for line in outcome.unresolved]
    lines += [f"  {_verified_line(v)}" for v in outcome.verified]
    return lines
