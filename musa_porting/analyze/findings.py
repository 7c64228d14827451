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

from ..port.cxx import lexer
from ..port.engine import Edit
from ..port.lines import Lines
from ..rules.project import KEPT_LIBRARY_NAME, ProjectPlan
from . import no_counterpart
from .arches import Target
from .checks import Diagnostic
from .enable_macros import gate_findings
from .features import unported_note
from .hazards import new_scan, scan_hazards
from .include_findings import include_findings
from .offsets import EditMap
from .pragmas import WORDS as PRAGMA_WORDS
from .residuals import BUILTIN_KEEP, CUDA_HEADER_RE, Knowledge, residual_matches

# Findings kept per file, in file order; beyond them only a count per ID is kept, so a
# generated file full of residuals costs neither memory nor a giant manifest.
MAX_PER_FILE = 1000


def line_cols(data: bytes, offsets: Sequence[int]) -> dict[int, tuple[int, int]]:
    """(line, column) of each offset, counting newlines in one pass (in C)."""
    lines = Lines(data)
    return {off: lines.position(off) for off in sorted(set(offsets))}


def find_diagnostics(
    src: bytes,
    out: bytes,
    edits: Sequence[Edit],
    knowledge: Knowledge,
    lexed: lexer.Lexed | None = None,
    limit: int | None = None,
    dropped: dict[str, int] | None = None,
    target: Target | None = None,
    rel: str = "",
    defined: frozenset[str] = frozenset(),
    plan: ProjectPlan | None = None,
) -> list[Diagnostic]:
    """Residuals and hazards in ``out`` (the ported bytes of ``src``).

    ``lexed`` is the source's lexing (comments, strings, includes, markers), which the
    port already did: a finding in the output is mapped back to its place in the
    source, where these say whether it stands in code. With ``limit``, only the first
    ``limit`` findings (in file order) are built; the rest are counted per ID into
    ``dropped``. ``target`` (the run's arches) and ``rel`` (the file's path, which says
    whether it is a host source) and ``defined`` (the names the tree defines) are for the
    hazards. The enable-macro gates (MP1011, ``enable_macros``; ``plan`` says which macros
    the port renamed) come too, found in the hazards' pass over ``out``.
    """
    lexed = lexed if lexed is not None else lexer.Lexed(src)
    residuals = residual_matches(out)
    emap = EditMap(edits)  # to map findings back to the source
    to_src, to_out = emap.to_src, emap.to_out
    scan = new_scan(out, emap, target, rel,
                    lambda: [(to_out(s), to_out(e)) for s, e, _ in lexed.typed], defined)
    found_hazards = scan_hazards(scan)
    gated = gate_findings(src, out, emap, plan, scan.hits)
    protected = lexed.markers  # never edited: the same in the source and the output
    # An output the port left as it was (most of a vendored library) has the source's
    # includes, which the port already found.
    all_includes = lexed.includes if out == lexed.data else lexer.includes(out)

    def ours(inc: lexer.Include) -> bool:
        """Protected by a marker, or a file of the tree: none of the include findings."""
        return any(s <= to_src(inc.start) < e for s, e in protected) or (
            knowledge.tree_include is not None and knowledge.tree_include(inc.target))

    bad_includes = [
        inc for inc in all_includes
        if (inc.target in knowledge.cuda_headers or CUDA_HEADER_RE.search(inc.target))
        and not ours(inc)
    ]
    bad = {inc.start for inc in bad_includes}
    other_includes = list(include_findings(all_includes, emap,
                                           lambda inc: inc.start in bad or ours(inc)))
    if not residuals and not found_hazards and not bad_includes and not other_includes:
        return gated

    # Not code, in the source: comments, strings, protected regions, and include
    # targets (an include is judged as a whole, by MP1003).
    noncode = lexer.merge_spans(
        [(s, e) for s, e, _ in lexed.typed] + list(protected)
        + [(i.start - 1, i.end + 1) for i in lexed.includes])
    nc_starts = [s for s, _ in noncode]

    def in_noncode(off: int) -> bool:
        so = to_src(off)
        i = bisect_right(nc_starts, so) - 1
        return i >= 0 and noncode[i][0] <= so < noncode[i][1]

    includes_raw = [(inc.start, "MP1003", inc.target, f"#include of CUDA header '{inc.target}'")
                    for inc in bad_includes] + other_includes

    def residuals_raw() -> Iterator[tuple[int, str, str, str]]:
        keep, known = knowledge.keep, knowledge.known
        own = plan.names() if plan is not None else frozenset()
        gone_at = -1  # the end of the line of the last MP2109: one per line
        # One scan of the whole text (a scan per stretch of code between comments cost
        # more); what starts in a comment, a string or an include is dropped.
        for m in residuals:
            off = m.start()
            if in_noncode(off):
                continue
            name = m.group().decode("ascii")
            if name in keep or name in BUILTIN_KEEP or name in PRAGMA_WORDS \
                    or KEPT_LIBRARY_NAME.match(name):  # nvcc's pragmas: MP1015
                continue
            gone = no_counterpart.family(name)
            if gone is not None:
                if off > gone_at:
                    gone_at = out.find(b"\n", off) % (len(out) + 1)
                    yield (off, "MP2109", name, no_counterpart.message(name, gone))
                continue
            if name in known:
                note = known[name]  # the table's word on what to write instead
                yield (off, "MP1001", name,
                       f"'{name}' is a CUDA API with no MUSA equivalent here{unported_note(name)}"
                       + (f": {note}" if note else ""))
            elif name not in own:  # the tree's own name: reported where it is defined
                yield (off, "MP1002", name, f"'{name}' looks like CUDA and is not ported")

    hazards_raw = [(h.start, h.id, _text(out, h.start, h.end), h.message)
                   for h in found_hazards if not in_noncode(h.start)]
    # What a hazard adds to its place: the lines it runs over, a level below its check's.
    extra = {(h.start, h.id): (out.count(b"\n", h.start, max(h.end, h.stop)), h.level)
             for h in found_hazards if h.level or out.find(b"\n", h.start, max(h.end, h.stop)) >= 0}
    # (offset, id, text, message), in file order: streamed, so that ``limit`` bounds memory.
    stream = heapq.merge(sorted(includes_raw), residuals_raw(), sorted(hazards_raw),
                         key=lambda r: r[0])
    raw = list(islice(stream, limit)) if limit is not None else list(stream)
    if dropped is not None:
        for r in stream:
            dropped[r[1]] = dropped.get(r[1], 0) + 1
    if not raw:
        return gated
    out_lc = line_cols(out, [r[0] for r in raw])
    src_off = {r[0]: to_src(r[0]) for r in raw}
    src_lc = line_cols(src, list(src_off.values())) if edits else None
    found = []
    for off, check_id, text, message in raw:
        line, col = out_lc[off]
        sline, scol = src_lc[src_off[off]] if src_lc is not None else (line, col)
        more, level = extra.get((off, check_id), (0, ""))
        found.append(Diagnostic(check_id, text, line, col, sline, scol, message,
                                line + more if more else 0, level))
    found += gated
    found.sort(key=lambda d: (d.line, d.column, d.id))
    return found


def _text(out: bytes, start: int, end: int) -> str:
    """A finding's text: its span of the ported line (the first line of it)."""
    text = out[start:end]
    nl = text.find(b"\n")
    return (text if nl < 0 else text[:nl]).rstrip().decode("utf-8", "replace")
