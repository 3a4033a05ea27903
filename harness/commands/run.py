"""`run SCENARIO`: launch every sweep point as a real server and write the results CSV."""

from __future__ import annotations

import argparse
import math
import signal
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column, Table
from rich.text import Text

from harness.analysis.compare import DEFAULT_TOLERANCE_PCT, compare_results
from harness.analysis.compare_render import render_text
from harness.analysis.package_changes import results_lock_changes
from harness.analysis.release_history import has_release_axis
from harness.analysis.report import newest_releases
from harness.commands.common_args import add_tolerance, engine_versions, example_releases
from harness.commands.compare import _threshold
from harness.commands.console import output_console
from harness.commands.plan import _run as print_plan
from harness.commands.run_summary import SummaryTables
from harness.engines import engine_names
from harness.errors import InputError
from harness.execute.executors import EXECUTORS, make_executor
from harness.execute.run import RunOptions, point_ref, run_scenario
from harness.results.io import read_results
from harness.results.rows import PointResult
from harness.scenario import Point, load_scenario
from harness.scenario.point import knob_label
from harness.sparse.loop import SparseOptions
from harness.sparse.report import sparse_lines
from harness.sparse.run import SparseStrategy


def _knob_text(point: Point) -> str:
    return knob_label(point.knobs, empty="")


class _PointLine:
    """A progress line's text: the point's label, then its status. At the cell's width the status is
    whole and the label is what gets cut (…); with room to spare the label is padded to `label_width`
    (the widest label shown) so that the statuses line up."""

    def __init__(self, label: str, status: str):
        self.label, self.status = label, f" · {status}" if status else ""
        self.label_width = cell_len(label)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        status = cell_len(self.status)  # the least is the status after a label cut to its "…"
        return Measurement(min(1, self.label_width) + status, self.label_width + status).with_maximum(options.max_width)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        label = Text(self.label, no_wrap=True, overflow="ellipsis")
        label.truncate(max(1, min(self.label_width, options.max_width - cell_len(self.status))), pad=True)
        yield Text.assemble(label, self.status, no_wrap=True, end="")


class _PointColumn(ProgressColumn):
    """The label (a task's description) and the status (its `status` field) of each line."""

    def __init__(self):
        super().__init__(table_column=Column(no_wrap=True, overflow="ellipsis"))

    def render(self, task: Task) -> _PointLine:
        return _PointLine(task.description, task.fields.get("status", ""))


class _FittedTable:
    """The progress table laid out for the width it is drawn at (the terminal's, at each redraw): the
    counts and times keep their widths, the bar narrows from BAR_MAX to BAR_MIN, the lines get the rest;
    where the rest is too short for a status, the bar narrows further."""

    BAR_MAX, BAR_MIN = 40, 6

    def __init__(self, table: Table):
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line, bar, *_ = self.table.columns
        sizes = [[Measurement.get(console, options, cell) for cell in column.cells] for column in self.table.columns]
        widest = [max((size.maximum for size in column), default=0) for column in sizes]
        room = options.max_width - sum(widest[2:]) - (len(widest) - 1)  # one space between columns
        bar.width = min(self.BAR_MAX, max(self.BAR_MIN, room - widest[0]))
        least = max((size.minimum for size in sizes[0]), default=0)  # the longest status, its label cut to "…"
        if room - bar.width < least:
            bar.width = max(1, room - least)
        line.max_width = max(1, room - bar.width)
        yield self.table


class SweepProgress(Progress):
    """The live view of a run: one line per point, and one for the sweep. Each line fits the terminal:
    its status, counts and times are never cut; the bar narrows first, then the label is cut (…)."""

    def __init__(self, console: Console):
        super().__init__(_PointColumn(), BarColumn(bar_width=_FittedTable.BAR_MAX), MofNCompleteColumn(),
                         TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)

    def make_tasks_table(self, tasks) -> Table:
        table = super().make_tasks_table(tasks)
        lines = list(table.columns[0].cells)
        label_width = max((point_line.label_width for point_line in lines), default=0)
        for point_line in lines:
            point_line.label_width = label_width
        return table

    def get_renderables(self):
        yield _FittedTable(self.make_tasks_table(self.tasks))


def _sigterm_as_interrupt(*_):
    # The launcher stops the engine's process group on KeyboardInterrupt; make SIGTERM and
    # SIGHUP (the terminal closed) do the same.
    raise KeyboardInterrupt


def _seconds(minimum: float, strict: bool):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not math.isfinite(value) or value < minimum or (strict and value == minimum):
            raise argparse.ArgumentTypeError(
                f"{text}: must be {'more than' if strict else 'at least'} {minimum:g} seconds")
        return value
    return parse


def compare_selection(base_path: Path, new_path: Path, tolerance_pct: float, engines: list[str] | None,
                      points: list[str] | None, thresholds: list | None = None):
    """The baseline check of a run: only the engines and points this run selected are compared, and
    (comparison, a line saying so when the selection left baseline points out). A release-axis run is
    compared by its newest release (`compare --by-release` compares its releases with each other)."""
    base, new = read_results(base_path), read_results(new_path)
    newest = ""
    if has_release_axis(new):
        new = newest_releases(new)
        newest = "baseline: compared with this run's newest release of each engine"
    kept = base
    if engines:
        kept = kept[kept["engine"].isin(engines)]
    if points:
        kept = kept[kept["point_id"].isin([point_ref(p)[0] for p in points])]
    said = ""
    if len(kept) != len(base):
        what = ", ".join(filter(None, [f"engines {','.join(engines)}" if engines else "",
                                       f"points {','.join(points)}" if points else ""]))
        said = (f"baseline: compared {kept['point_id'].nunique()} of its {base['point_id'].nunique()} points "
                f"(this run selected {what})")
    comparison = compare_results(kept, new, tolerance_pct=tolerance_pct, thresholds=thresholds or [],
                                 base_name=str(base_path), new_name=str(new_path))
    comparison.package_changes = results_lock_changes(base_path, new_path)
    return comparison, "\n".join(filter(None, [said, newest]))


def _run(args: argparse.Namespace) -> int:
    selection = dict(engine_versions=engine_versions(args.engine_version),
                     engines=args.engines.split(",") if args.engines else None,
                     points=args.points.split(",") if args.points else None)
    if args.rerun and not args.resume:
        raise InputError(f"--rerun {args.rerun[0]}: re-runs rows of an earlier run; give it with --resume RUN_DIR")
    strategy = _strategy(args)
    if args.dry_run:
        return print_plan(argparse.Namespace(scenario=args.scenario, json=False, **selection))
    if args.baseline:
        read_results(args.baseline)  # a bad baseline is bad input: say so before hours of sweeping
    options = RunOptions(
        **selection,
        out=args.out, resume=args.resume, stop_after=args.stop_after, timeout_s=args.timeout,
        install_missing=args.install_missing, remove_after=args.remove_after, same_envs_as=args.same_envs_as,
        wait_for_idle_gpu_s=args.wait_for_idle_gpu,
        shared_gpu=args.shared_gpu,
        keep_work_dirs=args.keep_work_dirs, resume_changed=args.resume_changed, rerun=tuple(args.rerun or ()),
        executor=make_executor(args.executor, args.gpus, args.ray_address), strategy=strategy,
    )
    console = Console(stderr=True)
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    signal.signal(signal.SIGHUP, _sigterm_as_interrupt)
    progress = SweepProgress(console)
    overall = progress.add_task("sweep", total=None)
    tasks: dict[str, tuple] = {}  # point name -> (task id, label); points may overlap

    def on_start(point: Point, index: int, total: int):
        # Shown from the first launch on, so bad input before it is just its one error line.
        progress.start()
        if total is not None:
            progress.update(overall, total=total)
        release = f" {point.engine_version}" if point.release_axis else ""
        label = f"{point.engine}{release} {point.point_id}#{point.repeat} {_knob_text(point)}"
        task = progress.add_task(f"  {label}", total=None, status="starting")
        tasks[point.name] = (task, label)

        def on_phase(phase: str) -> None:
            progress.update(task, status=phase)
        return on_phase

    def on_end(result: PointResult) -> None:
        kv_tokens = result.record.kv_tokens if result.record else None
        kv = f"{kv_tokens:,} KV tokens" if kv_tokens is not None else result.error_kind or ""
        where = f" [GPU {','.join(map(str, result.gpus))}]" if result.gpus else ""
        key = result.point.name
        if key not in tasks:  # a point that never reported its start (a Ray task lost early)
            on_start(result.point, 0, None)
        task, label = tasks.pop(key)
        status = f"{result.status} {kv} ({result.timings.wall_s or 0:.0f} s)"
        progress.update(task, description=f"  {label}{where}", status=status, total=1, completed=1)
        progress.advance(overall)

    try:
        result = run_scenario(args.scenario, options, on_point_start=on_start, on_point_end=on_end)
    finally:
        if progress.live.is_started:  # stopping a display never shown prints a blank line
            progress.stop()
    out = output_console()
    out.print(SummaryTables(result.results))
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {warning}")
    for note in result.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
    if result.skipped and result.strategy_outcome is None:
        console.print(f"resumed: {result.skipped} points already had a row")
    if result.strategy_outcome is not None:
        for line in sparse_lines(result.strategy_outcome, len(result.results)):
            out.print(line, markup=False, highlight=False)
    out.print(f"results: {result.csv_path}")
    if args.baseline:
        comparison, said = compare_selection(args.baseline, result.csv_path, args.tolerance_pct, options.engines,
                                             options.points, args.threshold)
        if said:
            out.print(said, markup=False, highlight=False)
        out.print(render_text(comparison), markup=False, highlight=False)
        return comparison.exit_code
    return 0


def _scenario_strategy(path: str) -> str | None:
    """The scenario's run.strategy; None when it cannot be read here (the run itself then says why, in one line)."""
    try:
        return load_scenario(path).run.strategy
    except Exception:  # noqa: BLE001 - the run reports bad input as it always has
        return None


def _strategy(args: argparse.Namespace) -> SparseStrategy | None:
    """--sparse [PCT], --budget, --verify (or the scenario's run.strategy: sparse) as the run's sweep strategy;
    None: the full grid."""
    asked = args.sparse is not None or args.budget is not None or args.verify
    if not asked and _scenario_strategy(args.scenario) != "sparse":
        return None
    if args.sparse not in (None, True) and not args.sparse > 0:
        raise InputError(f"--sparse {args.sparse:g}: the tolerance must be more than 0 % of the predicted KV tokens "
                         "(e.g. --sparse 1; a point whose bound is wider is launched)")
    if args.verify < 0:
        raise InputError(f"--verify {args.verify}: a number of predicted points to launch, 0 or more")
    if args.budget is not None and args.budget < 1:
        raise InputError(f"--budget {args.budget}: at least one launch is needed to calibrate anything")
    # no PCT: the scenario's run.tolerance_pct (1 unless it says)
    tolerance = None if args.sparse in (None, True) else float(args.sparse)
    return SparseStrategy(SparseOptions(tolerance_pct=tolerance, budget=args.budget, verify=args.verify))


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "run", help="launch every sweep point as a real server; write the results CSV",
        description="Run the scenario's sweep point by point and write results/<scenario>/<run_id>/results.csv "
                    "(one row per point, flushed as each ends), logs/ and run.json.",
        epilog="examples:\n"
               f"  python -m harness run scenarios/cpu_tiny.yaml --engines {engine_names()[0]} --stop-after kv\n"
               "  python -m harness run scenarios/24g_8b.yaml --gpus 0,1,2,3\n"
               "  python -m harness run scenarios/24g_8b.yaml --executor ray --ray-address auto",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("scenario", help="scenario YAML file")
    parser.add_argument("--engines", help="comma-separated engines to run (default: all in the scenario)")
    parser.add_argument("--points", help="comma-separated point ids to run (see `plan`); ID@RELEASE: that release's "
                             "point only (on a release axis the releases share ids)")
    parser.add_argument("--out", type=Path, help="run folder (default results/<scenario>/<run_id>)")
    parser.add_argument("--resume", type=Path, metavar="RUN_DIR",
                        help="complete an earlier run: only points without a row")
    parser.add_argument("--rerun", action="append", choices=("timeout", "crashed", "engine_error"),
                        help="with --resume: launch the points whose rows have this status again (repeatable; "
                             "e.g. timeouts, with a longer --timeout)")
    parser.add_argument("--stop-after", choices=("kv", "ready", "probe"),
                        help="override the scenario's run.stop_after (probe: drive the ready server, run.probe)")
    parser.add_argument("--resume-changed", action="store_true",
                        help="with --resume: continue although the scenario or options changed (recorded in run.json)")
    parser.add_argument("--timeout", type=_seconds(0, strict=True), metavar="S",
                        help="override the scenario's run.timeout_s")
    parser.add_argument("--dry-run", action="store_true", help="show the plan, launch nothing")
    parser.add_argument("--install-missing", action="store_true", help="install missing engine environments first")
    parser.add_argument("--same-envs-as", type=Path, default=None, metavar="BASE/run.json",
                        help="run each release the base run also ran in an env with exactly its lock (installed from "
                             "it when missing; an installed env with other packages is refused): an upgrade check "
                             "then changes one thing at a time")
    parser.add_argument("--remove-after", action="store_true",
                        help="on a release axis with --install-missing: delete each environment this run installed "
                             "once its points are done (saves disk; environments there before are kept)")
    parser.add_argument("--wait-for-idle-gpu", type=_seconds(0, strict=False), default=0.0, metavar="S",
                        help="wait up to S seconds for a busy GPU to become idle (default: refuse at once)")
    parser.add_argument("--shared-gpu", action="store_true",
                        help="launch on a card other processes hold memory on (a shared card): every row's "
                             "gpu_busy_before_mib says how much they held; the numbers are then this card's today")
    parser.add_argument("--engine-version", action="append", metavar="ENGINE==VERSION",
                        help="run another engine release than the scenario names "
                             f"(ENGINE==VERSION, e.g. {example_releases()[0]}), or several in turn, the same "
                             "points on each into one results CSV (ENGINE==A,B,C); repeatable")
    parser.add_argument("--baseline", type=Path, metavar="BASE_CSV",
                        help="after the sweep, compare with this results CSV; exit 1 on a change (a CI gate)")
    add_tolerance(parser, DEFAULT_TOLERANCE_PCT, "with --baseline: relative change (in %%) that still counts "
                  f"as unchanged (default {DEFAULT_TOLERANCE_PCT:g})")
    parser.add_argument("--threshold", type=_threshold, action="append", metavar="COLUMN:P%",
                        help="with --baseline: tolerance for one column, overriding --tolerance-pct (repeatable), "
                             "e.g. mem_fraction_static_effective:0.5%%")
    parser.add_argument("--sparse", nargs="?", const=True, type=float, metavar="PCT",
                        help="launch only what pins each group's unknown terms and every point whose predicted KV "
                             "bound is wider than PCT %% (default 1) or whose outcome is undecided; write every other "
                             "point as a predicted row with its bound")
    parser.add_argument("--budget", type=int, metavar="N", help="with --sparse: at most N launches; what stays "
                        "unresolved is said per point")
    parser.add_argument("--verify", type=int, default=0, metavar="K",
                        help="with --sparse: launch K predicted points at random and report each against its bound")
    parser.add_argument("--keep-work-dirs", action="store_true", help="keep each point's TMPDIR and caches")
    parser.add_argument("--gpus", metavar="LIST",
                        help="GPUs to run points on in parallel, one engine per GPU, e.g. 0,1,2,3 or 0-3 "
                             "(default: all visible GPUs; one point at a time on a host without GPUs)")
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="local: this machine's GPUs (default); ray: each point a Ray task on a Ray cluster "
                             "(pip install 'kv-budget-harness[ray]')")
    parser.add_argument("--ray-address", metavar="auto|HOST:PORT",
                        help="Ray cluster to join (default: RAY_ADDRESS, else a local Ray instance)")
    parser.set_defaults(func=_run)
