"""What porting could not do: residual CUDA names and porting hazards.

Each finding has a stable ID (documented in the README) so CI can suppress or gate
on it. Residuals are searched in the *ported* text, in code only: a comment that
says "CUDA" is not a leftover, an identifier is. Every finding carries its place in
the ported file and in the CUDA original (porting keeps line numbers; columns are
mapped back through the edits made on the line).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence, Set
from dataclasses import dataclass

from . import lexer
from .engine import Edit


@dataclass(frozen=True)
class Check:
    """A diagnostic kind: stable ID, short name, level, and what it means."""

    id: str
    name: str
    level: str  # SARIF levels: "error", "warning", "note"
    residual: bool  # counts as a residual (--check, conversion rate)
    description: str
    example: str


CHECKS: dict[str, Check] = {c.id: c for c in (
    Check("MP1001", "unported-cuda-api", "error", True,
          "A CUDA API that the tables know has no MUSA equivalent (or whose family is "
          "disabled) is still used.", "cudaGLSetGLDevice(0);"),
    Check("MP1002", "unknown-cuda-name", "warning", True,
          "An identifier that looks like CUDA (cuda*, CUDA*, cu[A-Z]*, CU_*, CU[a-z]*, "
          "cublas*, nccl*, __nv*, NV*, ...) is not in any table: add a rule, or --keep it.",
          "cudaFooBar(x);"),
    Check("MP1003", "cuda-header", "error", True,
          "An #include still names a CUDA header that is not a file of the tree.",
          "#include <cuda_gl_interop.h>"),
    Check("MP2001", "inline-ptx", "warning", False,
          "Inline assembly (PTX) does not run on MUSA.", 'asm volatile("bar.sync 0;");'),
    Check("MP2002", "warp-size-32", "warning", False,
          "Code assumes a warp of 32 lanes (full 32-bit lane masks, & 31, a 32 warp "
          "constant); MUSA warps are 128 wide on mp_21/mp_22.",
          "__shfl_down_sync(0xffffffff, v, 16);"),
    Check("MP2003", "version-comparison", "warning", False,
          "A CUDA version or architecture number is compared after renaming: MUSA's "
          "values differ (MUSA_VERSION 50200, __MUSA_ARCH__ 210/220/310).",
          "#if MUSA_VERSION >= 12080"),
)}

def _at_identifier_start(alternatives: list[bytes]) -> re.Pattern[bytes]:
    """One regex for alternatives that each begin with a literal byte, matched only at
    the start of an identifier. The boundary look-behind sits after the first byte so
    every branch starts with a literal and the regex engine can skip ahead with its
    first-byte scan (a leading look-behind would make it try every offset)."""
    by_first: dict[bytes, list[bytes]] = {}
    for alt in alternatives:
        by_first.setdefault(alt[:1], []).append(alt[1:])
    branches = [re.escape(first) + rb"(?<![A-Za-z0-9_]" + re.escape(first) + rb")(?:"
                + b"|".join(rests) + b")" for first, rests in sorted(by_first.items())]
    return re.compile(b"|".join(branches))


_W = rb"[A-Za-z0-9_]"
RESIDUAL_RE = _at_identifier_start(
    [p + _W + b"*" for p in (b"cuda", b"CUDA", b"cublas", b"CUBLAS", b"curand", b"CURAND",
                             b"cusparse", b"CUSPARSE", b"cufft", b"CUFFT", b"cusolver",
                             b"CUSOLVER", b"cudnn", b"CUDNN", b"nccl", b"NCCL", b"cupti",
                             b"CUPTI", b"nvtx", b"NVTX", b"nvrtc", b"NVRTC", b"nvcuda",
                             b"CUTLASS")]
    + [b"cu[A-Z]" + _W + b"*", b"CU_" + _W + b"+", b"CU[a-z]" + _W + b"*",
       b"__(?:nv|NV|CUDA|cuda)" + _W + b"*", b"nv_" + _W + b"+", b"NV" + _W + b"+"]
)

# Names that look like CUDA but must stay: thrust/cub internals, the CUDA compiler's
# own version macros, which MUSA's compiler also defines for compatibility.
BUILTIN_KEEP = frozenset({
    "cuda_cub", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__",
    "__CUDACC_RDC__", "__CUDACC_EXTENDED_LAMBDA__", "__CUDACC_RELAXED_CONSTEXPR__",
    "__NV_NO_HOST_COMPILER_CHECK",
})

CUDA_HEADER_RE = re.compile(
    r"(?:^|/)(?:cuda[A-Za-z0-9_]*|cu(?:blas|rand|sparse|fft|solver|dnn|pti|Complex)[A-Za-z0-9_]*"
    r"|nccl|nvrtc|nvToolsExt[A-Za-z0-9_]*|npp[A-Za-z0-9_]*|nvtx3?[A-Za-z0-9_/]*)\.(?:h|hpp|cuh)$"
    r"|^(?:ATen|c10)/cuda/"
)

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


def _hazards(data: bytes):
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


_HAZARD_MESSAGES = {
    "MP2001": "inline assembly '{}' is PTX, which does not run on MUSA",
    "MP2002": "'{}' assumes 32-lane warps; MUSA warps are 128 lanes on mp_21/mp_22",
    "MP2003": "'{}' compares a CUDA version or arch number; MUSA's numbers differ",
}


@dataclass(frozen=True)
class Diagnostic:
    """One finding, placed in the ported file and in the CUDA original (1-based)."""

    id: str
    text: str
    line: int
    column: int
    src_line: int
    src_column: int
    message: str

    @property
    def check(self) -> Check:
        return CHECKS[self.id]

    def to_list(self) -> list:
        return [self.id, self.text, self.line, self.column, self.src_line, self.src_column,
                self.message]

    @classmethod
    def from_list(cls, row: Sequence) -> Diagnostic:
        return cls(*row)


@dataclass(frozen=True)
class Knowledge:
    """What the scanner needs to know about the rules in force."""

    known: Set[str]  # CUDA names the tables know but that are not rewritten
    keep: Set[str]  # names the user keeps (--keep, or a rule X: X)
    cuda_headers: Set[str]  # header names (no delimiters) the tables know as CUDA's
    tree_include: object = None  # callable(target) -> bool: is it a file of the tree


def _line_cols(data: bytes, offsets: Sequence[int]) -> dict[int, tuple[int, int]]:
    """(line, column) of each offset, counting newlines in one pass (in C)."""
    out: dict[int, tuple[int, int]] = {}
    line, pos = 1, 0
    for off in sorted(set(offsets)):
        line += data.count(b"\n", pos, off)
        pos = off
        out[off] = (line, off - data.rfind(b"\n", 0, off))
    return out


def _source_offset(out_offset: int, ends: list[int], deltas: list[int]) -> int:
    """Map an output offset to the source: subtract the growth of the edits before it."""
    idx = bisect_right(ends, out_offset) - 1
    return out_offset - (deltas[idx] if idx >= 0 else 0)


def find_diagnostics(
    src: bytes,
    out: bytes,
    edits: Sequence[Edit],
    knowledge: Knowledge,
    protected: Sequence[tuple[int, int]] = (),
) -> list[Diagnostic]:
    """Residuals and hazards in ``out`` (the ported bytes of ``src``).

    ``protected`` are marker regions of the output (left alone on purpose).
    """
    has_residual = RESIDUAL_RE.search(out) is not None
    hazards = list(_hazards(out))
    all_includes = lexer.includes(out) if b"#" in out else []
    bad_includes = [
        inc for inc in all_includes
        if not any(s <= inc.start < e for s, e in protected)
        and (inc.target in knowledge.cuda_headers or CUDA_HEADER_RE.search(inc.target))
        and not (knowledge.tree_include is not None and knowledge.tree_include(inc.target))
    ]
    if not has_residual and not hazards and not bad_includes:
        return []

    # Not code: comments, strings, protected regions, and include targets (an include
    # is judged as a whole, by MP1003).
    noncode = lexer.merge_spans(
        lexer.comment_and_string_spans(out, frozenset({"comments", "strings"})) + list(protected)
        + [(i.start - 1, i.end + 1) for i in all_includes])
    nc_starts = [s for s, _ in noncode]

    def in_noncode(off: int) -> bool:
        i = bisect_right(nc_starts, off) - 1
        return i >= 0 and noncode[i][0] <= off < noncode[i][1]

    raw: list[tuple[int, str, str, str]] = []  # (offset, id, text, message)
    for inc in bad_includes:
        raw.append((inc.start, "MP1003", inc.target, f"#include of CUDA header '{inc.target}'"))
    if has_residual:
        keep, known = knowledge.keep, knowledge.known
        # Scan the code between non-code spans only: comments that say "CUDA" cost nothing.
        code, pos = [], 0
        for s, e in noncode:
            if s > pos:
                code.append((pos, s))
            pos = max(pos, e)
        code.append((pos, len(out)))
        matches = [m for s, e in code for m in RESIDUAL_RE.finditer(out, s, e)]
        for m in matches:
            off = m.start()
            name = m.group().decode("ascii")
            if name in keep or name in BUILTIN_KEEP:
                continue
            if name in known:
                raw.append((off, "MP1001", name, f"'{name}' is a CUDA API with no MUSA equivalent here"))
            else:
                raw.append((off, "MP1002", name, f"'{name}' looks like CUDA and is not ported"))
    for check_id, off, text_b in hazards:
        if not in_noncode(off):
            text = text_b.decode("ascii", "replace")
            raw.append((off, check_id, text, _HAZARD_MESSAGES[check_id].format(text)))
    if not raw:
        return []

    # Edit positions in output coordinates, to map findings back to the source.
    ends: list[int] = []
    deltas: list[int] = []
    delta = 0
    for e in edits:
        new_len = len(e.new.encode("utf-8", "surrogateescape"))
        ends.append(e.start + delta + new_len)
        delta += new_len - (e.end - e.start)
        deltas.append(delta)
    out_lc = _line_cols(out, [r[0] for r in raw])
    src_off = {r[0]: _source_offset(r[0], ends, deltas) for r in raw}
    src_lc = _line_cols(src, list(src_off.values())) if ends else None
    found = []
    for off, check_id, text, message in raw:
        line, col = out_lc[off]
        sline, scol = src_lc[src_off[off]] if src_lc is not None else (line, col)
        found.append(Diagnostic(check_id, text, line, col, sline, scol, message))
    found.sort(key=lambda d: (d.line, d.column, d.id))
    return found
