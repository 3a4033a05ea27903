"""The search `advise` walks: which setting to launch next, from the target, the launches so far and a predictor.

Pure: the predictor comes in as a function (the loop recalibrates it from the measured rows
before every call), launches come in as their outcomes. The fraction knob moves on a grid of
GRAIN; the answer is the lowest fraction that meets the target (the cheapest: it leaves the
most memory to everything else), bracketed by a launch that met it and, one grain lower, a
launch that did not (the margin). A smaller batch knob value is only tried when no fraction
up to the ceiling meets the target at the current one.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field

GRAIN = 0.01


@dataclass(frozen=True)
class Target:
    max_model_len: int
    kv_tokens: int  # tokens the pool must hold: concurrency x max_model_len, or given
    concurrency: float | None = None  # what the user asked for, when in requests

    def describe(self) -> str:
        if self.concurrency is not None:
            return (f"{self.concurrency:g} concurrent requests of {self.max_model_len} tokens "
                    f"({self.kv_tokens:,} KV tokens)")
        return f"{self.kv_tokens:,} KV tokens at max_model_len {self.max_model_len}"


@dataclass(frozen=True)
class Setting:
    fraction: float | None  # None only to ask the predictor for the engine's own default
    batch: int | None = None  # None: the scenario's (or the engine's default)

    def key(self) -> tuple[float, int]:
        return (-1.0 if self.fraction is None else round(self.fraction, 4), -1 if self.batch is None else self.batch)


class Verdict(str, enum.Enum):
    MEETS = "meets the target"
    SHORT = "misses the target"  # started with too few tokens, or failed for too little KV
    TOO_MUCH = "fails to start"  # asked for more than the device has (or crashed, timed out)
    UNKNOWN = "not measured"  # the harness failed: says nothing about the setting


@dataclass(frozen=True)
class Launch:
    setting: Setting
    status: str
    error_kind: str | None
    kv_tokens: int | None
    point_id: str = ""

    def verdict(self, target: Target, shortfall_errors: frozenset[str]) -> Verdict:
        if self.status == "harness_error":
            return Verdict.UNKNOWN
        if self.status == "ok":
            if self.kv_tokens is None:
                return Verdict.UNKNOWN
            return Verdict.MEETS if self.kv_tokens >= target.kv_tokens else Verdict.SHORT
        if self.status == "engine_error" and self.error_kind in shortfall_errors:
            return Verdict.SHORT
        return Verdict.TOO_MUCH


@dataclass(frozen=True)
class Forecast:
    """What the (calibrated) predictor says of one setting."""

    kv_tokens: int
    will_start: bool


Predictor = Callable[[Setting], Forecast]


@dataclass
class Step:
    """The search's answer: launch `launch` next, or stop with `done` set (found or not)."""

    launch: Setting | None = None
    why: str = ""
    done: bool = False
    best: Launch | None = None  # the lowest setting that met the target
    margin: Launch | None = None  # one grain below it, measured short (or failed)
    reachable: bool = True
    best_reachable: Launch | None = None  # when not reachable: the most KV any launch got
    notes: list[str] = field(default_factory=list)


def grid(ceiling: float) -> list[float]:
    return [round(k * GRAIN, 4) for k in range(1, round(ceiling / GRAIN) + 1)]


def next_step(target: Target, launches: list[Launch], predict: Predictor, batches: list[int | None],
              ceilings: dict[int | None, float], shortfall_errors: frozenset[str], max_launches: int) -> Step:
    """The next launch, or the end of the search. `batches`: the batch values to try, in order (the
    scenario's first); `ceilings`: the highest fraction to propose at each."""
    verdicts = {launch.setting.key(): launch.verdict(target, shortfall_errors) for launch in launches}
    measured = [launch for launch in launches if verdicts[launch.setting.key()] is not Verdict.UNKNOWN]
    for i, batch in enumerate(batches):
        step = _search_batch(target, measured, verdicts, predict, batch, ceilings[batch], confirm=i == 0)
        if step is None:
            continue  # nothing at this batch value meets it: try the next
        if step.launch is not None and len(launches) >= max_launches:
            return _out_of_launches(target, measured, verdicts, max_launches, step)
        return step
    ok = [launch for launch in measured if launch.kv_tokens is not None and launch.status == "ok"]
    best = max(ok, key=lambda launch: launch.kv_tokens) if ok else None
    return Step(done=True, reachable=False, best_reachable=best,
                why="no fraction up to the ceiling meets the target at any batch setting")


def _search_batch(target: Target, measured: list[Launch], verdicts: dict, predict: Predictor, batch: int | None,
                  ceiling: float, confirm: bool) -> Step | None:
    """The step at one batch value, None when it cannot meet the target. `confirm`: launch once at the
    top when the predictor says it cannot (the first batch value only; others launch only on a
    prediction that they meet)."""
    here = [launch for launch in measured if launch.setting.batch == batch]
    tried = {round(launch.setting.fraction, 4): launch for launch in here}
    meets = sorted((launch for launch in here if verdicts[launch.setting.key()] is Verdict.MEETS),
                   key=lambda launch: launch.setting.fraction)
    short = [launch.setting.fraction for launch in here if verdicts[launch.setting.key()] is Verdict.SHORT]
    too_much = [launch.setting.fraction for launch in here if verdicts[launch.setting.key()] is Verdict.TOO_MUCH]
    low = max(short, default=0.0)
    cap = min(too_much, default=math.inf)
    best = meets[0] if meets else None
    top = min(best.setting.fraction if best else math.inf, cap)
    candidates = [f for f in grid(ceiling) if low < f < top and f not in tried]
    if best is not None:
        below = round(best.setting.fraction - GRAIN, 4)
        done = Step(done=True, best=best, margin=tried.get(below),
                    why=f"{best.setting.fraction:g} meets the target and {below:g} does not")
        if below in tried or not candidates:
            return done
    elif not candidates:
        return None  # everything up to the cap (or the ceiling) is short at this batch value
    forecasts = {f: predict(Setting(f, batch)) for f in candidates}
    meeting = [f for f in candidates if forecasts[f].will_start and forecasts[f].kv_tokens >= target.kv_tokens]
    secant = _measured_slope_step(target, here, predict, candidates)
    if secant is not None and secant.launch.fraction not in meeting[:1]:
        return secant
    if meeting:
        f = meeting[0]
        why = f"predicted {forecasts[f].kv_tokens:,} KV tokens at {f:g}, the lowest fraction predicted to meet it"
        below = round(f - GRAIN, 4)
        near = forecasts.get(below)
        if near is not None and near.will_start and \
                target.kv_tokens - near.kv_tokens < forecasts[f].kv_tokens - target.kv_tokens:
            # The boundary lies between the two, nearer `below`: with a pool that moves by the engine's own
            # noise between launches, the launch predicted nearest the target is the likeliest to be on it
            # (it meets: its margin is next; it misses: `f` is), where `f` would likely meet with room and
            # cost a launch at `below` as well.
            f, why = below, (f"predicted {near.kv_tokens:,} KV tokens at {below:g}, "
                             f"{target.kv_tokens - near.kv_tokens:,} short: nearer the target than {f:g}'s "
                             f"{forecasts[f].kv_tokens:,}")
        wrong = _wrong_in_direction(target, here, verdicts, predict)
        if len(meeting) == len(candidates) and len(candidates) > 2 and len(wrong) >= 2:
            # Recalibrated on every launch, the predictor still calls launches that missed "meets" (or
            # the reverse) twice: it cannot explain them, so its threshold is not to be trusted: bisect.
            f = candidates[(len(candidates) - 1) // 2]
            why = (f"bisecting ({low:g}, {top:g}): the predictor, recalibrated, is still wrong about "
                   f"{', '.join(f'{w:g}' for w in wrong)}")
        return Step(launch=Setting(f, batch), why=why)
    if best is not None:
        below = round(best.setting.fraction - GRAIN, 4)
        if below in candidates:
            return Step(launch=Setting(below, batch),
                        why=f"the margin: {below:g}, one grain below {best.setting.fraction:g}, is predicted to miss")
        return done
    startable = [f for f in candidates if forecasts[f].will_start]
    if not confirm or not startable:
        return None
    # Predicted unreachable: one launch at the highest fraction predicted to start measures the best
    # this setting reaches (and catches a pessimistic prediction).
    f = startable[-1]
    return Step(launch=Setting(f, batch),
                why=f"predicted to miss even at {f:g}, the highest predicted to start: measuring the best reachable")


# The predictor's slope may differ from the measured one by the engines' own noise (SGLang-CPU's pool follows
# free memory read twice: ~1 %); beyond this, the measured slope is the better guide.
SLOPE_MISMATCH = 0.03
SLOPE_GAP = 3 * GRAIN


def _measured_slope_step(target: Target, launches: list[Launch], predict: Predictor,
                         candidates: list[float]) -> Step | None:
    """Where the engine's own measured slope (the two measured launches nearest the target, KV > 0) reaches
    the target, when the predictor's slope between the same two fractions is off by more than SLOPE_MISMATCH:
    the predictor calibrated on a launch matches its level there, not how KV grows with the fraction."""
    ok = sorted((launch for launch in launches if launch.status == "ok" and launch.kv_tokens and launch.kv_tokens > 0),
                key=lambda launch: abs(launch.kv_tokens - target.kv_tokens))
    # Launches a grain or two apart measure the engine's noise more than its slope (SGLang-CPU's pool moves
    # by ~0.5 % between launches at one fraction, a grain's worth at 0.5): the slope is read over a wider gap.
    pair = next(((a, b) for i, a in enumerate(ok) for b in ok[i + 1:]
                 if abs(a.setting.fraction - b.setting.fraction) >= SLOPE_GAP - 1e-9), None)
    if pair is None:
        return None
    a, b = sorted(pair, key=lambda launch: launch.setting.fraction)
    measured = (b.kv_tokens - a.kv_tokens) / (b.setting.fraction - a.setting.fraction)
    if measured <= 0:
        return None
    fa, fb = predict(a.setting), predict(b.setting)
    predicted = (fb.kv_tokens - fa.kv_tokens) / (b.setting.fraction - a.setting.fraction)
    if abs(predicted / measured - 1) <= SLOPE_MISMATCH:
        return None
    reach = b.setting.fraction + (target.kv_tokens - b.kv_tokens) / measured
    ahead = [f for f in candidates if f >= reach - 1e-9]
    if not ahead:
        return None
    return Step(launch=Setting(ahead[0], a.setting.batch),
                why=(f"the measured slope, {measured:,.0f} KV tokens per unit of fraction between "
                     f"{a.setting.fraction:g} and {b.setting.fraction:g} (predicted {predicted:,.0f}), reaches the "
                     f"target at {reach:.3f}"))


def _wrong_in_direction(target: Target, launches: list[Launch], verdicts: dict, predict: Predictor) -> list[float]:
    """The launched fractions the predictor, as calibrated now, puts on the wrong side of the target:
    predicted to meet what measured short, or the reverse. A miss it explains (recalibrated on it, it
    now predicts the miss) is not one: the next launch is then the lowest fraction it says meets."""
    wrong = []
    for launch in launches:
        verdict = verdicts[launch.setting.key()]
        if verdict not in (Verdict.MEETS, Verdict.SHORT):
            continue
        forecast = predict(launch.setting)
        if (forecast.will_start and forecast.kv_tokens >= target.kv_tokens) != (verdict is Verdict.MEETS):
            wrong.append(launch.setting.fraction)
    return wrong


def _out_of_launches(target: Target, measured: list[Launch], verdicts: dict, max_launches: int, step: Step) -> Step:
    meets = sorted((launch for launch in measured if verdicts[launch.setting.key()] is Verdict.MEETS),
                   key=lambda launch: launch.setting.fraction)
    out = Step(done=True, best=meets[0] if meets else None, reachable=bool(meets),
               why=f"stopped after {max_launches} launches (--max-launches) before the bracket closed")
    if not meets:
        ok = [launch for launch in measured if launch.status == "ok" and launch.kv_tokens is not None]
        out.best_reachable = max(ok, key=lambda launch: launch.kv_tokens) if ok else None
    out.notes.append(f"next would have been {step.launch.fraction:g}: {step.why}")
    return out
