"""Where a literal piece of a computed string is written, and its rewrite as an edit.

``values.py`` says which literal text a value is built from (``Lit``: the ``ast.Constant``
or f-string it is written in, the f-string's text run, where it starts in the literal);
the porter rewrites that text where it is written, in the file's bytes. The tree's
positions delimit the literal; its quoted pieces and an f-string's text runs are read
off the source (``literals.py``). Only a literal whose source text is its value (no
escape sequence, one quoted piece) is rewritten: anything else is left as it is.
"""

from __future__ import annotations

import ast
import codecs
import re
from collections.abc import Mapping

from .literals import Piece, fstring_parts, pieces
from .values import Lit

_NEWLINE = re.compile(rb"\r\n?|\n")


class Positions:
    """Byte offsets of a whole file's tree nodes (UTF-8 source: the tree's columns are
    UTF-8 byte offsets in their line)."""

    def __init__(self, data: bytes):
        self.data = data
        first = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        self.lines = [first] + [m.end() for m in _NEWLINE.finditer(data)]

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.lines[node.lineno - 1] + node.col_offset,  # type: ignore[attr-defined]
                self.lines[node.end_lineno - 1] + node.end_col_offset)  # type: ignore[attr-defined]

    def start(self, node: ast.AST) -> int:
        return self.lines[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]


def written(pos: Positions, lit: Lit) -> tuple[tuple[int, int], int, int] | None:
    """Where ``lit`` is written: the span other rules rewrite it by (its quoted piece, or
    an f-string's text run: not the f-string's fields, which are code) and the byte span
    of its text there; None when it cannot be rewritten in place (escapes, several
    pieces)."""
    node = lit.node
    if node is None or lit.start < 0:
        return None
    try:
        found = pieces(pos.data, *pos.span(node))
    except (ValueError, IndexError):
        return None
    if len(found) != 1 or found[0].is_bytes:
        return None
    p = found[0]
    body = pos.data[p.body_start:p.body_end]
    if isinstance(node, ast.Constant) and not p.is_fstring:
        value, at, region = node.value, p.body_start, (p.start, p.end)
    elif isinstance(node, ast.JoinedStr) and p.is_fstring and lit.part >= 0:
        run = _text_run(pos.data, p, node, lit.part)
        if run is None:
            return None
        at, end = run
        region = run
        body = pos.data[at:end]
        value = node.values[lit.part].value  # type: ignore[attr-defined]
    else:
        return None
    if body.decode("utf-8", "replace") != value:
        return None  # an escape sequence, doubled braces: the text is not the value
    if value[lit.start:lit.start + len(lit.text)] != lit.text:
        return None
    s = at + len(value[:lit.start].encode("utf-8"))
    return region, s, s + len(lit.text.encode("utf-8"))


def _text_run(data: bytes, p: Piece, node: ast.JoinedStr, part: int) -> tuple[int, int] | None:
    """The source span of the f-string's value ``part`` (a text run)."""
    fields = sum(1 for v in node.values[:part] if isinstance(v, ast.FormattedValue))
    seen = 0
    for is_field, s, e in fstring_parts(data, p.body_start, p.body_end):
        if is_field:
            seen += 1
        elif seen == fields:
            return s, e
    return None


def lit_edits(pos: Positions, decided: Mapping[Lit, str]) -> list[tuple[int, int, bytes, Lit]]:
    """The byte edits that give each Lit its decided text (unchanged ones: none)."""
    out = []
    for lit, new in decided.items():
        if new == lit.text:
            continue
        at = written(pos, lit)
        if at is not None and "{" not in new and "}" not in new:
            out.append((at[1], at[2], new.encode("utf-8"), lit))
    return out
