"""File kinds: which files of a tree are ported (``porters`` says how).

Every file is one of: a kind listed here (ported: its bytes go through the kind's
port function, which also finds what is left), or anything else (copied byte for
byte). The kinds: ``cxx``, C, C++ and CUDA sources, chosen by extension
(``--extensions``); ``python``, ``.py`` files (unless ``--no-python``); ``cmake``,
``make`` and ``shell``, build files, chosen by name (and a script with no extension by
its first line; ``--no-build-files`` copies them). A new kind is a case in
``KindSelector.kind_of`` (with whatever option switches it) and a port function with
the signature of ``port_cxx`` in ``porters.PORTERS``.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass

from .build_kind import BUILD_KINDS, build_kind_of, may_be_script, shell_script_calling_nvcc
from .options import PortOptions

# Kinds whose port function uses only the user's rules from ``ctx.rules``, not the
# tables: a run that ports nothing else does not load the tables (~0.2 s).
TABLE_FREE = frozenset({"python"})


@dataclass(frozen=True)
class KindSelector:
    """Decides each file's kind from the run's options."""

    extensions: frozenset[str]  # C/C++/CUDA sources (--extensions), with their dots
    python: bool = True  # .py files (off with --no-python, and for a reverse port)
    build_files: bool = False  # CMake, Make and shell files are ported (not --reverse)
    # Files copied as they are whatever their kind: the MUSA twins of CUDA files, the
    # porter's own work (tree/twins.py).
    verbatim: frozenset[str] = frozenset()

    @classmethod
    def from_options(cls, opts: PortOptions) -> KindSelector:
        return cls(frozenset(e if e.startswith(".") else "." + e for e in opts.extensions),
                   python=opts.python and not opts.reverse,
                   build_files=opts.build_files and not opts.reverse)

    def kind_of(self, rel: str) -> str | None:
        """The kind that ports ``rel``, or None when it is copied as it is."""
        if rel in self.verbatim:
            return None
        ext = posixpath.splitext(rel)[1]
        if ext in self.extensions:
            return "cxx"
        if ext == ".py" and self.python:
            return "python"
        if self.build_files:
            return build_kind_of(rel)
        return None

    def may_sniff(self, rel: str) -> bool:
        """Whether ``rel``'s kind depends on its content (a script with no extension)."""
        return self.build_files and build_kind_of(rel) is None and may_be_script(rel)

    def sniff(self, data: bytes) -> str | None:
        """The kind of a file ``may_sniff`` allowed: a shell script that calls nvcc."""
        return "shell" if shell_script_calling_nvcc(data) else None


def load_porters(kinds: set[str | None]) -> None:
    """Import what porting files of ``kinds`` runs, now, in the parent: the porters,
    and the modules a port function imports on its first call (the Python porter, the
    build files' porter and findings), so that forked workers inherit them instead of
    each importing them. ``None`` among the kinds: a file whose first line decides its
    kind (a script that may call nvcc)."""
    from . import porters  # noqa: F401

    if "python" in kinds:
        from ..port import python  # noqa: F401
        from . import python_run  # noqa: F401
    if kinds & set(BUILD_KINDS) or None in kinds:
        from ..analyze import build_findings  # noqa: F401
        from ..port.build import file, rewrite  # noqa: F401
