"""A call's own rules as torch_musa's SimplePorting applies them: text replacement.

torch_musa's SimplePorting sorts its rules by key length, longest first, and replaces
each key's text everywhere with ``str.replace``, one rule after the other. Its users write
rules for that: ``".advance_offset": ".template advance_offset"`` is meant for
``.advance_offset_by_column()``, and a rule may rewrite what a longer one wrote.
``SimplePorting`` keeps those semantics for the call's own rules (``mapping_rule``), with
one fix: a key that starts with a letter or digit never starts inside a longer name
(``x.device().is_cuda()`` made ``g_idx.device().is_cuda()`` into ``g_idtrue``, ``nv_half``
made ``__nv_half`` into ``____half``, ``cu`` made ``Accumulate`` into ``Acmumulate``). A key
written ``substr:KEY`` matches anywhere, as on the command line.

The tables keep the engine (identifier boundaries, one pass, no cascades), matched on
the original bytes. Where a table's match and a rule's overlap, the longer key wins and
the rule on a tie (torch_musa's order, with the user's rule winning over the default, as
torch_musa meant); the text a rule wrote is not matched by the tables, and a table's
replacement is not matched by the rules. Spans the caller has fixed (an include that
follows a renamed file) or excluded (``MUSIFY_EXCL`` markers) are not touched.

Where a rule ends inside a longer name (the command line's engine would not have matched
there), the place is returned as a ``Cut``, so the run can say where, once per rule.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .cxx.lexer import merge_spans
from .engine import IDENT_BYTES, SUBSTRING_PREFIX, Matcher, Rewrite, complement, rewrite

_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_NO_TABLES = Matcher({})


@dataclass(frozen=True)
class TextRule:
    """One of the call's rules: ``key`` replaced by ``value`` as text."""

    key: bytes
    value: bytes
    rule: object  # the Rule, for the edits and the reports
    anywhere: bool = False  # written "substr:KEY": may start inside a name too

    @property
    def label(self) -> str:
        return getattr(self.rule, "key", self.key.decode("utf-8", "surrogateescape"))


@dataclass(frozen=True)
class Cut:
    """A place where a rule changed a name in the middle."""

    rule: TextRule
    line: int  # 1-based, in the input
    old: str  # the name from the rule's match to the name's end, before
    new: str  # and after


def text_rules_of(rules: Iterable) -> tuple[TextRule, ...]:
    """The rules in torch_musa's order: longest key first, keys of one length in the
    order given (Python's sort is stable, as torch_musa's ``sorted`` was)."""
    out = []
    for r in rules:
        if r.value is None:
            continue
        key = r.key
        anywhere = key.startswith(SUBSTRING_PREFIX) and len(key) > len(SUBSTRING_PREFIX)
        text = key[len(SUBSTRING_PREFIX):] if anywhere else key
        out.append(TextRule(text.encode("utf-8", "surrogateescape"),
                            r.value.encode("utf-8", "surrogateescape"), r, anywhere))
    return tuple(sorted(out, key=lambda t: -len(t.key.decode("utf-8", "surrogateescape"))))


def starts_ok(data: bytes, pos: int, rule: TextRule) -> bool:
    """The fix: a key starting with a letter or digit does not start inside a name."""
    return rule.anywhere or pos == 0 or rule.key[0] not in _ALNUM or data[pos - 1] not in IDENT_BYTES


def covers(data: bytes, rules: Sequence[TextRule], start: int, end: int) -> bool:
    """Whether a rule's text covers ``[start, end)`` on its line (an ``#include`` line
    written as one key: it wins over following a renamed file)."""
    ls = data.rfind(b"\n", 0, start) + 1
    le = data.find(b"\n", end)
    line = data[ls:len(data) if le < 0 else le]
    for r in rules:
        pos = line.find(r.key)
        while pos >= 0:
            if ls + pos <= start and ls + pos + len(r.key) >= end and starts_ok(line, pos, r):
                return True
            pos = line.find(r.key, pos + 1)
    return False


class _Piece:
    """A piece of the text being rewritten: original bytes ``data[os:oe]``, or text a
    rule wrote (``made``) in place of them."""

    __slots__ = ("text", "os", "oe", "rule")

    def __init__(self, text: bytes, os: int, oe: int, rule: object = None):
        self.text, self.os, self.oe, self.rule = text, os, oe, rule

    @property
    def made(self) -> bool:
        return self.rule is not None


def rewrite_text_rules(
    data: bytes,
    matcher: Matcher,
    rules: Sequence[TextRule],
    *,
    excluded: Sequence[tuple[int, int]] = (),
    fixed: Sequence[tuple[int, int, bytes, object]] = (),
    accept: Callable[[int, int, object], bool] | None = None,
) -> tuple[Rewrite, list[Cut]]:
    """Rewrite ``data`` with the tables of ``matcher`` and the text ``rules`` (see the
    module docstring); ``excluded``, ``fixed`` and ``accept`` as in ``engine.rewrite``."""
    blocked = _Spans(merge_spans([*excluded, *((s, e) for s, e, _, _ in fixed)]))
    tables = _Spans(_table_matches(data, matcher, excluded, blocked, accept))
    pieces = [_Piece(data, 0, len(data))]
    cuts: list[Cut] = []
    for r in rules:
        pieces = _apply(data, pieces, r, blocked, tables, cuts)
    edits = [t for t in tables.items if t is not None]
    edits += [(p.os, p.oe, p.text, p.rule) for p in pieces if p.made]
    return rewrite(data, _NO_TABLES, fixed=[*fixed, *edits]), cuts


class _Spans:
    """Spans that do not overlap, in order, each (start, end, ...): which overlap a span,
    by bisection; one may be dropped (set to None)."""

    def __init__(self, items: list[tuple]):
        self.items: list[tuple | None] = list(items)
        self.starts = [t[0] for t in items]

    def overlapping(self, s: int, e: int) -> list[int]:
        """The indexes of the items that overlap ``[s, e)``."""
        out = []
        i = bisect_left(self.starts, e) - 1
        while i >= 0:
            t = self.items[i]
            if t is not None:
                if t[1] <= s:
                    break
                out.append(i)
            i -= 1
        return out


def _table_matches(data, matcher, excluded, blocked: _Spans, accept) -> list[tuple]:
    """The tables' matches on the original bytes, in order: (start, end, value, rule)."""
    found: list[tuple] = []
    if not matcher:
        return found
    for seg_s, seg_e in (complement(excluded, len(data)) if excluded else [(0, len(data))]):
        for s, e, _key, value, rule in matcher.finditer(data, seg_s, seg_e):
            if getattr(rule, "is_user", False):
                continue  # the user's rule: applied as text (_apply)
            if blocked.overlapping(s, e) or (accept is not None and not accept(s, e, rule)):
                continue
            found.append((s, e, value, rule))
    return found


def _apply(data: bytes, pieces: list[_Piece], r: TextRule, blocked: _Spans, tables: _Spans,
           cuts: list[Cut]) -> list[_Piece]:
    """One rule over the whole text, as ``str.replace`` does (left to right, matches not
    overlapping), but for the fixes; returns the new pieces."""
    cur = b"".join(p.text for p in pieces)
    key = r.key
    pos = cur.find(key)
    if pos < 0:
        return pieces
    starts, at = [], 0
    for p in pieces:
        starts.append(at)
        at += len(p.text)
    matches = []  # (start, end, first piece, last piece, orig start, orig end)
    while pos >= 0:
        end = pos + len(key)
        span = _orig_span(pieces, starts, pos, end)
        os_, oe = span[2], span[3]
        if not starts_ok(cur, pos, r) or blocked.overlapping(os_, oe) or any(
                tables.items[i][1] - tables.items[i][0] > len(key)  # type: ignore[index]
                for i in tables.overlapping(os_, oe)):
            pos = cur.find(key, pos + 1)
            continue
        matches.append((pos, end, *span))
        if not r.anywhere and key[-1] in _ALNUM and end < len(cur) and cur[end] in IDENT_BYTES:
            stop = end
            while stop < len(cur) and cur[stop] in IDENT_BYTES:
                stop += 1
            cuts.append(Cut(r, data.count(b"\n", 0, os_) + 1,
                            cur[pos:stop].decode("utf-8", "surrogateescape"),
                            (r.value + cur[end:stop]).decode("utf-8", "surrogateescape")))
        pos = cur.find(key, end)
    for s, e, a, b, os_, oe in reversed(matches):
        for i in tables.overlapping(os_, oe):
            tables.items[i] = None  # the rule wins over a table's match no longer than its key
        pieces[a:b + 1] = _replaced(pieces[a], pieces[b], starts[a], starts[b], s, e, os_, oe, r)
    return pieces


def _orig_span(pieces: list[_Piece], starts: list[int], s: int, e: int) -> tuple[int, int, int, int]:
    """The pieces ``[s, e)`` of the current text overlaps (first, last) and the span of the
    original bytes they stand for. A piece of no text (a rule's deletion) counts when it
    lies inside the span."""
    a = b = -1
    i = max(bisect_left(starts, s) - 1, 0)
    while i < len(pieces):
        cs = starts[i]
        ce = cs + len(pieces[i].text)
        if cs >= e:
            break
        if (cs < e and s < ce) if cs != ce else s < cs < e:
            if a < 0:
                a = i
            b = i
        i += 1
    pa, pb = pieces[a], pieces[b]
    os_ = pa.os if pa.made else pa.os + (s - starts[a])
    oe = pb.oe if pb.made else pb.os + (e - starts[b])
    return a, b, os_, oe


def _replaced(pa: _Piece, pb: _Piece, sa: int, sb: int, s: int, e: int, os_: int, oe: int,
              r: TextRule) -> list[_Piece]:
    """What pieces ``pa``..``pb`` become when ``[s, e)`` of the current text is replaced."""
    out = []
    head = pa.text[:s - sa]
    tail = pb.text[e - sb:]
    if not pa.made and head:
        out.append(_Piece(head, pa.os, os_))
        head = b""
    made = _Piece(head + r.value + (tail if pb.made else b""), os_, oe, r.rule)
    out.append(made)
    if not pb.made and tail:
        out.append(_Piece(tail, oe, pb.oe))
    return out


# One warning per rule and file (the run gathers them into one per rule: ``gathered``).
_CUT = "rule {key!r} changed a name in the middle: {old!r} -> {new!r} ({n} place{s} in this file)"
_CUT_RE = re.compile(r"^(?P<where>.*?): warning: rule (?P<key>.+?) changed a name in the middle: "
                     r"(?P<example>.+) \((?P<n>\d+) places? in this file\)$")


def cut_warnings(cuts: Sequence[Cut]) -> list[tuple[int, str]]:
    """One (line, message) per rule that changed names in the middle, at its first place."""
    first: dict[str, Cut] = {}
    count: dict[str, int] = {}
    for c in cuts:
        first.setdefault(c.rule.label, c)
        count[c.rule.label] = count.get(c.rule.label, 0) + 1
    return [(c.line, _CUT.format(key=k, old=c.old, new=c.new, n=count[k], s="s" if count[k] > 1 else ""))
            for k, c in first.items()]


def gathered(warnings: Sequence[str]) -> list[str]:
    """``warnings`` with the per-file warnings of ``cut_warnings`` gathered into one per
    rule, where the first was: where it first did it, how many places in how many files."""
    out: list[str] = []
    rules: dict[str, list] = {}  # key -> [index in out, where, example, places, files]
    for w in warnings:
        m = _CUT_RE.match(w)
        if m is None:
            out.append(w)
            continue
        slot = rules.get(m["key"])
        if slot is None:
            rules[m["key"]] = slot = [len(out), m["where"], m["example"], 0, 0]
            out.append("")
        slot[3] += int(m["n"])
        slot[4] += 1
    for key, (i, where, example, n, files) in rules.items():
        out[i] = (f"{where}: warning: rule {key} changed names in the middle in {n} place"
                  f"{'s' if n > 1 else ''}{f' of {files} files' if files > 1 else ''}, first "
                  f"{example} (text replacement, as torch_musa's SimplePorting applies the "
                  "call's rules; the command line matches whole names only)")
    return out
