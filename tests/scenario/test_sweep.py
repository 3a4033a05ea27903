"""Sweep expansion, point identity and the commands `plan` shows."""

from __future__ import annotations

import json
from pathlib import Path

from harness.cli import main
from harness.engines import get_engine
from harness.scenario import expand, load_scenario, parse_scenario, point_id

REPO = Path(__file__).resolve().parents[2]


def scenario(**engines):
    return parse_scenario({"name": "s", "model": "org/m", "engines": engines})


def test_24g_8b_has_12_vllm_and_15_sglang_points():
    points = expand(load_scenario(REPO / "scenarios/24g_8b.yaml"))
    by_engine = {e: [p for p in points if p.engine == e] for e in ("vllm", "sglang")}
    assert len(by_engine["vllm"]) == 12 and len(by_engine["sglang"]) == 15
    assert len({p.point_id for p in points}) == 27
    vllm_knobs = {(p.knobs["gpu_memory_utilization"], p.knobs["max_num_batched_tokens"]) for p in by_engine["vllm"]}
    assert vllm_knobs == {(u, t) for u in (0.80, 0.85, 0.90, 0.92) for t in (2048, 4096, 8192)}
    # the shared default max_model_len reaches SGLang under its own name
    assert all(p.args["context_length"] == 8192 and "max_model_len" not in p.args for p in by_engine["sglang"])


def test_point_id_ignores_key_order_and_nulls():
    a = point_id("vllm", "m", {"x": 1, "y": 2, "z": None})
    assert a == point_id("vllm", "m", {"y": 2, "x": 1})
    assert a != point_id("sglang", "m", {"x": 1, "y": 2})
    assert a != point_id("vllm", "m2", {"x": 1, "y": 2})
    assert a != point_id("vllm", "m", {"x": 1, "y": 3})
    assert len(a) == 16  # 64 bits: no collision in practice among 10^7 points


def test_point_id_is_stable_across_releases():
    # A changed id orphans every stored result row: this literal is deliberate, computed with
    # `printf %s {"args":{"gpu_memory_utilization":0.9},"engine":"vllm","model":"org/m"} | sha256sum`.
    # sha256 of the canonical JSON identity
    assert point_id("vllm", "org/m", {"gpu_memory_utilization": 0.9}) == "5a80a001e7115ad8"


def test_point_id_covers_fixed_args_not_only_knobs():
    one = scenario(vllm={"sweep": {"gpu_memory_utilization": [0.9]}, "args": {"block_size": 16}})
    two = scenario(vllm={"sweep": {"gpu_memory_utilization": [0.9]}, "args": {"block_size": 32}})
    assert expand(one)[0].point_id != expand(two)[0].point_id


def test_zip_pairs_lists_and_crosses_with_sweep():
    s = scenario(vllm={
        "sweep": {"max_num_batched_tokens": [256, 512]},
        "zip": {"max_model_len": [512, 2048], "kv_cache_memory_bytes": [None, 262144]},
    })
    combos = [(p.knobs["max_num_batched_tokens"], p.knobs["max_model_len"], p.knobs["kv_cache_memory_bytes"])
              for p in expand(s)]
    assert combos == [(256, 512, None), (256, 2048, 262144), (512, 512, None), (512, 2048, 262144)]


def test_repeats_share_the_point_id():
    s = parse_scenario({"name": "s", "model": "m", "engines": {"sglang": {"sweep": {"mem_fraction_static": [0.7]}}},
                        "run": {"repeats": 3}})
    points = expand(s)
    assert [p.repeat for p in points] == [0, 1, 2]
    assert len({p.point_id for p in points}) == 1


def test_flags_render_kebab_case_bools_bare_and_nulls_dropped():
    argv = get_engine("vllm").render_flags({"enforce_eager": True, "disable_cuda_graph": False, "max_model_len": 512,
                         "mem_fraction_static": None, "cudagraph_capture_sizes": [1, 2],
                         "compilation_config": {"level": 0}, "--verbatim-flag": "x"})
    assert argv == ["--verbatim-flag", "x", "--compilation-config", '{"level":0}', "--cudagraph-capture-sizes", "1",
                    "2", "--enforce-eager", "--max-model-len", "512"]


def test_plan_json_gives_exact_commands(tmp_path, capsys):
    python = tmp_path / "venv/bin/python"
    path = tmp_path / "s.yaml"
    path.write_text(f"""
name: s
model: org/m
engines:
  vllm: {{python: {python}, sweep: {{gpu_memory_utilization: [0.9]}}, env: {{VLLM_X: 1}}}}
  sglang: {{python: {python}, sweep: {{mem_fraction_static: [null]}}, args: {{disable_cuda_graph: true}}}}
""")
    assert main(["plan", str(path), "--json"]) == 0
    vllm, sglang = json.loads(capsys.readouterr().out)
    assert vllm["argv"] == [str(tmp_path / "venv/bin/vllm"), "serve", "org/m", "--host", "127.0.0.1", "--port", "$PORT",
                            "--gpu-memory-utilization", "0.9"]
    assert vllm["env"] == {"VLLM_X": "1"}
    assert sglang["argv"] == [str(python), "-m", "sglang.launch_server", "--model-path", "org/m", "--host", "127.0.0.1",
                              "--port", "$PORT", "--disable-cuda-graph"]
    assert sglang["knobs"] == {"mem_fraction_static": None}


def test_plan_table_lists_every_point(capsys):
    assert main(["plan", str(REPO / "scenarios/24g_8b.yaml")]) == 0
    out = capsys.readouterr().out
    points = expand(load_scenario(REPO / "scenarios/24g_8b.yaml"))
    assert all(p.point_id in out for p in points)
    assert "27 points" in out


def test_help_on_every_subcommand(capsys):
    from harness.cli import build_parser

    parser = build_parser()
    subcommands = parser._subparsers._group_actions[0].choices
    assert {"plan", "validate"} <= set(subcommands)
    for name, sub in subcommands.items():
        assert f"python -m harness {name} " in (sub.epilog or ""), f"{name}: --help shows no example"
