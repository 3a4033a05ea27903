"""`compare BASE.csv NEW.csv`: what changed between two runs of a scenario (engine upgrade check)."""

from __future__ import annotations

import argparse
import json
import sys

from harness.analysis.compare import (
    DEFAULT_PROBE_TOLERANCE_PCT,
    DEFAULT_TOLERANCE_PCT,
    Comparison,
    Threshold,
    compare_results,
    parse_threshold,
)
from harness.analysis.compare_render import render_markdown, render_text
from harness.analysis.explain import (
    Explanation,
    RunSource,
    explain_comparison,
    render_explain_markdown,
    render_explain_text,
)
from harness.analysis.package_changes import release_step_changes, results_lock_changes
from harness.analysis.release_history import release_steps, releases_in, rows_of
from harness.commands.common_args import add_json, add_tolerance
from harness.errors import InputError
from harness.results.io import read_results


def compare_files(base_path: str, new_path: str, tolerance_pct: float = DEFAULT_TOLERANCE_PCT,
                  thresholds: list[Threshold] = (),
                  probe_tolerance_pct: float = DEFAULT_PROBE_TOLERANCE_PCT) -> Comparison:
    """Read, check and compare two results CSVs; InputError (exit 2) names a bad file."""
    base, new = read_results(base_path), read_results(new_path)
    for path, frame in ((base_path, base), (new_path, new)):
        several = {e: r for e, r in releases_in(frame).items() if len(r) > 1}
        if several:
            held = "; ".join(f"{e} {', '.join(r)}" for e, r in several.items())
            raise InputError(f"{path}: holds several releases ({held}), whose rows share point ids; compare them "
                             f"with each other: compare --by-release {path}")
    comparison = compare_results(base, new, tolerance_pct, thresholds, base_name=str(base_path),
                                 new_name=str(new_path), probe_tolerance_pct=probe_tolerance_pct)
    comparison.package_changes = results_lock_changes(base_path, new_path)
    return comparison


def _threshold(text: str) -> Threshold:
    try:
        return parse_threshold(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _by_release(args: argparse.Namespace) -> int:
    """Each engine's neighbouring releases within one file; exit 1 when any step changed something."""
    frame = read_results(args.base)
    steps = release_steps(frame, str(args.base), args.tolerance_pct, args.threshold or [],
                          args.probe_tolerance_pct)
    for step in steps:
        step.comparison.package_changes = release_step_changes(args.base, step.engine, step.before, step.after)
    explained: list[Explanation | None] = [None] * len(steps)
    if args.explain:
        source = RunSource.from_csv(args.base, frame)
        explained = [explain_comparison(s.comparison, source.with_rows(rows_of(frame, s.engine, s.before)),
                                        source.with_rows(rows_of(frame, s.engine, s.after))) for s in steps]
    if not steps:
        held = ", ".join(f"{e} {'/'.join(r) or '?'}" for e, r in releases_in(frame).items())
        raise InputError(f"{args.base}: --by-release needs an engine with two releases or more in the file "
                         f"(it holds {held})")
    if args.json:
        sys.stdout.write(json.dumps([{"engine": s.engine, "before": s.before, "after": s.after,
                                      **s.comparison.to_json(), **({"explain": e.to_json()} if e else {})}
                                     for s, e in zip(steps, explained)], indent=2) + "\n")
    else:
        render = render_markdown if args.markdown else render_text
        why = render_explain_markdown if args.markdown else render_explain_text
        for step, explanation in zip(steps, explained):
            sys.stdout.write(f"== {step.engine} {step.before} -> {step.after}\n")
            sys.stdout.write(render(step.comparison) + (why(explanation) if explanation else "") + "\n")
        changed = [f"{s.engine} {s.before} -> {s.after}: "
                   f"{', '.join(p.engine + ' ' + p.point_id for p in s.comparison.changed)}"
                   for s in steps if s.comparison.exit_code]
        sys.stdout.write("changed: " + "; ".join(changed) + "\n" if changed
                         else f"no change beyond tolerance across {len(steps)} release steps\n")
        if args.explain:
            sys.stdout.write(Explanation([p for e in explained for p in e.points]).summary()
                             + f" across {len(steps)} release steps\n")
    return max(s.comparison.exit_code for s in steps)


def _run(args: argparse.Namespace) -> int:
    if args.by_release:
        if args.new:
            raise InputError("compare --by-release takes one results CSV (its releases are compared in turn)")
        return _by_release(args)
    if not args.new:
        raise InputError("compare takes two results CSVs (base, new), or one with --by-release")
    comparison = compare_files(args.base, args.new, args.tolerance_pct, args.threshold or [],
                               args.probe_tolerance_pct)
    explanation = None
    if args.explain:
        explanation = explain_comparison(comparison, RunSource.from_csv(args.base, read_results(args.base)),
                                         RunSource.from_csv(args.new, read_results(args.new)))
    if args.json:
        text = json.dumps({**comparison.to_json(), **({"explain": explanation.to_json()} if explanation else {})},
                          indent=2) + "\n"
    elif args.markdown:
        text = render_markdown(comparison) + (render_explain_markdown(explanation) if explanation else "")
    else:
        text = render_text(comparison) + (render_explain_text(explanation) if explanation else "")
    sys.stdout.write(text)
    return comparison.exit_code


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "compare", help="what changed between two results CSVs (engine upgrade check); exit 1 on a change",
        description=(
            "Join two results CSVs of one scenario on (point_id, repeat) and report, per point "
            "(one file of several releases: --by-release):\n"
            "KV tokens before/after, outcome changes (always, whatever the tolerance), changed\n"
            "effective settings, points present in one file only, and for probed points what the\n"
            "server did under load (longest request served and length refused, exactly; requests\n"
            "run at once and requests failed, within --probe-tolerance-pct). Repeats compare by median.\n"
            "Exit 0: nothing beyond tolerance; 1: something is; 2: bad input."
        ),
        epilog=(
            "examples:\n"
            "  python -m harness compare results/cpu_tiny/old/results.csv results/cpu_tiny/new/results.csv\n"
            "  python -m harness compare base.csv new.csv --tolerance-pct 0.5 --threshold block_size:0% --markdown\n"
            "  python -m harness compare --by-release results/history/RUN/results.csv   (a release-axis run)\n"
            "  python -m harness compare --explain --by-release results/history/RUN/results.csv   (and why)"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("base", help="results CSV of the baseline run (e.g. the old engine version)")
    parser.add_argument("new", nargs="?", help="results CSV of the run to check (not with --by-release)")
    parser.add_argument("--by-release", action="store_true",
                        help="one CSV holding several releases of an engine (a release axis): compare each release "
                             "with the next, point by point; exit 1 on a change")
    parser.add_argument("--explain", action="store_true",
                        help="and why: each KV change split into its terms (budget, weights, graphs, host memory, "
                             "rounding, ...) from the rows, their logs and the predictor's release rules, with the "
                             "residual they leave; each other changed figure named by the release rules that moved it")
    add_tolerance(parser, DEFAULT_TOLERANCE_PCT, "relative change (in %%) that still counts as unchanged, for "
                  f"every compared number (default {DEFAULT_TOLERANCE_PCT:g})")
    parser.add_argument("--probe-tolerance-pct", type=float, default=DEFAULT_PROBE_TOLERANCE_PCT, metavar="PCT",
                        help="relative change (in %%) in the probe's request counts (run at once, failed) that still "
                             f"counts as unchanged (default {DEFAULT_PROBE_TOLERANCE_PCT:g}); its lengths are exact")
    parser.add_argument("--threshold", type=_threshold, action="append", metavar="COLUMN:P%",
                        help="tolerance for one column, overriding --tolerance-pct (repeatable), e.g. kv_tokens:0.5%%")
    fmt = parser.add_mutually_exclusive_group()
    add_json(fmt, "print the comparison as JSON")
    fmt.add_argument("--markdown", action="store_true", help="print the comparison as Markdown")
    parser.set_defaults(func=_run)
