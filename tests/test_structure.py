"""The layout's rules, checked on the source: imports flow down the layers with no cycle, a function-level
import says why, engines named only in their own homes; test modules in the folder of what they test, none imported
by another module."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def parse(text: str) -> ast.Module:
    """`ast.parse`, again where CPython 3.11's AST constructor reports a recursion-depth mismatch: its depth counter is
    one for the whole interpreter, so another thread building AST nodes at that moment (the background engine runs'
    thread does, in a session run with `-n 0`; under xdist it is the controller's) moves it under this parse, and the
    SystemError says nothing of the source (CPython gh-106905, PR #106906; seen in a fresh-clone CI on 3.11.7). A real
    problem in the file raises on every try."""
    for _ in range(2):
        try:
            return ast.parse(text)
        except SystemError as exc:
            if "AST constructor recursion depth mismatch" not in str(exc):
                raise
    return ast.parse(text)
PACKAGES = ("harness", "parsers")
# Where an engine may be named: its own package and its parser module.
ENGINE_HOMES = ("harness/engines/", "parsers/")
ENGINE_NAME = re.compile(r"(?<![A-Za-z])(vllm|sglang)(?![A-Za-z])")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def imports_of(name: str, path: Path) -> set[str]:
    """Every module of ours `name` imports, TYPE_CHECKING blocks and function bodies included."""
    tree = parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for imported in targets:
            target = imported
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_in_harness_and_parsers():
    graph = {name: imports_of(name, path) for name, path in MODULES.items()}
    # A package's __init__ re-exporting its own modules is not a cycle of design; leave those edges out.
    graph = {name: {t for t in targets if not (t.startswith(name + ".") and MODULES[name].name == "__init__.py")
                    and not (name.startswith(t + ".") and MODULES[t].name == "__init__.py")}
             for name, targets in graph.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# ---- the layers: imports flow one way ------------------------------------------------------------------

# Top to bottom: a module may import its own package and the layers below it, never one above. Every
# import counts - at module level, inside a function, under TYPE_CHECKING - because a lazy or typing-only
# import upward is still a dependency a reader has to follow (and hides a cycle from the plain check above).
LAYERS = (
    ("harness.__main__",),
    ("harness.cli",),
    ("harness.commands",),
    ("harness.advise",),
    ("harness.sparse",),
    ("harness.analysis",),
    ("harness.execute",),
    ("harness.results",),
    ("harness.scenario",),
    ("harness.envs",),
    ("harness.engines",),
    ("harness.predict", "parsers"),
    ("harness",),  # the core: errors, clock, atomic writes, child processes, NVML, the cache folder
)


def layer_of(module: str) -> tuple[int, str]:
    """(layer index, the package of that layer `module` belongs to): the longest package name that owns it."""
    owners = [(len(pkg), i, pkg) for i, layer in enumerate(LAYERS) for pkg in layer
              if module == pkg or module.startswith(pkg + ".")]
    _, index, package = max(owners)
    return index, package


def layer_violations(modules: dict[str, Path]) -> list[str]:
    out = []
    for name, path in modules.items():
        index, package = layer_of(name)
        for target in sorted(imports_of(name, path)):
            t_index, t_package = layer_of(target)
            if t_index < index or (t_index == index and t_package != package):
                out.append(f"{name} ({package}) imports {target} ({t_package})")
    return out


def test_imports_flow_down_the_layers():
    assert layer_violations(MODULES) == []


def test_the_layer_check_sees_an_import_upward_even_a_typing_only_one(tmp_path):
    engine = tmp_path / "engine.py"
    engine.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from harness.scenario.point import Point\n")
    predict = tmp_path / "predict.py"
    predict.write_text("def f():\n    from parsers import parse_log\n    from harness.errors import InputError\n")
    assert layer_violations({"harness.engines.fake": engine, "harness.predict.fake": predict}) == [
        "harness.engines.fake (harness.engines) imports harness.scenario.point (harness.scenario)",
        "harness.predict.fake (harness.predict) imports parsers (parsers)",
    ]


# ---- a function-level import says why it is not at module top ------------------------------------------

# The layers above leave no cycle to dodge: an import inside a function is there to keep something heavy
# or optional (matplotlib, ray, nvidia-ml-py, huggingface_hub, an engine's own modules) off the CLI's start.
DIRECTIVE = re.compile(r"#\s*(noqa|type:|pragma)\b")


def unexplained_lazy_imports(path: Path) -> list[str]:
    """Imports inside a function body with no comment in words on their lines or the line above; imports
    one right after another share the comment of the first."""
    text = path.read_text()
    comments = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.COMMENT and not DIRECTIVE.match(tok.string)}
    out = []

    def visit(node: ast.AST, in_function: bool) -> None:
        explained_to = -1  # last line of the latest import with its reason
        for child in ast.iter_child_nodes(node):
            if in_function and isinstance(child, (ast.Import, ast.ImportFrom)):
                if comments & set(range(child.lineno - 1, child.end_lineno + 1)) or child.lineno == explained_to + 1:
                    explained_to = child.end_lineno
                else:
                    out.append(f"{path.relative_to(path.parents[1])}:{child.lineno}: {ast.unparse(child)}")
            visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(parse(text), False)
    return out


def test_every_function_level_import_says_why():
    assert [hit for path in MODULES.values() for hit in unexplained_lazy_imports(path)] == []


def test_the_lazy_import_check_sees_an_import_without_its_reason(tmp_path):
    sample = tmp_path / "pkg" / "probe.py"
    sample.parent.mkdir()
    sample.write_text("import os\n"
                      "def f():\n"
                      "    import json\n"
                      "    x = '# not a comment'; import shlex\n"
                      "    # lazy: a reason above\n"
                      "    import csv\n"
                      "    import re  # a reason on its line\n"
                      "    from a import (b,\n"
                      "                   c)  # a reason on its last line\n"
                      "class C:\n"
                      "    def g(self):\n"
                      "        # lazy: shared by the two below\n"
                      "        import x\n"
                      "        import y\n"
                      "\n"
                      "        import z\n"
                      "        import w  # noqa: F401\n")
    assert [hit.split(": ", 1)[1] for hit in unexplained_lazy_imports(sample)] == [
        "import json", "import shlex", "import z", "import w"]


def _docstring_nodes(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def engine_literals(path: Path, root: Path = ROOT) -> list[str]:
    """String constants in code (not docstrings) that name an engine in lower case, as code does."""
    tree = parse(path.read_text())
    docs = _docstring_nodes(tree)
    return [f"{path.relative_to(root)}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and ENGINE_NAME.search(node.value)]


def test_no_engine_name_outside_the_engines_and_parsers():
    outside = [path for path in MODULES.values()
               if not str(path.relative_to(ROOT)).startswith(ENGINE_HOMES)]
    assert outside, "found no module to check"
    assert [hit for path in outside for hit in engine_literals(path)] == []


def test_the_literal_check_sees_an_engine_name(tmp_path):
    sample = tmp_path / "harness" / "probe.py"  # never a file in the package itself: a test must not write there
    sample.parent.mkdir()
    sample.write_text('"""A docstring may say vllm."""\nENGINE = "sglang"\nTEXT = "vLLM prose is fine"\n')
    assert engine_literals(sample, tmp_path) == ["harness/probe.py:2: 'sglang'"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_opens_with_a_line_saying_what_it_holds(name):
    path = MODULES[name]
    if not path.read_text().strip():
        return  # an empty __init__.py marks a package and holds nothing
    doc = ast.get_docstring(parse(path.read_text()))
    assert doc and doc.splitlines()[0].strip(), f"{path.relative_to(ROOT)} has no docstring"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_comments_cite_sources_not_design_documents(name):
    text = MODULES[name].read_text()
    assert not re.search(r"(DESIGN|ENGINES)(\.md)?\s*§|(DESIGN|ENGINES)\.md\s*\d|§\s*\d", text), MODULES[name]
    assert not re.search(r"\bissue #?\d+|\(#\d+\)", text, re.IGNORECASE), MODULES[name]


# ---- tests take host memory from the engine's reading --------------------------------------------------

HOST_MEMORY_PATH = re.compile(r"^/proc/meminfo|^/sys/devices/system/node")
# Readers of the real host in the harness: a test may call them on fake files (node_dir/meminfo/cgroup
# paths, or a `read` function), never on the host itself.
HOST_READERS = {"read_host_memory": {"node_dir", "meminfo"}, "settled_host_memory": {"read"},
                "wait_for_host_release": {"read"}}
# Not tests but engines: the budget stand-in reads the node as vLLM-CPU does and records what it read;
# the oracles run in the engines' interpreters and replace those files with described hosts.
HOST_READING_ENGINES = ("tests/support/budget_standin.py", "tests/support/predict_oracles/")


def host_memory_reads(path: Path) -> list[str]:
    """Where a test module reads the host's memory itself: a /proc or /sys memory path opened or made a
    Path, psutil's virtual_memory, or one of the harness's host readers called on the real host."""
    hits = []
    for node in ast.walk(parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        first = node.args[0] if node.args else None
        text = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else \
            "".join(v.value for v in first.values if isinstance(v, ast.Constant)) \
            if isinstance(first, ast.JoinedStr) else ""
        keywords = {k.arg for k in node.keywords}
        if (func in ("Path", "open") and HOST_MEMORY_PATH.search(text)) or func == "virtual_memory" or (
                func in HOST_READERS and not HOST_READERS[func] <= keywords):
            hits.append((node.lineno, f"{path.name}:{node.lineno}: {ast.unparse(node)[:80]}"))
    return [hit for _, hit in sorted(hits)]


def test_no_test_reads_host_memory_itself():
    # On these VMs the NUMA node's MemTotal and free memory move for minutes after boot and while a
    # finished engine's memory comes back: a figure from a reading of the test's own, at another moment
    # than the engine's, fails on a healthy machine. Tests take the engine's (tests/support/engine_reading.py).
    tests = [p for p in sorted((ROOT / "tests").rglob("*.py"))
             if not str(p.relative_to(ROOT)).startswith(HOST_READING_ENGINES)]
    assert len(tests) > 50
    assert [hit for path in tests for hit in host_memory_reads(path)] == []


def test_the_host_memory_check_sees_a_test_reading_the_host(tmp_path):
    sample = tmp_path / "test_probe.py"
    sample.write_text('from pathlib import Path\n'
                      'T = Path("/sys/devices/system/node/node0/meminfo").read_text()\n'
                      'N = open(f"/proc/meminfo").read()\n'
                      'H = read_host_memory({})\n'
                      'F = read_host_memory({}, node_dir=tmp, meminfo=tmp)\n'
                      'NOTE = "/proc/meminfo" in "a note"\n')
    assert [hit.split(":")[1] for hit in host_memory_reads(sample)] == ["2", "3", "4"]


# ---- the tests' own layout -----------------------------------------------------------------------------

# Test modules sit in a folder named after the package they test (tests/execute/ for harness/execute/,
# tests/parsers/ for parsers/), each folder a package so two may hold modules of the same name; checks of
# the whole suite sit in tests/e2e/ (the real-engine runs) or are named here. What tests share lives in
# tests/support/ (or conftest.py fixtures), never in a test module another one imports: a test module then
# reads whole, and moving one breaks nothing.
SUITE_WIDE = ("tests/e2e", "tests/benchmarks")  # tests/benchmarks: the scripts in benchmarks/
SUITE_WIDE_MODULES = ("tests/test_docs.py", "tests/test_python_versions.py", "tests/test_readme_examples.py",
                      "tests/test_structure.py")


def allowed_test_folders(root: Path = ROOT) -> set[str]:
    """Where a test module may live: a folder per package of the code, and the suite-wide folders."""
    packages = {"parsers"} | {p.parent.name for p in (root / "harness").glob("*/__init__.py")}
    return {f"tests/{name}" for name in packages} | set(SUITE_WIDE)


def misplaced_tests(root: Path = ROOT) -> list[str]:
    allowed = allowed_test_folders(root)
    out = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        name, folder = path.relative_to(root).as_posix(), path.parent.relative_to(root).as_posix()
        if name in SUITE_WIDE_MODULES:
            continue
        if folder not in allowed:
            out.append(f"{name}: not in a folder of the code's packages nor a suite-wide check")
        elif not (path.parent / "__init__.py").exists():
            out.append(f"{name}: {folder}/ has no __init__.py")
    return out


def test_every_test_module_lives_in_the_folder_of_what_it_tests():
    assert misplaced_tests() == []


def test_the_layout_check_sees_a_misplaced_test_module(tmp_path):
    for name in ("harness/execute/__init__.py", "tests/__init__.py", "tests/test_structure.py", "tests/test_misc.py",
                 "tests/execute/__init__.py", "tests/execute/test_run.py", "tests/e2e/__init__.py",
                 "tests/e2e/test_cpu.py", "tests/support/__init__.py", "tests/support/test_helper.py",
                 "tests/predict/test_model.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    assert misplaced_tests(tmp_path) == [
        "tests/predict/test_model.py: not in a folder of the code's packages nor a suite-wide check",
        "tests/support/test_helper.py: not in a folder of the code's packages nor a suite-wide check",
        "tests/test_misc.py: not in a folder of the code's packages nor a suite-wide check",
    ]
    (tmp_path / "harness/predict").mkdir()
    (tmp_path / "harness/predict/__init__.py").write_text("")
    assert misplaced_tests(tmp_path)[0] == "tests/predict/test_model.py: tests/predict/ has no __init__.py"


def imports_of_test_modules(root: Path = ROOT) -> list[str]:
    """Every import, anywhere under tests/ (function bodies too), of a module named test_*.py there."""
    files = sorted((root / "tests").rglob("*.py"))
    test_modules = {p.stem for p in files if p.name.startswith("test_")}
    out = []
    for path in files:
        for node in ast.walk(parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):  # `from .test_x import y` and `from . import test_x` too
                targets = [node.module or ""] + [".".join(filter(None, (node.module, a.name))) for a in node.names]
            else:
                continue
            hit = next((target for target in targets if set(target.split(".")) & test_modules), None)
            if hit:
                out.append(f"{path.relative_to(root)}:{node.lineno}: imports {hit}")
    return out


def test_no_test_module_is_imported_by_another_module():
    assert imports_of_test_modules() == []


def test_the_import_check_sees_a_test_module_imported(tmp_path):
    files = {
        "tests/test_a.py": "X = 1\n",
        "tests/parsers/test_b.py": "from tests.test_a import X\nfrom tests.support.helpers import Y\n",
        "tests/support/helpers.py": "Y = 2\n\ndef f():\n    import test_a\n    from ..parsers import test_b\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert imports_of_test_modules(tmp_path) == [
        "tests/parsers/test_b.py:1: imports tests.test_a",
        "tests/support/helpers.py:4: imports test_a",
        "tests/support/helpers.py:5: imports parsers.test_b",
    ]
