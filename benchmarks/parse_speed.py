"""Parser throughput on the recorded real logs: microseconds per line, streaming.

    python benchmarks/parse_speed.py [--repeat N]

The launcher feeds every engine line through the parser while it waits for the KV line,
so the parser must stay far below the engine's own pace. Target: <= 200 us per line
(a GPU startup prints a few hundred lines; the harness overhead budget is 0.5 s a point).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from parsers import detect_engine, make_parser, read_log

TARGET_US_PER_LINE = 200.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    logs = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*/*.log"))
    texts = [(detect_engine(text), text.splitlines(keepends=True)) for text in map(read_log, logs)]
    lines = sum(len(t) for _, t in texts)
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        for engine, text in texts:
            p = make_parser(engine)
            for line in text:
                p.feed(line)
        best = min(best, time.perf_counter() - start)
    per_line = best / lines * 1e6
    print(f"{len(logs)} logs, {lines} lines: best of {args.repeat} = {best * 1000:.1f} ms, "
          f"{per_line:.1f} us/line (target <= {TARGET_US_PER_LINE:.0f})")
    return 0 if per_line <= TARGET_US_PER_LINE else 1


if __name__ == "__main__":
    sys.exit(main())
