"""Where a statement of a file's code starts, and which bracket closes which, for the
symbol index (``symbols.py``), in time that does not grow with the file.

Telling a definition from a use looks around each candidate name: back to its
statement's start (is there an ``extern`` or ``typedef``?), forward to the ``)`` that
closes its parameters, back to the ``{`` of a ``}`` before it, back to the ``<`` of a
``>`` before it. Each look used to scan as far as it had to: in a file with no ``;``,
``{`` or ``}`` (or a ``(`` never closed, or ``>`` after ``>`` with no ``<``) that is
the start or the end of the file, for every name, and 180,000 such definitions took
25 s. Now each look scans a window of ``WINDOW`` bytes, as before (a real statement or
parameter list is shorter, so the common case costs what it did); past the window it
asks an index of the whole file, built once, on first need, with one pass of a
regular expression, and answered by bisection or lookup (once built, the index answers
every later look of its kind: a file that needed it once is likely to again).

``code`` is a file with its comments and strings blanked (``symbols._blank``).
"""

from __future__ import annotations

import re
from bisect import bisect_left

WINDOW = 4096
_SEPARATOR = re.compile(rb"[;{}]")
_PARENS = re.compile(rb"[()]")
_BRACES = re.compile(rb"[{}]")
_ANGLES = re.compile(rb"[<>(]")


class Statements:
    """The looks around names of one file's code (indexes built on first need)."""

    def __init__(self, code: bytes):
        self.code = code
        self._separators: list[int] | None = None
        self._words: dict[re.Pattern, list[tuple[int, int]]] = {}
        self._closes: dict[int, int] | None = None
        self._opens: dict[int, int] | None = None
        self._angles: tuple | None = None

    def start(self, pos: int) -> int:
        """Where the statement holding ``pos`` starts: after the last ``;``, ``{`` or
        ``}`` before it (0: none)."""
        code = self.code
        if self._separators is None:
            lo = max(0, pos - WINDOW)
            at = max(code.rfind(b";", lo, pos), code.rfind(b"{", lo, pos), code.rfind(b"}", lo, pos))
            if at >= 0 or lo == 0:
                return at + 1
            self._separators = [m.start() for m in _SEPARATOR.finditer(code)]
        i = bisect_left(self._separators, pos)
        return self._separators[i - 1] + 1 if i else 0

    def has(self, word: re.Pattern, start: int, pos: int) -> bool:
        """Whether ``word`` matches within ``code[start:pos]``."""
        spans = self._words.get(word)
        if spans is None:
            if pos - start <= WINDOW:
                return word.search(self.code, start, pos) is not None
            spans = self._words[word] = [m.span() for m in word.finditer(self.code)]
        i = bisect_left(spans, (start, -1))
        return i < len(spans) and spans[i][1] <= pos

    def close(self, paren: int) -> int:
        """The offset after the ``)`` that closes the ``(`` at ``paren`` (the file's
        end when none does)."""
        if self._closes is None:
            depth = 0
            for m in _PARENS.finditer(self.code, paren, paren + WINDOW):
                depth += 1 if m.group() == b"(" else -1
                if depth == 0:
                    return m.end()
            if paren + WINDOW >= len(self.code):
                return len(self.code)
            self._closes = _pairs(_PARENS.finditer(self.code), b"(")
        end = self._closes.get(paren)
        return len(self.code) if end is None else end + 1

    def opening(self, close: int) -> int:
        """The offset of the ``{`` that the ``}`` at ``close`` closes (0 when none)."""
        if self._opens is None:
            code, lo = self.code, max(0, close - WINDOW)
            depth, i = 0, close + 1
            while True:  # brace by brace, back (each found by rfind)
                o, c = code.rfind(b"{", lo, i), code.rfind(b"}", lo, i)
                if o < 0 and c < 0:
                    break
                if c > o:
                    depth, i = depth + 1, c
                else:
                    depth, i = depth - 1, o
                    if depth == 0:
                        return o
            if lo == 0:
                return 0
            self._opens = {c: o for o, c in _pairs(_BRACES.finditer(self.code), b"{").items()}
        return self._opens.get(close, 0)

    def template_opens(self, gt: int, start: int) -> bool:
        """Whether the ``>`` at ``gt`` closes a ``<`` at or after ``start``, with no
        ``(`` between them (a template's argument list, not ``a > b``)."""
        if self._angles is None and gt - start <= WINDOW:
            depth = 0
            for m in reversed(list(_ANGLES.finditer(self.code, start, gt + 1))):
                c = m.group()
                if c == b">":
                    depth += 1
                elif c == b"<":
                    depth -= 1
                    if depth == 0:
                        return True
                else:
                    return False
            return False
        if self._angles is None:
            self._angles = _angle_index(self.code)
        level_at, opens_by_level, parens = self._angles
        # Going back from gt, the depth first reaches 0 at the last '<' before gt whose
        # level (the count of '<' less '>' before it) is the level after gt.
        opens = opens_by_level.get(level_at[gt] - 1, [])
        i = bisect_left(opens, gt)
        if not i or opens[i - 1] < start:
            return False
        lt = opens[i - 1]
        j = bisect_left(parens, gt)
        return not j or parens[j - 1] < lt


def _pairs(matches, opener: bytes) -> dict[int, int]:
    """Each opening bracket's offset -> its closing one's, as a stack pairs them."""
    stack: list[int] = []
    out: dict[int, int] = {}
    for m in matches:
        if m.group() == opener:
            stack.append(m.start())
        elif stack:
            out[stack.pop()] = m.start()
    return out


def _angle_index(code: bytes) -> tuple[dict[int, int], dict[int, list[int]], list[int]]:
    """(the level before each ``>``, the offsets of the ``<`` by the level before each,
    the offsets of the ``(``): the level counts the ``<`` less the ``>`` before."""
    level = 0
    level_at: dict[int, int] = {}
    opens: dict[int, list[int]] = {}
    parens: list[int] = []
    for m in _ANGLES.finditer(code):
        c, at = m.group(), m.start()
        if c == b"<":
            opens.setdefault(level, []).append(at)
            level += 1
        elif c == b">":
            level_at[at] = level
            level -= 1
        else:
            parens.append(at)
    return level_at, opens, parens
