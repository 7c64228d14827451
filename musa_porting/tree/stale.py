"""Removing outputs of an earlier run whose input is gone. Only what the manifest
says musa-port wrote, and only if it is unchanged since: a user's edit is kept (with
a warning), and files musa-port did not write are never touched."""

from __future__ import annotations

import os

from .files import same_stat
from .manifest import Manifest
from .result import PortResult


def remove_stale(out: str, old: Manifest, outputs: set[str], dirs: set[str],
                 result: PortResult) -> None:
    for rel, rec in sorted(old.files.items()):
        if rel in outputs:
            continue
        path = os.path.join(out, rel)
        if not os.path.lexists(path):
            continue
        if rec.kind == "symlink" and os.path.islink(path) or \
                same_stat(path, rec.out_size, rec.out_mtime_ns):
            os.unlink(path)
            result.removed.append(rel)
        else:
            result.kept_stale.append(rel)
            result.warnings.append(f"{path}: warning: its input is gone but it changed since "
                                   "musa-port wrote it; left in place")
    for rel in sorted(set(old.dirs) - dirs, key=lambda r: -r.count("/")):
        try:
            os.rmdir(os.path.join(out, rel))
        except OSError:
            pass  # not empty: holds files we did not write
