"""Offsets between a C/C++ file and its port, through the edits the port made.

Porting keeps line numbers and changes only the spans of its edits, so an offset
before, between or after edits moves by the growth of the edits before it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from ..port.engine import Edit


def _len(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


class EditMap:
    """Source <-> ported offsets of one file, and which edit made a ported span."""

    __slots__ = ("edits", "out_starts", "out_ends", "src_starts", "deltas")

    def __init__(self, edits: Sequence[Edit]):
        self.edits = edits
        self.out_starts: list[int] = []
        self.out_ends: list[int] = []
        self.src_starts: list[int] = []
        self.deltas: list[int] = []  # the growth of the edits up to and including each
        delta = 0
        for e in edits:
            new_len = _len(e.new)
            self.src_starts.append(e.start)
            self.out_starts.append(e.start + delta)
            self.out_ends.append(e.start + delta + new_len)
            delta += new_len - (e.end - e.start)
            self.deltas.append(delta)

    def to_src(self, out_off: int) -> int:
        """A ported offset in the source: subtract the growth of the edits before it."""
        idx = bisect_right(self.out_ends, out_off) - 1
        return out_off - (self.deltas[idx] if idx >= 0 else 0)

    def to_out(self, src_off: int) -> int:
        """A source offset in the port (inside an edit: where its replacement starts)."""
        idx = bisect_right(self.src_starts, src_off) - 1
        if idx < 0:
            return src_off
        e = self.edits[idx]
        if src_off < e.end:
            return self.out_starts[idx]
        return src_off + self.deltas[idx]

    def edit_at(self, out_off: int) -> Edit | None:
        """The edit whose replacement covers the ported offset ``out_off``, if any."""
        idx = bisect_right(self.out_starts, out_off) - 1
        if idx >= 0 and out_off < self.out_ends[idx]:
            return self.edits[idx]
        return None
