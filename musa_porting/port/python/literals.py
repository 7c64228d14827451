"""The pieces of a string literal, read off its source text.

CPython's tree folds ``"a" "b"`` into one constant and gives an f-string's text parts
the position of the whole literal (before 3.12), so the pieces a rewrite works on are
found here, in the bytes the tree's positions delimit: each quoted piece with its
prefix, and in an f-string the runs of text between the ``{...}`` fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .lexer import QUOTED

# A comment or a closed quoted piece with its prefix (the lexer's forms).
_PIECE = re.compile(rb"\#[^\r\n]*|(?P<prefix>[rRbBuUfF]{0,2})(?P<quoted>"
                    + b"|".join(body + close for body, close in QUOTED) + rb")", re.S)

_BLANK = b" \t\f\r\n\\"  # between the pieces of one literal


@dataclass(frozen=True)
class Piece:
    """One quoted piece of a literal: offsets of the piece (prefix included) and of its
    body (between the quotes), in the bytes it was read from."""

    start: int
    end: int
    body_start: int
    body_end: int
    prefix: bytes

    @property
    def is_bytes(self) -> bool:
        return b"b" in self.prefix.lower()

    @property
    def is_fstring(self) -> bool:
        return b"f" in self.prefix.lower()


def pieces(src: bytes, start: int, end: int) -> list[Piece]:
    """The quoted pieces of the literal at ``src[start:end]``, comments between them
    skipped. ValueError when the span is not pieces, blanks and comments (a quote
    this scan does not know, such as 3.12's ``f"{d["k"]}"``)."""
    out = []
    pos = start
    for m in _PIECE.finditer(src, start, end):
        if src[pos:m.start()].strip(_BLANK):
            raise ValueError("not a string literal")
        pos = m.end()
        if m.group("quoted") is None:
            continue
        qs, qe = m.span("quoted")
        q = 3 if src[qs:qs + 3] in (b"'''", b'"""') else 1
        out.append(Piece(m.start(), m.end(), qs + q, qe - q, m.group("prefix")))
    if src[pos:end].strip(_BLANK):
        raise ValueError("not a string literal")
    return out


def fstring_parts(src: bytes, start: int, end: int) -> list[tuple[bool, int, int]]:
    """An f-string body ``src[start:end]`` as (is_field, start, end) runs: text (``{{``
    and ``}}`` kept in it) and ``{...}`` fields, braces included, format spec and all."""
    out: list[tuple[bool, int, int]] = []
    text = start
    i = start
    while i < end:
        c = src[i]
        if c in b"{}" and src[i + 1:i + 2] == bytes([c]):
            i += 2  # an escaped brace: text
        elif c == 0x7B:  # '{'
            j = _field_end(src, i, end)
            if i > text:
                out.append((False, text, i))
            out.append((True, i, j))
            i = text = j
        else:
            i += 1
    if end > text:
        out.append((False, text, end))
    return out


def _field_end(src: bytes, i: int, end: int) -> int:
    """Past the ``}`` that closes the field opened at ``i``; brackets and quoted text
    inside the field are skipped."""
    depth = 0
    quote = 0
    while i < end:
        c = src[i]
        if quote:
            if c == quote:
                quote = 0
        elif c in b"'\"":
            quote = c
        elif c in b"{[(":
            depth += 1
        elif c in b"}])":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return end
