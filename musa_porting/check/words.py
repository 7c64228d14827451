"""Could a file name anything the port renames? The prefilter of a Python file's facts.

A reference the port breaks is one whose two ends differ by the port's renames: so
one end names a word of the vocabulary (``cuda``, ``MUSA``, ``cublas``...) or a
renamed source extension (``.cu``, ``.muh``). A Python file that names none has
nothing the check could report (a setup.py is read anyway: it defines what the
build makes). One pass of an Aho-Corasick automaton over the file (``ahocorasick_rs``,
as ``analyze/literals.py``) finds any of the 180 spellings: 0.03 s over 11 MB of
Python, a twentieth of what reading the file's imports costs.
"""

from __future__ import annotations

import functools
import os

_EXTENSIONS = (b".cu'", b'.cu"', b".cuh", b".mu'", b'.mu"', b".muh")


@functools.lru_cache(maxsize=1)
def _spellings() -> tuple[bytes, ...]:
    """Both sides of the shipped words, in their three case styles; not the words that
    stand only as a whole name part (``CUTE``: ``execute``), nor those under four
    letters (``mcc``), which ordinary words hold."""
    from ..rules.vocabulary import build_vocabulary

    keys: set[str] = set()
    for w in build_vocabulary(default=True).words.values():
        if w.enabled and not w.whole:
            for side in (w.cuda, w.musa):
                if len(side) >= 4:
                    keys |= {side.lower(), side.upper(), side.capitalize()}
    return tuple(sorted(k.encode() for k in keys)) + _EXTENSIONS


@functools.lru_cache(maxsize=1)
def _automaton():
    if os.environ.get("MUSA_PORT_PURE_PYTHON") == "1":
        return None
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    return ahocorasick_rs.BytesAhoCorasick(list(_spellings()),
                                           matchkind=ahocorasick_rs.MATCHKIND_STANDARD,
                                           implementation=ahocorasick_rs.Implementation.DFA)


def names_port_words(data: bytes) -> bool:
    """Whether ``data`` holds a word the port renames (either side) or a source
    extension it renames."""
    ac = _automaton()
    if ac is None:
        return any(k in data for k in _spellings())
    return bool(ac.find_matches_as_indexes(data))
