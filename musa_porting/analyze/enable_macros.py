"""Code gated on a project's CUDA enable macro (MP1011): ``#ifdef WITH_CUDA``,
``#if defined(MMCV_WITH_CUDA)``, ``#if USE_CUDA``, once per file, at its first gate.

Human porters add a MUSA guard or branch beside such gates. The port renames the macro
where the build defines it (a build macro of the project plan, ``analyze/build_symbols``)
or where a rule names it, so the CUDA branch compiles for MUSA as it is; the finding
says so, with the MUSA macro the ported build defines, and lists the file's other gates.
A gate on an enable macro that no build file of the tree defines and no rule renames is
reported too: the MUSA build must define it.

Patterns from public code: torchvision's and mmdet3d's ``WITH_CUDA`` (a setup.py's
``define_macros``), mmcv's ``MMCV_WITH_CUDA``, CMake projects' ``USE_CUDA`` and
``*_ENABLE_CUDA``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from functools import lru_cache

from ..port.engine import Edit
from ..port.lines import Lines
from ..rules.project import ProjectPlan
from .checks import Diagnostic
from .literals import occurrences
from .offsets import EditMap

BUILD_MACRO = "build macro"  # analyze.build_symbols.KIND
_VENDORS = ("CUDA", "MUSA", "CUDNN", "MUDNN", "NCCL", "MCCL", "CUBLAS", "MUBLAS", "CUPTI", "MUPTI",
            "NVTX", "MTTX")
_SWITCHES = ("WITH", "USE", "ENABLE", "HAVE", "HAS", "BUILD")
_STATES = ("ENABLED", "ENABLE", "SUPPORT", "AVAILABLE", "FOUND")
_WORDS = "(?:" + "|".join(w + (r"\w*" if w.endswith("BLAS") else "") for w in _VENDORS) + ")"
_ENABLE = re.compile(rf"(?:[A-Z][A-Z0-9]*_)*(?:{'|'.join(_SWITCHES)})_{_WORDS}(?:_[A-Z0-9]+)*|"
                     rf"(?:[A-Z][A-Z0-9]*_)*(?:CUDA|MUSA)_(?:{'|'.join(_STATES)})")
# What every enable macro holds ("WITH_CUDA", "CUDA_FOUND"): only the lines that hold one
# are read, found in the hazard checks' one pass over the file (``scan.hits``); a regex
# over every condition of a file costs more than that whole pass.
KEYS = tuple(sorted({f"{s}_{w}".encode() for s in _SWITCHES for w in _VENDORS}
                    | {f"{w}_{s}".encode() for w in ("CUDA", "MUSA") for s in _STATES}))
_KEY_SET = frozenset(KEYS)
_CONDITION = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b[^\n]*", re.M)
_NAME = re.compile(rb"[A-Za-z_]\w*")
# A condition's first enable macro (a whole name), from the start of the condition's line.
_GATE = re.compile(rb"[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif)\b[^\n]*?(?<![A-Za-z0-9_])("
                   + _ENABLE.pattern.encode() + rb")(?![A-Za-z0-9_])")
_WORD_BYTES = {bytes([c]) for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"}


@lru_cache(maxsize=4096)
def _is_enable(name: str) -> bool:
    return _ENABLE.fullmatch(name) is not None


def gate_findings(src: bytes, out: bytes, edits: Sequence[Edit] | EditMap,
                  plan: ProjectPlan | None,
                  hits: Mapping[bytes, Sequence[int]] | None = None) -> list[Diagnostic]:
    """The first gate of ``out`` (the ported text of ``src``) on an enable macro, with
    the file's other gates in its message; none when it has no such gate. ``hits`` are
    where ``KEYS`` occur in ``out``, when a scan of the file has found them."""
    if b"#" not in out:  # no directive, no gate
        return []
    edit_list = edits.edits if isinstance(edits, EditMap) else edits
    renamed = [i for i, e in enumerate(edit_list) if _is_enable(e.old)]
    first: dict[int, int] = {}  # a condition's line start -> its first enable macro
    if hits is None:
        hits = occurrences(KEYS, out)
    for bol in sorted({out.rfind(b"\n", 0, at) + 1  # (a file's hits, not the 82 keys, looped)
                       for k, ats in hits.items() if k in _KEY_SET for at in ats}):
        m = _GATE.match(out, bol)  # a directive: only blanks before its "#"
        if m is not None:
            first[bol] = m.start(1)
    emap: EditMap | None = None
    if renamed:  # names a rule renamed from an enable macro count where they stand
        emap = edits if isinstance(edits, EditMap) else EditMap(edits)
        for i in renamed:
            at = emap.out_starts[i]
            bol = out.rfind(b"\n", 0, at) + 1
            cond = _CONDITION.match(out, bol)
            if cond is not None and at < cond.end() and _NAME.match(out, at) \
                    and out[at - 1:at] not in _WORD_BYTES and at < first.get(bol, len(out)):
                first[bol] = at
    gates = sorted(first.values())  # where each gate's macro stands in ``out``
    if not gates:
        return []
    at = gates[0]
    name = _NAME.match(out, at).group().decode("ascii")
    emap = emap or (edits if isinstance(edits, EditMap) else EditMap(edits))
    i = bisect_left(emap.out_starts, at)
    e = emap.edits[i] if i < len(emap.edits) and emap.out_starts[i] == at else None
    lines = Lines(out)
    gate_lines = sorted({lines.position(g)[0] for g in gates})
    line, col = lines.position(at)
    s_line, s_col = Lines(src).position(emap.to_src(at))
    where = ", ".join(map(str, gate_lines[:12])) + (", ..." if len(gate_lines) > 12 else "")
    n = len(gate_lines)
    gates_here = f"{n} gates (lines {where})" if n != 1 else f"gate (line {where})"
    rest = (f"check the code behind this file's {gates_here} on MUSA, and add a MUSA branch "
            "where it cannot run there")
    return [Diagnostic("MP1011", name, line, col, s_line, s_col,
                       _message(name, e, plan) + rest)]


def _message(name: str, e: Edit | None, plan: ProjectPlan | None) -> str:
    if e is not None:
        rename = plan.renames.get(e.old) if plan is not None else None
        built = [s for s in rename.sites if s.kind == BUILD_MACRO] if rename is not None else []
        if built:
            return (f"'{name}' gates code here: the build defines {e.old} "
                    f"({built[0].file}:{built[0].line}), which the port renamed to {name} there "
                    "and in every source, so what was the CUDA branch compiles for MUSA now; ")
        if rename is not None:
            site = rename.sites[0]
            return (f"'{name}' gates code here: the tree defines {e.old} ({site.file}:{site.line}), "
                    f"which the port renamed to {name} everywhere, so what was the CUDA branch "
                    "compiles for MUSA now; ")
        return (f"'{name}' (was '{e.old}', renamed by a rule) gates code here: the MUSA build "
                f"must define {name} where the CUDA build defined {e.old}; ")
    return (f"'{name}' gates CUDA code here and no build file of the tree defines it: the MUSA "
            "build must define it too (or add a MUSA macro beside it); ")


# The on-switch of the CUDA (or MUSA) build itself: WITH_CUDA, MMCV_WITH_MUSA, USE_CUDA,
# CUDA_FOUND; not an optional feature of it (ENABLE_CUDA_GRAPHS, WITH_CUDNN), which needs
# more than the toolkit.
_BACKEND_SWITCH = re.compile(rf"(?:[A-Z][A-Z0-9]*_)*(?:{'|'.join(_SWITCHES)})_(?:CUDA|MUSA)|"
                             rf"(?:[A-Z][A-Z0-9]*_)*(?:CUDA|MUSA)_(?:{'|'.join(_STATES)})")


def backend_switches(data: bytes) -> set[str]:
    """The CUDA or MUSA on-switches a source's conditions test (``#ifdef WITH_CUDA``,
    ``#if defined(MMCV_WITH_MUSA)``): what a build defines for its GPU part, and
    ``musa-port verify`` for the part it checks."""
    if b"#" not in data:
        return set()
    found: set[str] = set()
    for m in _CONDITION.finditer(data):
        for n in _NAME.findall(m.group()):
            if _BACKEND_SWITCH.fullmatch(n.decode("ascii")):
                found.add(n.decode("ascii"))
    return found
