"""Findings for what the port renamed in a file as a whole: each renamed project symbol
(MP1004, a note) and each name whose MUSA name is taken (MP1005, a warning), at its
first definition site, so the reports and SARIF show where every rename comes from; each
name kept because Python calls it (MP1007, a note) or renamed all the same (MP1008, a
warning) at its binding; each name the tree defines that looks like CUDA's with no
vocabulary word in it (MP1002, a note: the project's own, kept; its uses are no residual);
each rename to a MUSA name of unknown status (MP1010, a note);
and each CUDA arch number turned into a MUSA one (MP2008)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from ..port.cxx.arch_values import ARCH_NOTE
from ..port.cxx.arch_values import FAMILY as ARCH_FAMILY
from ..port.engine import Edit
from ..rules.project import MODULE_REASON, Collision, ProjectPlan, Rename
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
            assert isinstance(item, Collision)
            if item.reason.startswith(MODULE_REASON):
                msg = (f"'{item.old}' {item.reason}: kept, not renamed to '{item.new}'; a port "
                       f"of the build with it renames the module on every side")
            else:
                msg = (f"'{item.old}' is exported to Python ({site.kind}): kept, not renamed to "
                       f"'{item.new}'; --rename-exported renames it and the run's Python callers")
            out.append(Diagnostic("MP1007", item.old, site.line, col, site.line, site.column, msg))
        elif what == "own":
            msg = (f"'{item.old}' ({site.kind}) is defined in the tree: the project's own name, "
                   "though it looks like CUDA's; kept as it is, and its uses are not reported "
                   "(a rule renames it, if MUSA code should name it otherwise)")
            out.append(Diagnostic("MP1002", item.old, site.line, col, site.line, site.column, msg,
                                  0, "note"))
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


def unattested_findings(edits: Sequence[Edit]) -> list[Diagnostic]:
    """An MP1010 note at each rename to a MUSA name of unknown status (a table entry the
    naming pattern made): the text views list a file's in one note (``notes.py``)."""
    out = []
    growth: dict[int, tuple[list[int], list[int]]] | None = None
    for e in edits:
        rule = e.rule
        if getattr(rule, "status", None) != "unknown" or getattr(rule, "family", "") == "user":
            continue
        if growth is None:
            growth = _growth_by_line(edits)
        col = _out_column(e.line, e.column, growth)
        out.append(Diagnostic("MP1010", e.new, e.line, col, e.line, e.column,
                              f"'{e.new}' (was '{e.old}') is a MUSA name of unknown status: the "
                              "naming pattern made it and no vendor table or source shows it; "
                              "check it in your MUSA SDK's headers", 0, "note"))
    return out


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
