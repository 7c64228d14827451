"""Finding many literal words in one pass: an Aho-Corasick automaton from the
``ahocorasick_rs`` wheel (Rust), built once per set of words. The hazard checks look
for about a hundred words; a ``word in data`` test each (or a regex of alternatives)
reads 15 MB once per word, an automaton once for all. Without the wheel, or with
``MUSA_PORT_PURE_PYTHON=1``, ``bytes.find`` finds the same occurrences."""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence


@functools.lru_cache(maxsize=8)
def _automaton(keys: tuple[bytes, ...]):
    if os.environ.get("MUSA_PORT_PURE_PYTHON") == "1":
        return None
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs.BytesAhoCorasick(list(keys), matchkind=ahocorasick_rs.MATCHKIND_STANDARD,
                                           implementation=ahocorasick_rs.Implementation.DFA)


def occurrences(keys: Sequence[bytes], data: bytes) -> dict[bytes, list[int]]:
    """Every start of every key in ``data`` (overlaps included), by key; keys that do
    not occur are absent."""
    keys = tuple(keys)
    out: dict[bytes, list[int]] = {}
    ac = _automaton(keys)
    if ac is None:
        for k in keys:
            at = data.find(k)
            while at >= 0:
                out.setdefault(k, []).append(at)
                at = data.find(k, at + 1)
        return out
    for index, start, _ in ac.find_matches_as_indexes(data, overlapping=True):
        k = keys[index]
        if k in out:
            out[k].append(start)
        else:
            out[k] = [start]
    return out
