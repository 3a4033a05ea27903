"""`advise`'s answer for people (text) and tools (JSON): the flags, the measurement, the margin, the launches."""

from __future__ import annotations

import os
import shlex
from typing import Any

import yaml

from harness.advise.loop import Advice, advise_knobs
from harness.advise.search import Launch, Setting
from harness.engines import get_engine


def recommended_args(advice: Advice, setting: Setting) -> dict[str, Any]:
    eng = get_engine(advice.request.engine)
    args = {advise_knobs(eng).fraction_knob: setting.fraction, "max_model_len": advice.request.target.max_model_len}
    if setting.batch is not None:
        args[advise_knobs(eng).batch_knob] = setting.batch
    return args


def yaml_snippet(advice: Advice, setting: Setting) -> str:
    version = advice.engine_version
    spec: dict[str, Any] = {"version": version} if version else {}
    spec["args"] = recommended_args(advice, setting)
    return yaml.safe_dump({"engines": {advice.request.engine: spec}}, sort_keys=False, default_flow_style=None)


def command_line(advice: Advice, setting: Setting) -> str:
    eng = get_engine(advice.request.engine)
    scenario_args = {k: v for k, v in advice.base_args.items() if k != "max_model_len"}
    args = {eng.native_name(k): v for k, v in {**scenario_args, **recommended_args(advice, setting)}.items()}
    argv = eng.launch.command("python", advice.model_path, 8000, args, advice.engine_version)
    if argv and os.sep in argv[0]:
        argv[0] = os.path.basename(argv[0])  # the env's own entry script, by name as on a PATH
    return shlex.join(argv)


def _launch_line(i: int, launch: Launch, why: str, predicted, target_tokens: int, knob: str) -> str:
    f = launch.setting
    what = f"{knob} {f.fraction:g}" + (f", batch {f.batch}" if f.batch is not None else "")
    got = f"{launch.kv_tokens:,} KV tokens" if launch.kv_tokens is not None else f"{launch.status}" + (
        f" ({launch.error_kind})" if launch.error_kind else "")
    verdict = "meets" if launch.kv_tokens is not None and launch.kv_tokens >= target_tokens else "misses"
    pred = f", predicted {predicted.kv_tokens:,}" if predicted is not None and predicted.kv_tokens is not None else ""
    return f"  launch {i}: {what} -> {got}: {verdict}{pred} ({why})"


def render_text(advice: Advice) -> str:
    r, step = advice.request, advice.step
    eng = get_engine(r.engine)
    target = r.target
    head = (f"advise {r.engine} {advice.engine_version or ''}: {target.describe()} on "
            f"{advice.device.total_mib:,.0f} MiB ({advice.device.basis})")
    lines = [head]
    for i, (launch, predicted, why) in enumerate(advice.launches, 1):
        lines.append(_launch_line(i, launch, why, predicted, target.kv_tokens, advise_knobs(eng).fraction_knob))
    n = len(advice.launches)
    if step.best is not None:
        best = step.best
        lines.append(f"recommended: {advise_knobs(eng).fraction_knob} {best.setting.fraction:g}"
                     + (f", {advise_knobs(eng).batch_knob} {best.setting.batch}"
                        if best.setting.batch is not None else ""))
        lines.append(f"  measured {best.kv_tokens:,} KV tokens = {best.kv_tokens / target.max_model_len:,.1f} requests "
                     f"of {target.max_model_len} tokens ({best.kv_tokens - target.kv_tokens:+,} over the target)")
        if step.margin is not None:
            m = step.margin
            got = f"{m.kv_tokens:,} tokens" if m.kv_tokens is not None else f"{m.status} ({m.error_kind or '-'})"
            lines.append(f"  margin: {m.setting.fraction:g} (one step lower) gives {got}: it misses")
        else:
            lines.append("  margin: the next lower setting was not launched")
        lines.append(f"  launches: {n}")
        lines.append("scenario snippet:")
        lines += ["  " + line for line in yaml_snippet(advice, best.setting).splitlines()]
        lines.append("command:")
        lines.append("  " + command_line(advice, best.setting))
    else:
        best = step.best_reachable
        reach = (f"best reachable is {best.kv_tokens:,} KV tokens at {advise_knobs(eng).fraction_knob} "
                 f"{best.setting.fraction:g}"
                 if best else "no launch started")
        lines.append(f"cannot be met on this device: {reach}"
                     + (f"; options: {'; '.join(advice.alternatives)}" if advice.alternatives else ""))
        lines.append(f"  launches: {n}")
    lines += [f"note: {note}" for note in step.notes]
    lines.append(f"rows: {r.out / 'results.csv'}")
    return "\n".join(lines)


def to_json(advice: Advice) -> dict[str, Any]:
    r, step = advice.request, advice.step
    best = step.best
    out: dict[str, Any] = {
        "engine": r.engine, "engine_version": advice.engine_version,
        "target": {"max_model_len": r.target.max_model_len, "kv_tokens": r.target.kv_tokens,
                   "concurrency": r.target.concurrency},
        "device": {"kind": advice.device.kind, "total_mib": advice.device.total_mib,
                   "free_mib": advice.device.free_mib, "basis": advice.device.basis},
        "met": best is not None,
        "launches": [{"fraction": launch.setting.fraction, "batch": launch.setting.batch, "status": launch.status,
                      "error_kind": launch.error_kind, "kv_tokens": launch.kv_tokens, "point_id": launch.point_id,
                      "predicted_kv_tokens": None if p is None else p.kv_tokens, "why": why}
                     for launch, p, why in advice.launches],
        "results": str(r.out / "results.csv"), "notes": step.notes,
    }
    if best is not None:
        out["recommended"] = {"args": recommended_args(advice, best.setting), "kv_tokens": best.kv_tokens,
                              "concurrency": best.kv_tokens / r.target.max_model_len,
                              "yaml": yaml_snippet(advice, best.setting),
                              "command": command_line(advice, best.setting),
                              "margin": None if step.margin is None else {
                                  "fraction": step.margin.setting.fraction, "status": step.margin.status,
                                  "kv_tokens": step.margin.kv_tokens}}
    else:
        b = step.best_reachable
        out["best_reachable"] = None if b is None else {"fraction": b.setting.fraction, "kv_tokens": b.kv_tokens}
        out["alternatives"] = advice.alternatives
    return out
