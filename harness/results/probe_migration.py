"""Results v6 -> v7: the probe's columns as v4 wrote them (two waves by position, memory in MiB) rewritten as v7's
(every wave in `probe_waves`, named by shape and length; memory in GiB; lengths named in tokens)."""

from __future__ import annotations

import csv
import io

from harness.results.probe import MIB_PER_GIB, PROBE_COLUMNS, WAVE_KEYS, waves_text

# v4-v6: the first wave's columns under `probe_`, the second's under `probe_short_` (both prompt-heavy: the only
# shape then), in this order
_V4_PREFIXES = ("probe_", "probe_short_")
_V4_WAVE = ("len", "sent", "claimed_concurrency", "completed", "failed_requests", "peak_running", "peak_waiting",
            "preemptions", "peak_kv_usage", "concurrency_ratio", "first_failure")
V4_PROBE_COLUMNS: tuple[str, ...] = (
    "probe_longest_served", "probe_refused_len", "probe_refusal",
    *(prefix + name for prefix in _V4_PREFIXES for name in _V4_WAVE),
    "probe_healthy_after", "probe_peak_memory_mib", "probe_limits",
)
# a v4 wave's figure -> its v7 key (the rest of WAVE_KEYS were not measured then: empty)
_RENAMED = {"len": "len_tokens"}


def _number(text: str) -> int | float | None:
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else value


def _v4_wave(cells: dict[str, str], prefix: str) -> dict | None:
    if cells.get(prefix + "len", "") == "":
        return None
    wave = dict.fromkeys(WAVE_KEYS)
    for name in _V4_WAVE:
        value = cells.get(prefix + name, "")
        wave[_RENAMED.get(name, name)] = (value or None) if name == "first_failure" else _number(value)
    wave.update(shape="prompt_heavy", wave=f"prompt_heavy@{wave['len_tokens']}", cut=False)
    return wave


def _v7_cells(cells: dict[str, str]) -> list[str]:
    waves = [w for w in (_v4_wave(cells, prefix) for prefix in _V4_PREFIXES) if w is not None]
    memory = _number(cells.get("probe_peak_memory_mib", ""))
    probed = any(cells.get(c, "") != "" for c in V4_PROBE_COLUMNS)
    values = {
        "probe_longest_served_tokens": cells.get("probe_longest_served", ""),
        "probe_refused_tokens": cells.get("probe_refused_len", ""), "probe_refusal": cells.get("probe_refusal", ""),
        "probe_waves": waves_text(waves) if probed else "",
        "probe_healthy_after": cells.get("probe_healthy_after", ""),
        "probe_peak_memory_gib": "" if memory is None else str(round(memory / MIB_PER_GIB, 3)),
        "probe_incomplete": "", "probe_limits": cells.get("probe_limits", ""),
    }
    return [values[c] for c in PROBE_COLUMNS]


def v6_to_v7(text: str, context: dict) -> str:
    """The v4 probe block replaced, in place, by v7's columns; every row's waves carried over."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or V4_PROBE_COLUMNS[0] not in rows[0]:
        return text
    header = rows[0]
    at = header.index(V4_PROBE_COLUMNS[0])
    old = [i for i, name in enumerate(header) if name in V4_PROBE_COLUMNS]
    keep = [i for i in range(len(header)) if i not in old]
    out_rows = [[header[i] for i in keep[:at]] + list(PROBE_COLUMNS) + [header[i] for i in keep[at:]]]
    for row in rows[1:]:
        if len(row) != len(header):  # a row cut short stays short: the writer re-runs it
            out_rows.append(row)
            continue
        cells = dict(zip(header, row))
        out_rows.append([row[i] for i in keep[:at]] + _v7_cells(cells) + [row[i] for i in keep[at:]])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(out_rows)
    return out.getvalue()
