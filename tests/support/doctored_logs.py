"""A KV change no rule covers, made from real logs: one side's pool and every log line that states it edited by the
same factor (+1 % by default: far more than the logs' rounding hides on any but the smallest pools), the rest of the
log left as the engine wrote it. The row is read again from the edited log, as the harness would have written it.

SGLang: "#tokens: N", "K size: x GB, V size: y GB", "Memory pool end. avail mem=A GB" (what the larger pool took),
"max_total_num_tokens=N". vLLM: "KV cache size: N tokens", "Maximum concurrency for L tokens per request: Cx",
"Available KV cache memory: X GiB". A pool given in bytes (--kv-cache-memory-bytes) is an argument, not a log line:
it stays.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from harness.results.columns import COLUMNS, KNOBS
from harness.results.io import read_results
from parsers import parse_log, read_log

FACTOR = 1.01
GiB = 1 << 30


def _scaled_int(match: re.Match, factor: float) -> str:
    text = match.group(1)
    value = int(int(text.replace(",", "")) * factor)
    return match.group(0).replace(text, f"{value:,}" if "," in text else str(value), 1)


def doctor_sglang(text: str, factor: float = FACTOR) -> str:
    """SGLang's pool lines scaled: the tokens, the K and V sizes (the new tokens x the cell the lines imply: K + V
    over #tokens, to 16 bytes - printed to 0.01 GB they say no finer), and the free memory the larger pool left."""
    found = re.search(r"#tokens: (\d+), K size: ([\d.]+) GB, V size: ([\d.]+) GB", text)
    if found is None:
        return text
    tokens = int(found.group(1))
    new_tokens = int(tokens * factor)
    cell = round((float(found.group(2)) + float(found.group(3))) * GiB / tokens / 16) * 16
    half_gib = new_tokens * cell / 2 / GiB
    grown_gib = (new_tokens - tokens) * cell / GiB
    text = text.replace(found.group(0), f"#tokens: {new_tokens}, K size: {half_gib:.2f} GB, V size: {half_gib:.2f} GB")
    text = re.sub(r"max_total_num_tokens=(\d+)", lambda m: _scaled_int(m, factor), text)
    return re.sub(r"Memory pool end\. avail mem=([\d.]+) GB",
                  lambda m: f"Memory pool end. avail mem={float(m.group(1)) - grown_gib:.2f} GB", text)


def doctor_vllm(text: str, factor: float = FACTOR) -> str:
    """vLLM's pool lines scaled: the KV size in tokens, the concurrency, the available KV memory."""
    text = re.sub(r"KV cache size: ([\d,]+) tokens", lambda m: _scaled_int(m, factor), text)
    text = re.sub(r"(Maximum concurrency for [\d,]+ tokens per request: )([\d.]+)x",
                  lambda m: f"{m.group(1)}{float(m.group(2)) * factor:.2f}x", text)
    return re.sub(r"Available KV cache memory: ([\d.]+) GiB",
                  lambda m: f"Available KV cache memory: {float(m.group(1)) * factor:.2f} GiB", text)


DOCTORS = {"sglang": doctor_sglang, "vllm": doctor_vllm}


def doctored_copy(results: Path, into: Path, point_id: str, engine_version: str, factor: float = FACTOR) -> Path:
    """A copy of a committed results file and its logs under `into`, where one started point of one release has its
    pool edited (its log, and its row read again from that log). Returns the copy's results.csv."""
    folder = into / results.parent.name
    shutil.copytree(results.parent, folder, dirs_exist_ok=True)
    frame = read_results(folder / "results.csv")
    rows = frame.index[(frame["point_id"] == point_id) & (frame["engine_version"].astype(str) == engine_version)
                       & (frame["status"] == "ok")]
    assert len(rows), (point_id, engine_version)
    for index in rows:
        log = folder / frame.at[index, "log_path"]
        engine = frame.at[index, "engine"]
        log.write_text(DOCTORS[engine](read_log(log), factor))
        values = parse_log(read_log(log), engine).csv_values()
        for column, value in values.items():
            if column in COLUMNS and column not in KNOBS and value is not None and column in frame.columns:
                frame.at[index, column] = value
    frame.to_csv(folder / "results.csv", index=False)
    return folder / "results.csv"
