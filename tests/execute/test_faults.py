"""Fault battery: signals during stops, killed harnesses, damaged files, hostile input, each bounded in time."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from harness.cli import main
from harness.errors import InputError
from harness.execute.run import RunOptions, lock_run_dir, new_run_id, run_scenario
from harness.results.columns import RESULTS_FORMAT_VERSION
from harness.results.io import FORMAT_LINE, read_results
from harness.scenario import ScenarioError, expand, load_scenario, parse_scenario
from tests.support.fake_env import OK_LOG, make_fake_env, scenario_yaml
from tests.support.guards import HANG_GUARD_S
from tests.support.launching import leftovers

REPO = Path(__file__).resolve().parents[2]
COMMITTED = sorted((REPO / "results").rglob("results.csv"))


@pytest.fixture(autouse=True)
def models_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("KV_HARNESS_MODELS_DIR", str(tmp_path / "models"))


def _env(tmp_path):
    return {**os.environ, "KV_HARNESS_MODELS_DIR": str(tmp_path / "models")}


def _setup(tmp_path, behaviours, timeout_s=20):
    python = make_fake_env(tmp_path / "env", behaviours)
    scenario = tmp_path / "s.yaml"
    scenario.write_text(scenario_yaml(python, list(behaviours), timeout_s=timeout_s))
    return python, scenario


def _wait_for(predicate, proc: subprocess.Popen | None = None):
    """Whether `predicate` came true: waited for until a hang guard, or until `proc` (the harness run whose progress
    it is) exited without it. How long a busy host takes to get there is not what these tests judge (a fresh-clone CI
    beside three test runs and two engine installs: the harness's engine forked its child after more than 30 s)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc is not None and proc.poll() is not None:
            return predicate()
        time.sleep(0.1)
    return False


def _kv_logged(run_dir: Path) -> bool:
    return any("KV cache size" in p.read_text(errors="replace") for p in (run_dir / "logs").glob("*.log")) \
        if (run_dir / "logs").is_dir() else False


# 1. A signal while an engine that ignores SIGTERM is being stopped: the stop completes
#    (SIGTERM, grace, SIGKILL), the measured row is written, then the harness exits.
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_the_stop_keeps_the_row_and_leaves_nothing(tmp_path, sig):
    records = tmp_path / "records"
    records.mkdir()
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG), "--ignore-sigterm", "--record-env", str(records)]})
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(run_dir),
                             "--stop-after", "kv"], cwd=REPO, env=_env(tmp_path), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: _kv_logged(run_dir), proc=proc)
    time.sleep(0.5)  # the stop has begun: SIGTERM sent, ignored, grace running
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 130, err
    frame = read_results(run_dir / "results.csv")
    assert frame["status"].tolist() == ["ok"] and frame["kv_tokens"].tolist() == [4_194_304]
    assert leftovers(str(tmp_path)) == []
    assert f"--resume {run_dir}" in err and not err.startswith("\n")
    assert not (run_dir / "work").exists()
    # nor the point's short TMPDIR (/tmp/kvh-<point>-*, as the engine was given it): the interrupt ends the
    # point, not its tidying up
    (record,) = [json.loads(p.read_text()) for p in records.glob("*.json")]
    assert record["TMPDIR"].startswith("/tmp/kvh-") and not Path(record["TMPDIR"]).exists()


# 2. The harness killed outright: the engine's supervisor kills its whole session,
#    an engine ignoring SIGTERM and its grandchild included.
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGHUP])
def test_harness_killed_takes_the_whole_engine_session_with_it(tmp_path, sig):
    pidfile = tmp_path / "grandchild.pid"
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG), "--hang", "--ignore-sigterm",
                                        "--fork-child", str(pidfile)]}, timeout_s=300)
    run_dir = tmp_path / "run"
    proc = subprocess.Popen([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(run_dir)],
                            cwd=REPO, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # the grandchild's pidfile and the harness's record of the group are two processes' writes, in either order (a
    # busy-host CI: the pidfile came first, the harness starved); both come while the engine runs
    assert _wait_for(pidfile.exists, proc=proc)
    recorded = run_dir / "procs"
    assert _wait_for(lambda: recorded.is_dir() and any(recorded.iterdir()), proc=proc), "the live group is recorded"
    proc.send_signal(sig)
    proc.wait(timeout=HANG_GUARD_S)
    assert _wait_for(lambda: leftovers(str(tmp_path)) == []), leftovers(str(tmp_path))


def test_leftover_groups_recorded_in_the_run_folder_are_reaped(tmp_path):
    from harness.execute.procs import process_start_ticks, reap_recorded_groups

    orphan = subprocess.Popen(["sleep", "300"], start_new_session=True)
    groups = tmp_path / "procs"
    groups.mkdir()
    (groups / str(orphan.pid)).write_text(f"{orphan.pid} {process_start_ticks(orphan.pid)}\n")
    reaped = reap_recorded_groups(groups, grace_s=2)
    orphan.wait(timeout=5)
    assert reaped == [f"{orphan.pid} (sleep)"] and not list(groups.iterdir())


# 3. Resume of a results.csv cut mid-row: the cut row runs again, a backup is kept.
def test_resume_repairs_a_row_cut_short(tmp_path):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)], 2: ["--log", str(OK_LOG)]})
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir, stop_after="kv"))
    csv = run_dir / "results.csv"
    csv.write_text(csv.read_text()[:-40])
    result = run_scenario(scenario, RunOptions(resume=run_dir))
    frame = read_results(csv)
    assert len(frame) == 2 and set(frame["status"]) == {"ok"} and result.skipped == 1
    assert any("cut short" in n for n in result.notes) and list(run_dir.glob("results.csv.*.bak"))


def test_resume_refuses_a_garbage_row_and_a_damaged_run_json_as_bad_input(tmp_path, capsys):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)]})
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir, stop_after="kv"))
    csv = run_dir / "results.csv"
    good = csv.read_text()
    csv.write_text(good.replace(",ok,", ",exploded,"))
    assert main(["run", str(scenario), "--resume", str(run_dir)]) == 2
    assert "status 'exploded' is not one of" in capsys.readouterr().err
    csv.write_text(good)
    (run_dir / "run.json").write_text((run_dir / "run.json").read_text()[:50])
    assert main(["run", str(scenario), "--resume", str(run_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {run_dir / 'run.json'}: damaged run.json") and err.count("\n") == 1


# 4. Two runs in one folder; run ids within one second.
def test_a_run_folder_is_locked_and_run_ids_are_unique(tmp_path):
    fd = lock_run_dir(tmp_path)
    try:
        with pytest.raises(InputError, match=f"another run is using this folder \\(pid {os.getpid()}\\)"):
            lock_run_dir(tmp_path)
    finally:
        os.close(fd)
    os.close(lock_run_dir(tmp_path))  # free again once the holder is done
    assert len({new_run_id() for _ in range(200)}) == 200


def test_second_concurrent_run_into_one_folder_is_refused(tmp_path):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG), "--hang"]}, timeout_s=300)
    run_dir = tmp_path / "run"
    first = subprocess.Popen([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(run_dir)],
                             cwd=REPO, env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _wait_for((run_dir / "run.json").exists, proc=first)
        second = subprocess.run([sys.executable, "-m", "harness", "run", str(scenario), "--out", str(run_dir)],
                                check=False, cwd=REPO, env=_env(tmp_path), capture_output=True, text=True,
                                timeout=HANG_GUARD_S)
        assert second.returncode == 2 and "another run is using this folder" in second.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(timeout=HANG_GUARD_S)


# 5. Harness-owned flags in every spelling.
@pytest.mark.parametrize("key", ["--host", "host", "--host=0.0.0.0", "--port", "port"])
def test_harness_owned_flags_are_refused_in_every_spelling(key):
    with pytest.raises(ScenarioError, match="is set by the harness"):
        parse_scenario({"name": "s", "model": "m",
                        "engines": {"vllm": {"version": "0.32.0", "args": {key: "0.0.0.0"}}}})


# 6. A local model path that does not exist.
def test_missing_local_model_path_is_refused_before_launching(tmp_path):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)]})
    scenario.write_text(scenario.read_text().replace("model: {builtin: tiny-llama}", f"model: {tmp_path}/no-model"))
    with pytest.raises(InputError, match="no-model: no such directory"):
        run_scenario(scenario, RunOptions(out=tmp_path / "run"))
    assert not (tmp_path / "run").exists()


# 7. point_id: 64 bits; "duplicate" only for equal resolved arguments.
def test_point_ids_are_64_bits_and_duplicates_mean_equal_arguments():
    points = expand(parse_scenario({"name": "s", "model": "m", "engines": {"vllm": {
        "version": "0.32.0", "sweep": {"max_num_batched_tokens": list(range(1, 2001))}}}}))
    assert {len(p.point_id) for p in points} == {16} and len({p.point_id for p in points}) == 2000
    with pytest.raises(ScenarioError,
                       match=r"duplicate point \{max_num_batched_tokens=8\} appears 2 times .*same resolved"):
        parse_scenario({"name": "s", "model": "m", "engines": {"vllm": {
            "version": "0.32.0", "sweep": {"max_num_batched_tokens": [8, 8]}}}})


# 8. Numeric options.
@pytest.mark.parametrize("argv", [["--timeout", "0"], ["--timeout", "-5"], ["--timeout", "nan"],
                                  ["--wait-for-idle-gpu", "-1"]])
def test_numeric_options_out_of_range_are_usage_errors(tmp_path, argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "s.yaml", *argv])
    assert (exit_info.value.code == 2 and "must be" in capsys.readouterr().err) or \
        "not a number" in capsys.readouterr().err


def test_timeout_zero_in_options_is_not_replaced_by_the_scenario(tmp_path):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)]})
    with pytest.raises(InputError, match="--timeout 0: must be more than 0"):
        run_scenario(scenario, RunOptions(out=tmp_path / "run", timeout_s=0))


# 9. --resume continues the same run only.
def test_resume_refuses_changed_options_or_scenario_unless_told(tmp_path):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)], 2: ["--log", str(OK_LOG)]})
    run_dir = tmp_path / "run"
    run_scenario(scenario, RunOptions(out=run_dir, stop_after="kv", points=None, engines=None))
    with pytest.raises(InputError, match=r"stop_after \('kv' -> 'ready'\) changed"):
        run_scenario(scenario, RunOptions(resume=run_dir, stop_after="ready"))
    scenario.write_text(scenario.read_text().replace("[1, 2]", "[1, 2, 3]"))
    with pytest.raises(InputError, match=r"the scenario .*changed since that run"):
        run_scenario(scenario, RunOptions(resume=run_dir, stop_after="kv"))
    scenario.write_text(scenario.read_text().replace("[1, 2, 3]", "[1, 2]"))
    run_scenario(scenario, RunOptions(resume=run_dir, stop_after="ready", resume_changed=True))
    info = json.loads((run_dir / "run.json").read_text())
    assert info["resumes"][-1]["resume_changed"] is True
    assert info["run_format"] == 3 and info["results_format"] == RESULTS_FORMAT_VERSION


# 10. An interpreter with no engine CLI beside it.
def test_interpreter_without_engine_cli_is_refused_up_front(tmp_path):
    python, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)]})
    (python.parent / "vllm").unlink()
    with pytest.raises(InputError, match="bin/vllm does not exist, so vllm cannot start"):
        run_scenario(scenario, RunOptions(out=tmp_path / "run"))


# 11-13. Bounded, well-formed input.
BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text, message", [
    ("name: a\nname: b\n", "line 2, column 1: duplicate key 'name' (first at line 1)"),
    (BOMB, "YAML expands to more than 200,000 nodes"),
    ("x" * (1 << 20 + 1), "a scenario is at most 1,048,576"),
])
def test_bad_scenario_text_is_one_located_line(tmp_path, text, message):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_fifo_device_and_symlink_loop_are_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    for path, message in ((fifo, "not a regular file"), (Path("/dev/zero"), "not a regular file"),
                          (loop, "symbolic link loop")):
        with pytest.raises(ScenarioError, match=message):
            load_scenario(path)


def test_unwritable_out_is_bad_input(tmp_path, capsys):
    _, scenario = _setup(tmp_path, {1: ["--log", str(OK_LOG)]})
    (tmp_path / "file").write_text("")
    assert main(["run", str(scenario), "--out", str(tmp_path / "file" / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'file' / 'run'}: cannot create the run folder")


# 14. A worker whose harness is gone says nothing (no BrokenPipe tracebacks).
def test_worker_with_its_parent_gone_prints_no_traceback(tmp_path, capfd):
    import multiprocessing

    from harness.execute.executors.local import _worker_main

    receive, send = multiprocessing.Pipe(duplex=False)
    receive.close()

    def run_fn(point, job, gpus, on_phase, extra_env):
        on_phase("loading")
        import logging
        logging.getLogger("x").warning("hello")
        return "result"

    _worker_main(send, run_fn, None, None, None, None, 30, dict(os.environ), os.getcwd())
    assert "Traceback" not in capfd.readouterr().err
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


# 15. results.csv is a plain CSV; the old format is read everywhere and rewritten on resume.
@pytest.mark.parametrize("path", COMMITTED, ids=[str(p.relative_to(REPO)) for p in COMMITTED])
def test_pandas_reads_every_committed_results_file_with_no_options(path):
    frame = pd.read_csv(path)
    assert list(frame.columns[:4]) == ["run_id", "scenario", "point_id", "repeat"] and len(frame) > 0
    # plain since v2; files of an older format than the current one are migrated by every reader
    assert 2 <= json.loads((path.parent / "run.json").read_text())["results_format"] <= RESULTS_FORMAT_VERSION


ONE_RELEASE = REPO / "results" / "cpu_tiny" / "baseline-vllm0.32.0-sglang0.5.22" / "results.csv"


def test_a_design_contract_csv_from_another_tool_is_accepted_by_compare_and_report(tmp_path, capsys):
    frame = pd.read_csv(ONE_RELEASE)
    other = tmp_path / "other.csv"  # no run.json beside it
    frame.to_csv(other, index=False)
    assert main(["compare", str(ONE_RELEASE), str(other)]) == 0
    assert main(["report", str(other), "--out", str(tmp_path / "report")]) == 0


def _legacy_copy(tmp_path) -> Path:
    run_dir = tmp_path / "legacy"
    run_dir.mkdir()
    info = json.loads((ONE_RELEASE.parent / "run.json").read_text())
    info.pop("run_format"), info.pop("results_format")
    info["results_format_version"] = 1
    (run_dir / "run.json").write_text(json.dumps(info))
    text = ONE_RELEASE.read_text()
    for pid in pd.read_csv(ONE_RELEASE)["point_id"]:
        text = text.replace(pid, pid[:10])  # as written before 64-bit ids
    (run_dir / "results.csv").write_text(FORMAT_LINE + "\n" + text)
    return run_dir / "results.csv"


def test_old_format_files_are_read_by_every_command(tmp_path, capsys):
    legacy = _legacy_copy(tmp_path)
    frame = read_results(legacy)
    assert frame["point_id"].tolist() == pd.read_csv(ONE_RELEASE)["point_id"].tolist()  # ids lengthened
    assert main(["compare", str(legacy), str(ONE_RELEASE)]) == 0
    assert main(["report", str(legacy), "--out", str(tmp_path / "report")]) == 0
    capsys.readouterr()
    # read like the plain file: the same verdict (these CPU rows hold nothing to calibrate on)
    code = main(["predict", "scenarios/cpu_tiny.yaml", "--calibrate-from", str(legacy)])
    legacy_err = capsys.readouterr().err
    assert (code, legacy_err) == (main(["predict", "scenarios/cpu_tiny.yaml", "--calibrate-from", str(ONE_RELEASE)]),
                                  capsys.readouterr().err)
    assert str(legacy) not in legacy_err


def test_resume_rewrites_an_old_format_file_plain(tmp_path):
    from harness.results.writer import ResultsWriter

    legacy = _legacy_copy(tmp_path)
    writer = ResultsWriter(legacy)
    assert legacy.read_text().startswith("run_id,scenario,point_id") and len(writer.rows) == 5
    assert list(legacy.parent.glob("results.csv.*.bak"))


# 16. gpu: null.
def test_gpu_null_is_accepted():
    scenario = parse_scenario({"name": "s", "model": "m", "gpu": None, "engines": {"vllm": {"version": "0.32.0"}}})
    assert scenario.gpu.memory_gib is None


# Also: errors start at once, no blank line first.
def test_run_errors_have_no_leading_blank_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "harness", "run", str(tmp_path / "missing.yaml")], check=False,
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert (proc.returncode == 2 and proc.stderr.splitlines() == [f"{tmp_path / 'missing.yaml'}: no such file"]) or \
        proc.stderr.startswith("error: ")


# Also: disk full names the file.
def test_disk_full_names_the_results_file(tmp_path, monkeypatch):
    import errno

    from harness.errors import HarnessError
    from harness.results import writer as writer_module
    from tests.support.results_from_logs import point_result

    def full(*_a, **_k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_module, "write_text", full)
    w = writer_module.ResultsWriter(tmp_path / "results.csv")
    with pytest.raises(HarnessError, match=f"{tmp_path / 'results.csv'}: cannot write the results: No space left"):
        w.add(point_result())


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_supervisor_ends_as_its_engine_ended_even_by_sigkill(sig):
    # An engine killed by SIGKILL once made the supervisor itself die of a traceback (no handler can
    # be set for SIGKILL), which then sat in the point's log.
    proc = subprocess.run([sys.executable, "-m", "harness.execute.supervisor", str(os.getpid()), "1", "--",
                           "sh", "-c", f"kill -{int(sig)} $$"], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == -int(sig)
    assert "Traceback" not in proc.stderr
