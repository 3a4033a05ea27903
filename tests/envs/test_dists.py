"""The engine's key dependencies as an env has them installed: read from its .dist-info folders (managed envs)
or asked of the interpreter (a scenario's own), recorded on every row, named by `compare --explain`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness.envs import resolve_env
from harness.envs.dists import changed_versions, installed_versions, parse_versions_text, versions_text
from harness.envs.model import write_marker


def _dist_info(site: Path, name: str, version: str, folder_name: str | None = None) -> None:
    dist = site / f"{folder_name or name.replace('-', '_')}-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _managed_env(cache: Path, engine: str, version: str, dists: dict[str, str]) -> Path:
    env_dir = cache / "envs" / f"{engine}-{version}-cpu"
    (env_dir / "bin").mkdir(parents=True)
    os.symlink(sys.executable, env_dir / "bin" / "python")
    if engine == "sglang":
        (env_dir / "libcuda-stub").mkdir()
    site = env_dir / "lib" / "python3.11" / "site-packages"
    for name, dist_version in dists.items():
        _dist_info(site, name, dist_version)
    write_marker(env_dir, {"engine": engine, "requested_version": version, "cpu": True,
                           "package": f"{engine}=={version}", "engine_version": version,
                           "torch_version": "2.13.0+cpu", "workarounds": []})
    return env_dir


def test_installed_versions_reads_the_dist_info_folders_whatever_their_case_and_separator(tmp_path):
    site = tmp_path / "lib" / "python3.11" / "site-packages"
    _dist_info(site, "flashinfer-python", "0.7.1", folder_name="flashinfer_python")
    _dist_info(site, "Transformers", "5.19.0")
    _dist_info(site, "numpy", "2.3.0")
    assert installed_versions(tmp_path, ("transformers", "triton", "flashinfer-python")) == {
        "transformers": "5.19.0", "flashinfer-python": "0.7.1"}
    assert installed_versions(tmp_path / "nowhere", ("transformers",)) == {}


def test_the_column_text_reads_back_and_names_each_dependency_that_moved():
    text = versions_text({"transformers": "5.19.0", "triton": "3.9.0"})
    assert text == "transformers=5.19.0 triton=3.9.0" and parse_versions_text(text) == {
        "transformers": "5.19.0", "triton": "3.9.0"}
    assert parse_versions_text(None) == {} and parse_versions_text(float("nan")) == {}
    assert changed_versions(text, "transformers=5.20.0 triton=3.9.0 flashinfer-python=0.7.2") == [
        "transformers 5.19.0 -> 5.20.0", "flashinfer-python - -> 0.7.2"]
    assert changed_versions(text, text) == [] and changed_versions(None, None) == []


def test_a_managed_env_records_its_engines_key_dependencies_from_site_packages(tmp_path):
    _managed_env(tmp_path, "sglang", "0.5.22", {"sglang": "0.5.22", "torch": "2.13.0", "sglang-kernel": "0.4.9",
                                                 "transformers": "5.19.0", "numpy": "2.3.0"})
    env = resolve_env("sglang", "0.5.22", cache_dir=tmp_path, cpu=True)
    # the engine and torch have columns of their own; numpy is not among SGLang's key dependencies
    assert env.dependency_versions == "sglang-kernel=0.4.9 transformers=5.19.0"


def test_a_scenarios_interpreter_is_asked_for_its_key_dependencies(tmp_path):
    site = tmp_path / "mine" / "site"
    for pkg, ver in (("vllm", "0.32.0"), ("torch", "2.0.0+fake")):
        (site / pkg).mkdir(parents=True)
        (site / pkg / "__init__.py").write_text(f"__version__ = {ver!r}\n")
    _dist_info(site, "triton", "3.9.0")
    python = tmp_path / "mine" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = resolve_env("vllm", "0.32.0", python=str(python), cache_dir=tmp_path, cpu=True)
    # asked of the interpreter: its PYTHONPATH site is where triton is, not the prefix's site-packages
    assert "triton=3.9.0" in env.dependency_versions.split()
