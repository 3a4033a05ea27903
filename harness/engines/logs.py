"""Reading a startup log of any registered engine: which engine wrote it, and its parsed record."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from packaging.version import InvalidVersion, Version

from harness.engines.registry import engine_names, get_engine
from harness.engines.release_formats import table_paths
from harness.engines.releases import version_key
from parsers import ENCODING_HEAD_BYTES, NotAnEngineLog, StartupRecord, log_encoding, terminal_width
from parsers.base import LogParser

AUTO = "auto"
# How much of a log detection reads: the engines' first lines name them; the rest streams.
DETECT_LINES = 2000
DETECT_BYTES = 1 << 20
# A file is read in blocks of whole lines; a line longer than MAX_LINE_BYTES comes in pieces
# (a file without line ends must not fill memory).
BLOCK_BYTES = 256 << 10
MAX_LINE_BYTES = 4 << 20


def detect_engine(text: str) -> str | None:
    """The registered engine whose log `text` most looks like, or None."""
    scores = {name: get_engine(name).logs.log_score(text) for name in engine_names()}
    best = max(scores, key=scores.__getitem__, default=None)
    return best if best is not None and scores[best] > 0 else None


def table_releases(engine: str) -> list[str]:
    """The releases with a committed format table, oldest first."""
    return [path.stem.split("-", 1)[1] for path in table_paths(engine)]


def format_release(engine: str, version: str | None) -> str | None:
    """The release whose format table reads a log of `version`: itself, else the nearest known one.

    A release between two tables reads with the older one (wording changes come with
    releases); one newer than every table with the newest, one older with the oldest.
    """
    releases = table_releases(engine)
    if not releases or not version:
        return None
    base = version.split("+", 1)[0]  # a local build tag (0.11.0+cpu) names the same release
    if base in releases:
        return base
    try:
        key = Version(base)
    except InvalidVersion:  # not a release number (a git hash): the newest wording is the likeliest
        return releases[-1]
    older = [r for r in releases if version_key(r) <= key]
    return older[-1] if older else releases[0]


def read_blocks(stream: BinaryIO) -> Iterator[str]:
    """An open binary file as text blocks of whole lines, BLOCK_BYTES or so each (memory stays flat)."""
    rest = b""
    for read in _utf8_chunks(stream):
        chunk = rest + read
        cut = chunk.rfind(b"\n") + 1
        if cut == 0 and len(chunk) < MAX_LINE_BYTES:
            rest = chunk  # one line longer than a block: wait for its end
            continue
        cut = cut or len(chunk)  # a line past MAX_LINE_BYTES comes in pieces
        rest = chunk[cut:]
        yield chunk[:cut].decode("utf-8", errors="replace")
    if rest:
        yield rest.decode("utf-8", errors="replace")


def _utf8_chunks(stream: BinaryIO) -> Iterator[bytes]:
    """The file's bytes as UTF-8, BLOCK_BYTES or so at a time: a UTF-8 file's as read, what a Windows tool wrote
    (UTF-16, a byte-order mark: parsers.log_encoding reads the head) decoded as it is read and encoded again."""
    chunk = stream.read(max(BLOCK_BYTES, ENCODING_HEAD_BYTES))
    encoding = log_encoding(chunk[:ENCODING_HEAD_BYTES])
    if encoding == "utf-8-sig":
        chunk = chunk[len(codecs.BOM_UTF8):]
    decoder = None if encoding in ("utf-8", "utf-8-sig") else codecs.getincrementaldecoder(encoding)(errors="replace")
    while chunk:
        yield chunk if decoder is None else decoder.decode(chunk).encode("utf-8")
        chunk = stream.read(BLOCK_BYTES)
    if decoder is not None:
        yield decoder.decode(b"", final=True).encode("utf-8")


def _head(lines: Iterator[bytes]) -> list[bytes]:
    head, size = [], 0
    for line in lines:
        head.append(line)
        size += len(line)
        if len(head) >= DETECT_LINES or size >= DETECT_BYTES:
            break
    return head


def parse_engine_lines(lines: Iterable[str | bytes], engine: str = AUTO) -> LogParser:
    """Feed a log's lines, as they come, to its engine's parser; the closed parser.

    Raises NotAnEngineLog when `engine` is auto and the log's first lines match none.
    """
    lines = iter(lines)
    head: list = []
    if engine == AUTO:
        head = _head(lines)
        text = "".join(line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line for line in head)
        engine = _detected(text)
    parser = get_engine(engine).logs.make_parser()
    for line in chain(head, lines):
        parser.feed(line)
    return _closed(parser, engine)


def _closed(parser: LogParser, engine: str) -> LogParser:
    """`parser` closed, its record naming the release table its lines were read by."""
    parser.close()
    parser.record.format_release = format_release(engine, parser.record.engine_version)
    return parser


def _detected(text: str) -> str:
    """The engine that wrote `text`; NotAnEngineLog when none of the registered ones did."""
    detected = detect_engine(text)
    if detected is None:
        raise NotAnEngineLog(f"no log lines of any known engine ({', '.join(engine_names())}) found")
    return detected


def parse_engine_file(path: str | Path, engine: str = AUTO) -> LogParser:
    """Stream one log file through its engine's parser (memory stays flat whatever its size)."""
    with open(path, "rb") as stream:
        blocks = read_blocks(stream)
        head: list[str] = []
        size = lines = 0
        whole = True  # the head holds all of the file (a paste, not a server's long log)
        for block in blocks:  # the first lines only, however the blocks fall
            head.append(block)
            size, lines = size + len(block), lines + block.count("\n")
            if size >= DETECT_BYTES or lines >= DETECT_LINES:
                whole = False
                break
        text = "".join(head)
        if engine == AUTO:
            engine = _detected("\n".join(text.split("\n", DETECT_LINES)[:DETECT_LINES]))
        parser = get_engine(engine).logs.make_parser()
        every = text.split("\n")
        if whole:  # a paste: read as parse_log reads it (a terminal's cuts joined, its last start)
            parser.feed_whole(every)
        else:  # a longer file is streamed as one start (memory stays flat)
            # a terminal's cuts, where its head shows them, and a list of strings are read line by line (a cut piece
            # holds no rule's text: the block scan would pass it over)
            parser.terminal_width = terminal_width(every)
            if parser.terminal_width is not None or parser.holds_literal_pieces(text):
                parser.feed_lines(_lines(chain(head, blocks)))
            else:
                for block in chain(head, blocks):
                    parser.feed_block(block)
    return _closed(parser, engine)


def _lines(blocks: Iterable[str]) -> Iterator[str]:
    """The lines of the text `blocks` make, as `str.split("\n")` of the whole would give them (as parse_log reads)."""
    tail = ""
    for block in blocks:
        pieces = (tail + block).split("\n")
        tail = pieces.pop()
        yield from pieces
    yield tail


def parse_engine_log(text: str, engine: str = AUTO) -> StartupRecord:
    """Parse a whole log held in memory. Raises NotAnEngineLog when `engine` is auto and none matches."""
    # Not splitlines(): it would also split on characters such as \x0c that can appear inside a line.
    lines = text.split("\n")
    if engine == AUTO:
        engine = _detected("".join(_head(line + "\n" for line in lines)))
    parser = get_engine(engine).logs.make_parser()
    parser.feed_whole(lines)
    return _closed(parser, engine).record
