"""Thread blocks that do not fill 128-lane warps (MP2004): a constant block size that
is not a multiple of 128 threads, in a launch, a ``dim3`` or ``__launch_bounds__``.

Patterns from public CUDA code: launches of small-kernel extensions (``<<<g, 32>>>``,
``dim3 block(64)``), ``__launch_bounds__(32)`` on warp-per-row kernels.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .code_view import match, split_args
from .scan import Hazard, Scan
from .warp import Lanes

KEYS = (b"<<<", b"__launch_bounds__", b"dim3")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

_BOUNDS = re.compile(rb"__launch_bounds__\s*\(")
_DIM3 = re.compile(rb"dim3\s+([A-Za-z_]\w*)\s*(?:\(|\{|=\s*dim3\s*[({])")


def block_size(scan: Scan) -> Iterator[Hazard]:
    """MP2004: a constant block size that is not a multiple of 128 threads."""
    data = scan.out
    wide = Lanes(scan)
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
