"""Finding what porting could not do in one ported file: residuals and hazards,
placed in the ported file and in the CUDA original.

Residuals are searched in the *ported* text, in code only: a comment that says
"CUDA" is not a leftover, an identifier is. Porting keeps line numbers; columns are
mapped back through the edits made on the line.
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import islice

from ..port import lexer
from ..port.engine import Edit
from .checks import Diagnostic
from .hazards import HAZARD_MESSAGES, hazards
from .residuals import BUILTIN_KEEP, CUDA_HEADER_RE, RESIDUAL_RE, Knowledge

# Findings kept per file, in file order; beyond them only a count per ID is kept, so a
# generated file full of residuals costs neither memory nor a giant manifest.
MAX_PER_FILE = 1000


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
    limit: int | None = None,
    dropped: dict[str, int] | None = None,
) -> list[Diagnostic]:
    """Residuals and hazards in ``out`` (the ported bytes of ``src``).

    ``protected`` are marker regions of the output (left alone on purpose). With
    ``limit``, only the first ``limit`` findings (in file order) are built; the rest
    are counted per ID into ``dropped``.
    """
    has_residual = RESIDUAL_RE.search(out) is not None
    found_hazards = list(hazards(out))
    all_includes = lexer.includes(out) if b"#" in out else []
    bad_includes = [
        inc for inc in all_includes
        if not any(s <= inc.start < e for s, e in protected)
        and (inc.target in knowledge.cuda_headers or CUDA_HEADER_RE.search(inc.target))
        and not (knowledge.tree_include is not None and knowledge.tree_include(inc.target))
    ]
    if not has_residual and not found_hazards and not bad_includes:
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

    includes_raw = [(inc.start, "MP1003", inc.target, f"#include of CUDA header '{inc.target}'")
                    for inc in bad_includes]

    def residuals() -> Iterator[tuple[int, str, str, str]]:
        if not has_residual:
            return
        keep, known = knowledge.keep, knowledge.known
        # Scan the code between non-code spans only: comments that say "CUDA" cost nothing.
        code, pos = [], 0
        for s, e in noncode:
            if s > pos:
                code.append((pos, s))
            pos = max(pos, e)
        code.append((pos, len(out)))
        for s, e in code:
            for m in RESIDUAL_RE.finditer(out, s, e):
                name = m.group().decode("ascii")
                if name in keep or name in BUILTIN_KEEP:
                    continue
                if name in known:
                    yield (m.start(), "MP1001", name,
                           f"'{name}' is a CUDA API with no MUSA equivalent here")
                else:
                    yield (m.start(), "MP1002", name, f"'{name}' looks like CUDA and is not ported")

    hazards_raw = [(off, check_id, text_b.decode("ascii", "replace"),
                    HAZARD_MESSAGES[check_id].format(text_b.decode("ascii", "replace")))
                   for check_id, off, text_b in found_hazards if not in_noncode(off)]
    # (offset, id, text, message), in file order: streamed, so that ``limit`` bounds memory.
    stream = heapq.merge(sorted(includes_raw), residuals(), sorted(hazards_raw),
                         key=lambda r: r[0])
    raw = list(islice(stream, limit)) if limit is not None else list(stream)
    if dropped is not None:
        for r in stream:
            dropped[r[1]] = dropped.get(r[1], 0) + 1
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
