"""The port function of each file kind (``PORTERS``).

Apart from ``kinds`` (which decides each file's kind) so that a run that ports
nothing, a no-change re-run, never imports the porters, the findings and their
regular expressions (``kinds.load_porters`` imports them when a run has work).
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable

from ..analyze.arches import Target
from ..analyze.checks import Diagnostic
from ..analyze.findings import MAX_PER_FILE, find_diagnostics
from ..analyze.notes import summarised
from ..analyze.project_findings import arch_findings, project_findings, unattested_findings
from ..analyze.residuals import Knowledge
from ..analyze.string_findings import python_library_findings, string_findings
from ..analyze.suppress import unsuppressed
from ..port.cxx.porter import port_bytes
from ..port.lines import cr_only
from .build_kind import BUILD_KINDS, port_build_file
from .ported import FileContext, Ported

__all__ = ["MAX_PER_FILE", "PORTERS"]

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
        arch_numbers=not ctx.reverse and ctx.opts.arch_values,
        text_rules=rules.text_rules,
    )
    found: list[Diagnostic] = []
    dropped: dict[str, int] = {}
    if not ctx.reverse:
        k = rules.knowledge
        knowledge = Knowledge(k.known, k.keep, k.cuda_headers,
                              lambda t: resolver.resolve(rel, t) is not None)
        found = find_diagnostics(data, ported.data, ported.edits, knowledge, ported.lexed,
                                 MAX_PER_FILE, dropped, Target(tuple(ctx.opts.arch)), rel,
                                 ctx.defined, rules.project)
    found += project_findings(rel, rules.project, ported.edits)
    if rules.strings is not None:
        found += string_findings(ported.data, rules.strings, rules.knowledge.keep, ported.edits)
    found += arch_findings(ported.edits)
    if not ctx.reverse:
        found += unattested_findings(ported.edits)
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
                           launch=ctx.rel in launch, module=ctx.rel)
    found = p.diagnostics + project_findings(ctx.rel, ctx.rules.project, p.edits)  # setup.py's macros
    if ctx.rules.strings is not None:
        found += python_library_findings(p.data, ctx.rules.strings, p.edits)
    return Ported(p.data, p.edits, p.warnings, found, p.by_family, p.by_rule)


def _with_inline_suppressions(port: Callable[[bytes, FileContext], Ported]
                              ) -> Callable[[bytes, FileContext], Ported]:
    """A port function whose findings honour ``musa-port: ignore[ID]`` markers, and
    whose findings that need no change are one note per check (``analyze/notes``)."""

    @functools.wraps(port)
    def wrapped(data: bytes, ctx: FileContext) -> Ported:
        ported = port(data, ctx)
        if b"musa-port:" in data:
            ported.diagnostics, warnings = unsuppressed(data, ported.diagnostics)
            ported.warnings = [*ported.warnings, *warnings]
        if any(d.severity for d in ported.diagnostics):  # what needs no change, summed up
            ported.diagnostics = summarised(ported.diagnostics)
        return ported

    return wrapped


def _with_cr_lines(port: Callable[[bytes, FileContext], Ported]
                   ) -> Callable[[bytes, FileContext], Ported]:
    """A port function that reads a file of CR-only line endings line by line (see
    ``port.lines.cr_only``): every include of it followed, findings at their lines."""

    @functools.wraps(port)
    def wrapped(data: bytes, ctx: FileContext) -> Ported:
        if not cr_only(data):
            return port(data, ctx)
        ported = port(data.replace(b"\r", b"\n"), ctx)
        ported.data = ported.data.replace(b"\n", b"\r")
        return ported

    return wrapped


PORTERS: dict[str, Callable[[bytes, FileContext], Ported]] = {"cxx": port_cxx,
                                                               "python": port_python}
# Build files: CMake, Makefiles, shell scripts that call nvcc (tree/build_kind.py).
PORTERS.update({k: functools.partial(port_build_file, k) for k in BUILD_KINDS})
PORTERS = {k: _with_inline_suppressions(f) for k, f in PORTERS.items()}
# C, C++, CUDA and Python take a CR alone as a line's end (CMake, make and sh do not):
# the markers of inline suppressions are read line by line too.
PORTERS.update({k: _with_cr_lines(PORTERS[k]) for k in ("cxx", "python")})

