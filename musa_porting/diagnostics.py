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

RESIDUAL_RE = re.compile(
    rb"(?<![A-Za-z0-9_])(?:"
    rb"(?:cuda|CUDA|cublas|CUBLAS|curand|CURAND|cusparse|CUSPARSE|cufft|CUFFT|cusolver|"
    rb"CUSOLVER|cudnn|CUDNN|nccl|NCCL|cupti|CUPTI|nvtx|NVTX|nvrtc|NVRTC|nvcuda)[A-Za-z0-9_]*"
    rb"|cu[A-Z][A-Za-z0-9_]*|CU_[A-Za-z0-9_]+|CU[a-z][A-Za-z0-9_]*|CUTLASS[A-Za-z0-9_]*"
    rb"|__(?:nv|NV|CUDA|cuda)[A-Za-z0-9_]*|nv_[A-Za-z0-9_]+|NV[A-Za-z0-9_]+"
    rb")"
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

_HAZARDS = [
    ("MP2001", re.compile(rb"\b(?:asm|__asm__)\s*(?:volatile\s*|__volatile__\s*)?\(")),
    ("MP2002", re.compile(
        rb"\b0[xX][fF]{8}[uU]?[lL]{0,2}\b"
        rb"|&\s*(?:31|0[xX]1[fF])\b"
        rb"|#\s*define\s+[A-Za-z0-9_]*WARP[A-Za-z0-9_]*\s+32\b"
        rb"|\b[A-Za-z0-9_]*[wW]arp[A-Za-z0-9_]*\s*=\s*32\b")),
    ("MP2003", re.compile(
        rb"\b(?:MUSA_VERSION|MUSART_VERSION|__MUSA_ARCH__|CUDA_VERSION|CUDART_VERSION|__CUDA_ARCH__)"
        rb"\s*(?:[<>]=?|==|!=)\s*\d+|\d+\s*(?:[<>]=?|==|!=)\s*"
        rb"(?:MUSA_VERSION|MUSART_VERSION|__MUSA_ARCH__)\b")),
]


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


class _Positions:
    """Offset -> (line, column) for one text, and output -> source offsets."""

    def __init__(self, data: bytes):
        self.starts = [0]
        find = data.find
        i = find(b"\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = find(b"\n", i + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        idx = bisect_right(self.starts, offset) - 1
        return idx + 1, offset - self.starts[idx] + 1


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
    has_hazard = any(rx.search(out) for _, rx in _HAZARDS)
    all_includes = lexer.includes(out) if b"#" in out else []
    bad_includes = [
        inc for inc in all_includes
        if not any(s <= inc.start < e for s, e in protected)
        and (inc.target in knowledge.cuda_headers or CUDA_HEADER_RE.search(inc.target))
        and not (knowledge.tree_include is not None and knowledge.tree_include(inc.target))
    ]
    if not has_residual and not has_hazard and not bad_includes:
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
    out_pos, src_pos = _Positions(out), _Positions(src)

    # Not code: comments, strings, protected regions, and include targets (an include
    # is judged as a whole, by MP1003).
    noncode = lexer.merge_spans(
        lexer.comment_and_string_spans(out, frozenset({"comments", "strings"})) + list(protected)
        + [(i.start - 1, i.end + 1) for i in all_includes])
    nc_starts = [s for s, _ in noncode]

    def in_noncode(off: int) -> bool:
        i = bisect_right(nc_starts, off) - 1
        return i >= 0 and noncode[i][0] <= off < noncode[i][1]

    found: list[Diagnostic] = []

    def add(check_id: str, text: str, off: int, message: str) -> None:
        line, col = out_pos.line_col(off)
        sline, scol = src_pos.line_col(_source_offset(off, ends, deltas)) if ends else (line, col)
        found.append(Diagnostic(check_id, text, line, col, sline, scol, message))

    for inc in bad_includes:
        add("MP1003", inc.target, inc.start, f"#include of CUDA header '{inc.target}'")

    if has_residual:
        for m in RESIDUAL_RE.finditer(out):
            off = m.start()
            if in_noncode(off):
                continue
            name = m.group().decode("ascii")
            if name in knowledge.keep or name in BUILTIN_KEEP:
                continue
            if name in knowledge.known:
                add("MP1001", name, off, f"'{name}' is a CUDA API with no MUSA equivalent here")
            else:
                add("MP1002", name, off, f"'{name}' looks like CUDA and is not ported")
    if has_hazard:
        for check_id, rx in _HAZARDS:
            for m in rx.finditer(out):
                if in_noncode(m.start()):
                    continue
                text = m.group().decode("ascii", "replace")
                add(check_id, text, m.start(), _HAZARD_MESSAGES[check_id].format(text))
    found.sort(key=lambda d: (d.line, d.column, d.id))
    return found
