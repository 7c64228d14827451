"""The tree's Python modules and packages, and what the port renamed them to: so that
every import of a renamed one (``from . import cuda``, ``import pkg.cuda.ops``,
``importlib.import_module("pkg.ops.ops_cuda")``) names it as it is in OUT.

A dotted name is resolved as Python resolves it, against the tree: a relative import
from the importing file's package, an absolute one from the folder the importing
file's own top-level package lies in (or a script's own folder), then from the tree's
other import roots. A part is a folder (a package, or a namespace folder holding
Python) or a ``.py`` file; what does not resolve in the tree (``import cuda``, the
``cuda-python`` package; a compiled extension) is not the tree's, and stays. Only the
renamed parts change, to the name ``tree/names.py`` gave the file or folder.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_IDENT = re.compile(r"[A-Za-z_]\w*")


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


@dataclass(frozen=True)
class ModuleTree:
    """Every ``.py`` file and folder of the tree (paths relative to SRC) and the new
    name of each one the port renamed (``pkg/cuda`` -> ``musa``)."""

    py_files: frozenset[str]
    dirs: frozenset[str]  # folders that hold Python somewhere below
    packages: frozenset[str]  # folders with an __init__.py
    renamed: Mapping[str, str]  # module path -> its new last part
    roots: tuple[str, ...] = field(default=("",))  # where absolute imports start

    def words(self) -> list[str]:
        """The renamed modules' old names: what an import of one spells."""
        return sorted({posixpath.splitext(posixpath.basename(p))[0] for p in self.renamed})

    def own_root(self, rel: str) -> str:
        """The folder a file's absolute imports start from: above its top-level package,
        or its own folder for a script."""
        folder = posixpath.dirname(rel)
        while folder in self.packages:
            folder = posixpath.dirname(folder)
        return folder

    def resolve(self, folder: str, parts: Sequence[str], top: bool = False) -> list[str]:
        """The module path of each leading part of ``parts`` that names a module under
        ``folder`` (a package may stop at a module: the rest are its attributes). At
        the ``top`` of an absolute import a folder must be a regular package: one
        without ``__init__.py`` loses to any package of that name on the path."""
        out: list[str] = []
        for i, part in enumerate(parts):
            path = _join(folder, part)
            if path in self.dirs and (not top or i or path in self.packages):
                out.append(path)
                folder = path
                continue
            if path + ".py" in self.py_files:
                out.append(path + ".py")
            break
        return out

    def absolute(self, rel: str, parts: Sequence[str]) -> list[str]:
        """``resolve`` of an absolute dotted name imported by file ``rel``."""
        own = self.own_root(rel)
        for root in (own, *(r for r in self.roots if r != own)):
            found = self.resolve(root, parts, top=True)
            if found:
                return found
        return []

    def relative(self, rel: str, level: int, parts: Sequence[str]) -> tuple[str, list[str]] | None:
        """The package folder a relative import of ``level`` dots starts from in file
        ``rel``, and ``resolve`` of its parts; None above the tree."""
        folder = posixpath.dirname(rel)
        for _ in range(level - 1):
            if not folder:
                return None
            folder = posixpath.dirname(folder)
        return folder, self.resolve(folder, parts)

    def new_parts(self, parts: Sequence[str], found: Sequence[str]) -> list[str | None]:
        """For each part, its new name when the module it resolved to was renamed."""
        return [self.renamed.get(found[i]) if i < len(found) else None for i in range(len(parts))]


def module_tree(out_rel_of: Mapping[str, str]) -> ModuleTree:
    """The Python modules of a port, from each input's output path (folders included)."""
    py = frozenset(k for k in out_rel_of if k.endswith(".py"))
    holders: set[str] = set()
    for f in py:
        d = posixpath.dirname(f)
        while d and d not in holders:
            holders.add(d)
            d = posixpath.dirname(d)
    packages = frozenset(posixpath.dirname(f) for f in py
                         if posixpath.basename(f) == "__init__.py" and "/" in f)
    renamed = {}
    for rel in (*py, *holders):
        old, new = posixpath.basename(rel), posixpath.basename(out_rel_of.get(rel, rel))
        if rel in py:
            old, new = old[:-3], new[:-3] if new.endswith(".py") else ""
        if new != old and _IDENT.fullmatch(new) and _IDENT.fullmatch(old):
            renamed[rel] = new
    # Import roots: the tree's root and every folder a top-level package lies in.
    roots = {""} | {posixpath.dirname(p) for p in packages if posixpath.dirname(p) not in packages}
    return ModuleTree(py, frozenset(holders), packages, renamed,
                      tuple(sorted(roots, key=lambda r: (r.count("/"), r))))
