"""stop_after: probe against the serving stand-in (tests/support/serving_standin.py): a scripted pool that admits,
queues, preempts, refuses and dies on request, served through the harness's real launcher and probe."""

from __future__ import annotations

import pytest

from harness.errors import InputError
from harness.execute.probe.drive import served_at_once
from harness.execute.probe.plan import claimed_concurrency, plan_probe, prompt_ids
from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from harness.scenario import ScenarioError, load_scenario
from parsers.vllm import VllmStartupRecord
from tests.support.probing import serving_scenario


def _probe_row(tmp_path, env=None, probe="{}", stop_after=None):
    scenario = serving_scenario(tmp_path, env, probe)
    run_scenario(scenario, RunOptions(out=tmp_path / "out", stop_after=stop_after))
    rows = read_results(tmp_path / "out" / "results.csv")
    assert len(rows) == 1
    return rows.iloc[0]


def test_the_probe_measures_what_the_pool_admits(tmp_path):
    # pool 2,048 tokens in 128-token blocks, max_model_len 512: 4 requests of 512 fit, the log claims 4
    row = _probe_row(tmp_path)
    assert row["status"] == "ok" and row["kv_tokens"] == 2048
    assert (row["probe_longest_served"], row["probe_refused_len"]) == (512, 513)
    assert row["probe_refusal"].startswith("400: This model's maximum context length is 512 tokens")
    # L = 512: ceil(4 x 1.5) + 1 requests at once; the pool runs 4, the rest wait, all are served
    assert (row["probe_len"], row["probe_sent"], row["probe_claimed_concurrency"]) == (512, 7, 4)
    assert (row["probe_peak_running"], row["probe_completed"], row["probe_failed_requests"]) == (4, 7, 0)
    assert row["probe_first_failure"] != row["probe_first_failure"]  # NaN: none failed
    assert row["probe_peak_waiting"] >= 1 and row["probe_concurrency_ratio"] == 1.0
    assert row["probe_peak_kv_usage"] == 1.0 and row["probe_preemptions"] == 0
    # the short L = 64: one block each, 16 claimed; never more running than the pool holds
    assert (row["probe_short_len"], row["probe_short_claimed_concurrency"], row["probe_short_sent"]) == (64, 16, 25)
    assert row["probe_short_peak_running"] == 16 and row["probe_short_completed"] == 25
    assert row["probe_healthy_after"] == "True" and row["probe_peak_memory_mib"] > 0
    assert "32 requests at once, <= 64 output tokens" in row["probe_limits"]


def test_a_claim_the_pool_does_not_back_shows_in_the_ratio(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_CLAIM_FACTOR": "2"}, "{lengths: [max]}")
    assert (row["probe_claimed_concurrency"], row["probe_sent"]) == (8, 13)
    assert row["probe_peak_running"] == 4 and row["probe_concurrency_ratio"] == 0.5
    assert row["probe_completed"] == 13 and row["probe_short_len"] != row["probe_short_len"]  # no second wave: NaN


def test_a_scheduler_limit_below_the_logged_length_is_found(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_REFUSE_ABOVE": "300"}, "{lengths: [max, 64]}")
    assert row["status"] == "ok"  # refusing is an answer: the server stays healthy
    assert (row["probe_longest_served"], row["probe_refused_len"]) == (300, 301)
    assert "maximum context length is 300 tokens" in row["probe_refusal"]
    assert (row["probe_completed"], row["probe_failed_requests"]) == (0, 7)  # every 512-token request refused
    assert row["probe_first_failure"].startswith("400: This model's maximum context length is 300 tokens")
    assert row["probe_short_completed"] == row["probe_short_sent"]


def test_without_metrics_the_concurrency_comes_from_the_streams(tmp_path):
    # a server with no /metrics (or a wave over between two samples): the requests generating at once, read from
    # their streams, are still 4 of the 7 at L = 512 and 16 of the 25 at L = 64
    row = _probe_row(tmp_path, {"STANDIN_NO_METRICS": "1"})
    assert (row["probe_peak_running"], row["probe_short_peak_running"]) == (4, 16)
    assert row["probe_peak_waiting"] != row["probe_peak_waiting"]  # NaN: only the metrics say what waits
    assert (row["probe_completed"], row["probe_short_completed"]) == (7, 25)


def test_streams_overlap_counts_requests_generating_at_one_moment():
    assert served_at_once([]) == 0
    assert served_at_once([(0, 1), (1, 2), (2, 3)]) == 1  # one ends as the next starts
    assert served_at_once([(0, 4), (1, 2), (1.5, 3), (3.5, 5)]) == 3
    assert served_at_once([(0, 1)] * 5) == 5


def test_a_preemption_is_counted(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_PREEMPT_AT": "3"}, "{lengths: [max]}")
    assert row["probe_preemptions"] == 1 and row["probe_completed"] == 7


def test_a_server_that_dies_under_the_probe_is_probe_failed_with_what_was_measured(tmp_path):
    # requests 1 and 2 check the length (512 served, 513 refused); the 5th is the wave's third
    row = _probe_row(tmp_path, {"STANDIN_DIE_AT_REQUEST": "5"})
    assert row["status"] == "probe_failed" and row["error_kind"] == "probe_failed"
    assert "the engine exited while serving the probe" in row["error_message"]
    assert "died under load" in row["error_message"]  # the engine's own last lines
    assert row["kv_tokens"] == 2048 and row["probe_longest_served"] == 512
    assert row["probe_healthy_after"] == "False"


def test_stop_after_probe_from_the_command_line_checks_the_lengths(tmp_path):
    scenario = serving_scenario(tmp_path, probe="{lengths: [1024]}").read_text().replace("stop_after: probe",
                                                                                         "stop_after: ready")
    path = tmp_path / "ready.yaml"
    path.write_text(scenario)
    load_scenario(path)  # not probing: the probe block is not checked against the points
    with pytest.raises(InputError, match=r"--stop-after probe: run\.probe\.lengths: 1024 is above max_model_len 512"):
        run_scenario(path, RunOptions(out=tmp_path / "out", stop_after="probe"))


@pytest.mark.parametrize(("probe", "message"), [
    ("{lengths: [1024]}", "run.probe.lengths: 1024 is above max_model_len 512 of engines.vllm"),
    ("{max_requests: 0}", "run.probe.max_requests: Input should be greater than or equal to 1"),
    ("{lengths: [1]}", "run.probe.lengths: a request length must be at least 2 tokens, not 1"),
    ("{lengths: []}", "run.probe.lengths: List should have at least 1 item"),
    ("{output: 3}", "run.probe.output"),
])
def test_bad_probe_settings_are_one_line_each_at_validate(tmp_path, probe, message):
    path = serving_scenario(tmp_path, probe=probe)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert len(caught.value.problems) == 1 and message in caught.value.problems[0].render(path)


def test_the_plan_caps_requests_and_claims_from_the_engines_own_figures():
    record = VllmStartupRecord(kv_tokens=10_000, block_size=16, max_model_len=1000, max_concurrency=9.5)
    assert claimed_concurrency(record, 1000) == 9.5  # vLLM's own line at max_model_len
    assert claimed_concurrency(record, 100) == 10_000 / 112  # the pool over 7 blocks
    plan = plan_probe(["max", 100], 8, 1.5, 20, 60, record)
    assert [(w.length, w.sent) for w in plan.waves] == [(1000, 16), (100, 20)]
    assert plan_probe([2000], 8, 1.5, 20, 60, record) == "probe length 2000 is above the engine's max_model_len 1000"
    assert plan_probe(["max"], 8, 1.5, 20, 60, VllmStartupRecord(kv_tokens=1)).startswith("the engine logged no")


def test_no_two_requests_share_a_first_token():
    firsts = {prompt_ids(i, 4)[0] for i in range(100)}
    assert len(firsts) == 100 and all(5 <= t < 195 for i in range(100) for t in prompt_ids(i, 300))
