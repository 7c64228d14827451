"""Signs that a Python file may not parse as Python 3, read off the lexer's scan.

Parsing a whole file costs ~7 ms per 1,000 lines, more than porting it, so only a
file that shows one of these signs is parsed whole (``source._syntax_error``), and
only that parse decides the finding: a sign is a reason to look, never a finding.
The signs cover what makes a real file fail: Python 2 (``print x``, ``exec code``,
backticks, ``<>``, ``except E, e``, ``raise E, msg``, ``0777``, ``ur''``),
a string never closed, tabs and spaces mixed in indentation, brackets that do not
close, bytes that are not in the file's encoding, NUL bytes, a line so long that its
expression may nest deeper than CPython compiles.
"""

from __future__ import annotations

import re

from ..lines import Lines
from .lexer import COMMENT, Lexed, coding_cookie, readable_encoding

# Each starts with a literal, so the scan jumps from one candidate to the next.
_STATEMENTS = [re.compile(p) for p in (  # Python 2 statements, checked to start a line
    rb"print[ \t]+[\w\"'>`\[{-]",  # print x, print "x", print >>f
    rb"exec[ \t]+[\w\"']",  # exec code
    rb"except[ \t]+[\w.]+[ \t]*,",  # except E, e:
    rb"raise[ \t]+[\w.]+[ \t]*,",  # raise E, "message"
)]
_OCTAL = re.compile(rb"0[0-9]+[lL]?(?![\w.])")  # 0777, checked to start a number
_LONG_LINE = re.compile(rb"\n[^\n]{4096}")  # a 5,000-term sum: too deep for CPython
_TAB_INDENT = re.compile(rb"\n\t")
_SPACE_INDENT = re.compile(rb"\n +[^\s#]")


def may_not_parse(lx: Lexed, encoding: str) -> bool:
    """One of the signs above, in code (a sign inside a string or comment is none)."""
    data = lx.data
    lined = b"\n" + data  # every line, the first too, after a newline
    if b"\0" in data or lx.depth_at(len(data)) != 0 or _LONG_LINE.search(lined):
        return True
    if _TAB_INDENT.search(lined) and _SPACE_INDENT.search(lined):
        return True
    for word in _STATEMENTS:
        lines = Lines(data)
        for m in word.finditer(data):
            bol = lines.start(m.start())
            if not data[bol:m.start()].strip(b" \t") and lx.in_code(m.start()):
                return True
    for op in (b"`", b"<>"):
        at = data.find(op)
        while at >= 0:
            if lx.in_code(at):
                return True
            at = data.find(op, at + 1)
    for m in _OCTAL.finditer(data):
        if (m.start() == 0 or data[m.start() - 1] not in _WORD_OR_DOT) and lx.in_code(m.start()):
            return True
    if _unclosed_string(lx):
        return True
    cookie = coding_cookie(data)
    if cookie is not None and readable_encoding(cookie[0]) is None:
        return True  # CPython refuses the encoding the file declares
    try:
        data.decode(encoding)
    except (UnicodeError, LookupError):
        return True
    return False


_WORD_OR_DOT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")


def _unclosed_string(lx: Lexed) -> bool:
    """A string literal the lexer ended at a line end or the end of the file (or one
    with Python 2's ``ur`` prefix)."""
    data = lx.data
    for s, e, k in zip(lx.starts, lx.ends, lx.kinds):
        if k == COMMENT:
            continue
        q = s
        while data[q] not in b"'\"":
            q += 1  # past the prefix
        if q - s == 2 and data[s:q].lower() == b"ur":
            return True  # Python 2's ur'...'
        quote = data[q:q + 3] if data[q:q + 3] in (b"'''", b'"""') else data[q:q + 1]
        end = e - len(quote)
        if end < q + len(quote) or data[end:e] != quote:
            return True
        backslashes = 0
        while data[end - 1 - backslashes] == 0x5C:  # '\'
            backslashes += 1
        if backslashes % 2:
            return True
    return False
