"""Reading an engine release's real CLI flags: every option its parser defines, from an installed env or a wheel.

The engine's own server entry point is run with `--help` from the release's interpreter, with
argparse's help printing replaced by a list of every option string the parser holds, hidden
(`help=SUPPRESS`) ones included. A release that is not installed (or cannot run on this host)
is read from its downloaded wheel, unpacked into a throwaway folder laid over an installed env
of the same engine (which lends torch and the other heavy dependencies); a dependency the
release added is fetched into that folder when the CLI asks for it. The folder is deleted after.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from harness.childproc import child_environ
from harness.engines import get_engine
from harness.engines.cli_flags import parse_help
from harness.engines.releases import version_key
from harness.engines.requirements import base_requirements
from harness.envs.recipes import run_py
from harness.release_wheel import download_release_wheel

# Run in the engine's interpreter: print every long option of the parser `--help` reaches, then exit.
_DUMP = r"""
import argparse, runpy, sys
def _dump(parser):
    names = sorted({o for a in parser._actions for o in a.option_strings if o.startswith("--")})
    sys.stdout.write("OPTIONS\n" + "".join("  " + n + "\n" for n in names))
    sys.stdout.flush()
    raise SystemExit(0)
argparse.ArgumentParser.print_help = lambda self, file=None: _dump(self)
argparse._HelpAction.__call__ = lambda self, parser, *a, **k: _dump(parser)
entry, argv = sys.argv[1], sys.argv[2:]
sys.argv = argv
if ":" in entry:
    module, func = entry.split(":")
    getattr(__import__(module, fromlist=[func]), func)()
else:
    runpy.run_module(entry, run_name="__main__", alter_sys=True)
"""

_MISSING_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
Progress = Callable[[str], None]


def _dump_argv(engine: str, python: str) -> list[str]:
    entry, argv = get_engine(engine).require("installation", "envs flags").help_entry
    return [python, "-c", _DUMP, entry, *argv]


def _parse(stdout: str) -> frozenset[str]:
    _, _, listing = stdout.rpartition("OPTIONS\n")
    return parse_help(listing)


def read_engine_flags(engine: str, python: str, env_vars: dict[str, str], timeout_s: float = 300,
                      pythonpath: str | None = None) -> frozenset[str]:
    """Every long option of the engine's server CLI, asked of its own interpreter; RuntimeError when that fails."""
    flags, proc = _try(engine, python, env_vars, timeout_s, pythonpath)
    if flags:
        return flags
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
    raise RuntimeError(f"{engine} --help failed (exit {proc.returncode}): {tail[0]}")


def _try(engine: str, python: str, env_vars: dict[str, str], timeout_s: float,
         pythonpath: str | None) -> tuple[frozenset[str], subprocess.CompletedProcess]:
    env = dict(env_vars)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run(_dump_argv(engine, python), check=False, env=child_environ(env), capture_output=True,
                          text=True, timeout=timeout_s)
    flags = _parse(proc.stdout) if proc.returncode == 0 else frozenset()
    return flags, proc


def _requirement_for(module: str, wheel_requirements: list[str]) -> str:
    """The release's own requirement that provides `module` (its pin), else the module's name."""
    top = module.split(".", maxsplit=1)[0]
    canon = top.replace("_", "-").lower()
    for req in wheel_requirements:
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
        if name and name.group(1).replace("_", "-").lower() == canon:
            return req.split(";", 1)[0].strip()
    return top


def _install_into(target: Path, requirement: str, python_version: str) -> None:
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--only-binary", ":all:",
           "--python-version", python_version, "--target", str(target), requirement]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        tail = [line for line in done.stderr.strip().splitlines() if "ignored" not in line][-1:] or ["failed"]
        raise RuntimeError(f"pip install {requirement} into the throwaway folder: {tail[0]}")


def read_wheel_flags(engine: str, version: str, donor_python: str, donor_env: dict[str, str],
                     progress: Progress = lambda msg: None, max_fetches: int = 12,
                     timeout_s: float = 600) -> tuple[frozenset[str], str]:
    """(flags, wheel name) of a release read from its downloaded wheel laid over a donor env's interpreter."""
    eng = get_engine(engine)
    distribution = eng.require("installation", "envs flags").flag_distribution(version)
    py_version = run_py(Path(donor_python), "import sys; print('%d.%d' % sys.version_info[:2])")
    with tempfile.TemporaryDirectory(prefix="kvh-flags-") as tmp:
        progress(f"downloading {distribution}=={version} (no dependencies) into {tmp}")
        wheel = download_release_wheel(distribution, version, Path(tmp) / "wheel")
        site = Path(tmp) / "site"
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(site)
        metadata = next(site.glob("*.dist-info/METADATA")).read_text(encoding="utf-8")
        requirements = base_requirements(metadata)
        shutil.rmtree(wheel.parent)  # the unpacked copy is all that is needed now
        eng.require("installation", "envs flags").prepare_flag_overlay(site, version)
        fetched: list[str] = []
        while True:
            progress(f"running {distribution} {version}'s CLI from {site} over {donor_python}")
            flags, proc = _try(engine, donor_python, donor_env, timeout_s, str(site))
            if flags:
                return flags, wheel.name
            missing = _MISSING_MODULE.findall(proc.stderr)
            if not missing or len(fetched) >= max_fetches or missing[-1] in fetched:
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
                raise RuntimeError(f"{distribution} {version} --help from its wheel failed (exit {proc.returncode}): "
                                   f"{tail[0]}")
            requirement = _requirement_for(missing[-1], requirements)
            progress(f"the CLI imports {missing[-1]}, which the donor env lacks: fetching {requirement}")
            _install_into(site, requirement, py_version)
            fetched.append(missing[-1])


def choose_donor(engine: str, version: str, envs: list) -> object | None:
    """The installed env of `engine` nearest to `version` (the release itself when installed)."""
    same = [e for e in envs if e.engine == engine]
    if not same:
        return None
    return min(same, key=lambda e: (e.engine_version.split("+")[0] != version,
                                    abs(_ordinal(e.engine_version, same) - _ordinal(version, same))))


def _ordinal(version: str, envs: list) -> int:
    ordered = sorted({e.engine_version.split("+")[0] for e in envs} | {version.split("+", maxsplit=1)[0]},
                     key=version_key)
    return ordered.index(version.split("+", maxsplit=1)[0])
