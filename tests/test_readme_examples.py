"""Every command example in README.md and docs/ is still what the code prints.

Each `$ python -m harness ...` example runs from the repository root with this interpreter, in a subprocess, and
every output line the README shows must be in what it prints, in order (tests/support/readme_examples.py says how
the README is read and what may differ: trailing spaces, a table row's right border, a remark after `  # `).

Re-run: plan, validate, predict, parse, compare, report over the committed scenarios and results; doctor on the
GPU host stand-in (tests/support/gpu_host), which is where its README output comes from; envs list over marker-only
envs with the README's names, torch builds and sizes (the real ones are GiBs of installs). Not re-run: advise,
which launches the real vLLM twice (minutes); its command line is parsed by the harness's parser and its answer
rendered by the code from the figures those launches measured.

What the README's host had and ours need not: HOME was /root (its paths map to an empty HOME here: no engine envs,
no downloaded weights), a free port and free disk (doctor's figures, matched by their shape), a terminal (none
here: rich draws its wide file tables, as for the README's transcripts).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.advise.loop import Advice, Device, Request, _fixed_args
from harness.advise.render import render_text
from harness.advise.search import Launch, Setting, Step, Target
from harness.builtin_models import models_dir
from harness.cli import build_parser
from harness.envs.model import env_name, write_marker
from harness.scenario import load_scenario
from tests.support.fake_hub import FakeHub
from tests.support.gpu_host import GpuHost, subprocess_env
from tests.support.guards import HANG_GUARD_S
from tests.support.readme_examples import (
    Example,
    assert_shown_in_order,
    check_run,
    read_pages,
    read_transcript,
    shown_table,
)

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
TRANSCRIPT = read_pages(PAGES)

RERUN = ("plan", "validate", "predict", "parse", "compare", "report", "doctor", "envs list")
NOT_RERUN = ("advise",)
README_HOME = "/root/"  # the HOME of the host the README's output comes from

# What a reader's shell may hold that would change the output: a terminal's size or colours, caches of this host.
_HOST_VARS = ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "KV_HARNESS_CACHE_DIR",
              "KV_HARNESS_MODELS_DIR", "XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE", "CUDA_VISIBLE_DEVICES")


@pytest.fixture
def home():
    """An empty HOME. Short (not under tmp_path): doctor prints paths under it in a 220-column table, and a long
    one would fold its lines where the README's do not."""
    path = Path(tempfile.mkdtemp(prefix="kvh-home-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def reader_env(home: Path) -> dict[str, str]:
    """The environment of a reader's shell with an empty HOME, the CPU engines' device as in the README's runs,
    and unbuffered output (stderr and stdout meet in one pipe in the order they were written, as on a terminal)."""
    env = {k: v for k, v in os.environ.items() if k not in _HOST_VARS}
    env.update(HOME=str(home), KV_HARNESS_DEVICE="cpu", PYTHONUNBUFFERED="1")
    return env


def run(example: Example, env: dict[str, str]) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "harness", *example.argv], cwd=REPO, env=env, text=True, check=False,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=HANG_GUARD_S)
    return proc.returncode, proc.stdout


def test_every_readme_example_is_checked_here():
    assert sorted(e.command for e in TRANSCRIPT.examples) == sorted(RERUN + NOT_RERUN)


@pytest.mark.parametrize("command", ["plan", "predict", "parse", "compare"])
def test_an_example_over_committed_files(command, home):
    # plan's note names an env's folder under HOME; the paths parse prints come from its log, as they are
    example = TRANSCRIPT.example(command).with_paths({README_HOME: f"{home}/"} if command == "plan" else {})
    check_run(example, *run(example, reader_env(home)))


def test_the_validate_example_over_the_file_the_readme_shows(tmp_path, home):
    example = TRANSCRIPT.example("validate")
    used = [name for name in TRANSCRIPT.files if name in example.argv]
    assert used, "the validate example checks a file the README shows with `$ cat`"
    for name in used:
        (tmp_path / name).write_text(TRANSCRIPT.files[name])
    example = example.with_paths({name: str(tmp_path / name) for name in used})
    check_run(example, *run(example, reader_env(home)))


def test_the_report_example_writes_the_files_it_names(tmp_path, home):
    example = TRANSCRIPT.example("report").with_paths({"/tmp/": f"{tmp_path}/"})
    check_run(example, *run(example, reader_env(home)))
    assert all(Path(line).is_file() for line in example.shown), example.shown


def test_the_doctor_example_on_the_gpu_host_stand_in(tmp_path, home):
    """The README's host: the stand-in's A100-80GB with a CUDA 12.4 driver, nothing installed, no Hub token, and a
    Hub (the stand-in, tests/support/fake_hub.py) where the scenario's Llama is gated, as it is on the real one."""
    host = GpuHost.of("A100-80GB", cuda_driver_version=12040, driver_version="550.54.15").write(tmp_path / "host")
    example = TRANSCRIPT.example("doctor").with_paths({README_HOME: f"{home}/"})
    varying = {"3.11.7 (CPython)": r"\d+\.\d+\.\d+\S* \(\w+\)",  # the interpreter running the tests
               "63.1 GiB free": r"[\d,.]+ [KMGT]iB free", "(e.g. 51965)": r"\(e\.g\. \d+\)"}
    model = load_scenario(REPO / "scenarios" / "24g_8b.yaml").model
    with FakeHub({model: {"config.json": b"{}"}}, gated={model}) as hub:
        env = {**subprocess_env(host, reader_env(home)), "HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0"}
        env.pop("HF_TOKEN", None)
        check_run(example, *run(example, env), varying)


def test_the_envs_list_example_over_marker_only_envs(home):
    """Not the real envs (GiBs of installs): the README's rows as the harness would find them, a complete marker
    in the folder the harness names for that engine, release and build (CPU for a `-cpu` name) and a file of the
    row's size (sparse: nothing is written). What the README shows of them beyond those inputs is the code's:
    the folder's name, the header and column order, the alignment, the order of the rows, the path."""
    example = TRANSCRIPT.example("envs list")
    header, *rows = shown_table(example.shown)
    assert header == ["NAME", "ENGINE", "VERSION", "TORCH", "SIZE", "PATH"], header
    envs = home / ".cache" / "kv-budget-harness" / "envs"
    for name, engine, version, torch, size, path in rows:
        assert path == f"{README_HOME}.cache/kv-budget-harness/envs/{name}", path
        env_dir = envs / env_name(engine, version, cpu=name.endswith("-cpu"))
        (env_dir / "bin").mkdir(parents=True)
        write_marker(env_dir, {"engine": engine, "requested_version": version, "cpu": name.endswith("-cpu"),
                               "package": f"{engine}=={version}", "engine_version": version,
                               "torch_version": torch, "workarounds": []})
        with open(env_dir / "payload", "wb") as payload:
            payload.truncate(_bytes(size))
    example = example.with_paths({README_HOME: f"{home}/"})
    check_run(example, *run(example, reader_env(home)))


def _bytes(size: str) -> int:
    number, unit = size.split()
    return round(float(number) * {"GiB": 2**30, "MiB": 2**20}[unit])


def test_the_advise_example_parses_and_its_answer_is_what_the_code_renders(monkeypatch):
    """Not re-run: it launches the real vLLM 0.32.0 twice. Its command line is the harness's own parser's to
    accept, and its answer is what `render_text` makes of the figures the two launches measured (the device
    total and basis, each launch's fraction and KV tokens) with the scenario's own flags: the lines around them,
    the requests per pool, the over-target figure, the snippet and the engine command are the code's."""
    example = TRANSCRIPT.example("advise")
    args = build_parser().parse_args(list(example.argv))
    assert (args.command, args.engine, args.concurrency) == ("advise", "vllm", None)
    request = Request(Path(args.scenario), args.engine, Target(args.max_model_len, args.kv_tokens), Path(args.out))
    scenario = load_scenario(REPO / args.scenario)
    met, missed = Launch(Setting(0.05), "ok", None, 1_200_896), Launch(Setting(0.04), "ok", None, 707_584)
    device = Device(24_105, None, "cpu", "NUMA node 0 MemTotal")
    step = Step(done=True, best=met, margin=missed)
    advice = Advice(request, scenario.engines[args.engine].versions()[0], device, step,
                    [(met, None, ""), (missed, None, "")], _fixed_args(scenario, args.engine, request))
    for name in ("XDG_CACHE_HOME", "KV_HARNESS_MODELS_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", README_HOME.rstrip("/"))
    advice.model_path = str(models_dir() / "tiny-llama")  # where the README's host keeps the builtin model
    assert_shown_in_order(example, render_text(advice))


# --- the check itself --------------------------------------------------------------------------------------

SMALL_README = """\
# tool

```bash
$ ls -l
```

Text.

```
$ cat s.yaml
name: s  # a YAML comment is the file's

$ python -m harness plan s.yaml --json     # the first rows:
┃ a ┃ b ┃
│ 1 │ 2
last line      # exit 1

```
"""


def test_reading_a_readme_text():
    # A `$ ` line of another command is refused, naming its line: a new kind of example is never skipped unseen.
    with pytest.raises(ValueError, match="README line 4"):
        read_transcript(SMALL_README)
    transcript = read_transcript(SMALL_README.replace("$ ls -l", "ls -l"))  # without `$ `: a block's plain text
    (example,) = transcript.examples
    assert transcript.files == {"s.yaml": "name: s  # a YAML comment is the file's\n"}
    assert (example.line, example.argv, example.command, example.exit_code) == (
        13, ("plan", "s.yaml", "--json"), "plan", 1)
    assert example.shown == ("┃ a ┃ b ┃", "│ 1 │ 2", "last line")


def test_the_check_wants_each_shown_line_whole_and_in_order():
    example = Example(1, ("plan",), ("│ a │ 1", "", "note: 51965 free"), 0)
    varying = {"51965": r"\d+"}
    assert_shown_in_order(example, "title\n│ a │ 1   │  \nmore\nnote: 7 free\n", varying)
    for wrong in ("note: 7 free\n│ a │ 1 │\n",  # out of order
                  "│ a │ 12 │\nnote: 7 free\n",  # a shown cell that is only the start of the real one
                  "│ a │ 1 │\nnote: 7 free, or not\n"):  # a line with more after it
        with pytest.raises(AssertionError, match="not in the output"):
            assert_shown_in_order(example, wrong, varying)
    with pytest.raises(AssertionError, match="not in the output"):
        assert_shown_in_order(example, "│ a │ 1\nnote: 7 free\n")  # a figure of the README's host is as shown
    assert_shown_in_order(example, "│ a │ 1\nnote: 51965 free\n", varying)  # or as given by its regex


def test_one_changed_line_in_a_copy_of_the_docs_fails_its_example(home):
    """The check can fail: the compare example, run as in its test, against a copy of its page whose last shown
    line says one point fewer."""
    line = "no change beyond tolerance in 5 points"
    text = (REPO / "docs" / "commands.md").read_text()
    assert text.count(line) == 1
    example = read_transcript(text.replace(line, line.replace("5", "4"))).example("compare")
    returncode, output = run(example, reader_env(home))
    with pytest.raises(AssertionError, match=re.escape("no change beyond tolerance in 4 points")):
        check_run(example, returncode, output)
