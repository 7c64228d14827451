"""What the output holds where a run writes, and whose it is.

Two rules keep a run from writing where it must not:

- It never writes through a link of the output. Each folder on an output's path is
  looked at with ``lstat``: a real folder, missing (staging creates it), or a file or
  link of an earlier run where a folder must now go (a source link became a folder).
  Such a folder is created at commit time, from an empty temp folder, after the link
  or file is removed; until then its outputs are staged in the nearest real folder
  above it, never through the link.
- It never replaces or removes what it did not write. A path in the output that is
  not in the manifest is the user's: a run that would replace it stops with exit 2
  naming it, unless ``--force``. A user's file that already holds exactly the bytes
  and mode the run would write is taken over as it is (nothing is written).
"""

from __future__ import annotations

import os
import posixpath
import stat

from ..errors import PortError
from .manifest import Manifest

REAL, MISSING, PENDING = "real", "missing", "pending"


# How a Conflict says the way past it (SimplePorting says it as its keyword).
FORCE_HINT = "use --force"


class Conflict(PortError):
    """An output path holds something musa-port did not write."""


def conflict(out: str, rel: str, what: str, old: Manifest) -> Conflict:
    why = f"the output is not known to be musa-port's: {old.problem}" if old.problem \
        else "it is not in the manifest"
    return Conflict(f"{what}; musa-port did not write it ({why}): move it away, or "
                    f"{FORCE_HINT} to replace it", os.path.join(out, rel))


class OutputState:
    def __init__(self, out: str, old: Manifest, force: bool):
        self.out = out
        self.old = old
        self.force = force
        self.old_dirs = set(old.dirs)
        # output folder -> REAL, MISSING or PENDING (see classify)
        self.dirs: dict[str, str] = {"": REAL if os.path.isdir(out) else MISSING}
        self.forced: list[str] = []  # the user's paths that --force lets the run replace

    def classify(self, dirs: list[str]) -> None:
        """Look at every folder the run writes into (parents before children)."""
        for rel in dirs:
            parent = self.dirs[posixpath.dirname(rel)]
            if parent != REAL:
                self.dirs[rel] = parent
                continue
            try:
                st = os.lstat(os.path.join(self.out, rel))
            except FileNotFoundError:
                self.dirs[rel] = MISSING
                continue
            if stat.S_ISDIR(st.st_mode):
                self.dirs[rel] = REAL
                continue
            if not self.old.owns(rel):
                if not self.force:
                    kind = "a link" if stat.S_ISLNK(st.st_mode) else "a file"
                    raise conflict(self.out, rel, f"{kind} is where a folder must go", self.old)
                self.forced.append(rel)
            self.dirs[rel] = PENDING

    def reachable(self, out_rel: str) -> bool:
        """The output's folder exists as real folders all the way down."""
        return self._state(posixpath.dirname(out_rel)) == REAL

    def _state(self, rel: str) -> str:
        """A folder's state; one this run does not write into (an earlier run's) is
        looked at on first use: REAL, or "other" (missing, a link, a file)."""
        known = self.dirs.get(rel)
        if known is not None:
            return known
        state = "other"
        if self._state(posixpath.dirname(rel)) == REAL:
            try:
                if stat.S_ISDIR(os.lstat(os.path.join(self.out, rel)).st_mode):
                    state = REAL
            except OSError:
                pass
        self.dirs[rel] = state
        return state

    def lstat(self, out_rel: str) -> os.stat_result | None:
        """What is at an output's path now (None: nothing, or not reachable without
        following a link: it will be a new folder)."""
        if not self.reachable(out_rel):
            return None
        try:
            return os.lstat(os.path.join(self.out, out_rel))
        except OSError:
            return None

    def claim(self, out_rel: str, st: os.stat_result | None, same: bool) -> str:
        """May the run put its output at ``out_rel``, where ``st`` is? Returns "dir"
        when an earlier run's folder must be removed first, "forced"/"forced-dir" when
        --force replaces a user's file or folder, else "". ``same``: what is there
        already equals the new output."""
        if st is None:
            return ""
        if stat.S_ISDIR(st.st_mode):
            if out_rel in self.old_dirs:
                return "dir"
            if self.force:
                return "forced-dir"
            raise conflict(self.out, out_rel, "a folder is where a file must go", self.old)
        if self.old.owns(out_rel) or same:
            return ""
        if self.force:
            return "forced"
        kind = "a link" if stat.S_ISLNK(st.st_mode) else "a file"
        raise conflict(self.out, out_rel, f"{kind} is where the port of its input must go",
                       self.old)

    def stage_dir(self, rel: str) -> str:
        """The folder a temp file (or folder) for ``rel`` goes in: its own folder, or the
        nearest real one above it while its own is pending."""
        parent = posixpath.dirname(rel)
        while self.dirs.get(parent) == PENDING:
            parent = posixpath.dirname(parent)
        return parent
