"""Scenario validation: every bad-input case gives its exact one-line message."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.scenario import ScenarioError, load_scenario

REPO = Path(__file__).resolve().parents[2]

VALID = """
name: t
model: org/model
gpu: {memory_gib: 24}
defaults: {max_model_len: 4096}
engines:
  vllm:
    version: "0.32.0"
    sweep:
      gpu_memory_utilization: [0.8, 0.9]
      max_num_batched_tokens: [2048]
  sglang:
    version: "0.5.22"
    sweep:
      mem_fraction_static: [null, 0.7]
run: {timeout_s: 60, stop_after: kv, repeats: 1}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    return str(info.value).splitlines()


def test_valid_scenario_loads(tmp_path):
    scenario = load_scenario(write(tmp_path, VALID))
    assert scenario.name == "t"
    assert scenario.engines["vllm"].sweep["gpu_memory_utilization"] == [0.8, 0.9]
    assert scenario.run.stop_after == "kv"


def test_fraction_out_of_range(tmp_path):
    path = write(tmp_path, VALID.replace("[0.8, 0.9]", "[0.8, 0.9, 1.5]"))
    assert problems_of(path) == [f"{path}: engines.vllm.sweep.gpu_memory_utilization[2]: must be in (0, 1], got 1.5"]


def test_fraction_zero_and_token_count_not_positive(tmp_path):
    path = write(tmp_path, VALID.replace("[0.8, 0.9]", "[0]").replace("[2048]", "[2048, -5]"))
    assert problems_of(path) == [
        f"{path}: engines.vllm.sweep.gpu_memory_utilization[0]: must be in (0, 1], got 0",
        f"{path}: engines.vllm.sweep.max_num_batched_tokens[1]: must be a positive integer, got -5",
    ]


def test_token_count_must_be_int(tmp_path):
    path = write(tmp_path, VALID.replace("[2048]", "[2048.5]"))
    assert problems_of(path) == [
        f"{path}: engines.vllm.sweep.max_num_batched_tokens[0]: must be a positive integer, got 2048.5"
    ]


def test_missing_file(tmp_path):
    path = tmp_path / "nope.yaml"
    assert problems_of(path) == [f"{path}: no such file"]


def test_yaml_syntax_error_names_line(tmp_path):
    path = write(tmp_path, "name: t\nmodel: [unclosed\nengines: {}\n")
    (line,) = problems_of(path)
    assert line.startswith(f"{path}: line 3, column 8: YAML syntax error: ")


def test_unknown_top_level_key_suggests_nearest(tmp_path):
    path = write(tmp_path, VALID.replace("run:", "runn:"))
    assert problems_of(path) == [
        f"{path}: runn: unknown key; did you mean 'run'? (valid: name, model, gpu, defaults, engines, run)"
    ]


def test_unknown_nested_key_suggests_nearest(tmp_path):
    path = write(tmp_path, VALID.replace('version: "0.5.22"', 'versoin: "0.5.22"'))
    (line,) = problems_of(path)
    assert line.startswith(f"{path}: engines.sglang.versoin: unknown key; did you mean 'version'?")


def test_unknown_flag_suggests_nearest(tmp_path):
    path = write(tmp_path, VALID.replace("max_num_batched_tokens:", "max_num_batched_tokenz:"))
    (line,) = problems_of(path)
    assert line.startswith(
        f"{path}: engines.vllm.sweep.max_num_batched_tokenz: unknown vllm 0.32.0 flag; "
        "did you mean 'max_num_batched_tokens'?"
    )


def test_wrong_type(tmp_path):
    path = write(tmp_path, VALID.replace("timeout_s: 60", "timeout_s: soon"))
    assert problems_of(path) == [
        f"{path}: run.timeout_s: Input should be a valid number, unable to parse string as a number, got 'soon'"
    ]


def test_sweep_must_be_a_list(tmp_path):
    path = write(tmp_path, VALID.replace("[2048]", "2048"))
    assert problems_of(path) == [
        f"{path}: engines.vllm.sweep.max_num_batched_tokens: Input should be a valid list, got 2048"
    ]


def test_bad_stop_after(tmp_path):
    path = write(tmp_path, VALID.replace("stop_after: kv", "stop_after: never"))
    assert problems_of(path) == [f"{path}: run.stop_after: Input should be 'kv', 'ready' or 'probe', got 'never'"]


def test_empty_sweep_list(tmp_path):
    path = write(tmp_path, VALID.replace("[null, 0.7]", "[]"))
    assert problems_of(path) == [
        f"{path}: engines.sglang.sweep.mem_fraction_static: empty list: give at least one value (null = engine default)"
    ]


def test_knob_for_the_wrong_engine(tmp_path):
    path = write(tmp_path, VALID.replace("gpu_memory_utilization: [0.8, 0.9]", "mem_fraction_static: [0.8]"))
    assert problems_of(path) == [f"{path}: engines.vllm.sweep.mem_fraction_static: is a sglang flag, not a vllm flag"]


def test_wrong_engine_in_args_and_defaults(tmp_path):
    text = VALID.replace("defaults: {max_model_len: 4096}",
                         "defaults: {max_model_len: 4096, chunked_prefill_size: 512}")
    path = write(tmp_path, text)
    assert problems_of(path) == [f"{path}: defaults.chunked_prefill_size: is a sglang flag, not a vllm flag"]


def test_unknown_engine(tmp_path):
    path = write(tmp_path, VALID.replace("  sglang:", "  sglnag:"))
    (line,) = problems_of(path)
    assert line == f"{path}: engines.sglnag: unknown engine; did you mean 'sglang'? (known: vllm, sglang)"


def test_harness_owned_flag(tmp_path):
    path = write(tmp_path, VALID.replace("      max_num_batched_tokens: [2048]", "      port: [8000]"))
    assert problems_of(path) == [f"{path}: engines.vllm.sweep.port: is set by the harness; remove it"]


def test_duplicate_points(tmp_path):
    path = write(tmp_path, VALID.replace("[0.8, 0.9]", "[0.8, 0.80]"))
    (line,) = problems_of(path)
    assert line.startswith(f"{path}: engines.vllm: duplicate point "
                           "{gpu_memory_utilization=0.8, max_num_batched_tokens=2048} appears 2 times")


def test_null_and_absent_are_the_same_point(tmp_path):
    # null = "do not pass"; a sweep of [null] next to the same fixed args is one launch twice.
    text = VALID.replace("mem_fraction_static: [null, 0.7]",
                         "mem_fraction_static: [null]\n    zip: {chunked_prefill_size: [null, null]}")
    path = write(tmp_path, text)
    (line,) = problems_of(path)
    assert "engines.sglang: duplicate point" in line and "appears 2 times" in line


def test_zip_lists_must_match(tmp_path):
    text = VALID.replace("mem_fraction_static: [null, 0.7]",
                         "mem_fraction_static: [null, 0.7]\n"
                         "    zip: {chunked_prefill_size: [1024, 2048], max_prefill_tokens: [4096]}")
    path = write(tmp_path, text)
    assert problems_of(path) == [
        f"{path}: engines.sglang.zip[0]: zipped lists differ in length (chunked_prefill_size=2, max_prefill_tokens=1)"
    ]


def test_not_a_mapping(tmp_path):
    path = write(tmp_path, "- just\n- a list\n")
    assert problems_of(path) == [f"{path}: must be a YAML mapping with name, model, engines; got list"]


def test_all_problems_reported_together(tmp_path):
    text = VALID.replace("[0.8, 0.9]", "[1.5]").replace("[null, 0.7]", "[]")
    path = write(tmp_path, text)
    assert len(problems_of(path)) == 2


def test_validate_cli_exit_codes(tmp_path, capsys):
    good = write(tmp_path, VALID, "good.yaml")
    bad = write(tmp_path, VALID.replace("[0.8, 0.9]", "[2]"), "bad.yaml")
    assert main(["validate", str(good)]) == 0
    assert main(["validate", str(good), str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}: engines.vllm.sweep.gpu_memory_utilization[0]: must be in (0, 1], got 2" in err
    assert "Traceback" not in err


def test_shipped_scenarios_are_valid():
    assert main(["validate", *map(str, sorted((REPO / "scenarios").glob("*.yaml")))]) == 0


def test_plan_on_broken_scenario_is_one_line_exit_2(tmp_path, capsys):
    bad = write(tmp_path, VALID.replace("[0.8, 0.9]", "[2]"))
    assert main(["plan", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: {bad}: engines.vllm.sweep.gpu_memory_utilization[0]: must be in (0, 1], got 2"]


def test_any_real_flag_of_the_engine_version_is_accepted(tmp_path):
    # enable_sleep_mode is not one of the harness's curated flags, but vLLM 0.32.0's CLI has it.
    path = write(tmp_path, VALID.replace("      max_num_batched_tokens: [2048]",
                                         "      max_num_batched_tokens: [2048]\n    args: {enable_sleep_mode: true}"))
    assert load_scenario(path).engines["vllm"].args == {"enable_sleep_mode": True}


def test_flag_of_another_engine_version_list_is_named_with_the_version(tmp_path):
    path = write(tmp_path, VALID.replace("      max_num_batched_tokens: [2048]",
                                         "      max_num_batched_tokens: [2048]\n    args: {enable_sleep_mod: true}"))
    (line,) = problems_of(path)
    assert line.startswith(f"{path}: engines.vllm.args.enable_sleep_mod: unknown vllm 0.32.0 flag; "
                           "did you mean 'enable_sleep_mode'?")
