"""What makes converting in place safe: git's view of each file, and backups.

torch_musa's musa_converter edits files in place with no way back. Here a file in a
git work tree is changed only when git holds it as it is (committed, no local
changes), so ``git diff`` shows the conversion and ``git checkout`` undoes it; any
other file gets a ``.orig`` copy first.

The tree's own git configuration is not trusted: a ``.git/config`` shipped inside a
tree can name commands that ``git status`` runs (``core.fsmonitor``, a clean filter
for the files it compares, hooks). Git runs here with those switched off
(``safe_git.run_git``): no fsmonitor, no hooks, no pager, every filter the repository
configures emptied, no optional index write; and no descent into submodules.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from functools import lru_cache

from ..safe_git import run_git

CLEAN, DIRTY, UNTRACKED, OUTSIDE = "clean", "dirty", "untracked", "outside"


@lru_cache(maxsize=256)
def _work_tree(folder: str) -> str | None:
    """The top of the git work tree holding ``folder``, or None."""
    if shutil.which("git") is None:
        return None
    try:
        proc = run_git(folder, "rev-parse", "--show-toplevel", timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    top = os.fsdecode(proc.stdout).strip()
    return top if proc.returncode == 0 and top else None


def git_states(paths: Iterable[str]) -> dict[str, str]:
    """Each absolute path's state: clean (committed as it is), dirty (changed or
    staged), untracked (git does not hold it), or outside (no work tree; ignored
    files count as outside, git does not keep them either)."""
    by_top: dict[str, list[str]] = {}
    out: dict[str, str] = {}
    for p in paths:
        top = _work_tree(os.path.dirname(p))
        if top is None:
            out[p] = OUTSIDE
        else:
            by_top.setdefault(top, []).append(p)
    for top, files in by_top.items():
        real_top = os.path.realpath(top)
        rel = {os.path.relpath(os.path.realpath(p), real_top).replace(os.sep, "/"): p
               for p in files}
        for r in [r for r in rel if r == ".." or r.startswith("../")]:
            out[rel.pop(r)] = UNTRACKED  # reached through a link, out of the work tree
        status = _status(top, list(rel)) if rel else {}
        folders = {k for k in status if k.endswith("/")}  # ignored folders, listed whole
        for r, p in rel.items():
            code = status.get(r)
            if code is None and folders:
                code = _folder_code(r, status, folders)
            if code is None:
                out[p] = CLEAN
            elif code == "!!":
                out[p] = OUTSIDE
            elif code == "??":
                out[p] = UNTRACKED
            else:
                out[p] = DIRTY
    return out


def _folder_code(rel: str, status: dict[str, str], folders: set[str]) -> str | None:
    """The code of the nearest folder above ``rel`` that git lists whole (``!! build/``:
    a folder it ignores, and every file in it)."""
    i = rel.rfind("/")
    while i > 0:
        code = status.get(rel[:i + 1]) if rel[:i + 1] in folders else None
        if code is not None:
            return code
        i = rel.rfind("/", 0, i)
    return None


# Up to this many files, git is asked about each by name; past it, about the folder
# that holds them all, once: a command line holds only so much (20,000 long paths
# did not fit: "Argument list too long"), and git matches every file of its index
# against every path named, which grows as their product.
NAMED = 64


def _scope(rels: list[str]) -> list[str]:
    """What ``git status`` is asked about: each file, or the folder that holds them."""
    if len(rels) <= NAMED:
        return [f":(literal){r}" for r in rels]
    common = os.path.commonpath(rels) if all(rels) else ""
    if common in rels:  # one file (named twice): its folder
        common = os.path.dirname(common)
    return [f":(literal){common}"] if common else []


def _status(top: str, rels: list[str]) -> dict[str, str]:
    """``git status`` of ``rels`` (paths relative to ``top``): path -> XY code (a
    folder git lists whole ends with ``/``)."""
    proc = run_git(top, "status", "--porcelain=v1", "-z", "--untracked-files=all",
                "--ignored=matching", "--ignore-submodules=all", "--", *_scope(rels),
                timeout=120, filters=True)
    if proc.returncode != 0:
        # git refuses the work tree (e.g. dubious ownership): hold every file unsafe.
        return {r: "??" for r in rels}
    out: dict[str, str] = {}
    items = proc.stdout.split(b"\0")
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if len(item) < 4:
            continue
        code = item[:2].decode("ascii", "replace")
        out[os.fsdecode(item[3:])] = code
        if code[0] in "RC":  # a rename or copy: its source path follows
            i += 1
    return out


def write_backup(path: str) -> str | None:
    """Copy ``path`` to ``path.orig`` unless one exists (it holds an older original,
    which is the one worth keeping). Returns the backup's path, or None."""
    backup = path + ".orig"
    if os.path.lexists(backup):
        return None
    shutil.copy2(path, backup)
    return backup
