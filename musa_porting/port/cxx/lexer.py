"""A small C/C++/CUDA lexer: just enough to tell code from comments, strings and
``#include`` targets, and to find the regions users protect with markers.

It works on bytes with single regular expressions so that a 20 MB tree costs a few
C-level scans, not a Python loop per token. It only runs the scans a caller asks
for: the default porting mode (rules everywhere) needs includes and markers only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

from ..lines import Lines

# Comments and literals, leftmost first. Every alternative starts with a literal
# byte (/ " ') outside its group, so the regex engine skips to candidates with its
# fast first-byte scan; the span of a token is the whole match.
# A quote right after a letter or digit is not a char literal: that keeps C++14 digit
# separators (1'000'000) from opening one; encoding prefixes (u8, L) simply stay
# outside the span. A raw string is recognised by the R before its quote.
_TOKEN_RE = re.compile(
    rb"""
      /(?P<line_comment>/[^\n\\]*(?:\\(?:\r\n|.)[^\n\\]*)*)
    | /(?P<block_comment>\*[^*]*\*+(?:[^/*][^*]*\*+)*/|\*.*)
    | "(?<=R")(?P<raw_string>(?P<delim>[^ ()\\\t\r\n"]{0,16})\(.*?(?:\)(?P=delim)"|\Z))
    | "(?P<string>[^"\\\n]*(?:\\.[^"\\\n]*)*"?)
    | '(?<![A-Za-z0-9_]')(?P<char>(?:\\.|[^'\\\n]){1,8}')
    """,
    re.DOTALL | re.VERBOSE,
)

# '#' first, so the scan jumps from '#' to '#'; the line start is checked in Python.
_INCLUDE_RE = re.compile(
    rb"#[ \t]*(?:include|include_next|import)[ \t]*(?:(<)([^>\r\n]*)>|(\")([^\"\r\n]*)\")"
)
_LINE_START_OK = re.compile(rb"(?:\xef\xbb\xbf)?[ \t]*")

# Marker names users already put in their sources for musify, and our own.
_MARKER_RE = re.compile(
    rb"MUSIFY_EXCL_(?:LINE|START|STOP)|musa-port:[ \t]*(?:off|on)\b"
)


class Include(NamedTuple):
    """An ``#include`` directive: the span of its target, between the delimiters. (A
    tuple: every file makes one per directive, twice, and a frozen dataclass cost more
    to build than the scan that finds it.)"""

    start: int
    end: int
    target: str
    angled: bool
    line: int


def comment_and_string_spans(data: bytes, kinds: frozenset[str]) -> list[tuple[int, int]]:
    """Spans of the requested kinds ('comments', 'strings') in source order.

    Strings include char literals and raw strings; the delimiters are part of the span.
    """
    return [(s, e) for s, e, kind in typed_spans(data) if kind in kinds]


def typed_spans(data: bytes) -> list[tuple[int, int, str]]:
    """Every comment and string literal as (start, end, 'comments' or 'strings'). The
    text of an ``#error`` or ``#warning`` line is a message too: it counts as a string."""
    kinds = _KIND_OF_GROUP
    spans = [(*m.span(), kinds[m.lastgroup]) for m in _TOKEN_RE.finditer(data)]
    if b"#" in data and _DIRECTIVE_MESSAGE.search(data) is not None:
        spans = _with_directive_messages(data, spans)
    return spans


_KIND_OF_GROUP = {"line_comment": "comments", "block_comment": "comments", "raw_string": "strings",
                  "delim": "strings", "string": "strings", "char": "strings"}
# '#' first, so the scan jumps from '#' to '#'; the line start is checked in Python.
_DIRECTIVE_MESSAGE = re.compile(rb"#[ \t]*(?:error|warning)\b[ \t]*([^\r\n]*)")
_LINE_START = re.compile(rb"[ \t]*")


def _with_directive_messages(data: bytes, spans: list[tuple[int, int, str]]
                             ) -> list[tuple[int, int, str]]:
    lines = Lines(data)
    messages = [(m.start(1), m.end(1), "strings") for m in _DIRECTIVE_MESSAGE.finditer(data)
                if m.end(1) > m.start(1)
                and _LINE_START.fullmatch(data, lines.start(m.start()), m.start())]
    if not messages:
        return spans
    starts = [s for s, _, _ in messages]
    kept = []
    for s, e, kind in spans:
        i = bisect_right(starts, s) - 1
        if i >= 0 and s < messages[i][1]:
            continue  # a quote or comment inside the message: the message covers it
        kept.append((s, e, kind))
    return sorted(kept + messages)


def includes(data: bytes) -> list[Include]:
    """Every ``#include "x"`` / ``#include <x>`` directive (also include_next, import)."""
    if b"#" not in data:
        return []
    out = []
    line = 1
    pos = 0
    lines = Lines(data)
    line_start_ok = _LINE_START_OK.fullmatch
    count = data.count
    for m in _INCLUDE_RE.finditer(data):
        at = m.start()
        if line_start_ok(data, lines.start(at), at) is None:
            continue  # not at the start of a line: inside a comment or a string
        angled = m.group(1) is not None
        group = 2 if angled else 4
        line += count(b"\n", pos, at)
        pos = at
        s, e = m.span(group)
        out.append(Include(s, e, m.group(group).decode("utf-8", "surrogateescape"), angled, line))
    return out


def marker_spans(data: bytes) -> list[tuple[int, int]]:
    """Regions protected by markers, whole lines each.

    ``MUSIFY_EXCL_LINE`` protects its own line; ``MUSIFY_EXCL_START`` /
    ``musa-port: off`` protect from their line through the line of the matching
    ``MUSIFY_EXCL_STOP`` / ``musa-port: on`` (or the end of the file, like musify).
    """
    if b"MUSIFY_EXCL" not in data and b"musa-port:" not in data:
        return []
    spans = []
    open_at: int | None = None
    lines = Lines(data)
    for m in _MARKER_RE.finditer(data):
        word = m.group()
        line_start, line_end = lines.span(m.start())
        if word == b"MUSIFY_EXCL_LINE":
            spans.append((line_start, line_end))
        elif word.startswith(b"MUSIFY_EXCL_START") or word.endswith(b"off"):
            if open_at is None:
                open_at = line_start
        elif open_at is not None:
            spans.append((open_at, line_end))
            open_at = None
    if open_at is not None:
        spans.append((open_at, len(data)))
    return spans


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sort and merge overlapping spans."""
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e)
        else:
            merged.append((s, e))
    return merged


def subtract_spans(
    spans: list[tuple[int, int]], holes: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """``spans`` minus ``holes`` (both merged and sorted). One pass over both: a 50 MB
    file has hundreds of thousands of each."""
    out = []
    i, n = 0, len(holes)
    for s, e in spans:
        while i < n and holes[i][1] <= s:
            i += 1  # holes wholly before this span (and, spans being sorted, every later one)
        cur = s
        j = i
        while j < n and holes[j][0] < e:
            hs, he = holes[j]
            if hs > cur:
                out.append((cur, hs))
            cur = max(cur, he)
            j += 1
        if cur < e:
            out.append((cur, e))
    return out


class Lexed:
    """One file's lexing, computed on first use and kept: the includes, the marker
    regions and the comment and string spans, shared by every step that ports or
    scans the file (each is a full pass over the bytes)."""

    __slots__ = ("data", "_includes", "_markers", "_typed")

    def __init__(self, data: bytes):
        self.data = data
        self._includes: list[Include] | None = None
        self._markers: list[tuple[int, int]] | None = None
        self._typed: list[tuple[int, int, str]] | None = None

    @property
    def includes(self) -> list[Include]:
        if self._includes is None:
            self._includes = includes(self.data)
        return self._includes

    @property
    def markers(self) -> list[tuple[int, int]]:
        if self._markers is None:
            self._markers = marker_spans(self.data)
        return self._markers

    @property
    def typed(self) -> list[tuple[int, int, str]]:
        if self._typed is None:
            self._typed = typed_spans(self.data)
        return self._typed

