"""A file's facts: what it names that another file must define, and what it defines.

Gathered from an output's bytes where the file is ported (``gather.py``, in the
worker that ports it) and kept in its manifest record (``FileRecord.facts``), as the
symbol index keeps a file's definitions: a re-run reads no unchanged file again, and
the check joins the facts of every output in the parent. JSON lists, each row with the
line and column in the output it is read from (1-based):

- ``include``: ``[target, line, col]``, each ``#include "target"``;
- ``init``: ``[module, line, col, how]``, a module init (``PyInit_x``, ``PYBIND11_MODULE``);
- ``ops``: ``[namespace, name, line, col]``, an op the file registers (``*``: the
  namespace is TORCH_EXTENSION_NAME);
- ``binds``: ``[name, line, col]``, a name pybind11 binds (``m.def``, ``py::class_``);
- ``builds``: ``[[module, ...], line, col, [source, ...]]``, a Python extension the build
  makes (its name's alternatives, tree-relative sources; ``*`` for what is not known);
- ``paths``: ``[path, line, col, how]``, a file or glob the build names (tree-relative);
- ``reads``: ``[namespace, name, line, col]``, ``torch.ops.namespace.name`` read;
- ``loads``: ``[module, folder, line, col, how]``, a module loaded by a computed name;
- ``imports``: ``[module, line, col]``, an import (``.x``: relative, one dot a level);
- ``attrs``: ``[module, attr, line, col]``, ``module.attr`` read off an imported module
  (``!`` before the module: an extension for certain, mmcv's ``load_ext`` lists);
- ``quiet``: ``[line, [ID, ...] or None]``, the lines ``musa-port: ignore`` markers quiet.
"""

from __future__ import annotations

import posixpath
from typing import Any

WILDCARD = "*"  # an op namespace that is TORCH_EXTENSION_NAME: the build's name, whatever it is

# The file kinds whose facts the check reads (tree/kinds.py's kinds), by name for a
# file that is copied rather than ported (--no-python, a MUSA twin).
_CXX_EXTENSIONS = frozenset((".cu", ".cuh", ".mu", ".muh", ".c", ".cc", ".cpp", ".cxx", ".h",
                             ".hh", ".hpp", ".hxx", ".inl", ".inc", ".ipp", ".tpp"))


def kind_by_name(rel: str) -> str | None:
    """The kind whose facts a copied file has (None: none)."""
    base = posixpath.basename(rel)
    ext = posixpath.splitext(base)[1]
    if ext in _CXX_EXTENSIONS:
        return "cxx"
    if ext == ".py":
        return "python"
    if base == "CMakeLists.txt" or ext == ".cmake":
        return "cmake"
    if base in ("Makefile", "makefile", "GNUmakefile") or ext == ".mk":
        return "make"
    return None


# What each key's rows hold (validated when a manifest is read back: a tree that ships
# its own output folder controls the manifest, and a bad row must not crash the check).
_SHAPES: dict[str, tuple] = {
    "include": (str, int, int),
    "init": (str, int, int, str),
    "ops": (str, str, int, int),
    "binds": (str, int, int),
    "builds": (list, int, int, list),
    "paths": (str, int, int, str),
    "reads": (str, str, int, int),
    "loads": (str, str, int, int, str),
    "imports": (str, int, int),
    "attrs": (str, str, int, int),
    "quiet": (int, (list, type(None))),
}


def facts_ok(facts: Any) -> bool:
    """Facts as a run writes them (see the module's docstring)."""
    if facts is None:
        return True
    if type(facts) is not dict:
        return False
    for key, rows in facts.items():
        shape = _SHAPES.get(key)
        if shape is None or type(rows) is not list:
            return False
        for row in rows:
            if type(row) is not list or len(row) != len(shape):
                return False
            for value, want in zip(row, shape):
                if not isinstance(value, want) or type(value) is bool:
                    return False
            if key == "builds" and not all(type(x) is str for x in (*row[0], *row[3])):
                return False
            if key == "quiet" and row[1] is not None and not all(type(x) is str for x in row[1]):
                return False
    return True
