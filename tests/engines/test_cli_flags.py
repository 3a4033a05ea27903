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


def test_unbundled_version_falls_back_to_the_nearest_older_list():
    vllm = get_engine("vllm")
    newest, oldest = vllm.flag_releases()[-1], vllm.flag_releases()[0]
    version, flags = vllm.bundled_flags("9.9.9")
    assert version == newest and "gpu_memory_utilization" in flags
    assert vllm.bundled_flags("0.32.5")[0] == "0.32.0"
    assert vllm.bundled_flags("0.1.0")[0] == oldest


def test_upgrade_releases_are_bundled():
    assert {"0.31.0", "0.32.0", "0.33.0", "0.34.0"} <= set(get_engine("vllm").flag_releases())
    assert {"0.5.21", "0.5.22", "0.5.23"} <= set(get_engine("sglang").flag_releases())


def test_sglang_flag_lists_of_the_recorded_history_releases():
    sglang = get_engine("sglang")
    assert {f"0.5.{n}" for n in range(1, 13)} <= set(sglang.flag_releases())
    flags = {release: sglang.bundled_flags(release)[1] for release in ("0.5.2", "0.5.3", "0.5.12", "0.5.21")}
    # each list is the release's own: n-gram drafting arrives in 0.5.3, cuda_graph_max_bs is gone by 0.5.21
    assert "speculative_ngram_capacity" in flags["0.5.3"] and "speculative_ngram_capacity" not in flags["0.5.2"]
    assert "cuda_graph_max_bs" in flags["0.5.12"] and "cuda_graph_max_bs" not in flags["0.5.21"]
    assert all({"mem_fraction_static", "chunked_prefill_size", "max_total_tokens", "context_length"} <= f
               for f in flags.values())
    assert sglang.bundled_flags("0.5.13")[0] == "0.5.12"  # not bundled: the nearest older list, said by validate


def test_renamed_negations_of_0_33_0():
    flags = get_engine("vllm").bundled_flags("0.33.0")[1]
    assert "disable_prefix_caching" in flags and "no_enable_prefix_caching" not in flags
    assert "no_enable_prefix_caching" in get_engine("vllm").bundled_flags("0.32.0")[1]


def test_vllm_0_34_0_adds_seven_options_three_negations_and_drops_none():
    # read from the 0.34.0 wheel's --help (vllm/engine/arg_utils.py: the extensible KV cache :1412-1415, the
    # scheduler's cache-aware admission and in-flight KV loads, checkpoint preparation, shuffled safetensors loading,
    # the headless client's handshake address)
    old, new = (get_engine("vllm").bundled_flags(r)[1] for r in ("0.33.0", "0.34.0"))
    assert old - new == set()
    assert new - old == {"enable_extensible_kv_cache", "disable_extensible_kv_cache", "cache_aware_admission_window",
                         "cache_aware_admission_threshold", "max_num_inflight_kv_loads",
                         "checkpoint_prepare_on_startup", "no_checkpoint_prepare_on_startup",
                         "shuffle_safetensors_files", "no_shuffle_safetensors_files",
                         "headless_client_handshake_address"}


def test_sglang_0_5_23_dropped_a_flag_0_5_22_had(tmp_path):
    sglang = get_engine("sglang")
    assert "speculative_skip_dp_mlp_sync" in sglang.bundled_flags("0.5.22")[1]
    assert "speculative_skip_dp_mlp_sync" not in sglang.bundled_flags("0.5.23")[1]


@pytest.mark.engine
def test_bundled_lists_match_the_installed_engines(vllm_env, sglang_env):
    # Each engine's server CLI runs to its --help from the env's interpreter (for SGLang: with the stub
    # libcuda on the env's library path) and lists every option, the memory knobs among them.
    knobs = {"vllm": {"gpu_memory_utilization", "max_num_batched_tokens"},
             "sglang": {"mem_fraction_static", "max_total_tokens", "chunked_prefill_size"}}
    for env in (vllm_env, sglang_env):
        flags = read_engine_flags(env.engine, str(env.python), env.env_vars)
        assert flags == get_engine(env.engine).bundled_flags(env.engine_version)[1]
        assert knobs[env.engine] <= flags
