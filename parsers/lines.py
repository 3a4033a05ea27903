"""Turning raw output into clean text lines, and log text into numbers.

Engine output arrives with ANSI colour codes, `\\r` line ends (vLLM ends every line of a
multi-line message with one), tqdm bars that redraw with a bare `\\r`, bytes that are not
UTF-8, trailing spaces, and whatever the tool that captured it put in front: `docker logs
-t` timestamps, compose `name  | ` prefixes, a Python-logging prefix of a wrapping program.
This module removes all of that in one place (`clean_segments`, `strip_wrappers`); the
engine modules only know their engine's own prefix.
"""

from __future__ import annotations

import ast
import html
import itertools
import json
import re

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A number as Python prints it (format_gib is str(round(x, 2)); byte counts may be negative).
NUM = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
# A timestamped capture (`.tlog`) puts "<seconds since start>\t" before each line.
RELATIVE_TIME = re.compile(r"^(\d+\.\d+)\t")
_INT = re.compile(r"^-?\d{1,3}(?:,\d{3})+$|^-?\d+$")
_FLOAT = re.compile(rf"^{NUM}$")


# Colour codes whose ESC byte a paste lost (a rendered GitHub issue drops the control character and keeps "[0;0m"):
# vLLM's process prefix in cyan, "\033[1;36m(APIServer pid=N)\033[0;0m" (0.11.0 vllm/utils/__init__.py:120-121),
# LMCache's level and location, "\x1b[32;20m" ... "\x1b[0m", "\x1b[3m" (LMCache 0.3.3 lmcache/logging.py:9-23),
# left as "(EngineCore_DP0 pid=284)[0;0m [32;20m[2026-01-19 ...] LMCache INFO:[0m Reqid: ..." (gpu-logs-64 vllm/08).
# Taken out only from a line that holds a reset code, the one every coloured span ends with, once a quoted line's
# literal is decoded, and never one a string literal still spells out ("\\u001b[0;0m" in a notebook's JSON, gpu-logs-54
# vllm/09: its escape is the literal's own).
_BARE_SGR = re.compile(r"(?<!\\u001b)(?<!\\x1b)(?<!\\033)(?<!\\e)\[\d{1,2}(?:;\d{1,2})*m")
_BARE_RESETS = ("[0m", "[0;0m")


def has_bare_reset(text: str) -> bool:
    """True when `text` holds a colour reset code that lost its ESC byte."""
    return any(reset in text for reset in _BARE_RESETS)


def clean_segments(raw: str | bytes, code: bool = True) -> list[str]:
    """One raw line -> the text lines it holds (a `\\r` inside a line starts a new one). `code`: the line may be a
    fixture's source code holding log lines (not inside a traceback, whose source lines are the engine's code)."""
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", errors="replace")
    text = (ANSI.sub("", raw) if "\x1b" in raw else raw).rstrip("\r\n")
    if text[:1] in "['\"" or text[:2].isspace() or (code and may_open_literals(text)):
        text = _pasted_strings(text, code)
        if "\x1b" in text:
            text = ANSI.sub("", text)
    if has_bare_reset(text):
        text = _BARE_SGR.sub("", text)
    if "<br" in text:
        text = _HTML_BREAK.sub("\r", text)
    segments = text.split("\r") if "\r" in text else [text]
    return [piece for segment in segments for part in _unpadded(segment) for piece in _unflattened(part)]


# A rendered page's line break inside one source line: a post that quotes log lines in a paragraph joins them with
# <br /> ("Model loading took <strong>48.5 GiB</strong> memory and ...<br />Available KV cache memory: <strong>21.5
# GiB</strong></p>", a WordPress post's content, gpu-logs-36 vllm/01). The br element is a line break (HTML Living
# Standard, 4.5.27 "The br element"): each side is a line of its own; the other tags go in `_shown`.
_HTML_BREAK = re.compile(r"<br\s*/?>", re.IGNORECASE)


# A terminal pads each line it shows to its width with spaces; a paste that lost the line ends keeps the padding and
# joins the next record to the line ("INFO 05-31 18:20:47 [executor_base.py:112] # cuda blocks: 91424, # CPU blocks:
# 18724" + 79 spaces + "INFO 05-31 18:20:47 [executor_base.py:117] Maximum concurrency for 128000 tokens per request:
# 11.43x", a 163-column terminal in ms-swift#4433, gpu-logs-28 vllm/02). A run of spaces after text, before vLLM's
# record header (its level, then the date as "%m-%d %H:%M:%S": 0.18.0 vllm/logger.py:22-26, the same since 0.6), a
# process's tag before it or not, starts a new line.
_PADDED_RECORD = re.compile(r"(?<=\S) {2,}(?=(?:\([^()]*pid=\d+[^()]*\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) "
                            r"\d\d-\d\d \d\d:\d\d:\d\d )")


# A terminal also wraps a line longer than its width, and a paste that keeps the rows on one line puts the first row's
# padding inside whatever the wrap cut: SGLang's summary "... context_len=262" + about 150 spaces + "144,
# available_gpu_mem=11.84 GB" (Ascend/sglang#522, an NPU start). The engines print a key=value number whole (0.5.23
# sglang/srt/managers/scheduler.py:1268-1276, "context_len={self.model_config.context_len}, " and the like; vLLM's
# config dumps likewise), so spaces between the digits of one are a terminal's: the number is joined.
_PADDED_NUMBER = re.compile(r"(?<=\w=)(\d+) {2,}(?=\d+(?:[,;)]|\s*$))")


# A page or a digest that flattened a log's line ends joins its records with one space ("... Loading model weights took
# 4.3752 GB INFO 01-23 07:34:26 gpu_executor.py:122] # GPU blocks: 11836, # CPU blocks: 4681 INFO 01-23 07:34:26
# gpu_executor.py:126] Maximum concurrency for 200 tokens per request: 946.88x Killed ...", an issue body in a wiki
# digest, gpu-logs-40 vllm/09). vLLM's whole record header - the level, the date as "%m-%d %H:%M:%S" (0.18.0
# vllm/logger.py:22-26; V0's 0.5.0 vllm/logger.py:18-19 the same) and the file tag "file.py:N]" with or without its
# bracket - starts a new line where a line holds two or more of them: one header is an ordinary line, whatever
# prefixes it (a compose service, journald, Ray's tag).
_RECORD_HEADER = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d \[?[\w.-]+\.py:\d+\] ")


# ... or an author who quoted two records on one line cut to their file tags ("`[gpu_worker.py:560] Available KV cache
# memory: 15.45 GiB [kv_cache_utils.py:2177] GPU KV cache size: 246,735 tokens`", a setup note's list item, gpu-logs-13
# vllm/07): the bracketed tag starts a record the same way (neither engine prints one inside a message)
_TAG_HEADER = re.compile(r"\[[\w.-]+\.py:\d+\] (?=\S)")


def _unflattened(segment: str) -> list[str]:
    """`segment` split before each of vLLM's record headers (or bracketed file tags) where it holds two or more after
    single spaces."""
    if segment.count(".py:") < 2:
        return [segment]
    headers = [m.start() for m in _RECORD_HEADER.finditer(segment)]
    if len(headers) < 2:
        headers = [m.start() for m in _TAG_HEADER.finditer(segment)]
    starts = [at for at in headers if at > 1 and segment[at - 1] == " " and segment[at - 2] != " "]
    if len(headers) < 2 or not starts:
        return [segment]
    bounds = [0, *starts, len(segment)]
    return [segment[a:b].rstrip(" ") for a, b in itertools.pairwise(bounds) if segment[a:b].strip()]


def _unpadded(segment: str) -> list[str]:
    """`segment` split where a terminal's padding joined a second record to it (most lines: itself), a number the
    terminal's wrap cut joined again."""
    if "  " not in segment:
        return [segment]
    if "=" in segment:
        segment = _PADDED_NUMBER.sub(r"\1", segment)
    if _PADDED_RECORD.search(segment) is None:
        return [segment]
    return _PADDED_RECORD.split(segment)


# A log pasted as Python string literals: a whole list on one line (`['INFO ...', 'INFO ...']`, what printing
# `proc.stdout.splitlines()` gives), or one quoted line per line of a list spread over lines. A test module or a script
# that keeps a real log as its fixture opens the literals with an assignment, a bracket or a call ("REAL = (", "BANNER
# = [", "f = scan(") and closes them with brackets, an attribute after them ("]", ").facts"); a log line split over
# adjacent literals is one string (Python's implicit concatenation), its end written as the escape "\\n" inside them.
# (A call's name starts in lower case: an exception's repr, "ValueError('...')", is not a fixture.)
LITERAL_OPENER = r"(?:[A-Za-z_]\w*\s*=\s*)?(?:(?:[a-z_][\w.]*)?[(\[]\s*)?"
LITERAL_CLOSER = r"\s*,?\s*(?:[)\]]+(?:\.\w+)*)?\s*[,;]?\s*"
_QUOTED_LINE = re.compile(r"""^\s*\[?\s*(?P<literal>(?P<q>['"]).*(?P=q))\s*,?\s*\]?$""")
# (a literal may be the first of a tuple whose other members are names: a program that shows a transcript pairs each
# line with its colour, '("INFO [kv_cache_utils]   GPU KV cache size: 452,800 tokens", CYAN),', gpu-oos13 v47's source)
_TUPLE_REST = r"(?:\s*,\s*[A-Za-z_][\w.]*)*"
_QUOTED_CODE = re.compile(rf"""^\s*{LITERAL_OPENER}(?P<literal>(?P<q>['"]).*(?P=q)){_TUPLE_REST}{LITERAL_CLOSER}$""")
_OPENS_LITERAL = re.compile(rf"""^\s*{LITERAL_OPENER}['"]""")


def may_open_literals(text: str) -> bool:
    """`text` starts with an assignment or a call that opens a string literal ("REAL = (\"INFO ..."). (The opener is
    at the line's start: a log line's own brackets further on are never looked at.)"""
    head = text[:_OPENER_WIDTH]
    return ('("' in head or "('" in head or '["' in head or "['" in head) and _OPENS_LITERAL.match(head) is not None


_OPENER_WIDTH = 64  # an indent, a name, " = ", a call's name and its bracket


def _pasted_strings(text: str, code: bool = True) -> str:
    """The lines a line of Python string literals holds, joined by `\\r` (each becomes a line); `text` otherwise."""
    match = _QUOTED_LINE.match(text) or (_QUOTED_CODE.match(text) if code else None)
    if match is None:
        return text
    literal = match.group("literal")
    try:
        value = ast.literal_eval(f"[{literal}]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    if not value or not all(isinstance(item, str) for item in value):
        return text
    return "\r".join(line for item in value for line in item.rstrip("\n").split("\n"))


# What capture tools put before a line, outermost first. Each is removed at most once, in
# this order: `docker logs -t` (RFC 3339 with nanoseconds), compose/`kubectl --prefix`
# service names, then `docker logs -t` again (compose puts its name first).
# Exactly one separating space is theirs: a traceback's indentation after it is the engine's.
_DOCKER_TS = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? "
# A CI job log's own UTC stamp in brackets before each line, as Buildkite's raw job log of vLLM's CI is quoted:
# "[2026-02-24T20:21:58Z] (EngineCore_DP0 pid=6940) ValueError: Free memory on device ..." (pytorch#175666, gpu-logs-66
# vllm/01), "[2025-03-10T15:07:20Z] INFO 03-10 08:07:20 [gpu_model_runner.py:1067] ..." (vllm#14574). Before a logger's
# prefix that prefix is found anyway; before a line the engine printed bare (an exception's, no level) only removing the
# stamp lets the line read as the engine's.
_CI_TS = r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?Z\] "
# (a CI log viewer's gutter has no name: Buildkite's "  | " before each line of a job's log, as vllm-omni#946's and
# vllm#14574's CI excerpts show it; a markdown table's "| " at the line's very start is not one)
_COMPOSE = r"(?:[A-Za-z0-9][\w.\-/]*\s*\| ?|\[pod/[^\]]+\] |\s+\| )"
# PyTorch's per-rank tag on a distributed process's output, "[rank0]: Traceback (most recent call last):",
# "[rank0]:[W326 ...] Warning: ..." (vllm#5847's 0.5.0 API server, vllm-ascend 0.7.3 under a trainer): one space is
# the tag's
_TORCH_RANK = r"\[rank\d+\]: ?"
# A log viewer's time of day before each line, the engine's own date and time cut from the line: Modal's log view of a
# vLLM start ("05:21:50 (EngineCore pid=75) INFO Available KV cache memory: 20.27 GiB", gpu-logs-17 vllm/06) or an
# author's cut ("16:07:44 [kv_cache_utils.py:1319]     GPU KV cache size: ...", vllm/03). Neither engine starts a
# line with a bare time: vLLM's is after the level and the date (0.18.0 vllm/logger.py:22-26), SGLang's is bracketed.
_CLOCK = r"\d\d:\d\d:\d\d(?:[.,]\d+)? "
# The systemd journal as journalctl shows it: the entry's time, the host (absent under --no-hostname), the identifier
# and the pid, then the message - "Feb 26 17:41:22 jeebs-Z490-AORUS-MASTER python3.12[409240]: (EngineCore_DP0
# pid=409240) ValueError: ..." (-o short, the default, "mostly identical to the formatting of classic syslog files";
# -o short-precise adds microseconds; -o short-iso writes "2026-10-10T05:17:01-06:00 h python3[1]: ": journalctl(1),
# systemd 255, --output=). The identifier is the unit's program, a script's name included
# ("qwen3.8-27b-nvfp4-1m.sh[863334]: ", gpu-logs-56 vllm/04); its pid is the journal's, never the engine's figure.
_JOURNAL_TIME = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-3]\d \d\d:\d\d:\d\d(?:\.\d+)? "
_JOURNAL_SOURCE = r"(?:[\w.-]+ )?(?P<identifier>[^\s\[\]:]+)\[\d+\]: "
_JOURNAL = rf"(?:{_JOURNAL_TIME}|{_DOCKER_TS}){_JOURNAL_SOURCE}"
WRAPPER = re.compile(
    rf"^(?:{_JOURNAL})?(?:{_DOCKER_TS}|{_CI_TS})?(?:{_COMPOSE})?(?:{_DOCKER_TS})?(?:{_CLOCK})?(?:{_TORCH_RANK})?")
_CAPTURE = re.compile(rf"^(?:{_JOURNAL}|{_DOCKER_TS}|{_CI_TS}|{_COMPOSE}|{_TORCH_RANK})")
# A journal's line starts with its entry's time: an indent before it is whoever kept the lines - a test module's
# textwrap.dedent("""\ ...""") literal indented with its code (gpu-logs-56 vllm/06), a quote's block - not the
# message's.
_INDENTED_JOURNAL = re.compile(rf"^[ \t]+(?={_JOURNAL})")
LEVEL_NAMES = r"DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL|TRACE"
# A Python-logging prefix of a program that wraps the engine (or of an engine whose own
# format was switched off): `INFO:name:msg`, `2025-01-01 10:00:00,123 - name - INFO - msg`,
# `2025-01-01 10:00:00,123 INFO name: msg`, `[2025-01-01 10:00:00] [INFO] msg`.
# A Rust `tracing` line (Dynamo's runtime, and the Python logs it formats alike) is `<RFC 3339>Z  INFO
# target::path{span fields}: msg`. A format that separates its fields with pipes may put more of them before the level
# and a spaced colon after it: `%(asctime)s | %(module)s | %(thread)d | %(levelname)s : %(message)s` (vllm-omni's stages
# on MUSA, vllm-omni#2337 of 2026-03: "2026-03-30 13:12:04 | kv_cache_utils | 140661262452544 | INFO : GPU KV cache
# size: ..."). A log viewer's export may put the severity first and the entry's timestamp after it: Google Cloud
# Logging's "ERROR 2026-06-15T14:10:59.392125190Z <message>" (an SGLang server's log of sglang#28702, 2026-06).
# A bracketed level may be padded to a column: lighteval's "[%(asctime)s] [%(levelname)8s]: %(message)s
# (%(filename)s:%(lineno)s)" (its colorlog format, lighteval/__main__.py logging_config of 2025) writes "[    INFO]: "
# before vLLM's records (open-r1#551, gpu-logs-37 vllm/08); the file tag it puts at the end is left in the message.
PY_LOGGING = re.compile(
    rf"^\s*(?:\[?\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?Z?\]?\s*(?:-\s*|\|\s*)?)?"
    rf"(?:[\w.]+\s+-\s+|(?:[\w.-]+\s+\|\s+)+)?(?:\[ {{0,4}})?(?P<level>{LEVEL_NAMES})\]?"
    rf"(?::[\w.<>]+:|:\s+|\s+:\s+|\s+-\s+(?:[\w.]+\s+-\s+)?|\s+\|\s+|\s+[\w.]+:\s+"
    rf"|\s+[\w.]+(?:::[\w.]+)+(?:\{{[^}}]*\}})?(?::[\w.]+(?:\{{[^}}]*\}})?)*:\s+|\s+)"
    rf"(?:\d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?Z\s)?"
)


# What people and viewers put around a log they show, removed before the capture tools' prefixes: `grep -n`'s line
# number (and file name), HTML tags of a rendered page, a Kubernetes log viewer's box border, a shell comment.
# (with a file name before it, grep's number is grep's whatever follows: a line that itself starts with a time or a
# date, "server.log:12:16:07:44 [kv_cache_utils.py:1319] ..." (grep -n over a Modal log or a pipe-separated format,
# gpu-logs-17 vllm/06, gpu-logs-10 vllm/01); a bare number before a digit may be the line's own time, "12:16:07")
_GREP_N = re.compile(r"^(?:[\w./-]+\.\w+[:-]\d+[:-]|\d+[:-](?![\d:-]))")
# An editor's or a pager's line numbers (vim's `:set number`, `less -N`: the number, one space; `cat -n`, `nl`: a tab),
# before a log line's bracket or parenthesis, a level, or the indent of a traceback's frame: "16433 [2026-07-23 15:23:26
# DP2 TP2 EP2] Scheduler hit an exception: ...", "16434   File \".../scheduler.py\", line 4656, ..." (sglang#32182).
# The indent after the number is the line's own.
_NUMBERED = re.compile(r"^\d{1,7}[ \t](?=[\[(]|[ \t]|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b)")
_HTML_TAG = re.compile(r"</?(?:span|div|pre|code|b|i|em|strong|font|br|p|td|tr|a|mark|kbd|samp)\b[^>]*>")
# (and the bar a quote is drawn with when it is copied out of a terminal or a chat, at the line's start only: "▎
# Available KV cache memory: 22.5 GiB" (U+258E, eugr/spark-vllm-docker#396, gpu-logs-32 vllm/09), or rich's Markdown
# blockquote "▌ " (U+258C, rich 15.0.0 rich/markdown.py:211))
_BOX = re.compile(r"^\s*[│┃║▌▍▎▏]\s?|\s*[│┃║]\s*$")
# (only before what starts a log line: vLLM's own "# GPU blocks: N" begins with "# "), or before an author's indent
# under it (log values copied into a script's or a config's comments: "#   Available KV cache memory: 24.05 GiB")
_COMMENT = re.compile(r"^#+ (?=[\[(]|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\b|\d{4}-\d\d-\d\d)|^#+ {2,}(?=\S)")
# The line-comment mark of the C family's source (C, C++, Go, Java, JavaScript, Rust, Swift): "// ", and Rust's doc
# comments "/// " and "//! " (The Rust Reference, "Comments"), at a line's start or under the indent of the code that
# holds it - log lines an author quoted in a doc comment, one mark a line ("/// Auto set (5.37/32.72) GiB for KV cache
# on node 1, with 11.11 GiB requested memory for the" / "/// worker. 5.74 GiB memory was consumed by non-kv usages.",
# a Rust crate's memory planner for vLLM's CPU backend, gpu-logs-106 vllm/09-10). Neither engine starts a line with
# "//"; a mark is followed by a space (a scheme-relative URL, "//host/path", is not one).
_LINE_COMMENT = re.compile(r"^[ \t]*//[/!]? +(?=\S)")
# Markdown an author wrote around the lines of a log: a blockquote ("> CPU KV cache size: 699,008 tokens, ..."), a list
# item ("  - Available KV cache memory: 0.58 GiB"), a table row whose first cell quotes a line as code ("| `CPU KV cache
# size: 174,720 tokens` | what it means |"). The marker is removed only before text (never a traceback's indent).
_MARKDOWN_FIRST = ">-*+| "
# (a blockquote's text may be indented up to three spaces past its marker's space: CommonMark 0.31, "Block quotes")
_QUOTE_OR_ITEM = re.compile(r"^(?:>+ {1,4}|[ \t]{0,6}[-*+] )(?=\S)")
_TABLE_CODE_CELL = re.compile(r"^\|\s*`(?P<code>[^`|]+)`\s*\|")
# Log lines kept in Go source as raw string literals (between back quotes, The Go Programming Language Specification,
# "String literals"): a log opened by an assignment ("logs := `ValueError: ...", "const deathLog = `[2026-07-25 ...")
# and closed by the back quote ending its last line, or one line a slice element ("`(Worker_TP0 pid=510) INFO ...`,").
_GO_RAW_OPEN = re.compile(r"^\s*(?:(?:const|var)\s+)?[A-Za-z_]\w*\s*:?=\s*`(?=\S)|^\s*`(?=[^`]+`,?\s*$)")
_GO_RAW_CLOSE = re.compile(r"`,?\s*$")
# An author's strong emphasis around a figure inside a log line (CommonMark 0.31, "Emphasis and strong emphasis": `**`
# or `__` on both sides): "Maximum concurrency for 1,048,576 tokens per request: **1.71x**" (a bring-up journal's note,
# gpu-logs-35 vllm/06). Only around a number with its unit, so a traceback's "**kwargs" stays as it is.
_STRONG_FIGURE = re.compile(r"(\*\*|__)(?P<figure>\d[\d.,]*(?: ?(?:x|%|[KMGT]i?B|s|tokens))?)\1")
# Structured logging: logfmt (`level=info name=vllm... msg="GPU KV cache size: ..."`) and one JSON object a line
# (`{"level": "INFO", "message": "..."}`): the message, after its level as a plain-logging prefix would give it.
_LOGFMT_MSG = re.compile(r'(?:^|\s)(?:msg|message)=(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|(?P<bare>\S+))')
_LOGFMT_LEVEL = re.compile(r"(?:^|\s)(?:level|lvl|severity)=\"?(?P<level>\w+)")
_JSON_KEYS = ("message", "msg", "event")


def _structured(text: str) -> str:
    """The message of a logfmt or JSON log line, as `LEVEL message`; `text` itself when it is neither."""
    if text.startswith("{") and text.endswith("}"):
        try:
            record = json.loads(text)
        except ValueError:
            return text
        message = next((record[k] for k in _JSON_KEYS if isinstance(record.get(k), str)), None)
        if message is None:
            return text
        level = str(record.get("level") or record.get("levelname") or record.get("severity") or "").upper()
        return f"{level} {message}" if level else message
    match = _LOGFMT_MSG.search(text)
    if match is None or "=" not in text[:match.start() + 1]:
        return text
    message = match.group("bare") or match.group("quoted").replace('\\"', '"').replace("\\\\", "\\")
    level = _LOGFMT_LEVEL.search(text[:match.start()])
    return f"{level.group('level').upper()} {message}" if level else message


# A forum's markdown escaping of the brackets a record carries: a composer that turns a paste into markdown writes
# "[default_loader.py:384]" as "\[default_loader.py:384\]" (CommonMark 0.31.2, 2.4 "Backslash escapes": any ASCII
# punctuation), and the page keeps the backslashes (gpu-logs-42 vllm/01, discuss.vllm.ai #2584, every vLLM tag and the
# author's "\[...\]"). vLLM's tag is "[%(fileinfo)s:%(lineno)d]" (0.10.2 vllm/logger.py:25-26). Only a pair whose
# both brackets are escaped is taken back; a lone escaped bracket stays.
_ESCAPED_BRACKETS = re.compile(r"\\\[([^\[\]\\]*)\\\]")


def _shown(text: str) -> str:
    """`text` without what showing it added (grep -n, HTML, a box border, a comment mark, markdown, an author's
    bold figure)."""
    if "<" in text and ">" in text:
        text = _HTML_TAG.sub("", text)
        if "&" in text:
            text = html.unescape(text)
    if _BOX.search(text):
        text = _BOX.sub("", text)
    if text[:1].isdigit() or "." in text[:64]:
        text = _GREP_N.sub("", text, count=1)
        if text[:1].isdigit():
            text = _NUMBERED.sub("", text, count=1)
    if "#" in text[:_COMMENT_INDENT]:
        text = _uncommented(text)
    if "//" in text[:_COMMENT_INDENT] and (comment := _LINE_COMMENT.match(text)) is not None:
        text = text[comment.end():]
    if text[:1] in _MARKDOWN_FIRST and text:
        text = _markdown(text)
    if "`" in text and (opened := _GO_RAW_OPEN.match(text)) is not None:
        text = text[opened.end():]
        text = _GO_RAW_CLOSE.sub("", text) if text.count("`") % 2 else text
    if "**" in text or "__" in text:
        text = _STRONG_FIGURE.sub(r"\g<figure>", text)
    if "\\[" in text:
        text = _ESCAPED_BRACKETS.sub(r"[\1]", text)
    return text


def _uncommented(text: str) -> str:
    """`text` without a comment mark before a log line, at the line's start or after the indent of the code that holds
    the comment (a shell function's "  #   INFO gpu_worker.determine_available_memory: ..."); else `text` itself."""
    body = text.lstrip(" \t")
    if body[:1] != "#":
        return text
    uncommented = _COMMENT.sub("", body, count=1)
    return uncommented if uncommented != body else text


_COMMENT_INDENT = 16  # the indent of a comment in a script's function or block


def _markdown(text: str) -> str:
    """`text` without a markdown blockquote or list marker; a table row's first cell when it quotes a line as code."""
    if text[:1] == "|":
        match = _TABLE_CODE_CELL.match(text)
        return match.group("code") if match else text
    return _QUOTE_OR_ITEM.sub("", text, count=1)


def shown_mark(text: str) -> str:
    """What showing the log put before line `text` on every line it shows (grep -n's file and line number, an editor's
    line number, a viewer's border, an HTML tag), its numbers as 0; "" for none."""
    match = _GREP_N.match(text) or _NUMBERED.match(text) or _BOX.match(text) or _HTML_TAG.match(text)
    return re.sub(r"\d+", "0", match.group(0)) if match is not None and match.end() else ""


_JOURNAL_IDENTIFIER = re.compile(rf"^{_JOURNAL}")


def journal_identifier(text: str) -> str | None:
    """The program a journal's line is from ("python3.12" of "Feb 26 17:41:22 host python3.12[409240]: ..."); None
    for a line that is not a journal's."""
    match = _JOURNAL_IDENTIFIER.match(_shown(text).lstrip(" \t"))
    return match.group("identifier") if match else None


def has_capture_prefix(text: str) -> bool:
    """`text` starts with what a capture tool puts before each line it records (a container's time stamp or name,
    torch's rank): a line of its own, never the rest of a line a terminal cut. (A bare time of day may be either: the
    engine's own time after a cut inside its date.)"""
    return _CAPTURE.match(_shown(text)) is not None


def strip_wrappers(text: str) -> str:
    """`text` without the capture tools' prefixes (docker timestamps, compose names), what showing the log added
    (grep -n, HTML tags, a log viewer's border) and a structured-logging line's keys."""
    text = _shown(text)
    if text[:1] in " \t" and (indent := _INDENTED_JOURNAL.match(text)) is not None:
        text = text[indent.end():]
    match = WRAPPER.match(text)
    if match and match.end():
        text = text[match.end():]
    if "msg=" in text or "message=" in text or text[:1] == "{":
        text = _structured(text)
    if "across cluster]" in text:
        text = _RAY_DEDUP.sub("", text, count=1)
    return text


# Ray's driver folds the same line from several workers into one and says so at its end: "<line> [repeated 49x across
# cluster]", the first time followed by " (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log
# deduplication, or see https://docs.ray.io/... for more options.)" (ray-project/ray python/ray/_private/ray_logging/
# __init__.py DedupState.formatted and _warn_once, at 754c531c). The suffix is the driver's, not the worker's message:
# a traceback's header under it ("Traceback (most recent call last): [repeated 49x across cluster]", vllm#37974,
# gpu-logs-52 vllm/04) or a frame's source line must read as the worker printed it. The line before it is the last
# folded worker's (Ray folds lines that match with their numbers taken out, _canonicalise_log_line: the others' figures
# may differ).
_RAY_DEDUP = re.compile(r" ?\[repeated \d+x across cluster\](?: \(Ray deduplicates logs by default\.[^)]*\))?\s*$")


# A library's own Python logger that writes its fields in brackets, name and level first: kvcached's
# "[kvcached][INFO][2026-09-17 17:34:46][patches.py:131] msg" (kvcached/utils.py get_kvcached_logger, Formatter
# '[kvcached][%(levelname)s][%(asctime)s][%(filename)s:%(lineno)d] %(message)s'), or its name and level alone as a post
# shows it ("[kvcached][INFO] VirtualKV Cache is allocated. ..."). The plugin logs beside both engines.
BRACKETED_LOGGING = re.compile(rf"^\[[\w.-]+\]\[(?P<level>{LEVEL_NAMES})\](?:\[[^\]]*\])*\s*")


# A wrapper's root logging in the format "%(levelname)s:%(asctime)s:%(message)s", asctime Python's default
# "%Y-%m-%d %H:%M:%S,mmm": verl's (v0.6.1 verl/utils/logging_utils.py:25 set_basic_config, run at `import verl`,
# verl/__init__.py:34), which its rollout server's records and the engine's own take under Ray's actor tag:
# "(vLLMHttpServer pid=3184909) INFO:2025-10-06 08:41:13,160:Initializing a V1 LLM engine ..." (gpu-logs-55 vllm/04).
LEVEL_ASCTIME = re.compile(rf"^(?P<level>{LEVEL_NAMES}):\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d,\d{{3}}:")


# Ray Serve's own records (its controller's, its proxy's, a replica's): "%(levelname)s %(asctime)s {component_name}
# {component_id} " then the request's fields if any and "-- %(message)s" (Ray 2.46.0 ray/serve/_private/
# logging_utils.py:120 ServeFormatter.COMPONENT_LOG_FMT, constants.py:240-245 SERVE_LOG_RECORD_FORMAT): "ERROR
# 2025-06-11 13:15:51,444 controller 45327 -- Exception in Replica(...), the replica will be stopped." under Ray's
# actor tag (gpu-logs-68 vllm/06-08). The first " -- " ends the format's fields (none of them holds one).
# A wrapper that re-formats every handler may put the file and line before the level and more fields after the
# logger's name: ms-swift's GRPO run under "%(asctime)s %(filename)s:%(lineno)s %(levelname)s:%(name)s p:%(process)d
# t:%(thread)d: %(message)s" writes "2025-08-11 16:12:02 gpu_worker.py:104 INFO:vllm.v1.worker.gpu_worker p:475095
# t:140373120079680: Sleep mode freed ..." (a GRPO diagnosis page kept in a repository, gpu-logs-107 vllm/05; Python's
# logging attributes filename, lineno, levelname, name, process, thread): the date, the file tag "name.py:N", the
# level and the name, then each field " key:value" up to ": ". Tried only on a line whose head holds ".py:" (the
# common prefixes are not slowed).
FILE_TAGGED_LOGGING = re.compile(
    rf"^\d{{4}}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)? [\w.-]+\.py:\d+ "
    rf"(?P<level>{LEVEL_NAMES}):[\w.<>]+(?: \w+:\w+)*: ")
RAY_SERVE_FIELDS = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} [^ ]+ [^ ]+ (?:[^ ]+ )*?-- "
RAY_SERVE_LOGGING = re.compile(rf"^(?P<level>{LEVEL_NAMES}) {RAY_SERVE_FIELDS}")


def strip_level_asctime(text: str) -> tuple[str | None, str]:
    """(level, message) of a line in the "LEVEL:asctime:message" format; (None, text) otherwise."""
    match = LEVEL_ASCTIME.match(text) if text[:1].isupper() else None
    if match is None:
        return None, text
    level = match.group("level")
    return ("WARNING" if level == "WARN" else "CRITICAL" if level == "FATAL" else level), text[match.end():]


def strip_python_logging(text: str) -> tuple[str | None, str]:
    """(level, message) of a line with a Python-logging prefix; (None, text) otherwise."""
    if " -- " in text and (serve := RAY_SERVE_LOGGING.match(text)) is not None:  # (before PY_LOGGING takes the level)
        return serve.group("level"), text[serve.end():]
    if ".py:" in text[:64] and (tagged := FILE_TAGGED_LOGGING.match(text)) is not None:
        return tagged.group("level"), text[tagged.end():]
    match = PY_LOGGING.match(text) if text[:1] != "[" else (BRACKETED_LOGGING.match(text) or PY_LOGGING.match(text))
    if match is None:
        return strip_level_asctime(text)
    level = match.group("level")
    return ("WARNING" if level == "WARN" else "CRITICAL" if level == "FATAL" else level), text[match.end():]


def split_relative_time(line: str) -> tuple[float | None, str]:
    match = RELATIVE_TIME.match(line) if "\t" in line else None
    if match is None:
        return None, line
    return float(match.group(1)), line[match.end():]


def to_int(text: str) -> int:
    text = text.replace(",", "")
    return int(text) if re.fullmatch(r"-?\d+", text) else int(float(text))


def to_number(text: str | None) -> int | float | str | None:
    """Convert by shape: `1,024` -> 1024, `0.92` -> 0.92, `None` -> None, else the text."""
    if text is None or text == "None":
        return None
    if _INT.match(text):
        return to_int(text)
    if _FLOAT.match(text):
        return float(text)
    return text


def coerce(kind: type, text: str | None):
    """Convert to a record field's type (a GiB figure stays float even when printed `1`)."""
    if text is None or text == "None":
        return None
    if kind is int:
        return to_int(text)
    if kind is float:
        return float(text.replace(",", ""))
    if kind is bool:
        return text == "True"
    return text.strip("'\"")
