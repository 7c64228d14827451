"""The findings in a vendored Thrust, CUB or libcu++ (``vendored.py``): notes, and one
warning per library (MP2007) at its first finding.

MUSA's SDK has drop-ins for Thrust and CUB under their own names (muThrust, muAlg), so a
project's copy of them is rather replaced than ported line by line, and its thousands of
findings would bury the project's own: each stays in the run's result (the JSON and the
SARIF mark every line), as a note that names the library, and the text views show the
MP2007 warning alone (``report/grouping.py``). The manifest keeps every finding of every
file as the port found it (a re-run that ports one file of the library again still sums
up all of them): only the records the reports read are replaced by copies. A tree that
is the library itself (``musa-port cub``, or a checkout of it under another name) is not
summed up: its findings are what its porter asked for.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from dataclasses import replace

from ..analyze.checks import Diagnostic
from .result import FileOutcome
from .vendored import inside

# What a library's folder holds (tree/vendored.py's markers), and MUSA's counterpart.
_PARTS = (("thrust/version.h", "Thrust", "muThrust"), ("cub/", "CUB", "muAlg"),
          ("cuda/std/", "libcu++", ""))


def _name(root: str, files: list[FileOutcome]) -> tuple[str, str]:
    """("CUB", "muAlg") for a library's root, from the files in it."""
    rels = [f.rel[len(root) + 1:] for f in files]
    found = [(name, musa) for marker, name, musa in _PARTS
             if any(r.startswith(marker) or f"/{marker}" in r for r in rels)]
    if not found:
        base = posixpath.basename(root).lower()
        found = [(name, musa) for marker, name, musa in _PARTS if marker.startswith(base)] or \
            [("Thrust, CUB or libcu++", "")]
    names = [n for n, _ in found]
    label = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return label, " and ".join(m for _, m in found if m)


def summarise_libraries(files: list[FileOutcome], roots: frozenset[str]) -> frozenset[str]:
    """Replace, in ``files``, the records of each library's files by copies whose findings
    are notes that name the library, with one MP2007 warning at the library's first
    finding; returns the roots that have findings (roots "" are not summed)."""
    summed = set()
    for root in sorted(r for r in roots if r):
        mine = sorted((f for f in files if inside(f.rel, root)), key=lambda f: f.rel)
        counts: Counter[str] = Counter()
        first: tuple[FileOutcome, Diagnostic] | None = None
        with_findings = 0
        for f in mine:
            rows = f.record.diagnostics
            if not rows and not f.record.findings_dropped:
                continue
            with_findings += 1
            counts.update(row[0] for row in rows)
            counts.update(f.record.findings_dropped)
            if first is None and rows:
                first = (f, Diagnostic.from_list(rows[0]))
        if first is None:
            continue
        summed.add(root)
        label, musa = _name(root, mine)
        total = sum(counts.values())
        by_id = ", ".join(f"{cid} {n}" for cid, n in sorted(counts.items()))
        them = "them" if " and " in musa else "it"
        instead = (f"MUSA's SDK has {musa} under the same names: build against {them} rather "
                   "than port this copy" if musa else "MUSA keeps its names: use the copy your MUSA "
                   "SDK ships, or port this one")
        f0, d0 = first
        message = (f"'{root}' is a vendored copy of {label}: its {total} finding"
                   f"{'s' * (total != 1)} in {with_findings} file{'s' * (with_findings != 1)} "
                   f"({by_id}) are notes, not this project's hand work (the JSON and SARIF "
                   f"reports list each); {instead} (port the folder on its own to have them as "
                   "its own findings)")
        summary = Diagnostic("MP2007", root, d0.line, d0.column, d0.src_line, d0.src_column,
                             message)
        where = f" (in '{root}', a vendored copy of {label}: see MP2007)"
        for i, f in enumerate(files):
            if inside(f.rel, root) and (f.record.diagnostics or f.record.findings_dropped):
                rows = [_noted(row, where) for row in f.record.diagnostics]
                if f is f0:
                    rows.insert(0, summary.to_list())
                files[i] = replace(f, record=replace(f.record, diagnostics=rows,
                                                     findings_dropped={}))
    return frozenset(summed)


def _noted(row: list, where: str) -> list:
    """A finding of a vendored library, as a note that says where it is."""
    return [*row[:6], row[6] + where, row[7] if len(row) > 7 else 0, "note"]  # Diagnostic.to_list
