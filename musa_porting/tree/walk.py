"""Walking the source tree: what to port, what to copy, what to ignore.

Symlinks are never followed (a loop cannot hang us, and torch_musa's porting of the
files a link points at, twice, is avoided); they are reported as links. A ``.git``
(git's folder of a clone, or the file of a submodule or a linked work tree) is never
an input, at any depth: copied into the output it would be taken for the output's own
repository, and a re-port would merge git's internals (``GIT_OWN`` among the ignored). Ignore
patterns are gitignore-style (``gitignore.py``), so a bare ``mlu`` ignores every
``mlu`` at any depth with everything under it, and ``common/mlu`` only the one under
the root.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..errors import PortError
from .gitignore import GitIgnore


@dataclass(frozen=True, slots=True)
class Entry:
    """One thing in the source tree. ``rel`` uses '/' separators."""

    rel: str
    kind: str  # "file", "symlink", "dir"
    mode: int
    size: int
    mtime_ns: int
    ctime_ns: int = 0
    # Which file the walk saw: a read must find this one (safe_open), not a link or
    # another file swapped in since.
    dev: int = 0
    ino: int = 0

    @property
    def identity(self) -> tuple[int, int] | None:
        return (self.dev, self.ino) if self.ino else None


def normalize_patterns(patterns: Iterable[str]) -> list[str]:
    """Split comma-separated entries and drop a leading './'."""
    out = []
    for entry in patterns:
        for pat in entry.split(","):
            pat = pat.strip()
            while pat.startswith("./"):
                pat = pat[2:]
            if pat:
                out.append(pat)
    return out


class Ignorer:
    """gitignore-style matching, remembering which pattern ignored what."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = normalize_patterns(patterns)
        self._specs = [(p, GitIgnore([p])) for p in self.patterns]
        self._all = GitIgnore(self.patterns)

    def match(self, rel: str, is_dir: bool) -> str | None:
        """The pattern that ignores ``rel``, or None."""
        if not self.patterns:
            return None
        probe = rel + "/" if is_dir else rel
        if not self._all.match_file(probe):
            return None
        for pat, spec in reversed(self._specs):
            if spec.match_file(probe):
                return pat
        return self.patterns[-1]


GIT_DIR = ".git"
GIT_OWN = "(git's own folder: never ported)"  # how a .git shows among the ignored

_SPECIAL = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
            (stat.S_ISBLK, "a device"))


def walk(root: str, ignorer: Ignorer, ignored: dict[str, str] | None = None,
         skipped: list[tuple[str, str]] | None = None,
         unlisted: dict[str, str] | None = None) -> Iterator[Entry]:
    """Yield every file, symlink and directory under ``root`` in sorted order.

    Ignored paths are skipped (whole directories pruned) and recorded in
    ``ignored`` as rel -> pattern. FIFOs, sockets and devices are never opened (a FIFO
    would block the run); they go to ``skipped`` as (rel, what). A folder under ``root``
    that cannot be listed or searched goes to ``unlisted`` (rel -> why), with nothing of
    what it holds; without ``unlisted`` it is an error, as ``root`` always is.
    """
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        abs_dir = os.path.join(root, rel_dir) if rel_dir else root
        try:
            items = _listed(abs_dir)
        except OSError as exc:
            if unlisted is None or not rel_dir:
                raise
            unlisted[rel_dir] = f"cannot list the folder: {exc.strerror or exc}"
            continue
        except PortError as exc:
            if unlisted is None or not rel_dir:
                raise
            unlisted[rel_dir] = exc.message
            continue
        yield from _entries(rel_dir, items, ignorer, ignored, skipped, stack)


def _listed(abs_dir: str) -> list[tuple[os.DirEntry, os.stat_result]]:
    """A folder's entries, sorted, each with its own stat (one deleted since it was
    listed is left out); a folder that can be listed (r) but not searched (x) is an
    error."""
    with os.scandir(abs_dir) as it:
        items = sorted(it, key=lambda e: e.name)
    out = []
    for item in items:
        try:
            out.append((item, item.stat(follow_symlinks=False)))
        except FileNotFoundError:
            continue  # listed, then deleted before it was looked at: not in the tree
        except PermissionError:
            if not os.access(abs_dir, os.X_OK):  # listed (r) but not searchable (x)
                raise PortError("cannot search folder: Permission denied", abs_dir) from None
            raise
    return out


def _entries(rel_dir: str, items: list[tuple[os.DirEntry, os.stat_result]], ignorer: Ignorer,
             ignored: dict[str, str] | None, skipped: list[tuple[str, str]] | None,
             stack: list[str]) -> Iterator[Entry]:
    """The entries of one listed folder; its subfolders go on ``stack``."""
    subdirs = []
    for item, st in items:
        rel = f"{rel_dir}/{item.name}" if rel_dir else item.name
        if item.name == GIT_DIR:
            if ignored is not None:
                ignored[rel] = GIT_OWN
            continue
        if stat.S_ISLNK(st.st_mode):
            kind = "symlink"
        elif stat.S_ISDIR(st.st_mode):
            kind = "dir"
        elif stat.S_ISREG(st.st_mode):
            kind = "file"
        else:
            if skipped is not None and ignorer.match(rel, False) is None:
                skipped.append((rel, next((w for test, w in _SPECIAL if test(st.st_mode)),
                                          "not a file")))
            continue  # nothing to port or copy
        pat = ignorer.match(rel, kind == "dir")
        if pat is not None:
            if ignored is not None:
                ignored[rel] = pat
            continue
        entry = Entry(rel, kind, stat.S_IMODE(st.st_mode), st.st_size, st.st_mtime_ns,
                      st.st_ctime_ns, st.st_dev, st.st_ino)
        yield entry
        if kind == "dir":
            subdirs.append(rel)
    stack.extend(reversed(subdirs))
