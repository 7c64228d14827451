"""The edits of one build file: ``Change``s (non-overlapping spans and their new text,
the first made wins) and ``Note``s (findings decided while rewriting).

Kept apart from the rules that decide the edits (``build.rewrite``, ``build.cmake``), so the
overlap and removal bookkeeping is in one place whatever the file's language.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass


@dataclass(frozen=True)
class Change:
    """Replace ``[start, end)`` of the file with ``new``."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class Note:
    """A finding decided while porting, about the source span ``[start, end)``."""

    id: str
    start: int
    end: int
    text: str  # the CUDA text it is about
    problem: str
    suggestion: str

    @property
    def message(self) -> str:
        return f"{self.problem}; {self.suggestion}"


# A word's candidate edits, with spans relative to the word: (start, end, new text) and
# (check, start, end, problem, suggestion).
Found = list[tuple[int, int, str]]
WordNotes = list[tuple[str, int, int, str, str]]


class Edits:
    """Collects the changes and notes for one build file (``text``: Latin-1)."""

    def __init__(self, text: str):
        self.text = text
        self.changes: list[Change] = []
        self.notes: list[Note] = []
        # The spans changed, in order, and their ends: changes never overlap, so the ends
        # are in order too, and the ones near a new span are a bisect away (checking every
        # change made before each one cost changes x changes: 4,000 lines took 2.3 s).
        self._taken: list[tuple[int, int]] = []
        self._ends: list[int] = []

    def _near(self, start: int, end: int):
        """The changed spans that end at or after ``start`` and start at or before ``end``."""
        i = bisect_left(self._ends, start)
        while i < len(self._taken) and self._taken[i][0] <= end:
            yield self._taken[i]
            i += 1

    def change(self, start: int, end: int, new: str) -> bool:
        """Record a change unless it overlaps one already made (the first wins)."""
        for s, e in self._near(start, end):
            if (start < e and s < end) or (start == end and s < start < e) or (
                    s == e and start < s < end) or (start == end == s == e):
                return False
        if self.text[start:end] == new:
            return False
        i = bisect_right(self._taken, (start, end))
        self._taken.insert(i, (start, end))
        self._ends.insert(i, end)
        self.changes.append(Change(start, end, new))
        return True

    def note(self, check: str, start: int, end: int, problem: str, suggestion: str) -> None:
        self.notes.append(Note(check, start, end, self.text[start:end], problem, suggestion))

    def taken(self, start: int, end: int) -> bool:
        return any(start < e and s < end for s, e in self._near(start, end))

    def drop(self, start: int, end: int) -> bool:
        """Remove ``[start, end)`` with the blank (or list separator) before it, or, when
        there is none, the one after it."""
        t = self.text
        s, e = start, end
        line_start = t.rfind("\n", 0, s) + 1
        first_on_line = t[line_start:s].strip() == ""
        if s > 0 and t[s - 1] == ";":
            s -= 1
        elif first_on_line:  # keep the indentation: take the blank after the word
            while e < len(t) and t[e] in " \t":
                e += 1
        else:
            while s > 0 and t[s - 1] in " \t":
                s -= 1
            if s == start or self.taken(s, start):
                s = start
                if e < len(t) and t[e] == ";":
                    e += 1
                else:
                    while e < len(t) and t[e] in " \t":
                        e += 1
        return self.change(s, e, "")

    def apply_word(self, base: int, found: Found, notes: WordNotes) -> None:
        """Record a word's changes (spans relative to ``base``); a note stands only where
        its change was made."""
        made = []
        for s, e, new in sorted(found):
            if self.change(base + s, base + e, new):
                made.append((s, e))
        for check, s, e, problem, suggestion in notes:
            if any(ms <= s and e <= me for ms, me in made):
                self.note(check, base + s, base + e, problem, suggestion)
