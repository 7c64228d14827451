"""Where a finding is, as the tools that read a report want it: GitHub resolves a
relative path in SARIF, and the ``file=`` of a workflow annotation, from the root of the
repository, so paths are written relative to the git work tree SRC is in (found by its
``.git``, a folder or, in a linked work tree or a submodule, a file), not to SRC."""

from __future__ import annotations

import os
import posixpath

from ..safe_git import work_tree_root


def repository_root(path: str) -> str | None:
    """The root of the git work tree holding ``path`` (a real path), or None."""
    folder = os.path.realpath(path)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    return work_tree_root(folder)


def relative_to(root: str, folder: str, rel: str) -> str | None:
    """``rel`` (a path under ``folder``, with ``/``) relative to ``root``, or None when
    the file is not under it."""
    path = os.path.join(os.path.realpath(folder), *rel.split("/"))
    inner = os.path.relpath(path, root)
    if inner == os.pardir or inner.startswith(os.pardir + os.sep) or os.path.isabs(inner):
        return None
    return posixpath.normpath(inner.replace(os.sep, "/"))


def shown_path(src: str, rel: str) -> str:
    """A file of SRC as the user would type it (relative to the working folder when
    that is shorter)."""
    path = os.path.join(src, rel) if rel else src
    shown = os.path.relpath(path)
    return shown if not shown.startswith("..") else path


def finding_place(r, f, d) -> tuple[str, int, int]:
    """Where a text line puts finding ``d`` of file ``f`` of port ``r``: the file the
    user opens, as SARIF's primary location does: the ported file after a port, the CUDA
    file after a dry run (nothing was written), as the user types it (``shown_path``)."""
    if r.dry_run:
        return shown_path(r.src, f.rel), d.src_line, d.src_column
    return shown_path(r.output, f.out_rel), d.line, d.column


def finding_text(path: str, line: int, column: int, d) -> str:
    """One finding as every text output prints it, a compiler's line that editors and
    CI logs link: ``path:line:col: level: message [ID name]``."""
    return f"{path}:{line}:{column}: {d.level}: {d.message} [{d.id} {d.check.name}]"
