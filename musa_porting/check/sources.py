"""MP5001: every file the ported build names is in the ported tree.

The build's references are its files' ``paths`` facts: a ``setup.py``'s extension
sources, globs and existence checks (computed values read statically, ``*`` where not
known), CMake and Makefile sources and globs. A reference that matches nothing in OUT
is an error when it named an input the port wrote elsewhere (``tree.moved``); a glob or
an ``exists`` check then drops the sources without a word, which is the case worth a
check most.
"""

from __future__ import annotations

from .found import Found, finding, listed
from .tree import OutTree

_WHAT = {
    "source": ("the extension's source", "the build stops there"),
    "exists": ("the existence check of", "the build leaves it out without a word"),
    "glob": ("the glob", "the build leaves them out without a word"),
    "cmake": ("the CMake source", "the configure or the build stops there"),
    "cmake glob": ("the file(GLOB) pattern", "the target is built without them"),
    "make": ("the Makefile's file", "make stops there"),
    "make glob": ("the $(wildcard) pattern", "the rule is built without them"),
    "include folder": ("the include folder", "the compiler does not look there"),
    "remove": ("the file taken out of the source list", "setup.py stops with a ValueError"),
    "cmake folder": ("the CMake folder", "the compiler (or add_subdirectory) does not find it"),
}


def missing_files(tree: OutTree) -> list[Found]:
    out: list[Found] = []
    seen: set[tuple] = set()
    for rel, (path, line, col, how) in tree.rows("paths"):
        if (rel, path, line) in seen:
            continue
        seen.add((rel, path, line))
        if tree.in_out(path):
            continue
        moved = tree.moved(path)
        if not moved:
            continue  # names nothing in either tree: not the port's doing
        what, effect = _WHAT.get(how, ("the build's reference", "the build misses it"))
        before = listed([f"{src} (now {new})" for src, new in moved])
        out.append(finding("MP5001", rel, line, col, path,
                           f"{what} {path} names nothing in the ported tree; before the port "
                           f"it named {before}: {effect}"))
    return out
