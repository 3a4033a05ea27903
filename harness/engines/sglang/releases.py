"""Which SGLang releases the budget formulas hold for, and what changed between releases."""

from __future__ import annotations

from harness.engines.releases import ReleaseRange

# The formulas (harness/engines/sglang/formulas.py) are read from 0.5.22's code and 0.5.23's
# differences are modelled; the default mem_fraction_static formula went through several forms
# across 0.4.x-0.5.x that are not sourced here, so `predict` says so for those releases.
PREDICTED_RELEASES = ReleaseRange("0.5.22", "0.5.24")

# 0.5.23 warns when the KV pool holds fewer tokens than the context length (before: silent).
POOL_SHORTER_THAN_CONTEXT_WARNS = ReleaseRange("0.5.23")
