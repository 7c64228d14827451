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

    def __init__(self, rules: Mapping[str, object]):
        self.rules = dict(rules)
        self._words: dict[bytes, tuple[str, bytes, object]] = {}
        self._others: dict[bytes, tuple[str, bytes, object]] = {}
        # Keys that are a delimited header name ("<cuda.h>", "\"cuda.h\""): they only
        # ever match a whole #include target, so callers that know the includes look
        # them up directly (see fileport) instead of paying for them in a regex.
        self.headers: dict[bytes, tuple[str, bytes, object]] = {}
        self.families = frozenset(getattr(r, "family", None) for r in self.rules.values())
        for key, rule in self.rules.items():
            if not key:
                raise ValueError("empty rule key")
            value = rule if isinstance(rule, str) else rule.value  # type: ignore[attr-defined]
            kb = key.encode("utf-8")
            item = (key, value.encode("utf-8"), rule)
            if WORD_KEY.fullmatch(kb):
                self._words[kb] = item
            elif HEADER_KEY.fullmatch(kb):
                self.headers[kb] = item
            else:
                self._others[kb] = item
        self._word_re = _word_regex(self._words) if self._words else None
        self._other_re = (
            re.compile(_trie_pattern(sorted(self._others)), re.DOTALL) if self._others else None
        )

    def __bool__(self) -> bool:
        return bool(self.rules)

    def finditer(self, data: bytes, start: int = 0, end: int | None = None):
        """Yield (start, end, key, value, rule) for each leftmost-longest match."""
        end = len(data) if end is None else end
        words, others = self._words, self._others
        word_re, other_re = self._word_re, self._other_re
        if other_re is None and word_re is None:
            return
        if other_re is None:
            for m in word_re.finditer(data, start, end):  # type: ignore[union-attr]
                hit = words.get(m.group())
                if hit is not None:
                    yield (m.start(), m.end(), *hit)
            return
        if word_re is None:
            for m in other_re.finditer(data, start, end):
                yield (m.start(), m.end(), *others[m.group()])
            return

        # Both: merge, leftmost first, longer on a tie. Word tokens never overlap each
        # other and start only at identifier boundaries, so one finditer serves: tokens
        # that an earlier match covered are skipped.
        tokens = word_re.finditer(data, start, end)

        def next_word(pos: int):
            for m in tokens:
                if m.start() >= pos and m.group() in words:
                    return m
            return None

        pos = start
        mo = other_re.search(data, pos, end)
        mw = next_word(pos)
        while mo is not None or mw is not None:
            if mw is None or (mo is not None and (mo.start() < mw.start() or (
                    mo.start() == mw.start() and mo.end() > mw.end()))):
                m, hit = mo, others[mo.group()]  # type: ignore[union-attr]
            else:
                m, hit = mw, words[mw.group()]
            yield (m.start(), m.end(), *hit)  # type: ignore[union-attr]
            pos = m.end()  # type: ignore[union-attr]
            if mo is not None and mo.start() < pos:
                mo = other_re.search(data, pos, end)
            if mw is not None and mw.start() < pos:
                mw = next_word(pos)


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
    blocked = list(excluded) + [(s, e) for s, e, _, _ in fixed]
    found: list[tuple[int, int, str, bytes, object]] = []
    if matcher:
        if blocked:
            for s, e in _complement(blocked, len(data)):
                found.extend(matcher.finditer(data, s, e))
        else:
            found.extend(matcher.finditer(data))
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
    for s, e, key, value, rule in found:
        line += data.count(b"\n", pos, s)
        nl = data.rfind(b"\n", 0, s)
        line_start = nl + 1
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
