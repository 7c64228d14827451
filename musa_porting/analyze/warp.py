"""Warp-size hazards (MP2002): code that assumes 32 lanes per warp, sorted by whether
it breaks on the 128-lane warps of mp_21 and mp_22.

A 128-lane warp holds four groups of 32 lanes. Code that keeps every warp-level step
inside a group of 32 (shuffles with offsets below 32 or a width of 32, lane and warp
ids counted in 32s, ``tiled_partition<32>``) computes the same on it, and a full
32-bit mask passed to a ``*_sync`` call is left as it is in MUSA ports of real projects
that run: all that is one note per file. What breaks is a warning: a ballot kept in 32
bits (or counted by a 32-bit ``__popc``), a mask compared with the full 32-bit one,
``warpSize`` compared with 32, 32-lane ids in a file that also counts with ``warpSize``
(128 there: the two disagree), a shuffle broadcasting from a lane of the whole warp in
a file of 32-lane groups, and a per-warp array of 32 slots indexed by a lane of 128.

Patterns from public CUDA code: reductions in PyTorch extensions (mmcv's
``WARP_SIZE 32`` and ``FULL_MASK 0xffffffff``), lane and warp ids in attention and
GEMM kernels (``lane = threadIdx.x & 31``, ``warp = tid >> 5``), ballots in stream
compaction and top-k samplers, ``tiled_partition<32>`` in cooperative-groups code.
Arithmetic on 32 counts only where its statement speaks of lanes, warps or thread
ids: ``len & 31`` in a hash is not a warp.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..port.lines import Lines
from .arches import wide_names
from .code_view import angle_args, match, split_args
from .host_code import HIP
from .scan import Hazard, Scan

_WARPISH = re.compile(rb"(?i:lane|warp|thread_?i(?:dx?|ndex)|blockdim)|(?<![A-Za-z])[lgt]?tid(?![a-z])")
_MASK_CONTEXT = re.compile(rb"_sync\b|__activemask|__ballot|(?i:mask|lane|warp)")
_MASK = re.compile(rb"0[xX][fF]{8}(?![0-9A-Fa-f])[uU]?[lL]{0,2}(?![A-Za-z0-9_])")
_COMPARED = re.compile(rb"[=!]=\s*$")  # before a mask: "== 0xffffffff"
_COMPARES = re.compile(rb"\s*[=!]=(?!=)")  # after it: "0xffffffff == m"
_AND31 = re.compile(rb"&=?\s*(?:31|0[xX]1[fF])(?![\w.])")
_SHIFT5 = re.compile(rb">>=?\s*5(?![\w.])")
_BLANK = frozenset(b" \t")
_BALLOT_STORE = re.compile(rb"(?:\bunsigned(?:\s+int)?|\buint32_t|\bint|\buint|\bunsigned\s+long)\s+"
                           rb"[A-Za-z_]\w*\s*=\s*$")
_BALLOT = re.compile(rb"(?:__ballot(?:_sync)?|__match_(?:any|all)_sync)\s*\(|__activemask\s*\(")
_POPC = re.compile(rb"__(?:popc|ffs)\s*\(\s*$")  # before a ballot: __popc(__ballot_sync(...))
# A function returning a ballot: its return type (when 32 bits) and name, before its body.
_WRAPPER = re.compile(rb"(?:(?<![\w])(unsigned\s+int|unsigned|uint32_t|int)\s+|[\w>*&]\s+)"
                      rb"([A-Za-z_]\w*)\s*\((?:[^()]|\([^()]*\))*\)\s*(?:const\s*)?$")
_BALLOT_MACRO = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)\([^)\n]*\)[^\n]*?"
                           rb"(?:__ballot|__activemask|__match_(?:any|all)_sync)")
_SHFL = re.compile(rb"__shfl(?:_up|_down|_xor)?(?:_sync)?\s*\(")
_TILE = re.compile(rb"(?:tiled_partition|thread_block_tile)\s*<")
_OWN_WARPSIZE = re.compile(rb"\bwarpSize\s*(?:=(?!=)|\{)")
_WARPSIZE_32 = re.compile(rb"warpSize\s*([=!]=|<=?|>=?)\s*32(?![\w.])|32\s*([=!]=)\s*warpSize\b")
_LANE_OF_WARPSIZE = re.compile(rb"([A-Za-z_]\w*)\s*=\s*[^;=]*?"
                               rb"(?:%\s*warpSize\b|&\s*\(\s*warpSize\s*-\s*1\s*\))")
_SHARED_32 = re.compile(rb"__shared__[^;]*?\b([A-Za-z_]\w*)\s*\[\s*(?:32|WARP_SIZE|kWarpSize)\s*\]\s*;")
SHIFT_KEYS = (b">>5", b">> 5", b">>=5", b">>= 5")
_BALLOT_KEYS = (b"__ballot", b"__activemask", b"__match_any_sync", b"__match_all_sync")
KEYS = (b"ffffffff", b"FFFFFFFF", b"31", b"0x1f", b"0x1F", *SHIFT_KEYS, b"32", *_BALLOT_KEYS,
        b"__shfl", b"tiled_partition", b"thread_block_tile", b"warpSize")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
IDENT_OR_DOT = IDENT | {ord(".")}
NOTE = "note"


class Lanes:
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


def _warp_size_used(scan: Scan) -> int | None:
    """Where the file first counts with ``warpSize`` in code (not in a comment nor in a
    HIP-only branch such as vLLM's ``#define WARP_SIZE warpSize`` under ``USE_ROCM``, and
    not only to compare it with 32), if it does."""
    if not scan.has(b"warpSize"):
        return None
    code = scan.code
    if _OWN_WARPSIZE.search(code):
        return None  # a name of its own (Thrust's enum { warpSize = 32 }), not CUDA's
    hip = [(s, e) for s, e, kind in scan.platform_spans if kind == HIP]
    for at in scan.at(b"warpSize"):
        if any(s <= at < e for s, e in hip):
            continue
        if code[at:at + 8] == b"warpSize" and (not at or code[at - 1] not in IDENT) and \
                _WARPSIZE_32.match(code, at) is None and \
                not code[max(0, at - 12):at].rstrip().endswith((b"==", b"!=")):
            return at
    return None


def warp_size(scan: Scan) -> Iterator[Hazard]:
    """MP2002: 32-lane assumptions; those that keep working on 128-lane warps at note
    level (``find_hazards`` sums them up per file), the rest as warnings."""
    lanes = Lanes(scan)
    ids = list(_lane_ids(scan))
    mixed = _warp_size_used(scan) if ids else None
    if mixed is not None:
        line = scan.out.count(b"\n", 0, mixed) + 1
        ids = [_disagrees(h, line, lanes) for h in ids]
    found = [*_masks(scan, lanes), *ids, *_ballots(scan, lanes), *_shuffles(scan),
             *_tiles(scan), *_warp_size_compared(scan, lanes)]
    groups = any(h.level == NOTE for h in found)  # the file works in groups of 32 lanes
    yield from found
    if groups and scan.has(b"__shfl"):
        yield from _broadcasts(scan, lanes)
    if scan.has(b"warpSize") and b"__shared__" in scan.out:
        yield from _per_warp_arrays(scan, lanes)


def _disagrees(h: Hazard, line: int, lanes: Lanes) -> Hazard:
    """A 32-lane id or constant of a file that also counts with warpSize: a warning."""
    return Hazard(h.id, h.start, h.end, f"{h.message.split(';')[0]}, but this file also counts "
                  f"with warpSize (line {line}), which is 128 there; {lanes}: the two disagree, "
                  "so use one of them")


def _masks(scan: Scan, lanes: Lanes) -> Iterator[Hazard]:
    """A full 32-bit mask: compared with a ballot or the active lanes it must cover the
    warp (a warning); passed to a *_sync call or named, it is left as it is (a note)."""
    data = scan.out
    for at in scan.at(b"ffffffff", b"FFFFFFFF"):
        m = _MASK.match(data, at - 2) if at >= 2 else None
        if m is None or m.start() and data[m.start() - 1] in IDENT:
            continue
        s, e = scan.statement(m.start())
        if not _MASK_CONTEXT.search(data, s, e):
            continue
        before = _COMPARED.search(data, max(s, m.start() - 8), m.start())
        if before is not None or _COMPARES.match(data, m.end()):
            start = before.start() if before is not None else m.start()
            end = m.end() if before is not None else _COMPARES.match(data, m.end()).end()
            yield Hazard("MP2002", start, end,
                         f"'{data[start:end].decode().strip()}' tests that all 32 lanes are "
                         f"there; {lanes}, so the whole warp never equals a 32-bit mask: "
                         "compare with __activemask(), or count the lanes")
        else:
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' is a full 32-bit lane mask", level=NOTE)


def _lane_ids(scan: Scan) -> Iterator[Hazard]:
    """Lane and warp ids of 32 lanes (``& 31``, ``>> 5``, ``% 32``...) and warp-size
    constants of 32: groups of 32 lanes, which a 128-lane warp holds four of."""
    data = scan.out
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
                         f"'{m.group().decode()}' takes a lane id of a 32-lane warp", level=NOTE)
    for at in scan.at(*SHIFT_KEYS):
        m = _SHIFT5.match(data, at)
        if m is not None and _warpish(scan, m.start()):
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' divides by a 32-lane warp", level=NOTE)
    yield from _thirty_two(scan)


def _ballots(scan: Scan, lanes: Lanes) -> Iterator[Hazard]:
    """A ballot (or ``__match_any_sync``) kept in 32 bits, or counted by a 32-bit
    ``__popc``/``__ffs``, also behind a wrapper of the file (a function that returns it
    in 32 bits, like PyTorch's ``WARP_BALLOT``, or a macro or function whose result a
    caller keeps in 32 bits): a 128-lane warp's mask does not fit."""
    if not scan.has(*_BALLOT_KEYS):  # (a wrapper's body holds one too)
        return
    data = scan.out
    lines = Lines(data)
    wrappers: set[bytes] = {m.group(1) for m in _BALLOT_MACRO.finditer(data)}
    calls = []
    for at in scan.at(*_BALLOT_KEYS):
        m = _BALLOT.match(data, at)
        if m is None:
            continue
        calls.append(m)
        returned = _returned_by(data, m.start())
        if returned is not None:
            wrappers.add(returned.group(2))
            if returned.group(1) is not None:
                yield Hazard("MP2002", returned.start(1), returned.end(2),
                             f"'{data[returned.start(1):returned.end(2)].decode()}' returns a "
                             f"warp's ballot in 32 bits; {lanes}: return unsigned long long")
    for name in wrappers:
        for w in re.finditer(rb"(?<![\w#])" + re.escape(name) + rb"\s*\(", data):
            if not data[max(0, w.start() - 20):w.start()].rstrip().endswith(b"define"):
                calls.append(w)
    for m in sorted(calls, key=lambda m: m.start()):
        # The declaration the ballot is stored in ends at the call: searched for in the
        # 1 KB before it, not from the line's start (8,000 ballots on a line took 6 min).
        d = _BALLOT_STORE.search(data, max(lines.start(m.start()), m.start() - 1024), m.start())
        if d is not None:
            text = data[d.start():m.start()].decode().strip()
            yield Hazard("MP2002", d.start(), d.start() + len(text),
                         f"'{text}' keeps a warp's ballot in 32 bits; {lanes}: a mask of 128 "
                         "lanes does not fit")
            continue
        p = _POPC.search(data, max(0, m.start() - 16), m.start())
        if p is not None:
            name = m.group().decode().rstrip("( ")
            yield Hazard("MP2002", p.start(), m.end() - 1,
                         f"'{data[p.start():m.end() - 1].decode()}' counts a ballot in 32 bits; "
                         f"{lanes}: use __popcll on a 64-bit {name}, or count per group")


def _returned_by(data: bytes, at: int) -> re.Match[bytes] | None:
    """The header of the function whose body returns the ballot at ``at`` (group 1: its
    return type when that is 32 bits, group 2: its name), if the ballot is returned."""
    if not data[max(0, at - 12):at].rstrip().endswith(b"return"):
        return None
    brace = data.rfind(b"{", max(0, at - 2000), at)
    if brace < 0:
        return None
    start = max(data.rfind(b";", 0, brace), data.rfind(b"}", 0, brace), brace - 600, 0)
    return _WRAPPER.search(data, start, brace)


def _shuffles(scan: Scan) -> Iterator[Hazard]:
    """A shuffle width of 32: the shuffle stays in its group of 32 lanes."""
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
                         f"a shuffle width of {args[width_at].decode()} keeps it in a group of "
                         "32 lanes", level=NOTE)


def _broadcasts(scan: Scan, lanes: Lanes) -> Iterator[Hazard]:
    """``__shfl_sync(mask, v, 0)``, no width, in a file of 32-lane groups: the source
    lane is a lane of the whole warp, so three groups of four read the first's value."""
    data = scan.out
    for at in scan.at(b"__shfl"):
        m = _SHFL.match(data, at)
        if m is None or at and data[at - 1] in IDENT or b"_up" in m.group() or \
                b"_down" in m.group() or b"_xor" in m.group():
            continue
        close = match(data, m.end() - 1)
        args = split_args(data[m.end():close - 1])
        src_at = 2 if b"_sync" in m.group() else 1
        if len(args) == src_at + 1 and args[src_at].strip().isdigit() and \
                int(args[src_at]) < 32:
            yield Hazard("MP2002", m.start(), close,
                         f"'{data[m.start():close].decode()}' reads lane {int(args[src_at])} of "
                         f"the whole warp; {lanes}, and this file works in groups of 32: pass "
                         "a width of 32 to read the lane of each group")


def _per_warp_arrays(scan: Scan, lanes: Lanes) -> Iterator[Hazard]:
    """A ``__shared__`` array of 32 slots indexed by a lane id taken with ``warpSize``."""
    code = scan.code
    sized = {m.group(1) for m in _SHARED_32.finditer(code)}
    if not sized:
        return
    ids = {m.group(1) for m in _LANE_OF_WARPSIZE.finditer(code)}
    for name in sized:
        for lane in ids:
            needle = name + b"[" + lane + b"]"
            at = code.find(needle)
            while at >= 0:
                if not at or code[at - 1] not in IDENT:
                    yield Hazard("MP2002", at, at + len(needle),
                                 f"'{needle.decode()}' indexes 32 slots by a lane of warpSize; "
                                 f"{lanes}, so the lane runs to 127")
                    break
                at = code.find(needle, at + 1)


def _tiles(scan: Scan) -> Iterator[Hazard]:
    data = scan.out
    for at in scan.at(b"tiled_partition", b"thread_block_tile"):
        m = _TILE.match(data, at)
        if m is None or at and data[at - 1] in IDENT:
            continue
        got = angle_args(data, m.end() - 1)
        if got and got[0] and _is_32(scan, got[0][0]):
            yield Hazard("MP2002", m.start(), got[1],
                         f"'{data[m.start():got[1]].decode()}' makes tiles of 32 lanes, a part "
                         "of a 128-lane warp", level=NOTE)


def _warp_size_compared(scan: Scan, lanes: Lanes) -> Iterator[Hazard]:
    if not scan.has(b"warpSize"):
        return
    data = scan.out
    for at in scan.at(b"warpSize", b"32"):
        m = _WARPSIZE_32.match(data, at)
        if m is not None and (not at or data[at - 1] not in IDENT):
            yield Hazard("MP2002", m.start(), m.end(),
                         f"'{m.group().decode()}' compares the warp size with 32; {lanes}, so "
                         "the other branch runs there")


def _is_32(scan: Scan, expr: bytes) -> bool:
    return expr.strip() == b"32" or scan.value(expr) == 32


def _thirty_two(scan: Scan) -> Iterator[Hazard]:
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
                             f"'{text.decode()}' counts lanes of a 32-lane warp", level=NOTE)
            continue
        if prev in IDENT or prev in b"={":
            at = warp_constant(data, lines.start(p), p)
            if at is not None:
                yield Hazard("MP2002", at, p + 2,
                             f"'{data[at:p + 2].decode()}' fixes the warp size at 32", level=NOTE)
