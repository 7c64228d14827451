"""The commit: after every output is staged, put them in place. Stale outputs (and,
with --force, the user's paths in the way) are removed, folders that replace an
earlier run's file or link are moved in from their temp folders, each staged temp
file is renamed over its output, modes are fixed, and the staged manifest is renamed
last. Unchanged outputs keep bytes and mtime.

Only renames and removals happen here, in folders staging proved writable, and Ctrl-C
or SIGTERM waits for the end (``interrupts.deferred``): the commit runs to its end,
or a SIGKILL stops it, after which every output is old or new and the journal lets
the next run complete it. Every removal and rename goes through ``OutDir``: relative to
a folder fd of the output, following no link, whatever a tampered manifest says.
"""

from __future__ import annotations

import errno
import stat

from ..errors import PortError
from ..interrupts import deferred
from ..tree.plan import Planned
from ..tree.result import PortResult
from ..tree.walk import Entry
from .faults import fault
from .journal import clear_journal, manifest_temp, remove_temps
from .manifest import MANIFEST_NAME, cache_written
from .outdir import OutDir
from .stage import Stager
from .stale import StalePlan


def commit(planned: list[Planned], dirs: list[Entry], stale: StalePlan, stager: Stager,
           result: PortResult) -> None:
    with deferred():
        try:
            _commit(stager.outdir, planned, dirs, stale, stager, result)
        except OSError as exc:
            _abandon(stager)
            raise PortError(f"{exc.strerror or exc}; outputs are each old or new: run again to "
                            "complete", exc.filename or stager.out) from None


def _commit(out: OutDir, planned: list[Planned], dirs: list[Entry], stale: StalePlan,
            stager: Stager, result: PortResult) -> None:
    for rel in stale.forced:
        fault("commit", out.path(rel))
        out.remove(rel)
    for rel in stale.remove:
        fault("commit", out.path(rel))
        out.unlink(rel)
        result.removed.append(rel)
    for rel in stale.dirs:
        try:
            out.rmdir(rel)
        except OSError:
            pass  # not empty: holds files we did not write (or a link now)
    for rel in stager.pending:
        fault("commit", out.path(rel))
        out.replace(stager.temp_rel(rel), rel, folder=True)
    for p in planned:
        if p.staged:
            fault("commit", out.path(p.out_rel))
            out.replace(stager.temp_rel(p.out_rel), p.out_rel)
        elif p.chmod:
            out.chmod(p.out_rel, p.entry.mode)
    for d in dirs:
        want = d.mode | stat.S_IRWXU  # we must be able to write into it next run
        st = out.lstat(d.rel)
        if st is None or not stat.S_ISDIR(st.st_mode):
            raise OSError(errno.ENOENT, "the folder is gone, or a link is where it must be", out.path(d.rel))
        if stat.S_IMODE(st.st_mode) != want:
            out.chmod(d.rel, want)
    if stager.manifest_staged:
        fault("manifest", out.path(MANIFEST_NAME))
        out.replace(manifest_temp(stager.token), MANIFEST_NAME)
        cache_written(out.out, len(planned))
    fault("journal", out.out)
    clear_journal(out)


def _abandon(stager: Stager) -> None:
    """After a failed rename: remove the temp files not yet in place, but keep the
    journal and the staged manifest, so the next run knows what this one placed."""
    remove_temps(stager.outdir, stager.stage_dirs, stager.token, keep=manifest_temp(stager.token))
