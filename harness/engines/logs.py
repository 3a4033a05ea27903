"""Reading a startup log of any registered engine: which engine wrote it, and its parsed record."""

from __future__ import annotations

from parsers import NotAnEngineLog, StartupRecord

from harness.engines.registry import engine_names, get_engine

AUTO = "auto"


def detect_engine(text: str) -> str | None:
    """The registered engine whose log `text` most looks like, or None."""
    scores = {name: get_engine(name).log_score(text) for name in engine_names()}
    best = max(scores, key=scores.__getitem__, default=None)
    return best if best is not None and scores[best] > 0 else None


def parse_engine_log(text: str, engine: str = AUTO) -> StartupRecord:
    """Parse a whole log with its engine's parser. Raises NotAnEngineLog when `engine` is auto and none matches."""
    if engine == AUTO:
        detected = detect_engine(text)
        if detected is None:
            raise NotAnEngineLog(f"no log lines of any known engine ({', '.join(engine_names())}) found")
        engine = detected
    parser = get_engine(engine).make_parser()
    # Not splitlines(): it would also split on characters such as \x0c that can appear inside a line.
    parser.feed_lines(text.split("\n"))
    return parser.record
