"""Findings of an output the porter edited, placed on the lines of the file on disk.

The analyzers find what is left in the fresh port; after a merge that kept the porter's
added lines (or a re-run that left their file as it is), the output is not the fresh
port, and a finding at line 152 of the port has its text at line 154 of the file: the
summary, the JSON and SARIF would point beside it. Each finding is moved to the line
that holds its line of the port (the two files' lines paired as ``align`` pairs them:
equal lines, in order); a finding whose lines have no counterpart there, the porter
rewrote: its lines are theirs, and it is not reported. The CUDA file's line stays.
"""

from __future__ import annotations

from .align import matched_lines

LINE, END_LINE = 2, 7  # the ported file's line and last line in a Diagnostic's row


def place_findings(rows: list[list], port: bytes, on_disk: bytes) -> list[list]:
    """``rows`` (``Diagnostic.to_list()``) of ``port``, for ``on_disk``: moved to its
    lines, those on lines it does not have dropped."""
    if not rows or port == on_disk:
        return rows
    a, b = port.splitlines(), on_disk.splitlines()
    where = dict(matched_lines(a, b, a, b))  # 0-based line of the port -> of the file
    out = []
    for row in rows:
        first = row[LINE]
        last = max(row[END_LINE] if len(row) > END_LINE else 0, first)
        start = where.get(first - 1)
        # Every line of the finding, on consecutive lines of the file.
        if start is None or any(where.get(n - 1) != start + n - first for n in range(first, last + 1)):
            continue
        row = list(row)
        row[LINE] = start + 1
        if len(row) > END_LINE and row[END_LINE]:
            row[END_LINE] = start + 1 + row[END_LINE] - first
        out.append(row)
    return out
