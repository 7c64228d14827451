"""Inline suppression: ``// musa-port: ignore[MP2002]`` drops that finding on its line.

The marker works in any file kind (``#`` comments in CMake, shell and Python), for
every ID; it takes IDs, names (``warp-size-32``) or families (``warp-size``), comma-
or space-separated, and without brackets it drops every finding of the line. A
comment alone on its line applies to the next line too, so that a long line need not
grow. An unknown ID in a marker is a warning, not an error: the port goes on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .catalogue import CHECKS, FAMILIES, family_checks
from .checks import Diagnostic

_MARK = re.compile(rb"musa-port:[ \t]*ignore\b(?:\[([^\]\r\n]*)\])?")
_ALONE = re.compile(rb"[ \t]*(?://+|#+|/\*+|--|;+)?[ \t]*$")
_NAMES = {c.name: c.id for c in CHECKS.values()}


def _ids(text: bytes) -> tuple[frozenset[str], list[str]]:
    ids: set[str] = set()
    unknown = []
    for item in re.split(rb"[\s,]+", text.strip()):
        word = item.decode("utf-8", "replace")
        if not word:
            continue
        if word in FAMILIES:
            ids.update(c.id for c in family_checks(word))
        elif word.upper() in CHECKS or word in _NAMES:
            ids.add(_NAMES.get(word, word.upper()))
        else:
            unknown.append(word)
    return frozenset(ids), unknown


def suppressions(data: bytes) -> tuple[dict[int, frozenset[str] | None], list[tuple[int, str]]]:
    """Line -> the IDs its markers drop (None: every ID), and warnings (line, text)."""
    if b"musa-port:" not in data:
        return {}, []
    out: dict[int, frozenset[str] | None] = {}
    warnings: list[tuple[int, str]] = []
    line, pos = 1, 0
    for m in _MARK.finditer(data):
        line += data.count(b"\n", pos, m.start())
        pos = m.start()
        if m.group(1) is None:
            ids: frozenset[str] | None = None
        else:
            ids, unknown = _ids(m.group(1))
            for word in unknown:
                warnings.append((line, f"'musa-port: ignore[...]' names {word!r}, which is not a "
                                       "finding ID, name or family ('musa-port explain' lists them)"))
        bol = data.rfind(b"\n", 0, m.start()) + 1
        lines = [line, line + 1] if _ALONE.fullmatch(data, bol, m.start()) else [line]
        for n in lines:
            if ids is None or (n in out and out[n] is None):
                out[n] = None  # every ID
            else:
                out[n] = (out.get(n) or frozenset()) | ids
    return out, warnings


def unsuppressed(data: bytes, diagnostics: Sequence[Diagnostic]
                 ) -> tuple[list[Diagnostic], list[tuple[int, str]]]:
    """The findings no marker of the source drops, and the markers' warnings."""
    marks, warnings = suppressions(data)
    if not marks:
        return list(diagnostics), warnings
    kept = []
    for d in diagnostics:
        ids = marks.get(d.src_line, frozenset())
        if ids is None or d.id in ids:
            continue
        kept.append(d)
    return kept, warnings
