"""Execute stage: every process, GPU and file effect of a run (executors, launcher, run folder)."""
