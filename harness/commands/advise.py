"""`advise SCENARIO --engine E --max-model-len L (--concurrency C | --kv-tokens N)`: settings that meet a
KV target, proposed by the predictor and confirmed in a few real launches."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from harness.advise.loop import Request, run_advice
from harness.advise.render import render_text, to_json
from harness.advise.search import Target
from harness.clock import utc_now
from harness.commands.common_args import add_json, engine_release, example_releases
from harness.engines import engine_names
from harness.errors import InputError

DEFAULT_MAX_LAUNCHES = 6


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"{text}: must be more than 0")
        return value

    return parse


def _advise(args: argparse.Namespace) -> int:
    if args.concurrency is None and args.kv_tokens is None:
        raise InputError("give the target: --concurrency C (requests of --max-model-len tokens) or --kv-tokens N")
    if args.concurrency is not None and args.kv_tokens is not None:
        raise InputError("--concurrency and --kv-tokens both given: the target is one of them")
    if args.headroom_gib is not None and args.headroom_gib < 0:
        raise InputError(f"--headroom-gib {args.headroom_gib:g}: must be 0 or more")
    tokens = args.kv_tokens if args.kv_tokens is not None else math.ceil(args.concurrency * args.max_model_len)
    target = Target(args.max_model_len, int(tokens), args.concurrency)
    versions = {}
    if args.engine_version:
        engine, version = engine_release(args.engine_version)
        if engine != args.engine:
            raise InputError(f"--engine-version {args.engine_version}: advise tunes {args.engine}")
        versions[engine] = version
    out = args.resume or args.out or Path("results") / "advise" / f"{args.engine}-{utc_now():%Y%m%dT%H%M%SZ}"
    request = Request(Path(args.scenario), args.engine, target, Path(out), args.headroom_gib, args.max_launches,
                      resume=args.resume is not None)
    argv = [args.scenario, "--engine", args.engine, "--max-model-len", str(args.max_model_len)]
    argv += ["--concurrency", f"{args.concurrency:g}"] if args.concurrency is not None else ["--kv-tokens", str(tokens)]
    if args.headroom_gib is not None:
        argv += ["--headroom-gib", f"{args.headroom_gib:g}"]

    def on_launch(setting, why, n):
        print(f"launch {n}: {setting.fraction:g}" + (f" (batch {setting.batch})" if setting.batch else "")
              + f" - {why}", file=sys.stderr, flush=True)

    advice = run_advice(request, argv, on_launch=None if args.json else on_launch, engine_versions=versions)
    if args.json:
        sys.stdout.write(json.dumps(to_json(advice), indent=2) + "\n")
    else:
        print(render_text(advice))
    return 0 if advice.step.best is not None else 1


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "advise", help="find settings that meet a KV target in a few real launches",
        description="The tuning order, executable: the predictor proposes the lowest pool fraction (vLLM "
                    "gpu_memory_utilization, SGLang mem_fraction_static) that holds the target at --max-model-len; "
                    "real launches confirm it, bisecting between a launch that meets the target and one that does "
                    "not, and recalibrating the predictor from every measured row. A smaller batch knob "
                    "(max_num_batched_tokens / chunked_prefill_size) is tried only when no fraction up to the "
                    "ceiling suffices; FP8 KV and a shorter max_model_len are named alternatives, never applied. "
                    "Every launch is a row of DIR/results.csv. Exit 0: met; 1: cannot be met here.",
        epilog="examples:\n"
               f"  python -m harness advise scenarios/cpu_budget.yaml --engine {engine_names()[0]} --max-model-len 512 "
               "--kv-tokens 2000000\n"
               f"  python -m harness advise scenarios/24g_8b.yaml --engine {engine_names()[-1]} --max-model-len 8192 "
               "--concurrency 16 --headroom-gib 2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", help="scenario YAML file (model, device and fixed flags)")
    parser.add_argument("--engine", required=True, choices=engine_names())
    parser.add_argument("--max-model-len", type=_positive(int), required=True, metavar="L",
                        help="the longest request, in tokens (SGLang: --context-length)")
    parser.add_argument("--concurrency", type=_positive(float), metavar="C",
                        help="concurrent requests of L tokens the KV pool must hold")
    parser.add_argument("--kv-tokens", type=_positive(int), metavar="N", help="KV tokens the pool must hold")
    parser.add_argument("--headroom-gib", type=float, metavar="H",
                        help="device memory to leave outside the engine's budget (caps the fraction at 1 - H/total)")
    parser.add_argument("--max-launches", type=_positive(int), default=DEFAULT_MAX_LAUNCHES, metavar="K",
                        help=f"stop after K launches (default {DEFAULT_MAX_LAUNCHES})")
    parser.add_argument("--engine-version", metavar="ENGINE==VERSION",
                        help=f"tune another release than the scenario names (e.g. {example_releases()[0]})")
    parser.add_argument("--out", type=Path, metavar="DIR", help="run folder (default results/advise/<engine>-<time>)")
    parser.add_argument("--resume", type=Path, metavar="DIR", help="continue an interrupted search in DIR")
    add_json(parser, "print the answer as JSON")
    parser.set_defaults(func=_advise)
