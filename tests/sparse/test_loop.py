"""The sparse loop without processes: each launch answered by the GPU stand-in's own arithmetic (tests/support/
gpu_host/vllm_rules.py and sglang_rules.py, read from the releases' source, never the predictor), for
Llama-3.1-8B on an RTX 4090 (24,216 MiB as CUDA reports it): what the loop launches, what it predicts, its bounds,
--budget, --verify, repeats, release axes and resume."""

from __future__ import annotations

import pytest

from harness.errors import InputError
from harness.sparse.loop import SparseOptions, run_sparse
from tests.support.sparse_standin import MODEL, StandIn
from tests.support.sparse_standin import initial as _initial
from tests.support.sparse_standin import scenario_points as _scenario


def _errors(outcome, stand_in: StandIn) -> list[tuple]:
    """(point, predicted, oracle, bound %) for every predicted point that misses the oracle's figure or outcome."""
    misses = []
    for e in outcome.estimates:
        truth = stand_in.oracle(e.point)
        if e.prediction.will_start != (truth["status"] == "ok"):
            misses.append((e.point.label, e.prediction.reason, truth["status"], None))
        elif truth["status"] == "ok":
            error = abs(e.prediction.kv_tokens - truth["kv_tokens"]) / truth["kv_tokens"] * 100
            if error > e.bound_pct:
                misses.append((e.point.label, e.prediction.kv_tokens, truth["kv_tokens"], e.bound_pct))
    return misses


def test_the_27_points_need_few_launches_and_every_prediction_is_the_stand_ins_figure(tmp_path):
    points, stand_in = _scenario(tmp_path), StandIn()
    outcome = run_sparse(points, MODEL, stand_in, [], _initial, SparseOptions(tolerance_pct=1.0))
    assert len(stand_in.launched) <= 9 and len(outcome.estimates) == 27 - len(stand_in.launched)
    assert _errors(outcome, stand_in) == [] and outcome.unresolved == []
    # vLLM's activation peak moves with max_num_batched_tokens in the formulas: two launches pin it
    assert [t for k, t in outcome.terms.items() if k.engine == "vllm"] == [("other", "axis")]
    # SGLang's: the constant alone. Its fraction's term is what is gone before the harness's reading, and the
    # stand-in's launches log SGLang's own; no chunked_prefill_size slope: SGLang sizes its pool before anything the
    # chunk sizes exists (SglangFormulas.knobs_outside_budget). Two launches: one pins, one for a degree of freedom.
    assert [t for k, t in outcome.terms.items() if k.engine == "sglang"] == [("other",)]
    assert sum(p.engine == "sglang" for p in stand_in.launched) == 2


def test_where_each_launch_moves_the_pool_the_bounds_widen_and_the_loop_launches_more_yet_stays_honest(tmp_path):
    points, stand_in = _scenario(tmp_path), StandIn(jitter_mib=40.0, seed=3)
    outcome = run_sparse(points, MODEL, stand_in, [], _initial, SparseOptions(tolerance_pct=1.0))
    calm = StandIn()
    run_sparse(points, MODEL, calm, [], _initial, SparseOptions(tolerance_pct=1.0))
    assert len(stand_in.launched) > len(calm.launched)
    assert _errors(outcome, stand_in) == []


def test_a_budget_below_the_pinning_launches_is_one_line_saying_how_many_it_takes(tmp_path):
    # two terms in vLLM's group, one in SGLang's (it logs its own pre-load reading): three launches in the best case
    with pytest.raises(InputError, match=r"--budget 2: pinning the unknown terms \(vllm 0.32.0: other \+ "
                                         r"max_num_batched_tokens, sglang 0.5.22: other\) "
                                         r"takes at least 3 launches; give --budget 3 or more"):
        run_sparse(_scenario(tmp_path), MODEL, StandIn(), [], _initial, SparseOptions(budget=2))


def test_a_budget_that_runs_out_says_per_point_what_stays_unresolved(tmp_path):
    stand_in = StandIn()
    outcome = run_sparse(_scenario(tmp_path), MODEL, stand_in, [], _initial, SparseOptions(budget=4))
    assert len(stand_in.launched) == 4 and outcome.unresolved
    assert all(": no bound: " in line for line in outcome.unresolved), outcome.unresolved


def test_verify_launches_k_predicted_points_and_finds_each_inside_its_bound(tmp_path):
    stand_in = StandIn()
    outcome = run_sparse(_scenario(tmp_path), MODEL, stand_in, [], _initial, SparseOptions(verify=5, seed="r1"))
    assert len(outcome.verified) == 5 and all(v.inside for v in outcome.verified)
    assert {v.estimate.point.point_id for v in outcome.verified}.isdisjoint(e.point.point_id for e in outcome.estimates)


def test_repeats_launch_every_repeat_of_a_launched_point_and_predict_none_twice(tmp_path):
    points, stand_in = _scenario(tmp_path, repeats=2), StandIn()
    outcome = run_sparse(points, MODEL, stand_in, [], _initial, SparseOptions())
    launched = [(p.point_id, p.repeat) for p in stand_in.launched]
    assert sorted({r for _, r in launched}) == [0, 1] and len(launched) == 2 * len({i for i, _ in launched})
    assert len(outcome.estimates) == 27 - len(launched) // 2


def test_each_release_is_its_own_group(tmp_path):
    points, stand_in = _scenario(tmp_path, vllm_version='["0.29.0", "0.32.0"]'), StandIn()
    outcome = run_sparse(points, MODEL, stand_in, [], _initial, SparseOptions())
    assert {k.release for k in outcome.terms if k.engine == "vllm"} == {"0.29.0", "0.32.0"}
    assert {p.engine_version for p in stand_in.launched if p.engine == "vllm"} == {"0.29.0", "0.32.0"}


def test_a_resume_keeps_the_measured_rows_and_launches_only_what_they_leave_open(tmp_path):
    points, first = _scenario(tmp_path), StandIn()
    run_sparse(points, MODEL, first, [], _initial, SparseOptions())
    again = StandIn()
    outcome = run_sparse(points, MODEL, again, [first.oracle(p) for p in first.launched], _initial, SparseOptions())
    assert again.launched == [] and len(outcome.estimates) == 27 - len(first.launched)


def test_a_parallel_executor_gets_batches_of_its_width_and_the_answer_holds(tmp_path):
    # run --sparse hands the loop the executor's width (one point per GPU; Ray's placement likewise): each turn
    # launches up to that many open points at once
    batches = []
    stand_in = StandIn()

    def launch(points):
        batches.append(len(points))
        return stand_in(points)

    outcome = run_sparse(_scenario(tmp_path), MODEL, launch, [], _initial, SparseOptions(), batch=2)
    assert max(batches) == 2 and _errors(outcome, stand_in) == [] and len(stand_in.launched) <= 12
