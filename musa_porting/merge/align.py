"""Pairing the lines of two versions of a file in near-linear time, for learning a
fork's conventions (``learn.pairs``).

Lines pair when their keys are equal (the line with its names blanked: the shape), in
order. ``difflib.SequenceMatcher`` found the pairs by comparing every line with every
other; over a file of same-shaped lines (a table of calls, a generated kernel) that
was quadratic (16,000 lines: 40 s), and it paired them at any offset (the first line
of one with the 250th of the other). Here, as in a patience diff: the common head and
tail pair first, then the lines whose key is unique in both ranges, in their longest
increasing run (``anchors``), and the ranges between them the same way. A finer key
(``hints``: the line with only the names blanked that one file has and the other not)
is tried first at each step, so that same-shaped lines pair with their own
counterpart. A range with nothing unique left is compared whole only when small; the
work is bounded by a budget linear in the lines, past which what is left stays
unpaired (fewer samples to learn from).
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Sequence

SMALL = 4096  # a range of a x b lines compared whole by SequenceMatcher: a * b at most
BUDGET = 8  # lines looked at per line of the two files, past the heads and tails


def matched_lines(a: Sequence, b: Sequence, a_hints: Sequence, b_hints: Sequence
                  ) -> list[tuple[int, int]]:
    """Pairs (i, j) with ``a[i] == b[j]``, increasing in both; the hints (one per line,
    equal hints only on equal keys) choose among equal keys."""
    out: list[tuple[int, int]] = []
    budget = BUDGET * (len(a) + len(b)) + SMALL
    todo = [(0, len(a), 0, len(b))]
    while todo:
        a0, a1, b0, b1 = todo.pop()
        for keys_a, keys_b in ((a_hints, b_hints), (a, b)):
            a0, a1, b0, b1 = _ends(keys_a, keys_b, a0, a1, b0, b1, out)
            if a0 == a1 or b0 == b1:
                break
            budget -= (a1 - a0) + (b1 - b0)
            if budget < 0:
                break
            anchors = _anchors(keys_a, keys_b, a0, a1, b0, b1)
            if anchors:
                out.extend(anchors)
                starts = [(a0, b0)] + [(i + 1, j + 1) for i, j in anchors]
                ends = anchors + [(a1, b1)]
                todo.extend((s[0], e[0], s[1], e[1]) for s, e in zip(starts, ends))
                break
        else:
            if (a1 - a0) * (b1 - b0) <= SMALL:
                blocks = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
                out.extend((a0 + x + k, b0 + y + k)
                           for x, y, size in blocks.get_matching_blocks() for k in range(size))
    out.sort()
    return out


def _ends(a: Sequence, b: Sequence, a0: int, a1: int, b0: int, b1: int,
          out: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    """Pair the common head and tail of the ranges; the range left between them."""
    while a0 < a1 and b0 < b1 and a[a0] == b[b0]:
        out.append((a0, b0))
        a0, b0 = a0 + 1, b0 + 1
    while a0 < a1 and b0 < b1 and a[a1 - 1] == b[b1 - 1]:
        a1, b1 = a1 - 1, b1 - 1
        out.append((a1, b1))
    return a0, a1, b0, b1


def _anchors(a: Sequence, b: Sequence, a0: int, a1: int, b0: int, b1: int
             ) -> list[tuple[int, int]]:
    """The lines whose key is in each range once, paired, in their longest run that
    increases in both."""
    seen_a: dict = {}
    for i in range(a0, a1):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict = {}
    for j in range(b0, b1):
        k = b[j]
        if seen_a.get(k, -1) >= 0:
            seen_b[k] = -1 if k in seen_b else j
    common = sorted((seen_a[k], j) for k, j in seen_b.items() if j >= 0)
    return _longest_increasing(common)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by their first) whose seconds increase."""
    tails: list[int] = []  # the second of the last pair of the best run of each length
    ends: list[int] = []  # its index in pairs
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        back[n] = ends[k - 1] if k else -1
        if k == len(tails):
            tails.append(j)
            ends.append(n)
        else:
            tails[k], ends[k] = j, n
    run = []
    n = ends[-1] if ends else -1
    while n >= 0:
        run.append(pairs[n])
        n = back[n]
    return run[::-1]
