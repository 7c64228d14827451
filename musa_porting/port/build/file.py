"""Porting one build file: its kind's porter, then its changes applied as edits.

Bytes in, bytes out, like ``port/cxx/porter.py``: the file is read as Latin-1 so that every
byte keeps its offset and every byte not rewritten round-trips (CRLF, a BOM, UTF-8 or
not). ``MUSIFY_EXCL_*`` and ``musa-port: off/on`` markers protect what they cover, as in
C/C++ files.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ...rules.model import Rule
from ..cxx import lexer
from ..engine import Edit, Matcher, rewrite
from .cmake.porter import cmake_words, port_cmake_text
from .rewrite import BuildContext, Change, Note
from .shell.lexer import lex_make, lex_shell
from .shell.porter import port_script_text
from .words import Word

BUILD_FAMILY = "build"
_NO_RULES = Matcher({})


@dataclass
class BuildPorted:
    """A ported build file: new bytes, edits, the changes behind them, notes, warnings."""

    data: bytes
    edits: list[Edit]
    changes: list[Change]
    notes: list[Note]
    protected: list[tuple[int, int]]  # marker regions (source offsets)
    warnings: list[tuple[int, str]] = field(default_factory=list)


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= start and end <= e for s, e in spans)


def port_build_bytes(data: bytes, kind: str, ctx: BuildContext) -> BuildPorted:
    """Port a build file of ``kind`` ("cmake", "make", "shell")."""
    text = data.decode("latin-1")
    protected = lexer.marker_spans(data)
    warnings: list[tuple[int, str]] = []
    if kind == "cmake":
        rw, problems = port_cmake_text(text, ctx, protected)
        warnings = [(line, f"CMake: {msg}; the rest of the file may be left unported")
                    for line, msg in problems]
    else:
        rw = port_script_text(text, ctx, protected, make=kind == "make")
    changes = sorted((c for c in rw.changes if not _inside(c.start, c.end, protected)),
                     key=lambda c: (c.start, c.end))
    notes = [n for n in rw.notes if not _inside(n.start, n.end, protected)]
    fixed = [(c.start, c.end, c.new.encode("latin-1"),
              Rule(text[c.start:c.end], c.new, BUILD_FAMILY)) for c in changes]
    out = rewrite(data, _NO_RULES, fixed=fixed)
    return BuildPorted(out.data, out.edits, changes, notes, protected, warnings)


def build_words(kind: str, text: str) -> Iterator[Word]:
    """Every word of a build file of ``kind`` (what the findings scan reads)."""
    if kind == "cmake":
        yield from cmake_words(text)
        return
    lexed = lex_make(text) if kind == "make" else lex_shell(text)
    for stmt in lexed.statements:
        yield from stmt
