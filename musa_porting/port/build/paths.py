"""Paths in build files follow the port's renamed folders and files.

With renamed paths (the default), ``csrc/cuda/gemm_cuda.cu`` is written as
``csrc/musa/gemm_musa.mu``; a build file that names it, or its folder, must name the
new path: a CMake source list, ``add_subdirectory(cuda)``, an include folder, a
Makefile rule ``cuda/%.o: cuda/%.cu``, a glob ``src/cuda/*.cu``. A path is rewritten
when it names a file or folder of the tree (relative to the build file's folder, to the
top of the tree, or after ``${CMAKE_CURRENT_SOURCE_DIR}/``, ``${CMAKE_SOURCE_DIR}/``,
``./``), component by component: only the components the text spells out change, so
``${SRC}/cuda`` is left (the variable may point anywhere). A glob or pattern follows
through its folder part. A bare word without ``/`` or an extension is a path only where
the command takes folders (``add_subdirectory``, the include-folder commands).
"""

from __future__ import annotations

import posixpath
import re

from .context import BuildContext

_RUN = re.compile(r"[A-Za-z0-9_./+\-${}%*?]+")
_FLAG = re.compile(r"^-(?:I|L|isystem|iquote|idirafter)")  # -Iinclude/cuda: the path after it
_EXTENSION = re.compile(r"\.[A-Za-z0-9_]+$")
_WILD = re.compile(r"[*?%]")
_SOURCE_DIR_PREFIX = re.compile(r"^(?:\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR)\}/|\./)")
_ROOT_PREFIX = re.compile(r"^\$\{(?:CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR)\}/")


def path_edits(text: str, ctx: BuildContext, *, bare: bool = False) -> list[tuple[int, int, str]]:
    """Edits (start, end, new text; relative to ``text``) of the components of the paths
    in one word that name renamed files or folders of the tree."""
    out: list[tuple[int, int, str]] = []
    for m in _RUN.finditer(text):
        run, at = m.group(), m.start()
        flag = _FLAG.match(run)
        if flag is not None:
            run, at = run[flag.end():], at + flag.end()
        if "/" not in run and not (bare or _EXTENSION.search(run)):
            continue
        out += [(at + s, at + e, new) for s, e, new in _run_edits(run, ctx)]
    return out


def _run_edits(run: str, ctx: BuildContext) -> list[tuple[int, int, str]]:
    body = run.rstrip("/")
    wild = _WILD.search(body)
    if wild is not None:  # a glob or a pattern: its folder part
        body = body[:body.rfind("/", 0, wild.start())] if "/" in body[:wild.start()] else ""
    if not body or body in (".", ".."):
        return []
    found = resolve(body, ctx)
    if found is None:
        return []
    old, new = found
    if old == new:
        return []
    comps = body.split("/")
    old_c, new_c = old.split("/"), new.split("/")
    edits = []
    pos = len(body)
    for i in range(1, min(len(comps), len(old_c)) + 1):
        c = comps[-i]
        start = pos - len(c)
        pos = start - 1
        if c != old_c[-i] or "$" in c:
            break  # a base folder the text does not spell out
        if new_c[-i] != c:
            edits.append((start, start + len(c), new_c[-i]))
    return edits


def resolve(path: str, ctx: BuildContext) -> tuple[str, str] | None:
    """The tree path ``path`` names (relative to the build file's folder, or to the top of
    the tree) and its output path, or None."""
    if "$" in _SOURCE_DIR_PREFIX.sub("", path) and not _ROOT_PREFIX.match(path):
        return None
    here = posixpath.dirname(ctx.rel)
    if _ROOT_PREFIX.match(path):
        candidates = [_ROOT_PREFIX.sub("", path)]
    else:
        rest = _SOURCE_DIR_PREFIX.sub("", path)
        candidates = [posixpath.normpath(posixpath.join(here, rest)), posixpath.normpath(rest)]
    for c in candidates:
        out = ctx.out_rel_of.get(c)
        if out is not None:
            return c, out
    return None
