"""The findings of a file that need no change, summed up: the places of a check that
keep working on MUSA (a hazard reported at note level, ``Diagnostic.severity``) are one
note per file and check, at the first of them, listing their lines. A porter reads one
line where nothing needs a change, and the warnings stand out.

It runs on the findings a file keeps after its ``musa-port: ignore`` comments, so a
comment on one place drops that place, not the note about the others.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import Diagnostic

NOTE = "note"
# What the places of each check that keep working are, and what to do about them.
SUMMARIES = {
    "MP2002": ("32-lane idioms",
               "128-lane warps keep these (masks passed to *_sync calls; lane ids, shuffles and "
               "tiles within groups of 32 lanes): no change needed while each warp-level step "
               "stays in its group of 32 (a warning says where one does not)"),
    "MP2012": ("loads and stores with NVIDIA cache hints",
               "MUSA ports of real projects that run leave these as they are (a hint changes "
               "speed, not results): no change needed, unless mcc reports one missing"),
    "MP2013": ("intrinsics of newer NVIDIA arches",
               "MUSA ports of real projects that run leave these as they are (or behind an arch "
               "check): no change needed, unless mcc reports one missing"),
}


def summarised(found: Sequence[Diagnostic], shown: int = 20) -> list[Diagnostic]:
    """``found`` (in file order) with the note-level findings of each check in
    ``SUMMARIES`` made one note at the first of them."""
    notes: dict[str, list[Diagnostic]] = {}
    rest = []
    for d in found:
        if d.severity == NOTE and d.id in SUMMARIES:
            notes.setdefault(d.id, []).append(d)
        else:
            rest.append(d)
    if not notes:
        return list(found)
    for cid, places in notes.items():
        first = places[0]
        lines = sorted({d.line for d in places})
        texts = list(dict.fromkeys(d.text.strip() for d in places))
        where = ", ".join(map(str, lines[:shown])) + (", ..." if len(lines) > shown else "")
        what = ", ".join(f"'{t}'" for t in texts[:6]) + (", ..." if len(texts) > 6 else "")
        n = len(places)
        what_they_are, advice = SUMMARIES[cid]
        message = (f"{what_they_are.capitalize()} in this file: {n} (line"
                   f"{'s' * (len(lines) != 1)} {where}: {what}); {advice}")
        rest.append(Diagnostic(cid, first.text, first.line, first.column, first.src_line,
                               first.src_column, message, 0, NOTE))
    rest.sort(key=lambda d: (d.line, d.column, d.id))
    return rest
