"""The build-file kinds (``cmake``, ``make``, ``shell``) as ``kinds.PORTERS`` calls them:
from a ``FileContext`` to the porter in ``port/build/file.py`` and the findings of
``analyze/build_findings.py``."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from .ported import Ported

if TYPE_CHECKING:
    from ..rules.project import ProjectPlan
    from .ported import FileContext

SHELLS = (b"sh", b"bash", b"dash", b"ksh", b"zsh")
# What build_kind_of returns (port/build/file.py ports each; imported when one is met).
BUILD_KINDS = ("cmake", "make", "shell")
# The kinds whose files define macros the symbol index reads (analyze/build_symbols.py):
# the build files, and a setup.py's define_macros.
MACRO_KINDS = frozenset({*BUILD_KINDS, "python"})


def build_kind_of(rel: str) -> str | None:
    """The build kind a file's name says (None: not a build file by its name)."""
    base = posixpath.basename(rel)
    ext = posixpath.splitext(base)[1]
    if base == "CMakeLists.txt" or ext == ".cmake":
        return "cmake"
    if base in ("Makefile", "makefile", "GNUmakefile") or ext == ".mk":
        return "make"
    if ext in (".sh", ".bash"):
        return "shell"
    return None


def may_be_script(rel: str) -> bool:
    """A file with no extension may be a shell script (its first line says)."""
    base = posixpath.basename(rel)
    return "." not in base.lstrip(".")


def shell_script_calling_nvcc(data: bytes) -> bool:
    """``#!/bin/bash`` (or sh, dash, ksh, zsh, through env too) and a word ``nvcc``."""
    if not data.startswith(b"#!"):
        return False
    first = data.split(b"\n", 1)[0].split()
    interp = [posixpath.basename(w.decode("latin-1")).encode() for w in first[:3]]
    if not any(i.lstrip(b"#!") in SHELLS for i in interp):
        return False
    return b"nvcc" in data


def _short(text: str, limit: int = 48) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _rule_label(old: str, new: str) -> str:
    """How a build edit is counted in the reports' top rules (one line)."""
    if not old:
        return "+ " + _short(new)
    if not new:
        return "- " + _short(old)
    return f"{_short(old)} -> {_short(new)}"


def _macro_renamer(ctx: FileContext):
    """A ``-D`` name's new name: the rules' rule for that whole name, if any."""
    matcher = ctx.rules.matcher

    def rename(name: str) -> str | None:
        data = name.encode("latin-1", "replace")
        for start, end, _key, value, _rule in matcher.finditer(data):
            if start == 0 and end == len(data):
                return value.decode("utf-8", "surrogateescape")
        return None

    return rename


def build_macro_renames(project: ProjectPlan | None) -> dict[str, str]:
    """The renames of a build file's own names: the macros the build defines, and the
    extension modules it names (``pybind11_add_module(ext_cuda ...)``), renamed with the
    C++ that binds them (``rules/modules.py``)."""
    from ..analyze.build_symbols import KIND as BUILD_MACRO

    if project is None:
        return {}
    return {**{r.old: r.new for r in project.renames.values()
               if any(s.kind == BUILD_MACRO for s in r.sites)}, **project.module_renames()}


def port_build_file(kind: str, data: bytes, ctx: FileContext) -> Ported:
    """Port one build file and find what is left."""
    from ..analyze.build_findings import build_diagnostics
    from ..analyze.project_findings import project_findings
    from ..port.build.file import build_words, port_build_bytes
    from ..port.build.rewrite import BuildContext

    exts = {e if e.startswith(".") else "." + e for e in ctx.opts.extensions}
    bctx = BuildContext(rel=ctx.rel, arches=tuple(ctx.opts.arch), out_rel_of=ctx.out_rel_of,
                        rename_cu=".cu" in exts, macro=_macro_renamer(ctx),
                        keep=ctx.rules.knowledge.keep,  # a KeepSet: globs too
                        variables=build_macro_renames(ctx.rules.project))
    bp = port_build_bytes(data, kind, bctx)
    words = build_words(kind, bp.data.decode("latin-1"))
    found = build_diagnostics(data, bp.data, bp.changes, bp.notes, words, bctx.keep, bp.protected)
    found += project_findings(ctx.rel, ctx.rules.project, bp.edits)
    by_rule: dict[str, int] = {}
    for e in bp.edits:
        key = _rule_label(e.old, e.new)
        by_rule[key] = by_rule.get(key, 0) + 1
    by_family = {"build": len(bp.edits)} if bp.edits else {}
    return Ported(bp.data, bp.edits, bp.warnings, found, by_family, by_rule)
