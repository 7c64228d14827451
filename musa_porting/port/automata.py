"""What the engine's rules compile to (``engine.Matcher``): Aho-Corasick automata from
the ``ahocorasick_rs`` wheel, or, without it (or with ``MUSA_PORT_PURE_PYTHON=1``),
regexes shaped like a trie that give the same matches. Built once per run; the
matching itself stays in ``engine.py``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# "The byte before the key's first byte is not an identifier byte", written as a
# two-byte look-behind placed *after* the first byte: this keeps the first element
# of every alternative a literal, so the regex engine can skip ahead with its fast
# first-character scan instead of attempting a match at every offset.
_LEFT_BOUNDARY = rb"(?<![A-Za-z0-9_].)"
_RIGHT_BOUNDARY = rb"(?![A-Za-z0-9_])"


_END = object()  # in a trie node: the key that ends here (its value: what kind of end)


def trie_insert(root: dict, key: bytes, mark: object, *, replace: bool = True) -> None:
    """Add ``key`` to a byte trie, marking its last node with ``mark``."""
    node = root
    for byte in key:
        node = node.setdefault(byte, {})
    if replace:
        node[_END] = mark
    else:
        node.setdefault(_END, mark)


def trie_pattern(keys: Sequence[bytes]) -> bytes:
    """Build a backtracking regex equivalent to leftmost-longest over ``keys``."""
    root: dict = {}
    end = _END
    for key in keys:
        trie_insert(root, key, True)

    def emit(node: dict, depth: int, prev: int | None) -> bytes:
        branches = []
        for byte in sorted(b for b in node if b is not end):
            child = node[byte]
            part = re.escape(bytes([byte]))
            if depth == 0 and byte in ALNUM:
                part += _LEFT_BOUNDARY
            branches.append(part + emit(child, depth + 1, byte))
        # Longer continuations are listed first; the key ending here is the fallback.
        if end in node:
            branches.append(_RIGHT_BOUNDARY if prev in ALNUM else b"")
        if not branches:
            return b""
        if len(branches) == 1:
            return branches[0]
        return b"(?:" + b"|".join(branches) + b")"

    return emit(root, 0, None)


def other_automaton(keys: list[bytes], unbounded: set[bytes] = frozenset()):  # type: ignore[assignment]
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
    edges = [(False, False) if k in unbounded else (k[0] in ALNUM, k[-1] in ALNUM) for k in keys]
    return (ahocorasick_rs.BytesAhoCorasick(keys, matchkind=ahocorasick_rs.MATCHKIND_STANDARD,
                                            implementation=_implementation(ahocorasick_rs, keys)),
            keys, edges)


def word_automaton(keys: list[bytes]):
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


def word_regex(words: Mapping[bytes, object]) -> re.Pattern[bytes]:
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
        trie_insert(root, p, "prefix")
    for k in short:
        trie_insert(root, k, "word", replace=False)  # a prefix node already matches it

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


def compile_others(others: Mapping[bytes, object], unbounded: set[bytes]):
    """The other keys compiled: (automaton, trie regex, substring regex), the automaton
    when the wheel is there, else the two regexes (None where there is nothing)."""
    other_re = sub_re = None
    other_ac = other_automaton(list(others), unbounded) if others else None
    if others and other_ac is None:
        bounded = sorted(k for k in others if k not in unbounded)
        if bounded:
            other_re = re.compile(trie_pattern(bounded), re.DOTALL)
        if unbounded:
            sub_re = re.compile(b"|".join(
                re.escape(k) for k in sorted(unbounded, key=len, reverse=True)), re.DOTALL)
    return other_ac, other_re, sub_re
