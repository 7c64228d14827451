"""Where a porter starts: the files with hand work, ranked by their error-level
findings, then their warnings, each with the reason of its first error (or, failing
one, its first warning). The summary ends with it. Notes are no hand work."""

from __future__ import annotations

from collections.abc import Set

from ..analyze.checks import CHECKS, Diagnostic
from ..tree.result import FileOutcome, PortResult
from .grouping import grouped_view

SHOWN = 10  # files listed; the rest are counted
REASON = 110  # characters of a finding's message shown


def ranked(r: PortResult, suppress: Set[str] = frozenset()
           ) -> list[tuple[FileOutcome, int, int, Diagnostic]]:
    """(file, errors, warnings, top finding) of each file with hand work, the most first
    (its findings summed up as the summary shows them)."""
    r = grouped_view(r)
    rows = []
    for f in r.files:
        if not f.record.diagnostics and not f.record.findings_dropped:
            continue
        found = [d for d in f.diagnostics if d.id not in suppress and d.level != "note"]
        errors = sum(d.level == "error" for d in found)
        warnings = len(found) - errors
        for cid, n in f.record.findings_dropped.items():  # beyond the cap: counted by level
            if cid not in suppress and cid in CHECKS and CHECKS[cid].level != "note":
                errors += n if CHECKS[cid].level == "error" else 0
                warnings += n if CHECKS[cid].level == "warning" else 0
        if not found:
            continue
        top = next((d for d in found if d.level == "error"), found[0])
        rows.append((f, errors, warnings, top))
    rows.sort(key=lambda row: (-row[1], -row[2], row[0].out_rel))
    return rows


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _reason(d: Diagnostic) -> str:
    message = d.message if len(d.message) <= REASON else d.message[:REASON - 3].rstrip() + "..."
    return f"{d.id} {d.check.name} (line {d.line}): {message}"


def triage_lines(r: PortResult, suppress: Set[str] = frozenset(), shown: int = SHOWN) -> list[str]:
    """The summary's last section, as lines (none when no file has hand work)."""
    rows = ranked(r, suppress)
    if not rows:
        return []
    out = ["Hand work, by file (errors, then warnings; 'musa-port explain ID' says what to do):"]
    for i, (f, errors, warnings, top) in enumerate(rows[:shown], 1):
        counts = ", ".join(x for x in (_count(errors, "error") if errors else "",
                                       _count(warnings, "warning") if warnings else "") if x)
        out.append(f"  {i}. {f.out_rel}: {counts}; first: {_reason(top)}")
    if len(rows) > shown:
        out.append(f"  ... and {len(rows) - shown} more files with hand work (--report-json "
                   "lists every finding)")
    return out
