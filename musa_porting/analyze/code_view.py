"""A file's code with comments and string literals blanked, and the structure the
hazard checks need from it: device functions with their bodies and template
parameters, and the arguments of a call.

Blanking keeps every offset and newline, so what is found in the view is found at the
same place in the file. It costs one lexer pass, paid only by files that hold what a
structural check looks for (``__shared__``, ``double`` in a ``__device__`` file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..port.cxx import lexer


def blank(data: bytes, spans: Iterable[tuple[int, int]] | None = None) -> bytes:
    """``data`` with comments and string literals turned into spaces (newlines kept).
    ``spans`` are those, when the caller has them (else the lexer finds them)."""
    if spans is None:
        spans = [(s, e) for s, e, _ in lexer.typed_spans(data)]
    out = bytearray(data)
    for s, e in spans:
        chunk = data[s:e]
        out[s:e] = _NOT_NEWLINE.sub(b" ", chunk) if b"\n" in chunk else b" " * (e - s)
    return bytes(out)


_NOT_NEWLINE = re.compile(rb"[^\n]")
_OPEN = {ord("("): ord(")"), ord("{"): ord("}"), ord("["): ord("]")}
_CLOSE = {v: k for k, v in _OPEN.items()}
_BRACKET = re.compile(rb"[(){}\[\]]")


def match(code: bytes, pos: int) -> int:
    """The offset after the bracket that closes the one at ``pos`` (``len`` if none)."""
    want = [_OPEN[code[pos]]]
    for m in _BRACKET.finditer(code, pos + 1):
        c = code[m.start()]
        if c in _OPEN:
            want.append(_OPEN[c])
        elif c != want[-1]:
            return len(code)
        else:
            want.pop()
            if not want:
                return m.end()
    return len(code)


def split_args(text: bytes) -> list[bytes]:
    """Top-level comma-separated pieces of an argument list (brackets and <> nest),
    without the blanks and line continuations around them (a macro's body)."""
    out, depth, angle, start = [], 0, 0, 0
    for i, c in enumerate(text):
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == 0x3C and depth == 0 and i + 1 < len(text) and text[i + 1] != 0x3C and \
                (i == 0 or text[i - 1] not in b"< "):
            angle += 1
        elif c == 0x3E and depth == 0 and angle and (i + 1 == len(text) or text[i + 1] != 0x3E):
            angle -= 1
        elif c == 0x2C and depth == 0 and angle == 0:
            out.append(text[start:i].strip(_AROUND))
            start = i + 1
    out.append(text[start:].strip(_AROUND))
    return out


_AROUND = b" \t\r\n\\"


def angle_args(code: bytes, pos: int) -> tuple[list[bytes], int] | None:
    """The template arguments of ``<`` at ``pos`` and the offset after its ``>``."""
    depth, i, n = 0, pos, min(len(code), pos + 2000)
    while i < n:
        c = code[i]
        if c == 0x3C:
            depth += 1
        elif c == 0x3E:
            depth -= 1
            if depth == 0:
                return split_args(code[pos + 1:i]), i + 1
        elif c in b"({[":
            i = match(code, i) - 1
        elif c in b";{}":
            return None
        i += 1
    return None


_FUNC_MARK = re.compile(rb"__global__|__device__")
_KERNEL_MARK = re.compile(rb"__global__")
_WRAPPERS = frozenset((b"__launch_bounds__", b"__cluster_dims__", b"__align__", b"alignas",
                       b"__attribute__", b"__declspec", b"__maxnreg__"))
_IDENT_BEFORE = re.compile(rb"([A-Za-z_]\w*)\s*$")
_SPECIFIERS = re.compile(rb"(?:\s|\b(?:static|inline|extern|__forceinline__|__noinline__|__host__|"
                         rb"constexpr|__inline__)\b)*$")


@dataclass(frozen=True)
class Function:
    """A ``__global__`` or ``__device__`` function with a body."""

    kind: str  # "global" or "device"
    name: str
    start: int  # the offset of its __global__/__device__
    params: tuple[int, int]  # inside the parentheses
    body: tuple[int, int]  # from its { to after its }
    template: tuple[int, int] | None  # inside template <...>, when it is a template


def _template_before(code: bytes, pos: int) -> tuple[int, int] | None:
    """``template <...>`` right before ``pos`` (specifiers between allowed)."""
    m = _SPECIFIERS.search(code, max(0, pos - 200), pos)
    end = m.start() if m else pos
    if end == 0 or code[end - 1] != 0x3E:
        return None
    depth, i = 0, end - 1
    while i >= max(0, end - 3000):
        c = code[i]
        if c == 0x3E:
            depth += 1
        elif c == 0x3C:
            depth -= 1
            if depth == 0:
                head = code[max(0, i - 40):i].rstrip()
                return (i + 1, end - 1) if head.endswith(b"template") else None
        elif c in b";{}":
            return None
        i -= 1
    return None


def functions(code: bytes, kernels_only: bool = False) -> list[Function]:
    """Every device function with a body (or every kernel), in file order (one per
    body)."""
    out: list[Function] = []
    seen: set[int] = set()
    for m in (_KERNEL_MARK if kernels_only else _FUNC_MARK).finditer(code):
        i, n = m.end(), len(code)
        name_end = None
        while i < n:
            c = code[i]
            if c in b";={}":
                break
            if c == 0x28:  # "("
                ident = _IDENT_BEFORE.search(code, max(m.end(), i - 120), i)
                if ident is not None and ident.group(1) in _WRAPPERS:
                    i = match(code, i)
                    continue
                name_end = i
                break
            i += 1
        if name_end is None:
            continue
        close = match(code, name_end)
        j = close
        while j < n and code[j] not in b"{;":
            if code[j] == 0x28:
                j = match(code, j)
                continue
            j += 1
        if j >= n or code[j] != 0x7B or j in seen:
            continue
        seen.add(j)
        ident = _IDENT_BEFORE.search(code, max(m.end(), name_end - 120), name_end)
        name = ident.group(1).decode() if ident else ""
        kind = "global" if code[m.start() + 2] == 0x67 else "device"
        out.append(Function(kind, name, m.start(), (name_end + 1, close - 1), (j, match(code, j)),
                            _template_before(code, m.start())))
    return out
