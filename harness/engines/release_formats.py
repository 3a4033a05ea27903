"""Per-release tables of the log and error wording the parsers read, extracted from the released wheels.

`python -m harness.engines.release_formats vllm==0.10.1 sglang==0.4.6 [--write]` downloads each
wheel (`pip download --no-deps`, into a temporary folder deleted right after), reads every `.py`
file of the engine's package with `ast`, and keeps each message template that the engine's
`format_spec` assigns to a fact: the string as written in the source (an f-string's template,
or a %-format string whose arguments are passed separately), with its `file:line`. `--write`
stores the table as `harness/engines/<engine>/formats/<engine>-<version>.tsv`; without it the
table is printed. The engine source itself is never kept.

Engine-neutral: everything engine-specific (distribution names, which wording feeds which
field) lives in `harness/engines/<engine>/format_spec.py`.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import re
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from harness.engines.releases import version_key
from harness.release_wheel import download_release_wheel

ENGINES_DIR = Path(__file__).resolve().parent
COLUMNS = ("fact", "fields", "style", "format", "args", "source")

# Styles of a template: an f-string, a %-format string with separate arguments, str.format(),
# or a plain string with no placeholders.
F_STRING, PERCENT, FORMAT, PLAIN = "f", "%", "format", "str"
PRINTF = re.compile(r"%(?:\(\w+\))?[-+ #0]*(?:\d+)?(?:\.\d+)?[diouxXeEfFgGrs]")


@dataclass(frozen=True)
class Message:
    """One string expression of the engine source, rendered as a template."""

    template: str
    style: str
    file: str  # path inside the wheel, e.g. vllm/v1/core/kv_cache_utils.py
    line: int  # the line Python's logging reports: the call's first line
    context: str  # "log", "raise" or "other"
    args: tuple[str, ...] = ()  # the placeholders' expressions, in order (a %-format's arguments)


@dataclass(frozen=True)
class Row:
    fact: str
    fields: tuple[str, ...]  # per placeholder, the record field it feeds ("-": not read)
    style: str
    template: str
    args: tuple[str, ...]  # per placeholder, its expression in the source
    source: str  # file:line

    def tsv(self) -> str:
        cells = (self.fact, ",".join(self.fields), self.style, escape(self.template),
                 json.dumps(list(self.args), ensure_ascii=False), self.source)
        return "\t".join(cells)


# --- what a per-engine spec is made of --------------------------------------------------------------

@dataclass(frozen=True)
class Fact:
    """A fact the parsers read: the wording that states it, and which field each placeholder feeds.

    `pattern` is searched in the template as written in the source; `fields` are
    (regex on the placeholder's expression, field) pairs, the first that matches wins and
    "-" means the placeholder is not read; `literal` is a regex whose named groups are
    values spelled out in the template itself (a fixed block size, a wording variant).
    Field names: a StartupRecord field; `error_data.<key>` (a startup error's number);
    `<field>+` (one of several printed figures the field holds the sum of, SGLang's K and V
    sizes); `@<fact>` (the placeholder holds that fact's own message, vLLM's `estimated_msg`).
    """

    name: str
    pattern: str
    fields: tuple[tuple[str, str], ...] = ()
    literal: str | None = None
    contexts: tuple[str, ...] = ("log", "raise", "other")
    samples: tuple[tuple[str, str], ...] = ()  # text for a placeholder that is not read (regex on its expression)
    after_kv: bool = False  # means what it says only after the KV line (a test renders that first)
    unread: bool = False  # kept in the table for reference; no field is read from it
    literal_map: tuple[tuple[str, str], ...] = ()  # literal text -> the value the record holds for it
    expect: tuple[tuple[str, object], ...] = ()  # fields a test reads back when the samples are printed

    @property
    def regex(self) -> re.Pattern:
        return re.compile(self.pattern)


def classifier(facts: tuple[Fact, ...]):
    """`classify(template, context)`: the first fact whose pattern the template matches, or None."""
    compiled = [(f, re.compile(f.pattern)) for f in facts]

    def classify(template: str, context: str) -> Fact | None:
        for fact, regex in compiled:
            if context in fact.contexts and regex.search(template):
                return fact
        return None

    return classify


def field_mapper():
    """`fields_for(fact, expressions)`: per placeholder, the field it feeds.

    Each (regex, field) pair feeds at most one placeholder, the first whose expression it
    matches, so that `(".", a), (".", b)` reads positionally; "-" pairs may match many.
    """
    cache: dict[str, re.Pattern] = {}

    def fields_for(fact: Fact, expressions: tuple[str, ...]) -> tuple[str, ...]:
        used: set[int] = set()
        out = []
        for expression in expressions:
            name = "-"
            for i, (regex, field) in enumerate(fact.fields):
                if i in used:
                    continue
                if cache.setdefault(regex, re.compile(regex)).search(expression):
                    name = field
                    if field != "-":
                        used.add(i)
                    break
            out.append(name)
        return tuple(out)

    return fields_for


# --- escaping for a one-line-per-row table -----------------------------------------------------

def escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append({"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}.get(nxt, "\\" + nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def read_table(path: str | Path) -> list[Row]:
    """The rows of one committed table (comment lines start with `#`)."""
    rows = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line or line.startswith(("#", "fact\t")):
            continue
        fact, fields, style, template, args, source = line.split("\t")
        rows.append(Row(fact, tuple(f for f in fields.split(",") if f), style, unescape(template),
                        tuple(json.loads(args)), source))
    return rows


def table_paths(engine: str) -> list[Path]:
    """Every committed table of `engine`, oldest release first."""
    paths = (ENGINES_DIR / engine / "formats").glob(f"{engine}-*.tsv")
    return sorted(paths, key=lambda p: version_key(p.stem.split("-", 1)[1]))


def fork_table_paths(engine: str) -> list[Path]:
    """The tables of `engine`'s forks and backend plugins (vllm-ascend, tpu-inference, kvcached), each written from
    its own source, named on its first line: harness/engines/<engine>/forks/<name>.tsv."""
    return sorted((ENGINES_DIR / engine / "forks").glob("*.tsv"))


# --- rendering string expressions as templates ------------------------------------------------------

def _escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _render(node: ast.AST) -> tuple[str, str, tuple[str, ...]] | None:
    """(template, style, placeholder expressions) of a string-valued expression, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, PLAIN, ()
    if isinstance(node, ast.JoinedStr):
        parts, args = [], []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(_escape_braces(str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                expr = ast.unparse(value.value)
                text = "{" + expr
                if value.conversion != -1:
                    text += "!" + chr(value.conversion)
                if value.format_spec is not None:
                    spec = _render(value.format_spec)
                    text += ":" + (spec[0] if spec else "?")
                parts.append(text + "}")
                args.append(expr)
        return "".join(parts), F_STRING, tuple(args)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left), _render(node.right)
        if left is None or right is None:
            return None
        styles = {left[1], right[1]}
        if F_STRING in styles:
            # Literal parts joined to an f-string: their braces are literal text.
            fix = [(_escape_braces(t), F_STRING, a) if st == PLAIN else (t, st, a) for t, st, a in (left, right)]
            left, right = fix
            return left[0] + right[0], F_STRING, left[2] + right[2]
        style = left[1] if left[1] != PLAIN else right[1]
        return left[0] + right[0], style, left[2] + right[2]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        left = _render(node.left)
        if left is None:
            return None
        values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return left[0], PERCENT, tuple(ast.unparse(v) for v in values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        base = _render(node.func.value)
        if base is None:
            return None
        return base[0], FORMAT, tuple(ast.unparse(a) for a in node.args) + tuple(
            f"{k.arg}={ast.unparse(k.value)}" for k in node.keywords)
    return None


LOG_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal",
    "info_once", "warning_once", "debug_once", "error_once", "print_info_once", "print_warning_once",
})


def _is_log_call(call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr in LOG_METHODS


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def scan_source(source: str, file: str) -> Iterator[Message]:
    """Every maximal string expression of one file (docstrings excepted), as a template.

    A string passed to a call reports the call's line (what `%(lineno)d` prints for a
    logger call spread over several lines); the first argument of a log call followed by
    more arguments is a %-format whose placeholders are those arguments.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    docstrings = _docstring_nodes(tree)
    seen: set[int] = set()

    def visit(node: ast.AST, call: ast.Call | None, context: str) -> Iterator[Message]:
        if id(node) in seen or id(node) in docstrings:
            return
        rendered = _render(node)
        if rendered is not None and not isinstance(node, ast.Call):
            for sub in ast.walk(node):
                seen.add(id(sub))
            template, style, args = rendered
            if (call is not None and context == "log" and call.args and call.args[0] is node and len(call.args) > 1
                    and style == PLAIN):
                style, args = PERCENT, tuple(ast.unparse(a) for a in call.args[1:])
            if style == PLAIN and not template.strip():
                return
            line = call.lineno if call is not None else node.lineno
            yield Message(template, style, file, line, context, args)
            return
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            exc = node.exc
            for arg in [*exc.args, *(kw.value for kw in exc.keywords)]:
                yield from visit(arg, exc, "raise")
            return
        if isinstance(node, ast.Call):
            inner = "log" if _is_log_call(node) else "raise" if context == "raise" else "other"
            for arg in [*node.args, *(kw.value for kw in node.keywords)]:
                yield from visit(arg, node, inner)
            yield from visit(node.func, None, "other")
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, None, "other")

    yield from visit(tree, None, "other")


def scan_wheel(wheel: Path, package: str) -> Iterator[Message]:
    """Messages of every `.py` file of `package` inside a wheel (read from the zip, never unpacked)."""
    with zipfile.ZipFile(wheel) as zf:
        for name in sorted(zf.namelist()):
            if name.startswith(package + "/") and name.endswith(".py"):
                text = zf.read(name).decode("utf-8", errors="replace")
                yield from scan_source(text, name)


# --- the per-engine spec ---------------------------------------------------------------------------

def load_spec(engine: str) -> ModuleType:
    """`harness/engines/<engine>/format_spec.py`, imported as a package module when it is one."""
    try:
        module = importlib.import_module(f"harness.engines.{engine}.format_spec")
        if hasattr(module, "classify"):
            return module
    except ImportError:
        pass
    path = ENGINES_DIR / engine / "format_spec.py"
    spec = importlib.util.spec_from_file_location(f"_format_spec_{engine}", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"no format spec for engine {engine!r} ({path})")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def build_rows(messages: Iterable[Message], spec: ModuleType) -> list[Row]:
    """The messages the spec assigns to a fact, once per (fact, template), in source order."""
    rows: dict[tuple[str, str], Row] = {}
    excluded = getattr(spec, "EXCLUDED_PATHS", ())
    for message in messages:
        if excluded and message.file.startswith(excluded):
            continue
        fact = spec.classify(message.template, message.context)
        if fact is None:
            continue
        key = (fact.name, message.template)
        preferred = getattr(spec, "PREFERRED_PATHS", ())
        if key in rows and not rows[key].source.startswith(preferred) and message.file.startswith(preferred):
            del rows[key]  # the same wording in a module the engine really runs (V1, not V0)
        if key not in rows:
            style, args = message.style, message.args
            if style == PLAIN and PRINTF.search(message.template):
                # A %-format kept in a variable and passed to the logger later: its arguments
                # are not at hand, so placeholders are named by position ($1, $2, ...).
                style = PERCENT
                args = tuple(f"${i + 1}" for i in range(len(PRINTF.findall(message.template))))
            fields = spec.fields_for(fact, args)
            rows[key] = Row(fact.name, fields, style, message.template, args, f"{message.file}:{message.line}")
    order = {name: i for i, name in enumerate(spec.FACT_ORDER)}
    return sorted(rows.values(), key=lambda r: (order.get(r.fact, len(order)), r.source))


def render_table(engine: str, version: str, wheel_name: str, rows: list[Row], spec: ModuleType) -> str:
    found = {r.fact for r in rows}
    missing = [name for name in spec.FACT_ORDER if name not in found]
    head = [
        f"# {engine} {version}: log/exception wording the parsers read, from {wheel_name}",
        ("# regenerate: python -m harness.engines.release_formats "
         f"{engine}=={version} --write"),
        f"# facts with no wording in this release: {', '.join(missing) if missing else '-'}",
        "\t".join(COLUMNS),
    ]
    return "\n".join(head + [r.tsv() for r in rows]) + "\n"


def _candidates(messages: Iterable[Message], spec: ModuleType) -> list[Message]:
    keywords = spec.KEYWORDS
    return [m for m in messages if keywords.search(m.template)]


def _save_scan(path: Path, wheel_name: str, messages: list[Message]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"wheel": wheel_name}) + "\n")
        for m in messages:
            out.write(json.dumps([m.template, m.style, m.file, m.line, m.context, list(m.args)]) + "\n")


def _load_scan(path: Path) -> tuple[str, list[Message]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    wheel = json.loads(lines[0])["wheel"]
    return wheel, [Message(t, st, f, ln, c, tuple(a)) for t, st, f, ln, c, a in map(json.loads, lines[1:])]


def scan_release(engine: str, version: str, cache: Path | None = None) -> tuple[str, list[Message]]:
    """(wheel name, candidate messages) of one release; the wheel is deleted before returning.

    With `cache`, the candidates (the messages the spec's KEYWORDS admit) are kept there
    and reused, so a changed spec re-classifies without downloading again.
    """
    spec = load_spec(engine)
    cached = cache / f"{engine}-{version}.jsonl" if cache is not None else None
    if cached is not None and cached.exists():
        return _load_scan(cached)
    errors = []
    for distribution in spec.distributions(version):
        with tempfile.TemporaryDirectory(prefix="release-formats-") as tmp:
            try:
                wheel = download_release_wheel(distribution, version, Path(tmp))
            except RuntimeError as exc:
                errors.append(str(exc))
                continue
            messages = _candidates(scan_wheel(wheel, spec.PACKAGE), spec)
            if cached is not None:
                _save_scan(cached, wheel.name, messages)
            return wheel.name, messages
    raise RuntimeError("; ".join(errors))


def extract(engine: str, version: str, cache: Path | None = None) -> tuple[str, list[Row], str]:
    """(wheel name, rows, table text) for one release."""
    spec = load_spec(engine)
    wheel, messages = scan_release(engine, version, cache)
    rows = build_rows(messages, spec)
    return wheel, rows, render_table(engine, version, wheel, rows, spec)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.engines.release_formats",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("releases", nargs="+", metavar="ENGINE==VERSION")
    parser.add_argument("--write", action="store_true", help="store the tables under harness/engines/<engine>/formats/")
    parser.add_argument("--cache", type=Path, help="keep each release's scanned messages here and reuse them")
    args = parser.parse_args(argv)
    status = 0
    for release in args.releases:
        engine, sep, version = release.partition("==")
        if not sep or not version:
            print(f"{release}: expected ENGINE==VERSION", file=sys.stderr)
            return 2
        try:
            wheel, rows, text = extract(engine, version, args.cache)
        except (RuntimeError, ValueError) as exc:
            print(f"{release}: {exc}", file=sys.stderr)
            status = 3
            continue
        if args.write:
            out = ENGINES_DIR / engine / "formats" / f"{engine}-{version}.tsv"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
            print(f"{release}: {len(rows)} rows from {wheel} -> {out.relative_to(ENGINES_DIR.parent.parent)}")
        else:
            sys.stdout.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
