"""Porting hazards: code that ports by name but may not behave the same on MUSA.

Inline PTX (MP2001), 32-lane warp assumptions (MP2002) and CUDA version or arch
comparisons that a rename silently changes (MP2003).
"""

from __future__ import annotations

import re

from ..port.arch_values import MUSA_VALUES

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
_BLANK = frozenset(b" \t")
_DEFINE_TAIL = re.compile(rb"#[ \t]*define[ \t]*$")
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


def warp_context(data: bytes, bol: int, end: int) -> int | None:
    """Where ``name_with_warp =`` or ``#define NAME_WITH_WARP`` starts, when the text
    of its line before ``end`` (a 32) is one of them. Read backwards from the 32: a
    regex searched forwards from the line start retries its leading name at every
    offset, which was a third of the hazard scan."""
    k = end
    while k > bol and data[k - 1] in _BLANK:
        k -= 1
    assign = k > bol and data[k - 1] == 0x3D  # "="
    if assign:
        k -= 1
        while k > bol and data[k - 1] in _BLANK:
            k -= 1
    s = k
    while s > bol and data[s - 1] in IDENT:
        s -= 1
    name = data[s:k]
    if assign:
        return s if b"warp" in name or b"Warp" in name or b"WARP" in name else None
    if b"WARP" not in name or s == bol or data[s - 1] not in _BLANK:
        return None
    d = _DEFINE_TAIL.search(data, bol, s)
    return d.start() if d is not None else None


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
    # A warp-size 32 is told by the name it is assigned to, which holds "warp".
    for m in _THIRTY_TWO.finditer(data) if b"arp" in data or b"ARP" in data else ():
        if m.start() and data[m.start() - 1] in IDENT_OR_DOT:
            continue
        bol = data.rfind(b"\n", 0, m.start()) + 1
        at = warp_context(data, bol, m.start())
        if at is not None:
            yield "MP2002", at, data[at:m.end()]
    for m in _VERSION_MARKS.finditer(data):
        s, e = _ident_around(data, m.start())
        if data[s:e] not in _VERSION_NAMES:
            continue
        after = _NAME_THEN_NUMBER.match(data, e)
        if after is not None:
            if not _musa_arch(data[s:e], data[after.end() - 3:after.end()]):
                yield "MP2003", s, data[s:after.end()]
            continue
        before = _NUMBER_THEN_NAME.search(data, max(0, s - 40), s)
        if before is not None and not _musa_arch(data[s:e], data[before.start():before.start() + 3]):
            yield "MP2003", before.start(), data[before.start():e]


def _musa_arch(name: bytes, number: bytes) -> bool:
    """``__MUSA_ARCH__`` compared with a MUSA arch value (210, 220, 310): what the port
    wrote for a CUDA threshold (reported as MP3104), not a hazard."""
    return name == b"__MUSA_ARCH__" and number.isdigit() and int(number) in MUSA_VALUES


HAZARD_MESSAGES = {
    "MP2001": "inline assembly '{}' is PTX, which does not run on MUSA",
    "MP2002": "'{}' assumes 32-lane warps; MUSA warps are 128 lanes on mp_21/mp_22",
    "MP2003": "'{}' compares a CUDA version or arch number; MUSA's numbers differ",
}

