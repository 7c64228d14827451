"""Staging: every new output goes to a temp file while planning runs (ported bytes,
copies, links), then the new manifest; nothing is replaced until all of it is
written. A failure (a full disk, a folder we may not write into) removes the temp
files and the folders staging created, and names the output that failed: the output
is left as it was.

Temp files are named by the run's random token and a hash of the output's path
(``files.temp_name``: no name a tree holds is one), in the output's own folder, or in
the nearest real folder above it while its folder is pending (see ``output_state``);
each folder the commit must change is proven writable here first. Every write goes
through ``OutDir``: relative to a folder fd of the output, following no link.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable

from ..errors import InputError, PortError
from ..tree.plan import Planned
from .faults import fault
from .faults import prepare as prepare_faults
from .files import copy_file, new_token, temp_name, write_chunks, write_file
from .journal import clear_journal, manifest_temp, remove_temps, write_journal
from .manifest import MANIFEST_NAME, TMP_SUFFIX, Manifest
from .outdir import OutDir
from .output_state import MISSING, PENDING, OutputState


class Stager:
    def __init__(self, src: str, outdir: OutDir, state: OutputState, names: Iterable[str] = ()):
        """``names``: the run's output paths (a token that one named as a temp file
        starts with is not taken)."""
        self.src, self.outdir, self.state = src, outdir, state
        self.out = outdir.out
        taken = {n.rsplit("/", 1)[-1][1:17] for n in names if n.endswith(TMP_SUFFIX)}
        self.token = new_token()
        while self.token in taken:
            self.token = new_token()
        self.dirs: list[str] = []  # the run's output folders, parents first
        self.created: list[str] = []  # folders staging created (removed again on failure)
        self.pending: list[str] = []  # folders placed at commit time from temp folders
        self.stage_dirs: list[str] = []  # the folders that may hold temp files
        self.manifest_staged = False
        self._journaled = False

    def prepare(self, dirs: list[str]) -> None:
        """Create the missing folders and the temp folders of the pending ones."""
        self.dirs = dirs
        missing = [d for d in dirs if self.state.dirs[d] == MISSING]
        self.pending = [d for d in dirs if self.state.dirs[d] == PENDING]
        if not missing and not self.pending:
            return
        self._journal()
        for d in missing:
            self.created.append(d)  # first: a Ctrl-C right after mkdir must find it
            self._write(d, self.outdir.mkdir, d)
        for d in self.pending:
            self._write(d, lambda rel: self.outdir.mkdir(rel, 0o700), self.temp_rel(d))

    def before_workers(self) -> None:
        """Forked workers are about to stage files: the journal is written now, by this
        process, so that recovery knows of their temp files and the commit clears it."""
        prepare_faults()
        self._journal()

    def _journal(self) -> None:
        """Before the first thing is written: what a killed run may leave (journal.py)."""
        if self._journaled:
            return
        self.stage_dirs = ["", *(d for d in self.dirs if self.state.dirs[d] != PENDING)]
        created = [d for d in self.dirs if self.state.dirs[d] == MISSING]
        try:
            write_journal(self.outdir, self.token, self.stage_dirs, created)
        except OSError as exc:
            raise PortError(f"cannot write into the output folder: {exc.strerror or exc}",
                            self.out) from None
        self._journaled = True

    def temp_rel(self, rel: str) -> str:
        """Output ``rel``'s temp file (or folder), relative to the output."""
        return posixpath.join(self.state.stage_dir(rel), temp_name(rel, self.token))

    def _write(self, rel: str, write, tmp: str):
        """Run one write of output ``rel`` at ``tmp`` (relative to the output); an error
        names the output."""
        try:
            fault("stage", self.outdir.path(tmp))
            return write(tmp)
        except OSError as exc:
            raise PortError(f"cannot write: {exc.strerror or exc}",
                            os.path.join(self.out, rel) if rel else self.out) from None

    def stage(self, p: Planned) -> None:
        """Write what a planned output needs to its temp file now."""
        if p.staged or (p.data is None and not p.copy and p.link is None):
            return
        self._journal()
        tmp = self.temp_rel(p.out_rel)
        mode = p.entry.mode
        if p.data is not None:
            data = p.data
            st = self._write(p.out_rel, lambda rel: self._file(rel, write_file, data, mode), tmp)
        elif p.copy:
            src, seen = os.path.join(self.src, p.entry.rel), p.entry.identity

            def copy(name: str, dir_fd: int) -> os.stat_result:
                return copy_file(src, name, mode, seen, dir_fd)

            try:
                st = self._write(p.out_rel, lambda rel: self._file(rel, copy), tmp)
            except InputError:  # the source, not the output: what was copied goes
                self.outdir.unlink(tmp, missing_ok=True)
                raise
        else:
            target = p.link
            self._write(p.out_rel, lambda rel: self._symlink(target, rel), tmp)
            st = None
        if st is not None:
            p.record.out_size, p.record.out_mtime_ns = st.st_size, st.st_mtime_ns
        p.staged, p.data = True, None

    def probe(self, folders: set[str]) -> None:
        """Prove the commit may change these folders (remove or rename in them): a
        read-only or immutable folder fails now, before anything is replaced."""
        for d in sorted(folders):
            if self.state.dirs.get(d) == PENDING:
                continue  # created by this run
            self._journal()
            tmp = posixpath.join(d, temp_name(posixpath.join(d, "\0probe"), self.token))
            self._write(d, lambda rel: (self._file(rel, write_file, b"", 0o600),
                                        self.outdir.unlink(rel)), tmp)

    def stage_manifest(self, manifest: Manifest) -> None:
        """The new manifest, last: its presence tells recovery the commit may have begun."""
        self._journal()
        lines = (line.encode() for line in manifest.json_lines())
        self._write(MANIFEST_NAME, lambda rel: self._file(rel, write_chunks, lines, 0o644),
                    manifest_temp(self.token))
        self.manifest_staged = True

    def unstage(self) -> None:
        """Undo staging after a failure: the output is left as it was."""
        remove_temps(self.outdir, self.stage_dirs, self.token)
        for d in reversed(self.created):
            try:
                self.outdir.rmdir(d)
            except OSError:
                pass  # not empty (holds files we did not write) or already gone
        if self._journaled:
            clear_journal(self.outdir)

    def _file(self, rel: str, write, *args):
        """``write(name, *args, dir_fd=...)`` for the temp file ``rel``: created in its
        folder's fd, never through a link."""
        fd, name = self.outdir.at(rel)
        return write(name, *args, dir_fd=fd)

    def _symlink(self, target: str, rel: str) -> None:
        self.outdir.unlink(rel, missing_ok=True)
        self.outdir.symlink(target, rel)
