"""The Python modules and packages whose names a port keeps: those other code imports by
name from outside the run.

A module's dotted name is resolved by string, by the import system, by every program
that imports it. The run follows each import of a module it renames in the files it
ports (``port/python/module_imports.py``), but not what is outside SRC: the users of an
installed package (``from pkg.cuda import ops`` in another project, an entry point in a
package's metadata, a pickle). So, as for the names a C++ extension exports to Python,
the name is kept unless every user of it is ported in the same run:

- a tree with a ``setup.py``, ``setup.cfg`` or ``pyproject.toml`` is a package others
  install, and its public modules (no part of the dotted name starts with ``_``) keep
  their names; its private ones are its own business, renamed, and their imports follow;
- a tree with none of these is run from its folder (scripts, a research repository):
  every import of its modules is in the run;
- with Python not ported (``--no-python``) no import follows, so no folder that holds
  Python is renamed.

``--rename-exported`` renames the public ones too (the run's imports follow).
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from .walk import Entry

INSTALL_FILES = frozenset({"setup.py", "setup.cfg", "pyproject.toml"})


def kept_modules(entries: Sequence[Entry], python: bool, rename_exported: bool) -> frozenset[str]:
    """The ``.py`` files and folders of ``entries`` whose names the port must keep."""
    files = [e.rel for e in entries if e.kind != "dir"]
    py = [f for f in files if f.endswith(".py")]
    if not py:
        return frozenset()
    holders = {posixpath.dirname(f) for f in py} - {""}
    if not python:  # nothing follows a rename: every folder on the way to Python stays
        out = set()
        for d in holders:
            while d and d not in out:
                out.add(d)
                d = posixpath.dirname(d)
        return frozenset(out)
    installs = [posixpath.dirname(f) for f in files if posixpath.basename(f) in INSTALL_FILES]
    if rename_exported or not installs:
        return frozenset()
    packages = {posixpath.dirname(f) for f in py if posixpath.basename(f) == "__init__.py"} - {""}
    out = set()
    # Modules: .py files, packages, and namespace folders inside a package.
    for rel in [*py, *(d for d in holders if d in packages or posixpath.dirname(d) in packages)]:
        name = posixpath.basename(rel)
        parts = [name[:-3] if rel in py else name]
        folder = posixpath.dirname(rel)
        while folder in packages:
            parts.append(posixpath.basename(folder))
            folder = posixpath.dirname(folder)
        if any(p.startswith("_") and p != "__init__" for p in parts):
            continue  # private: only the package imports it
        if any(not i or folder == i or folder.startswith(i + "/") for i in installs):
            out.add(rel)
    return frozenset(out)
