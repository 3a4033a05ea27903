"""Plots (PNG) and a Markdown summary of one results CSV, or of two (before/after).

Figures are built with `matplotlib.figure.Figure` directly (no pyplot state, no GUI
backend). Each saved plot comes back as a `Plot` whose series are read from the drawn
figure's artists, so a test can check what was really plotted against the CSV.
"""

from __future__ import annotations

import logging
import math
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness.analysis.compare import Comparison, compare_results, point_knobs
from harness.analysis.compare_render import render_markdown
from harness.analysis.probe_table import ProbedWave, probed_points, probed_waves
from harness.analysis.release_history import has_release_axis, releases_in, rows_of
from harness.errors import HarnessError
from harness.formatting import count, is_missing
from harness.results.io import knob_values, measured_only, predicted_rows, release_key, swept_knobs

log = logging.getLogger(__name__)


DPI = 100
FAILED_COLOR = "tab:red"
CATEGORIES = "categories"  # gid of an axis whose ticks name categories (read_back returns them)
# Axis units of the knobs a scenario usually sweeps; anything else is shown bare.
KNOB_UNITS = {
    "gpu_memory_utilization": "fraction of device memory",
    "mem_fraction_static": "fraction of device memory",
    "max_num_batched_tokens": "tokens",
    "chunked_prefill_size": "tokens",
    "max_model_len": "tokens",
    "max_total_tokens": "tokens",
    "kv_cache_memory_bytes": "bytes",
}


@dataclass
class Series:
    """One labelled line or marker set as drawn: x and y in data coordinates."""

    axes: str  # the axes' title
    label: str
    x: list[float]
    y: list[float]


@dataclass
class Plot:
    name: str
    title: str
    path: Path
    series: list[Series]
    # Per axes title: the tick labels of a categorical axis ("x" or "y"), position -> text.
    categories: dict[str, dict[str, dict[float, str]]] = field(default_factory=dict)
    size_px: tuple[int, int] = (0, 0)


@dataclass
class Report:
    out_dir: Path
    markdown_path: Path
    markdown: str
    plots: list[Plot]
    comparison: Comparison | None = None


def _new_figure(width_in: float, height_in: float):
    try:
        # lazy: matplotlib is optional (extra "plot") and ~0.5 s to import
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise HarnessError("report needs matplotlib: pip install 'kv-budget-harness[plot]'") from None
    fig = Figure(figsize=(width_in, height_in), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)  # a renderer for measuring text (layout check) and writing PNGs, no GUI
    return fig


# --- data shaping (pure) ------------------------------------------------------------------


def _summarise(rows: pd.DataFrame) -> dict[str, Any]:
    """A point's repeats: median/min/max of ok kv_tokens, and whether every repeat failed."""
    ok = rows.loc[rows["status"] == "ok", "kv_tokens"].dropna()
    failed = rows.loc[rows["status"] != "ok"]
    return {
        "median": float(ok.median()) if len(ok) else math.nan,
        "low": float(ok.min()) if len(ok) else math.nan,
        "high": float(ok.max()) if len(ok) else math.nan,
        "all_failed": len(failed) == len(rows),
        "failure": ", ".join(sorted({_outcome(s, k) for s, k in zip(failed["status"], failed["error_kind"])})),
    }


def _outcome(status: str, kind: Any) -> str:
    return f"{status}/{kind}" if isinstance(kind, str) and kind else str(status)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isnan(value)


def _value_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "default"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def knob_axis(values: list[Any]) -> tuple[list[Any], dict[Any, float], bool]:
    """Distinct knob values in plot order and their x positions.

    All numbers: the numbers themselves. Any engine default (empty) or text: categories
    at 0, 1, 2... with the default first, since a number line cannot place "default".
    """
    distinct = list(dict.fromkeys(_value_text(v) for v in values))
    numeric = all(_is_number(v) for v in values)
    if numeric:
        ordered = sorted({float(v) for v in values})
        return ordered, {v: v for v in ordered}, False
    ordered = sorted(distinct, key=lambda t: (t != "default", _sort_key(t)))
    return ordered, {t: float(i) for i, t in enumerate(ordered)}, True


def _sort_key(text: str):
    try:
        return (0, float(text), "")
    except ValueError:
        return (1, 0.0, text)


def _axis_key(value: Any, categorical: bool) -> Any:
    return _value_text(value) if categorical else float(value)


# --- figures ----------------------------------------------------------------------------------


def _label_with_unit(name: str) -> str:
    unit = KNOB_UNITS.get(name)
    return f"{name} ({unit})" if unit else name


def _legend(fig, axes) -> None:
    """One legend under the plots: long labels get the full width and never cover data."""
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if handles:
        wrapped = [textwrap.fill(label, 70) for label in labels]
        short = max(len(label) for label in labels) <= 45
        fig.legend(handles, wrapped, loc="outside lower center", ncols=2 if short and len(labels) > 3 else 1,
                   fontsize="small")


def _compact(value: float, _pos=None) -> str:
    """Token counts as 512, 8.2k, 2.1M: no offset text ("1e6") to read off the corner."""
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def _wants_log(values: list[float]) -> bool:
    """Sizes spanning more than 100x read on a log axis; a zero would vanish there, so not then."""
    return bool(values) and min(values) > 0 and max(values) / min(values) > 100


def _kv_scale(ax, axis_name: str, values: list[float]) -> None:
    """Log scale when the KV sizes span decades (512 tokens next to 2M), else linear from 0."""
    # lazy: matplotlib is optional (extra "plot") and ~0.5 s to import
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    axis = ax.xaxis if axis_name == "x" else ax.yaxis
    if _wants_log(values):
        (ax.set_xscale if axis_name == "x" else ax.set_yscale)("log")
    else:
        (ax.set_xlim if axis_name == "x" else ax.set_ylim)(0, max(values or [0.0]) * 1.08 or 1.0)
        axis.set_major_locator(MaxNLocator(6))
    axis.set_major_formatter(FuncFormatter(_compact))


def _few_ticks(ax, y: bool = True) -> None:
    """At most ~5 ticks: six-digit token counts side by side otherwise collide."""
    from matplotlib.ticker import MaxNLocator  # lazy: matplotlib is optional (extra "plot") and ~0.5 s to import

    ax.xaxis.set_major_locator(MaxNLocator(5))
    if y:
        ax.yaxis.set_major_locator(MaxNLocator(6))


def knob_figure(frame: pd.DataFrame, engine: str, knob: str, others: list[str], title: str):
    """KV tokens against one knob: a line per setting of the other swept knobs, failures marked."""
    rows = frame[frame["engine"] == engine]
    knobs = knob_values(frame).loc[rows.index]
    order, position, categorical = knob_axis(list(knobs[knob]))
    groups: dict[tuple, list[int]] = {}
    for index in rows.index:
        key = tuple(_value_text(knobs.at[index, o]) for o in others)
        groups.setdefault(key, []).append(index)

    fig = _new_figure(9.0, 5.6)
    ax = fig.add_subplot()
    fig.suptitle(title)
    failed_x, failed_labels = [], []
    for key, indices in sorted(groups.items()):
        label = ", ".join(f"{o}={v}" for o, v in zip(others, key)) or "all points"
        xs, ys, lows, highs = [], [], [], []
        by_x: dict[Any, list[int]] = {}
        for index in indices:
            by_x.setdefault(_axis_key(knobs.at[index, knob], categorical), []).append(index)
        for x in sorted(by_x, key=lambda v: position[v]):
            summary = _summarise(rows.loc[by_x[x]].drop_duplicates(["point_id", "repeat"]))
            xs.append(position[x])
            ys.append(summary["median"])
            lows.append(summary["median"] - summary["low"])
            highs.append(summary["high"] - summary["median"])
            if summary["all_failed"]:
                failed_x.append(position[x])
                failed_labels.append(summary["failure"])
        (line,) = ax.plot(xs, ys, marker="o", label=label)
        if any(v > 0 for v in lows + highs):
            ax.errorbar(xs, ys, yerr=[lows, highs], fmt="none", ecolor=line.get_color(), capsize=3, label="_spread")
    if failed_x:
        kinds = ", ".join(sorted(set(failed_labels)))
        # At the bottom edge (y in axes units), which exists on a log axis too.
        ax.plot(failed_x, [0.0] * len(failed_x), linestyle="none", marker="X", markersize=10,
                color=FAILED_COLOR, clip_on=False, zorder=3, transform=ax.get_xaxis_transform(),
                label=f"failed to start ({kinds})")
    ax.set_xlabel(_label_with_unit(knob))
    ax.set_ylabel("KV cache (tokens)")
    _kv_scale(ax, "y", list(rows.loc[rows["status"] == "ok", "kv_tokens"].dropna()))
    if categorical:
        ax.set_xticks([position[v] for v in order], order)
        ax.xaxis.set_gid(CATEGORIES)
    elif len(order) <= 8:
        ax.set_xticks(order, [_value_text(v) for v in order])
    ax.grid(True, alpha=0.3)
    _legend(fig, [ax])
    return fig


def predicted_figure(frame: pd.DataFrame, title: str):
    """Measured against predicted, in tokens and in GiB, one colour per engine."""
    ok = frame[frame["status"] == "ok"]
    fig = _new_figure(11.0, 5.4)
    panels = (("predicted_kv_tokens", "kv_tokens", "tokens"), ("predicted_kv_gib", "kv_gib", "GiB"))
    axes = fig.subplots(1, 2)
    for ax, (x_col, y_col, unit) in zip(axes, panels):
        ax.set_title(f"KV cache, {unit}")
        usable = ok.dropna(subset=[x_col, y_col])
        for engine, rows in usable.groupby("engine", sort=True):
            ax.plot(list(rows[x_col]), list(rows[y_col]), linestyle="none", marker="o", clip_on=False, zorder=3,
                    label=str(engine))
        values = [float(v) for v in list(usable[x_col]) + list(usable[y_col])]
        if values:
            low, high = min(values), max(values)
            log = _wants_log(values)
            start, end = (low / 1.5, high * 1.5) if log else (0.0, high * 1.1)
            ax.plot([start, end], [start, end], linestyle="--", color="grey", label="measured = predicted")
            if log:
                ax.set_xscale("log")
                ax.set_yscale("log")
            ax.set_xlim(start, end)
            ax.set_ylim(start, end)
            if not log:
                _few_ticks(ax)
        if unit == "tokens":
            # lazy: matplotlib is optional (extra "plot") and ~0.5 s to import
            from matplotlib.ticker import FuncFormatter

            ax.xaxis.set_major_formatter(FuncFormatter(_compact))
            ax.yaxis.set_major_formatter(FuncFormatter(_compact))
        ax.set_xlabel(f"predicted ({unit})")
        ax.set_ylabel(f"measured ({unit})")
        ax.grid(True, alpha=0.3)
    fig.suptitle(title)
    _legend(fig, axes)
    return fig


def before_after_figure(comparison: Comparison, base_label: str, new_label: str, title: str):
    """Per point, KV tokens in the base and the new file (a dot per side, failures marked)."""
    points = comparison.points
    names = [p.label.replace(f" {p.point_id}", "", 1) if _unique_without_id(points) else p.label for p in points]
    names = [textwrap.fill(n, 48) for n in names]
    lines = sum(n.count("\n") + 1 for n in names)
    fig = _new_figure(12.0, max(3.5, 0.22 * lines + 0.2 * len(points) + 2.4))
    ax = fig.add_subplot()
    fig.suptitle(title)
    # New first, then the base as a larger hollow ring on top: equal values read as a dot in a ring.
    for side_name, label, marker in (("new", new_label, "s"), ("base", base_label, "o")):
        xs, ys, failed_y = [], [], []
        for y, p in enumerate(points):
            side = getattr(p, side_name)
            if side is None:
                continue
            if side.all_failed:
                failed_y.append(float(y))
            elif side.kv_median is not None:
                xs.append(side.kv_median)
                ys.append(float(y))
        base = side_name == "base"
        ax.plot(xs, ys, linestyle="none", marker=marker, markersize=12 if base else 7,
                fillstyle="none" if base else "full", markeredgewidth=1.5 if base else 1.0, label=label)
        if failed_y:
            ax.plot([0.0] * len(failed_y), failed_y, linestyle="none", marker="x" if base else "X",
                    markersize=12 if base else 9, color=FAILED_COLOR, clip_on=False, zorder=3,
                    transform=ax.get_yaxis_transform(),  # at the left edge, in axes units
                    label=f"failed to start ({side_name})")
    ax.set_yticks(range(len(points)), names)
    ax.yaxis.set_gid(CATEGORIES)
    ax.invert_yaxis()  # sweep order top to bottom
    kv = [s.kv_median for p in points for s in (p.base, p.new) if s is not None and s.kv_median is not None]
    _kv_scale(ax, "x", kv)
    ax.set_xlabel("KV cache (tokens)")
    ax.grid(True, axis="x", alpha=0.3)
    _legend(fig, [ax])
    return fig


def _unique_without_id(points) -> bool:
    labels = [p.label.replace(f" {p.point_id}", "", 1) for p in points]
    return len(set(labels)) == len(labels)


# --- reading back what was drawn ------------------------------------------------------------


def read_back(fig) -> tuple[list[Series], dict[str, dict[str, dict[float, str]]]]:
    """The labelled lines of every axes, and the tick labels of categorical axes."""
    series, categories = [], {}
    fig.canvas.draw()
    for ax in fig.axes:
        title = _axes_name(fig, ax)
        for line in ax.get_lines():
            if line.get_label().startswith("_"):
                continue
            series.append(Series(title, line.get_label(),
                                 [float(v) for v in line.get_xdata()], [float(v) for v in line.get_ydata()]))
        ticks = {}
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = {float(t.get_position()[0 if axis_name == "x" else 1]): t.get_text()
                      for t in _drawn_ticklabels(axis, axis_name)}
            if axis.get_gid() == CATEGORIES:
                ticks[axis_name] = labels
        categories[title] = ticks
    return series, categories


def _axes_name(fig, ax) -> str:
    """A single-plot figure is named by its title, a panel by its own."""
    if ax.get_title():
        return ax.get_title()
    return fig.get_suptitle()


def layout_problems(fig) -> list[str]:
    """Texts that overlap each other or leave the canvas (title, labels, ticks, legends)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    boxes: list[tuple[str, Any]] = []
    for ax in fig.axes:
        name = _axes_name(fig, ax) or "axes"
        for what, artist in (("title", ax.title), ("xlabel", ax.xaxis.label), ("ylabel", ax.yaxis.label)):
            if artist.get_text():
                boxes.append((f"{name} {what}", artist.get_window_extent(renderer)))
        for axis_name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            for tick in _drawn_ticklabels(axis, axis_name):
                boxes.append((f"{name} {axis_name}tick {tick.get_text()!r}", tick.get_window_extent(renderer)))
    for legend in fig.legends:
        boxes.append(("legend", legend.get_window_extent(renderer)))
    texts = list(dict.fromkeys(fig.texts + ([fig._suptitle] if fig._suptitle is not None else [])))
    for text in texts:
        if text.get_text():
            boxes.append((f"figure text {text.get_text()!r}", text.get_window_extent(renderer)))
    problems = []
    for i, (name, box) in enumerate(boxes):
        if box.x0 < canvas.x0 - 1 or box.y0 < canvas.y0 - 1 or box.x1 > canvas.x1 + 1 or box.y1 > canvas.y1 + 1:
            problems.append(f"{name} leaves the figure")
        for other, other_box in boxes[i + 1:]:
            if box.overlaps(other_box) and _area(box, other_box) > 1.0:
                problems.append(f"{name} overlaps {other}")
    legend_boxes = [legend.get_window_extent(renderer) for legend in fig.legends]
    for ax in fig.axes:
        for box in legend_boxes:
            if box.overlaps(ax.get_window_extent(renderer)) and _area(box, ax.get_window_extent(renderer)) > 1.0:
                problems.append(f"legend covers the plot {_axes_name(fig, ax)!r}")
    return problems


def _drawn_ticklabels(axis, axis_name: str) -> list:
    """Tick labels inside the view limits: matplotlib keeps, but does not draw, the others."""
    low, high = sorted(axis.get_view_interval())
    slack = (high - low) * 1e-6
    index = 0 if axis_name == "x" else 1
    return [t for t in axis.get_ticklabels()
            if t.get_visible() and t.get_text() and low - slack <= t.get_position()[index] <= high + slack]


def _area(a, b) -> float:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0.0) * max(height, 0.0)


def release_figure(frame: pd.DataFrame, engine: str, column: str, ylabel: str, title: str):
    """`column` (median over repeats) against the release, a line per point; failures marked at the bottom."""
    releases = releases_in(frame)[engine]
    rows = frame[frame["engine"] == engine]
    knobs = point_knobs(rows)
    fig = _new_figure(9.0, 5.6)
    ax = fig.add_subplot()
    fig.suptitle(title)
    failed_x = []
    for pid in dict.fromkeys(rows["point_id"]):
        xs, ys = [], []
        for i, release in enumerate(releases):
            mine = rows_of(rows[rows["point_id"] == pid], engine, release)
            ok = mine[mine["status"] == "ok"][column].dropna()
            if len(ok):
                xs.append(float(i))
                ys.append(float(ok.median()))
            elif len(mine):
                failed_x.append(float(i))
        label = f"{pid[:10]} " + ", ".join(f"{k}={v}" for k, v in knobs.get(pid, {}).items())
        if xs:
            ax.plot(xs, ys, marker="o", label=label.strip())
    if failed_x:
        ax.plot(failed_x, [0.0] * len(failed_x), linestyle="none", marker="X", markersize=10, color=FAILED_COLOR,
                clip_on=False, zorder=3, transform=ax.get_xaxis_transform(), label="failed to start")
    ax.set_xticks([float(i) for i in range(len(releases))], releases)
    ax.xaxis.set_gid(CATEGORIES)
    ax.set_xlabel(f"{engine} release")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    _legend(fig, [ax])
    return fig


def probe_figure(waves: list[ProbedWave], title: str):
    """Left: requests run at once against the engine's claim, per wave (the diagonal: as claimed). Right: the KV
    pool's peak use during each wave."""
    fig = _new_figure(12.0, max(4.8, 0.28 * len(waves) + 2.2))
    left, right = fig.subplots(1, 2)
    left.set_title("requests run at once")
    for (engine, shape), group in pd.DataFrame([w.__dict__ for w in waves]).groupby(["engine", "shape"], sort=True):
        usable = group.dropna(subset=["claimed", "measured"])
        decode = shape == "decode_heavy"
        left.plot(list(usable["claimed"]), list(usable["measured"]), linestyle="none", marker="^" if decode else "o",
                  clip_on=False, zorder=3, label=f"{engine}, {shape.replace('_', '-')} waves")
    values = [float(v) for w in waves for v in (w.claimed, w.measured) if v is not None]
    if values:
        end = max(values) * 1.1
        left.plot([0.0, end], [0.0, end], linestyle="--", color="grey", label="run at once = claimed")
        left.set_xlim(0.0, end)
        left.set_ylim(0.0, end)
    left.set_xlabel("claimed by the engine's own figures (requests)")
    left.set_ylabel("measured: peak running (requests)")
    left.grid(True, alpha=0.3)
    right.set_title("KV pool's peak use during the wave")
    positions = [float(i) for i in range(len(waves))]
    right.barh(positions, [100 * (w.peak_kv_usage or 0.0) for w in waves], color="tab:blue")
    right.set_yticks(positions, [w.label for w in waves])
    right.yaxis.set_gid(CATEGORIES)
    right.invert_yaxis()
    right.set_xlim(0.0, 100.0)
    right.set_xlabel("peak KV cache usage (%)")
    right.grid(True, axis="x", alpha=0.3)
    fig.suptitle(title)
    _legend(fig, [left])
    return fig


def _save(fig, name: str, title: str, out_dir: Path) -> Plot:
    path = out_dir / f"{name}.png"
    series, categories = read_back(fig)
    for problem in layout_problems(fig):
        log.warning("%s: %s", path.name, problem)
    fig.savefig(path, dpi=DPI)
    width, height = fig.canvas.get_width_height()
    return Plot(name, title, path, series, categories, (int(width), int(height)))


# --- the report ------------------------------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def _versions(frame: pd.DataFrame, engine: str) -> str:
    versions = sorted({str(v) for v in frame.loc[frame["engine"] == engine, "engine_version"].dropna()})
    return "/".join(versions)


def knob_plots(frame: pd.DataFrame, out_dir: Path) -> tuple[list[Plot], list[str]]:
    plots, notes = [], []
    knobs = knob_values(frame)
    for engine, rows in frame.groupby("engine", sort=True):
        swept = swept_knobs(knobs.loc[rows.index])
        version = _versions(frame, str(engine))
        if not swept:
            notes.append(f"{engine}: no knob was swept (one point), so there is no KV-against-knob plot")
            continue
        for knob in swept:
            title = f"{engine} {version}: KV cache tokens vs {knob}".replace("  ", " ")
            fig = knob_figure(frame, str(engine), knob, [k for k in swept if k != knob], title)
            plots.append(_save(fig, _slug(f"kv_vs_{knob}_{engine}"), title, out_dir))
    return plots, notes


def newest_releases(frame: pd.DataFrame) -> pd.DataFrame:
    """Only each engine's newest release's rows."""
    keep = [rows_of(frame, engine, releases[-1]) for engine, releases in releases_in(frame).items() if releases]
    rest = frame[frame["engine_version"].map(release_key) == ""]
    return pd.concat(keep + [rest]).sort_index() if keep else frame


def release_plots(frame: pd.DataFrame, out_dir: Path) -> tuple[list[Plot], list[str]]:
    """Per engine run on several releases: KV tokens and time to the KV line against the release, per point."""
    plots, notes = [], []
    for engine, releases in releases_in(frame).items():
        if len(releases) < 2:
            continue
        span = f"{releases[0]} to {releases[-1]}"
        for column, ylabel, what in (("kv_tokens", "KV cache (tokens)", "KV cache tokens"),
                                     ("t_kv_s", "time to the KV line (s)", "time to KV")):
            title = f"{engine}: {what} per release ({span})"
            fig = release_figure(frame, engine, column, ylabel, title)
            plots.append(_save(fig, _slug(f"{column}_vs_release_{engine}"), title, out_dir))
        notes.append(f"{engine}: the knob plots show its newest release in the file, {releases[-1]}")
    return plots, notes


def make_report(frames: list[pd.DataFrame], names: list[str], out_dir: str | Path) -> Report:
    """Plots and `report.md` into `out_dir`, for one results table or two (base, new).

    With two, the knob and prediction plots show the second (new) table; a before/after
    plot and the comparison table show both.
    """
    if not 1 <= len(frames) <= 2 or len(frames) != len(names):
        raise ValueError("make_report takes one or two results tables, each with a name")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    left_out = sum(int(predicted_rows(f).sum()) for f in frames)
    frames = [measured_only(f) for f in frames]  # a sparse run's predicted rows are no measurement
    frame, name = frames[-1], names[-1]
    comparison = (compare_results(frames[0], frames[1], base_name=names[0], new_name=names[1])
                  if len(frames) == 2 else None)

    plots, notes, every_release = [], [], frame
    if left_out:
        notes.append(f"{left_out} predicted rows of a sparse run (source predicted) left out: they were never "
                     "launched, so nothing here is drawn from them")
    if has_release_axis(frame):
        plots, notes = release_plots(frame, out_dir)
        # The knob plots are of one release each: the newest, so a point is not drawn twice.
        frame = newest_releases(frame)
    more_plots, more_notes = knob_plots(frame, out_dir)
    plots, notes = plots + more_plots, notes + more_notes
    has_prediction = frame["predicted_kv_tokens"].notna() & frame["kv_tokens"].notna() & (frame["status"] == "ok")
    if has_prediction.any():
        title = "Measured vs predicted KV cache"
        plots.append(_save(predicted_figure(frame, title), "measured_vs_predicted", title, out_dir))
    else:
        notes.append("no started point has a predicted_kv_tokens value, so there is no measured-vs-predicted plot")
    waves = probed_waves(frame)
    if waves:
        title = "Under the probe: requests run at once, and the KV pool's use"
        plots.append(_save(probe_figure(waves, title), "probe_concurrency", title, out_dir))
    if comparison is not None:
        title = "KV cache tokens per point, before and after"
        base_label = f"base: {_side_label(frames[0], names[0])}"
        new_label = f"new: {_side_label(frames[1], names[1])}"
        fig = before_after_figure(comparison, base_label, new_label, title)
        plots.append(_save(fig, "before_after", title, out_dir))

    markdown = render_report_markdown(every_release, name, plots, notes, comparison)
    path = out_dir / "report.md"
    path.write_text(markdown, encoding="utf-8")
    return Report(out_dir, path, markdown, plots, comparison)


def _side_label(frame: pd.DataFrame, name: str) -> str:
    versions = ", ".join(f"{e} {_versions(frame, e)}" for e in sorted(frame["engine"].unique()))
    return f"{Path(name).parent.name or Path(name).name} ({versions})" if versions else Path(name).name


def _cell(value: Any) -> str:
    if is_missing(value):
        return ""
    if isinstance(value, float):
        return count(value) if value.is_integer() else f"{value:.4g}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _fixed(value: Any, pattern: str) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return pattern.format(float(value))


def _probe_markdown(frame: pd.DataFrame) -> list[str]:
    """The probe's tables: per point its limits and survival, per wave requests run at once against the claim."""
    points, waves = probed_points(frame), probed_waves(frame)
    if not points:
        return []
    out = ["", "## Under the probe", "",
           ("What each server did when driven through its own API (`run --stop-after probe`): the longest request "
            "served and the length refused, then waves of requests of one length and shape sent at once: "
            "prompt-heavy (a long prompt, a short output) and decode-heavy (a short prompt growing to L). A peak "
            "marked a lower bound comes from a wave sampled too sparsely or cut short by the probe's time."), ""]
    header = ("engine", "point_id", "repeat", "status", "longest served (tokens)", "refused at (tokens)", "refusal",
              "healthy after", "peak memory (GiB)", "KV pool (GiB)", "cut short")
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for p in points:
        out.append("| " + " | ".join(_cell(v) for v in (
            f"{p.engine} {p.engine_version}", p.point_id, p.repeat, p.status, p.longest_served, p.refused_len,
            p.refusal, {True: "yes", False: "no", None: ""}[p.healthy_after])) + " | "
                   + _fixed(p.peak_memory_gib, "{:.2f}") + " | " + _cell(p.kv_gib) + " | " + _cell(p.incomplete) + " |")
    header = ("engine", "point_id", "wave (shape@L tokens)", "sent", "claimed", "run at once", "run / claimed",
              "peak waiting", "preemptions", "peak KV use", "completed", "failed", "first failure", "samples",
              "duration (s)", "longest gap (s)")
    out += ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for w in waves:
        out.append("| " + " | ".join((
            _cell(f"{w.engine} {w.engine_version}"), _cell(w.point_id), _cell(w.name), _cell(w.sent),
            _fixed(w.claimed, "{:.2f}"), _cell(w.measured) + (" (lower bound)" if w.lower_bound else ""),
            _fixed(w.ratio, "{:.3f}"), _cell(w.peak_waiting),
            _cell(w.preemptions) + (f" ({w.preemptions_from})" if w.preemptions_from else ""),
            _fixed(None if w.peak_kv_usage is None else 100 * w.peak_kv_usage, "{:.1f}%"),
            _cell(w.completed), _cell(w.failed), _cell(w.first_failure), _cell(w.samples),
            _fixed(w.duration_s, "{:.2f}"), _fixed(w.longest_gap_s, "{:.3f}"))) + " |")
    return out


def render_report_markdown(frame: pd.DataFrame, name: str, plots: list[Plot], notes: list[str],
                           comparison: Comparison | None) -> str:
    scenario = ", ".join(sorted(frame["scenario"].dropna().unique())) or "?"
    out = [f"# KV-cache report: {scenario}", "", f"Results: `{name}`"]
    run_ids = sorted({str(v) for v in frame["run_id"].dropna()})
    if run_ids:
        out.append(f"Run: {', '.join(run_ids)}")
    for engine in sorted(frame["engine"].unique()):
        out.append(f"- {engine} {_versions(frame, engine) or '(version not recorded)'}")
    machine = {c: sorted({_cell(v) for v in frame[c].dropna()})
               for c in ("device_name", "device_total_mib", "driver_version", "torch_version", "compile_cache")}
    shown = ", ".join(f"{k} {'/'.join(v)}" for k, v in machine.items() if v)
    out += [f"- machine: {shown or 'not recorded'}", "", "## Points", ""]
    labels = point_knobs(frame)
    header = ("engine", "point_id", "repeat", "knobs", "status", "kv_tokens", "kv_gib", "predicted_kv_tokens",
              "predicted_kv_gib", "prediction_error_pct")
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    several = has_release_axis(frame)
    for _, row in frame.iterrows():
        # On a release axis a point has a row per release: the engine cell names it.
        engine = f"{row['engine']} {row['engine_version']}" if several else row["engine"]
        knobs = ", ".join(f"{k}={_value_text(v)}" for k, v in labels.get(row["point_id"], {}).items())
        status = _outcome(row["status"], row["error_kind"])
        out.append("| " + " | ".join((
            _cell(engine), _cell(row["point_id"]), _cell(row["repeat"]), _cell(knobs), _cell(status),
            _cell(row["kv_tokens"]), _fixed(row["kv_gib"], "{:.3f}"), _cell(row["predicted_kv_tokens"]),
            _fixed(row["predicted_kv_gib"], "{:.3f}"), _fixed(row["prediction_error_pct"], "{:+.2f}%"))) + " |")
    out += _probe_markdown(frame)
    out += ["", "## Plots", ""]
    for plot in plots:
        out += [f"### {plot.title}", "", f"![{plot.title}]({plot.path.name})", ""]
    out += [f"- {n}" for n in notes]
    if comparison is not None:
        out += ["", render_markdown(comparison)]
    return "\n".join(out).rstrip() + "\n"
