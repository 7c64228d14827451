"""The user's files as they were before a run changed them: ``OUT/.musa-port/kept/
<when>/<path in OUT>``, one folder per run that replaced an edited output, never
overwritten (a later run keeps its own folder), so nothing of the user's is lost
whatever the merge did. The run's warnings name each file; the folder is the user's
to remove.

Written by whichever process planned the output (forked workers too), before the
commit; a run that fails before its commit removes its folder again (``discard``).
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import time

from ..safe_open import NOFOLLOW
from ..write.outdir import OutDir
from .bases import STATE_DIR, make_folders

KEPT_DIR = STATE_DIR + "/kept"


class KeptFiles:
    def __init__(self, outdir: OutDir):
        self.outdir = outdir
        stamp = time.strftime("%Y%m%d-%H%M%S")
        names: set[str] = set()
        with contextlib.suppress(OSError):  # no kept folder yet: no names taken
            names = set(outdir.names(KEPT_DIR))
        n, self.folder = 1, f"{KEPT_DIR}/{stamp}"
        while posixpath.basename(self.folder) in names:
            n += 1
            self.folder = f"{KEPT_DIR}/{stamp}-{n}"

    def path(self, out_rel: str) -> str:
        return self.outdir.path(f"{self.folder}/{out_rel}")

    def keep(self, out_rel: str, data: bytes, mode: int = 0o644) -> str:
        """Keep ``data``, the bytes at ``out_rel`` now; returns where (a path)."""
        rel = f"{self.folder}/{out_rel}"
        make_folders(self.outdir, posixpath.dirname(rel))
        fd, name = self.outdir.at(rel)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        f = os.open(name, flags, mode & 0o777 | 0o600, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(f, view):]
        finally:
            os.close(f)
        return self.outdir.path(rel)

    def keep_copy(self, out_rel: str) -> str:
        """Keep the file at ``out_rel`` by copying it (too large to hold in memory)."""
        from ..write.files import copy_file

        rel = f"{self.folder}/{out_rel}"
        make_folders(self.outdir, posixpath.dirname(rel))
        fd, name = self.outdir.at(rel)
        copy_file(self.outdir.path(out_rel), name, 0o600, None, fd)
        return self.outdir.path(rel)

    def discard(self) -> None:
        """The run failed before its commit: nothing was replaced, nothing to keep."""
        if self.outdir.is_dir(self.folder):
            with contextlib.suppress(OSError):  # best effort: the run is failing anyway
                self.outdir.rmtree(self.folder)
