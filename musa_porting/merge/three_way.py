"""The three-way merge of one output: what the user changed since musa-port wrote it
(base -> yours) and what the new port changes (base -> new port), both kept where they
do not overlap; where they do, the output gets conflict markers as ``git merge-file
--diff3`` writes them, each side labelled with what it is.

The merge itself is ``merge3``'s (Breezy's three-way merge, on the package index);
only the markers are written here, so that every conflict is counted and the last
line of a side that has no newline still ends before the next marker. Lines are
bytes, split at ``\\n``, ``\\r\\n`` or ``\\r`` and kept whole: CRLF, a BOM and bytes
that are not UTF-8 come through as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

# The labels say what each side is; OURS starts every conflict, and counting it is
# how a later run knows the markers are still there.
OURS = b"<<<<<<< yours (the output as you edited it)"
BASE = b"||||||| base (musa-port's last port)"
MID = b"======="
THEIRS = b">>>>>>> new port (musa-port)"


@dataclass
class Merged:
    data: bytes
    conflicts: int  # conflict regions written with markers


def merge(base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """``ours`` (the user's file) and ``theirs`` (the new port), both made from ``base``."""
    from merge3 import Merge3  # only when a merge is needed (not on every run)

    b, o, t = base.splitlines(True), ours.splitlines(True), theirs.splitlines(True)
    nl = _newline(o or t or b)
    out: list[bytes] = []
    conflicts = 0
    for region in Merge3(b, o, t).merge_regions():
        what = region[0]
        if what == "unchanged":
            out += b[region[1]:region[2]]
        elif what in ("a", "same"):
            out += o[region[1]:region[2]]
        elif what == "b":
            out += t[region[1]:region[2]]
        else:  # "conflict": base, ours and theirs ranges
            _, z0, z1, a0, a1, b0, b1 = region
            conflicts += 1
            _close(out, nl)
            out.append(OURS + nl)
            _lines(out, o[a0:a1], nl)
            out.append(BASE + nl)
            _lines(out, b[z0:z1], nl)
            out.append(MID + nl)
            _lines(out, t[b0:b1], nl)
            out.append(THEIRS + nl)
    return Merged(b"".join(out), conflicts)


def count_conflicts(data: bytes) -> int:
    """The conflicts a merge left in ``data`` that are still there."""
    n = data.count(b"\n" + OURS) + data.count(b"\r" + OURS)
    return n + (1 if data.startswith(OURS) else 0)


def _newline(lines: list[bytes]) -> bytes:
    first = lines[0] if lines else b""
    if first.endswith(b"\r\n"):
        return b"\r\n"
    if first.endswith(b"\r"):
        return b"\r"
    return b"\n"


def _close(out: list[bytes], nl: bytes) -> None:
    """A marker starts a line: the line before it gets a newline if it has none."""
    if out and not out[-1].endswith((b"\n", b"\r")):
        out[-1] += nl


def _lines(out: list[bytes], lines: list[bytes], nl: bytes) -> None:
    out += lines
    _close(out, nl)
