"""Findings of a ported build file (MP31xx): the notes the porter made, and every CUDA
name left in the ported file's words, each with what to do about it.

The scan reads the *ported* text, word by word (``port/build_file.build_words``), so it
sees what CMake, make or the shell will see: a comment is not scanned, prose only in
its variable references; a path component (``pytorch/cuda/x.mu``, a folder or file the
port does not rename) is the project's own name, not a CUDA name. Where the porter
already explained a span (a note), the scan adds nothing there.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass

from ..port.build import names as bn
from ..port.build import nvcc_flags as nf
from ..port.build.rewrite import REF, TARGET, Change, Note
from ..port.build.words import TEXT, Word
from ..port.cxx.lexer import merge_spans
from .checks import Diagnostic
from .findings import line_cols

_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
_FLAG_PREFIX = re.compile(r"(?<![A-Za-z0-9_\-])-[DUILl](?=[A-Za-z_])")
_LIB_FLAG = re.compile(r"(?<![A-Za-z0-9_\-])-l:?(?:lib)?([A-Za-z0-9_]+)")
_LIB_FILE = re.compile(r"(?<![A-Za-z0-9_])lib([A-Za-z0-9_]+?)\.(?:so|a|dylib)(?![A-Za-z0-9_])")
# An NVIDIA arch: sm_80, compute_90a, and the patterns that build one (sm_${X}, sm_\\().
_ARCH_LEFT = re.compile(r"(?<![A-Za-z0-9])(?:sm|compute|lto)_(?:\d+[a-z]?(?![A-Za-z0-9])"
                        r"|(?=[\\$(\[{]))")
_OPTION = re.compile(r"(?<![A-Za-z0-9_\-])--?[A-Za-z][A-Za-z0-9_\-]*(?:=[^\s;\"',]*)?")


class OffsetMap:
    """Offsets between a build file and its port, through the changes made (sorted,
    not overlapping)."""

    def __init__(self, changes: Sequence[Change]):
        self.src: list[tuple[int, int]] = []
        self.out: list[tuple[int, int]] = []
        delta = 0
        for c in changes:
            self.src.append((c.start, c.end))
            self.out.append((c.start + delta, c.start + delta + len(c.new)))
            delta += len(c.new) - (c.end - c.start)
        self._src_starts = [s for s, _ in self.src]
        self._out_starts = [s for s, _ in self.out]

    def to_out(self, off: int, end: bool = False) -> int:
        """A source offset in the port: inside a change, its replacement's start (or, for
        an ``end`` offset, its end)."""
        if end:
            i = bisect_left(self._src_starts, off) - 1
            if i < 0:
                return off
            (_, e), (_, oe) = self.src[i], self.out[i]
            return oe if off <= e else off + (oe - e)
        i = bisect_right(self._src_starts, off) - 1
        if i < 0:
            return off
        (_, e), (os_, oe) = self.src[i], self.out[i]
        return os_ if off < e else off + (oe - e)

    def to_src(self, off: int) -> int:
        """An offset of the port in the source (inside a replacement: where it was)."""
        i = bisect_right(self._out_starts, off) - 1
        if i < 0:
            return off
        (s, e), (_, oe) = self.src[i], self.out[i]
        return s if off < oe else off + (e - oe)


@dataclass(frozen=True)
class _Found:
    start: int  # in the ported text
    end: int
    id: str
    text: str
    problem: str
    suggestion: str


def _names(word: Word) -> Iterable[tuple[int, int, str]]:
    """The names a word holds (absolute offsets): in prose, references only; elsewhere
    every name that is not a path component (a folder or file of the project)."""
    text = word.text
    if word.where == TEXT:
        for m in REF.finditer(text):
            g = 1 if m.group(1) else 2 if m.group(2) else 3
            yield word.start + m.start(g), word.start + m.end(g), m.group(g)
        return
    masked = _FLAG_PREFIX.sub(lambda m: "-" + " ", text)
    for m in _IDENT.finditer(masked):
        s, e = m.start(), m.end()
        before = masked[s - 1] if s else ""
        after = masked[e:e + 2]
        if before == "/" or after[:1] == "/" or re.match(r"\.[A-Za-z0-9]", after):
            continue
        yield word.start + s, word.start + e, m.group()


def _library_advice(name: str) -> str | None:
    if name in bn.LIBRARY_ADVICE:
        return bn.LIBRARY_ADVICE[name]
    if bn.build_vocabulary_for_names().contains_word(name) or name.startswith(("cu", "nv")):
        new = bn.suggest_rename(name)
        return (f"no MUSA library is known for it: check your MUSA SDK for {new or 'one'}, "
                "or remove it")
    return None


def _nvcc_option_left(token: str) -> nf.NvccOption | None:
    m = nf.match_flag(token)
    if m is None:
        return None
    opt = m.option
    if opt.action in (nf.ARCH, nf.DROP, nf.LEFT, nf.HOST):
        return opt
    if opt.action == nf.MAP and opt.note:
        spelled = nf.mcc_spelling(opt, m.value)
        return opt if spelled is not None and spelled != token else None
    return None


@functools.lru_cache(maxsize=8192)
def looks_like_cuda(name: str) -> bool:
    """A name with a CUDA word in it (``CUDA_HOME``, ``nvcc``; ``cuBLAS``, ``cuDNN`` by their
    lower-case spelling)."""
    vocab = bn.build_vocabulary_for_names()
    if vocab.contains_word(name):
        return True
    return not name.islower() and not name.isupper() and vocab.contains_word(name.lower())


@functools.lru_cache(maxsize=8192)
def _classify(name: str) -> tuple[str, str, str] | None:
    """(ID, problem, suggestion) for a CUDA-looking name, or None."""
    advice = bn.NO_EQUIVALENT.get(name) or bn.NO_EQUIVALENT.get(name.lower())
    if advice is not None:
        return "MP3101", f"'{name}' is a CUDA build setting with no MUSA equivalent", advice
    if name.startswith("CMAKE_CUDA_"):
        return ("MP3101", f"'{name}' is CMake's CUDA language setting, and MUSA is not a "
                "CMake language", "move its value to MUSA_MCC_FLAGS (read by "
                "musa_add_library), or delete it")
    if not looks_like_cuda(name):
        return None
    if name == "CUDA":
        return ("MP3103", "'CUDA' is left as a value (a language or device name)",
                "decide its MUSA value (e.g. MUSA) together with every place that compares "
                "or uses it")
    new = bn.suggest_rename(name)
    return ("MP3103", f"'{name}' looks like CUDA and no rule ports it",
            f"rename it to {new} wherever it is defined and used, or --keep {name}")


def _scan_word(w: Word, keep: Set[str]) -> list[_Found]:
    """The CUDA names left in one word: toolkit targets, libraries, nvcc options, arches,
    then every other name that looks like CUDA."""
    found: list[_Found] = []

    def covered(s: int) -> bool:
        return any(f.start <= s < f.end for f in found)

    if w.where != TEXT:
        for m in TARGET.finditer(w.text):
            found.append(_Found(w.start + m.start(), w.start + m.end(), "MP3102", m.group(),
                                f"'{m.group()}' is a CUDA toolkit target with no MUSA target "
                                "known", bn.LIBRARY_ADVICE.get(m.group(1))
                                or "link the MUSA library you need (MUSA::mublas, ...)"))
        for rx in (_LIB_FLAG, _LIB_FILE):
            for m in rx.finditer(w.text):
                advice = _library_advice(m.group(1))
                if advice is not None:
                    found.append(_Found(w.start + m.start(), w.start + m.end(), "MP3102",
                                        m.group(), f"'{m.group()}' names a CUDA library", advice))
        for m in _OPTION.finditer(w.text):
            s = w.start + m.start()
            opt = _nvcc_option_left(m.group())
            if opt is not None and not covered(s):
                found.append(_Found(s, w.start + m.end(), "MP3102", m.group(),
                                    f"'{m.group()}' is nvcc's {opt.long}, left where the port "
                                    "does not rewrite (a pattern, prose or raw text)",
                                    f"use mcc's form: {nf.describe(opt)}"))
        for m in _ARCH_LEFT.finditer(w.text):
            s = w.start + m.start()
            if not covered(s):
                found.append(_Found(s, w.start + m.end(), "MP3104", m.group(),
                                    f"'{m.group()}' names an NVIDIA arch", "use a MUSA arch "
                                    "(mp_21, mp_22, mp_31; --offload-arch=mp_XX)"))
    for s, e, name in _names(w):
        if name in keep or covered(s):
            continue
        hit = _classify(name)
        if hit is not None:
            found.append(_Found(s, e, hit[0], name, hit[1], hit[2]))
    if w.where == TEXT:  # prose: the text is the project's, left as written
        for m in _IDENT.finditer(w.text):
            s = w.start + m.start()
            if not covered(s) and m.group() not in keep and (
                    looks_like_cuda(m.group()) or _ARCH_LEFT.fullmatch(m.group())):
                found.append(_Found(s, w.start + m.end(), "MP3108", m.group(),
                                    f"'{m.group()}' in a message or doc string is left as "
                                    "written", "reword it if the text should speak of MUSA"))
    return found


def scan_words(words: Iterable[Word], keep: Set[str]) -> list[_Found]:
    """Every CUDA name left in the words of a ported build file."""
    return [f for w in words for f in _scan_word(w, keep)]


def build_diagnostics(src: bytes, out: bytes, changes: Sequence[Change], notes: Sequence[Note],
                      words: Iterable[Word], keep: Set[str],
                      protected: Sequence[tuple[int, int]] = ()) -> list[Diagnostic]:
    """The findings of one ported build file, placed in the port and in the original."""
    omap = OffsetMap(changes)
    raw: list[tuple[int, int, str, str, str]] = []  # (out offset, src offset, id, text, message)
    explained: list[tuple[int, int]] = []
    for n in notes:
        o_start, o_end = omap.to_out(n.start), omap.to_out(n.end, end=True)
        explained.append((o_start, max(o_end, o_start + 1)))
        raw.append((o_start, n.start, n.id, n.text, n.message))
    out_protected = [(omap.to_out(s), omap.to_out(e, end=True)) for s, e in protected]
    # Spans a finding may not start in, merged: one bisect per finding (checking each
    # span cost findings x notes: 6,400 recipe lines took 6 s).
    quiet = merge_spans(explained + out_protected)
    quiet_starts = [s for s, _ in quiet]
    for f in scan_words(words, keep):
        i = bisect_right(quiet_starts, f.start) - 1
        if i >= 0 and f.start < quiet[i][1]:
            continue
        raw.append((f.start, omap.to_src(f.start), f.id, f.text, f"{f.problem}; {f.suggestion}"))
    if not raw:
        return []
    out_lc = line_cols(out, [r[0] for r in raw])
    src_lc = line_cols(src, [r[1] for r in raw])
    found = [Diagnostic(cid, text, *out_lc[o], *src_lc[s], msg) for o, s, cid, text, msg in raw]
    found.sort(key=lambda d: (d.line, d.column, d.id))
    return found
