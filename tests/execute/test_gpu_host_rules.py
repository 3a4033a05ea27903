"""The harness's engine rules judged on the GPU host stand-in, whose fake engines size their KV caches by rules read
from each release's own source (tests/support/gpu_host/vllm_rules.py, sglang_rules.py), not from the harness: a
`run` on the stand-in records what the fake engine did, and the harness's prediction for the same point must say the
same. A wrong rule in the harness (a release boundary, the null block, the logged token count) fails here."""

from __future__ import annotations

import pytest

from harness.cli import main
from tests.support.gpu_host import GpuHost, gpu24_scenario, gpu_vllm_env, install

# builtin tiny-llama: 2 layers x (K, V) x 2 KV heads x head_dim 32 x 2 bytes (harness/builtin_models.py TinyShape)
TINY_KV_BYTES_PER_TOKEN = 512
BLOCK_BYTES = 16 * TINY_KV_BYTES_PER_TOKEN  # vLLM's 16-token CUDA block
# 256 KiB is 32 blocks, exactly one 512-token request; 100 blocks and 5,000 bytes hold 3.125 requests of 500 tokens
EDGE_KV_BYTES, ODD_KV_BYTES = 32 * BLOCK_BYTES, 100 * BLOCK_BYTES + 5000

# what each release does with them (the fake's rules): from 0.29.0 the length check holds back the null block, so
# 256 KiB no longer fits 512 tokens (31 blocks: 496); from 0.20.1 the logged size is int(3.125 x 500), not 100 x 16
OUTCOMES = {
    "0.32.0": {512: ("max_model_len_too_large", 496), 500: ("ok", 1562)},
    "0.28.0": {512: ("ok", 512), 500: ("ok", 1562)},
    "0.20.0": {512: ("ok", 512), 500: ("ok", 1600)},
}


@pytest.mark.parametrize("release", sorted(OUTCOMES))
def test_vllm_sizes_a_given_kv_memory_as_the_harness_predicts_for_each_release(tmp_path, monkeypatch, release):
    from harness.engines.predicting import predict_point
    from harness.execute.models import resolve_model
    from harness.predict import load_model_description
    from harness.results.io import read_results
    from harness.scenario import expand, load_scenario_with_releases

    host = GpuHost.of("RTX4090")
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_vllm_env(tmp_path / "env", {"STANDIN_KV_BYTES_PER_TOKEN": str(TINY_KV_BYTES_PER_TOKEN),
                                             "STANDIN_WEIGHTS_GIB": "0.01"}, version=release)
    scenario = gpu24_scenario(tmp_path, python, f"      kv_cache_memory_bytes: [{EDGE_KV_BYTES}, {ODD_KV_BYTES}]\n"
                                                "      max_model_len: [512, 500]", version=release)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    rows = read_results(out / "results.csv").set_index("point_id")
    card = host.cards[0]
    for point in expand(load_scenario_with_releases(scenario, None)):
        row = rows.loc[point.point_id]
        length = point.settings.get("max_model_len")
        status, figure = OUTCOMES[release][length]
        measured = row["kv_tokens"] if row["status"] == "ok" else row["estimated_max_model_len"]
        assert (row["error_kind"] if row["status"] != "ok" else "ok", measured) == (status, figure), row.to_dict()
        predicted = predict_point(point, load_model_description(resolve_model(point.model)),
                                  card.total_mib - card.reserved_mib, device="cuda")
        assert predicted.will_start is (status == "ok"), (release, length, predicted.reason)
        if status == "ok":
            assert predicted.kv_tokens == row["kv_tokens"] == row["predicted_kv_tokens"]
        else:
            assert predicted.estimated_max_model_len == row["estimated_max_model_len"], predicted.reason


def test_sglang_takes_the_fraction_and_requests_the_harness_derives_for_the_card(tmp_path, monkeypatch):
    # an 80 GB card: chunk 2048 reserves less than the 10 GiB floor SGLang keeps on cards above 60 GiB, 8192 more
    from harness.engines.predicting import predict_point
    from harness.engines.sglang.formulas import resolve_max_num_reqs
    from harness.execute.models import resolve_model
    from harness.predict import load_model_description
    from harness.results.io import read_results
    from harness.scenario import expand, load_scenario_with_releases
    from tests.support.gpu_host import gpu_sglang_env

    host = GpuHost.of("A100-80GB")
    install(monkeypatch, host.write(tmp_path / "host"))
    python = gpu_sglang_env(tmp_path / "env", {"STANDIN_KV_BYTES_PER_TOKEN": str(TINY_KV_BYTES_PER_TOKEN),
                                               "STANDIN_WEIGHTS_GIB": "0.01"})
    scenario = tmp_path / "sglang80.yaml"
    scenario.write_text(f"""
name: sglang80
model: {{builtin: tiny-llama}}
gpu: {{memory_gib: 80}}
defaults: {{max_model_len: 2048}}
engines:
  sglang:
    version: "0.5.22"
    python: {python}
    sweep: {{chunked_prefill_size: [2048, 8192]}}
run: {{timeout_s: 30, stop_after: ready}}
""")
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out)]) == 0
    rows = read_results(out / "results.csv").set_index("point_id")
    card = host.cards[0]
    fractions = {}
    for point in expand(load_scenario_with_releases(scenario, None)):
        row = rows.loc[point.point_id]
        assert row["status"] == "ok", row.to_dict()
        predicted = predict_point(point, load_model_description(resolve_model(point.model)), card.total_mib,
                                  device="cuda")
        assert row["mem_fraction_static_effective"] == predicted.mem_fraction_static
        assert row["chunked_prefill_size_effective"] == predicted.chunked_prefill_size == row["chunked_prefill_size"]
        assert row["max_running_requests"] == resolve_max_num_reqs(int(row["kv_tokens"]), 2048, release="0.5.22")
        fractions[row["chunked_prefill_size"]] = row["mem_fraction_static_effective"]
    assert fractions == {2048: 0.875, 8192: 0.83}  # (81920 - 10240) / 81920; (81920 - 13904) / 81920
