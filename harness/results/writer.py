"""The results CSV of a run, rewritten whole and renamed into place after every point.

Write-then-rename means a crash, kill or Ctrl-C at any moment leaves either the old
file or the new one, never a half row, and a finished point is on disk before the next
one starts.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Mapping

from harness.results.io import FORMAT_LINE, format_version, to_csv_text


class ResultsWriter:
    def __init__(self, path: Path):
        self.path = path
        self.rows: list[dict[str, str]] = self._existing_rows()

    def _existing_rows(self) -> list[dict[str, str]]:
        if not self.path.exists():
            return []
        first, _, body = self.path.read_text(encoding="utf-8").partition("\n")
        if format_version(first) is None:
            from harness.errors import InputError

            raise InputError(f"{self.path}: not a results CSV (expected first line {FORMAT_LINE!r})")
        return [dict(row) for row in csv.DictReader(io.StringIO(body))]

    def done(self) -> set[tuple[str, int]]:
        """(point_id, repeat) of rows that need no re-run (everything but harness errors)."""
        return {(r["point_id"], int(r["repeat"])) for r in self.rows if r.get("status") != "harness_error"}

    def add(self, row: Mapping) -> None:
        key = (str(row["point_id"]), str(row["repeat"]))
        self.rows = [r for r in self.rows if (r["point_id"], str(r["repeat"])) != key]
        self.rows.append(dict(row))
        self._write()

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(to_csv_text(self.rows))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
