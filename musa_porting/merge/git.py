"""git in SRC's repository, for following renames and reading an old upstream ref.

SRC is the user's input, and a tree may ship a ``.git`` of its own: its configuration
is not trusted. git runs through ``safe_git.run_git``, with what it could run
switched off (no fsmonitor, no hooks, no pager, the repository's filter drivers
emptied). git is asked only where a repository can be: SRC or a folder above it holds
a ``.git`` (so that a port outside any repository, most runs, starts no process).
"""

from __future__ import annotations

import os

from ..safe_git import run_git, work_tree_root


def in_repository(folder: str) -> bool:
    """Whether ``folder`` or one above it holds a ``.git`` (a folder or a file)."""
    return work_tree_root(os.path.abspath(folder)) is not None


def git(folder: str, *args: str, ok: tuple[int, ...] = (0,), timeout: float = 600,
        filters: bool = True) -> bytes | None:
    """``git -C folder args``' output, or None: no git, or it failed (its exit code
    not in ``ok``). ``filters``: the command may read files of the work tree or of
    the repository (a diff, an archive), so the repository's filters are emptied."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        return None
    try:
        proc = run_git(folder, *args, timeout=timeout, filters=filters)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode in ok else None
