"""File kinds: which files of a tree are ported, and how.

Every file is one of: a kind listed here (ported: its bytes go through the kind's
port function, which also finds what is left), or anything else (copied byte for
byte). The kinds: ``cxx``, C, C++ and CUDA sources, chosen by extension
(``--extensions``); ``python``, ``.py`` files (unless ``--no-python``); ``cmake``,
``make`` and ``shell``, build files, chosen by name (and a script with no extension by
its first line; ``--no-build-files`` copies them). A new kind is a case in
``KindSelector.kind_of`` (with whatever option switches it) and a port function with
the signature of ``port_cxx`` in ``PORTERS``.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from ..analyze.arches import Target
from ..analyze.checks import Diagnostic
from ..analyze.findings import MAX_PER_FILE, find_diagnostics
from ..analyze.project_findings import arch_findings, project_findings
from ..analyze.residuals import Knowledge
from ..analyze.string_findings import python_library_findings, string_findings
from ..analyze.suppress import unsuppressed
from ..port.cxx.porter import port_bytes
from .build_kind import BUILD_KINDS, build_kind_of, may_be_script, port_build_file, shell_script_calling_nvcc
from .options import PortOptions
from .ported import FileContext, Ported


def port_cxx(data: bytes, ctx: FileContext) -> Ported:
    """C, C++ and CUDA: rules, includes that follow renames, markers; then residuals
    and hazards (a reverse port, MUSA -> CUDA, has none)."""
    rules, resolver, rel = ctx.rules, ctx.resolver, ctx.rel
    ported = port_bytes(
        data,
        rules.matcher,
        include_mapper=lambda t: resolver.ported_target(rel, t),
        skip=ctx.skip,
        known_headers=rules.known_headers,
        messages=rules.messages,
        strings=rules.strings,
        arch_numbers=not ctx.reverse,
    )
    found: list[Diagnostic] = []
    dropped: dict[str, int] = {}
    if not ctx.reverse:
        k = rules.knowledge
        knowledge = Knowledge(k.known, k.keep, k.cuda_headers,
                              lambda t: resolver.resolve(rel, t) is not None)
        found = find_diagnostics(data, ported.data, ported.edits, knowledge, ported.lexed,
                                 MAX_PER_FILE, dropped, Target(tuple(ctx.opts.arch)), rel)
    found += project_findings(rel, rules.project, ported.edits)
    if rules.strings is not None:
        found += string_findings(ported.data, rules.strings, rules.knowledge.keep, ported.edits)
    found += arch_findings(ported.edits)
    found.sort(key=lambda d: (d.line, d.column, d.id))
    return Ported(ported.data, ported.edits, ported.warnings, found, ported.by_family(),
                  ported.by_rule(), dropped)


def port_python(data: bytes, ctx: FileContext) -> Ported:
    """Python: the statements that need it parsed and rewritten (see port/python);
    paths to ported sources follow ``ctx.out_rel_of``."""
    # The Python porter loads with the first .py file (a C++ tree never needs it).
    from ..port.python import port_python as port_python_source
    from .python_run import python_setup

    rules, launch = python_setup(ctx.rules, ctx.out_rel_of, ctx.opts)
    p = port_python_source(data, rules, bases=(posixpath.dirname(ctx.rel), ""),
                           launch=ctx.rel in launch)
    found = p.diagnostics + project_findings(ctx.rel, ctx.rules.project, p.edits)  # setup.py's macros
    if ctx.rules.strings is not None:
        found += python_library_findings(p.data, ctx.rules.strings, p.edits)
    return Ported(p.data, p.edits, p.warnings, found, p.by_family, p.by_rule)


def _with_inline_suppressions(port: Callable[[bytes, FileContext], Ported]
                              ) -> Callable[[bytes, FileContext], Ported]:
    """A port function whose findings honour ``musa-port: ignore[ID]`` markers."""

    @functools.wraps(port)
    def wrapped(data: bytes, ctx: FileContext) -> Ported:
        ported = port(data, ctx)
        if b"musa-port:" in data:
            ported.diagnostics, warnings = unsuppressed(data, ported.diagnostics)
            ported.warnings = [*ported.warnings, *warnings]
        return ported

    return wrapped


PORTERS: dict[str, Callable[[bytes, FileContext], Ported]] = {"cxx": port_cxx,
                                                               "python": port_python}
# Build files: CMake, Makefiles, shell scripts that call nvcc (tree/build_kind.py).
PORTERS.update({k: functools.partial(port_build_file, k) for k in BUILD_KINDS})
PORTERS = {k: _with_inline_suppressions(f) for k, f in PORTERS.items()}
# Kinds whose port function uses only the user's rules from ``ctx.rules``, not the
# tables: a run that ports nothing else does not load the tables (~0.2 s).
TABLE_FREE = frozenset({"python"})


@dataclass(frozen=True)
class KindSelector:
    """Decides each file's kind from the run's options."""

    extensions: frozenset[str]  # C/C++/CUDA sources (--extensions), with their dots
    python: bool = True  # .py files (off with --no-python, and for a reverse port)
    build_files: bool = False  # CMake, Make and shell files are ported (not --reverse)

    @classmethod
    def from_options(cls, opts: PortOptions) -> KindSelector:
        return cls(frozenset(e if e.startswith(".") else "." + e for e in opts.extensions),
                   python=opts.python and not opts.reverse,
                   build_files=opts.build_files and not opts.reverse)

    def kind_of(self, rel: str) -> str | None:
        """The kind that ports ``rel``, or None when it is copied as it is."""
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
