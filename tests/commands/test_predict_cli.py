"""`python -m harness predict`: per-point predictions for the bundled scenarios, errors, calibration."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from pathlib import Path

from harness.cli import main
from harness.commands.predict import predict_scenario
from harness.engines.predicting import predict_point
from harness.predict import load_model_description
from harness.predict.model import GiB
from harness.results.columns import COLUMNS
from harness.results.io import write_results
from harness.scenario import expand, load_scenario
from tests.support.checkpoints import dense_llama, tensor_bytes, write_checkpoint
from tests.support.fake_hub import FakeHub
from tests.support.guards import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[2]
GPU_SCENARIO = ROOT / "scenarios" / "24g_8b.yaml"
CPU_SCENARIO = ROOT / "scenarios" / "cpu_tiny.yaml"
JSON_FIELDS = ("engine", "point_id", "args", "weights_gib", "kv_bytes_per_token", "kv_gib_upper_bound",
               "kv_tokens_upper_bound", "kv_gib", "kv_tokens", "num_blocks", "max_concurrency", "max_req_len",
               "will_start", "reason")
# each engine's own terms beside the neutral ones
ENGINE_JSON_FIELDS = {
    "vllm": ("gpu_memory_utilization", "budget_gib", "max_num_batched_tokens", "estimated_max_model_len"),
    "sglang": ("mem_fraction_static", "chunked_prefill_size", "cuda_graph_max_bs", "reserved_mib",
               "max_running_requests"),
}


def test_one_prediction_per_point_with_every_field(capsys):
    assert main(["predict", str(GPU_SCENARIO), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    points = {(p.engine, p.point_id) for p in expand(load_scenario(GPU_SCENARIO))}
    assert {(o["engine"], o["point_id"]) for o in out} == points and len(out) == len(points)
    for obj in out:
        assert all(field in obj for field in JSON_FIELDS + ENGINE_JSON_FIELDS[obj["engine"]]), obj["point_id"]
        other = next(e for e in ENGINE_JSON_FIELDS if e != obj["engine"])
        assert not any(field in obj for field in ENGINE_JSON_FIELDS[other]), obj["point_id"]
    sglang_default = [o for o in out if o["engine"] == "sglang" and o["args"]["mem_fraction_static"] is None]
    by_chunk = {o["args"]["chunked_prefill_size"]: o for o in sglang_default}
    assert by_chunk[4096]["reserved_mib"] == 7280 and by_chunk[4096]["mem_fraction_static"] == 0.704
    assert by_chunk[8192]["will_start"] is False and by_chunk[8192]["reason"].startswith("G1")


def test_table_is_the_default(capsys):
    assert main(["predict", str(GPU_SCENARIO)]) == 0
    out = capsys.readouterr().out
    assert "vllm 0.32.0: cuda 24576 MiB" in out and "sglang 0.5.22: cuda 24576 MiB" in out and "G1" in out


def test_card_and_tp_overrides():
    base = predict_scenario(str(GPU_SCENARIO)).predictions
    h100 = predict_scenario(str(GPU_SCENARIO), gpu_memory_mib=81559, tp=2).predictions
    assert all(p.gpu_total_mib == 81559 and p.tp == 2 for p in h100)
    assert all(p.kv_bytes_per_token == 65_536 for p in h100)
    first = {p.point_id: p for p in base}
    assert all(p.kv_tokens > first[p.point_id].kv_tokens for p in h100 if p.engine == "vllm")


def test_cpu_scenario_explicit_kv_space():
    report = predict_scenario(str(CPU_SCENARIO))
    vllm = {p.args["kv_cache_memory_bytes"]: p for p in report.predictions if p.engine == "vllm"}
    # 1 GiB / 512 B per token in 128-token blocks (the recorded real runs logged 2,097,152 tokens)
    assert vllm[1 << 30].kv_tokens == 2_097_152 and vllm[1 << 30].num_blocks == 16_384
    # 256 KiB for 2048-token requests: E3 with 384, as the recorded real run said
    small = vllm[262_144]
    assert small.will_start is False and small.reason.startswith("E3") and small.estimated_max_model_len == 384
    sglang = [p for p in report.predictions if p.engine == "sglang"]
    assert sglang and all(p.kv_tokens == 4096 and p.max_req_len == 511 for p in sglang)


def test_cpu_kvcache_space_env_overrides_the_flag():
    # platforms/cpu.py:324-327, confirmed by a real vLLM-CPU start (2,097,152 tokens, not E3)
    tiny = load_model_description("builtin:tiny-llama")
    from harness.engines.predicting import predict

    p = predict("vllm", {"kv_cache_memory_bytes": 262_144, "max_model_len": 2048}, tiny, None, device="cpu",
                env={"VLLM_CPU_KVCACHE_SPACE": "1"})
    assert p.will_start and p.kv_tokens == 2_097_152
    assert any("overrides --kv-cache-memory-bytes" in n for n in p.notes)
    bad = predict("vllm", {"max_model_len": 512}, tiny, None, device="cpu", env={"VLLM_CPU_KVCACHE_SPACE": "0.5"})
    assert bad.will_start is False and "not an integer" in bad.reason


def _write_scenario(tmp_path: Path, model: str) -> Path:
    text = GPU_SCENARIO.read_text().replace("meta-llama/Llama-3.1-8B-Instruct", model)
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_unknown_model_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    assert main(["predict", str(_write_scenario(tmp_path, "nobody/NoSuchModel-3B"))]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: model 'nobody/NoSuchModel-3B'") and "\n" not in err
    assert "Qwen2.5-7B-Instruct" in err and "config.json" in err


def test_bad_overrides_exit_2(capsys):
    assert main(["predict", str(GPU_SCENARIO), "--gpu-memory-mib", "-5"]) == 2
    assert main(["predict", str(GPU_SCENARIO), "--tp", "0"]) == 2
    assert main(["predict", str(GPU_SCENARIO), "--gpu-free-mib", "0"]) == 2
    assert main(["predict", str(GPU_SCENARIO), "--gpu-memory-mib", "24564", "--gpu-free-mib", "30000"]) == 2
    assert "more than the device's 24564 MiB" in capsys.readouterr().err


def test_gpu_free_mib_sizes_the_sglang_pool(capsys):
    card = {p.point_id: p for p in predict_scenario(str(GPU_SCENARIO), gpu_memory_mib=24564).predictions}
    free = predict_scenario(str(GPU_SCENARIO), gpu_memory_mib=24564, gpu_free_mib=23000).predictions
    for p in free:
        assert p.gpu_free_mib == 23000
        if p.engine == "sglang" and p.will_start:
            assert p.mem_fraction_static == card[p.point_id].mem_fraction_static
            assert p.kv_tokens < card[p.point_id].kv_tokens
    assert main(["predict", str(GPU_SCENARIO), "--gpu-memory-mib", "24564", "--gpu-free-mib", "23000",
                 "--json"]) == 0
    assert all(o["gpu_free_mib"] == 23000 for o in json.loads(capsys.readouterr().out))


# ---- calibration ------------------------------------------------------------------------------

CARD_MIB = 24564.0  # a "24 GB" card's real total: the fit must use it, not the scenario's 24 GiB
OTHER_GIB, PER_TOKEN_GIB, SGLANG_OTHER_GIB = 0.9, 0.00012, 0.7


def _row(point, **values) -> dict:
    row = dict.fromkeys(COLUMNS)
    row.update(run_id="r1", scenario=point.scenario, point_id=point.point_id, repeat=0, engine=point.engine,
               engine_version=f"{point.engine_version}+cu", model=point.model, status="ok",
               device_total_mib=CARD_MIB)
    row.update(values)
    return row


def _measured_results(tmp_path: Path) -> tuple[Path, set[str]]:
    """Rows as the engines would log them, for a machine whose hidden overheads we choose."""
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    points = [p for p in expand(load_scenario(GPU_SCENARIO)) if p.repeat == 0]
    rows, measured = [], set()
    vllm = [p for p in points if p.engine == "vllm"]
    for point in vllm[::2]:  # half the vLLM points measured, both max_num_batched_tokens values among them
        exact = predict_point(point, model, CARD_MIB)
        kv = exact.kv_gib_upper_bound - (OTHER_GIB + PER_TOKEN_GIB * exact.max_num_batched_tokens)
        blocks = int(kv * GiB // (2 * 1024 * 1024))
        rows.append(_row(point, kv_gib=round(kv, 2), kv_tokens=blocks * 16, num_blocks=blocks))
        measured.add(point.point_id)
    for point in [p for p in points if p.engine == "sglang"][:4]:
        exact = predict_point(point, model, CARD_MIB)
        if not exact.will_start:
            continue
        tokens = int((exact.kv_gib_upper_bound - SGLANG_OTHER_GIB) * GiB) // exact.kv_bytes_per_token
        if tokens <= 0:
            continue  # that engine would have stopped with G1: no "ok" row
        rows.append(_row(point, kv_tokens=tokens, mem_fraction_static_effective=exact.mem_fraction_static))
        measured.add(point.point_id)
    return write_results(rows, tmp_path / "results.csv"), measured


def test_calibration_recovers_the_hidden_terms(tmp_path):
    csv, measured = _measured_results(tmp_path)
    report = predict_scenario(str(GPU_SCENARIO), calibrate_from=str(csv))
    fits = {f.engine: f for f in report.fits}
    v, s = fits["vllm"], fits["sglang"]
    assert v.device_total_mib == CARD_MIB and v.engine_version == "0.32.0"
    # kv_gib is logged to 0.01 GiB, so the fit is good to about that
    assert math.isclose(v.calibration.other_gib, OTHER_GIB, abs_tol=0.01)
    assert math.isclose(v.calibration.per_axis_gib, PER_TOKEN_GIB, rel_tol=0.05)
    assert math.isclose(s.calibration.other_gib, SGLANG_OTHER_GIB, abs_tol=0.001)
    assert all(abs(r.residual_gib) < 0.01 and abs(r.error_pct) < 0.5 for f in report.fits for r in f.rows)
    # the rest are predicted on the measured card with the fitted terms
    assert measured == report.measured_points
    assert {p.point_id for p in report.predictions}.isdisjoint(measured)
    model = load_model_description("meta-llama/Llama-3.1-8B-Instruct")
    for p in (p for p in report.predictions if p.engine == "vllm"):
        assert p.gpu_total_mib == CARD_MIB
        exact_kv = p.kv_gib_upper_bound - (OTHER_GIB + PER_TOKEN_GIB * p.max_num_batched_tokens)
        assert abs(p.kv_gib - exact_kv) < 0.02
    assert model.kv_bytes_per_token() == 131_072


def test_calibration_cli_prints_terms_and_residuals(tmp_path, capsys):
    csv, _ = _measured_results(tmp_path)
    assert main(["predict", str(GPU_SCENARIO), "--calibrate-from", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "fitted" in out and "RMS residual" in out and "residual on the fitted rows" in out
    assert main(["predict", str(GPU_SCENARIO), "--calibrate-from", str(csv), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {c["engine"] for c in data["calibrations"]} == {"vllm", "sglang"} and data["predictions"]


def test_calibration_without_usable_rows_is_an_input_error(tmp_path, capsys):
    point = expand(load_scenario(GPU_SCENARIO))[0]
    row = _row(point, status="engine_error")
    csv = write_results([row], tmp_path / "results.csv")
    assert main(["predict", str(GPU_SCENARIO), "--calibrate-from", str(csv)]) == 2
    assert "calibration: no row" in capsys.readouterr().err


# ---- weights from the safetensors headers; kinds the KV formula does not size ---------------------------------


def _moe_checkpoint() -> tuple[dict, dict[str, dict[str, tuple[str, tuple[int, ...]]]]]:
    """A two-shard MoE FP8 checkpoint whose expert tensors are larger than huggingface_hub's first 100 kB
    header read, so a headers-only fetch shows in the bytes the hub served."""
    config = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 256,
              "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
              "head_dim": 64, "vocab_size": 512, "num_experts": 4, "num_experts_per_tok": 2,
              "max_position_embeddings": 8192, "torch_dtype": "bfloat16",
              "quantization_config": {"quant_method": "fp8"}}
    shards: dict[str, dict[str, tuple[str, tuple[int, ...]]]] = {}
    for i in range(2):
        p = f"model.layers.{i}."
        shard = {p + "input_layernorm.weight": ("BF16", (256,)), p + "mlp.gate.weight": ("BF16", (4, 256))}
        for e in range(4):
            shard[p + f"mlp.experts.{e}.gate_up_proj.weight"] = ("F8_E4M3", (512, 256))
            shard[p + f"mlp.experts.{e}.gate_up_proj.weight_scale_inv"] = ("F32", (4, 2))
        shards[f"model-0000{i + 1}-of-00002.safetensors"] = shard
    shards["model-00001-of-00002.safetensors"] |= {"model.embed_tokens.weight": ("BF16", (512, 256)),
                                                   "lm_head.weight": ("BF16", (512, 256))}
    return config, shards


def test_a_hub_id_is_predicted_from_its_safetensors_headers_alone(tmp_path):
    config, shards = _moe_checkpoint()
    files = write_checkpoint(tmp_path / "repo", config, shards)
    scenario = _write_scenario(tmp_path, "org/moe")
    with FakeHub({"org/moe": files}) as hub:
        env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0"}
        env.pop("HF_HUB_CACHE", None)
        env.pop("HF_TOKEN", None)
        proc = subprocess.run([sys.executable, "-m", "harness", "predict", str(scenario), "--json"], env=env,
                              cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD_S, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    stored = sum(tensor_bytes(t) for t in shards.values())
    for p in json.loads(proc.stdout):
        assert p["weights_source"].startswith(f"safetensors headers (hub org/moe): "
                                              f"{sum(map(len, shards.values()))} tensors in 2 files, ")
        rope = 8192 * 64 * 2 if p["engine"] == "vllm" else 0  # vLLM's rotary cos/sin cache, built with the model
        assert p["weights_gib"] == round((stored + rope) / GiB, 4)
        assert not [n for n in p["notes"] if n.startswith("weights:")]
    for name in shards:  # each shard's header range, never its tensors
        assert 0 < hub.served[f"org/moe/{name}"] < len(files[name])
    assert hub.served["org/moe/config.json"] == len(files["config.json"])


def test_an_unmodelled_kind_prints_its_line_and_a_local_model_its_weights_source(tmp_path, capsys):
    config, tensors = dense_llama(vocab=128)
    write_checkpoint(tmp_path / "dense", config, {"model.safetensors": tensors})
    assert main(["predict", str(_write_scenario(tmp_path, str(tmp_path / "dense")))]) == 0
    out = capsys.readouterr().out
    assert out.count(f"weights: safetensors headers ({tmp_path / 'dense'}): {len(tensors)} tensors in 1 file") == 2

    mla = {**config, "kv_lora_rank": 512, "qk_rope_head_dim": 64}
    write_checkpoint(tmp_path / "mla", mla, {"model.safetensors": tensors})
    (tmp_path / "mla-scenario").mkdir()
    assert main(["predict", str(_write_scenario(tmp_path / "mla-scenario", str(tmp_path / "mla")))]) == 0
    out = capsys.readouterr().out
    unmodelled = [line for line in out.splitlines() if "multi-head latent attention" in line]
    assert [line.split(":")[0] for line in unmodelled] == ["sglang 0.5.22"]  # vLLM's GPU path sizes MLA
    # SGLang sizes MLA only for the architectures its ModelConfig makes MLA: a Llama with a latent is not one
    assert "under the architecture LlamaForCausalLM, which SGLang 0.5.22 does not size as MLA" in unmodelled[0]
    assert unmodelled[0].endswith("; no numbers")
    assert "vllm 0.32.0: cuda 24576 MiB, tp=1, weights 0.00 GiB/rank, 2,304 B KV per token" in out  # 2 x 576 x 2 B


def test_a_config_only_model_dir_prints_the_weights_its_config_declares(tmp_path, capsys):
    # gpt-oss-20b's public config.json alone (tests/fixtures/predict/checkpoints/SOURCES.md): no safetensors at hand
    fixture = ROOT / "tests" / "fixtures" / "predict" / "checkpoints" / "openai--gpt-oss-20b" / "config.json"
    (tmp_path / "gpt-oss").mkdir()
    (tmp_path / "gpt-oss" / "config.json").write_text(fixture.read_text())
    assert main(["predict", str(_write_scenario(tmp_path, str(tmp_path / "gpt-oss")))]) == 0
    out = capsys.readouterr().out
    line = ("weights: estimated from config.json (32 experts in 24 layers, mxfp4 experts): 12.82 GiB as a checkpoint "
            "stores it; 12.82 GiB as the engine holds it")
    assert out.count(line) == 2  # one per engine
    assert "dense estimate" not in out and "leaves the experts out" not in out


def test_the_cards_compute_capability_decides_vllms_fp8_marlin_scales(tmp_path, capsys):
    # an FP8 block-quantized MoE (gpu-oos5's Qwen3-Coder-30B-A3B-FP8 config) on a 24 GB card: below compute capability
    # 8.9 vLLM holds Marlin's per-channel scales (gpu-oos5/SOURCES.md v15); given by the flag or the scenario's gpu
    fixture = ROOT / "tests" / "fixtures" / "predict" / "gpu-oos5" / "Qwen3-Coder-30B-A3B-Instruct-FP8.json"
    (tmp_path / "fp8").mkdir()
    (tmp_path / "fp8" / "config.json").write_text(fixture.read_text())
    scenario = _write_scenario(tmp_path, str(tmp_path / "fp8"))

    def vllm_weights(**kw) -> set[float]:
        return {round(p.weights_gib, 2) for p in predict_scenario(str(scenario), gpu_memory_mib=81559, **kw).predictions
                if p.engine == "vllm"}
    assert vllm_weights() == vllm_weights(gpu_capability=9.0) == {29.1}
    assert vllm_weights(gpu_capability=8.0) == {29.52}
    with_field = tmp_path / "cap.yaml"
    with_field.write_text(scenario.read_text().replace("gpu: {memory_gib: 24}",
                                                       "gpu: {memory_gib: 24, compute_capability: 8.6}"))
    assert "compute_capability: 8.6" in with_field.read_text()
    assert {round(p.weights_gib, 2) for p in predict_scenario(str(with_field), gpu_memory_mib=81559).predictions
            if p.engine == "vllm"} == {29.52}
    assert main(["predict", str(scenario), "--gpu-capability", "0"]) == 2
    assert "--gpu-capability must be positive" in capsys.readouterr().err


def test_a_hub_id_on_a_host_the_hub_cannot_reach_is_one_line_without_retries(tmp_path):
    # a closed port stands for a host without the Hub: one HEAD fails and predict says so in one line, where
    # hf_hub_download alone would retry the connection five times, each with a "Retrying in" warning
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    scenario = _write_scenario(tmp_path, "org/unreachable")
    env = {**os.environ, "HF_ENDPOINT": closed, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0"}
    env.pop("HF_HUB_CACHE", None)
    proc = subprocess.run([sys.executable, "-m", "harness", "predict", str(scenario)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=HANG_GUARD_S, check=False)
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "the hub did not give its config.json either" in errors[0], proc.stderr[-2000:]
    assert "Retrying in" not in proc.stderr
