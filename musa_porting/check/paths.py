"""Which files of a tree a path or a glob names, component by component.

A build names its files as text: a literal path, a pattern (``csrc/cuda/*.cu``), or a
value computed from pieces the check reads statically (``port/python/values.py``),
where what it cannot know is a hole, written ``*``: it stands for anything within one
path component (a variable's folder may be deeper, but reading it as any depth would
match files the build never names). ``**`` is a glob's any-depth folder.

The index lists each folder's entries once, on first need: a literal path is a set
lookup, a pattern walks only the folders its components allow.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from fnmatch import fnmatchcase

MAGIC = re.compile(r"[*?\[]")


def is_pattern(path: str) -> bool:
    return MAGIC.search(path) is not None


class PathIndex:
    """The files of a tree (relative POSIX paths) and the folders that hold them."""

    def __init__(self, files: Iterable[str]):
        self.files = files if isinstance(files, (set, frozenset, dict)) else set(files)
        self._children: dict[str, set[str]] | None = None

    def _tree(self) -> dict[str, set[str]]:
        if self._children is None:
            children: dict[str, set[str]] = {}
            for rel in self.files:
                parent, _, name = rel.rpartition("/")
                while True:
                    kids = children.get(parent)
                    if kids is None:
                        kids = children[parent] = set()
                    elif name in kids:
                        break
                    kids.add(name)
                    if not parent:
                        break
                    parent, _, name = parent.rpartition("/")
            self._children = children
        return self._children

    def is_dir(self, rel: str) -> bool:
        return rel in self._tree() or rel == ""

    def exists(self, rel: str) -> bool:
        return rel in self.files or self.is_dir(rel)

    def match(self, pattern: str, limit: int = 64) -> list[str]:
        """The files and folders ``pattern`` names (a literal path: itself, if there),
        at most ``limit``, in sorted order."""
        pattern = normalize(pattern)
        if pattern is None:
            return []
        if not is_pattern(pattern):
            return [pattern] if self.exists(pattern) else []
        out: list[str] = []
        self._walk("", pattern.split("/"), out, limit)
        return sorted(out)

    def _walk(self, base: str, comps: list[str], out: list[str], limit: int) -> None:
        if len(out) >= limit:
            return
        if not comps:
            if base:
                out.append(base)
            return
        head, rest = comps[0], comps[1:]
        tree = self._tree()
        if head == "**":
            self._walk(base, rest, out, limit)
            for name in sorted(tree.get(base, ())):
                child = f"{base}/{name}" if base else name
                if child in tree:
                    self._walk(child, comps, out, limit)
            return
        if not is_pattern(head):
            child = f"{base}/{head}" if base else head
            if child in self.files or child in tree:
                self._walk(child, rest, out, limit)
            return
        for name in sorted(tree.get(base, ())):
            if fnmatchcase(name, head) and not (name.startswith(".") and not head.startswith(".")):
                self._walk(f"{base}/{name}" if base else name, rest, out, limit)


def normalize(path: str) -> str | None:
    """A tree-relative path with ``.`` and ``..`` resolved; None when it leaves the tree."""
    if not path or path.startswith("/"):
        return None
    norm = posixpath.normpath(path)
    if norm == "." or norm == ".." or norm.startswith("../"):
        return None
    return norm


def folder_of(rel: str) -> str:
    return rel.rpartition("/")[0]
