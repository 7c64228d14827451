"""Warp-size hazards: code that assumes 32 lanes per warp (MP2002) and thread blocks
that do not fill 128-lane warps (MP2004).

Patterns from public CUDA code: reductions in PyTorch extensions (mmcv's
``WARP_SIZE 32`` and ``FULL_MASK 0xffffffff``), lane and warp ids in attention and
GEMM kernels (``lane = threadIdx.x & 31``, ``warp = tid >> 5``), ``tiled_partition<32>``
in cooperative-groups code. Arithmetic on 32 counts only where its statement speaks of
lanes, warps or thread ids: ``len & 31`` in a hash is not a warp.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..port.lines import Lines
from .arches import wide_names
from .code_view import angle_args, match, split_args
from .scan import Hazard, Scan

_WARPISH = re.compile(rb"(?i:lane|warp|thread_?i(?:dx?|ndex)|blockdim)|(?<![A-Za-z])[lgt]?tid(?![a-z])")
_MASK_CONTEXT = re.compile(rb"_sync\b|__activemask|__ballot|(?i:mask|lane|warp)")
_MASK = re.compile(rb"0[xX][fF]{8}(?![0-9A-Fa-f])[uU]?[lL]{0,2}(?![A-Za-z0-9_])")
_AND31 = re.compile(rb"&=?\s*(?:31|0[xX]1[fF])(?![\w.])")
_THIRTY_TWO = re.compile(rb"32(?![\w.])")
_SHIFT5 = re.compile(rb">>=?\s*5(?![\w.])")
_BLANK = frozenset(b" \t")
_BALLOT_STORE = re.compile(rb"(?:\bunsigned(?:\s+int)?|\buint32_t|\bint|\buint|\bunsigned\s+long)\s+"
                           rb"[A-Za-z_]\w*\s*=\s*$")
_BALLOT = re.compile(rb"__ballot(?:_sync)?\s*\(|__activemask\s*\(")
_SHFL = re.compile(rb"__shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(")
_TILE = re.compile(rb"(?:tiled_partition|thread_block_tile)\s*<")
SHIFT_KEYS = (b">>5", b">> 5", b">>=5", b">>= 5")
KEYS = (b"ffffffff", b"FFFFFFFF", b"31", b"0x1f", b"0x1F", *SHIFT_KEYS, b"32", b"__ballot",
        b"__activemask", b"__shfl", b"tiled_partition", b"thread_block_tile", b"<<<",
        b"__launch_bounds__", b"dim3")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
IDENT_OR_DOT = IDENT | {ord(".")}


class _Lanes:
    """"MUSA warps are 128 lanes on mp_22", worked out when a message needs it."""

    def __init__(self, scan: Scan):
        self.scan = scan

    def __format__(self, spec: str) -> str:
        return f"MUSA warps are 128 lanes on {wide_names(self.scan.target.arches)}"


def warp_constant(data: bytes, bol: int, end: int) -> int | None:
    """Where ``name_with_warp =`` (or ``{``) or ``#define NAME_WITH_WARP`` starts, when the
    text of its line before ``end`` (a 32) is one of them; names with "lane" count too.
    Read backwards from the 32: a regex searched forwards from the line start retries
    its leading name at every offset."""
    k = end
    while k > bol and data[k - 1] in _BLANK:
        k -= 1
    brace = k > bol and data[k - 1] == 0x7B  # kWarpSize{32}, kWarpSize = {32}
    if brace:
        k -= 1
        while k > bol and data[k - 1] in _BLANK:
            k -= 1
    assign = k > bol and data[k - 1] == 0x3D and (k - 1 == bol or data[k - 2] not in b"=!<>")
    if assign:
        k -= 1
        while k > bol and data[k - 1] in _BLANK:
            k -= 1
    s = k
    while s > bol and data[s - 1] in IDENT:
        s -= 1
    name = data[s:k].lower()
    if b"warp" not in name and b"lane" not in name:
        return None
    if assign or brace:
        return s
    if s == bol or data[s - 1] not in _BLANK:
        return None
    d = s  # "#define NAME": read back too (a search from the line's start costs the line)
    while d > bol and data[d - 1] in _BLANK:
        d -= 1
    if d - 6 < bol or data[d - 6:d] != b"define":
        return None
    d -= 6
    while d > bol and data[d - 1] in _BLANK:
        d -= 1
    return d - 1 if d > bol and data[d - 1] == 0x23 else None  # "#"


def _warpish(scan: Scan, pos: int) -> bool:
    s, e = scan.statement(pos)
    return _WARPISH.search(scan.out, s, e) is not None


def warp_size(scan: Scan) -> Iterator[Hazard]:
    """MP2002: 32-lane assumptions."""
    data = scan.out
    lanes = _Lanes(scan)
    for at in scan.at(b"ffffffff", b"FFFFFFFF"):
        m = _MASK.match(data, at - 2) if at >= 2 else None
        if m is None or m.start() and data[m.start() - 1] in IDENT:
            continue
        s, e = scan.statement(m.start())
        if _MASK_CONTEXT.search(data, s, e):
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' is a full 32-bit lane mask; {lanes}: take the "
                         "active lanes from __activemask()")
    for at in scan.at(b"31", b"0x1f", b"0x1F"):
        k = at
        while k > 0 and data[k - 1] in _BLANK:
            k -= 1
        if data[k - 1:k] == b"=":
            k -= 1
        if k < 1 or data[k - 1] != 0x26 or data[k - 2:k - 1] == b"&":  # "&", not "&&"
            continue
        m = _AND31.match(data, k - 1)
        if m is not None and m.end() > at and _warpish(scan, m.start()):
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' takes a lane id of a 32-lane warp; {lanes}")
    for at in scan.at(*SHIFT_KEYS):
        m = _SHIFT5.match(data, at)
        if m is not None and _warpish(scan, m.start()):
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' divides by a 32-lane warp; {lanes}")
    yield from _thirty_two(scan, lanes)
    lines = Lines(data)
    for at in scan.at(b"__ballot", b"__activemask"):
        m = _BALLOT.match(data, at)
        if m is None:
            continue
        # The declaration the ballot is stored in ends at the call: searched for in the
        # 1 KB before it, not from the line's start (8,000 ballots on a line took 6 min).
        d = _BALLOT_STORE.search(data, max(lines.start(m.start()), m.start() - 1024), m.start())
        if d is not None:
            text = data[d.start():m.start()].decode().strip()
            yield Hazard("MP2002", d.start(), d.start() + len(text),
                         f"'{text}' keeps a warp's ballot in 32 bits; {lanes}: a mask of 128 "
                         "lanes does not fit")
    if scan.has(b"__shfl"):
        yield from _shuffle_width(scan, lanes)
    for at in scan.at(b"tiled_partition", b"thread_block_tile"):
        m = _TILE.match(data, at)
        if m is None or at and data[at - 1] in IDENT:
            continue
        got = angle_args(data, m.end() - 1)
        if got and got[0] and _is_32(scan, got[0][0]):
            yield Hazard("MP2002", m.start(), got[1],
                         f"'{data[m.start():got[1]].decode()}' makes tiles of a 32-lane warp; "
                         f"{lanes}, so a tile of 32 is part of a warp, not all of it")


def _is_32(scan: Scan, expr: bytes) -> bool:
    return expr.strip() == b"32" or scan.value(expr) == 32


def _thirty_two(scan: Scan, lanes: _Lanes) -> Iterator[Hazard]:
    """A 32 as the warp size: a constant or macro named for warps or lanes, or lane and
    warp arithmetic (``% 32``, ``/ 32``, ``* 32``, ``< 32``). Most 32s of a file are
    ``int32_t``, ``[32]`` or ``, 32)``: the bytes around each rule those out first."""
    data = scan.out
    n = len(data)
    lines = Lines(data)
    for p in scan.at(b"32"):
        if p and data[p - 1] in IDENT_OR_DOT or p + 2 < n and data[p + 2] in IDENT_OR_DOT:
            continue
        k = p
        while k and data[k - 1] in _BLANK:
            k -= 1
        prev = data[k - 1] if k else 0
        after = data[p + 2:p + 5].lstrip(b" \t")[:1]
        before = data[k - 2] if k > 1 else 0
        if prev == 0x3D:  # "=": "%= 32" counts lanes, "= 32" or "== 32" is a constant
            start = k - 2 if before in b"%/*<" else None
        elif prev == 0x3C:  # "<": "lane < 32", not "x << 32" nor "Foo<32>", "Policy<32 /* */,"
            start = None if before == 0x3C or before in IDENT or after in (b">", b",") else k - 1
        elif prev in b"%*" or prev == 0x2F and before != 0x2F:
            start = k - 1
        else:
            start = p if after == b"*" else None
        if start is not None:
            if _warpish(scan, p):
                text = data[start:p + 2] if start < p else data[p:p + 2] + b" *"
                yield Hazard("MP2002", start, max(p + 2, start + len(text)),
                             f"'{text.decode()}' counts lanes of a 32-lane warp; {lanes}")
            continue
        if prev in IDENT or prev in b"={":
            at = warp_constant(data, lines.start(p), p)
            if at is not None:
                yield Hazard("MP2002", at, p + 2,
                             f"'{data[at:p + 2].decode()}' fixes the warp size at 32; {lanes}: use "
                             "warpSize, or a value per arch")


def _shuffle_width(scan: Scan, lanes: _Lanes) -> Iterator[Hazard]:
    data = scan.out
    for at in scan.at(b"__shfl"):
        m = _SHFL.match(data, at)
        if m is None or at and data[at - 1] in IDENT:
            continue
        close = match(data, m.end() - 1)
        args = split_args(data[m.end():close - 1])
        width_at = 3 if b"_sync" in m.group() else 2
        if len(args) > width_at and _is_32(scan, args[width_at]):
            pos = data.rfind(args[width_at], m.end(), close)
            yield Hazard("MP2002", pos, pos + len(args[width_at]),
                         f"a shuffle width of {args[width_at].decode()} is a 32-lane warp; {lanes}")


_BOUNDS = re.compile(rb"__launch_bounds__\s*\(")
_DIM3 = re.compile(rb"dim3\s+([A-Za-z_]\w*)\s*(?:\(|\{|=\s*dim3\s*[({])")


def block_size(scan: Scan) -> Iterator[Hazard]:
    """MP2004: a constant block size that is not a multiple of 128 threads."""
    data = scan.out
    wide = _Lanes(scan)
    if scan.launches:
        dims = _dim3_variables(scan) if scan.has(b"dim3") else {}
        for at, args in scan.launches:
            if len(args) < 2 or not args[1]:
                continue
            block = args[1]
            at = data.find(block, at)
            where, size = (at, at + len(block)), _size(scan, block)
            if size is None and block in dims:
                where, size = dims[block]
            if size and size > 1 and size % 128:  # one thread: a serial kernel, meant so
                yield Hazard("MP2004", where[0], where[1],
                             f"a block of {size} threads ('{data[where[0]:where[1]].decode()}') is "
                             f"not a multiple of 128: {wide}, so "
                             f"{128 - size % 128} lanes of a warp stay idle")
    for at in scan.at(b"__launch_bounds__"):
        m = _BOUNDS.match(data, at)
        if m is not None:
            close = match(data, m.end() - 1)
            args = split_args(data[m.end():close - 1])
            size = _size(scan, args[0]) if args and args[0] else None
            if size and size > 1 and size % 128:
                yield Hazard("MP2004", m.start(), close,
                             f"'{data[m.start():close].decode()}' bounds blocks to {size} threads, "
                             f"not a multiple of 128: {wide}")


def _size(scan: Scan, expr: bytes) -> int | None:
    """The thread count of a block expression: a constant, or ``dim3(x, y, z)``."""
    expr = expr.strip()
    if expr[:4] == b"dim3":
        rest = expr[4:].strip()
        if rest[:1] not in (b"(", b"{") or rest[-1:] not in (b")", b"}"):
            return None
        return _product(scan, split_args(rest[1:-1]))
    return scan.value(expr)


def _product(scan: Scan, dims: list[bytes]) -> int | None:
    total = 1
    for d in dims:
        v = scan.value(d)
        if v is None:
            return None
        total *= v
    return total


def _dim3_variables(scan: Scan) -> dict[bytes, tuple[tuple[int, int], int]]:
    """``dim3 block(64, 2)`` -> {b"block": ((span of the declaration), 128)}; a name
    declared twice with different sizes is left out."""
    out: dict[bytes, tuple[tuple[int, int], int]] = {}
    clash: set[bytes] = set()
    data = scan.out
    for at in scan.at(b"dim3"):
        m = _DIM3.match(data, at)
        if m is None or at and data[at - 1] in IDENT:
            continue
        open_at = m.end() - 1
        close = match(data, open_at)
        size = _product(scan, split_args(data[open_at + 1:close - 1]))
        name = m.group(1)
        if size is None or (name in out and out[name][1] != size):
            clash.add(name)
            continue
        out[name] = ((m.start(), close), size)
    return {k: v for k, v in out.items() if k not in clash}
