"""Errors the CLI turns into one line and a fixed exit code (the only place that does)."""

EXIT_OK = 0
EXIT_FINDING = 1  # validate found problems, compare found a change
EXIT_USAGE = 2  # bad input: missing file, broken YAML, unknown knob
EXIT_HARNESS = 3  # the harness itself failed


class HarnessError(Exception):
    """An expected failure the user can act on: printed as one line, no traceback."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class InputError(HarnessError):
    """Bad user input: a file, a flag or a scenario value."""

    exit_code = EXIT_USAGE


class Interrupted(HarnessError, KeyboardInterrupt):
    """Ctrl-C or a signal ended a run: the rows written are kept; the message says how to go on."""

    exit_code = 130

    def __init__(self, run_dir, scenario_path, rows: int):
        self.run_dir = run_dir
        super().__init__(f"interrupted; {rows} new row(s) kept in {run_dir}/results.csv; complete the run with:\n"
                         f"  python -m harness run {scenario_path} --resume {run_dir}")
