"""Staging: new bytes go to temp files beside their outputs while planning runs, so
writing overlaps porting; nothing is replaced until every file is planned. A failed
plan removes the temp files and the folders staging created: the output is left as
it was."""

from __future__ import annotations

import os

from .files import tmp_rel, write_file
from .journal import clear_journal, recover, write_journal
from .plan import Planned
from .walk import Entry


class Stager:
    def __init__(self, out: str):
        self.out = out
        self.created: list[str] = []  # folders staging created (removed again on failure)

    def prepare(self, out_rels: list[str], dirs: list[Entry]) -> None:
        """Recover from an interrupted run, create the output folder and write the
        journal of every temp name this run may use."""
        recover(self.out)
        self.created = [d for d in ["", *(d.rel for d in dirs)]
                        if not os.path.isdir(os.path.join(self.out, d))]
        os.makedirs(self.out, exist_ok=True)
        write_journal(self.out, (tmp_rel(o) for o in out_rels))

    def stage(self, p: Planned, data: bytes) -> None:
        """Write a planned output's new bytes to its temp file now, when possible."""
        tmp = os.path.join(self.out, tmp_rel(p.out_rel))
        try:
            parent = os.path.dirname(tmp)
            if not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
            write_file(tmp, data, p.entry.mode)
        except OSError:
            return  # e.g. a file where a folder must go: the write phase sorts it out
        p.staged, p.data = True, None

    def unstage(self, out_rels: list[str]) -> None:
        """Undo staging after a failed plan: the output is left as it was."""
        for o in out_rels:
            tmp = os.path.join(self.out, tmp_rel(o))
            if os.path.lexists(tmp):
                os.unlink(tmp)
        clear_journal(self.out)
        for d in sorted(self.created, key=lambda r: -r.count("/") - (r != "")):
            try:
                os.rmdir(os.path.join(self.out, d) if d else self.out)
            except OSError:
                pass  # not empty (holds files we did not write) or already gone
