"""The machinery every engine parser shares: tables of (regex, actions), startup errors,
tracebacks, phases and events. An engine module supplies only its tables and its prefix.

Conventions that keep the tables short:
* a named group whose name is a StartupRecord field is stored into that field
  (converted to the field's type);
* every other named group is only handed to the rule's actions (numbers converted).
"""

from __future__ import annotations

import heapq
import operator
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise, repeat
from typing import ClassVar

from parsers import events as ev
from parsers.lines import (
    ANSI,
    LITERAL_CLOSER,
    LITERAL_OPENER,
    NUM,
    clean_segments,
    coerce,
    has_bare_reset,
    has_capture_prefix,
    journal_identifier,
    may_open_literals,
    shown_mark,
    split_relative_time,
    strip_python_logging,
    strip_wrappers,
    to_number,
)
from parsers.record import STATUS_ENGINE_ERROR, STATUS_OK, StartupRecord, field_kinds
from parsers.tracebacks import (
    FRAME_PATH,
    IPYTHON_FRAME,
    STEP_DETAIL,
    STEP_EXCEPTION,
    STEP_FRAME,
    Step,
    TracebackTracker,
    is_flat_frame,
)

if sys.version_info >= (3, 11):
    import re._constants as sre_constants
    import re._parser as sre_parse
else:  # Python 3.10 (Ubuntu 22.04's python3): the same modules under their old names
    import sre_constants
    import sre_parse

# How much an error explains. A more telling one replaces a less telling one; between
# equals the first wins (later ones are usually consequences: "see root cause above").
GENERIC = 1  # an exception with no known meaning, a process that died
SPECIFIC = 2  # a known engine error with its numbers

OTHER = "other"
MAX_DEFERRED = 10_000  # other ranks' lines kept for an excerpt without rank 0 (bounded memory)
LEVELS_THAT_FAIL = ("ERROR", "CRITICAL")
# A line that states an exception outright, e.g. "ValueError: ..." or "torch.OutOfMemoryError: ...", or Python's base
# class with its message, "Exception: ..." (SGLang raises one for a failed graph capture: 0.4.6
# sglang/srt/model_executor/cuda_graph_runner.py:279, 0.5.22 runner/decode_cuda_graph_runner.py:518).
EXCEPTION_LINE = re.compile(r"^\s*(?:(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception)\b:?|Exception: )")
# Tracebacks printed for things that do not stop the process.
NON_FATAL_HEADERS = re.compile(r"^(?:Exception ignored in|Exception in thread)\b")
INTERRUPTS = re.compile(r"^(?:KeyboardInterrupt|SystemExit)\b")
# Where a startup failed, told by the functions its traceback passes through (the innermost one named here wins:
# a capture and a profile both end in the model's dummy forward, which is named nowhere). vLLM 0.33.0
# vllm/v1/worker/gpu_worker.py determine_available_memory -> gpu_model_runner.py profile_run; initialize_from_config
# -> initialize_kv_cache -> _allocate_kv_cache_tensors / initialize_kv_cache_tensors; compile_or_warm_up_model ->
# capture_model -> _capture_cudagraphs; load_model. V0 (0.8.5 vllm/worker/worker.py) determine_num_available_blocks,
# initialize_cache -> _init_cache_engine (cache_engine.py _allocate_kv_cache). SGLang 0.5.22
# sglang/srt/model_executor/model_runner.py load_model, init_memory_pool (profile_max_num_token, then the pools'
# _create_buffers), init_device_graphs -> cuda_graph_runner.py capture / capture_one_batch_size;
# entrypoints/http_server.py _wait_and_warmup / _execute_server_warmup. Backend forks keep the names
# (vllm-ascend worker determine_available_memory, NPU pools' _create_buffers). SGLang's scheduler runs its requests in
# its event loop (0.5.10 sglang/srt/managers/scheduler.py:1303 event_loop_normal, :1331 event_loop_overlap; 0.5.18
# :1667 run_event_loop, :4902 dispatch_event_loop): the warm-up request's and every later one's.
FAILED_DURING = {
    "load_model": "loading", "load_weights": "loading",
    "determine_available_memory": "profiling", "profile_run": "profiling",
    "determine_num_available_blocks": "profiling", "profile_max_num_token": "profiling",
    "initialize_kv_cache": "kv_pool", "initialize_from_config": "kv_pool", "_allocate_kv_cache_tensors": "kv_pool",
    "initialize_kv_cache_tensors": "kv_pool", "_reshape_kv_cache_tensors": "kv_pool", "initialize_cache": "kv_pool",
    "_init_cache_engine": "kv_pool", "_allocate_kv_cache": "kv_pool", "init_memory_pool": "kv_pool",
    "_create_buffers": "kv_pool",
    # vLLM sizes the pool from the profiled memory before it makes it: 0.29.0 vllm/v1/engine/core.py:319
    # _initialize_kv_caches -> get_kv_cache_configs (kv_cache_utils.py:2214), whose budget check per worker
    # (:2331 -> _check_enough_kv_cache_memory, :852, raising "No available memory for the cache blocks" at :860 or
    # the max-seq-len ValueError at :880) runs only at the start (gpu-logs-41 vllm/02: a stage engine core's logged
    # frames cut at "raise ValueError(").
    "get_kv_cache_configs": "kv_pool", "_check_enough_kv_cache_memory": "kv_pool",
    # SGLang's scheduler makes its pools in one step of its own since 2026 (0.5.23 sglang/srt/managers/scheduler.py:1137
    # init_model_worker -> :1098 init_memory_pools -> init_target_memory_pool; gpu-logs-41 sglang/01, GitHub Actions'
    # traceback cut at "self.init_memory_pools()").
    "init_memory_pools": "kv_pool", "init_target_memory_pool": "kv_pool",
    # The model's layers are built only while the model is made (load_model -> get_model -> the model's __init__ ->
    # make_layers, vllm/model_executor/models/utils.py: "line 646, in make_layers" in a 2026 build, gpu-logs-66 vllm/07)
    "make_layers": "loading",
    # The sampler's warm-up runs only in the start, after the graph capture (0.10.x vllm/v1/worker/gpu_worker.py:335
    # compile_or_warm_up_model -> gpu_model_runner.py:2464 _dummy_sampler_run, gpu-logs-66 vllm/08; _dummy_pooler_run
    # for a pooling model)
    "_dummy_sampler_run": "warmup", "_dummy_pooler_run": "warmup",
    "capture_model": "cuda_graph_capture", "_capture_cudagraphs": "cuda_graph_capture",
    "init_device_graphs": "cuda_graph_capture", "init_cuda_graphs": "cuda_graph_capture",
    "capture_one_batch_size": "cuda_graph_capture",
    "_wait_and_warmup": "warmup", "_execute_server_warmup": "warmup", "warmup_model": "warmup",
    "event_loop_normal": "event_loop", "event_loop_overlap": "event_loop", "run_event_loop": "event_loop",
    "dispatch_event_loop": "event_loop",
    # SGLang's tokenizer manager reads every request's results in a loop its first request starts (0.5.10
    # sglang/srt/managers/tokenizer_manager.py:483 generate_request -> :1498 auto_create_handle_loop -> :1523
    # handle_loop, "The event loop that handles requests"; print_exception_wrapper, :2496, logs "TokenizerManager hit an
    # exception"): the warm-up request's and every later one's, as the scheduler's event loop (gpu-logs-42 sglang/02)
    "handle_loop": "event_loop",
    # SGLang's overlap scheduler runs its batches on a worker thread started with the worker (0.4.4
    # sglang/srt/managers/tp_worker_overlap_thread.py:79-82), whose loop (:109 forward_thread_func -> :119
    # forward_thread_func_) takes each batch the event loop queues (:124 input_queue.get()): the warm-up request's and
    # every later one's, as the event loop itself (gpu-logs-48 sglang/04)
    "forward_thread_func": "event_loop", "forward_thread_func_": "event_loop",
}
# The steps of the start FAILED_DURING names (not SGLang's event loop, which also serves requests).
START_STEPS = ("loading", "profiling", "kv_pool", "cuda_graph_capture")
_FRAME_FUNCTION = re.compile(r"^\s*File " + FRAME_PATH + r", line \d+, in (?P<function>\w+)")
_FRAME_OWNER = re.compile(r"^\s*File " + FRAME_PATH + r", line \d+, in (?P<function>[\w<>]+)")
_CALLS = re.compile(r"(\w+)\(")


# An RL framework's trainer step, which runs only after the trainer built its rollout engines: verl's TaskRunner calls
# init_workers() (which launches the rollout servers, verl v0.6.1 verl/trainer/ppo/ray_trainer.py:773 AgentLoopManager)
# and then fit() (v0.6.1 verl/trainer/main_ppo.py:338-341); fit() starts its tracker and loads the last checkpoint
# (ray_trainer.py:956-977, :967 Tracking, :977 _load_checkpoint -> the workers' load_checkpoint, :840-884, which
# nothing else calls; fsdp_workers.py:1083 and :1554, megatron_workers.py). A failure in such a frame is the trainer's,
# after the engines' start (gpu-logs-55 vllm/04: wandb's ValidationError under fit; vllm/06: a missing checkpoint).
_TRAINER_STEP_FRAME = re.compile(r'verl/(?:trainer/ppo/ray_trainer\.py", line \d+, in fit'
                                 r'|workers/\w+_workers\.py", line \d+, in load_checkpoint)\b')
# (texts the parsers' screens let through for it: such a frame may come with no traceback open, its header cut)
TRAINER_STEP_TEXTS = (", in fit", ", in load_checkpoint")


def _stage_named(frame: re.Match | None, text: str) -> str | None:
    """The step of the start (FAILED_DURING) a frame line's function names, or the last call naming one in the source
    line under a frame; None where none does."""
    names = [frame.group("function")] if frame else _CALLS.findall(text) if "(" in text else []
    stages = [FAILED_DURING[name] for name in names if name in FAILED_DURING]
    return stages[-1] if stages else None
HEADER_TEXT = "Traceback (most recent call last):"
# A piece of a Python string literal that goes on (no comma after it, not inside brackets): `    "... on"` or
# `"(Worker pid=1) ERROR ... ValueError: Available memory on"`; and a piece that may follow one.
_QUOTES = ("'", '"')
# (a backslash is an escape's only: were it also any character, a line of many escapes that is no piece, a repr of a
# carriage-return-joined bar "'...\\rCapturing ...\\r...'," of 20 bars, backtracks through 2^n ways and takes minutes)
_LITERAL = r"""(?P=q)(?:(?!(?P=q)|\\).|\\.)*(?P=q)"""
_PIECE_PLAIN = re.compile(r"""^\s*(?:\w+\s*=\s*\[\s*)?(?=(?P<q>['"]))""" + _LITERAL + r"(?:\s+" + _LITERAL
                          + r")*\s*$")
# (after the assignment, bracket or call a fixture opens its literals with: lines.LITERAL_OPENER)
_PIECE = re.compile(r"""^\s*""" + LITERAL_OPENER + r"""(?=(?P<q>['"]))""" + _LITERAL + r"(?:\s+" + _LITERAL
                    + r")*\s*$")


def _is_package(part: str, packages: tuple[str, ...]) -> bool:
    """A path's directory is one of `packages`, or a plugin of one ("vllm_ascend"; not a folder "vllm_073")."""
    return any(part == name or (part.startswith(name + "_") and part[len(name) + 1:].isalpha()) for name in packages)


# Lines in a row, each a piece of a string literal, that tell a log pasted as a Python list of strings
# (holds_literal_pieces): the pasted sets run to 3-7.
PASTE_RUN = 3


def _may_be_piece(raw: str) -> bool:
    """A cheap test: `raw` may be a piece of a pasted string literal (a quote first, after any indent or opener)."""
    return raw[:1] in _QUOTES or (raw[:1] == " " and raw.lstrip()[:1] in _QUOTES) or may_open_literals(raw)


# A continuation an author indented under the line it goes on (two to four spaces, then a word that is not a
# traceback's frame): "Mamba Cache is allocated. ..., conv_state size: 0.10GB," / "  ssm_state size: 2.58GB ...".
_HANGING = re.compile(r"^ {2,4}(?!File |Traceback )[A-Za-z_#(]")
# a whole line that is one string literal, as a log pasted as a list of strings has them
_LITERAL_LINE = re.compile(r"""^\s*""" + LITERAL_OPENER + r"""(?=(?P<q>['"]))""" + _LITERAL + LITERAL_CLOSER + "$")
_PIECE_NEXT = re.compile(r"""^\s*(?P<q>['"]).*(?P=q)""" + LITERAL_CLOSER + "$")
# A message that may go on on the next line: it ends mid-statement (a label, a list, an open bracket), or it is
# long and ends in the middle of a word (a terminal's fixed-width wrap).
_OPEN_END = re.compile(r"(?:[,:=(\[]|\w{2}\s*[-+]?|[^.!?)\]x\s]\w)$")


# A log file's name as a first column before the lines an author quotes from it, two spaces or more after it
# ("q4_f.log  Load weight begin. avail mem=24.76 GB"); how far into a line such a column may reach
_FILE_COLUMN = re.compile(r"^[\w.-]+\.log {2,}(?=\S)")
_COLUMN_WIDTH = 64


# the width from which a line may be a terminal's cut (a wrapped line's first part is at least this long)
_CUT_WIDTH = 60


def _columns(raw: str) -> int:
    """How many columns a terminal gave line `raw` (its colour codes take none)."""
    line = raw.rstrip("\r\n")
    return len(ANSI.sub("", line) if "\x1b" in line else line)


# a line end (NUL) where an author who wraps a line never breaks it: inside a number (digits on both sides, or its
# decimal point or thousands comma), before a closing bracket or punctuation (an ellipsis is an author's own line),
# or before the space between two words (an author breaks there and drops the space; an indent is two or more)
_AUTHORS_NEVER_CUT = re.compile(r"\d[.,]?\0\d|\d\0[.,]\d|\S\0[)\]},:;]|\S\0\.(?!\.)|\S\0 \S")
# how far short of the width an author's wrap at a space ends most lines (a long word's width)
_WORD_SPREAD = 10
# A line of a program's banner list, one space, an asterisk and a space: a line of its own, never the rest of a line a
# terminal cut, though it starts with one space. Flask's and Werkzeug's development servers print their banners so
# (flask 3.0.3 flask/cli.py:756 " * Serving Flask app '{app_import_path}'", :759 " * Debug mode: ..."; werkzeug 3.0.3
# werkzeug/serving.py:834-854 " * Running on ..."), as an app that wraps vLLM does after it (gpu-logs-109 vllm/02: "...
# when initializing the engine." / " * Serving Flask app 'app'").
_BANNER_ITEM = re.compile(r"^ \* \S")


def terminal_width(lines: list[str]) -> int | None:
    """The width a terminal cut a pasted log's lines at, where the text shows it did (None: no cut seen). A hard wrap
    leaves every piece of a long line but its last exactly as wide as the terminal and nothing wider, so the widest
    lines are the candidates; an author who wraps at a space leaves a line or two that wide too, and a log has lines
    of one width of its own (each rank's copy of a line). The terminal shows itself by a cut no author makes
    (_AUTHORS_NEVER_CUT; once is enough), or by many lines exactly that wide, more than twice as many
    as a little narrower (an author's wrap spreads its lines' ends over a word's width)."""
    widths = Counter(_columns(line) for line in lines)
    width = max(widths, default=0)
    if width < _CUT_WIDTH:
        return None
    if _many_at(widths, width) or _never_cut_at(lines, width):
        return width
    # A paste whose widest lines the terminal did not cut: a few lines wider than the rest, after rows it cut at its
    # width (a notes page's Unsloth/vLLM run broken at 126 columns - "... in determine_available_memor" / "y", "...
    # should be saved" / " in their own ..." - whose last three lines, the exception lines and NCCL's warning, run to
    # 155-269 columns unbroken, gpu-logs-108 vllm/06). Below the widest, a width is the terminal's only where both
    # tests hold: many rows exactly that wide, and a cut no author makes.
    wider = widths[width]
    for columns in sorted(widths, reverse=True)[1:]:
        if wider > _UNCUT_FEW or columns < _CUT_WIDTH:
            return None
        if _many_at(widths, columns) and _never_cut_at(lines, columns):
            return columns
        wider += widths[columns]
    return None


# how many lines wider than a terminal's width a paste of its rows may hold (lines it did not cut)
_UNCUT_FEW = 3


def _many_at(widths: Counter, width: int) -> bool:
    """Many lines exactly `width` wide, more than twice as many as a little narrower (an author's wrap at a space
    spreads its lines' ends over a word's width; a terminal's cut does not)."""
    near = sum(count for columns, count in widths.items() if width - _WORD_SPREAD <= columns < width)
    return widths[width] >= 3 and widths[width] >= 2 * near


def _never_cut_at(lines: list[str], width: int) -> bool:
    """A line `width` wide ends where no author breaks a line (_AUTHORS_NEVER_CUT) before the next goes on."""
    cuts = [line.rstrip("\r\n")[-2:] + "\0" + following[:2] for line, following in pairwise(lines)
            if _columns(line) == width and not _BANNER_ITEM.match(following)]
    return any(_AUTHORS_NEVER_CUT.search(cut) for cut in cuts)


# A line continuation an author or a program that shows the log put at a break ("... CUDA graph pool memory: 8.57 GiB
# (actual), \" / "33.06 GiB (estimated), ..."): a Python string's or a shell's backslash-newline, which the language
# itself removes (the Python reference, 2.4.1 string literals, backslash-newline ignored; POSIX sh 2.2.1 escape
# character). Neither engine's own messages end with one.
_CONTINUED = " \\"


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _hangs_under(held: str, following: str) -> bool:
    """`following` is a word two to four spaces deeper than the indented line `held`: an author's hanging indent under
    a line he broke inside a block he indented as a whole."""
    return held[:1] == " " and 2 <= _indent(following) - _indent(held) <= 4 and following.lstrip()[:1].isalpha()


def _incomplete(text: str, raw: str = "") -> bool:
    # long: the message, or the whole line a terminal cut at its width (a short message after a long prefix)
    return len(text) >= 24 and _OPEN_END.search(text) is not None and (
        max(len(text), len(raw)) >= _CUT_WIDTH or text[-1] in ",:=([")


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs a microsecond a line
class Line:
    """One log line split into its parts."""

    text: str  # the message (the whole line when it has no engine prefix)
    raw: str  # the line without ANSI codes and line ends
    source: str = ""  # which process wrote it, as far as the prefix tells ("" if unknown)
    level: str | None = None
    prefixed: bool = False
    primary: bool = True  # from the first rank (facts logged once per rank are taken from it)
    rank: str = ""  # which rank wrote it, as the prefix names it ("" if it names none)
    t: float | None = None  # seconds since start, in a timestamped capture


Action = Callable[["LogParser", dict, Line], None]


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern
    actions: tuple[Action, ...] = ()
    primary_only: bool = False  # facts every rank logs: take rank 0's
    keyword: str | None = None  # text every match contains: a cheap `in` test skips most lines
    any_of: tuple[str, ...] | None = None  # texts one of which every match contains
    # the text that ends the message: the engine prints it on one line, and where a line it reads lacks it (an author
    # or a viewer broke the message over lines, at a sentence or inside a number pair) the next line may go on with it
    until: re.Pattern | None = None
    # a fact that matters only until the server is up (a served request): once it is, the rule reads no more lines,
    # and its text no longer makes a line worth reading (a long server log's requests stay skipped in bulk)
    before_ready: bool = False


def required_literal(pattern: re.Pattern) -> str | None:
    """The longest run of plain characters that every match of `pattern` must contain."""
    found = _required(pattern)
    return found[0] if found is not None and len(found) == 1 else None


def required_texts(pattern: re.Pattern) -> tuple[str, ...] | None:
    """Texts one of which every match of `pattern` contains (None: no such set is known)."""
    return _required(pattern)


def _required(pattern: re.Pattern) -> tuple[str, ...] | None:
    if pattern.flags & re.IGNORECASE:
        return None
    return _sequence(sre_parse.parse(pattern.pattern, pattern.flags))


def _distinct(text: str) -> int:
    """How well a literal tells a rule's lines from others: longer is better, a symbol best (vLLM's banner █)."""
    return len(text) + (100 if not text.isascii() else 0)


def _sequence(items) -> tuple[str, ...] | None:
    # Only items every match takes part in: the top-level sequence, a group in it, every
    # branch of an alternation in it.
    best, run, alternatives = "", [], None
    for op, value in items:
        if op is sre_constants.LITERAL:
            run.append(chr(value))
            continue
        best, run = max(best, "".join(run), key=_distinct), []
        if op is sre_constants.SUBPATTERN:
            inner = _sequence(value[-1])
        elif op is sre_constants.BRANCH:
            branches = [_sequence(branch) for branch in value[1]]
            inner = None if any(b is None for b in branches) else tuple(t for b in branches for t in b)
        else:
            continue
        if inner is not None and (alternatives is None or min(map(len, inner)) > min(map(len, alternatives))):
            alternatives = inner
    best = max(best, "".join(run), key=_distinct)
    if len(best) >= 3 or not best.isascii():
        return (best,)
    if alternatives is not None and min(map(len, alternatives)) >= 3:
        return alternatives
    return None


# Words too frequent in engine logs to tell a rule's line from others: a rule whose keyword
# has no other whole word is screened by its whole keyword instead.
COMMON_WORDS = frozenset({"a", "an", "and", "for", "in", "is", "of", "on", "the", "to", "with", "model", "Model",
                          "engine", "cache", "runner", "memory", "GPU", "KV", "version", "took", "set", "size",
                          "up", "max", "using", "from", "by", "at", "as"})


def _word_index(rules: tuple[Rule, ...]) -> tuple[dict[str, list[int]], list[int], dict]:
    """word -> the rules whose keyword holds it as a whole word; and the rules with no such word.

    A word with a space on both sides inside the keyword is a whitespace-separated token of
    every line the rule matches, so a line without any rule's word needs only the others.
    """
    words: dict[str, list[int]] = {}
    always = []
    for i, r in enumerate(rules):
        pieces = (r.keyword or "").split(" ")
        inner = [w for w in pieces[1:-1] if w and w not in COMMON_WORDS and not any(ch.isspace() for ch in w)]
        if not inner:
            always.append(i)
            continue
        words.setdefault(max(inner, key=len), []).append(i)
    return words, always, {}


# What makes a line an error or part of one whatever its wording: a level that fails, an
# exception's name, a traceback (EXCEPTION_LINE, LEVELS_THAT_FAIL, NON_FATAL_HEADERS, INTERRUPTS).
ERROR_TEXTS = ("ERROR", "CRITICAL", "FATAL", "Error", "Exception", "Traceback", "KeyboardInterrupt", "SystemExit")


def _screen(cls, ready: bool) -> tuple[frozenset[str], tuple[str, ...]] | bool:
    """The words and texts one of which every line that any table can read holds (True: unknown); `ready`: once the
    server is up (the rules read before it only left out)."""
    rules = _rules_for(cls, ready)
    words, always, _ = _word_index(rules)
    texts = _required_texts(cls, [rules[i] for i in always])
    return True if texts is None else (frozenset(words), texts)


def _block_texts(cls, ready: bool) -> tuple[str, ...] | None:
    return _required_texts(cls, _rules_for(cls, ready))


def _rules_for(cls, ready: bool) -> tuple[Rule, ...]:
    return tuple(r for r in cls.rules if not r.before_ready) if ready else cls.rules


def _required_texts(cls, rules) -> tuple[str, ...] | None:
    """Texts one of which a line must hold to be read by `rules`, the failure markers or a standalone
    error rule (the error texts always count); None when one of them can match without any fixed text."""
    texts = [*ERROR_TEXTS, *cls.screen_texts]
    for r in rules:
        found = (r.keyword,) if r.keyword else r.any_of
        if found is None:
            return None
        texts.extend(found)
    for pattern in [cls.failure_markers, *(e.pattern for e in cls.error_rules if e.standalone)]:
        found = required_texts(pattern)
        if found is None:
            return None
        texts.extend(found)
    return tuple(dict.fromkeys(texts))


# vLLM names a data-parallel replica's processes after its DP index: its engine core "EngineCore_DP{n}" (0.29.0
# vllm/v1/engine/core.py:1303-1306) and its workers "Worker_DP{n}_TP{t}..." (0.29.0
# vllm/v1/executor/multiproc_executor.py:1080-1095). A worker states the KV budget, its engine core the KV pair, so an
# excerpt of one non-zero replica (gpu-logs-32 vllm/03: Worker_DP3_TP0_DCP0_EP12 and EngineCore_DP3) is that
# replica's figures under two process names.
_DP_INDEX = re.compile(r"_DP(\d+)")


def _replica(rank: str) -> str:
    """The data-parallel replica a process name belongs to ("DP3"), or the name itself where it names none."""
    match = _DP_INDEX.search(rank) if "_DP" in rank else None
    return f"DP{match.group(1)}" if match else rank


def rule(regex: str, *actions: Action, primary_only: bool = False, until: str | None = None,
         before_ready: bool = False) -> Rule:
    """A table row; `{NUM}` in the regex stands for a printed number; `until`: the text that ends its message;
    `before_ready`: read only until the server is up."""
    pattern = re.compile(regex.replace("{NUM}", NUM))
    return Rule(pattern, actions, primary_only, required_literal(pattern), required_texts(pattern),
                re.compile(until) if until is not None else None, before_ready)


@dataclass(frozen=True)
class ErrorRule:
    kind: str
    pattern: re.Pattern
    rank: int = SPECIFIC
    standalone: bool = False  # a plain log line (no traceback, no ERROR level) is enough
    keyword: str | None = None  # text every match contains
    # (regex, key) pieces the line may also hold, each wherever it stands: its first group is error_data[key]
    extras: tuple[tuple[re.Pattern, str], ...] = ()
    stage: str | None = None  # the start's step the error is always of (FAILED_DURING), whatever the frames say


def error(kind: str, regex: str, rank: int = SPECIFIC, standalone: bool = False,
          extras: tuple[tuple[str, str], ...] = (), stage: str | None = None) -> ErrorRule:
    pattern = re.compile(regex.replace("{NUM}", NUM))
    compiled = tuple((re.compile(r.replace("{NUM}", NUM)), key) for r, key in extras)
    return ErrorRule(kind, pattern, rank, standalone, required_literal(pattern), compiled, stage)


# PyTorch's out-of-memory message, the same for every device its allocators serve (CUDA, HIP on ROCm, and the
# backends' own: torch_npu "NPU out of memory", XPU, MUSA): "<DEV> out of memory. Tried to allocate 2.57 GiB (NPU 0;
# 60.96 GiB total capacity; ...)" (torch up to 2.0 and torch_npu), or "... Tried to allocate 2.00 GiB. GPU 0 has a
# total capacity of 23.52 GiB of which 1.06 GiB is free." (torch 2.1 on, c10/cuda/CUDACachingAllocator.cpp).
OOM_FIGURES = (
    (r"Tried to allocate ({NUM}) GiB", "tried_gib"),
    (r"Tried to allocate ({NUM}) MiB", "tried_mib"),
    (r"({NUM}) GiB total capacity", "total_gib"),
    (r"has a total capacity of ({NUM}) GiB", "total_gib"),
    (r"of which ({NUM}) GiB is free|; ({NUM}) GiB free;", "free_gib"),
    (r"of which ({NUM}) MiB is free|; ({NUM}) MiB free;", "free_mib"),
)  # (also an engine's own error's, where it quotes the allocator's message: vLLM's weights-load OOM)
# A figure the allocator printed in MiB (a small allocation, little left: "Tried to allocate 128.00 MiB ... of which
# 125.56 MiB is free", format_size in c10/cuda/CUDACachingAllocator.cpp picks the unit) is also stated in GiB.
_MIB_AS_GIB = (("tried_mib", "tried_gib"), ("free_mib", "free_gib"))


_OOM_SIZE = r"Tried to allocate (?P<tried>{NUM}) (?P<unit>[KMG]iB)"
_CUDA_OOM = r"\b(?:CUDA|HIP) out of memory\."
_DEVICE_OOM = r"\b(?P<oom_device>NPU|XPU|MUSA|MPS)(?: backend)? out of memory\b"
_DEVICE_OOM_SIZE = rf"\.? ?\(?{_OOM_SIZE}"


# The size libtpu could not reserve or allocate, in its own units ("384.11M", "11.35G").
_XLA_RESERVE = ((r"Attempting to (?:reserve|allocate) ({NUM})G\b", "tried_gib"),
                (r"Attempting to (?:reserve|allocate) ({NUM})M\b", "tried_mib"))


def device_oom_errors() -> tuple[ErrorRule, ...]:
    """The out-of-memory errors of every device: `cuda_oom` (CUDA, HIP), `device_oom` (NPU, XPU, MUSA, MPS).
    The allocator's message with the size it failed to allocate is only ever an exception's text (torch raises it as
    OutOfMemoryError, c10/cuda/CUDACachingAllocator.cpp; torch_npu's NPUCachingAllocator likewise), so it is a failure
    where an author quoted it without its class ("NPU out of memory. Tried to allocate 296.00 MiB", gpu-logs-17
    sglang/07): the size is required there, a hint's bare "out of memory" is not one."""
    return (
        error("cuda_oom", rf"{_CUDA_OOM}(?: {_OOM_SIZE})?", extras=OOM_FIGURES),
        error("device_oom", rf"{_DEVICE_OOM}(?:{_DEVICE_OOM_SIZE})?", extras=OOM_FIGURES),
        error("cuda_oom", rf"{_CUDA_OOM} {_OOM_SIZE}", standalone=True, extras=OOM_FIGURES),
        # torch's exception class before the allocator's message whose "CUDA out of memory." an author cut
        # ("torch.OutOfMemoryError: Tried to allocate 9.00 GiB. GPU 0 total capacity 95.01 GiB, of", a bring-up
        # journal, gpu-logs-35 vllm/05): the class is the allocator's OOM (torch.OutOfMemoryError, torch.cuda's alias
        # of c10::OutOfMemoryError, raised by c10/cuda/CUDACachingAllocator.cpp with that message), so the size it
        # names is read; what the author reworded is not.
        error("cuda_oom", rf"\btorch(?:\.cuda)?\.OutOfMemoryError: {_OOM_SIZE}", extras=OOM_FIGURES),
        error("device_oom", rf"{_DEVICE_OOM}{_DEVICE_OOM_SIZE}", standalone=True, extras=OOM_FIGURES),
        # The CUDA driver API's own out-of-memory, raised by torch's driver calls (torch 2.13.0
        # c10/cuda/driver_api.h:19, "CUDA driver error: " + cuGetErrorString: "out of memory"; a kernel's weight
        # repacking in vLLM 0.20, gpu-logs-30 vllm/10). Only as an exception or an ERROR line: the same header warns
        # with it too (:49).
        error("cuda_oom", r"\bCUDA driver error: out of memory\b"),
        # The CUDA runtime API's, the same way: torch's C10_CUDA_CHECK raises "CUDA error: " + cudaGetErrorString(err)
        # (c10/cuda/CUDAException.cpp c10_cuda_check_implementation), "out of memory" for cudaErrorMemoryAllocation -
        # a device allocation the runtime refused (a stream switch in SGLang 0.4.4's overlap thread, gpu-logs-48
        # sglang/04). As an exception or an ERROR line only, as the driver's.
        error("cuda_oom", r"\bCUDA error: out of memory\b"),
        # XLA's (JAX on TPU, vLLM's tpu-inference backend): a device buffer it cannot allocate, or a compiled
        # program over a memory space ("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in
        # memory space vmem. Used 76.58M of 64.00M vmem.", a public tpu-inference log of 2026)
        error("device_oom", r"\bRESOURCE_EXHAUSTED: .*?(?:Ran out of memory in memory space (?P<xla_memory_space>\w+)"
                            r"|Error allocating device buffer|[Oo]ut of memory)"),
        # libtpu's failure to place a compiled program or a buffer in HBM, its classes RuntimeProgramAllocationFailure
        # and RuntimeBufferAllocationFailure (XLA's error E0101), worded "Attempting to reserve 11.35G at the bottom of
        # memory. That was not possible. There are 12.18G free, 0B reserved, and 10.52G reservable." (google/flax#1658,
        # AI-Hypercomputer/tpu-recipes#151, gpu-logs-34 vllm/03) or "Error loading program 'jit_run_model_impl':
        # Attempting to allocate 1.15G. That was not possible. There are 1.13G free." under "RESOURCE_EXHAUSTED: E0101:
        # RuntimeProgramAllocationFailure:" broken after the class (a 2026 rig note, gpu-logs-34 vllm/08): a device out
        # of memory outside the KV budget. libtpu is closed, so the wordings are the public logs'; either line alone is
        # enough (the status and class at a line's start, or the message after its own prefix), never a bare mention
        # of the class in prose.
        error("device_oom", r"(?:\b(?:RESOURCE_EXHAUSTED|Runtime(?:Program|Buffer)AllocationFailure): (?:.*?: )?"
                            r"|\bError loading program '[^']*': )Attempting to (?:reserve|allocate) {NUM}[MG]\b",
              standalone=True, extras=_XLA_RESERVE),
        error("device_oom", r"\bRESOURCE_EXHAUSTED: (?:E\d{4}: )?Runtime(?:Program|Buffer)AllocationFailure\b",
              standalone=True),
        # tt-metal's (Tenstorrent's runtime under its vLLM fork and the tt plugins): a DRAM or L1 buffer its bank
        # allocator cannot place, "Out of Memory: Not enough space to allocate {} B {} buffer across {} banks, where
        # each bank needs to store {} B" (TT_THROW in BankManager::allocate_buffer, tt_metal/impl/allocator/
        # bank_manager.cpp:141 in May 2025, as tenstorrent/tt-metal#21904 names it), later TT_FATAL with ", but bank
        # size is {} B (allocated: ..., free: ..., largest free block: ...)" after it (:433 in October 2025, as
        # tt-metal#31076 and #29905 name it; the index's tt-metal at 00a6e7f8, the same function), and "Out of
        # Memory: Not enough space after considering dependencies to allocate {} B {} across {} banks" beside it. The
        # message is only ever the exception's text or its logger's 'critical' line, so it stands alone: on its own
        # line after TT_THROW's "info:" (gpu-logs-100 vllm/03, the KV cache allocation at 22 of 32 layers), after
        # loguru's "| critical |          Always | " (vllm/04, 05) or a V0 engine's ERROR prefix. The bytes are a
        # buffer's, never the pool's.
        error("device_oom", r"\bOut of Memory: Not enough space (?:after considering dependencies )?to allocate "
                            r"\d+ B (?:DRAM|L1)\b",
              standalone=True),
        *host_oom_errors(),
    )


# CANN's line after torch_npu's host OOM, with the bytes the pinned (page-locked) allocation asked for
_HOST_OOM_LINE = (r"\bResource_Error_Insufficient_Host_Memory\(EL\d{4}\): Failed to allocate "
                  r"(?P<tried_host_bytes>{NUM}) bytes host memory")


# Linux's OOM killer when the host's RAM (or a memory cgroup's limit, a container's) runs out: it kills a process
# and logs "%s: Killed process %d (%s) total-vm:%lukB, anon-rss:%lukB, file-rss:%lukB, shmem-rss:%lukB, UID:%u
# pgtables:%lukB oom_score_adj:%hd" with "Out of memory" or "Memory cgroup out of memory" and the victim's comm, its
# name cut to 15 characters (mm/oom_kill.c __oom_kill_process, as quoted by the linux-kernel list's mm/oom_kill patch
# of 2025-08-04, the index's id 42779629236; out_of_memory passes either message, id 30646576049; older kernels print
# "Killed process ..." alone). The engines name their
# processes: vLLM "{VLLM_PROCESS_NAME_PREFIX}::{name}", "VLLM" by default (0.15.1 vllm/utils/system_utils.py:163-177
# set_process_title, envs.py:1464; 0.33.0 the same), "VLLM::EngineCore" cut to "VLLM::EngineCor"; SGLang "sglang::"
# and the process (0.5.23 sglang/srt/managers/scheduler.py:6294 "sglang::scheduler...", detokenizer_manager.py:551).
# Only a victim of those names is the engine's own: a dmesg line for another process says nothing of the start
# (gpu-logs-98 vllm/08, a Hub discussion's quote: "(vLLM::EngineCor)", the prefix in another case). The kB figures
# are the process's host memory, never a pool.
_KERNEL_OOM_KILL = (r"\b(?:(?:Memory cgroup o|O)ut of memory: )?Killed process \d+ "
                    r"\((?P<killed_process>(?i:vllm|sglang)::[^)]{0,13})\) total-vm:\d+kB")
_KERNEL_OOM_KILL_FIGURES = ((r"\banon-rss:(\d+)kB", "anon_rss_kib"),)


def host_oom_errors() -> tuple[ErrorRule, ...]:
    """The host's memory out, not the device's (`host_oom`): torch_npu's pinned host allocator raises torch's
    OutOfMemoryError when aclrtMallocHost fails (torch_npu csrc/core/npu/CachingHostAllocator.cpp:252, the file:line
    the message names: allocate_host_memory_slowpath calls aclrtMallocHost and throws on its error), and CANN's runtime
    then logs "Resource_Error_Insufficient_Host_Memory(EL0018): Failed to allocate 134217728 bytes host memory
    requested by the RUNTIME module." (a vllm-omni diffusion worker on Ascend over vLLM 0.30.0, gpu-logs-43 vllm/05;
    vllm-ascend's CPU offloading pool pins host memory the same way). A user frees or adds host RAM, not device memory,
    so it is its own kind. The same allocator's error code 207001 also ends a stream capture that may not allocate
    (CANN's Not_Supported(EE1016)), which is no out-of-memory: only the class with the allocator's name, or CANN's
    insufficient-host-memory error, is read."""
    return (
        error("host_oom", r"\btorch\.OutOfMemoryError: allocate_host_memory_slowpath\b"),
        error("host_oom", _HOST_OOM_LINE, standalone=True),
        error("host_oom", _KERNEL_OOM_KILL, standalone=True, extras=_KERNEL_OOM_KILL_FIGURES),
    )


# The field a fatal signal's failure carries (fatal_signal_errors): a live launch leaves such a death to the process's
# exit, a crash (harness/execute/launcher.py), where a log read afterwards records it as a failed start.
FATAL_SIGNAL_FIELD = "signal_name"


# A pointer as C's "%p" prints it, or an author's ellipsis in its place.
_POINTER = r"(?:0x[0-9a-fA-F]+|\.\.\.|\u2026)"


def fatal_signal_errors() -> tuple[ErrorRule, ...]:
    """A process killed by a fatal signal while CPython's faulthandler was on (both engines turn it on; a Ray worker's
    and a scheduler's stderr reach the log): "Fatal Python error: " and the signal's name, then its Python frames
    (CPython Modules/faulthandler.c, faulthandler_fatal_error, the names of faulthandler_handlers: Bus error, Illegal
    instruction, Floating point exception, Aborted, Segmentation fault). A process that died, whatever the engine."""
    return (
        error("process_died", rf"^Fatal Python error: (?P<{FATAL_SIGNAL_FIELD}>Segmentation fault|Bus error"
                              r"|Illegal instruction|Floating point exception|Aborted)\b",
              rank=GENERIC, standalone=True),
        # ROCm's HSA runtime on a GPU page fault: its message on stderr, then std::abort() kills the process, no Python
        # frame (ROCR-Runtime, ROCm 6.2 snapshot c7785a6d, runtime/hsa-runtime/core/runtime/runtime.cpp:1864-1884
        # Runtime::VMFaultHandler, "Memory access fault by GPU node-%u (Agent handle: %p) on address %p%s. Reason: %s.")
        # A pointer is a run's own value, which an author who quotes the line may elide ("(Agent handle: ...)",
        # gpu-logs-61 sglang/02, an issue of 2026 on MI300X-MI355X): "..." or "…" stands for either pointer.
        error("process_died", rf"^Memory access fault by GPU node-\d+ \(Agent handle: {_POINTER}\) on address "
                              rf"{_POINTER}(?:\(may not be exact address\))?\. Reason: (?P<fault_reason>[^.]+)",
              rank=GENERIC, standalone=True),
        # ... and on a hardware exception the kernel driver reports (a queue that hangs, an ECC error): the same
        # runtime's "HW Exception by GPU node-%u (Agent handle: %p) reason :%s" with "GPU Hang" or "ECC", then
        # std::abort() (the same snapshot, runtime.cpp:1760-1767, Runtime::HwExceptionHandler, when no handler the
        # program registered took the event); the shell's "Aborted (core dumped)" may follow. gpu-logs-96 vllm/03: a
        # Granite 4.0-H start on a Strix Halo APU, after torch.compile, before any KV line. Authors who quote it write
        # "reason: GPU Hang" as often as the runtime's "reason :GPU Hang".
        error("process_died", rf"^HW Exception by GPU node-\d+ \(Agent handle: {_POINTER}\) reason ?: ?"
                              r"(?P<fault_reason>GPU Hang|ECC)\b",
              rank=GENERIC, standalone=True),
    )


def ray_worker_death_errors() -> tuple[ErrorRule, ...]:
    """A Ray worker process that died in a way its own code did not choose, as Ray reports it to the driver: the
    raylet pushes a "worker_died" error, "A worker died or was killed while executing a task by an unexpected system
    error. To troubleshoot the problem, check the logs for the dead worker." and the worker's exit type and detail
    (Ray's src/ray/raylet/node_manager.cc NodeManager::DisconnectClient, for an exit of type SYSTEM_ERROR; the index's
    copy, id 4571261), which the driver prints under "(raylet) " (or its logger's "WARNING worker.py:N -- " in older
    Ray). RL frameworks run the rollout engine inside such workers (verl's WorkerDict, gpu-logs-55 vllm/03): a
    process that died, no cause read - the "(1) ... OOM killer" after it is Ray's list of guesses."""
    return (
        error("process_died", r"\bA worker died or was killed while executing a task by an unexpected system error\b",
              rank=GENERIC, standalone=True),
    )


def ray_serve_replica_errors() -> tuple[ErrorRule, ...]:
    """A Ray Serve replica whose start raised, as the ServeController reports it: check_ready, which runs only while a
    replica is allocated and its constructor and reconfigure run, logs "Exception in {replica_id}, the replica will be
    stopped." with logger.exception and marks the start FAILED (Ray 2.46.0 ray/serve/_private/deployment_state.py:620
    check_ready, the line at :656, :697 and :705; the replica's id reads "Replica(id='03l9rrsq',
    deployment='LLMDeploymentdeepseek', app='default')"); older Ray named it by its tag, "Exception in replica
    'default#VLLMDeployment#abc', the replica will be stopped." (the index's copy of deployment_state.py, id 654848321).
    Ray Serve LLM builds the engine in that constructor (gpu-logs-68 vllm/06, /07): a failed start whose cause is the
    replica's exception, which the controller's traceback may not reach - kind other, its message the controller's."""
    return (
        error(OTHER, r"\bException in (?:Replica\(id='[^']*', deployment='[^']*', app='[^']*'\)|replica '[^']*'), "
                     r"the replica will be stopped\.", rank=GENERIC, standalone=True),
    )


def harness_pod_crash_errors() -> tuple[ErrorRule, ...]:
    """A serving pod's container that crashed while a Kubernetes benchmark harness waited for it, as llm-d-benchmark's
    standup reports it: its wait for the pods to be created, running and Ready returns at the first container that
    terminated with an exit code other than 0, after announcing "ERROR: Crashed container in pod: {pod}, container:
    {container}" (llm-d/llm-d-benchmark setup/functions.py:1668 wait_for_pods_created_running_ready at c76e78a6 of
    2025-11-20, which added the check; :2082 at 429dc38 of 2026-02), which its announce() shows with a cross mark for
    "ERROR: " (:106 at c76e78a6): "❌ Crashed container in pod: vllm-standalone-llama-3-1b-845945945-dljsw"
    (llm-d-benchmark#668, gpu-logs-75 vllm/07). The check runs only before the pod is Ready, so the serving engine
    never started: a failed start whose cause is in the container's own log, not the harness's - kind other. The
    capital and the colon are the harness's; a person's "the last crashed container in pod X" is not read."""
    return (
        error(OTHER, r"\bCrashed container in pod: \S", rank=GENERIC, standalone=True),
    )


def harness_start_timeout_errors() -> tuple[ErrorRule, ...]:
    """A server that the engines' own test fixtures launched and that did not come up in the fixture's time, as the
    fixture raises it - in the test's traceback or in pytest's short summary ("ERROR tests/...::test_x[omni_server0] -
    RuntimeError: Server failed to start within 600 seconds", gpu-logs-93 vllm/02, vLLM-Omni's Buildkite CI).
    vLLM-Omni's OmniServer polls the API server's port for max_wait = 600 s, then raises "RuntimeError(f"Server
    failed to start within {max_wait} seconds")" (vllm-project/vllm-omni at be81443c, 2025-12-28,
    tests/e2e/online_serving/test_qwen3_omni.py:90-103; test_i2i_multi_image_input.py:88); SGLang's
    popen_launch_server polls /health_generate until its timeout, kills the server's process tree and raises
    "TimeoutError("Server failed to start within the timeout period.")" (sglang 0.5.6
    sglang/test/test_utils.py:646-681). The port opens, and /health_generate answers, only once the start is done: a
    failed start whose cause is in the server's own lines - kind other. The exception's class is part of the pattern:
    other harnesses (web servers' fixtures) print the same sentence about their own server."""
    return (
        error(OTHER, r"\bRuntimeError: Server failed to start within \d+ seconds\b", rank=GENERIC, standalone=True),
        error(OTHER, r"\bTimeoutError: Server failed to start within the timeout period\.", rank=GENERIC,
              standalone=True),
    )


def _oom_part(parser: LogParser, values: dict, line: Line) -> None:
    data: dict = {}
    for regex, key in _OOM_PART_FIGURES:
        if extra := regex.search(line.text):
            data[key] = to_number(next(g for g in extra.groups() if g is not None))
    for mib, gib in _MIB_AS_GIB:
        if gib not in data and isinstance(data.get(mib), (int, float)):
            data[gib] = round(data[mib] / 1024, 3)
    for kind in ("cuda_oom", "device_oom"):
        parser.amend_failure(kind, data, {})


_OOM_PART_FIGURES = tuple((re.compile(r.replace("{NUM}", NUM)), key) for r, key in OOM_FIGURES)


def _host_oom_part(parser: LogParser, values: dict, line: Line) -> None:
    parser.amend_failure("host_oom", {"tried_host_bytes": values["tried_host_bytes"]}, {})


def oom_part_rules() -> tuple[Rule, ...]:
    """PyTorch's out-of-memory message broken into its sentences, one a line (an author's wrap of "CUDA out of
    memory. Tried to allocate 672.00 MiB. GPU 0 has a total capacity of 140.06 GiB of which 200.75 MiB is free. ...",
    torch 2.1 on, c10/cuda/CUDACachingAllocator.cpp): the figures of a sentence on a line of its own go to the OOM
    failure read before it."""
    return (rule(r"^(?:Tried to allocate {NUM} [KMG]iB\b|GPU \d+ has a total capacity of {NUM} GiB)", _oom_part,
                 before_ready=True),  # (the start's failure only: a served log's lines never look)
            # CANN's line after torch_npu's host OOM: the bytes the failed allocation asked for (host_oom_errors)
            rule(_HOST_OOM_LINE, _host_oom_part, before_ready=True))


def _record_fields(match: re.Match, kinds: dict[str, type]) -> dict:
    return {name: coerce(kinds[name], text) for name, text in match.groupdict().items()
            if text is not None and name in kinds}


# --- actions shared by both engines --------------------------------------------------------

# A request a client sent that the server answered: uvicorn's access line, '<client> - "POST /v1/responses HTTP/1.1"
# 200' (uvicorn/logging.py AccessFormatter, '%(client_addr)s - "%(request_line)s" %(status_code)s'), which both
# engines' HTTP servers print. A POST answered 200 ran a generation, so the engine serves: the start is complete, and a
# failure after it is a failure at serving time (SGLang's own warm-up is such a POST, 0.5.22
# sglang/srt/entrypoints/http_server.py:2327 "/generate", "/encode" or "/v1/chat/completions"; answered, it warmed up).
SERVED_REQUEST = r'"POST /\S*(?: HTTP/[\d.]+" 200\b|" 200 OK\b)'
# (an author who shortens the line drops the client and the protocol, '[INFO] "POST /v1/chat/completions" 200 OK',
# gpu-logs-48 sglang/09: without the protocol, uvicorn's status phrase after the code is required - its
# AccessFormatter prints "200 OK", uvicorn/logging.py get_status_code)
# A health check answered 200, the same access line: the engine is up. SGLang answers 503 while it starts, up to its
# warm-up (0.5.22 sglang/srt/entrypoints/http_server.py:719 health_generate, ServerStatus.Starting); vLLM's HTTP server
# takes requests only once it is up ("Application startup complete.").
# (one pattern a path: a rule whose text holds a whole word, "/health", is screened by that word)
HEALTH_ANSWERED = (r'"GET /health HTTP/[\d.]+" 200\b', r'"GET /health_generate HTTP/[\d.]+" 200\b')
# MLPerf LoadGen's results summary, which a benchmark harness prints once its test is over, every sample it issued
# answered by the system under test (mlcommons/inference loadgen/results.cc at 05a9cec, PerformanceSummary::LogSummary:
# the "MLPerf Results Summary" banner, then the Offline scenario's "Samples per second: " - sample_count /
# pr.max_latency - or the Server scenario's "Completed samples per second    : "). A positive rate under the banner, in
# the log of the engine's start, is the harness's word that the engine served its queries: the start had completed
# (gpu-logs-86 vllm/02, an MLPerf harness running vLLM at VLLM_LOGGING_LEVEL=ERROR, which prints no line of the start).
# The summary's rates, latencies and token counts are never a pool. A rate with no banner before it is not LoadGen's.
_LOADGEN_BANNER = r"^MLPerf Results Summary$"
_LOADGEN_RATE = r"^(?:Completed )?[Ss]amples per second *: *(?P<rate>{NUM})$"


def _loadgen_banner(parser: LogParser, values: dict, line: Line) -> None:
    parser.loadgen_summary = True


def _loadgen_rate(parser: LogParser, values: dict, line: Line) -> None:
    if parser.loadgen_summary and float(values["rate"]) > 0:
        parser.mark_served(line)


def loadgen_rules() -> tuple[Rule, ...]:
    """MLPerf LoadGen's summary of a finished test, in either engine's log: the engine served the harness's queries."""
    return (rule(_LOADGEN_BANNER, _loadgen_banner, before_ready=True),
            rule(_LOADGEN_RATE, _loadgen_rate, before_ready=True))


def phase(name: str) -> Action:
    def advance(parser: LogParser, values: dict, line: Line) -> None:
        parser.advance(name, line)

    return advance


def kv_sized(parser: LogParser, values: dict, line: Line) -> None:
    parser.mark_kv_sized(line)


def ready(parser: LogParser, values: dict, line: Line) -> None:
    parser.mark_ready(line)


def stopping(parser: LogParser, values: dict, line: Line) -> None:
    parser.mark_stopping(values.get("signal") or "signal", line)


def version(parser: LogParser, values: dict, line: Line) -> None:
    parser.set_version(str(values["version"]), line)


def phase_after_kv(name: str) -> Action:
    def advance(parser: LogParser, values: dict, line: Line) -> None:
        if parser.seen_kv:
            parser.advance(name, line)

    return advance


def copy_field(target: str, source: str) -> Action:
    def copy(parser: LogParser, values: dict, line: Line) -> None:
        setattr(parser.record, target, getattr(parser.record, source))

    return copy


def store_pairs(*pairs: tuple[str, str]) -> Action:
    """Store every `label NUM` piece a many-figure line holds (each piece is optional): (regex, field) pairs,
    `{NUM}` standing for the printed number the regex's first group captures."""
    compiled = [(re.compile(regex.replace("{NUM}", NUM)), name) for regex, name in pairs]

    def store(parser: LogParser, values: dict, line: Line) -> None:
        for regex, name in compiled:
            match = regex.search(line.text)
            if match:
                setattr(parser.record, name, coerce(field_kinds(type(parser.record))[name], match.group(1)))

    return store


def set_fields(**constants) -> Action:
    def assign(parser: LogParser, values: dict, line: Line) -> None:
        for name, value in constants.items():
            setattr(parser.record, name, value)

    return assign


def _with_detail(message: str, text: str) -> str:
    """An exception's line with the first line of its message continued below it."""
    detail = re.sub(r"\s*\[type=.*$", "", text.strip())  # pydantic's machine-readable tail
    return f"{message.rstrip(':')}: {detail}" if detail else message


def _next_places(text: str, texts: tuple[str, ...], pos: int) -> list[tuple[int, str]]:
    """A heap of the next place from `pos` where each of `texts` occurs in `text`."""
    heap = [(i, t) for t in texts if (i := text.find(t, pos)) >= 0]
    heapq.heapify(heap)
    return heap


def texts_in_block(text: str, texts: tuple[str, ...], chars: tuple[frozenset[str], ...]) -> tuple[str, ...]:
    """The `texts` whose every character `text` holds (`chars`: each text's characters).

    One `in` test a character (memchr: the block's first occurrence, or one fast pass where it is absent) rules out
    every text holding a character the block lacks, where `str.find` would scan the block for each text: a served
    log's blocks lack a third of the characters of the tables' texts and hold none of those texts.
    """
    present = {c for c in frozenset().union(*chars) if c in text}
    return tuple(t for t, held in zip(texts, chars) if held <= present)


# --- outcome slots -------------------------------------------------------------------------


@dataclass
class _Failure:
    kind: str
    message: str
    data: dict
    rank: int
    token: object  # what may refine it: the traceback block, or the marker's source
    fields: dict = field(default_factory=dict)  # record fields the error states (estimated_max_model_len)


class _Slot:
    """Holds the most telling failure seen so far (one for startup, one for after ready)."""

    def __init__(self) -> None:
        self.failure: _Failure | None = None

    def offer(self, failure: _Failure) -> bool:
        """Keep `failure` if it tells more; True when the slot was empty before."""
        current = self.failure
        if current is None:
            self.failure = failure
            return True
        refines = failure.token is not None and failure.token == current.token
        if failure.rank > current.rank or (failure.rank == current.rank and refines):
            self.failure = failure
        return False

    def retoken(self, old: object, new: object) -> None:
        if self.failure is not None and self.failure.token == old:
            self.failure.token = new


# --- the parser ------------------------------------------------------------------------------


# systemd's own line when it starts a unit's service again after its main process exited: "openclaw-vllm.service:
# Scheduled restart job, restart counter is at 2740." (systemd src/core/service.c service_enter_restart, since v239; in
# the journal under systemd's identifier); and journalctl's line between two boots' entries, "-- Boot
# e5061244a3c441e38ce24d980accccd7 --" ("-- Reboot --" in releases before 250; src/shared/logs-show.c show_journal):
# every process after a reboot is a new one. A journal holding either and the service's own lines after it holds two
# starts of the server; the record is the last's (the sets' reading of a paste of two starts, gpu-logs-45), read from
# the line after it (gpu-logs-56 vllm/01, vllm/07). One with no line of the service after it starts nothing.
_UNIT_RESTART = re.compile(r"\.service: Scheduled restart job, restart counter is at \d+\."
                           r"|^-- (?:Boot [0-9a-f]{32}|Reboot) --$")
_RESTART_WORDS = ("Scheduled restart job", "-- Boot ", "-- Reboot --")


def after_unit_restart(lines: list[str]) -> list[str]:
    """`lines` from the line after the last restart of a systemd unit, or the last boot, that its service's own lines
    follow."""
    if not lines or not isinstance(lines[0], str) or not any(
            any(map(operator.contains, lines, repeat(words))) for words in _RESTART_WORDS):
        return lines  # (most logs: a pass at C speed per word, a tenth of a second each for 2M lines)
    restarts = [index for index, text in enumerate(lines)
                if ("Scheduled restart job" in text or "-- " in text) and _UNIT_RESTART.search(strip_wrappers(text))]
    for restart in reversed(restarts):
        if any(journal_identifier(text) not in (None, "systemd") for text in lines[restart + 1:]):
            return lines[restart + 1:]
    return lines


class LogParser:
    """Streaming parser: `feed(line)` one raw line at a time, read `record` any time.

    Lines of several processes and of stdout and stderr may be interleaved.
    """

    engine: ClassVar[str]
    # the engine's packages, as a path's directory names them in a traceback's frame ("site-packages/vllm/...",
    # "vllm_ascend/...": the package, or the package, "_" and a word for a plugin)
    engine_packages: ClassVar[tuple[str, ...]] = ()
    # the engine's record: the neutral StartupRecord plus what only this engine states
    record_type: ClassVar[type[StartupRecord]] = StartupRecord
    # what the kv_sized event carries
    kv_event_fields: ClassVar[tuple[str, ...]] = ("kv_tokens", "kv_gib", "num_blocks", "block_size", "max_concurrency",
                                                  "max_model_len")
    phases: ClassVar[tuple[str, ...]]
    rules: ClassVar[tuple[Rule, ...]]
    error_rules: ClassVar[tuple[ErrorRule, ...]]
    # A line that says startup failed; the traceback that follows it names the cause.
    failure_markers: ClassVar[re.Pattern]
    # Texts of lines a parser reads in _check_failures beyond its tables (a traceback frame that decides the start,
    # read with no header or ERROR level before it): the screen must let them through (may_matter).
    screen_texts: ClassVar[tuple[str, ...]] = ()
    # Messages the engine logs with their exception's traceback (logger.exception) at a site that goes on: the
    # traceback that follows one on the same process is quiet, like Python's "Exception ignored in" (NON_FATAL_HEADERS).
    survived_exception_heads: ClassVar[re.Pattern | None] = None

    def __init__(self) -> None:
        self.record = self.record_type(engine=self.engine, phase=self.phases[0])
        self.kinds = field_kinds(self.record_type)
        self.seen_kv = False
        self.seen_error = False
        self.seen_ready = False
        self.seen_engine_built = False  # its engine up, its server not yet (mark_engine_built)
        self.loadgen_summary = False  # MLPerf LoadGen's results banner was read (loadgen_rules)
        self.stopping = False
        self._startup = _Slot()
        self._later = _Slot()
        self._tracebacks = TracebackTracker()
        self._armed: set[str] = set()  # sources whose next traceback explains a failure
        self._fatal_blocks: set[int] = set()
        self._ignore_next_block: set[str] = set()
        self._quiet_blocks: set[int] = set()  # tracebacks the engine survives (see _start_block)
        self._block_stage: dict[int, str] = {}  # where each traceback was raised (FAILED_DURING)
        # per traceback: [a frame of a program's top level ("in <module>") was seen, a frame in the engine was seen]
        self._block_owner: dict[int, list[bool]] = {}
        self._held: Line | None = None  # the last line, when it may continue on the next (_join_held)
        self._held_more = False  # ... held because a rule read it and its message goes on (Rule.until)
        self._more: Line | None = None  # the line a rule just read whose message lacks its end (Rule.until)
        self._error_token: tuple[str, object] = ("", None)  # the raw line of the last error offered, and its token
        # the last line when its message ends with a comma: an author (or a terminal) broke it there and the next,
        # unprefixed, line goes on with it ("... elapsed=282.07 s," / "type=..., avail mem=35.23 GB, ..."); joined
        # before any rule reads it, so each rule reads the whole message once (_comma_join)
        self._comma_held: tuple[float | None, str] | None = None
        # the width a terminal cut a pasted log's lines at (terminal_width; None: uncut, as a live engine's are),
        # and the last line when it is that wide: the next may be the rest of it (_uncut)
        self.terminal_width: int | None = None
        self._cut_held: str | None = None
        self._column = 0  # the width of a log file's name column an author put before a block of lines (0: none)
        # a string literal with no comma after it, in a log pasted as a Python list: the next literal is the same
        # line's next piece (implicit concatenation, "...: Available memory on" / " node 0 (2.5/7.77 GiB) ..."),
        # held until the piece that ends with a comma or a bracket (_literal_join)
        self._literal_held: str | None = None
        self._loose_frames = False  # frame lines seen outside any traceback (an excerpt that cut its header)
        self._loose_stage: str | None = None  # ... and where they say it was
        self._loose_logged = False  # ... and they were logged at ERROR level (a process logged its exception)
        # The last exception the engine logged (or printed) that no rule names and that was not yet known to be
        # fatal: it ended the startup if nothing came after it (settled at close).
        self._last_exception: _Failure | None = None
        self._last_exception_line: Line | None = None
        self._events: list[ev.Event] = []
        self.rules_fired = 0  # lines a rule or an error rule read
        self._primary_seen: set[int] = set()  # primary_only rules rank 0 has stated
        self._rank_kv: dict[str, int] = {}  # each rank's KV token count
        self.rank_kv_gib: dict[str, float] = {}  # each rank's KV budget (GiB), where ranks state one
        self._deferred: list[tuple[int, Line]] = []  # other ranks' lines of rules rank 0 has not stated

    # --- engine hooks ---------------------------------------------------------------------

    def split_prefix(self, text: str, t: float | None) -> Line:
        raise NotImplementedError

    def finalize(self) -> None:
        """Derive what the log does not print (called after every line)."""

    @classmethod
    def error_kinds(cls) -> tuple[str, ...]:
        """Every `error_kind` this parser can report."""
        return tuple(dict.fromkeys([r.kind for r in cls.error_rules] + [OTHER]))

    @classmethod
    def score(cls, text: str) -> int:
        """How sure we are that `text` is this engine's log (0: not at all)."""
        raise NotImplementedError

    @classmethod
    def wording_hits(cls, lines: Iterable[str]) -> int:
        """Lines whose message is this engine's own wording: a bare excerpt, with no prefix, still names it."""
        hits = 0
        for line in lines:
            _, text = strip_python_logging(strip_wrappers(line.rstrip()))
            if any((r.keyword is None or r.keyword in text) and r.pattern.search(text) for r in cls.rules) or any(
                    (e.keyword is None or e.keyword in text) and e.pattern.search(text) for e in cls.error_rules):
                hits += 1
        return hits

    @staticmethod
    def holds_literal_pieces(text: str) -> bool:
        """`text` holds a run of PASTE_RUN lines that are pieces of pasted string literals (a log kept in a Python
        list or tuple of strings): pieces join line by line only (_literal_join), so a block scan, which sees only the
        lines holding a rule's text, would miss a message split over two of them. (Python's warnings print their
        source line, "  warnings.warn('resource_tracker: There appear to be %d '", and two processes' warnings make
        two in a row in a vLLM log: no paste.)"""
        run = 0
        for line in text.split("\n"):
            run = run + 1 if _may_be_piece(line) and _PIECE.match(line) else 0
            if run == PASTE_RUN:
                return True
        return False

    # --- feeding --------------------------------------------------------------------------

    def feed(self, raw: str | bytes) -> list[ev.Event]:
        if isinstance(raw, bytes):
            raw = raw.decode("utf-8", errors="replace")
        if not (self._waits() or _may_be_piece(raw) or self.may_matter(raw, self.seen_ready) or any(
                self.may_be_from(raw, source) for source in self._tracebacks.open_sources)
                or (self.terminal_width is not None and _columns(raw) == self.terminal_width)):
            return []  # most lines: no rule's text, no error, no traceback open
        return self._feed_text(raw)

    def _waits(self) -> bool:
        """A line read before waits for the next (a message that may go on on it): the next line must be seen."""
        return (self.has_pending() or self._held is not None or self._comma_held is not None
                or self._literal_held is not None or self._cut_held is not None)

    def _feed_text(self, raw: str, join: bool = True) -> list[ev.Event]:
        if self.terminal_width is None:
            return self._read_text(raw, join)
        events: list[ev.Event] = []
        for whole in self._uncut(raw):
            events.extend(self._read_text(whole, join))
        return events

    def _uncut(self, raw: str) -> list[str]:
        """The lines to read now, with a terminal's cuts undone: a line as wide as the terminal is held until the
        next shows whether it is the rest of it, which then joins it where the terminal cut it, as it was ("...
        #tokens: 27775" / "43, K size: ..."), before any rule reads either."""
        held, self._cut_held = self._cut_held, None
        at_width = _columns(raw) == self.terminal_width and self._as_cut(raw)
        if held is not None and self._cut_piece(held, raw):
            raw, held = held.rstrip("\r\n") + raw, None
        ready = [] if held is None else [held]
        if at_width:
            self._cut_held = raw
            return ready
        return ready + [raw]

    @staticmethod
    def _as_cut(raw: str) -> bool:
        """Line `raw`, as wide as the terminal, may be as the terminal left it: no tab (a terminal shows one as
        blanks), and not a line of a log pasted as string literals (the next piece joins it by its quotes,
        _literal_join)."""
        line = raw.rstrip("\r\n")
        return not (line.endswith("\t") or (_may_be_piece(line) and _LITERAL_LINE.match(line)))

    def _cut_piece(self, held: str, raw: str) -> bool:
        """`raw` is the rest of line `held`, which the terminal cut: a piece without the capture tool's prefix the
        held line starts with (a container's time stamp or name: the tool puts it before each line it records, and the
        terminal cuts after it), nor the mark showing the log put before the held line (grep -n over a file of cut
        lines, a viewer's border: each piece has its own), no logger's prefix, level or process tag, neither a
        traceback's line nor an indented one."""
        segments = clean_segments(raw)
        if len(segments) != 1:
            return False
        segment = segments[0].rstrip()
        held = ANSI.sub("", held) if "\x1b" in held else held
        if (has_capture_prefix(segment) and has_capture_prefix(held)) or (
                (mark := shown_mark(segment)) and mark == shown_mark(held)):
            return False
        text = strip_wrappers(segment)
        piece = self.split_prefix(text, None)
        return bool(text) and not (piece.prefixed or piece.level is not None or piece.source or text[:2].isspace()
                                   or text.startswith("Traceback") or EXCEPTION_LINE.match(text)
                                   or _BANNER_ITEM.match(text))

    def _read_text(self, raw: str, join: bool = True) -> list[ev.Event]:
        code = not self._tracebacks.open_sources  # (a traceback's source lines are the engine's code, not a fixture)
        if join and (self._literal_held is not None or (
                (raw[:1] in _QUOTES or raw[:2].isspace() or (code and may_open_literals(raw)))
                and (_PIECE if code else _PIECE_PLAIN).match(raw))):
            joined = self._literal_join(raw)
            if joined is None:
                return []
            raw = joined
        self._events = []
        fired = self.rules_fired
        segments = [split_relative_time(raw_segment) for raw_segment in clean_segments(raw, code)]
        segments = [(t, strip_wrappers(segment.rstrip())) for t, segment in segments]
        if self._column or ".log " in raw[:_COLUMN_WIDTH]:
            segments = [(t, self._under_column(text)) for t, text in segments]
        if self._comma_held is not None:
            segments = self._comma_join(segments)
        if self._held is not None and self._join_held(raw):
            self.finalize()
            return self._events
        if segments and segments[-1][1].endswith(_CONTINUED):
            segments[-1] = (segments[-1][0], segments[-1][1][:-2])  # the break itself is no part of the message
            self._comma_held = segments.pop()
        elif segments and segments[-1][1].endswith(",") and self._may_go_on(segments[-1][1]):
            self._comma_held = segments.pop()
        for t, text in segments:
            self._feed_line(self.split_prefix(text, t))
        if self.rules_fired != fired or self._events:  # only a rule or an error changes what it derives
            self.finalize()
        return self._events

    def _may_go_on(self, text: str) -> bool:
        """A comma-ended line an author may have broken: one that starts at the margin, or one under an indent that
        carries the engine's prefix (a block indented as a whole: a docstring's examples, "    [2025-11-04 05:27:13
        DP0 TP0 EP0] Load weight end. type=DeepseekV3ForCausalLM," / "    dtype=..., mem usage=107.07 GB.",
        gpu-logs-19 sglang/01). Other indented lines are a traceback's or a block's own (_join_held, with their
        indent)."""
        if text[:1] not in ("", " ", "\t"):
            return True
        if not text.strip():
            return False
        return self.split_prefix(text.lstrip(), None).prefixed or self._block_line_of_a_rule(text)

    def _block_line_of_a_rule(self, text: str) -> bool:
        """An indented line, outside any traceback, with a rule's text: a line of a block an author indented as a whole
        (a markdown code block), which he may have broken and gone on with deeper under it (gpu-logs-24 sglang/02:
        "    max_total_num_tokens=53440, ..., max_prefill_tokens=16384," / "      max_running_requests=1, ..."; the
        engine logs that summary as one message, 0.5.13 sglang/srt/managers/scheduler.py:877)."""
        return not self._tracebacks.open_sources and any(r.keyword and r.keyword in text for r in self.rules)

    def _under_column(self, text: str) -> str:
        """`text` without a log file's name an author put as a first column ("q4_f.log  Load weight begin. ...") and,
        on the lines after it, without the indent that keeps them under that column (the next lines of the same file,
        "          Load weight end. ..."). A traceback's own indent under it is kept."""
        column = _FILE_COLUMN.match(text)
        if column is not None:
            self._column = column.end()
            return text[column.end():]
        if self._column and text[:self._column].isspace() and text[self._column:self._column + 1].strip():
            return text[self._column:]
        self._column = 0
        return text

    def _literal_join(self, raw: str) -> str | None:
        """`raw`, or the held literal pieces with it when it is their next piece; None while a piece still waits."""
        held, self._literal_held = self._literal_held, None
        raw = raw.rstrip("\r\n")  # (a block's line keeps its end)
        if held is not None:
            if not _PIECE_NEXT.match(raw):
                self._feed_text(held, join=False)  # an unfinished literal: a line of its own
                return raw
            raw = f"{held} {raw.strip()}"
        if (_PIECE if not self._tracebacks.open_sources else _PIECE_PLAIN).match(raw):
            self._literal_held = raw
            return None
        return raw

    def _comma_join(self, segments: list[tuple[float | None, str]]) -> list[tuple[float | None, str]]:
        """The held comma-ended line and what follows it: joined with the first segment when that goes on with it
        (no prefix of its own, not indented, not a traceback), else fed as it was, before them."""
        (t, held), self._comma_held = self._comma_held, None
        if segments:
            following = segments[0][1]
            if _hangs_under(held, following):
                # a line of a block the author indented as a whole, broken and gone on with deeper: one message, the
                # indents his
                held, following = held.lstrip(), following.lstrip()
            elif _HANGING.match(following) or self._aligned_under(held, following):
                following = following.lstrip()  # an author's hanging indent under the broken line: the same message
            if following and not following[0].isspace() and not following.startswith(HEADER_TEXT) and not (
                    self.split_prefix(following, None).prefixed):
                return [(t, f"{held} {following}"), *segments[1:]]
        return [(t, held), *segments]

    def _aligned_under(self, held: str, following: str) -> bool:
        """`following` is indented to the column where `held`'s message starts: an author who broke a line by hand and
        aligned the rest under its message ("[TP0..3] KV Cache is allocated. #tokens: 1557504," / nine spaces, "K size:
        2.23 GB, ...")."""
        if following[:1] != " " or following[:2] != "  ":
            return False
        message = self.split_prefix(held, None)
        if not message.prefixed or not message.text or not held.endswith(message.text):
            return False
        column = len(held) - len(message.text)
        return len(following) - len(following.lstrip(" ")) == column and following[column:column + 1].isalpha()

    def feed_block(self, text: str) -> list[ev.Event]:
        """Many whole lines at once (a file read in chunks): the lines no table can read are
        skipped by `str.find` instead of one by one, which keeps a large log at tens of MB/s."""
        ready = self.seen_ready
        texts = self.block_texts(ready)
        if texts is None:
            return self.feed_lines(text.split("\n"))
        if "\x1b" in text:
            text = ANSI.sub("", text)
        texts = texts_in_block(text, texts, self.block_chars(ready))
        out: list[ev.Event] = []
        n = len(text)
        # The next place each text occurs, nearest first.
        heap = _next_places(text, texts, 0)
        marks: dict[str, int] = {}  # where the next line of a process with an open traceback starts
        pos = 0
        while pos < n:
            while heap and heap[0][0] < pos:
                _, t = heapq.heappop(heap)
                if (i := text.find(t, pos)) >= 0:
                    heapq.heappush(heap, (i, t))
            hit = heap[0][0] if heap else n
            if self._waits():
                hit = pos
            for source in self._tracebacks.open_sources:
                # A process with a traceback under way: its next line must be seen.
                mark = self.source_text(source)
                if mark is None:
                    hit = pos
                    break
                found = marks.get(mark, -1)
                if found < pos:
                    found = marks[mark] = text.find(mark, pos) % (n + 1)  # not found: n
                hit = min(hit, found)
            if hit >= n:
                break
            start = (text.rfind("\n", pos, hit) + 1) or pos
            end = text.find("\n", hit)
            end = n if end < 0 else end + 1
            out.extend(self._feed_text(text[start:end]))
            pos = end
            if self.seen_ready != ready:  # the server came up: the texts of what matters only before are dropped
                ready = self.seen_ready
                texts = self.block_texts(ready)
                if texts is None:
                    out.extend(self.feed_lines(text[pos:].split("\n")))
                    break
                heap = _next_places(text, texts_in_block(text, texts, self.block_chars(ready)), pos)
        return out

    def source_text(self, source: str) -> str | None:
        """Hook: a text every line of process `source` holds (None: unknown, see every line)."""
        return None

    @classmethod
    def block_texts(cls, ready: bool = False) -> tuple[str, ...] | None:
        """Texts one of which every line any table can read holds (None: unknown); `ready`: once the server is up."""
        cached = cls.__dict__.get("_block_texts")
        if cached is None:
            cached = cls._block_texts = tuple(_block_texts(cls, state) or () for state in (False, True))
        return cached[ready] or None

    @classmethod
    def block_chars(cls, ready: bool = False) -> tuple[frozenset[str], ...]:
        """The characters of each of block_texts."""
        cached = cls.__dict__.get("_block_chars")
        if cached is None:
            cached = cls._block_chars = tuple(tuple(map(frozenset, cls.block_texts(state) or ()))
                                              for state in (False, True))
        return cached[ready]

    @classmethod
    def last_start(cls, lines: list[str]) -> list[str]:
        """Whole-log use: the lines of the last start a paste holds (an engine whose lines tell one start's process
        from another's narrows them; the launcher streams one start and never calls this)."""
        return lines

    def feed_whole(self, lines: list[str]) -> list[ev.Event]:
        """A whole log's lines, read as a paste of it is: with a terminal's cuts joined (terminal_width) and from the
        last start it holds (after_unit_restart, last_start). The launcher streams one start through `feed` and never
        calls this."""
        self.terminal_width = terminal_width(lines)
        return self.feed_lines(self.last_start(after_unit_restart(lines)))

    def feed_lines(self, lines: Iterable[str | bytes]) -> list[ev.Event]:
        out: list[ev.Event] = []
        for raw in lines:
            out.extend(self.feed(raw))
        return out

    def close(self) -> list[ev.Event]:
        """The log ended: settle what was waiting for a following line."""
        if self._cut_held is not None:
            held, self._cut_held = self._cut_held, None
            self._read_text(held)
        if self._literal_held is not None:
            held, self._literal_held = self._literal_held, None
            self._feed_text(held, join=False)
        if self._comma_held is not None:
            t, held = self._comma_held
            self._comma_held = None
            self._feed_line(self.split_prefix(held, t))
        self._events = []
        self.flush_pending(Line(text="", raw=""))
        self._replay_other_ranks()
        self.flush_pending(Line(text="", raw=""))
        self._settle_last_exception()
        self._settle_cut_traceback()
        self._settle_logged_frames()
        if self._startup.failure is not None or self._later.failure is not None:
            self._sync()  # frames read after the failure was offered say where it was raised
        self.finalize()
        if self.record.status is None and not self.stopping and self.record.status_note is None:
            # never invented: an excerpt that ends before the start was decided says so
            self.record.status_note = (f"undecided: the log ends in phase {self.record.phase!r}, before a KV sizing "
                                       "line, a ready line or a startup error")
        return self._events

    def _settle_last_exception(self) -> None:
        """A startup whose log ends with an exception died of it, whatever its wording: an error of kind `other`
        (a rule that names the exception has offered it already, and wins). A log cut off with no exception stays
        undecided (the launcher tells a crash from a timeout); an engine that went on after it (a rule read a
        later line, it became ready, it was told to stop) survived it. Called at close, and before a failure that
        follows it with no progress between (an uncaught "Engine core initialization failed. See root cause
        above.", a failure marker): the earlier exception is the cause, and the first failure of a rank is kept."""
        failure, line = self._last_exception, self._last_exception_line
        self._last_exception = self._last_exception_line = None
        if failure is None or line is None or self.seen_error or self.seen_ready or self.stopping:
            return
        self._offer(failure.kind, failure.message, {}, failure.rank, failure.token, line)

    def _settle_cut_traceback(self) -> None:
        """A startup whose log stops inside a traceback's frames, before its exception line, died of that exception:
        only an exception that reached a top-level handler is printed so (a logged warning's traceback is quiet, a
        known harmless one is ignored), and its frames say where it was raised. Kind `other`; an engine that went on
        (a later rule, ready, told to stop) or a failure already known wins."""
        if self.seen_error or self.seen_ready or self.stopping:
            return
        for block in self._tracebacks.cut_blocks():
            if block not in self._quiet_blocks:
                line = Line(text="", raw="")
                self._offer(OTHER, "a traceback cut before its exception line", {}, GENERIC, block, line)
                return

    def _settle_logged_frames(self) -> None:
        """An excerpt that cut a logged traceback's header and stops in its frames, logged at ERROR level by the
        process that caught the exception (vLLM 0.20.0 vllm/v1/executor/multiproc_executor.py:962, a worker's
        "WorkerProc hit an exception." over an RPC of the engine's start), where the frames name a step of the start
        (FAILED_DURING: loading, profiling, the KV pool, graph capture): the start failed in that step. Kind `other`;
        an engine that went on (a later rule, a KV line, ready, told to stop) or a failure already known wins."""
        if (self.seen_error or self.seen_kv or self.seen_ready or self.stopping or not self._loose_logged
                or self._loose_stage not in START_STEPS):
            return
        self._offer(OTHER, "a logged traceback cut before its exception line", {}, GENERIC, None,
                    Line(text="", raw=""))

    def failed_while_serving(self, message: str) -> None:
        """The excerpt's lines say the engine was serving when it failed (the engine's own wording of a failure after
        its start): its failure is a later one, and the start had completed."""
        failure = self._startup.failure
        self._to_later(failure if failure is not None else _Failure(OTHER, message, {}, GENERIC, None))
        self.seen_ready = True
        self.record.status_note = None
        self._sync()

    def _note_trainer_step(self, text: str) -> None:
        """A frame of an RL trainer's step (_TRAINER_STEP_FRAME): the trainer had built its rollout engines, so their
        start was complete; a generic failure read before it (the same step's traceback on another rank, Ray's report
        of the worker that died in the step, gpu-logs-55 vllm/10) is a later one. An engine's own failure kind read
        before it stays the start's."""
        if self.seen_ready or "verl/" not in text or _TRAINER_STEP_FRAME.search(text) is None:
            return
        failure = self._startup.failure
        if failure is not None and failure.rank != GENERIC:
            return
        if failure is not None:
            self._to_later(failure)
        self.seen_ready = True
        self.record.status_note = None
        self._sync()

    def _to_later(self, failure: _Failure) -> None:
        """The start's failure, if any, was a served engine's: `failure` is the later one, the record's error fields
        are cleared."""
        record = self.record
        self._startup.failure, self.seen_error = None, False
        record.error_kind = record.error_message = record.failed_during = None
        record.error_data = {}
        self._later.offer(failure)

    def has_pending(self) -> bool:
        """Hook: a fact announced over several lines waits for its next line (which must be seen)."""
        return False

    def may_be_from(self, raw: str, source: str) -> bool:
        """Hook: False only when `raw` cannot be a line of process `source`."""
        return True

    @classmethod
    def may_matter(cls, raw: str, ready: bool = False) -> bool:
        """False only for a line no rule, error rule, failure marker or exception test can read (`ready`: once the
        server is up)."""
        screens = cls.__dict__.get("_screen")
        if screens is None:
            screens = cls._screen = tuple(_screen(cls, state) for state in (False, True))
        screen = screens[ready]
        if screen is True:
            return True
        words, texts = screen
        if "\x1b" in raw or has_bare_reset(raw) or any(text in raw for text in texts):
            return True
        return not words.isdisjoint(raw.split())

    def flush_pending(self, line: Line) -> None:
        """Hook: a fact announced over several lines is complete (called before each line)."""

    def _join_held(self, raw: str) -> bool:
        """A line that continues the held one (a message wrapped by a terminal at a fixed width, or by its author
        with the number on the next line): True when the two read together state what neither did alone."""
        held, self._held = self._held, None
        segments = clean_segments(raw)
        if held is None or len(segments) != 1:
            return False
        t, segment = split_relative_time(segments[0])
        text = strip_wrappers(segment.rstrip())
        indent = len(text) - len(text.lstrip())
        held_indent = len(held.raw) - len(held.raw.lstrip())
        block = indent and held.raw[:indent] == text[:indent] and not held.raw[indent:indent + 1].isspace()
        if block:
            text = text[indent:]  # an author's block indented as a whole: the same indent as the held line's
        elif self._held_more and indent > held_indent and held.raw[:held_indent] == text[:held_indent]:
            # a message a rule read and whose end is still to come (Rule.until), its rest under a deeper indent: an
            # author's hanging indent ("    max_running_requests is capped to 0 by the mamba state cache" /
            # "      (max_mamba_cache_size=2, 5 state slots per request)", gpu-logs-96 sglang/01). Only such a held
            # message goes on here: any other indented line is a traceback's or a block's own
            text = text.lstrip()
        # a terminal that cut a long line at its width before a space starts the next with it (" secs, took 1.00
        # GiB"): one space, not an indent (a traceback's lines are indented by two or more)
        cut_at_space = text[:1] == " " and text[1:2] not in (" ", "") and len(held.raw) >= _CUT_WIDTH
        if not text or (text[0].isspace() and not cut_at_space):
            return False
        following = self.split_prefix(text, t)
        if following.prefixed or not following.text or (following.text[0].isspace() and not cut_at_space) or (
                following.text.startswith(HEADER_TEXT)):
            return False
        if self._own_message(held.text, following.text):
            return False
        fired = self.rules_fired
        more, self._held_more = self._held_more, False
        if following.level is not None or (more and following.source):
            # a record of its own (a logger's level, a process's tag): not the message going on; a line with a
            # logger's level never goes on with the one before it, the engine's or a plugin's logger's (kvcached's
            # "[kvcached][INFO] ..." after "Init kvcached KV cache allocator: ... total_mem_size=8735MB")
            return False
        # A terminal cuts anywhere, an author breaks at a space: the join that lets a rule read more of the message
        # wins ("... the available KV cache" / "memory (0.6 GiB). Based on ..." reads the available memory only with
        # the space); on a tie, a message a rule already read goes on after a space (an author's break: a sentence,
        # a number pair), any other after none (a terminal's cut inside a word). So does the rest of a line in a block
        # an author indented as a whole, where the paste shows no terminal's cut: a terminal puts the rest of a line
        # it cut at the margin, never under the line's own indent, so the break is the author's, at a space (gpu-logs-
        # 110 vllm/03: "   ... when other processes sharing the" / "   same container release GPU memory ...", vLLM's
        # memory-profiling assertion re-wrapped in a markdown list item; 0.20.0 vllm/v1/worker/gpu_worker.py:412-419
        # prints it on one line)
        spaced = more or (block and self.terminal_width is None)
        separators = sorted(("", " "), key=lambda sep: (-self._coverage(held.text + sep + following.text),
                                                       sep != (" " if spaced else "")))
        for separator in separators:
            line = Line(text=held.text + separator + following.text, raw=held.raw, source=held.source,
                        level=held.level, prefixed=held.prefixed, primary=held.primary, rank=held.rank, t=held.t)
            self._more = None
            self._match_rules(line)
            token = self._error_token[1] if self._error_token[0] == held.raw else ("joined", held.raw)
            self._known_error(line, None, token=token)
            if self.rules_fired != fired:
                self._held_more = self._more is line
                self._held = line if _incomplete(line.text) or self._held_more else None
                return True
        return False

    def _own_message(self, held: str, following: str) -> bool:
        """`following` is a message of its own, not the held one going on: a rule reads it from its start (the
        engine starts the message there: "GPU KV cache size: 649,728 tokens") and, joined, it would let no rule read
        more than the held line alone. An author's line that ends without its message's period (an annotation after
        it, gpu-logs-57 vllm/07: "Current kv cache memory in use is 69.4 GiB      ← ...") would otherwise take the
        next message in as its own rest."""
        if not any(self.rules[i].pattern.pattern[:1] == "^" and self.rules[i].pattern.search(following)
                   for i in self._candidates(following)):
            return False
        alone = self._coverage(held)
        return all(self._coverage(held + sep + following) <= alone for sep in ("", " "))

    def _coverage(self, text: str) -> int:
        """How many figures the best-reading rule or error rule finds in `text` (-1: none reads it)."""
        best = -1
        for r in [self.rules[i] for i in self._candidates(text)] + list(self.error_rules):
            if r.keyword is not None and r.keyword not in text:
                continue
            if (match := r.pattern.search(text)) is not None:
                best = max(best, sum(value is not None for value in match.groupdict().values()))
        return best

    def _feed_line(self, line: Line) -> None:
        fired = self.rules_fired
        self._more = None
        self._feed_line_rules(line)
        self._held_more = self._more is line
        held = self._held_more or (self.rules_fired == fired and _incomplete(line.text, line.raw))
        self._held = line if held else None

    def _feed_line_rules(self, line: Line) -> None:
        self.flush_pending(line)
        self._check_failures(line)
        self._match_rules(line)

    def _match_rules(self, line: Line) -> None:
        text = line.text
        rules = self.rules
        listed = self._list_indented(line)
        for index in self._candidates(text):
            r = rules[index]
            if (r.keyword is not None and r.keyword not in text) or (r.before_ready and self.seen_ready):
                continue
            match = r.pattern.search(text)
            if match is None and listed is not None and r.pattern.pattern[:1] == "^":
                match = r.pattern.search(listed)
            if match is None:
                continue
            self.rules_fired += 1
            if r.primary_only and not line.primary:
                # The row keeps rank 0's figures, the record the smallest KV count. Another
                # rank's lines stand in only when the log never states rank 0's (an excerpt of
                # other ranks): they are replayed at close, so they never add to rank 0's.
                self._note_rank_kv(match, line)
                if index not in self._primary_seen and len(self._deferred) < MAX_DEFERRED:
                    self._deferred.append((index, line))
                return
            if r.primary_only:
                self._primary_seen.add(index)
            if r.until is not None and r.until.search(text) is None:
                self._more = line
            self._run_rule(r, match, line)
            self._last_exception = None  # the engine went on: what it logged before did not end it
            return

    def _list_indented(self, line: Line) -> str | None:
        """A prefixless line's message without the indent of a block an author nested under a Markdown list item
        ("- **KV pool sizing** ...:" / "  ```" / "  MlxAttentionKVPool: 108280 slots ...", gpu-logs-57 sglang/03): a
        message the engine starts at the margin is the same message under that indent. None for a line at the margin,
        a prefixed one (its indent is after the engine's prefix, its own) or one inside an open traceback (a frame's
        source line)."""
        text = line.text
        if not text[:1].isspace() or line.prefixed or self._tracebacks.open_sources:
            return None
        return text.lstrip()

    @classmethod
    def _candidates(cls, text: str) -> list[int]:
        """The rules that may match `text`, in table order: most lines hold no rule's word."""
        index = cls.__dict__.get("_word_index")
        if index is None:
            index = cls._word_index = _word_index(cls.rules)
        words, always, memo = index
        found = words.keys() & text.split()
        if not found:
            return always
        key = frozenset(found)
        if (hit := memo.get(key)) is None:
            hit = memo[key] = sorted({*always, *(i for word in found for i in words[word])})
        return hit

    def _run_rule(self, r: Rule, match: re.Match, line: Line) -> None:
        values = self._apply(match, store=True)
        self._note_rank_kv(match, line)
        for action in r.actions:
            action(self, values, line)

    def _replay_other_ranks(self) -> None:
        """Rules rank 0 never stated: the first other rank's lines supply them."""
        deferred = [(i, line) for i, line in self._deferred if i not in self._primary_seen]
        self._deferred = []
        if not deferred:
            return
        rank = deferred[0][1].rank
        replica = _replica(rank)
        for index, line in deferred:
            if _replica(line.rank) != replica:
                continue
            self.flush_pending(line)
            r = self.rules[index]
            self._run_rule(r, r.pattern.search(line.text), line)
        states_kv = [i for i, _ in deferred if "kv_tokens" in self.rules[i].pattern.groupindex]
        if states_kv:
            self.record.rank_note = f"figures from rank {rank or '?'}: the log holds no rank 0 line for them"

    def _note_rank_kv(self, match: re.Match, line: Line) -> None:
        """Each rank's KV token count: where ranks differ, the record names the smallest. Each rank's KV budget too:
        a failure may be another rank's (the engine checks every worker's budget, vLLM 0.20.0
        vllm/v1/core/kv_cache_utils.py:1994-2003)."""
        gib = match.groupdict().get("kv_gib")
        if gib is not None:
            self.rank_kv_gib[line.rank] = coerce(float, gib)
        tokens = match.groupdict().get("kv_tokens")
        if tokens is None:
            return
        self._rank_kv[line.rank] = coerce(int, tokens)
        if len(set(self._rank_kv.values())) < 2:
            return
        rank, smallest = min(self._rank_kv.items(), key=lambda item: item[1])
        self.record.kv_tokens_min_rank = smallest
        self.record.rank_note = (f"KV tokens differ across {len(self._rank_kv)} ranks: the row has rank 0's, "
                                 f"the smallest is {smallest} (rank {rank or '?'})")

    def _apply(self, match: re.Match, store: bool) -> dict:
        values = {}
        for name, text in match.groupdict().items():
            if text is None:
                continue
            if store and name in self.kinds:
                setattr(self.record, name, coerce(self.kinds[name], text))
            values[name] = to_number(text)
        return values

    # --- failures -------------------------------------------------------------------------

    def _check_failures(self, line: Line) -> None:
        text = line.text
        if "verl/" in text:  # a frame anywhere in a traceback, its remote part (after Ray's task error) too
            self._note_trainer_step(text)
        if self.failure_markers.search(text):
            self._armed.add(line.source)
            self._settle_last_exception()  # an exception logged just before is the cause ("see root cause above")
            self._offer(OTHER, text.strip(), {}, GENERIC, ("marker", line.source), line)
        if NON_FATAL_HEADERS.match(text) or self._survived_head(text):
            self._ignore_next_block.add(line.source)
        step = self._tracebacks.feed(line.source, text)
        if step is not None and step.new_block:
            self._start_block(step.block, line)
        if step is not None and step.kind == STEP_FRAME:
            self._note_stage(step.block, text)
            self._note_owner(step.block, text)
        elif step is None and (text[:1].isspace() or is_flat_frame(text)):
            # (a flattened frame too: vllm#31903's '(EngineCore_DP0 pid=749) ERROR ... [core.py:879] File ".../core.py",
            # line 269, in _initialize_kv_caches' under a cut header, gpu-logs-52 vllm/05)
            self._note_loose_frame(text)
            self._loose_logged = self._loose_logged or (self._loose_frames and line.level in LEVELS_THAT_FAIL)
        if step is not None and step.kind in (STEP_EXCEPTION, STEP_DETAIL) and self._host_failure(line, step):
            return
        if not self._known_error(line, step):
            self._traceback_failure(line, step)

    def _survived_head(self, text: str) -> bool:
        heads = self.survived_exception_heads
        return heads is not None and heads.match(text) is not None

    def _note_owner(self, block: int, text: str) -> None:
        frame = _FRAME_OWNER.match(text) if "File " in text else None
        if frame is not None:
            self._own(block, frame.group("function") == "<module>", frame.group("path"))
        elif (frame := IPYTHON_FRAME.match(text)) is not None:
            # IPython's frame heads (a notebook cell's error output): the cell's own frame is the top level
            function = frame.group("function8") or frame.group("function7") or ""
            top = frame.group("cell") is not None or function == "<module>" or function.startswith("<cell line")
            self._own(block, top, frame.group("path8") or frame.group("path7") or "")

    def _own(self, block: int, top_level: bool, path: str) -> None:
        """What a frame says of its traceback's owner: [the program's top level is in it, a frame is the engine's]."""
        owner = self._block_owner.setdefault(block, [False, False])
        owner[0] = owner[0] or top_level
        parts = path.replace("\\", "/").split("/")
        owner[1] = owner[1] or any(_is_package(part, self.engine_packages) for part in parts)

    def _host_failure(self, line: Line, step: Step) -> bool:
        """An exception of the program that holds the engine, after the engine was built: a whole traceback (from
        its top level, "in <module>") with no frame in the engine (a trainer's DeepSpeed call after its offline
        engine was sized) is that program's failure, recorded as a later one; the engine's start stands."""
        owner = self._block_owner.get(step.block)
        if not self.seen_kv or owner is None or not owner[0] or owner[1]:
            return False
        # Python prints one uncaught exception's whole chain, its causes first ("During handling of the above
        # exception, another exception occurred:", CPython Lib/traceback.py TracebackException.format): an earlier
        # part's exception line was read before the chain's top level showed whose it was, and is this program's too
        # (gpu-logs-72 vllm/05: FileNotFoundError 'avconv' in audioread's frames, then the script's <module> frame)
        failure = self._startup.failure
        if step.kind == STEP_EXCEPTION and failure is not None and failure.token == step.block:
            self._to_later(failure)
        if step.kind == STEP_EXCEPTION and self._later.offer(
                _Failure(OTHER, line.text.strip(), {}, GENERIC, step.block)):
            self._emit(ev.LATER_FAILURE, {"kind": OTHER, "message": line.text.strip()}, line)
            self._sync()
        return True

    def _note_loose_frame(self, text: str) -> None:
        """A traceback's tail whose header the excerpt cut: its frames still say where the next exception was."""
        frame = _FRAME_FUNCTION.match(text)
        if frame is None and not self._loose_frames:
            return
        self._loose_frames = True
        if (stage := _stage_named(frame, text)) is not None:
            self._loose_stage = stage

    def _note_stage(self, block: int, text: str) -> None:
        """A frame line, or the source line under it (a cut traceback's last frame shows the call it was in)."""
        if (stage := _stage_named(_FRAME_FUNCTION.match(text), text)) is not None:
            self._block_stage[block] = stage

    def _known_error(self, line: Line, step: Step | None, token: object = None) -> bool:
        """A known engine error, stated by an exception or an ERROR line (or plainly, if that suffices)."""
        in_exception = step is not None and step.kind in (STEP_EXCEPTION, STEP_DETAIL)
        explicit = in_exception or line.level in LEVELS_THAT_FAIL or EXCEPTION_LINE.match(line.text) is not None
        for err in self.error_rules:
            if not (explicit or err.standalone) or (err.keyword is not None and err.keyword not in line.text):
                continue
            match = err.pattern.search(line.text)
            if match:
                self.rules_fired += 1
                token = step.block if in_exception else token if token is not None else ("line", line.raw)
                self._error_token = (line.raw, token)  # a later line that goes on with this one refines it
                if None in match.groupdict().values() and _incomplete(line.text):
                    self._more = line  # its message broken off before a figure it may state: the next line may hold it
                data = self._apply(match, store=False)
                for regex, key in err.extras:
                    if key not in data and (extra := regex.search(line.text)):
                        data[key] = to_number(next(g for g in extra.groups() if g is not None))
                for mib, gib in _MIB_AS_GIB:
                    if gib not in data and isinstance(data.get(mib), (int, float)):
                        data[gib] = round(data[mib] / 1024, 3)
                if err.rank == GENERIC:
                    # a known error that explains little (rank GENERIC: a process's death its parent reports, a message
                    # cut before its figures) after an exception printed with no progress between: the exception is the
                    # cause, and between equals the first wins (gpu-logs-56 sglang/01, the scheduler's "RuntimeError:
                    # NCCL error: ..." before the launcher's "Rank 0 scheduler died during initialization (exit code:
                    # -3)")
                    self._settle_last_exception()
                if err.stage is not None:
                    self._block_stage.setdefault(token, err.stage)  # a warm-up's failure, even after served lines
                self._offer(err.kind, line.text.strip(), data, err.rank, token, line,
                            fields=_record_fields(match, self.kinds))
                return True
        return False

    def _traceback_failure(self, line: Line, step: Step | None) -> None:
        """An exception with no known meaning ends a fatal traceback: its last line is the message."""
        if step is None or step.block not in self._fatal_blocks:
            self._note_exception(line, step)
            return
        text = line.text
        if step.kind == STEP_EXCEPTION:
            if INTERRUPTS.match(text):
                self.mark_stopping("SIGINT" if text.startswith("KeyboardInterrupt") else "exit", line)
            else:
                self._settle_last_exception()  # an exception logged just before is the cause ("see root cause above")
                self._offer(OTHER, text.strip(), {}, GENERIC, step.block, line)
        elif step.kind == STEP_DETAIL:
            self._add_detail(step.block, text)

    def _start_block(self, block: int, line: Line) -> None:
        if line.source in self._ignore_next_block:
            self._ignore_next_block.discard(line.source)
            self._quiet_blocks.add(block)
            return
        # A traceback without a log prefix is Python's own report of an uncaught
        # exception; one with a prefix is a logged exception, fatal after a marker, or when the log
        # ends with it (_note_exception), unless it was logged below ERROR (a warning the engine survives).
        if line.source in self._armed:
            self._armed.discard(line.source)
            marker = ("marker", line.source)
            self._startup.retoken(marker, block)
            self._later.retoken(marker, block)
        elif line.prefixed:
            if line.level is not None and line.level not in LEVELS_THAT_FAIL:
                self._quiet_blocks.add(block)
            return
        self._fatal_blocks.add(block)

    def _note_exception(self, line: Line, step: Step | None) -> None:
        """An exception not yet known to be fatal: a logged traceback's last line, or an exception stated on an
        ERROR line or printed bare. It is the startup's error if the log ends with it (_settle_last_exception)."""
        if step is None:
            if (not EXCEPTION_LINE.match(line.text) or (line.prefixed and line.level not in LEVELS_THAT_FAIL)
                    or self.seen_ready or self.seen_error):
                return
            token: object = ("line", line.source)
        elif self.seen_ready or self.seen_error or step.block in self._quiet_blocks:
            return
        elif step.kind == STEP_DETAIL:
            pending = self._last_exception
            if pending is not None and pending.token == step.block:
                pending.message = _with_detail(pending.message, line.text)
            return
        elif step.kind != STEP_EXCEPTION:
            return
        else:
            token = step.block
        text = line.text.strip()
        if INTERRUPTS.match(text):
            self._last_exception = None
            return
        self._last_exception = _Failure(OTHER, text, {}, GENERIC, token)
        self._last_exception_line = line

    def _add_detail(self, block: int, text: str) -> None:
        slot = self._later if self.seen_ready else self._startup
        failure = slot.failure
        if failure is None or failure.token != block or failure.kind != OTHER:
            return
        failure.message = _with_detail(failure.message, text)
        self._sync()

    def _offer(self, kind: str, message: str, data: dict, rank: int, token: object, line: Line,
               fields: dict | None = None) -> None:
        if self.stopping:
            return  # ERROR lines of a requested shutdown are not failures
        if not isinstance(token, int) and self._loose_stage is not None:
            token = token if token is not None else ("loose", line.raw)
            self._block_stage[token] = self._loose_stage
        failure = _Failure(kind, message, data, rank, token, fields or {})
        if self.seen_ready:
            if self._later.offer(failure):
                self._emit(ev.LATER_FAILURE, {"kind": kind, "message": message, **data}, line)
        elif self._startup.offer(failure):
            self.seen_error = True
            self._emit(ev.STARTUP_ERROR, {"error_kind": kind, "error_message": message, **data}, line)
        self._sync()

    def _sync(self) -> None:
        record = self.record
        later = self._later.failure
        if later is not None and self._startup.failure is None and self._block_stage.get(later.token) == "warmup":
            # it came up, then failed its warm-up: a failed start (an error at a later request is not)
            self._startup.failure, self._later.failure = later, None
            self.seen_error = True
            record.later_failure = record.later_failure_kind = None
        if (f := self._startup.failure) is not None:
            record.error_kind, record.error_message, record.error_data = f.kind, f.message, dict(f.data)
            if f.token in self._block_stage:
                record.failed_during = self._block_stage[f.token]
            for name, value in f.fields.items():
                setattr(record, name, value)
        if (f := self._later.failure) is not None:
            record.later_failure_kind, record.later_failure = f.kind, f.message
        # A server that came up is a healthy start even when its KV line was worded in a way
        # no rule knows: never let it read as a crash or a timeout.
        healthy = self.seen_kv or self.seen_ready or self.seen_engine_built
        record.status = STATUS_ENGINE_ERROR if self.seen_error else STATUS_OK if healthy else None

    # --- state changes the tables' actions call ---------------------------------------------

    def amend_failure(self, kind: str, data: dict, fields: dict) -> None:
        """Add figures a later line states to the startup's failure of `kind` (one it does not state yet): a message an
        author or a terminal broke, whose last sentence comes on a line of its own."""
        failure = self._startup.failure
        if failure is None or failure.kind != kind:
            return
        failure.data.update({k: v for k, v in data.items() if k not in failure.data})
        failure.fields.update({k: v for k, v in fields.items() if k not in failure.fields})
        self._sync()

    def advance(self, name: str, line: Line) -> None:
        """Move to phase `name` unless an equal or later phase was reached already."""
        current = self.phases.index(self.record.phase)
        if self.phases.index(name) > current:
            self.record.phase = name
            self._emit(ev.PHASE, {"phase": name}, line)

    def set_version(self, version: str, line: Line) -> None:
        if self.record.engine_version is None:
            self.record.engine_version = version
            self._emit(ev.VERSION, {"engine_version": version}, line)

    def mark_kv_sized(self, line: Line) -> None:
        self.advance("kv_sized", line)
        if self.seen_kv:
            return
        self.seen_kv = True
        self.record.t_kv_s = line.t
        self.finalize()
        self._sync()
        self._emit(ev.KV_SIZED, {k: getattr(self.record, k) for k in self.kv_event_fields}, line)

    def mark_engine_built(self, line: Line) -> None:
        """A front end's line logged once its engine is built but before its HTTP server listens (vLLM's 'Supported
        tasks'): the engine's start completed, so a window that ends there is a healthy start; not the server's ready
        (no READY event, no t_ready_s: a launcher must not send requests yet), and an error after it still fails the
        start (a port already in use)."""
        self.seen_engine_built = True
        self._sync()

    def mark_ready(self, line: Line) -> None:
        if self.seen_ready or self.seen_error:
            return
        self.advance("ready", line)
        self.seen_ready = True
        self.record.t_ready_s = line.t
        self._sync()
        self._emit(ev.READY, {}, line)

    def mark_served(self, line: Line) -> None:
        """A line only a serving engine prints (its stat logger's). A process's death noticed before it, and nothing
        more telling, happened while the server served: an executor's monitor reports a death in any phase (0.10.1.1
        vllm/v1/executor/multiproc_executor.py:146-148), and an excerpt may begin at the death (gpu-logs-53 vllm/04)."""
        failure = self._startup.failure
        if not self.seen_ready and failure is not None and failure.kind == "process_died" and failure.rank == GENERIC:
            self._to_later(failure)
        self.mark_ready(line)

    def mark_stopping(self, signal: str, line: Line) -> None:
        if self.stopping:
            return
        self.stopping = True
        if not self.seen_error and not self.seen_ready:
            self.record.stop_signal = signal
        self._emit(ev.STOPPING, {"signal": signal}, line)

    def _emit(self, kind: str, data: dict, line: Line) -> None:
        self._events.append(ev.Event(kind, data, line.raw))
