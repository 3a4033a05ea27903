"""`run --sparse` on the GPU host stand-in: scenarios/24g_8b.yaml's 27 points (vLLM 4 utilizations x 3 batch sizes,
SGLang 5 fractions x 3 chunk sizes) in at most 9 launches, every row marked, and every predicted row what the
stand-in gives when launched: its own arithmetic (tests/support/gpu_host/vllm_rules.py, sglang_rules.py, read from
the releases' source, never from the harness's predictor) is the oracle.

The stand-in holds Llama-3.1-8B's 14.99 GiB of weights for the builtin tiny-llama, whose 512 bytes of KV a token it is
told (STANDIN_KV_BYTES_PER_TOKEN): the predictor knows tiny-llama's 1 MB of weights, so the weights are one more
unknown the fit must carry in its constant - what a sparse run has to find out from its pinning launches.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from harness.cli import main
from harness.results.io import measured_only, read_results
from tests.support.gpu_host import GpuHost, gpu_sglang_env, gpu_vllm_env, install, sglang_rules, vllm_rules

GiB = 1 << 30
KV_BYTES = 512  # tiny-llama: 2 layers x K,V x 2 KV heads x 32 x 2 bytes
WEIGHTS_GIB = 14.99  # the stand-ins' default (Llama-3.1-8B in bf16)
CONTEXT_MIB = 500  # what each stand-in's CUDA context takes before it reads free memory


def _scenario(folder: Path) -> Path:
    """scenarios/24g_8b.yaml's sweep on the stand-ins (tiny-llama for its model: no hub)."""
    real = yaml.safe_load((Path(__file__).resolve().parents[2] / "scenarios" / "24g_8b.yaml").read_text())
    told = {"STANDIN_KV_BYTES_PER_TOKEN": str(KV_BYTES)}
    real["model"] = {"builtin": "tiny-llama"}
    real["engines"]["vllm"]["python"] = str(gpu_vllm_env(folder / "vllm-env", told))
    real["engines"]["sglang"]["python"] = str(gpu_sglang_env(folder / "sglang-env", told))
    # Llama-3.1-8B has 131,072 positions, tiny-llama 2,048: the scenario's 8192 is allowed as it is for the real model
    real["engines"]["vllm"]["env"] = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": 1}
    real["engines"]["sglang"]["env"] = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": 1}
    real["run"] = {"timeout_s": 30, "stop_after": "ready"}
    path = folder / "24g_8b.yaml"
    path.write_text(yaml.safe_dump(real))
    return path


def _vllm_oracle(total_mib: int, util: float, max_model_len: int) -> tuple[str, int]:
    """(outcome, KV tokens) as the fake vLLM 0.32.0 sizes them (vllm_gpu.py with its default terms)."""
    requested = vllm_rules.requested_bytes(total_mib * (1 << 20), util, "0.32.0")
    available = vllm_rules.available_bytes(requested, (WEIGHTS_GIB + 0.30 + 0.58 + 0.41) * GiB, "0.32.0")
    sizing = vllm_rules.size_kv(available, KV_BYTES * vllm_rules.BLOCK_SIZE_CUDA, vllm_rules.BLOCK_SIZE_CUDA,
                                max_model_len, "0.32.0")
    return ("ok", sizing.kv_tokens) if sizing.error is None else (sizing.error, 0)


def _sglang_oracle(card_mib: int, free_mib: int, fraction: float | None, chunk: int) -> tuple[str, int]:
    """(outcome, KV tokens) as the fake SGLang 0.5.22 sizes them (sglang_gpu.py)."""
    settings = sglang_rules.memory_settings(card_mib, 1, chunk, fraction)
    pre = (free_mib - CONTEXT_MIB) / 1024
    rest = sglang_rules.rest_gib(pre, pre - WEIGHTS_GIB, settings.mem_fraction_static)
    if rest <= 0:
        return "weights_leave_no_memory", 0
    return "ok", sglang_rules.pool_tokens(rest, KV_BYTES, 1)


def _oracle(row, card) -> tuple[str, int]:
    if row["engine"] == "vllm":
        return _vllm_oracle(card.total_mib - card.reserved_mib, row["gpu_memory_utilization"], 8192)
    fraction = None if math.isnan(row["mem_fraction_static"]) else row["mem_fraction_static"]
    return _sglang_oracle(card.total_mib, card.total_mib - card.reserved_mib, fraction,
                          int(row["chunked_prefill_size"]))


@pytest.fixture(scope="module")
def sparse_run(tmp_path_factory):
    # one sparse run for the module's tests: its launches are what is slow
    tmp_path = tmp_path_factory.mktemp("sparse")
    host = GpuHost.of("RTX4090")
    with pytest.MonkeyPatch.context() as monkeypatch:
        install(monkeypatch, host.write(tmp_path / "host"))
        out = tmp_path / "out"
        assert main(["run", str(_scenario(tmp_path)), "--sparse", "--out", str(out)]) == 0
    return read_results(out / "results.csv"), host.cards[0], out


def test_the_27_points_of_24g_8b_take_at_most_9_launches_and_every_row_says_its_source(sparse_run):
    rows, _, out = sparse_run
    assert len(rows) == 27 and set(rows["source"]) == {"measured", "predicted"}
    measured = rows[rows["source"] == "measured"]
    assert len(measured) <= 9, measured[["engine", "point_id"]]
    assert measured["log_path"].notna().all() and all((out / p).is_file() for p in measured["log_path"])
    predicted = rows[rows["source"] == "predicted"]
    assert predicted["log_path"].isna().all() and predicted["kv_tokens"].isna().all()
    assert predicted[predicted["status"] == "ok"]["bound_pct"].le(1.0).all()


def test_every_predicted_row_is_what_the_stand_in_gives_when_launched(sparse_run):
    rows, card, _ = sparse_run
    for _, row in rows[rows["source"] == "predicted"].iterrows():
        said, tokens = _oracle(row, card)
        if said == "ok":
            assert row["status"] == "ok", row.to_dict()
            error_pct = abs(row["predicted_kv_tokens"] - tokens) / tokens * 100
            assert error_pct <= row["bound_pct"], (row.to_dict(), tokens)
        else:
            assert row["status"] == "engine_error" and row["error_kind"] == said, row.to_dict()


def test_the_measured_rows_are_the_stand_ins_own_figures_and_the_reader_keeps_them_apart(sparse_run):
    rows, card, _ = sparse_run
    for _, row in rows[rows["source"] == "measured"].iterrows():
        said, tokens = _oracle(row, card)
        assert (row["status"] == "ok") == (said == "ok") and (said != "ok" or row["kv_tokens"] == tokens)
    assert len(measured_only(rows)) == (rows["source"] == "measured").sum()
