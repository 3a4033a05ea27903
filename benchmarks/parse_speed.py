"""Parser throughput on the recorded real logs (microseconds per line), and `parse` on a 200 MB log.

    python benchmarks/parse_speed.py [--repeat N] [--big-mb MB]

The launcher feeds every engine line through the parser while it waits for the KV line,
so the parser must stay far below the engine's own pace. Targets: <= 200 us per line
(a GPU startup prints a few hundred lines; the harness overhead budget is 0.5 s a point);
and `parse` on a log of any size streams it: <= 100 MB peak RSS and >= 20 MB/s on a 200 MB
log built in a temporary folder from the recorded logs, interleaved and repeated.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from parsers import detect_engine, make_parser, read_log  # noqa: E402

TARGET_US_PER_LINE = 200.0
TARGET_PEAK_RSS_MB = 100.0
TARGET_MB_PER_S = 20.0
CHUNK_LINES = 40  # the big log interleaves the recorded logs in runs of this many lines

# Run in a fresh interpreter, so its peak RSS is the parse's alone (VmHWM: the high-water mark).
CHILD = """
import json, sys, time, io, contextlib
sys.path.insert(0, sys.argv[1])
from harness.cli import main
start = time.perf_counter()
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["parse", "--json", sys.argv[2]])
seconds = time.perf_counter() - start
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
record = json.loads(out.getvalue())
print(json.dumps({"code": code, "seconds": seconds, "peak_rss_mb": hwm / 1024, "kv_tokens": record["kv_tokens"]}))
"""


def recorded_logs() -> list[Path]:
    return sorted((ROOT / "tests" / "fixtures" / "logs").glob("*/*.log"))


def per_line(repeat: int) -> tuple[int, int, float]:
    logs = recorded_logs()
    texts = [(detect_engine(text), text.splitlines(keepends=True)) for text in map(read_log, logs)]
    lines = sum(len(t) for _, t in texts)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for engine, text in texts:
            p = make_parser(engine)
            for line in text:
                p.feed(line)
        best = min(best, time.perf_counter() - start)
    return len(logs), lines, best


def build_big_log(path: Path, megabytes: int) -> int:
    """The recorded vLLM logs, interleaved in runs of CHUNK_LINES lines and repeated to `megabytes`."""
    logs = [p.read_bytes().splitlines(keepends=True) for p in recorded_logs() if p.parent.name.startswith("vllm")]
    target = megabytes * 1_000_000
    size = 0
    with open(path, "wb") as out:
        while size < target:
            for start in range(0, max(map(len, logs)), CHUNK_LINES):
                for lines in logs:
                    chunk = b"".join(lines[start:start + CHUNK_LINES])
                    out.write(chunk)
                    size += len(chunk)
    return size


def parse_in_child(path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path)], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big-mb", type=int, default=200, help="size of the streamed log (0: skip it)")
    args = parser.parse_args()
    ok = True
    logs, lines, best = per_line(args.repeat)
    us = best / lines * 1e6
    ok &= us <= TARGET_US_PER_LINE
    print(f"{logs} logs, {lines} lines: best of {args.repeat} = {best * 1000:.1f} ms, "
          f"{us:.1f} us/line (target <= {TARGET_US_PER_LINE:.0f})")
    if args.big_mb:
        with tempfile.TemporaryDirectory() as tmp:
            small = parse_in_child(recorded_logs()[-1])
            big_path = Path(tmp) / "big.log"
            size = build_big_log(big_path, args.big_mb)
            big = parse_in_child(big_path)
        rate = size / 1e6 / big["seconds"]
        ok &= big["code"] == 0 and big["peak_rss_mb"] <= TARGET_PEAK_RSS_MB and rate >= TARGET_MB_PER_S
        print(f"parse, one recorded log: peak RSS {small['peak_rss_mb']:.0f} MB, {small['seconds']:.2f} s")
        print(f"parse, {size / 1e6:.0f} MB log: peak RSS {big['peak_rss_mb']:.0f} MB "
              f"(target <= {TARGET_PEAK_RSS_MB:.0f}), {rate:.1f} MB/s (target >= {TARGET_MB_PER_S:.0f}), "
              f"{big['seconds']:.1f} s, kv_tokens {big['kv_tokens']}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
