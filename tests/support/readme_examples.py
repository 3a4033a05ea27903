"""The command examples of a README, read so a test can run each one and find the output it shows.

In a fenced block, a line `$ python -m harness ARGS` starts an example and the lines under it, up to the next
`$ ` line or the end of the block, are its output (a blank line before the next example is no output). A
`$ cat NAME` line shows a file the examples after it use: its lines are the file's text. Text after two spaces
and a `# ` is the README's remark, not output (`# the first of its 5 points:`); a remark `exit N` on any line
of an example is the exit status the command ends with (0 where none says otherwise).

The README may show a subset of the output: the shown lines are found in the output in their order, each one
whole, its trailing spaces aside; a table row may be shown without its padding and right border (`│`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

HARNESS = ("python", "-m", "harness")
_REMARK = re.compile(r"\s{2,}#\s(?P<text>.*)$")
_EXIT = re.compile(r"\bexit (\d+)\b")
_RIGHT_BORDER = r"(?:\s*│)?"


@dataclass(frozen=True)
class Example:
    line: int  # the README line (1-based) of its `$ ` line
    argv: tuple[str, ...]  # the words after `python -m harness`
    shown: tuple[str, ...]  # the output lines it shows, remarks taken off
    exit_code: int
    page: str = "README"  # the file it is in, for messages

    @property
    def command(self) -> str:
        """The subcommand, as the tests name the examples: "plan", "envs list"."""
        words = [w for w in self.argv if not w.startswith("-")]
        return " ".join(words[:2]) if words[:1] == ["envs"] else words[0]

    def with_paths(self, paths: Mapping[str, str]) -> Example:
        """The same example with each README path (a key) replaced by the one on this host, in the command and
        the shown lines alike; one pass, longest key first."""
        if not paths:
            return self
        pattern = re.compile("|".join(re.escape(k) for k in sorted(paths, key=len, reverse=True)))

        def swap(text: str) -> str:
            return pattern.sub(lambda m: paths[m.group(0)], text)

        return replace(self, argv=tuple(swap(w) for w in self.argv), shown=tuple(swap(s) for s in self.shown))


@dataclass(frozen=True)
class Transcript:
    examples: tuple[Example, ...]
    files: Mapping[str, str]  # name -> text, from the `$ cat NAME` examples

    def example(self, command: str) -> Example:
        found = [e for e in self.examples if e.command == command]
        assert len(found) == 1, f"the docs have {len(found)} `{command}` examples; this test checks one"
        return found[0]


def read_pages(paths) -> Transcript:
    """The examples and shown files of several pages (README.md and docs/*.md) as one transcript."""
    examples: list[Example] = []
    files: dict[str, str] = {}
    for path in paths:
        transcript = read_transcript(path.read_text())
        examples += [replace(e, page=path.name) for e in transcript.examples]
        files.update(transcript.files)
    return Transcript(tuple(examples), files)


def read_transcript(text: str) -> Transcript:
    examples: list[Example] = []
    files: dict[str, str] = {}
    for start, body in _fenced_blocks(text.splitlines()):
        for number, head, lines in _entries(start, body):
            try:
                words = shlex.split(head, comments=True) if head.split()[:1] in (["python"], ["cat"]) else []
            except ValueError as exc:
                raise ValueError(f"README line {number}: `$ {head}`: {exc}") from None
            if words[:1] == ["cat"] and len(words) == 2:
                files[words[1]] = "".join(line + "\n" for line in lines)
            elif tuple(words[:3]) == HARNESS:
                examples.append(_example(number, head, words[3:], lines))
            else:
                raise ValueError(f"README line {number}: `$ {head}` is neither `python -m harness ...` nor `cat FILE`")
    return Transcript(tuple(examples), files)


def _fenced_blocks(lines: list[str]):
    """(the README line number of each block's first line, the block's lines)."""
    inside, start, body = False, 0, []
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            if inside:
                yield start, body
            inside, start, body = not inside, number + 1, []
        elif inside:
            body.append(line)


def _entries(start: int, body: list[str]):
    """(line number, the command after `$ `, the lines under it) for each `$ ` line of a block."""
    heads = [i for i, line in enumerate(body) if line.startswith("$ ")]
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(body)
        lines = body[i + 1:end]
        while lines and not lines[-1].strip():
            lines.pop()
        yield start + i, body[i][2:], lines


def _example(number: int, head: str, argv: list[str], lines: list[str]) -> Example:
    shown, codes = [], []
    for k, line in enumerate([head, *lines]):
        remark = _REMARK.search(line)
        if remark:
            codes += [int(c) for c in _EXIT.findall(remark.group("text"))]
        if k:
            shown.append((line[:remark.start()] if remark else line).rstrip())
    assert len(set(codes)) <= 1, f"README line {number}: remarks give exit codes {codes}"
    return Example(number, tuple(argv), tuple(shown), codes[0] if codes else 0)


def line_pattern(shown: str, varying: Mapping[str, str] | None = None) -> re.Pattern[str]:
    """What an output line (right-stripped) must fully match to be `shown`: the text itself, where each key of
    `varying` (a figure of the README's host: a free port, free disk) stands for its regex; a table's right
    border may follow."""
    keys = sorted(varying or {}, key=len, reverse=True)
    parts = re.split("(" + "|".join(re.escape(k) for k in keys) + ")", shown.rstrip()) if keys else [shown.rstrip()]
    return re.compile("".join((varying or {})[p] if p in keys else re.escape(p) for p in parts) + _RIGHT_BORDER)


def assert_shown_in_order(example: Example, output: str, varying: Mapping[str, str] | None = None) -> None:
    """Every non-blank shown line of `example` matches a line of `output`, each after the previous one's."""
    real = [line.rstrip() for line in output.splitlines()]
    at = 0
    for shown in (s for s in example.shown if s.strip()):
        pattern = line_pattern(shown, varying)
        hit = next((i for i in range(at, len(real)) if pattern.fullmatch(real[i])), None)
        if hit is None:
            where = f"after output line {at}" if at else "anywhere"
            raise AssertionError(f"{example.page} line {example.line} `python -m harness {shlex.join(example.argv)}`: "
                                 f"this shown line is not in the output {where}:\n{shown}\n"
                                 "--- the output:\n" + "\n".join(real))
        at = hit + 1


def check_run(example: Example, returncode: int, output: str, varying: Mapping[str, str] | None = None) -> None:
    assert returncode == example.exit_code, (f"{example.page} line {example.line}: exit {returncode}, it says "
                                             f"{example.exit_code}; the output:\n{output}")
    assert_shown_in_order(example, output, varying)


def shown_table(rows: Sequence[str]) -> list[list[str]]:
    """A plain table the README shows (columns two or more spaces apart), as cells."""
    return [re.split(r"\s{2,}", row.strip()) for row in rows if row.strip()]
