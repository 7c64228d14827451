"""A file's findings summed up for a person reading a list (the summary, "Hand work,
by file", ``--output-format grouped``, one file's findings on stderr).

Every place a porter must look at is its own finding in the port's result, the JSON and
the SARIF: an editor or code scanning puts a marker on each line to rewrite. A list a
person reads would drown in them, so the text views show, per file:

- the note-level places of a check that need no change (``SUMMARIES``: 32-lane idioms a
  128-lane warp keeps, cache hints, newer intrinsics, renames to MUSA names of unknown
  status) as one note, at the first of them, listing their lines;
- the places of a check that is one decision per file (``FILE_WIDE``: a gate on an
  enable macro, double precision, a low-precision type), whose first place is the
  warning and the others notes, as that warning, listing the lines of all of them.

It runs on the findings a file keeps after its ``musa-port: ignore`` comments, so a
comment on one place drops that place, not the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from .checks import Diagnostic

NOTE = "note"
# What the places of each check that keep working are, and what to do about them.
SUMMARIES = {
    "MP1010": ("renames to MUSA names of unknown status",
               "the naming pattern made these names and no vendor table or source shows them: "
               "check them in your MUSA SDK's headers"),
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
# Checks reported as a warning at a file's first place and a note at each other: what
# their places are.
FILE_WIDE = {"MP1011": "gates", "MP2006": "device functions that compute in double",
             "MP2016": "uses"}
GROUPED = frozenset(SUMMARIES) | frozenset(FILE_WIDE)


def _lines(places: Sequence[Diagnostic], shown: int) -> tuple[int, str]:
    lines = sorted({d.line for d in places})
    where = ", ".join(map(str, lines[:shown])) + (", ..." if len(lines) > shown else "")
    return len(lines), f"line{'s' * (len(lines) != 1)} {where}"


def grouped(found: Sequence[Diagnostic], shown: int = 20) -> list[Diagnostic]:
    """``found`` (one file's findings) as a person reads them: the note-level findings of
    each check in ``SUMMARIES`` one note at the first of them, those of each check in
    ``FILE_WIDE`` folded into its warning of the same text (else its first warning)."""
    if not any(d.id in GROUPED and d.severity == NOTE for d in found):
        return list(found)
    notes: dict[str, list[Diagnostic]] = {}
    rest: list[Diagnostic] = []
    for d in found:
        if d.severity == NOTE and d.id in GROUPED:
            notes.setdefault(d.id, []).append(d)
        else:
            rest.append(d)
    for cid, places in notes.items():
        if cid in FILE_WIDE:
            heads = [d for d in rest if d.id == cid]
            if heads:
                _fold(rest, heads, places, FILE_WIDE[cid], shown)
                continue
        rest.append(_summary(cid, places, shown))
    rest.sort(key=lambda d: (d.line, d.column, d.id))
    return rest


def _fold(rest: list[Diagnostic], heads: list[Diagnostic], places: list[Diagnostic],
          what: str, shown: int) -> None:
    """Each note of ``places`` into the warning of ``heads`` with its text (else the
    first), whose message then lists the lines of all of them."""
    by_head: dict[int, list[Diagnostic]] = {}
    for d in places:
        head = next((h for h in heads if h.text == d.text), heads[0])
        by_head.setdefault(id(head), [head]).append(d)
    for i, d in enumerate(rest):
        if id(d) in by_head:
            n, where = _lines(by_head[id(d)], shown)
            rest[i] = replace(d, message=f"{d.message} ({n} {what} in this file: {where})")


def _summary(cid: str, places: list[Diagnostic], shown: int) -> Diagnostic:
    """One note at the first of ``places`` that lists them all."""
    first = places[0]
    n = len(places)
    _, where = _lines(places, shown)
    texts = list(dict.fromkeys(d.text.strip() for d in places))
    what = ", ".join(f"'{t}'" for t in texts[:6]) + (", ..." if len(texts) > 6 else "")
    if cid in SUMMARIES:
        what_they_are, advice = SUMMARIES[cid]
    else:  # a file-wide check whose warning an inline comment dropped
        what_they_are, advice = f"{FILE_WIDE[cid]} ({first.check.name})", first.message
    head = what_they_are[0].upper() + what_they_are[1:]
    message = f"{head} in this file: {n} ({where}: {what}); {advice}"
    return Diagnostic(cid, first.text, first.line, first.column, first.src_line,
                      first.src_column, message, 0, NOTE)
