"""The results contract is the neutral columns plus what the engines declare: each column has one owner."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.engines import engine_names, get_engine
from harness.results.columns import COLUMNS, KNOBS, MEASURED, NEUTRAL_KNOBS, NEUTRAL_MEASURED, OUTCOME
from parsers.record import StartupRecord


def _declared_measured(name: str) -> tuple[str, ...]:
    record = get_engine(name).logs.make_parser().record
    return tuple(c for c in record.CSV_FIELDS if c not in StartupRecord.CSV_FIELDS)


def test_the_knob_columns_are_the_neutral_ones_and_each_engines_own():
    owners = Counter(c for name in engine_names() for c in get_engine(name).knob_columns)
    assert [c for c, n in owners.items() if n > 1] == []  # no column declared by two engines
    assert set(KNOBS) == set(NEUTRAL_KNOBS) | {"extra_args"} | set(owners)
    assert set(NEUTRAL_KNOBS).isdisjoint(owners)


def test_the_measured_columns_are_the_neutral_ones_and_each_engines_record_fields():
    owners = Counter(c for name in engine_names() for c in _declared_measured(name))
    assert [c for c, n in owners.items() if n > 1] == []
    assert set(MEASURED) == set(NEUTRAL_MEASURED) | set(owners)
    # the neutral record fills every neutral column the CSV has; its identity and outcome fields go elsewhere
    neutral = set(StartupRecord.CSV_FIELDS) - set(OUTCOME) - {"engine", "engine_version", "max_model_len"}
    assert neutral == set(NEUTRAL_MEASURED)


@pytest.mark.parametrize("name", engine_names())
def test_an_engines_knob_columns_are_its_own_knobs(name):
    engine = get_engine(name)
    assert set(engine.knob_columns) <= set(engine.knobs)
    assert set(_declared_measured(name)) <= set(COLUMNS)
