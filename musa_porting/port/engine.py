"""The rewriting engine: literal rules, leftmost-longest, identifier-boundary aware.

All matching happens on bytes so that every byte the rules do not touch (CRLF, a BOM,
Latin-1 comments, NULs) round-trips exactly. The rules are compiled into one regular
expression shaped like a trie: at each position the regex engine tries the longest
key first and backtracks to shorter keys when a boundary check fails, which is the
behaviour musify lacks. Leading and trailing boundaries are checked only on the sides
where a key's edge is a letter or a digit, so ``_CUH`` still hits ``FOO_CUH``.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

IDENT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# "The byte before the key's first byte is not an identifier byte", written as a
# two-byte look-behind placed *after* the first byte: this keeps the first element
# of every alternative a literal, so the regex engine can skip ahead with its fast
# first-character scan instead of attempting a match at every offset.
_LEFT_BOUNDARY = rb"(?<![A-Za-z0-9_].)"
_RIGHT_BOUNDARY = rb"(?![A-Za-z0-9_])"
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


_END = object()  # in a trie node: the key that ends here (its value: what kind of end)


def _trie_insert(root: dict, key: bytes, mark: object, *, replace: bool = True) -> None:
    """Add ``key`` to a byte trie, marking its last node with ``mark``."""
    node = root
    for byte in key:
        node = node.setdefault(byte, {})
    if replace:
        node[_END] = mark
    else:
        node.setdefault(_END, mark)


def _trie_pattern(keys: Sequence[bytes]) -> bytes:
    """Build a backtracking regex equivalent to leftmost-longest over ``keys``."""
    root: dict = {}
    end = _END
    for key in keys:
        _trie_insert(root, key, True)

    def emit(node: dict, depth: int, prev: int | None) -> bytes:
        branches = []
        for byte in sorted(b for b in node if b is not end):
            child = node[byte]
            part = re.escape(bytes([byte]))
            if depth == 0 and byte in _ALNUM:
                part += _LEFT_BOUNDARY
            branches.append(part + emit(child, depth + 1, byte))
        # Longer continuations are listed first; the key ending here is the fallback.
        if end in node:
            branches.append(_RIGHT_BOUNDARY if prev in _ALNUM else b"")
        if not branches:
            return b""
        if len(branches) == 1:
            return branches[0]
        return b"(?:" + b"|".join(branches) + b")"

    return emit(root, 0, None)


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
        self._compile_others()

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
        ac = _word_automaton(keys) if keys else None
        if ac is not None:
            self._word_acs.append(ac)
        elif self._words:
            self._word_re = _word_regex(self._words)

    def _compile_others(self) -> None:
        self._other_re = self._sub_re = None
        self._other_ac = _other_automaton(list(self._others), self._unbounded) if self._others \
            else None
        if self._others and self._other_ac is None:
            bounded = sorted(k for k in self._others if k not in self._unbounded)
            if bounded:
                self._other_re = re.compile(_trie_pattern(bounded), re.DOTALL)
            if self._unbounded:
                self._sub_re = re.compile(b"|".join(
                    re.escape(k) for k in sorted(self._unbounded, key=len, reverse=True)), re.DOTALL)

    def extended(self, extra: Mapping[str, object]) -> Matcher:
        """This matcher with the ``extra`` rules whose keys it has no rule for (a
        project's renames never replace a rule). The automaton of the 30,000 table
        keys is shared, not rebuilt, so it can be compiled before the project's
        renames are known: the new word keys get an automaton of their own, and a
        token is a key when either holds it (word keys match whole tokens only)."""
        new = {k: r for k, r in extra.items() if k not in self.rules}
        if not new:
            return self
        m = Matcher.__new__(Matcher)
        m.rules = {**self.rules, **new}
        m._include_targets = self._include_targets
        m.families = self.families | frozenset(getattr(r, "family", None) for r in new.values())
        m._words, m._others, m.headers = dict(self._words), dict(self._others), dict(self.headers)
        m._unbounded = set(self._unbounded)
        m.user_text = self.user_text
        m._classify(new)
        m.user_text = m.user_text or any(getattr(r, "is_user", False) for r in new.values())
        m._word_acs = list(self._word_acs)
        m._word_re = None
        if self._word_re is not None or (self._words and not self._word_acs):
            m._compile_words([])  # the pure-Python path: one regex of every word key
        else:
            m._compile_words([k for k in m._words if k not in self._words])
        if len(m._others) != len(self._others):
            m._compile_others()
        else:
            m._other_ac, m._other_re, m._sub_re = self._other_ac, self._other_re, self._sub_re
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


def _other_automaton(keys: list[bytes], unbounded: set[bytes] = frozenset()):  # type: ignore[assignment]
    """The other keys (``_CUH``, ``__CUDACC__``, ``.is_cuda()``) in an Aho-Corasick
    automaton that reports every occurrence, overlaps included: leftmost-longest with
    a fall back to shorter keys when a boundary fails is then chosen in Python, as the
    trie regex would. Each key's edges say which side needs an identifier boundary."""
    if os.environ.get("MUSA_PORT_PURE_PYTHON") == "1":
        return None
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    edges = [(False, False) if k in unbounded else (k[0] in _ALNUM, k[-1] in _ALNUM) for k in keys]
    return (ahocorasick_rs.BytesAhoCorasick(keys, matchkind=ahocorasick_rs.MATCHKIND_STANDARD,
                                            implementation=_implementation(ahocorasick_rs, keys)),
            keys, edges)


def _word_automaton(keys: list[bytes]):
    """An Aho-Corasick automaton of the word keys (leftmost-longest), from the
    ``ahocorasick_rs`` wheel: it finds every key occurrence in one pass in Rust, and
    only whole-token occurrences are kept. None when the wheel is missing or
    ``MUSA_PORT_PURE_PYTHON=1``: the token regex below gives the same matches."""
    if os.environ.get("MUSA_PORT_PURE_PYTHON") == "1":
        return None
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return (ahocorasick_rs.BytesAhoCorasick(keys, matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_LONGEST,
                                            implementation=_implementation(ahocorasick_rs, keys)),
            keys)


def _implementation(ahocorasick_rs, keys: list[bytes]):
    """A DFA searches about twice as fast, and takes twice as long to build: worth it
    for a few thousand keys, not for the 30,000 of the tables."""
    impl = ahocorasick_rs.Implementation
    return impl.DFA if len(keys) <= 5000 else impl.ContiguousNFA


_PREFIX = 4  # bytes of each key the token regex checks before the dict lookup


def _word_regex(words: Mapping[bytes, object]) -> re.Pattern[bytes]:
    """Identifier tokens, at identifier starts, that begin with the first bytes of some
    key. The distinct 4-byte prefixes are few (hundreds for 30,000 keys) so their trie
    compiles fast, and they are selective enough that few tokens reach Python."""
    prefixes: set[bytes] = set()
    short: set[bytes] = set()
    for k in words:
        if len(k) <= _PREFIX:
            short.add(k)
        else:
            prefixes.add(k[:_PREFIX])
    root: dict = {}
    end = _END
    for p in prefixes:
        _trie_insert(root, p, "prefix")
    for k in short:
        _trie_insert(root, k, "word", replace=False)  # a prefix node already matches it

    def emit(node: dict, depth: int) -> bytes:
        branches = []
        for b in sorted(x for x in node if x is not end):
            part = re.escape(bytes([b]))
            if depth == 0:
                part += _LEFT_BOUNDARY
            branches.append(part + emit(node[b], depth + 1))
        kind = node.get(end)
        if kind == "prefix":
            return rb"[A-Za-z0-9_]*"  # any token that starts with this prefix
        if kind == "word":
            branches.append(_RIGHT_BOUNDARY)  # a short key: the whole token
        if len(branches) == 1:
            return branches[0]
        return b"(?:" + b"|".join(branches) + b")"

    return re.compile(emit(root, 0))


@dataclass
class Rewrite:
    """The result of rewriting one text."""

    data: bytes
    edits: list[Edit]


def _complement(spans: Iterable[tuple[int, int]], size: int) -> list[tuple[int, int]]:
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
            for s, e in _complement(excluded, len(data)):
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
