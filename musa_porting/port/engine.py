"""The rewriting engine: literal rules, leftmost-longest, identifier-boundary aware.

All matching happens on bytes so that every byte the rules do not touch (CRLF, a BOM,
Latin-1 comments, NULs) round-trips exactly. The rules are compiled into one regular
expression shaped like a trie: at each position the regex engine tries the longest
key first and backtracks to shorter keys when a boundary check fails, which is the
behaviour musify lacks. Leading and trailing boundaries are checked only on the sides
where a key's edge is a letter or a digit, so ``_CUH`` still hits ``FOO_CUH``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .automata import compile_others, word_automaton, word_regex

IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
# A key that is a whole identifier with alphanumeric ends: found by token lookup.
WORD_KEY = re.compile(rb"[A-Za-z0-9](?:[A-Za-z0-9_]*[A-Za-z0-9])?")
HEADER_KEY = re.compile(rb'<[^<>"\s]+>|"[^<>"\s]+"')
# A key written "substr:TEXT" matches TEXT anywhere, inside longer names too (torch_musa's
# str.replace), instead of at identifier boundaries.
SUBSTRING_PREFIX = "substr:"


@dataclass(frozen=True)
class Edit:
    """One replacement in a file: where it was, what it was and which rule did it."""

    start: int  # byte offset in the input
    end: int
    line: int  # 1-based
    column: int  # 1-based, in bytes (as compilers count)
    old: str
    new: str
    rule: object = None  # the Rule that produced it (or None for include renames)


class Matcher:
    """A compiled set of literal rules.

    ``rules`` maps each key (str) to an opaque rule object whose ``value`` attribute
    (or the object itself, when it is a str) is the replacement.

    Two matchers share the work, with one result: keys that are whole identifiers
    starting and ending with a letter or digit (nearly all of a large table) are found by
    one regex that yields identifier tokens with a known first two characters, then
    a dict lookup; the few other keys (``_CUH``, ``::cuda::``, header names) go into
    a trie regex. Compiling a trie of every key would cost seconds per run.
    """

    def __init__(self, rules: Mapping[str, object], *, include_targets: bool = True):
        """``include_targets=False``: a key like ``"cuda"`` is text to match anywhere,
        not the target of an ``#include`` (Python's text rules)."""
        self.rules = dict(rules)
        self._include_targets = include_targets
        self._words: dict[bytes, tuple[str, bytes, object]] = {}
        self._others: dict[bytes, tuple[str, bytes, object]] = {}
        self._unbounded: set[bytes] = set()  # other keys written "substr:": no boundaries
        # Keys that are a delimited header name ("<cuda.h>", "\"cuda.h\""): they only
        # ever match a whole #include target, so callers that know the includes look
        # them up directly (see fileport) instead of paying for them in a regex.
        self.headers: dict[bytes, tuple[str, bytes, object]] = {}
        self.families = frozenset(getattr(r, "family", None) for r in self.rules.values())
        self._classify(self.rules)
        # A user rule whose key is not a whole identifier (an #include line, punctuation):
        # the ported file's includes then ask whether one covers them (port/cxx/porter.py).
        self.user_text = any(getattr(item[2], "is_user", False) for item in self._others.values())
        # Automata of the word keys (one here; ``extended`` adds one for its keys).
        self._word_acs: list[tuple[object, list[bytes]]] = []
        self._word_re = None
        self._compile_words(list(self._words))
        self._other_ac, self._other_re, self._sub_re = compile_others(self._others, self._unbounded)

    def _classify(self, rules: Mapping[str, object]) -> None:
        for key, rule in rules.items():
            if not key:
                raise ValueError("empty rule key")
            value = rule if isinstance(rule, str) else rule.value  # type: ignore[attr-defined]
            if key.startswith(SUBSTRING_PREFIX) and len(key) > len(SUBSTRING_PREFIX):
                text = key[len(SUBSTRING_PREFIX):]
                kb = text.encode("utf-8")
                self._others[kb] = (text, value.encode("utf-8"), rule)
                self._unbounded.add(kb)
                continue
            kb = key.encode("utf-8")
            item = (key, value.encode("utf-8"), rule)
            if WORD_KEY.fullmatch(kb):
                self._words[kb] = item
            elif self._include_targets and HEADER_KEY.fullmatch(kb):
                self.headers[kb] = item
            else:
                self._others[kb] = item

    def _compile_words(self, keys: list[bytes]) -> None:
        """Add an automaton of ``keys`` (word keys of ``self._words``); without the
        wheel, one regex of every word key instead."""
        ac = word_automaton(keys) if keys else None
        if ac is not None:
            self._word_acs.append(ac)
        elif self._words:
            self._word_re = word_regex(self._words)

    def extended(self, extra: Mapping[str, object]) -> Matcher:
        """This matcher with the ``extra`` rules whose keys it has no rule for (a
        project's renames never replace a rule). The automaton of the 30,000 table
        keys is shared, not rebuilt, so it can be compiled before the project's
        renames are known: the new word keys get an automaton of their own, and a
        token is a key when either holds it (word keys match whole tokens only)."""
        new = {k: r for k, r in extra.items() if k not in self.rules}
        if not new:
            return self
        m = _derive(self, {**self.rules, **new})
        m.families = self.families | frozenset(getattr(r, "family", None) for r in new.values())
        m._classify(new)
        m.user_text = m.user_text or any(getattr(r, "is_user", False) for r in new.values())
        m._word_re = None
        if self._word_re is not None or (self._words and not self._word_acs):
            m._compile_words([])  # the pure-Python path: one regex of every word key
        else:
            m._compile_words([k for k in m._words if k not in self._words])
        if len(m._others) != len(self._others):
            m._other_ac, m._other_re, m._sub_re = compile_others(m._others, m._unbounded)
        return m

    def inner(self) -> Matcher:
        """The keys that act inside a name (``_CUH``, ``::cuda::``: neither a whole
        identifier nor a header name), sharing this matcher's automaton of them: what a
        new name goes through, without classifying 30,000 keys again."""
        m = _derive(self, {(SUBSTRING_PREFIX + item[0] if kb in self._unbounded else item[0]): item[2]
                        for kb, item in self._others.items()})
        m.families = frozenset(getattr(r, "family", None) for r in m.rules.values())
        m._words, m.headers, m._word_acs, m._word_re = {}, {}, [], None
        return m

    def __bool__(self) -> bool:
        return bool(self.rules)

    def _word_hits(self, data: bytes, start: int, end: int):
        """(start, end, key) of every identifier token in [start, end) that is a word
        key. A token is a maximal identifier run; the segment's end counts as its end."""
        if self._word_acs:
            view = memoryview(data)[start:end] if (start or end != len(data)) else data
            hits = []
            for ac, keys in self._word_acs:
                for i, s, e in ac.find_matches_as_indexes(view):
                    s += start
                    e += start
                    if (s == 0 or data[s - 1] not in IDENT_BYTES) and (
                            e == end or data[e] not in IDENT_BYTES):
                        hits.append((s, e, keys[i]))
            if len(self._word_acs) > 1:
                hits.sort()  # whole tokens of disjoint key sets: never the same token twice
            yield from hits
            return
        words = self._words
        for m in self._word_re.finditer(data, start, end):  # type: ignore[union-attr]
            tok = m.group()
            if tok in words:
                yield m.start(), m.end(), tok

    def _other_hits(self, data: bytes, start: int, end: int):
        """(start, end, key) of the other keys' matches in [start, end), leftmost first;
        at one place the longest key whose boundaries hold (a key's edge that is a
        letter or digit needs a non-identifier byte beside it; the segment's end counts)."""
        if self._other_ac is None:
            found = [(m.start(), m.end(), m.group()) for r in (self._other_re, self._sub_re)
                     if r is not None for m in r.finditer(data, start, end)]
            if self._sub_re is not None:
                found.sort(key=lambda h: (h[0], h[0] - h[1]))  # leftmost, then longest
            pos = start
            for h in found:
                if h[0] >= pos:
                    yield h
                    pos = h[1]
            return
        ac, keys, edges = self._other_ac
        view = memoryview(data)[start:end] if (start or end != len(data)) else data
        found = ac.find_matches_as_indexes(view, overlapping=True)
        if not found:
            return
        found.sort(key=lambda h: (h[1], h[1] - h[2]))  # leftmost, then longest
        pos = start
        for i, s, e in found:
            s += start
            e += start
            if s < pos:
                continue
            left, right = edges[i]
            if left and s > 0 and data[s - 1] in IDENT_BYTES:
                continue
            if right and e != end and data[e] in IDENT_BYTES:
                continue
            yield s, e, keys[i]
            pos = e

    def finditer(self, data: bytes, start: int = 0, end: int | None = None):
        """Yield (start, end, key, value, rule) for each leftmost-longest match."""
        end = len(data) if end is None else end
        words, others = self._words, self._others
        if not words and not others:
            return
        if not others:
            for s, e, key in self._word_hits(data, start, end):
                yield (s, e, *words[key])
            return
        if not words:
            for s, e, key in self._other_hits(data, start, end):
                yield (s, e, *others[key])
            return

        # Both: merge, leftmost first, longer on a tie. Each stream is leftmost-longest
        # and never overlaps itself; an item an earlier pick covered is skipped.
        whits = self._word_hits(data, start, end)
        ohits = self._other_hits(data, start, end)

        def after(hits, pos: int):
            for h in hits:
                if h[0] >= pos:
                    return h
            return None

        mo, mw = after(ohits, start), after(whits, start)
        while mo is not None or mw is not None:
            if mw is None or (mo is not None and (mo[0] < mw[0] or (
                    mo[0] == mw[0] and mo[1] > mw[1]))):
                s, e, hit = mo[0], mo[1], others[mo[2]]  # type: ignore[index]
            else:
                s, e, hit = mw[0], mw[1], words[mw[2]]
            yield (s, e, *hit)
            if mo is not None and mo[0] < e:
                mo = after(ohits, e)
            if mw is not None and mw[0] < e:
                mw = after(whits, e)


def _derive(base: Matcher, rules: dict[str, object]) -> Matcher:
    """A matcher of ``rules`` with ``base``'s keys and compiled automata (shared)."""
    m = Matcher.__new__(Matcher)
    m.rules = rules
    m._include_targets, m.families, m.user_text = base._include_targets, base.families, base.user_text
    m._words, m._others, m.headers = dict(base._words), dict(base._others), dict(base.headers)
    m._unbounded = set(base._unbounded)
    m._word_acs, m._word_re = list(base._word_acs), base._word_re
    m._other_ac, m._other_re, m._sub_re = base._other_ac, base._other_re, base._sub_re
    return m


@dataclass
class Rewrite:
    """The result of rewriting one text."""

    data: bytes
    edits: list[Edit]


def complement(spans: Iterable[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    out = []
    pos = 0
    for s, e in sorted(spans):
        if s > pos:
            out.append((pos, s))
        pos = max(pos, e)
    if pos < size:
        out.append((pos, size))
    return out


def rewrite(
    data: bytes,
    matcher: Matcher,
    *,
    excluded: Sequence[tuple[int, int]] = (),
    fixed: Sequence[tuple[int, int, bytes, object]] = (),
    accept: Callable[[int, int, object], bool] | None = None,
) -> Rewrite:
    """Apply ``matcher`` to ``data`` in one pass.

    ``excluded`` spans are never matched (comments or strings the user skipped,
    marker-protected regions). ``fixed`` edits, (start, end, replacement, rule), are
    decided by the caller (an include that follows a file rename) and take their
    span out of rule matching. The two must not overlap each other. ``accept``
    (start, end, rule) may veto a match, which then leaves its text as it is.
    """
    found: list[tuple[int, int, str, bytes, object]] = []
    if matcher:
        if excluded:
            for s, e in complement(excluded, len(data)):
                found.extend(matcher.finditer(data, s, e))
        else:
            found.extend(matcher.finditer(data))
    if fixed and found:
        # A fixed edit's span is out of rule matching: a match that overlaps one is
        # dropped (matching between them would cost a pass per span).
        spans = sorted((s, e) for s, e, _, _ in fixed)
        starts = [s for s, _ in spans]
        kept = []
        for f in found:
            i = bisect_right(starts, f[1] - 1) - 1  # the last fixed span starting before f ends
            if i >= 0 and spans[i][1] > f[0]:
                continue
            kept.append(f)
        found = kept
    if accept is not None:
        found = [f for f in found if accept(f[0], f[1], f[4])]
    for s, e, new, rule in fixed:
        found.append((s, e, data[s:e].decode("utf-8", "surrogateescape"), new, rule))
    if not found:
        return Rewrite(data, [])
    found.sort(key=lambda f: f[0])

    pieces: list[bytes] = []
    edits: list[Edit] = []
    decoded: dict[bytes, str] = {}  # one str per replacement text, not one per edit
    pos = 0
    line = 1
    line_start = 0
    last = 0  # the previous edit's start: its line start is known
    for s, e, key, value, rule in found:
        line += data.count(b"\n", pos, s)
        # The line's start, looked for back to the previous edit only (back to the
        # line's start, each time, cost edits x line length on one long line).
        nl = data.rfind(b"\n", last, s)
        if nl >= 0:
            line_start = nl + 1
        last = s
        pieces.append(data[pos:s])
        pieces.append(value)
        if value != data[s:e]:  # identity rules (X: X) protect text but change nothing
            new = decoded.get(value)
            if new is None:
                new = decoded[value] = value.decode("utf-8", "surrogateescape")
            edits.append(Edit(s, e, line, s - line_start + 1, key, new, rule))
        # Count newlines inside the replaced span too, so later line numbers stay right.
        line += data.count(b"\n", s, e)
        pos = e
    pieces.append(data[pos:])
    return Rewrite(b"".join(pieces), edits)
