"""A ``git apply``-able diff of a port: source paths on the a/ side, ported paths on
the b/ side, renames as renames, symlinks as links.

Written on bytes: lines keep their own endings (CRLF stays CRLF) and bytes that are
not UTF-8 pass through, so applying the diff to a copy of the source reproduces the
ported tree byte for byte.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ..tree.result import DiffItem

CONTEXT = 3


def _quote(path: str) -> bytes:
    """Git's path quoting: C-style in double quotes when a byte needs it."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b >= 0x7F or b in (0x22, 0x5C) for b in raw):
        return raw
    out = bytearray(b'"')
    for b in raw:
        if b in (0x22, 0x5C):
            out += b"\\" + bytes([b])
        elif b == 0x0A:
            out += b"\\n"
        elif b == 0x09:
            out += b"\\t"
        elif b < 0x20 or b >= 0x7F:
            out += b"\\%03o" % b
        else:
            out.append(b)
    out += b'"'
    return bytes(out)


def _side(prefix: str, path: str) -> bytes:
    q = _quote(path)
    if q.startswith(b'"'):
        return b'"' + prefix.encode() + q[1:]
    return prefix.encode() + q


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _hunk_range(start: int, count: int) -> bytes:
    if count == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start + 1 if count else start, count)


def _emit(out: list[bytes], sign: bytes, line: bytes) -> None:
    out.append(sign + line)
    if not line.endswith(b"\n"):
        out.append(b"\n\\ No newline at end of file\n")


class _Aligned(difflib.SequenceMatcher):
    """difflib's hunk grouping over opcodes we already know."""

    def __init__(self, opcodes: list[tuple[str, int, int, int, int]]):
        self._known = opcodes

    def get_opcodes(self):
        return self._known


def _opcodes(a: list[bytes], b: list[bytes]):
    """Grouped opcodes: a line-for-line comparison when porting kept the line count
    (the usual case: rules never span lines), difflib's matcher otherwise."""
    if len(a) != len(b):
        return list(difflib.SequenceMatcher(None, a, b, autojunk=False)
                    .get_grouped_opcodes(CONTEXT))
    ops: list[tuple[str, int, int, int, int]] = []
    i = 0
    while i < len(a):
        same = a[i] == b[i]
        j = i + 1
        while j < len(a) and (a[j] == b[j]) == same:
            j += 1
        ops.append(("equal" if same else "replace", i, j, i, j))
        i = j
    if not ops:
        ops = [("equal", 0, 0, 0, 0)]
    return list(_Aligned(ops).get_grouped_opcodes(CONTEXT))


def _hunks(old: bytes, new: bytes) -> list[bytes]:
    a, b = _lines(old), _lines(new)
    out: list[bytes] = []
    for group in _opcodes(a, b):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(b"@@ -" + _hunk_range(i1, i2 - i1) + b" +" + _hunk_range(j1, j2 - j1) + b" @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in a[a1:a2]:
                    _emit(out, b" ", line)
                continue
            for line in a[a1:a2]:
                _emit(out, b"-", line)
            for line in b[b1:b2]:
                _emit(out, b"+", line)
    return out


def _similarity(old: bytes, new: bytes) -> int:
    a, b = _lines(old), _lines(new)
    if not a and not b:
        return 100
    same = sum(1 for x, y in zip(a, b) if x == y) if len(a) == len(b) else \
        int(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() * max(len(a), len(b)))
    return max(1, min(100, 100 * same // max(len(a), len(b), 1)))


def item_diff(item: DiffItem) -> bytes:
    """One file's part of the diff."""
    a_path, b_path = _side("a/", item.old_rel), _side("b/", item.new_rel)
    out = [b"diff --git " + a_path + b" " + b_path + b"\n"]
    if item.symlink and item.old_rel != item.new_rel:
        # A link that moves and changes target: delete and create, as git shows it.
        out = [b"diff --git " + a_path + b" " + _side("b/", item.old_rel) + b"\n",
               b"deleted file mode 120000\n", b"--- " + a_path + b"\n", b"+++ /dev/null\n",
               b"@@ -1 +0,0 @@\n"]
        _emit(out, b"-", item.old)
        out += [b"diff --git " + _side("a/", item.new_rel) + b" " + b_path + b"\n",
                b"new file mode 120000\n", b"--- /dev/null\n", b"+++ " + b_path + b"\n",
                b"@@ -0,0 +1 @@\n"]
        _emit(out, b"+", item.new)
        return b"".join(out)
    if item.old_rel != item.new_rel:
        out.append(b"similarity index %d%%\n" % _similarity(item.old, item.new))
        out.append(b"rename from " + _quote(item.old_rel) + b"\n")
        out.append(b"rename to " + _quote(item.new_rel) + b"\n")
    if item.old != item.new:
        out.append(b"--- " + a_path + b"\n")
        out.append(b"+++ " + b_path + b"\n")
        if item.symlink:
            out.append(b"@@ -1 +1 @@\n")
            _emit(out, b"-", item.old)
            _emit(out, b"+", item.new)
        else:
            out.extend(_hunks(item.old, item.new))
    return b"".join(out)


def tree_diff(items: Iterable[DiffItem]) -> bytes:
    """The whole diff, in source path order (stable across runs)."""
    return b"".join(item_diff(i) for i in sorted(items, key=lambda i: i.old_rel))
