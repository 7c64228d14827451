"""A port's findings as a person reads them in a list: the summary, "Hand work, by
file" and ``--output-format grouped``.

The port's result holds every place as its own finding (what the JSON, the SARIF, the
CSV and ``--output-format github`` give: an editor or code scanning marks each line).
The view sums them up: in each file, the note-level places of a check one note and a
file-wide decision's places its warning (``analyze/notes.py``); a vendored library its
one MP2007 warning (its findings are notes that name it, ``tree/library_findings.py``).
"""

from __future__ import annotations

from dataclasses import replace

from ..analyze.notes import GROUPED, grouped
from ..tree.result import FileOutcome, PortResult
from ..tree.vendored import in_library

LIBRARY_SUMMARY = "MP2007"


def grouped_view(r: PortResult) -> PortResult:
    """``r`` with each file's findings summed up (``r`` itself when it already is)."""
    if r.grouped:
        return r
    return replace(r, files=[_grouped(f, r.libraries) for f in r.files], grouped=True)


def _grouped(f: FileOutcome, libraries: frozenset[str]) -> FileOutcome:
    rows = f.record.diagnostics
    if not rows:
        return f
    if libraries and in_library(f.rel, libraries):
        rows = [row for row in rows if row[0] == LIBRARY_SUMMARY]
    elif any(row[0] in GROUPED for row in rows):
        rows = [d.to_list() for d in grouped(f.diagnostics)]
    else:
        return f
    return replace(f, record=replace(f.record, diagnostics=rows))
