"""Finding the identifiers of a file that hold a vocabulary word (``cudaFoo``,
``MyCudaKernel``): the first step of every project-symbol scan (the lexer and libclang
back ends, build files), so it reads each file once, whatever the vocabulary's size."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

from ..rules.project import KEPT_LIBRARY_PREFIX
from ..rules.vocabulary import Vocabulary

_IDENT_BYTE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_MASK = bytes(0x61 if b in _IDENT_BYTE else 0x20 for b in range(256))
# A lead word's shape that is a kept library's name (libcu++'s NV_IF_TARGET): not a hit.
_KEPT = re.compile(KEPT_LIBRARY_PREFIX.encode())


class WordFinder:
    """Finds the identifiers that hold a vocabulary word, fast: the file is lowered
    once and searched for the words in one pass (an Aho-Corasick automaton from the
    ``ahocorasick_rs`` wheel; without it, or with ``MUSA_PORT_PURE_PYTHON=1``, a
    trie-shaped regex with the same hits), and only the identifiers around the hits
    are split into parts and checked. No word holds another, so at most one starts at
    any offset and both searches report the same leftmost, non-overlapping hits."""

    def __init__(self, vocabulary: Vocabulary):
        self.vocabulary = vocabulary
        words = sorted({f.lower() for f in vocabulary.forms()})
        # A whole word beginning with a letter no other word begins with (THC's t) would
        # make the automaton stop at that letter everywhere: such words (prefixes and
        # acronyms) are looked for in upper case, in the file's own case, by bytes.find.
        firsts = {f[0].lower() for w in vocabulary.words.values() if w.enabled and not w.whole
                  and not w.lead for f in w.forms()}
        upper = {w.cuda for w in vocabulary.words.values() if w.enabled and w.whole
                 and w.cuda[0].lower() not in firsts}
        self._upper = sorted(u.encode() for u in upper if not any(o != u and o in u for o in upper))
        words = [w for w in words if w.upper() not in upper]
        # A word that holds another (cudart holds cuda) is found through it.
        minimal = [w for w in words if not any(o != w and o in w for o in words)]
        self._re = re.compile(_trie(minimal)) if minimal else None
        self._ac = _automaton([w.encode() for w in minimal]) if minimal else None
        # The vendor word (NVIDIA) is in most files' copyright comments, and only there:
        # it makes a file worth scanning only where it stands in code.
        aliases = {f.lower() for w in vocabulary.words.values() if w.alias and w.enabled
                   for f in w.forms()}
        self._alias = frozenset(i for i, w in enumerate(minimal) if w in aliases)
        self._minimal = [w.encode() for w in minimal]
        # The lead words (cuCheck, NV_MAX_SMEM) are too short for the word lists: their
        # shape in the file's own case finds them (a prefix and an upper-case letter, at
        # the start of a name).
        lead = vocabulary.lead_prefixes()
        self._lead = bool(lead)
        self._lead_ac = _automaton([p + bytes((c,)) for p in lead for c in range(0x41, 0x5B)]) \
            if lead else None
        self._lead_re = re.compile(b"(?:" + b"|".join(map(re.escape, lead)) + rb")[A-Z]") \
            if lead and self._lead_ac is None else None

    def present(self, low: bytes, data: bytes | None = None) -> bool:
        """Whether ``low`` holds a word (or ``data`` a lead word in its shape)."""
        if self._words_present(low) or any(u in data for u in self._upper if data is not None):
            return True
        return self._lead and data is not None and bool(self.lead_starts(data))

    def lead_starts(self, data: bytes) -> list[int]:
        """Where a name in a lead word's shape starts in ``data`` (its own case)."""
        if self._lead_ac is not None:
            hits = [s for _, s, _ in self._lead_ac.find_matches_as_indexes(data)]
        elif self._lead_re is not None:
            hits = [m.start() for m in self._lead_re.finditer(data)]
        else:
            return []
        return [s for s in hits if _starts_name(data, s) and not _KEPT.match(data, s)]

    def _words_present(self, low: bytes) -> bool:
        if self._ac is not None:
            hits = self._ac.find_matches_as_indexes(low)
            if not self._alias or not hits:
                return bool(hits)
            return any(i not in self._alias or not _in_comment(low, s) for i, s, _ in hits)
        if self._re is None:
            return False
        if not self._alias:
            return self._re.search(low) is not None
        return any(m.group() not in {self._minimal[i] for i in self._alias}
                   or not _in_comment(low, m.start()) for m in self._re.finditer(low))

    def starts(self, low: bytes) -> list[int]:
        """Where the words start in lowered text (the identifiers around them are not
        checked)."""
        if self._ac is not None:
            return [s for _, s, _ in self._ac.find_matches_as_indexes(low)]
        return [m.start() for m in self._re.finditer(low)] if self._re is not None else []

    def spans(self, data: bytes, low: bytes) -> Iterator[tuple[int, int]]:
        """(start, end) of each identifier of ``data`` around a word hit, once each and
        in order (``low`` is ``data.lower()``); whether the name holds a word whole is
        the caller's check."""
        mask = data.translate(_MASK)  # identifier bytes -> "a", the rest -> " "
        n = len(data)
        seen = -1
        starts = self.starts(low)
        extra = self.lead_starts(data) if self._lead else []
        for u in self._upper:
            p = data.find(u)
            while p >= 0:
                extra.append(p)
                p = data.find(u, p + len(u))
        if extra:
            starts = sorted(starts + extra)
        for p in starts:
            if p < seen:
                continue
            s = mask.rfind(b" ", 0, p) + 1
            e = mask.find(b" ", p)
            if e < 0:
                e = n
            seen = e
            yield s, e

    def identifiers(self, data: bytes, low: bytes):
        """(start, end, name) of each identifier of ``data`` that holds a word
        (``low`` is ``data.lower()``)."""
        rename = self.vocabulary.rename
        for s, e in self.spans(data, low):
            if 0x30 <= data[s] <= 0x39:
                continue  # a number
            name = data[s:e].decode("ascii", "replace")
            if rename(name) is not None:
                yield s, e, name


def _starts_name(data: bytes, pos: int) -> bool:
    """``pos`` begins a name, after any underscores (``__nvAssert``)."""
    i = pos - 1
    while i >= 0 and data[i] == 0x5F:
        i -= 1
    return i < 0 or data[i] not in _IDENT_BYTE


def _in_comment(data: bytes, pos: int) -> bool:
    """A cheap look at the line: ``//`` before ``pos``, or a line of a block comment."""
    start = data.rfind(b"\n", 0, pos) + 1
    line = data[start:pos]
    return b"//" in line or line.lstrip()[:1] in (b"*", b"/")


def _automaton(words: list[bytes]):
    if os.environ.get("MUSA_PORT_PURE_PYTHON") == "1":
        return None
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs.BytesAhoCorasick(words, implementation=ahocorasick_rs.Implementation.DFA)


def _trie(words: list[str]) -> bytes:
    root: dict = {}
    for w in words:
        node = root
        for ch in w.encode():
            node = node.setdefault(ch, {})
        node[None] = True

    def emit(node: dict) -> bytes:
        if None in node:
            return b""  # a word ends here: any longer one holds it
        alts = [re.escape(bytes([k])) + emit(v) for k, v in sorted(node.items())]
        return alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"

    return emit(root)
