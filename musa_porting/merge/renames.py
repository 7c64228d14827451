"""Inputs renamed upstream, as git says: so that the user's edits of the old output
follow the file to its new name (merged into the new output there) instead of being
left behind as a stale output.

git is asked only when a run has both new inputs and inputs gone, and only where it
can know: SRC in a git work tree whose commit of the last port the manifest recorded
(``git diff -M COMMIT``, tracked files), or two folders (``git diff --no-index -M``:
``--base-from OLD_SRC``). No git, or no answer: nothing is followed, and an edited
output whose input is gone stays where it is, with a warning, as before.
"""

from __future__ import annotations

import os

from .git import git, in_repository

COMMIT_KEY = "source_commit"  # in the manifest's options: SRC's git commit when ported


def _git(folder: str, *args: str, filters: bool = True) -> str | None:
    out = git(folder, *args, ok=(0, 1), timeout=120, filters=filters)  # --no-index: 1 if differ
    return None if out is None else out.decode("utf-8", "surrogateescape")


def source_commit(src: str) -> str:
    """SRC's HEAD commit when SRC is in a git work tree, else ""."""
    if not in_repository(src):
        return ""
    out = _git(src, "rev-parse", "--is-inside-work-tree", "HEAD", filters=False)
    if not out:
        return ""
    lines = out.split()
    return lines[1] if len(lines) == 2 and lines[0] == "true" else ""


def _parse(out: str, strip: tuple[str, str] = ("", "")) -> dict[str, str]:
    """``--name-status -z`` output -> {new path: old path} of the renames."""
    fields = out.split("\0")
    renames: dict[str, str] = {}
    i = 0
    while i < len(fields):
        status = fields[i]
        if status.startswith(("R", "C")) and i + 2 < len(fields):
            old, new = fields[i + 1], fields[i + 2]
            if status.startswith("R"):
                renames[_strip(new, strip[1])] = _strip(old, strip[0])
            i += 3
        elif status:
            i += 2
        else:
            i += 1
    return renames


def _strip(path: str, prefix: str) -> str:
    for p in (prefix, prefix.lstrip("/")):  # git prints the folders as given, or without "/"
        if p and path.startswith(p):
            return path[len(p):]
    return path


def renamed_since(src: str, commit: str) -> dict[str, str]:
    """Files of SRC renamed since ``commit`` (paths relative to SRC): {new: old}."""
    if not commit or not all(c in "0123456789abcdef" for c in commit):
        return {}
    if not in_repository(src):
        return {}
    out = _git(src, "diff", "-M", "--name-status", "-z", "--relative", commit, "--", ".")
    return _parse(out) if out else {}


def renamed_between(old_dir: str, new_dir: str) -> dict[str, str]:
    """Files renamed from folder ``old_dir`` to ``new_dir``: {new rel: old rel}."""
    old_dir, new_dir = os.path.abspath(old_dir), os.path.abspath(new_dir)
    out = _git(old_dir, "diff", "--no-index", "-M", "--name-status", "-z", old_dir, new_dir)
    if not out:
        return {}
    return _parse(out, (old_dir.rstrip("/") + "/", new_dir.rstrip("/") + "/"))
