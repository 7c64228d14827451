"""The toolchain names in one word of a build file, and what each becomes.

Where a word stands (``build_words``) decides what may change: code in full; in a
string of several words only variable references, paths, flags and file names; in a
pattern only references and file names; in prose only references. The result is a list
of candidate edits relative to the word; ``build_edits.Edits.apply_word`` records them.
"""

from __future__ import annotations

import posixpath
import re

from ..filenames import RENAMES
from . import names as bn
from .context import ARCH_NOTE, BuildContext
from .edits import Found, WordNotes
from .paths import path_edits, resolve
from .words import CODE, PATTERN, RAW, TEXT, Word

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


def word_edits(w: Word, ctx: BuildContext, *, link: bool = False, defs: bool = False,
               dirs: bool = False) -> tuple[Found, WordNotes]:
    """The names in one word, by where it stands: candidate changes and the notes that
    go with them (spans relative to the word). ``dirs``: the command takes folders
    (``add_subdirectory``), so a bare name of a renamed folder is one."""
    where, text = w.where, w.text
    found: Found = []
    notes: WordNotes = []
    if where == RAW:
        return found, notes
    # Variable references (everywhere) and, in code, bare toolchain names.
    names, variables = ctx.names, ctx.variables
    if where == CODE:
        for m in _IDENT.finditer(text):
            new = names.get(m.group()) or variables.get(m.group())
            if new is not None:
                found.append((m.start(), m.end(), new))
    else:
        for m in REF.finditer(text):
            g = 1 if m.group(1) else 2 if m.group(2) else 3
            new = names.get(m.group(g)) or variables.get(m.group(g))
            if new is not None:
                found.append((m.start(g), m.end(g), new))
    if where == TEXT:
        return found, notes
    # File names: .cu -> .mu as the port renames them; and the paths of the tree's renamed
    # files and folders (a bare word only where the command takes folders).
    for m in _SUFFIX.finditer(text):
        hit = _file_name(text, m, ctx)
        if hit is not None:
            found.append(hit)
    found += path_edits(text, ctx, bare=dirs and where == CODE)
    if where == PATTERN:
        return found, notes
    _paths_and_libraries(text, where, ctx, found, notes)
    if where == CODE:
        _code_only(text, ctx, found, notes, link=link, defs=defs)
    return found, notes


def _paths_and_libraries(text: str, where: str, ctx: BuildContext, found: Found,
                         notes: WordNotes) -> None:
    """Paths, libraries, targets, macro names: in code and strings."""
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
        new = ctx.macro(m.group(1))
        if new is not None:
            found.append((m.start(1), m.end(1), new))


def _code_only(text: str, ctx: BuildContext, found: Found, notes: WordNotes, *,
               link: bool, defs: bool) -> None:
    """What only a code word can be: a bare library of a link command, a macro of a
    compile-definitions command, an ``sm_XX`` arch."""
    if link and bn.library(text) is not None:
        found.append((0, len(text), bn.library(text) or text))
    if defs:
        m = _DEFINITION.match(text)
        if m is not None:
            new = ctx.macro(m.group(1))
            if new is not None:
                found.append((m.start(1), m.end(1), new))
    for m in bn.ARCH_WORD.finditer(text):
        new = ctx.arches[0]
        found.append((m.start(), m.end(), new))
        extra = (f" (only the first of --arch {','.join(ctx.arches)}: one word "
                 "holds one arch)") if len(ctx.arches) > 1 else ""
        notes.append(("MP3104", m.start(), m.end(), f"'{m.group()}' became '{new}'"
                      f"{extra}: sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE))


def _file_name(text: str, m: re.Match, ctx: BuildContext) -> tuple[int, int, str] | None:
    """A ``.cu``/``.cuh`` name's new spelling (span in the word, text): the tree's output
    name when the word names a file of the tree (its base name, so any rename the port
    made is followed), else the port's suffix rename (when it renames them)."""
    path = text[:m.end()]
    path = path[len(path) - len(_PATH_CHARS.search(path).group()):]  # type: ignore[union-attr]
    out = _tree_output(path, ctx)
    if out is not None:
        base_start = m.end() - len(posixpath.basename(path))
        return base_start, m.end(), posixpath.basename(out)
    if not ctx.rename_cu:
        return None
    return m.start(), m.end(), RENAMES["." + m.group(1)]


def _tree_output(path: str, ctx: BuildContext) -> str | None:
    """The output path of the tree file ``path`` names (relative to the build file,
    or to the top of the tree), or None."""
    if any(c in path for c in "*%"):
        return None
    found = resolve(path, ctx)
    return found[1] if found is not None else None
