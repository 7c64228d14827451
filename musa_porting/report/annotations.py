"""Findings as lines for a CI log or a reader, as ruff's ``--output-format`` prints
them: ``github`` (workflow commands that GitHub Actions turns into annotations on the
pull request's lines: one per place) and ``grouped`` (by file, summed up as the summary
does). Both point at the CUDA file and line, where the fix goes; notes only when asked
for."""

from __future__ import annotations

from collections.abc import Set

from ..analyze.checks import Diagnostic
from ..tree.result import FileOutcome, PortResult
from .counts import findings
from .grouping import grouped_view
from .locations import relative_to, repository_root, shown_path

GITHUB_LEVELS = {"error": "error", "warning": "warning", "note": "notice"}


def _shown(r: PortResult, suppress: Set[str], notes: bool) -> list[tuple[FileOutcome, Diagnostic]]:
    return [(f, d) for f, d in findings(r, suppress) if notes or d.level != "note"]


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def finding_text(d: Diagnostic) -> str:
    """``2:1  MP1002 unknown-cuda-name (warning, residual): ...``: a finding under its file."""
    c = d.check
    kind = f"{d.level}, residual" if c.residual else d.level
    return f"{d.src_line}:{d.src_column}  {d.id} {c.name} ({kind}): {d.message}"


def github_lines(r: PortResult, suppress: Set[str] = frozenset(), notes: bool = False) -> list[str]:
    """``::warning file=csrc/a.cu,line=2,col=1,title=MP1002 unknown-cuda-name::...``,
    the file relative to the repository's root (as GitHub reads it)."""
    root = repository_root(r.src)
    out = []
    for f, d in _shown(r, suppress, notes):
        path = (relative_to(root, r.src, f.rel) if root else None) or shown_path(r.src, f.rel)
        out.append(github_line(path, d))
    return out


def github_line(path: str, d: Diagnostic) -> str:
    """One finding as a workflow command (``::warning file=...::message``)."""
    props = (f"file={escape_property(path)},line={d.src_line},col={d.src_column},"
             f"title={escape_property(f'{d.id} {d.check.name}')}")
    return f"::{GITHUB_LEVELS[d.level]} {props}::{escape_data(d.message)}"


def grouped_text(r: PortResult, suppress: Set[str] = frozenset(), notes: bool = False) -> str:
    """The findings under the CUDA file they are in, one line each (``  2:1  MP1002
    unknown-cuda-name (warning, residual): ...``), files in path order, summed up as a
    person reads them (``grouping.py``: one note for a check's places that need no
    change...). ``github`` gives every place its own line instead."""
    r = grouped_view(r)
    by_file: dict[str, list[Diagnostic]] = {}
    for f, d in _shown(r, suppress, notes):
        by_file.setdefault(f.rel, []).append(d)
    blocks = []
    for rel in sorted(by_file):
        lines = [f"{shown_path(r.src, rel)}:"]
        for d in sorted(by_file[rel], key=lambda d: (d.src_line, d.src_column, d.id)):
            lines.append(f"  {finding_text(d)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
