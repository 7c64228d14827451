"""MP1009: string literals of a ported C/C++ file that still name a CUDA library or
environment variable (``port/cuda_strings.py`` decides what each names), placed in the
ported file and, through the edits of its line, in the CUDA original."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set

from ..port.cuda_strings import CHECK, CudaStrings
from ..port.cxx import lexer
from ..port.engine import Edit
from .checks import Diagnostic


def _source_column(line: int, column: int, edits: Sequence[Edit]) -> int:
    """The source column of a ported column: the edits before it on its line moved it."""
    delta = 0
    for e in sorted((e for e in edits if e.line == line), key=lambda e: e.column):
        if e.column + delta >= column:
            break
        delta += len(e.new.encode("utf-8", "surrogateescape")) - (e.end - e.start)
    return column - delta


def string_findings(ported: bytes, strings: CudaStrings, keep: Set[str],
                    edits: Sequence[Edit]) -> list[Diagnostic]:
    out = []
    for off, text, message in strings.leftovers(ported, lexer.Lexed(ported), keep):
        line = ported.count(b"\n", 0, off) + 1
        col = off - ported.rfind(b"\n", 0, off)
        out.append(Diagnostic(CHECK, text, line, col, line, _source_column(line, col, edits),
                              message))
    return out


_PY_LIBRARY = re.compile(rb"""(['"])([^'"\n\\]*lib[A-Za-z0-9_]+\.(?:so|a)[.0-9]*)\1""")


def python_library_findings(ported: bytes, strings: CudaStrings,
                            edits: Sequence[Edit]) -> list[Diagnostic]:
    """MP1009 for a Python string that still names a CUDA library (``"libnvrtc.so"``) or
    keeps one's version suffix; environment variables are the Python porter's."""
    out = []
    if b".so" not in ported and b".a" not in ported:
        return out
    for m in _PY_LIBRARY.finditer(ported):
        body = m.group(2).decode("latin-1")
        _, message = strings.judge(body)
        if message is None:
            continue
        off = m.start(2)
        line = ported.count(b"\n", 0, off) + 1
        col = off - ported.rfind(b"\n", 0, off)
        out.append(Diagnostic(CHECK, body, line, col, line, _source_column(line, col, edits),
                              message))
    return out
