"""The write phase: after every file is planned, replace each changed output (a staged
temp file, or one written now) by a rename, fix folder and file modes, remove stale
outputs and record the run in the manifest. Unchanged outputs keep bytes and mtime."""

from __future__ import annotations

import os
import stat

from .files import atomic_bytes, atomic_copy, tmp_rel
from .journal import clear_journal, recover, write_journal
from .manifest import MANIFEST_NAME, Manifest
from .plan import Planned
from .result import PortResult
from .stale import remove_stale
from .walk import Entry


def write_outputs(src: str, out: str, planned: list[Planned], dirs: list[Entry], *,
                  staged: bool) -> None:
    """Create the folders and replace every output that must change."""
    if not staged:
        recover(out)
        os.makedirs(out, exist_ok=True)
        todo = [p for p in planned if p.data is not None or p.link is not None or p.copy]
        if todo:
            write_journal(out, (tmp_rel(p.out_rel) for p in todo))
    for d in dirs:
        path = os.path.join(out, d.rel)
        if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
            os.unlink(path)  # a file or link we wrote where a folder now is
        os.makedirs(path, exist_ok=True)
        want = d.mode | stat.S_IRWXU  # we must be able to write into it next run
        if stat.S_IMODE(os.stat(path).st_mode) != want:
            os.chmod(path, want)
    for p in planned:
        path = os.path.join(out, p.out_rel)
        parent = os.path.dirname(path)
        if not os.path.isdir(parent):
            os.makedirs(parent, exist_ok=True)
        tmp = os.path.join(out, tmp_rel(p.out_rel))
        if p.staged:
            os.replace(tmp, path)
        elif p.data is not None:
            atomic_bytes(tmp, path, p.data, p.entry.mode)
        elif p.copy:
            atomic_copy(tmp, path, os.path.join(src, p.entry.rel), p.entry.mode)
        elif p.link is not None:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            os.symlink(p.link, tmp)
            os.replace(tmp, path)
        elif p.chmod:
            os.chmod(path, p.entry.mode)
        if p.record.kind != "symlink":
            st = os.lstat(path)
            p.record.out_size, p.record.out_mtime_ns = st.st_size, st.st_mtime_ns


def finish(out: str, planned: list[Planned], dirs: list[Entry], old: Manifest,
           new: Manifest, result: PortResult) -> None:
    """Remove stale outputs and save the manifest when anything in it changed."""
    remove_stale(out, old, {p.out_rel for p in planned}, {d.rel for d in dirs}, result)
    unchanged = (old.fingerprint == new.fingerprint and not result.removed
                 and new.files.keys() == old.files.keys()
                 and all(rec is old.files[k] for k, rec in new.files.items())
                 and sorted(old.dirs) == sorted(new.dirs))
    if not unchanged:  # else every record is the one the manifest already holds
        save_manifest(out, new)
    clear_journal(out)


def save_manifest(out: str, manifest: Manifest) -> None:
    """Write the manifest atomically, unless it holds these bytes already."""
    path = os.path.join(out, MANIFEST_NAME)
    data = manifest.to_json().encode()
    try:
        with open(path, "rb") as fh:
            if fh.read() == data:
                return
    except OSError:
        pass  # no manifest yet: write it
    atomic_bytes(os.path.join(out, tmp_rel(MANIFEST_NAME)), path, data, 0o644)
