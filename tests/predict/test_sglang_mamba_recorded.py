"""The predictor's Mamba pools against SGLang-CPU 0.5.22's and 0.5.23's recorded startups of tiny-nemotron-h
(results/cpu_kinds/hybrid-*, scenarios/cpu_kinds_hybrid.yaml): each row predicted again from its own point and the
memory its row read (the host capacity giving the logged default fraction, the free memory SGLang logged before
loading), as `run` predicts it. The rules themselves are checked against SGLang's own code in
test_sglang_mamba_oracle.py.

What the logs show and the predictor gives: the default strategy (extra_buffer) and no_buffer with the overlap
schedule on are refused while the arguments resolve, in SGLang's words; no_buffer without it sizes a state pool of
235,351 slots, 7.94 GiB (0.5.23: 236,244, 7.97) beside the 4,096-token KV pool, and 64 slots with
--max-mamba-cache-size 64. The later failure of those starts (a CPU kernel op the installed sgl-kernel lacks,
`kernel_op_missing`) is not the sizing's: the predictor says they start."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.builtin_models import MODELS_DIR_ENV
from harness.engines.predicting import predict_point
from harness.engines.sglang.explain import predicted_outcome
from harness.predict import load_model_description
from harness.scenario.load import load_scenario
from harness.scenario.sweep import expand
from parsers import parse_log, read_log

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "results" / "cpu_kinds" / "hybrid-vllm0.32.0-sglang0.5.22-0.5.23"
SCENARIO = ROOT / "scenarios" / "cpu_kinds_hybrid.yaml"
# one slot: 2 Mamba2 layers x (conv (8 x 32 + 2 x 16) x 3 in bfloat16 + SSM 8 x 32 x 16 in float32)
PER_SLOT = 2 * ((8 * 32 + 2 * 16) * 3 * 2 + 8 * 32 * 16 * 4)


def _rows(monkeypatch, tmp_path):
    monkeypatch.setenv(MODELS_DIR_ENV, str(tmp_path))  # not built: the shape's own config
    model = load_model_description("builtin:tiny-nemotron-h")
    points = expand(load_scenario(SCENARIO))
    frame = pd.read_csv(RUN / "results.csv")
    for _, row in frame[frame.engine == "sglang"].iterrows():
        point = next(p for p in points if p.point_id == row.point_id and p.engine_version == row.engine_version)
        free = None if pd.isna(row.engine_free_mib) else float(row.engine_free_mib)
        p = predict_point(point, model, float(row.device_total_mib), device="cpu", gpu_free_mib=free,
                          free_at_load=free is not None)
        yield row, point, p, parse_log(read_log(RUN / row.log_path))


def test_every_recorded_hybrid_start_is_predicted_as_sglang_sized_or_refused_it(monkeypatch, tmp_path):
    seen = set()
    for row, point, p, record in _rows(monkeypatch, tmp_path):
        knobs = point.settings
        assert p.modelled, p.reason
        assert p.mem_fraction_static == record.mem_fraction_static_effective or record.mem_fraction_static_effective \
            is None
        if record.error_kind == "mamba_radix_cache_unsupported":
            # refused while resolving the arguments, in SGLang's words
            assert p.will_start is False and p.reason == "M1: " + record.error_message.removeprefix("AssertionError: ")
            assert predicted_outcome(p) == f"engine_error/{record.error_kind}" == f"engine_error/{row.error_kind}"
            seen.add(record.error_data["strategy"])
            continue
        # both pools sized; the start then fails on a missing CPU kernel op, which no sizing rule names
        assert record.error_kind == "kernel_op_missing" and p.will_start
        assert p.kv_tokens == record.pool_tokens == 4096
        assert any(f"{PER_SLOT:,} B a slot" in n and "strategy no_buffer" in n for n in p.notes)
        # the logged GiB is the logged slots (and the padding slot) at the predicted bytes a slot: 0.76 + 7.18 GiB
        assert round((record.state_pool_slots + 1) * PER_SLOT / (1 << 30), 2) == record.state_pool_gib
        if knobs.get("max_mamba_cache_size"):
            assert p.state_pool_slots == record.state_pool_slots == 64 and round(p.state_pool_gib, 2) == 0.0
            seen.add("pinned")
        else:
            # from the host's memory: what SGLang took between its reading before loading and the profile, beyond
            # the weights, is the predictor's estimate (L, 0.05 GiB), so the slots agree to a few tenths of a percent;
            # slots = int((rest x 0.9 / 1.9 - per slot) // per slot): the rest each side's slots imply, within L
            assert abs(p.state_pool_slots - record.state_pool_slots) / record.state_pool_slots < 0.005
            assert abs(p.state_pool_gib - record.state_pool_gib) < 0.03
            implied_gib = [(slots + 1) * PER_SLOT * 1.9 / 0.9 / (1 << 30)
                           for slots in (p.state_pool_slots, record.state_pool_slots)]
            assert abs(implied_gib[0] - implied_gib[1]) < p.estimates["L"].gib
            seen.add(f"sized {row.engine_version}")
    assert seen == {"extra_buffer", "no_buffer", "pinned", "sized 0.5.22", "sized 0.5.23"}

