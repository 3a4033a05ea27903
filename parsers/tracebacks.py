"""Following Python tracebacks through a stream of lines, one per source process.

A traceback ends in the exception line (`ValueError: ...`), possibly chained to more
tracebacks ("During handling of the above exception ..."), and possibly followed by the
rest of a multi-line message (a pydantic error's details, an ImportError's text). The
tracker says, for each line, which part of a traceback it is; what that means for the
startup is the parser's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HEADER = "Traceback (most recent call last):"
CHAIN_MARKERS = (
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)

# Ray prints the traceback of an actor's failed creation task under its own head line, without Python's header:
# "(LLMRayActor pid=427151) Exception raised in creation task: The actor died because of an error raised in its
# creation task, ray::LLMRayActor.__init__() (pid=..., ip=..., actor_id=..., repr=<...>)" and the frames of __init__
# under it (Ray's worker logs it so, "worker.py:451 -- Exception raised in creation task: ..."; OpenRLHF#679 of
# 2025-01, gpu-logs-28 vllm/04; vLLM's own Ray actors print it so: DPEngineCoreActor in vLLM's CI of 2025-06,
# RayWorkerWrapper). The head line opens a traceback as Python's header does.
RAY_CREATION_HEAD = "The actor died because of an error raised in its creation task"

# A traceback whose indentation was lost (flattened by an issue tracker, a log viewer or an export: 'File "...", line
# 235, in __init__' at the line's start, its source line and caret line under it unindented): the frame line, and the
# caret or tilde line that marks a call (Python 3.11 on). Python writes the path between ASCII quotes ('  File "{}",
# line {}, in {}': CPython Lib/traceback.py StackSummary.format_frame_summary); a paste through a word processor or a
# chat client makes them typographic ('File “/home/.../vllm/v1/engine/core.py”, line 699, in run_engine_core',
# vllm#26898 of 2025-10, gpu-logs-47 vllm/01), so either pair quotes a frame's path, wherever frames are read.
FRAME_PATH = r'["\u201c](?P<path>[^"\u201d]*)["\u201d]'
_FLAT_FRAME = re.compile(r"^File " + FRAME_PATH + r", line \d+, in \S")
_MARKS = re.compile(r"^[\^~]+$")


def is_flat_frame(text: str) -> bool:
    """`text` is a traceback's frame line whose indentation was lost ('File "...", line 269, in _initialize_kv_caches'
    at the message's start)."""
    return _FLAT_FRAME.match(text.strip()) is not None

# IPython's report of an exception in a notebook cell (a Jupyter error output's traceback, colour codes aside): the
# exception's class and the words right-justified, no colon - "AttributeError                            Traceback
# (most recent call last)" (IPython 7.34 IPython/core/ultratb.py:1045, 8.37 :1021-1025, prepare_header) - then one
# head line per frame and the frame's numbered source lines, an arrow at the current one ("----> 5 llm = LLM(...)").
# A frame's head: IPython 8's "Cell In[1], line 5" for a cell and "File ~/venv/.../llm.py:247, in LLM.__init__(self,
# ...)" for a file (8.37 ultratb.py:296-318 _format_filename, the call after ", " at :951); IPython 7's "<path> in
# <function>(args)" ('%s %s' % (link, call), 7.34 ultratb.py:1018, call 'in func(...)' at :860) - the cell's own path a
# kernel temp file's, "/tmp/ipykernel_14800/1639024825.py in <cell line: 0>()", or "<ipython-input-3-...> in <module>".
IPYTHON_HEADER = re.compile(r"^[A-Za-z_][\w.]*\s+Traceback \(most recent call last\)$")
IPYTHON_FRAME = re.compile(r"^(?:(?P<cell>Cell In ?\[\d*\], line \d+|Input In ?\[\d*\], in )"
                           r"|File (?P<path8>\S.*?):\d+, in (?P<function8>[\w.<>]+)"
                           r"|(?P<path7>\S+) in (?P<function7><[\w ]+(?:: \d+)?>|[\w.]+)(?:\(|$))")
_IPYTHON_SOURCE = re.compile(r"^(?:-*> ?\d+\b|\[\.\.\. skipping )")

# Step kinds
STEP_HEADER = "header"
STEP_FRAME = "frame"
STEP_EXCEPTION = "exception"
STEP_DETAIL = "detail"  # the first line of the exception's message continued below it
STEP_MORE = "more"  # anything else that still belongs to the block


@dataclass(frozen=True)
class Step:
    kind: str
    block: int  # id of the traceback block (chained tracebacks share one)
    new_block: bool = False


@dataclass
class _Block:
    id: int
    state: str = "frames"  # frames -> exception -> (chain -> frames ...)
    exception_is_bare: bool = False  # "ImportError:" with its text on the next lines
    detail_taken: bool = False
    after_flat_frame: bool = False  # the last line was an unindented frame line: its source line comes next
    ipython: bool = False  # opened by IPython's header: its frames' head lines start at the line's start


@dataclass
class TracebackTracker:
    _blocks: dict[str, _Block] = field(default_factory=dict)
    _next_id: int = 0

    @property
    def open_sources(self) -> list[str]:
        """The processes with a traceback under way: their next lines must be seen."""
        return list(self._blocks)

    def cut_blocks(self) -> list[int]:
        """The tracebacks under way that have not reached their exception line (the log stopped in their frames)."""
        return [block.id for block in self._blocks.values() if block.state == "frames"]

    def feed(self, source: str, text: str) -> Step | None:
        """Classify `text` (a message without its log prefix) from process `source`."""
        block = self._blocks.get(source)
        ipython = text.endswith("(most recent call last)") and IPYTHON_HEADER.match(text.strip()) is not None
        if text.endswith(HEADER) or RAY_CREATION_HEAD in text or ipython:
            if block is not None and block.state == "chain":
                block.state = "frames"
                return Step(STEP_HEADER, block.id)
            block = self._blocks[source] = _Block(self._next_id, ipython=ipython)
            self._next_id += 1
            return Step(STEP_HEADER, block.id, new_block=True)
        if block is None:
            return None
        stripped = text.strip()
        if block.state == "frames":
            if text[:1].isspace() or not stripped:
                return Step(STEP_FRAME, block.id)
            after_frame, block.after_flat_frame = block.after_flat_frame, _FLAT_FRAME.match(stripped) is not None
            if block.after_flat_frame or after_frame or _MARKS.match(stripped):
                return Step(STEP_FRAME, block.id)  # a flattened traceback's frame, its source line, its marks
            if block.ipython and (IPYTHON_FRAME.match(stripped) or _IPYTHON_SOURCE.match(stripped)):
                return Step(STEP_FRAME, block.id)  # IPython's frame head, its current source line
            block.state = "exception"
            block.exception_is_bare = stripped.endswith(":") and " " not in stripped
            return Step(STEP_EXCEPTION, block.id)
        if not stripped:
            return Step(STEP_MORE, block.id)
        if stripped in CHAIN_MARKERS:
            block.state = "chain"
            return Step(STEP_MORE, block.id)
        if block.state == "exception":
            indented = text[:1].isspace()
            if not block.detail_taken and (indented or block.exception_is_bare):
                block.detail_taken = True
                return Step(STEP_DETAIL, block.id)
            if indented:
                return Step(STEP_MORE, block.id)
        del self._blocks[source]
        return None
