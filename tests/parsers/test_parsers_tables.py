"""The rule tables themselves: what their regexes may store into the record."""

from __future__ import annotations

import pytest

from parsers import PARSERS
from parsers.record import field_kinds

# Error messages that state one of the record's own facts; any other overlap would let an
# error's number (a *requested* size, a device id) overwrite what the log said.
ERROR_FIELDS = {"max_model_len", "estimated_max_model_len", "initial_free_gib", "mem_fraction_static_effective"}


@pytest.mark.parametrize("engine", sorted(PARSERS))
def test_error_groups_store_only_the_facts_they_state(engine):
    for err in PARSERS[engine].error_rules:
        stored = set(err.pattern.groupindex) & set(field_kinds(PARSERS[engine].record_type))
        assert stored <= ERROR_FIELDS, (err.kind, stored - ERROR_FIELDS)


@pytest.mark.parametrize("engine", sorted(PARSERS))
def test_error_kinds_are_snake_case_and_include_other(engine):
    kinds = PARSERS[engine].error_kinds()
    assert "other" in kinds and len(kinds) == len(set(kinds))
    assert all(kind.replace("_", "").isalpha() and kind.islower() for kind in kinds)


@pytest.mark.parametrize("engine", sorted(PARSERS))
def test_phase_orders_cover_the_shared_phases(engine):
    from parsers.events import PHASES
    assert sorted(PARSERS[engine].phases) == sorted(PHASES)
    assert PARSERS[engine].phases[0] == "starting" and PARSERS[engine].phases[-1] == "ready"
