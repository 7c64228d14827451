"""The commit: after every output is staged, put them in place. Stale outputs (and,
with --force, the user's paths in the way) are removed, folders that replace an
earlier run's file or link are moved in from their temp folders, each staged temp
file is renamed over its output, modes are fixed, and the staged manifest is renamed
last. Unchanged outputs keep bytes and mtime.

Only renames and removals happen here, in folders staging proved writable, and Ctrl-C
or SIGTERM waits for the end (``interrupts.deferred``): the commit runs to its end,
or a SIGKILL stops it, after which every output is old or new and the journal lets
the next run complete it.
"""

from __future__ import annotations

import os
import shutil
import stat

from ..errors import PortError
from ..interrupts import deferred
from .faults import fault
from .journal import clear_journal, manifest_temp, remove_temps
from .manifest import MANIFEST_NAME
from .plan import Planned
from .result import PortResult
from .stage import Stager
from .stale import StalePlan
from .walk import Entry


def commit(out: str, planned: list[Planned], dirs: list[Entry], stale: StalePlan,
           stager: Stager, result: PortResult) -> None:
    with deferred():
        try:
            _commit(out, planned, dirs, stale, stager, result)
        except OSError as exc:
            _abandon(stager)
            raise PortError(f"{exc.strerror or exc}; outputs are each old or new: run again to "
                            "complete", exc.filename or out) from None


def _commit(out: str, planned: list[Planned], dirs: list[Entry], stale: StalePlan,
            stager: Stager, result: PortResult) -> None:
    for rel in stale.forced:
        path = os.path.join(out, rel)
        fault("commit", path)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)
    for rel in stale.remove:
        path = os.path.join(out, rel)
        fault("commit", path)
        os.unlink(path)
        result.removed.append(rel)
    for rel in stale.dirs:
        try:
            os.rmdir(os.path.join(out, rel))
        except OSError:
            pass  # not empty: holds files we did not write
    for rel in stager.pending:
        path = os.path.join(out, rel)
        fault("commit", path)
        os.rename(stager.temp_path(rel), path)
    for p in planned:
        path = os.path.join(out, p.out_rel)
        if p.staged:
            fault("commit", path)
            os.replace(stager.temp_path(p.out_rel), path)
        elif p.chmod:
            os.chmod(path, p.entry.mode)
    for d in dirs:
        path = os.path.join(out, d.rel)
        want = d.mode | stat.S_IRWXU  # we must be able to write into it next run
        if stat.S_IMODE(os.lstat(path).st_mode) != want:
            os.chmod(path, want)
    if stager.manifest_staged:
        path = os.path.join(out, MANIFEST_NAME)
        fault("manifest", path)
        os.replace(os.path.join(out, manifest_temp()), path)
    fault("journal", out)
    clear_journal(out)


def _abandon(stager: Stager) -> None:
    """After a failed rename: remove the temp files not yet in place, but keep the
    journal and the staged manifest, so the next run knows what this one placed."""
    remove_temps(stager.out, stager.stage_dirs, keep=manifest_temp())
