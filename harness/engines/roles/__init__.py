"""The roles an engine is made of: how it is launched, how its log is read, how it is installed, how its
budget is predicted, what `advise` may turn, how the probe talks to it. An engine provides the roles it has
(harness/engines/base.py)."""

from harness.engines.roles.advice import AdviceKnobs
from harness.engines.roles.formulas import BudgetFormulas, Column
from harness.engines.roles.installation import Installation, InstallSteps, Recipe
from harness.engines.roles.launch import Launch
from harness.engines.roles.log_reading import LogReading
from harness.engines.roles.runtime import BinaryRuntime, Runtime, VenvRuntime
from harness.engines.roles.serving import MetricNames, Refusal, ServingApi

__all__ = ["AdviceKnobs", "BinaryRuntime", "BudgetFormulas", "Column", "InstallSteps", "Installation", "Launch",
           "LogReading", "MetricNames", "Recipe", "Refusal", "Runtime", "ServingApi", "VenvRuntime"]
