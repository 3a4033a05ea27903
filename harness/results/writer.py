"""The results CSV of a run, rewritten whole and renamed into place after every point.

Write-then-rename means a crash, kill or Ctrl-C at any moment leaves either the old
file or the new one, never a half row, and a finished point is on disk before the next
one starts. An existing file (resume) is read through the same checks as `read_results`.
"""

from __future__ import annotations

import csv
import io
import logging
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.atomic import write_text
from harness.clock import utc_now
from harness.errors import HarnessError
from harness.results.columns import COLUMNS
from harness.results.io import current_text, parse_results, read_text, release_key, to_csv_text
from harness.results.rows import PointResult, make_row

log = logging.getLogger(__name__)


def _key(row: Mapping) -> tuple[str, str, int]:
    # The release is part of a row's identity: a release axis runs each point once per release.
    return str(row["point_id"]), release_key(row.get("engine_version")), int(row["repeat"])


class ResultsWriter:
    def __init__(self, path: Path):
        self.path = path
        self.notes: list[str] = []  # what reading the existing file repaired (shown to the user)
        # rows read back are text, rows added since hold their typed values: the CSV text is the same
        self.rows: list[dict[str, Any]] = self._existing_rows()

    def _existing_rows(self) -> list[dict[str, str]]:
        if not self.path.exists():
            return []
        original = read_text(self.path)
        text = current_text(self.path)
        repaired = text
        lines = text.split("\n")
        # A row cut short (a copy or disk failure mid-write) is the last line: without its
        # newline, or with fewer fields than the header. It is re-run, not trusted.
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > 1 and (not text.endswith("\n") or len(next(csv.reader([lines[-1]]), [])) < len(COLUMNS)):
            cut = lines.pop()
            repaired = "\n".join(lines) + "\n"
            self.notes.append(f"{self.path}: last row was cut short ({cut[:40]!r}...); its point runs again")
        parse_results(repaired, source=str(self.path))  # the reader's rules, or one InputError line
        rows = [dict(row) for row in csv.DictReader(io.StringIO(repaired))]
        if repaired != original:
            backup = self.path.with_name(f"{self.path.name}.{utc_now().strftime('%Y%m%dT%H%M%S%fZ')}.bak")
            shutil.copy2(self.path, backup)
            if repaired == text:
                self.notes.append(f"{self.path}: rewritten in the current results format "
                                  f"(old file kept as {backup.name})")
            else:
                self.notes.append(f"{self.path}: repaired (old file kept as {backup.name})")
            self.rows = rows
            self._write()
        return rows

    def done(self, rerun: tuple[str, ...] = ()) -> set[tuple[str, str, int]]:
        """(point_id, release, repeat) of rows that need no re-run: everything but harness errors and the
        statuses asked to run again (`rerun`: a timeout that a longer --timeout may turn into a measurement)."""
        return {_key(r) for r in self.rows
                if r.get("status") not in ("harness_error", *rerun) and r.get("source") != "predicted"}

    def measured_rows(self) -> list[dict[str, Any]]:
        """The rows of launches (a sparse run's predicted rows are not: a resume predicts them again)."""
        return [r for r in self.rows if r.get("source") != "predicted"]

    def set_predicted(self, rows: list[dict[str, Any]]) -> None:
        """A sparse run's predicted rows, in place of every earlier predicted row and of no measured one."""
        measured = {_key(r) for r in self.measured_rows()}
        self.rows = self.measured_rows() + [r for r in rows if _key(r) not in measured]
        self._write()

    def add(self, result: PointResult) -> None:
        """Write a point's row, made here from its result, in place of any earlier row of that point."""
        row = make_row(result)
        key = _key(row)
        self.rows = [r for r in self.rows if _key(r) != key]
        self.rows.append(row)
        self._write()

    def replace(self, row: dict[str, Any]) -> None:
        """`row` in place of the row of its (point, release, repeat)."""
        key = _key(row)
        self.rows = [row if _key(r) == key else r for r in self.rows]
        self._write()

    def _write(self) -> None:
        try:
            write_text(self.path, to_csv_text(self.rows), fsync=True)
        except OSError as exc:
            raise HarnessError(f"{self.path}: cannot write the results: {exc.strerror or exc}; "
                               "rows written before are kept", exit_code=3) from None
