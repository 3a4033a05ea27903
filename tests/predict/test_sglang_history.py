"""The history data set's SGLang side: the same three SGLang-CPU startups on each release, recorded by
the harness on this CPU host (`run scenarios/sglang_history.yaml`, committed under results/).

Each row against its own log; the releases the predictor models give the rows' effective
mem_fraction_static; `compare --by-release` as committed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.engines.predicting import predict_point
from harness.predict import load_model_description
from harness.results.io import read_results
from harness.scenario import expand, load_scenario
from parsers import parse_log, read_log

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "scenarios" / "sglang_history.yaml"
RUN = REPO / "results" / "sglang_history" / "releases-0.5.8-0.5.23"
# The older releases, recorded later on a host whose NUMA node 0 reported 15,450-18,906 MiB of MemTotal
# (its memory grew while the run went on; /proc/meminfo said 24,105 MiB throughout).
RUN_BEFORE_0_5_8 = REPO / "results" / "sglang_history" / "releases-0.5.1-0.5.7"
SERVE, TOO_LONG, NO_MEMORY = "05a0ffd82601a862", "bb41d1d801676a0a", "3740450cea67ecba"
# torch 2.8.0's CPU build has no copy kernel for uint64, and SGLang's pool concatenates its K and V pointer
# tensors, made as torch.uint64 (0.5.5 sglang/srt/mem_cache/memory_pool.py:669-677; the same lines in 0.5.1-0.5.6):
# the releases that pin torch 2.8.0 stop there on any CPU; 0.5.6 and 0.5.7 pin 2.9.1, which has it.
UINT64_CAT = "NotImplementedError: \"copy_kernel\" not implemented for 'UInt64'"


@pytest.fixture(scope="module")
def rows():
    return read_results(RUN / "results.csv")


@pytest.fixture(scope="module")
def old_rows():
    return read_results(RUN_BEFORE_0_5_8 / "results.csv")


def test_releases_before_0_5_8_serve_from_0_5_6_and_stop_at_the_pool_with_torch_2_8(old_rows):
    # 0.5.4 is missing: its flashinfer-python==0.4.1 pin needs apache-tvm-ffi==0.1.0b15, no longer on the index
    assert sorted(old_rows["engine_version"].unique()) == ["0.5.1", "0.5.2", "0.5.3", "0.5.5", "0.5.6", "0.5.7"]
    assert old_rows.groupby("engine_version").size().min() == 3
    by = old_rows.set_index(["engine_version", "point_id"])
    for release in old_rows["engine_version"].unique():
        serve = by.loc[(release, SERVE)]
        if release in ("0.5.6", "0.5.7"):
            assert (serve["status"], serve["kv_tokens"], serve["torch_version"]) == ("ok", 4096, "2.9.1+cu128")
        else:
            assert (serve["status"], serve["error_kind"], serve["error_message"]) == \
                ("engine_error", "other", UINT64_CAT)
            assert serve["torch_version"] == "2.8.0+cu128" and serve["kv_tokens"] != serve["kv_tokens"], release
        no_memory = by.loc[(release, NO_MEMORY)]
        if no_memory["error_kind"] == "other":
            # 0.001 of the host left a few MB on 0.5.1 (a coin toss, see test_three_startups_on_each_release):
            # it went on to build that pool and stopped where its serving point did
            assert (release, no_memory["error_message"]) == ("0.5.1", UINT64_CAT)
        else:
            assert (no_memory["status"], no_memory["error_kind"]) == ("engine_error", "not_enough_memory"), release
        too_long = by.loc[(release, TOO_LONG)]
        if release == "0.5.5":
            # the context check asks is_in_ci(), which imports datasets; 0.5.5's env resolved a datasets older than
            # its pyarrow (datasets/features/features.py:634 subclasses pa.PyExtensionType, gone in pyarrow 21)
            assert too_long["error_message"].startswith("AttributeError: module 'pyarrow' has no attribute "
                                                        "'PyExtensionType'"), too_long["error_message"]
        else:
            assert too_long["error_kind"] == "max_model_len_exceeds_derived", release


def test_three_startups_on_each_release(rows):
    assert rows.groupby("engine_version").size().min() == 3
    by = rows.set_index(["engine_version", "point_id"])
    for release in rows["engine_version"].unique():
        assert by.loc[(release, SERVE), "status"] == "ok" and by.loc[(release, SERVE), "kv_tokens"] == 4096
        assert by.loc[(release, TOO_LONG), "status"] == "engine_error"
        assert by.loc[(release, TOO_LONG), "error_kind"] == "max_model_len_exceeds_derived", release
        # f = 0.001 of ~20.7 GB is ~21 MB: the pool is f x pre - (pre - now), so whether it is left depends on
        # what the host's memory did during loading (0.5.22 here: -50 MB, "minimum viable = ... 0.0024";
        # 0.5.20: +1 MB, a 43,124-token pool). Either outcome is a real one; a large pool would not be.
        no_memory = by.loc[(release, NO_MEMORY)]
        if no_memory["status"] == "ok":
            assert no_memory["kv_gib"] < 0.002 * no_memory["device_total_mib"] / 1024, release
        else:
            assert no_memory["error_kind"] in ("weights_leave_no_memory", "not_enough_memory"), release


@pytest.mark.parametrize("run", [RUN, RUN_BEFORE_0_5_8], ids=lambda p: p.name)
def test_every_row_is_what_its_log_says(run):
    rows = read_results(run / "results.csv")
    for _, row in rows.iterrows():
        record = parse_log(read_log(run / row["log_path"]), "sglang")
        kind = row["error_kind"] if isinstance(row["error_kind"], str) else None
        assert (record.status, record.error_kind) == (row["status"], kind), row["log_path"]
        assert record.kv_tokens == (row["kv_tokens"] if row["kv_tokens"] == row["kv_tokens"] else None)
        assert record.mem_fraction_static_effective == row["mem_fraction_static_effective"] or (
            record.mem_fraction_static_effective is None and row["mem_fraction_static_effective"] != row[
                "mem_fraction_static_effective"])


def test_the_predictor_gives_each_releases_default_fraction(rows):
    # The serving point leaves mem_fraction_static to SGLang: 1 - reserve / node MemTotal, where the
    # reserve's graph term changed at 0.5.15 (0.5.14 reserves the CPU decode graph's 32 x 2 MiB although
    # --disable-cuda-graph turns it off: 0.843 on this host, 0.846 from 0.5.15). The predictor must give
    # every recorded release's figure from its own rules.
    scenario = load_scenario(SCENARIO)
    model = load_model_description(scenario.model)
    points = {(p.point_id, p.engine_version): p for p in expand(scenario)}
    served = rows[rows["point_id"] == SERVE]
    assert len(served) == rows["engine_version"].nunique()
    for _, row in served.iterrows():
        p = predict_point(points[SERVE, row["engine_version"]], model, row["device_total_mib"], device="cpu")
        assert p.modelled, row["engine_version"]
        assert p.mem_fraction_static == row["mem_fraction_static_effective"], row["engine_version"]
        assert p.kv_tokens == row["kv_tokens"] and p.max_running_requests == row["max_running_requests"]


def test_the_predictor_gives_the_older_releases_fraction_from_the_node_memory_they_read(old_rows):
    # Below 20 GiB of node MemTotal the reserve is 512 + 2048 x 1.5 + 8 x 2 + 128 = 3,728 MiB (0.5.6
    # sglang/srt/server_args.py:726-732, :822-834): 0.759 at 15,450 MiB, 0.799 at 18,522 MiB. 0.5.1 and 0.5.2
    # give the CPU no size (0.5.2 sglang/srt/utils.py:1406-1419) and take 0.88 whatever the node holds.
    scenario = load_scenario(SCENARIO)
    model = load_model_description(scenario.model)
    points = {(p.point_id, p.engine_version): p for p in expand(scenario)}
    served = old_rows[old_rows["point_id"] == SERVE]
    for _, row in served.iterrows():
        p = predict_point(points[SERVE, row["engine_version"]], model, row["device_total_mib"], device="cpu")
        assert p.modelled and p.mem_fraction_static == row["mem_fraction_static_effective"], row["engine_version"]
        if row["engine_version"] in ("0.5.1", "0.5.2"):
            assert p.mem_fraction_static == 0.88
        if row["status"] == "ok":
            assert p.kv_tokens == row["kv_tokens"] and p.max_running_requests == row["max_running_requests"]


@pytest.mark.parametrize("release", ["0.5.1", "0.5.2"])
def test_0_5_1_and_0_5_2_logs_are_what_the_predictor_gives(old_rows, release):
    # What each log states, from the inputs it states: the serving point's fraction (0.88: no CPU size) and its
    # 4096-token pool under --max-total-tokens (the log stops building it: SGLang's uint64 pointer concat on torch
    # 2.8, not a budget matter); --context-length 4096 over the model's 2048 refused (0.5.1 configs/model_config.py
    # :176 no longer allows it by default); f = 0.001 with no room left. 0.5.2 says "Not enough memory" with no
    # current value (0.5.2 model_runner.py:1317-1319); 0.5.1's host happened to leave a few MB (see
    # test_releases_before_0_5_8_serve_from_0_5_6_and_stop_at_the_pool_with_torch_2_8).
    scenario = load_scenario(SCENARIO)
    model = load_model_description(scenario.model)
    points = {(p.point_id, p.engine_version): p for p in expand(scenario)}
    by = old_rows.set_index(["engine_version", "point_id"])
    predicted = {}
    for point in (SERVE, TOO_LONG, NO_MEMORY):
        row = by.loc[(release, point)]
        record = parse_log(read_log(RUN_BEFORE_0_5_8 / row["log_path"]), "sglang")
        free = record.avail_mem_before_load_gib  # the context check stops before loading: no reading
        predicted[point] = p = predict_point(points[point, release], model, row["device_total_mib"], device="cpu",
                                             gpu_free_mib=None if free is None else free * 1024,
                                             free_at_load=free is not None)
        assert p.modelled, p.reason
        assert p.mem_fraction_static == row["mem_fraction_static_effective"] or point == TOO_LONG
        assert p.mem_fraction_static == record.mem_fraction_static_effective or point == TOO_LONG
    assert predicted[SERVE].will_start and predicted[SERVE].kv_tokens == 4096
    assert not predicted[TOO_LONG].will_start and by.loc[(release, TOO_LONG), "error_kind"] == \
        "max_model_len_exceeds_derived"
    assert predicted[TOO_LONG].reason.startswith("context_length (4096) is greater than the derived context_length "
                                                 "(2048)")
    no_memory = by.loc[(release, NO_MEMORY)]
    assert predicted[NO_MEMORY].reason == "G2: Not enough memory. Please try to increase --mem-fraction-static."
    if release == "0.5.2":
        assert no_memory["error_message"] == "RuntimeError: " + predicted[NO_MEMORY].reason[len("G2: "):]


def test_compare_by_release_is_the_committed_output_and_names_the_release_changes():
    # The default fraction moves by 0.1-0.4 % (0.844 -> 0.843 at 0.5.10, 0.843 -> 0.846 at 0.5.15), below the
    # default 1 % tolerance: the committed comparison tightens that column to 0.1 %.
    csv = str((RUN / "results.csv").relative_to(REPO))
    proc = subprocess.run([sys.executable, "-m", "harness", "compare", "--by-release", csv,
                           "--threshold", "mem_fraction_static_effective:0.1%"],
                          check=False, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert (RUN / "compare-by-release.txt").read_text() == proc.stdout
    changed = proc.stdout.strip().splitlines()[-1]
    # the three changes of the releases themselves (the reserve's CPU decode max_bs at 0.5.10, the weights
    # error at 0.5.14, the decode reserve following the graph at 0.5.15); the 0.001 point's flips at
    # 0.5.20/0.5.21 are the host (test_three_startups_on_each_release)
    for step in ("sglang 0.5.9 -> 0.5.10: sglang 05a0ffd82601a862", "sglang 0.5.13 -> 0.5.14: sglang 3740450cea67ecba",
                 "sglang 0.5.14 -> 0.5.15: sglang 05a0ffd82601a862"):
        assert step in changed, changed
    assert "0.5.8 -> 0.5.9" not in changed and "0.5.15 -> 0.5.16" not in changed
