"""The engines' real CLI flags: parsed from --help, bundled per version, used by validate."""

from __future__ import annotations

import argparse

import pytest

from harness.engines import get_engine
from harness.engines.cli_flags import parse_help
from harness.envs.flags import read_engine_flags

TARGETS = {"vllm": "0.32.0", "sglang": "0.5.22"}


def test_parse_help_reads_every_long_option_of_a_real_argparse_help():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-path", "--model", dest="model_path")
    parser.add_argument("--mem-fraction-static", type=float, help="a description  with  double spaces")
    parser.add_argument("--enable-x", action=argparse.BooleanOptionalAction)
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.add_argument("--choice", choices=["a", "b"])
    assert parse_help(parser.format_help()) == {"model_path", "model", "mem_fraction_static", "enable_x",
                                                "no_enable_x", "quiet", "choice"}


@pytest.mark.parametrize("engine", sorted(TARGETS))
def test_the_adapters_curated_flags_exist_in_the_real_cli(engine):
    # A curated name the engine does not have would let a typo pass validate.
    version, real = get_engine(engine).bundled_flags(TARGETS[engine])
    assert version == TARGETS[engine] and len(real) > 300
    assert sorted(get_engine(engine).curated_flags - real) == []


def test_unbundled_version_falls_back_to_the_newest_list():
    version, flags = get_engine("vllm").bundled_flags("9.9.9")
    assert version == "0.32.0" and "gpu_memory_utilization" in flags


@pytest.mark.engine
def test_bundled_lists_match_the_installed_engines(vllm_env, sglang_env):
    for env in (vllm_env, sglang_env):
        flags = read_engine_flags(env.engine, str(env.python), env.env_vars)
        assert flags == get_engine(env.engine).bundled_flags(env.engine_version)[1]
