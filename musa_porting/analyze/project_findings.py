"""Findings for what the port renamed in a file as a whole: each renamed project symbol
(MP1004, a note) and each name whose MUSA name is taken (MP1005, a warning), at its
first definition site, so the reports and SARIF show where every rename comes from; each
name kept because Python calls it (MP1007, a note) or renamed all the same (MP1008, a
warning) at its binding; and each CUDA arch number turned into a MUSA one (MP3104)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from ..port.cxx.arch_values import ARCH_NOTE
from ..port.cxx.arch_values import FAMILY as ARCH_FAMILY
from ..port.engine import Edit
from ..rules.project import Collision, ProjectPlan, Rename
from .checks import Diagnostic


def _growth_by_line(edits: Sequence[Edit]) -> dict[int, tuple[list[int], list[int]]]:
    """Per line, the columns of its edits in order and the growth of the line before
    each (and after the last): a site's output column is one bisect away. (Summing
    every edit of the file per site cost sites x edits: 200,000 definitions in one
    file never finished.)"""
    out: dict[int, tuple[list[int], list[int]]] = {}
    for e in sorted(edits, key=lambda e: (e.line, e.column)):
        columns, grown = out.setdefault(e.line, ([], [0]))
        columns.append(e.column)
        grown.append(grown[-1] + len(e.new.encode("utf-8", "surrogateescape")) - (e.end - e.start))
    return out


def _out_column(line: int, column: int, growth: dict[int, tuple[list[int], list[int]]]) -> int:
    """The column in the ported file of a source column: the edits before it on its
    line change its place by their growth."""
    columns, grown = growth.get(line, ((), (0,)))
    return column + grown[bisect_left(columns, column)]


def project_findings(rel: str, plan: ProjectPlan | None, edits: Sequence[Edit]) -> list[Diagnostic]:
    if plan is None:
        return []
    out = []
    here = plan.by_file().get(rel, ())
    growth = _growth_by_line(edits) if here else {}
    for what, item in here:
        site = item.sites[0]
        col = _out_column(site.line, site.column, growth)
        if what == "rename":
            assert isinstance(item, Rename)
            more = len(item.sites) - 1
            where = f", also defined at {more} more place{'s' if more > 1 else ''}" if more else ""
            msg = (f"'{item.old}' ({site.kind}) is defined in the tree: renamed to '{item.new}' "
                   f"everywhere{where}")
            out.append(Diagnostic("MP1004", item.old, site.line, col, site.line, site.column, msg))
        elif what == "kept":
            msg = (f"'{item.old}' is exported to Python ({site.kind}): kept, not renamed to "
                   f"'{item.new}'; --rename-exported renames it and the run's Python callers")
            out.append(Diagnostic("MP1007", item.old, site.line, col, site.line, site.column, msg))
        elif what == "exported":
            msg = (f"'{item.old}' is exported to Python ({site.kind}) and renamed to '{item.new}' "
                   f"(--rename-exported): the Python files of this run follow; callers outside "
                   f"it still call '{item.old}'")
            out.append(Diagnostic("MP1008", item.old, site.line, col, site.line, site.column, msg))
        else:
            assert isinstance(item, Collision)
            msg = f"'{item.old}' ({site.kind}) not renamed to '{item.new}': {item.reason}"
            out.append(Diagnostic("MP1005", item.old, site.line, col, site.line, site.column, msg))
    return out


UNATTESTED_SHOWN = 8  # names listed in a file's MP1010 note before "and N more"


def unattested_findings(edits: Sequence[Edit]) -> list[Diagnostic]:
    """One MP1010 note per file, at the first rename to a MUSA name of unknown status
    (a table entry the naming pattern made), listing every such rename of the file."""
    renames: dict[tuple[str, str], int] = {}
    first: Edit | None = None
    for e in edits:
        rule = e.rule
        if getattr(rule, "status", None) != "unknown" or getattr(rule, "family", "") == "user":
            continue
        if first is None or (e.line, e.column) < (first.line, first.column):
            first = e
        renames[(e.old, e.new)] = renames.get((e.old, e.new), 0) + 1
    if first is None:
        return []
    shown = [f"{old} -> {new}" + (f" ({n}x)" if n > 1 else "")
             for (old, new), n in sorted(renames.items())]
    more = len(shown) - UNATTESTED_SHOWN
    listed = ", ".join(shown[:UNATTESTED_SHOWN]) + (f", and {more} more" if more > 0 else "")
    one = len(renames) == 1
    what = "1 name renamed to a MUSA name" if one else f"{len(renames)} names renamed to MUSA names"
    msg = (f"{what} of unknown status (made by the naming pattern; no vendor table or source "
           f"shows {'it' if one else 'them'}): {listed}; check {'it' if one else 'them'} in "
           "your MUSA SDK's headers")
    col = _out_column(first.line, first.column, _growth_by_line(edits))
    return [Diagnostic("MP1010", first.old, first.line, col, first.line, first.column, msg)]


def arch_findings(edits: Sequence[Edit]) -> list[Diagnostic]:
    """MP2008 for each CUDA arch number the port turned into a MUSA one (port/cxx/arch_values.py),
    at its place in the ported file and in the original."""
    out = []
    growth: dict[int, tuple[list[int], list[int]]] | None = None
    for e in edits:
        if getattr(e.rule, "family", None) != ARCH_FAMILY:
            continue
        if growth is None:
            growth = _growth_by_line(edits)
        col = _out_column(e.line, e.column, growth)
        out.append(Diagnostic("MP2008", e.old, e.line, col, e.line, e.column,
                              f"CUDA arch {e.old} compared with __CUDA_ARCH__ became __MUSA_ARCH__ "
                              f"{e.new} (musa-port's table: >= 800 is >= 220, >= 900 is >= 310, below "
                              f"800 every MUSA arch); {ARCH_NOTE}"))
    return out
