"""The CSV report: one row per finding (residuals and hazards)."""

from __future__ import annotations

import csv
import io
from collections.abc import Set

from ..tree.result import PortResult
from .counts import findings
from .json_report import diag_dict
from .output import write_text

CSV_COLUMNS = ("id", "name", "level", "file", "line", "column", "source_file", "source_line",
               "source_column", "text", "message", "lang")


def write_csv(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    """One row per finding (residuals and hazards)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for f, d in findings(r, suppress):
        row = diag_dict(f, d)
        w.writerow([row[c] for c in CSV_COLUMNS])
    write_text(path, buf.getvalue())

