"""The probe (stop_after: probe): after readiness, drive the server and measure what really fits."""

from harness.execute.probe.drive import Server, run_probe
from harness.execute.probe.plan import ProbePlan, plan_probe

__all__ = ["ProbePlan", "Server", "plan_probe", "run_probe"]
