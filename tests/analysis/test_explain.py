"""`compare --explain`: synthetic pairs, one term changed each, attributed to that term alone (the graph estimate's
pair needs a log record: tests/engines/test_explaining.py); a pair the predictor cannot model shows its whole change
as residual; every committed history data set explained (the README's hand explanations come out of the tool)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from harness.analysis.compare import compare_results
from harness.analysis.explain import (
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
    pool = vf.budget_bytes(total_mib * 2**20, 0.1) - vf.CPU_WORKER_RSS_GIB_ESTIMATE * GiB
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


def test_sglang_history_each_release_step_named_and_the_host_left_unexplained():
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
    # 0.5.19 -> 0.5.20 -> 0.5.21 at 0.001: the host, not the releases; no rule is claimed, the predictor says it
    # fails on every one of them, and the readings are shown
    for key in (("0.5.19", "0.5.20"), ("0.5.20", "0.5.21")):
        step = fraction[key]
        assert step.column == "error_kind" and step.status == UNEXPLAINED and step.rules == []
        assert step.predicted_before == step.predicted_after == "engine_error/weights_leave_no_memory"
        assert "the host moved: avail_mem_before_load_gib" in " ".join(step.notes)
    assert sum(e.unexplained for e in changed.values()) == 2
    assert all(e.counts()[WITHIN_LOG_ROUNDING] == 0 for e in changed.values())


def test_sglang_history_before_0_5_8_the_host_explains_the_fractions_and_the_envs_failures_stay_unexplained():
    # NUMA node 0's MemTotal grew while this run went on: each modelled release's fraction comes from the total it
    # read; the outcome changes are the envs' (torch 2.8.0's missing uint64 copy kernel up to 0.5.5, a pyarrow
    # import error in 0.5.5's env), which no budget rule is about
    steps = _by_release(REPO / "results/sglang_history/releases-0.5.1-0.5.7/results.csv")
    figures = [(k, p, f) for k, e in steps.items() for p in e.points for f in p.figures]
    modelled = [(k, f) for k, p, f in figures if not any("the predictor models" in n for n in p.notes)]
    assert {k[1:] for k, _ in modelled} == {("0.5.3", "0.5.5"), ("0.5.5", "0.5.6")}
    for key, figure in modelled:
        if figure.column == "mem_fraction_static_effective":
            assert figure.status == EXPLAINED and figure.rules == [] and "device_total_mib" in figure.notes[0], key
        else:
            assert figure.column == "error_kind" and "engine_error/other" in (figure.before, figure.after), key
            assert figure.status == UNEXPLAINED and figure.rules == [], key
    assert any("its dependencies changed too: torch_version 2.8.0+cu128 -> 2.9.1+cu128" in n
               for k, e in steps.items() if k[1:] == ("0.5.5", "0.5.6") for p in e.points for n in p.notes)


def test_cpu_budget_sglang_0_5_23_every_kv_change_within_what_the_logs_state():
    steps = _by_release(REPO / "results/cpu_budget/baseline-vllm0.32.0-sglang0.5.22-0.5.23/results.csv")
    explanation = steps["sglang", "0.5.22", "0.5.23"]
    kvs = [p.kv for p in explanation.points if p.kv is not None]
    assert len(kvs) == 5 and explanation.unexplained == 0
    for kv in kvs:
        assert sum(t.delta_tokens for t in kv.terms) + kv.residual_tokens == kv.kv_delta_tokens
        assert kv.status in (EXPLAINED, WITHIN_LOG_ROUNDING) and kv.modelled
        assert abs(kv.residual_tokens) <= kv.log_rounding_tokens
    moved = {p.point_id: {t.name: t for t in p.kv.terms} for p in explanation.points}
    # the 0.05 point: SGLang read 20.81 GiB free before loading on 0.5.22, 20.82 on 0.5.23 (their logs)
    free = moved["719534dad5c748cb"]["free memory before loading"]
    assert (free.before, free.after, free.source, free.delta_tokens) == (20.81, 20.82, "log", 1049)


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
        assert all(t["source"] in ("log", "predictor") for t in p["terms"])
        assert any(n.startswith("between the load's end and the pool SGLang takes memory") for n in p["notes"])
    assert step["explain"]["counts"] == {EXPLAINED: 0, WITHIN_LOG_ROUNDING: 5, RULE_NAMED: 0, UNEXPLAINED: 0}


@pytest.mark.parametrize("readme", ["vllm_history", "sglang_history", "cpu_budget"])
def test_the_history_readmes_show_what_explain_prints(readme, capsys):
    # the READMEs show the tool's explanation instead of prose; "..." stands for lines left out
    examples = [e for e in read_transcript((REPO / "results" / readme / "README.md").read_text()).examples
                if "--explain" in e.argv]
    assert len(examples) == 1
    example = replace(examples[0], shown=tuple(s for s in examples[0].shown if s != "..."))
    code = main(list(example.argv))
    check_run(example, code, capsys.readouterr().out)


def test_a_gpu_pair_is_split_from_its_logs(tmp_path):
    # Model Runner V2 logs in vLLM 0.32.0's GPU wording (tests/support/gpu_lines.py); the new one estimates 0.25 GiB
    # more CUDA-graph memory and logs 2,048 tokens (0.25 GiB of 128 KiB tokens) fewer
    (tmp_path / "logs").mkdir()
    old = "\n".join(gpu_lines.MRV2_LOG) + "\n"
    new = (old.replace(gpu_lines.V21 % ("0.41", "0.57", "0.16", 39.0), gpu_lines.V21 % ("0.41", "0.82", "0.41", 100.0))
           .replace(gpu_lines.V19 % ("GPU", "46,928", "8,192", 5.73), gpu_lines.V19 % ("GPU", "44,880", "8,192", 5.48)))
    rows = []
    for release, text, tokens in (("0.31.0", old, 46_928), ("0.32.0", new, 44_880)):
        (tmp_path / "logs" / f"p0-{release}.log").write_text(text)
        rows.append(_row("vllm", release, {"gpu_memory_utilization": 0.92, "max_model_len": 8192},
                         device_total_mib=23.52 * 1024, kv_tokens=tokens, block_size=16, weights_gib=14.99,
                         cuda_graph_gib=0.41, log_path=f"logs/p0-{release}.log"))
    base, new_rows = pd.DataFrame(rows[:1]), pd.DataFrame(rows[1:])
    explanation = explain_comparison(compare_results(base, new_rows), RunSource(base, tmp_path),
                                     RunSource(new_rows, tmp_path))
    point = explanation.points[0]
    _adds_up(point)
    terms = {t.name: t for t in point.kv.terms}
    assert (terms["CUDA graph estimate"].before, terms["CUDA graph estimate"].after) == (0.57, 0.82)
    assert terms["CUDA graph estimate"].source == "log" and terms["CUDA graph estimate"].delta_tokens == -2048
    assert {t.name for t in point.kv.terms if t.delta_tokens} <= {"CUDA graph estimate",
                                                                  "rounding to blocks and requests"}
    assert point.kv.status == EXPLAINED
