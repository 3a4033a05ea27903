"""Why a figure moved between two runs of a point (`compare --explain`), the engine-neutral parts: what one side
knows (its row, its re-read log, the predictor's terms), a term of the split, a release rule with its source, and
the chain that splits a pool's change into the terms an engine names (each engine's own split lives in its package).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.engines.releases import ReleaseRange
from harness.predict.model import GiB
from harness.predict.prediction import Prediction
from parsers.record import StartupRecord

LOG = "log"  # the term is what the row or its log states
PREDICTOR = "predictor"  # the term is the predictor's (an exact rule or a labelled estimate)
# A term no line states, solved from figures the log does state by the release's own formula (the rest of the
# pool's arithmetic from the log, the engine's exact pool size or error): "log (pinned by #tokens)".
PINNED = "log (pinned by {})"


@dataclass(frozen=True)
class ReleaseRule:
    """One budget rule an engine's releases differ by: where it holds (a range, or a value per release), what it
    says, its source (release + file:line), the figures it moves and the predictor's parts it acts through."""

    name: str
    says: str
    source: str
    figures: tuple[str, ...]
    releases: ReleaseRange | None = None
    value: Callable[[str], Any] | None = None
    devices: tuple[str, ...] = ("cpu", "cuda")
    parts: tuple[str, ...] = ()  # e.g. the reserve's "decode graph": a rule is named only where its part moved

    def at(self, release: str) -> Any:
        if self.value is not None:
            return self.value(release)
        return self.releases is not None and release in self.releases

    def changed(self, before: str, after: str, device: str) -> bool:
        return device in self.devices and self.at(before) != self.at(after)

    def cite(self, before: str, after: str) -> str:
        def shown(release: str) -> str:
            value = self.at(release)
            return ("yes" if value else "no") if isinstance(value, bool) else str(value)

        return f"{self.name} ({before}: {shown(before)}, {after}: {shown(after)}): {self.says} [{self.source}]"


def changed_rules(rules: tuple[ReleaseRule, ...], before: str, after: str, device: str,
                  figure: str | None = None) -> list[ReleaseRule]:
    """The rules whose value differs between the two releases on `device` (that move `figure`, when given)."""
    return [r for r in rules if r.changed(before, after, device) and (figure is None or figure in r.figures)]


@dataclass
class SideFacts:
    """One side of a point: its release, the row's values (None where empty), its log re-read (None without a log)
    and the predictor's terms for it (None where the predictor has none)."""

    release: str
    row: Mapping[str, Any]
    record: StartupRecord | None = None
    prediction: Prediction | None = None
    # the same side's prediction with other inputs (keyword arguments of harness.engines.predicting.predict:
    # gpu_free_mib, free_at_load, calibration); None where the side cannot be predicted again
    repredict: Callable[..., Prediction | None] | None = None

    @property
    def device(self) -> str:
        return "cpu" if str(self.row.get("device_name") or "").startswith("cpu") else "cuda"

    def number(self, column: str) -> float | None:
        value = self.row.get(column)
        try:
            out = float(value)
        except (TypeError, ValueError):
            return None
        return None if math.isnan(out) else out

    def logged(self, name: str) -> float | None:
        """A number the re-read log states (None without a log or where it is silent)."""
        value = getattr(self.record, name, None) if self.record is not None else None
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass
class Term:
    """One named cause of a KV change: its value on each side, the tokens it moves, where it comes from."""

    name: str
    before: Any
    after: Any
    delta_tokens: int
    source: str  # LOG | PREDICTOR | a PINNED label (per side where the sides differ: "before: ...; after: ...")
    rule: str | None = None  # the release rule(s) behind a changed value, with their source
    unit: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "before": _plain(self.before), "after": _plain(self.after),
                "delta_tokens": self.delta_tokens, "source": self.source, "rule": self.rule, "unit": self.unit}


@dataclass
class Factor:
    """One input of an engine's pool arithmetic, before and after, for `chain`."""

    name: str
    before: float | None
    after: float | None
    source: str
    unit: str = ""
    rule: str | None = None


@dataclass
class KvSplit:
    """An engine's split of one point's KV change: the terms (they add up to its model's change), its model's
    tokens on each side, one block/page in tokens, and what the logs' rounding can hide (tokens, over both sides).
    `uncertainty_tokens`: how far the logs' rounding can move tokens between the terms where a term is pinned from
    the log (the residual of a pinned pair is no test of the terms beyond it). `modelled` False: the engine cannot
    split this pair (`reason` says why); the whole change is then residual."""

    terms: list[Term] = field(default_factory=list)
    model_before: int | None = None
    model_after: int | None = None
    grain_tokens: int = 1
    log_rounding_tokens: int = 0
    uncertainty_tokens: int = 0
    bytes_per_token: float | None = None  # to show the residual in GiB too
    exact: bool = False  # every term is exact (a pool given in bytes): the residual must be nil, not within a block
    modelled: bool = True
    reason: str = ""
    notes: list[str] = field(default_factory=list)


def chain(factors: list[Factor], continuous: Callable[[dict[str, float]], float],
          rounded: Callable[[dict[str, float]], int], rounding_name: str,
          rounded_after: Callable[[dict[str, float]], int] | None = None) -> KvSplit:
    """Swap the factors from their before to their after values one at a time, in order: each term moves the
    pool (in tokens, before any rounding) by what its swap moved it; the engine's rounding of both sides is one
    more term. Whole tokens per term, and the rounding term takes the fractions, so the terms add up exactly to
    the model's change `rounded(after) - rounded(before)`. `rounded_after`: the after side's rounding where it
    differs (another block size, a request length auto-fit moved)."""
    values = {f.name: f.before for f in factors}
    start = current = continuous(values)
    model_before = rounded(values)
    terms = []
    for f in factors:
        values[f.name] = f.after
        moved = continuous(values)
        terms.append(Term(f.name, f.before, f.after, round(moved - current), f.source, f.rule, f.unit))
        current = moved
    model_after = (rounded_after or rounded)(values)
    rest = (model_after - model_before) - sum(t.delta_tokens for t in terms)
    terms.append(Term(rounding_name, round(model_before - start, 1), round(model_after - current, 1), rest,
                      PREDICTOR, None, "tokens"))
    return KvSplit(terms=[t for t in terms if t.delta_tokens or t.before != t.after],
                   model_before=model_before, model_after=model_after)


def _plain(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        return int(value) if value.is_integer() else value
    return value


# --- the pools both logs state (results format v5's kv_pools) ------------------------------------------------------

# The pools whose tokens are the engine's KV size (the others - a sliding-window model's SWA pool, a draft model's
# pool, a hybrid model's recurrent state - take memory from the same budget beside it).
TARGET_POOLS = ("kv", "full")
# Each pool's GiB is logged with two decimals (SGLang's K and V sizes each so: up to 0.01 GiB a pool).
POOL_GIB_STEP = 0.01


def side_pools(side: SideFacts) -> list[dict[str, Any]]:
    """The pools one side states: its re-read log's, else the row's kv_pools text (results format v5)."""
    record_pools = getattr(side.record, "kv_pools", None) if side.record is not None else None
    if record_pools:
        return [{k: v for k, v in vars(p).items() if v is not None} for p in record_pools]
    text = side.row.get("kv_pools")
    if isinstance(text, str) and text.strip():
        try:
            pools = json.loads(text)
        except ValueError:
            return []
        return [p for p in pools if isinstance(p, dict) and "kind" in p]
    return []


def pool_split(before: SideFacts, after: SideFacts) -> KvSplit | None:
    """A KV change split by the pools both sides' logs state, where the engine's own split does not model them:
    the memory of all pools (the budget they share), then each other pool's memory (a draft model's, the SWA
    layers', a recurrent state's) as a term of its own - the tokens it takes from the target pool or gives back -,
    then the target pool's bytes per token (its logged GiB over its tokens). KV cache groups (vLLM: block sizes,
    no memory of their own) are a term of 0 tokens where they changed. None: a side states no target pool with
    tokens and GiB. The pools' GiB are logged to 0.01: the split is known to that (uncertainty_tokens)."""
    pools = [side_pools(s) for s in (before, after)]
    if not pools[0] or not pools[1]:
        return None
    targets = [next((p for p in side if p["kind"] in TARGET_POOLS and p.get("tokens") and p.get("gib")), None)
               for side in pools]
    if None in targets:
        return None
    keyed = [{(p["kind"], p["name"]): p for p in side if p is not t and p["kind"] not in ("group", "worker")}
             for side, t in zip(pools, targets)]
    others = list(dict.fromkeys([*keyed[0], *keyed[1]]))
    factors = [Factor("memory of all pools", sum(p.get("gib") or 0.0 for p in keyed[0].values()) + targets[0]["gib"],
                      sum(p.get("gib") or 0.0 for p in keyed[1].values()) + targets[1]["gib"], LOG, "GiB")]
    for kind, name in others:
        was, now = keyed[0].get((kind, name), {}), keyed[1].get((kind, name), {})
        factors.append(Factor(f"{name} ({kind} pool)", was.get("gib") or 0.0, now.get("gib") or 0.0, LOG, "GiB"))
    cells = [t["gib"] * GiB / t["tokens"] for t in targets]
    factors.append(Factor("bytes per token (target pool, as logged)", cells[0], cells[1], LOG, "bytes"))
    other_names = [f.name for f in factors[1:-1]]

    def continuous(v):
        rest = v["memory of all pools"] - sum(v[n] for n in other_names)
        return max(0.0, rest * GiB / v["bytes per token (target pool, as logged)"])

    def rounded(v):
        return round(continuous(v))

    split = chain(factors, continuous, rounded, "rounding of the logged pools")
    groups = [tuple(p.get("block_size") for p in side if p["kind"] == "group") for side in pools]
    if groups[0] != groups[1]:
        split.terms.append(Term("KV cache groups (block sizes)", ",".join(map(str, groups[0])) or "none",
                                ",".join(map(str, groups[1])) or "none", 0, LOG))
    logged = sum(1 + len(k) for k in keyed)  # every pool's GiB on each side
    split.uncertainty_tokens = split.log_rounding_tokens = math.ceil(logged * POOL_GIB_STEP * GiB / min(cells))
    split.grain_tokens = int(max((s.number("block_size") or 1) for s in (before, after)))
    split.bytes_per_token = min(cells)
    split.notes.append("split by the pools both logs state: the memory they share, what each pool besides the "
                       "target took of it, and the target's bytes per token; each pool's GiB is logged to 0.01")
    return split
