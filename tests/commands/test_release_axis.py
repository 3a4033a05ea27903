"""The release as a sweep axis: the same points on two stand-in releases, one CSV, per-release plot,
compare --by-release."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.envs.model import write_marker
from harness.results.io import read_results
from harness.scenario import expand, load_scenario_with_releases
from tests.support.fake_env import OK_LOG, make_fake_env

OLD, NEW = "0.31.0", "0.32.0"
# The recorded 0.32.0 log says 4,194,304 tokens; the stand-in older release says half.
OK_TOKENS, OLD_TOKENS = "4,194,304 tokens", "2,097,152 tokens"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    monkeypatch.setenv("KV_HARNESS_OFFLINE", "1")  # stand-in releases: never ask the package index


def _release_env(tmp_path, version: str, log) -> None:
    env_dir = tmp_path / "cache" / "envs" / f"vllm-{version}-cpu"
    make_fake_env(env_dir, {1: ["--log", str(log)], 2: ["--log", str(log)]}, version=version)
    write_marker(env_dir, {"engine": "vllm", "requested_version": version, "cpu": True,
                           "package": f"vllm=={version}", "engine_version": version,
                           "torch_version": "2.0.0+standin", "workarounds": [], "install_seconds": 12.5,
                           "size_bytes": 3 << 30})


def _scenario(tmp_path, versions: str) -> str:
    path = tmp_path / "axis.yaml"
    path.write_text(f"""
name: axis
model: {{builtin: tiny-llama}}
engines:
  vllm:
    version: {versions}
    env: {{VLLM_CPU_KVCACHE_SPACE: 2}}
    sweep:
      max_num_batched_tokens: [1, 2]
run: {{timeout_s: 20, stop_after: ready}}
""")
    return str(path)


def _stand_in_releases(tmp_path) -> None:
    text = OK_LOG.read_text()
    assert OK_TOKENS in text
    old_log = tmp_path / "old.log"
    old_log.write_text(text.replace(OK_TOKENS, OLD_TOKENS).replace(NEW, OLD))
    _release_env(tmp_path, OLD, old_log)
    _release_env(tmp_path, NEW, OK_LOG)


def test_a_version_list_expands_each_point_once_per_release_with_one_point_id(tmp_path):
    scenario = load_scenario_with_releases(_scenario(tmp_path, f'["{OLD}", "{NEW}"]'))
    points = expand(scenario)
    assert [p.engine_version for p in points] == [OLD, OLD, NEW, NEW]
    assert [p.point_id for p in points[:2]] == [p.point_id for p in points[2:]]
    assert len({p.name for p in points}) == 4  # logs of one point on two releases do not overwrite each other


def test_release_axis_sweep_one_csv_plot_and_compare_by_release(tmp_path, capsys):
    _stand_in_releases(tmp_path)
    scenario = _scenario(tmp_path, f"{OLD}")
    out = tmp_path / "run"
    assert main(["run", scenario, "--engine-version", f"vllm=={OLD},{NEW}", "--out", str(out)]) == 0
    frame = read_results(out / "results.csv")
    assert sorted(frame["engine_version"]) == [OLD, OLD, NEW, NEW]
    by_release = frame.groupby("engine_version")["kv_tokens"].apply(sorted).to_dict()
    assert by_release == {OLD: [2_097_152, 2_097_152], NEW: [4_194_304, 4_194_304]}
    assert frame.groupby("point_id")["engine_version"].nunique().eq(2).all()  # same ids on both releases
    assert len(list((out / "logs").glob("*.log"))) == 4

    # resume finds every (point, release, repeat) done
    capsys.readouterr()
    assert main(["run", scenario, "--engine-version", f"vllm=={OLD},{NEW}", "--resume", str(out)]) == 0
    assert "resumed: 4 points already had a row" in capsys.readouterr().err

    capsys.readouterr()
    assert main(["report", str(out / "results.csv"), "--out", str(tmp_path / "report")]) == 0
    plot = tmp_path / "report" / "kv_tokens_vs_release_vllm.png"
    assert plot.is_file() and (tmp_path / "report" / "t_kv_s_vs_release_vllm.png").is_file()
    from harness.analysis.report import make_report

    report = make_report([frame], ["results.csv"], tmp_path / "report2")
    drawn = next(p for p in report.plots if p.name == "kv_tokens_vs_release_vllm")
    assert sorted(tuple(s.y) for s in drawn.series) == [(2_097_152.0, 4_194_304.0)] * 2
    assert list(drawn.categories[drawn.series[0].axes]["x"].values()) == [OLD, NEW]

    capsys.readouterr()
    code = main(["compare", "--by-release", str(out / "results.csv")])
    text = capsys.readouterr().out
    assert code == 1, text
    for pid in frame["point_id"].unique():
        assert pid in text
    assert f"vllm {OLD} -> {NEW}" in text


def test_compare_by_release_of_one_release_is_bad_input(tmp_path, capsys):
    _stand_in_releases(tmp_path)
    out = tmp_path / "one"
    assert main(["run", _scenario(tmp_path, f'"{NEW}"'), "--out", str(out)]) == 0
    assert main(["compare", "--by-release", str(out / "results.csv")]) == 2
    assert "needs an engine with two releases" in capsys.readouterr().err


def test_remove_after_deletes_the_envs_this_run_installed_and_keeps_the_others(tmp_path, monkeypatch, capsys):
    import harness.envs
    import harness.execute.run

    _stand_in_releases(tmp_path)
    old_env = tmp_path / "cache" / "envs" / f"vllm-{OLD}-cpu"
    parked = tmp_path / "parked"
    old_env.rename(parked)  # OLD is missing: the run installs it just before its points
    installed = []

    def install_env(engine, version, *args, **kwargs):
        installed.append((engine, version))
        parked.rename(old_env)
        return harness.envs.resolve_env(engine, version)

    monkeypatch.setattr(harness.execute.run, "install_env", install_env)  # where the run looks it up
    out = tmp_path / "run"
    assert main(["run", _scenario(tmp_path, f'["{OLD}", "{NEW}"]'), "--out", str(out),
                 "--install-missing", "--remove-after"]) == 0
    assert installed == [("vllm", OLD)]
    assert len(read_results(out / "results.csv")) == 4
    # run.json keeps what each release's install took, also for the env that is gone now
    releases = json.loads((out / "run.json").read_text())["engines"]["vllm"]["releases"]
    assert {v: (r["install_seconds"], r["size_bytes"]) for v, r in releases.items()} == {
        OLD: (12.5, 3 << 30), NEW: (12.5, 3 << 30)}
    assert not old_env.exists()  # installed by this run: removed after its points
    assert (tmp_path / "cache" / "envs" / f"vllm-{NEW}-cpu").is_dir()  # was there before: kept
    assert f"removed the vllm {OLD} environment" in capsys.readouterr().err


def test_engine_version_list_spelling():
    from harness.commands.common_args import engine_versions
    from harness.errors import InputError

    assert engine_versions([f"vllm=={OLD},{NEW}", "sglang==0.5.22"]) == {"vllm": [OLD, NEW], "sglang": "0.5.22"}
    with pytest.raises(InputError):
        engine_versions([f"vllm=={OLD},{OLD}"])


def test_release_list_is_checked(tmp_path, capsys):
    for version, expected in (("[]", "empty list: name at least one release"),
                              (f'["{OLD}", "{OLD}"]', f"release {OLD} is listed twice")):
        assert main(["validate", _scenario(tmp_path, version)]) == 1
        assert expected in capsys.readouterr().err
    path = tmp_path / "py.yaml"
    path.write_text(Path(_scenario(tmp_path, f'["{OLD}", "{NEW}"]')).read_text().replace(
        "    env:", "    python: /usr/bin/python3\n    env:"))
    assert main(["validate", str(path)]) == 1
    assert "engines.vllm.python: a release axis" in capsys.readouterr().err


def test_baseline_of_a_release_axis_run_is_its_newest_release(tmp_path, capsys):
    _stand_in_releases(tmp_path)
    one = tmp_path / "one"
    assert main(["run", _scenario(tmp_path, f'"{NEW}"'), "--out", str(one)]) == 0
    capsys.readouterr()
    axis = tmp_path / "axis"
    code = main(["run", _scenario(tmp_path, f'["{OLD}", "{NEW}"]'), "--out", str(axis),
                 "--baseline", str(one / "results.csv"), "--threshold", "kv_tokens:0%"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "baseline: compared with this run's newest release of each engine" in out
    # two files, one of them with several releases: pointed to --by-release
    assert main(["compare", str(one / "results.csv"), str(axis / "results.csv")]) == 2
    assert f"compare --by-release {axis / 'results.csv'}" in capsys.readouterr().err


def test_report_engines_keeps_only_their_rows(tmp_path, capsys):
    from harness.commands.report import report_files
    from harness.errors import InputError

    base = "results/cpu_tiny/baseline-vllm0.32.0-sglang0.5.22/results.csv"
    report = report_files([base, base], str(tmp_path / "r"), engines=["sglang"])
    assert report.comparison is not None and {p.engine for p in report.comparison.points} == {"sglang"}
    assert "only in base" not in report.markdown
    with pytest.raises(InputError, match="no rows of that engine"):
        report_files([base], str(tmp_path / "r2"), engines=["nosuch"])


def test_each_release_of_the_axis_checks_the_flags(tmp_path, capsys):
    # 0.33.0 spells the negation --disable-dbo; 0.32.0 only --no-enable-dbo: the list is checked per release.
    path = tmp_path / "per_release.yaml"
    path.write_text("name: r\nmodel: {builtin: tiny-llama}\nengines:\n  vllm:\n"
                    "    version: [\"0.32.0\", \"0.33.0\"]\n    args: {disable_dbo: true}\n")
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert "engines.vllm.args.disable_dbo: unknown vllm 0.32.0 flag; vllm 0.32.0 spells it 'no_enable_dbo'" in err
    assert "0.33.0 flag" not in err
    path.write_text(path.read_text().replace('["0.32.0", "0.33.0"]', '"0.33.0"'))
    assert main(["validate", str(path)]) == 0


def test_run_summary_names_the_release(tmp_path, capsys):
    _stand_in_releases(tmp_path)
    assert main(["run", _scenario(tmp_path, f'["{OLD}", "{NEW}"]'), "--out", str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    assert "release" in out and OLD in out and NEW in out


def test_points_at_a_release_select_that_releases_point_only(tmp_path, capsys):
    from harness.execute.run import selected_points

    path = _scenario(tmp_path, f'["{OLD}", "{NEW}"]')
    _, points, _ = selected_points(path)
    pid = points[0].point_id
    _, chosen, _ = selected_points(path, ids=[f"{pid}@{NEW}"])
    assert [(p.point_id, p.engine_version) for p in chosen] == [(pid, NEW)]
    _, both, _ = selected_points(path, ids=[pid])
    assert sorted(p.engine_version for p in both) == [OLD, NEW]
    assert main(["run", path, "--dry-run", "--points", f"{pid}@0.1.0"]) == 2
    assert f"--points: unknown point id {pid}@0.1.0" in capsys.readouterr().err
