"""The line around an offset, for scans that ask in file order.

Looking back from each hit to its line's start (and on to its end) costs the line's
length per hit: nothing on ordinary sources, hits x length on one long line (a
minified source, a generated table), where 8,000 hits on a 14 MB line took seconds.
``Lines`` remembers the last line it found, so a scan that asks in increasing order
looks at each byte about once.
"""

from __future__ import annotations


class Lines:
    """Line starts and ends of ``data`` (bytes), cheapest when asked in file order."""

    def __init__(self, data: bytes):
        self.data = data
        self._pos = 0  # the last offset asked (in order)
        self._start = 0  # the start of its line
        self._end = -1  # the end of that line (after its newline), once asked
        self._line_at = 0  # where the line number below was counted to
        self._line = 1

    def start(self, off: int) -> int:
        """The offset where the line holding ``off`` starts."""
        if off < self._pos:  # out of order: the plain look back
            return self.data.rfind(b"\n", 0, off) + 1
        nl = self.data.rfind(b"\n", self._pos, off)
        if nl >= 0:
            self._start = nl + 1
            self._end = -1
        self._pos = off
        return self._start

    def span(self, off: int) -> tuple[int, int]:
        """(start, end) of the line holding ``off``; the end is after its newline."""
        if off < self._pos:  # out of order: the plain look around
            end = self.data.find(b"\n", off)
            return self.start(off), len(self.data) if end < 0 else end + 1
        start = self.start(off)
        if self._end < 0:
            end = self.data.find(b"\n", off)
            self._end = len(self.data) if end < 0 else end + 1
        return start, self._end

    def position(self, off: int) -> tuple[int, int]:
        """(line, column) of ``off``, both 1-based, the column in bytes (as compilers
        count)."""
        if off < self._line_at or off < self._pos:  # out of order: counted from the start
            return self.data.count(b"\n", 0, off) + 1, off - self.data.rfind(b"\n", 0, off)
        self._line += self.data.count(b"\n", self._line_at, off)
        self._line_at = off
        return self._line, off - self.start(off) + 1


def cr_only(data: bytes) -> bool:
    """Classic Mac line endings: CR alone ends each line, and no LF is in the file.
    Compilers and Python take a CR alone as a line's end; the scans here look for LF,
    so such a file is ported with its CRs as LFs (byte for byte: every offset holds),
    and its LFs turned back into CRs after."""
    return b"\n" not in data and b"\r" in data
