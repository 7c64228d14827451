"""Rewriting the words of a build file: nvcc options, and the toolchain's names.

One ``Rewriter`` per file collects ``Change``s (non-overlapping spans of the file and
their new text) and ``Note``s (findings decided while rewriting: an arch that does not
map 1:1, a dropped nvcc option), statement by statement. The CMake, Make and shell
porters feed it the words their lexers found, plus what they know of the context (a
link command's bare library names, a compile-definitions command's macro names).

Where a word stands (``build_words``) decides what may change: code in full; in a
string of several words only variable references, paths, flags and file names; in a
pattern only references and file names; in prose only references.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from . import build_names as bn
from . import nvcc_flags as nf
from .build_words import CODE, PATTERN, RAW, STRING, TEXT, Word
from .filenames import RENAMES

ARCH_NOTE = ("mp_21 is MTT S80/S3000, mp_22 MTT S4000, mp_31 MTT S5000: check that these are "
             "the GPUs you build for (musa-port --arch)")

_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
# A variable reference: ${X}, $ENV{X} (CMake, shell), $(X) (make), $X (shell, make).
REF = re.compile(r"\$(?:ENV)?\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\(([A-Za-z_][A-Za-z0-9_]*)\)"
                 r"|\$([A-Za-z_][A-Za-z0-9_]*)")
_HOME_REF = (r"(?:\$(?:ENV)?\{(?:CUDA_HOME|CUDA_PATH|CUDA_TOOLKIT_ROOT_DIR|CUDAToolkit_ROOT)\}"
             r"|\$\((?:CUDA_HOME|CUDA_PATH)\)|\$(?:CUDA_HOME|CUDA_PATH)(?![A-Za-z0-9_])"
             r"|/usr/local/cuda(?:-[0-9.]+)?)")
_LIB64 = re.compile(_HOME_REF + r"/(lib64)(?![A-Za-z0-9_])")
_INSTALL = re.compile(r"/usr/local/cuda(-[0-9.]+)?(?![A-Za-z0-9_.])")
_NVCC_CODE = re.compile(r"(?:(?<=:-)|(?<![A-Za-z0-9_.\-]))nvcc(?![A-Za-z0-9_.\-])")
_NVCC_PATH = re.compile(r"(?<=/)nvcc(?![A-Za-z0-9_.\-])")
_LIB_FLAG = re.compile(r"(?<![A-Za-z0-9_\-])-l([A-Za-z0-9_]+)")
_LIB_FILE = re.compile(r"(?<![A-Za-z0-9_])lib([A-Za-z0-9_]+?)\.(so|a|dylib)(?![A-Za-z0-9_])")
TARGET = re.compile(r"(?<![A-Za-z0-9_])CUDA::([A-Za-z0-9_]+)")
_SUFFIX = re.compile(r"(?<=[A-Za-z0-9_%*)}:\]\\+-])\.(cuh?)(?![A-Za-z0-9_])")
_PATH_CHARS = re.compile(r"[A-Za-z0-9_./+\-${}%*]*$")
_MACRO_FLAG = re.compile(r"(?<![A-Za-z0-9_\-])-[DU]([A-Za-z_][A-Za-z0-9_]*)")
_DEFINITION = re.compile(r"(?:-D)?([A-Za-z_][A-Za-z0-9_]*)")
_SOURCE_DIR_PREFIX = re.compile(r"^(?:\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/|\./)")
_ROOT_PREFIX = re.compile(r"^\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/")


@dataclass(frozen=True)
class Change:
    """Replace ``[start, end)`` of the file with ``new``."""

    start: int
    end: int
    new: str


@dataclass(frozen=True)
class Note:
    """A finding decided while porting, about the source span ``[start, end)``."""

    id: str
    start: int
    end: int
    text: str  # the CUDA text it is about
    problem: str
    suggestion: str

    @property
    def message(self) -> str:
        return f"{self.problem}; {self.suggestion}"


@dataclass
class BuildContext:
    """What rewriting one build file may know about the run."""

    rel: str  # the build file, relative to SRC
    arches: tuple[str, ...]  # --arch, e.g. ("mp_22",)
    out_rel_of: Mapping[str, str]  # every input of the tree -> its output path
    rename_cu: bool = True  # .cu/.cuh files are renamed by this port
    macro: Callable[[str], str | None] = lambda name: None  # a -D name's new name
    names: Mapping[str, str] = field(default_factory=dict)  # toolchain variables -> MUSA
    keep: frozenset[str] = frozenset()

    def offload_flags(self, joiner: str = " ") -> str:
        return joiner.join(f"--offload-arch={a}" for a in self.arches)


class Rewriter:
    """Collects the changes and notes for one build file (``text``: Latin-1)."""

    def __init__(self, text: str, ctx: BuildContext):
        self.text = text
        self.ctx = ctx
        self.changes: list[Change] = []
        self.notes: list[Note] = []
        self._taken: list[tuple[int, int]] = []

    # -- recording ---------------------------------------------------------------------

    def change(self, start: int, end: int, new: str) -> bool:
        """Record a change unless it overlaps one already made (the first wins)."""
        for s, e in self._taken:
            if (start < e and s < end) or (start == end and s < start < e) or (
                    s == e and start < s < end) or (start == end == s == e):
                return False
        if self.text[start:end] == new:
            return False
        self._taken.append((start, end))
        self.changes.append(Change(start, end, new))
        return True

    def note(self, check: str, start: int, end: int, problem: str, suggestion: str) -> None:
        self.notes.append(Note(check, start, end, self.text[start:end], problem, suggestion))

    def taken(self, start: int, end: int) -> bool:
        return any(start < e and s < end for s, e in self._taken)

    def drop(self, start: int, end: int) -> bool:
        """Remove ``[start, end)`` with the blank (or list separator) before it, or, when
        there is none, the one after it."""
        t = self.text
        s, e = start, end
        line_start = t.rfind("\n", 0, s) + 1
        first_on_line = t[line_start:s].strip() == ""
        if s > 0 and t[s - 1] == ";":
            s -= 1
        elif first_on_line:  # keep the indentation: take the blank after the word
            while e < len(t) and t[e] in " \t":
                e += 1
        else:
            while s > 0 and t[s - 1] in " \t":
                s -= 1
            if s == start or self.taken(s, start):
                s = start
                if e < len(t) and t[e] == ";":
                    e += 1
                else:
                    while e < len(t) and t[e] in " \t":
                        e += 1
        return self.change(s, e, "")

    # -- statements --------------------------------------------------------------------

    def statement(self, words: Sequence[Word], *, link: bool = False, defs: bool = False) -> None:
        """Rewrite one statement's words: nvcc options first (they may take the next
        word as their value), then each remaining word's names."""
        arch_written = False
        i = 0
        while i < len(words):
            w = words[i]
            m = nf.match_flag(w.text) if w.where in (CODE, STRING) else None
            if m is not None:
                used, arch_written = self.flag(words, i, m, arch_written)
                if used:
                    i += used
                    continue
            self.word(w, link=link, defs=defs)
            i += 1

    def flag(self, words: Sequence[Word], i: int, m: nf.FlagMatch, arch_written: bool
             ) -> tuple[int, bool]:
        """One nvcc option at ``words[i]``: returns (words used, an arch flag written)."""
        w, opt = words[i], m.option
        value, end, used = m.value, w.end, 1
        sep = ""  # what separates the option from a value of its own (" ", ";", ...)
        if opt.value and not m.joined:
            nxt = words[i + 1] if i + 1 < len(words) else None
            if nxt is not None and nxt.start == w.end:
                nxt = None  # -L"$X/lib": the same word goes on, quoted; not a value of its own
            flag_like_ok = opt.action in (nf.HOST, nf.DROP) or opt.short == "-Xlinker"
            if nxt is not None and (flag_like_ok or not nxt.text.startswith("-")):
                quoted = self._quoted_group(w, nxt)
                if quoted is not None and opt.action in (nf.HOST, nf.DROP, nf.ARCH):
                    value, end = quoted
                    used = 1 + sum(1 for x in words[i + 1:] if x.start < end)
                else:
                    value, end, used = nxt.text, nxt.end, 2
                    sep = self.text[w.end:nxt.start]
        if opt.action == nf.ARCH:
            if value is None:
                return 0, arch_written
            return used, self.arch(w, value, end, arch_written, ";" in sep) or arch_written
        if opt.action == nf.HOST:
            if value is None:
                return 0, arch_written
            self.change(w.start, end, nf.host_flags(value))
            return used, arch_written
        if opt.action == nf.DROP:
            if self.drop(w.start, end):
                self.note("MP3105", w.start, end, f"dropped nvcc's '{self.text[w.start:end]}' "
                          f"({opt.long})", opt.note)
            return used, arch_written
        if opt.action == nf.LEFT:
            self.note("MP3102", w.start, w.end, f"'{w.text}' is nvcc's {opt.long}, which mcc "
                      "does not have", opt.note)
            return 1, arch_written
        if opt.action == nf.SAME:
            return 0, arch_written
        return self.mapped(w, m, value, end, used), arch_written

    def mapped(self, w: Word, m: nf.FlagMatch, value: str | None, end: int, used: int) -> int:
        """A ``map``/``lang`` option: its mcc spelling (words used; 0 leaves the word to
        the name rules)."""
        opt = m.option
        if opt.value and value is None:
            return 0  # gcc's bare -Werror and the like: not nvcc's form
        template = opt.mcc if isinstance(opt.mcc, str) else ""
        if opt.action != nf.LANG and not m.joined and template in (w.text + "{}", w.text + " {}"):
            return 0  # -I dir, -o x: mcc takes the same spelling; the value is a word
        if opt.action == nf.LANG:
            if value != "cu":
                return 0
            new = nf.mcc_spelling(opt, value)
        elif template.endswith(" {}") and not m.joined:
            # -MF x.d, -o x: only the option's spelling changes; the value is a word.
            self.change(w.start, w.end, template[:-3])
            return 1
        else:
            new = nf.mcc_spelling(opt, value)
        if new is None:
            return 0
        original = self.text[w.start:end]
        if new == original:
            return 0
        done = self.drop(w.start, end) if new == "" else self.change(w.start, end, new)
        if opt.note and done:
            self.note("MP3105", w.start, end, f"nvcc's '{original}' became "
                      f"'{new or '(nothing)'}'", opt.note)
        return used

    def arch(self, w: Word, value: str, end: int, written: bool, in_list: bool = False) -> bool:
        """An arch option (``-arch``, ``-code``, ``-gencode``): the first of a statement
        becomes the --arch flags, the others go. Returns True when flags were written."""
        original = self.text[w.start:end]
        if REF.search(value) and w.text.split("=")[0] in ("-arch", "--gpu-architecture"):
            new = f"--offload-arch={value}"
            if self.change(w.start, end, new):
                self.note("MP3104", w.start, end, f"nvcc's '{original}' became '{new}': "
                          f"{value} must now name MUSA arches", "set it to "
                          + ",".join(self.ctx.arches) + "; " + ARCH_NOTE)
            return True
        if written:
            if self.drop(w.start, end):
                self.note("MP3104", w.start, end, f"dropped nvcc's '{original}': the "
                          "--offload-arch flags before it cover the MUSA arches",
                          "nothing to do; " + ARCH_NOTE)
            return False
        t = self.text
        in_list = in_list or (w.start > 0 and t[w.start - 1] == ";") or (end < len(t) and t[end] == ";")
        flags = self.ctx.offload_flags(";" if in_list else " ")
        if self.change(w.start, end, flags):
            self.note("MP3104", w.start, end, f"nvcc's '{original}' became '{flags}': sm "
                      "numbers do not map 1:1 to MUSA arches", ARCH_NOTE)
        return True

    def _quoted_group(self, flag: Word, nxt: Word) -> tuple[str, int] | None:
        """When ``nxt`` opens a quoted string of its own (``-Xcompiler "-fPIC -O2"``), the
        string's body and the index just past its closing quote."""
        t = self.text
        q = nxt.start - 1
        if q <= flag.end or t[q] not in "\"'" or nxt.where != STRING:
            return None
        close = t.find(t[q], nxt.start)
        if close < 0:
            return None
        return t[nxt.start:close], close + 1

    # -- words -------------------------------------------------------------------------

    def word(self, w: Word, *, link: bool = False, defs: bool = False) -> None:
        """The names in one word, by where it stands."""
        where, text, base = w.where, w.text, w.start
        if where == RAW:
            return
        found: list[tuple[int, int, str]] = []
        notes: list[tuple[str, int, int, str, str]] = []
        # Variable references (everywhere) and, in code, bare toolchain names.
        if where == CODE:
            for m in _IDENT.finditer(text):
                new = self.ctx.names.get(m.group())
                if new is not None:
                    found.append((m.start(), m.end(), new))
        else:
            for m in REF.finditer(text):
                g = 1 if m.group(1) else 2 if m.group(2) else 3
                new = self.ctx.names.get(m.group(g))
                if new is not None:
                    found.append((m.start(g), m.end(g), new))
        if where == TEXT:
            self._apply(base, found, notes)
            return
        # File names: .cu -> .mu as the port renames them.
        for m in _SUFFIX.finditer(text):
            hit = self._file_name(text, m)
            if hit is not None:
                found.append(hit)
        if where == PATTERN:
            self._apply(base, found, notes)
            return
        # Paths, libraries, targets, macro names: code and strings.
        for m in _LIB64.finditer(text):
            found.append((m.start(1), m.end(1), "lib"))
        for m in _INSTALL.finditer(text):
            found.append((m.start(), m.end(), bn.MUSA_INSTALL_DIR))
            if m.group(1):
                notes.append(("MP3107", m.start(), m.end(), f"'{m.group()}' became "
                              f"'{bn.MUSA_INSTALL_DIR}'", "MUSA installs are not versioned "
                              "like CUDA's: check the path (or use $MUSA_HOME)"))
        for m in (_NVCC_CODE if where == CODE else _NVCC_PATH).finditer(text):
            found.append((m.start(), m.end(), bn.COMPILER))
        for m in _LIB_FLAG.finditer(text):
            new = bn.library(m.group(1))
            if new is not None:
                found.append((m.start(1), m.end(1), new))
        for m in _LIB_FILE.finditer(text):
            new = bn.library(m.group(1))
            if new is not None:
                found.append((m.start(1), m.end(1), new))
        for m in TARGET.finditer(text):
            new = bn.library(m.group(1))
            if new is not None:
                found.append((m.start(), m.end(), "MUSA::" + new))
        for m in _MACRO_FLAG.finditer(text):
            new = self.ctx.macro(m.group(1))
            if new is not None:
                found.append((m.start(1), m.end(1), new))
        if where == CODE:
            if link and bn.library(text) is not None:
                found.append((0, len(text), bn.library(text) or text))
            if defs:
                m = _DEFINITION.match(text)
                if m is not None:
                    new = self.ctx.macro(m.group(1))
                    if new is not None:
                        found.append((m.start(1), m.end(1), new))
            for m in bn.ARCH_WORD.finditer(text):
                new = self.ctx.arches[0]
                found.append((m.start(), m.end(), new))
                extra = (f" (only the first of --arch {','.join(self.ctx.arches)}: one word "
                         "holds one arch)") if len(self.ctx.arches) > 1 else ""
                notes.append(("MP3104", m.start(), m.end(), f"'{m.group()}' became '{new}'"
                              f"{extra}: sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE))
        self._apply(base, found, notes)

    def _apply(self, base: int, found: list[tuple[int, int, str]],
               notes: list[tuple[str, int, int, str, str]]) -> None:
        """Record a word's changes; a note stands only where its change was made."""
        made = []
        for s, e, new in sorted(found):
            if self.change(base + s, base + e, new):
                made.append((s, e))
        for check, s, e, problem, suggestion in notes:
            if any(ms <= s and e <= me for ms, me in made):
                self.note(check, base + s, base + e, problem, suggestion)

    def _file_name(self, text: str, m: re.Match) -> tuple[int, int, str] | None:
        """A ``.cu``/``.cuh`` name's new spelling (span in the word, text): the tree's output
        name when the word names a file of the tree (its base name, so any rename the port
        made is followed), else the port's suffix rename (when it renames them)."""
        path = text[:m.end()]
        path = path[len(path) - len(_PATH_CHARS.search(path).group()):]  # type: ignore[union-attr]
        out = self._tree_output(path)
        if out is not None:
            base_start = m.end() - len(posixpath.basename(path))
            return base_start, m.end(), posixpath.basename(out)
        if not self.ctx.rename_cu:
            return None
        return m.start(), m.end(), RENAMES["." + m.group(1)]

    def _tree_output(self, path: str) -> str | None:
        """The output path of the tree file ``path`` names (relative to the build file,
        or to the top of the tree), or None."""
        if "$" in _SOURCE_DIR_PREFIX.sub("", path) and not _ROOT_PREFIX.match(path):
            return None
        if any(c in path for c in "*%"):
            return None
        here = posixpath.dirname(self.ctx.rel)
        if _ROOT_PREFIX.match(path):
            candidates = [_ROOT_PREFIX.sub("", path)]
        else:
            rest = _SOURCE_DIR_PREFIX.sub("", path)
            candidates = [posixpath.normpath(posixpath.join(here, rest)), posixpath.normpath(rest)]
        for c in candidates:
            out = self.ctx.out_rel_of.get(c)
            if out is not None:
                return out
        return None
