"""Inline assembly (MP2001): PTX does not run on MUSA. The message says what the PTX
does and what to write instead, read off its first instruction.

Patterns from public CUDA code: barriers and lane ids in reduction kernels
(``bar.sync``, ``mov.u32 %0, %laneid;``), tensor-core GEMMs (``mma.sync.aligned``,
``ldmatrix``), async copies (``cp.async.cg.shared.global``), packed conversions in
quantization kernels (``cvt.rn.f16x2.f32``, ``prmt.b32``, ``lop3.b32``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

from .scan import Hazard, Scan

_ASM = re.compile(rb"asm(__)?\s*(?:volatile\s*|__volatile__\s*)?\(")
_STRING = re.compile(rb'\s*"((?:[^"\\\n]|\\.)*)"')
_FIRST_WORD = re.compile(r"(?:\{|\s|\\[nt]|;|@!?%?\w+)*([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*)")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

# (instruction prefix, what it is, what to write instead), first match wins.
_KINDS = (
    (("mma", "wmma", "wgmma", "ldmatrix", "stmatrix", "movmatrix"), "tensor-core code",
     "MUTLASS's MUSA atoms or a SIMT path (MP2010)"),
    (("cp.async", "cp.reduce.async", "mbarrier"), "an asynchronous copy",
     "plain loads into shared memory and __syncthreads() (MP2011)"),
    (("bar", "barrier"), "a barrier", "__syncthreads(), or __syncwarp()"),
    (("shfl",), "a warp shuffle", "__shfl_sync (with a mask for 128-lane warps, MP2002)"),
    (("vote", "activemask"), "a warp vote", "__ballot_sync / __activemask()"),
    (("ld", "st", "prefetch"), "a load or store with cache operators", "a plain C++ access"),
    (("mov",), "a special register read", "threadIdx/warpSize arithmetic or clock64()"),
    (("prmt", "lop3", "bfe", "bfi", "shf", "brev", "popc", "clz"), "bit manipulation",
     "__byte_perm, __popc, __clz or plain C++ bit operations"),
    (("cvt", "cvta"), "a conversion", "the musa_fp16/musa_bf16 intrinsics (__float2half_rn, ...)"),
    (("red", "atom"), "an atomic", "atomicAdd and the other atomic functions"),
    (("fence", "membar"), "a memory fence", "__threadfence() or __threadfence_block()"),
    (("nanosleep",), "a sleep", "a bounded spin"),
    (("trap", "brkpt", "exit"), "a trap", "assert() or __trap() if mcc has it"),
)


_BY_PREFIX = {p: (what, instead) for prefixes, what, instead in _KINDS for p in prefixes}


def _describe(ptx: str) -> tuple[str, str]:
    m = _FIRST_WORD.match(ptx)
    word = m.group(1) if m else ""
    parts = word.split(".")
    kind = _BY_PREFIX.get(".".join(parts[:2])) or _BY_PREFIX.get(parts[0])
    if kind is not None:
        return f"{kind[0]}, {word}", kind[1]
    return (word or "PTX"), "MUSA C++ that does the same"


KEYS = (b"asm",)


def ptx_hazards(scan: Scan) -> Iterator[Hazard]:
    data = scan.out
    for at in scan.at(b"asm"):
        m = _ASM.match(data, at)
        if m is None:
            continue
        start = m.start() - 2 if m.group(1) else m.start()
        if m.group(1) and data[start:m.start()] != b"__":
            continue
        if start > 0 and data[start - 1] in IDENT:
            continue
        first = _STRING.match(data, m.end())  # its first instruction is in its first string
        what, instead = _describe(first.group(1).decode("utf-8", "replace") if first else "")
        # The whole statement, to its closing parenthesis: a statement of ten lines ends
        # ten lines down.
        close = _closing(data, m.end())
        yield Hazard("MP2001", start, m.end(),
                     f"inline assembly '{data[start:m.end()].decode()}' is PTX ({what}), which "
                     f"does not run on MUSA: write {instead}",
                     stop=close)


# What an asm statement's parentheses hold: strings and comments (whose brackets do not
# count), and the parentheses.
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|//[^\n]*|/\*.*?\*/|[()]', re.S)
# The same statement matched whole in C when its parentheses nest three deep at most (all
# but a few): runs of plain bytes, strings, comments, a lone quote or slash, inner
# parentheses. Possessive, so that a statement that does not close fails in one pass:
# Python 3.11's re has possessive quantifiers; on 3.10 the token loop does it all.
_PLAIN = rb'[^()"\'/]++|"(?:[^"\\\n]|\\.)*+"|\'(?:[^\'\\\n]|\\.)*+\'|//[^\n]*+|/\*.*?\*/|["\'/]'
_NESTED = rb"\((?:" + _PLAIN + rb")*+\)"
for _depth in range(2):
    _NESTED = rb"\((?:" + _PLAIN + rb"|" + _NESTED + rb")*+\)"
_STATEMENT = re.compile(_NESTED, re.S) if sys.version_info >= (3, 11) else None


def _closing(data: bytes, pos: int) -> int:
    """The offset after the parenthesis that closes the one before ``pos`` (0 if none):
    the statement's tokens only, not a code view of the whole file (most files with
    asm have hundreds of statements and no other check that needs the view)."""
    m = _STATEMENT.match(data, pos - 1) if _STATEMENT is not None else None
    if m is not None:
        return m.end()
    depth = 1  # nested deeper, or not closed: token by token
    for t in _TOKEN.finditer(data, pos):
        c = data[t.start()]
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if not depth:
                return t.end()
    return 0
