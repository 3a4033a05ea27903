"""`report RESULTS.csv [NEW.csv]`: PNG plots and a Markdown summary of a run (or of two)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.analysis.report import Report, make_report
from harness.errors import InputError
from harness.results.io import read_results


def report_files(paths: list[str], out_dir: str | None = None, engines: list[str] | None = None) -> Report:
    """Read and check the CSVs, then write the plots and report.md (default: report/ beside the last CSV).
    With `engines`, only their rows (a run of one engine against a baseline of both)."""
    if not 1 <= len(paths) <= 2:
        raise InputError(f"report takes one results CSV or two (base, new), got {len(paths)}")
    frames = [read_results(p) for p in paths]
    if engines:
        for path, frame in zip(paths, frames):
            missing = [e for e in engines if e not in set(frame["engine"])]
            if missing:
                raise InputError(f"{path}: --engines {','.join(missing)}: no rows of that engine "
                                 f"(it has {', '.join(sorted(set(frame['engine'])))})")
        frames = [frame[frame["engine"].isin(engines)] for frame in frames]
    target = Path(out_dir) if out_dir else Path(paths[-1]).parent / "report"
    return make_report(frames, [str(p) for p in paths], target)


def _run(args: argparse.Namespace) -> int:
    report = report_files(args.results, args.out, args.engines.split(",") if args.engines else None)
    print(report.markdown_path)
    for plot in report.plots:
        print(plot.path)
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="PNG plots and a Markdown summary of a results CSV (or before/after of two)",
        description=(
            "Per engine, KV tokens against each swept knob (a line per value of the other knobs,\n"
            "failed points marked); measured against predicted; and with two CSVs (base, new)\n"
            "KV tokens per point before and after plus the comparison table. Writes PNGs and\n"
            "report.md, and prints their paths."
        ),
        epilog=(
            "examples:\n"
            "  python -m harness report results/cpu_tiny/RUN/results.csv\n"
            "  python -m harness report base.csv new.csv --out report/"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("results", nargs="+", metavar="RESULTS.csv", help="one results CSV, or two: base then new")
    parser.add_argument("--engines", help="comma-separated engines whose rows to report (default: all)")
    parser.add_argument("--out", metavar="DIR", help="output folder (default: report/ beside the last CSV)")
    parser.set_defaults(func=_run)

