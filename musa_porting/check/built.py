"""The Python modules the ported tree makes and holds: the extensions its build makes
(a ``setup.py``'s ``Extension(name, sources)``, CMake's ``pybind11_add_module``), the
module inits its C++ defines, and its ``.py`` modules and packages, found by the path
an import names (relative to the importing file, or to a root of the tree's packages).

Names may hold ``*`` (what the build computes from a value not known statically): two
names meet when some name matches both.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cached_property

from .tree import OutTree


def meet(a: str, b: str) -> bool:
    """Whether two names, each with ``*`` for what is not known, may be the same."""
    if "*" not in a:
        return fnmatchcase(a, b)
    if "*" not in b:
        return fnmatchcase(b, a)
    pa, sa, pb, sb = a.split("*")[0], a.split("*")[-1], b.split("*")[0], b.split("*")[-1]
    return (pa.startswith(pb) or pb.startswith(pa)) and (sa.endswith(sb) or sb.endswith(sa))


def last(name: str) -> str:
    return name.rpartition(".")[2]


@dataclass(frozen=True)
class Built:
    """An extension the build makes: its name's alternatives (dotted), where."""

    names: tuple[str, ...]
    rel: str
    line: int
    sources: tuple[str, ...]

    def makes(self, module: str) -> bool:
        """Whether one of its names is ``module`` (the last dotted part of each)."""
        return any(meet(last(module), last(n)) for n in self.names)

    def has_source(self, rel: str) -> bool:
        return any(fnmatchcase(rel, s) for s in self.sources)

    def shown(self) -> str:
        return f"{' / '.join(self.names)} ({self.rel}:{self.line})"


class Modules:
    """What the join knows of modules, built once per check."""

    def __init__(self, tree: OutTree):
        self.tree = tree

    @cached_property
    def built(self) -> list[Built]:
        return [Built(tuple(names), rel, line, tuple(sources))
                for rel, (names, line, _, sources) in self.tree.rows("builds")]

    @cached_property
    def inits(self) -> dict[str, tuple[str, int]]:
        """Module names the C++ initialises -> where (PyInit_X, PYBIND11_MODULE(X))."""
        out: dict[str, tuple[str, int]] = {}
        for rel, (name, line, _, _) in self.tree.rows("init"):
            out.setdefault(name, (rel, line))
        return out

    def makers(self, module: str) -> list[Built]:
        return [b for b in self.built if b.makes(module)]

    # -- Python modules by path ----------------------------------------------------------

    def python_module(self, base: str, dotted: str, exists) -> str | None:
        """The module or package ``dotted`` names under folder ``base``, by ``exists``."""
        path = posixpath.join(base, *dotted.split(".")) if dotted else base
        for cand in (path + ".py", path + "/__init__.py", path):
            if cand and exists(cand):
                return cand
        return None

    def bases(self, rel: str, spec: str, exists) -> tuple[list[str], str]:
        """The folders an import ``spec`` of file ``rel`` is looked up from, and the
        dotted rest: a relative one from the file's package, an absolute one from the
        tree's top and from the root of the file's own packages."""
        here = posixpath.dirname(rel)
        dots = len(spec) - len(spec.lstrip("."))
        if dots:
            base = here
            for _ in range(dots - 1):
                base = posixpath.dirname(base)
            return [base], spec[dots:]
        top = here
        while top and exists(posixpath.join(top, "__init__.py")):
            top = posixpath.dirname(top)
        return list(dict.fromkeys(("", top))), spec
