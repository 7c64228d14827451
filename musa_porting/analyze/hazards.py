"""Porting hazards: code that ports by name but may not behave the same on MUSA.

Inline PTX (MP2001), 32-lane warp assumptions (MP2002) and CUDA version or arch
comparisons that a rename silently changes (MP2003).
"""

from __future__ import annotations

import re

IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
IDENT_OR_DOT = IDENT | {ord(".")}

# Hazards. Each search starts from a literal ("asm", "0x", "&", "32", "_VERSION",
# "_ARCH__") that the regex engine finds with its fast literal scan; the context
# around a hit is checked with anchored matches. (A regex that begins with a
# look-behind or a common byte is tried at every offset: 10x slower on 20 MB.)
_ASM_RE = re.compile(rb"asm(__)?\s*(?:volatile\s*|__volatile__\s*)?\(")
_MASK_RE = re.compile(rb"0[xX][fF]{8}(?![0-9A-Fa-f])[uU]?[lL]{0,2}(?![A-Za-z0-9_])")
_AND31_RE = re.compile(rb"&\s*(?:31|0[xX]1[fF])(?![A-Za-z0-9_])")
_THIRTY_TWO = re.compile(rb"32(?![A-Za-z0-9_.])")
_WARP_ASSIGN_RE = re.compile(rb"(?:[A-Za-z0-9_]*(?:[wW]arp|WARP)[A-Za-z0-9_]*[ \t]*=|"
                             rb"#[ \t]*define[ \t]+[A-Za-z0-9_]*WARP[A-Za-z0-9_]*)[ \t]*$")
_VERSION_NAMES = (b"MUSA_VERSION", b"MUSART_VERSION", b"__MUSA_ARCH__", b"CUDA_VERSION",
                  b"CUDART_VERSION", b"__CUDA_ARCH__")
_VERSION_MARKS = re.compile(rb"_VERSION|_ARCH__")
_NAME_THEN_NUMBER = re.compile(rb"\s*(?:[<>]=?|==|!=)\s*\d+")
_NUMBER_THEN_NAME = re.compile(rb"(?<![A-Za-z0-9_.])\d+\s*(?:[<>]=?|==|!=)\s*$")


def _ident_around(data: bytes, pos: int) -> tuple[int, int]:
    """The identifier that contains ``pos``."""
    s = pos
    while s > 0 and data[s - 1] in IDENT:
        s -= 1
    e = pos
    n = len(data)
    while e < n and data[e] in IDENT:
        e += 1
    return s, e


def hazards(data: bytes):
    """(check id, offset, text) of each hazard."""
    if b"asm" in data:
        for m in _ASM_RE.finditer(data):
            start = m.start() - 2 if m.group(1) else m.start()
            if m.group(1) and data[start:m.start()] != b"__":
                continue
            if start > 0 and data[start - 1] in IDENT:
                continue
            yield "MP2001", start, data[start:m.end()]
    if b"0x" in data or b"0X" in data:
        for m in _MASK_RE.finditer(data):
            if m.start() == 0 or data[m.start() - 1] not in IDENT:
                yield "MP2002", m.start(), m.group()
    if b"&" in data:
        for m in _AND31_RE.finditer(data):
            yield "MP2002", m.start(), m.group()
    for m in _THIRTY_TWO.finditer(data):
        if m.start() and data[m.start() - 1] in IDENT_OR_DOT:
            continue
        bol = data.rfind(b"\n", 0, m.start()) + 1
        ctx = _WARP_ASSIGN_RE.search(data, bol, m.start())
        if ctx is not None:
            yield "MP2002", ctx.start(), data[ctx.start():m.end()]
    for m in _VERSION_MARKS.finditer(data):
        s, e = _ident_around(data, m.start())
        if data[s:e] not in _VERSION_NAMES:
            continue
        after = _NAME_THEN_NUMBER.match(data, e)
        if after is not None:
            yield "MP2003", s, data[s:after.end()]
            continue
        before = _NUMBER_THEN_NAME.search(data, max(0, s - 40), s)
        if before is not None:
            yield "MP2003", before.start(), data[before.start():e]


HAZARD_MESSAGES = {
    "MP2001": "inline assembly '{}' is PTX, which does not run on MUSA",
    "MP2002": "'{}' assumes 32-lane warps; MUSA warps are 128 lanes on mp_21/mp_22",
    "MP2003": "'{}' compares a CUDA version or arch number; MUSA's numbers differ",
}

