"""Python source as the porter needs to see it before parsing: where the strings and
comments are, and which physical lines make up the statement around an offset.

A regular-expression scan, not a parse. The porter builds a syntax tree only of the
statements that hold something to port (a tree of a whole 1,000-line file costs
~10 ms, over the budget of a port); this scan finds those statements, at C speed,
so that each can be parsed on its own.
"""

from __future__ import annotations

import codecs
import re
from bisect import bisect_right
from dataclasses import dataclass

# A comment, or a string literal without its prefix (f-strings whole, braces and all).
# Every branch starts with '#' or a quote, so the regex engine skips other text at C
# speed; the loops are unrolled ("normal* (special normal*)*") so that a long
# docstring is one pass, not one alternation per character.
# The four quoted forms, each up to its closing quotes (shared with ``literals``).
QUOTED = (
    (rb"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*", rb"'''"),
    (rb'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*', rb'"""'),
    (rb"'[^'\\\r\n]*(?:\\(?:\r\n|.)[^'\\\r\n]*)*", rb"'"),
    (rb'"[^"\\\r\n]*(?:\\(?:\r\n|.)[^"\\\r\n]*)*', rb'"'),
)
# An unclosed string ends at the end of the file, or of its line for one quote.
_TOKEN = re.compile(b"|".join(
    [rb"\#[^\r\n]*"]
    + [body + rb"(?:" + close + (rb"|\Z)" if len(close) == 3 else rb"|(?=[\r\n])|\Z)")
       for body, close in QUOTED]), re.S)
_PREFIX = frozenset(b"rRbBuUfFtT")
_IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

COMMENT, STRING, FSTRING = 0, 1, 2
_BRACKETS = ((b"(", 1), (b"[", 1), (b"{", 1), (b")", -1), (b"]", -1), (b"}", -1))
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def source_encoding(data: bytes) -> str:
    """The encoding Python reads the file in (PEP 263): a BOM, a coding cookie on one
    of the first two lines, else UTF-8. A cookie naming an encoding CPython cannot read
    source in (unknown; not a text encoding, as rot13; not ASCII-compatible, as
    punycode, utf-16 or EBCDIC) counts as UTF-8: the file does not run as it is (a
    sign for ``suspect``), and its statements are ported as UTF-8 text."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    cookie = coding_cookie(data)
    return readable_encoding(cookie[0]) or "utf-8" if cookie is not None else "utf-8"


def coding_cookie(data: bytes) -> tuple[str, int] | None:
    """The encoding a coding cookie names, as written, and the offset of its line; or
    None."""
    at = 0
    for line in data.split(b"\n", 2)[:2]:
        m = _CODING.match(line)
        if m:
            return m.group(1).decode("ascii", "replace"), at
        if line.strip() and not line.strip().startswith(b"#"):
            break
        at += len(line) + 1
    return None


_ASCII_PROBE = b"# x = ('a', \"b\")\n"


def readable_encoding(name: str) -> str | None:
    """The codec's name when CPython reads source in it: a text encoding in which ASCII
    is ASCII (decoding one with the codec's own rules can fail, as punycode's does)."""
    try:
        info = codecs.lookup(name)
        if not getattr(info, "_is_text_encoding", True):
            return None
        return info.name if _ASCII_PROBE.decode(info.name) == _ASCII_PROBE.decode("ascii") else None
    except (LookupError, UnicodeError):
        return None


@dataclass
class Lexed:
    """The strings and comments of one file, in order, and the file with them blanked
    out (for counting brackets in code)."""

    data: bytes
    starts: list[int]
    ends: list[int]
    kinds: list[int]
    code: bytes  # data with strings and comments replaced by spaces
    _at: tuple[int, int] = (0, 0)  # the last (offset, depth) computed

    def span_at(self, off: int) -> int:
        """Index of the string or comment holding ``off``, or -1 (code)."""
        i = bisect_right(self.starts, off) - 1
        if i >= 0 and off < self.ends[i]:
            return i
        return -1

    def in_code(self, off: int) -> bool:
        return self.span_at(off) < 0

    def depth_at(self, off: int) -> int:
        """Open brackets before ``off`` (strings and comments do not count). Counted
        from the last offset asked for: the porter asks about nearby offsets."""
        last, depth = self._at
        lo, hi, sign = (last, off, 1) if off >= last else (off, last, -1)
        code = self.code
        depth += sign * sum(n * code.count(b, lo, hi) for b, n in _BRACKETS)
        self._at = (off, depth)
        return depth

    def line_start(self, off: int) -> int:
        return self.data.rfind(b"\n", 0, off) + 1

    def _continued(self, nl: int) -> bool:
        """The line ending at the newline ``nl`` goes on: a backslash before it, in
        code, or an open bracket."""
        data = self.data
        back = nl - 1 if nl > 0 and data[nl - 1:nl] == b"\r" else nl
        if back > 0 and data[back - 1:back] == b"\\" and self.in_code(back - 1):
            return True
        return self.depth_at(nl) > 0

    def statement(self, off: int) -> tuple[int, int]:
        """The physical lines of the logical line holding ``off``: (start, end), the
        end past its newline. Lines join inside brackets, after a backslash, and
        across a string that spans lines."""
        data = self.data
        start = self.line_start(off)
        while start > 0:
            i = self.span_at(start)
            if i >= 0 and self.starts[i] < start:  # inside a string over several lines
                start = self.line_start(self.starts[i])
            elif self._continued(start - 1):
                start = self.line_start(start - 1)
            else:
                break
        pos = off
        while True:
            nl = data.find(b"\n", pos)
            if nl < 0:
                return start, len(data)
            i = self.span_at(nl)
            if i >= 0:  # a newline inside a string
                pos = self.ends[i]
            elif self._continued(nl):
                pos = nl + 1
            else:
                return start, nl + 1


def lex(data: bytes) -> Lexed:
    """Find every comment and string literal of ``data``."""
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[int] = []
    pieces: list[bytes] = []
    pos = 0
    for m in _TOKEN.finditer(data):
        s, e = m.span()
        kind = COMMENT if data[s] == 0x23 else STRING  # '#'
        if kind == STRING and s and data[s - 1] in _PREFIX:
            p = s - 1
            if p and data[p - 1] in _PREFIX:
                p -= 1
            if p == 0 or data[p - 1] not in _IDENT:  # a prefix, not the end of a name
                if b"f" in data[p:s] or b"F" in data[p:s]:
                    kind = FSTRING
                s = p
        starts.append(s)
        ends.append(e)
        kinds.append(kind)
        pieces.append(data[pos:s])
        pieces.append(b" " * (e - s))
        pos = e
    pieces.append(data[pos:])
    return Lexed(data, starts, ends, kinds, b"".join(pieces))
