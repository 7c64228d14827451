"""The hand-edit side of one run, for ``tree/porter.py``: what the planner needs
(``HandEdits``), what the stale outputs' removal asks, and the tidying after the
commit (packs no record names) or after a failure (this run's packs and kept files)."""

from __future__ import annotations

from ..write.manifest import FileRecord, Manifest
from ..write.outdir import OutDir
from .bases import BaseWriter, collect, packs_named
from .hand_edits import HandEdits, untouched
from .kept import KeptFiles


class MergeRun:
    def __init__(self, out: str, old: Manifest, outdir: OutDir | None,
                 more_bases: tuple[str, ...] = ()):
        self.out, self.outdir = out, outdir
        self.writer = BaseWriter(outdir) if outdir is not None else None
        kept = KeptFiles(outdir) if outdir is not None else None
        self.hand = HandEdits(out, old, self.writer, kept, more_bases)
        self.followed: set[str] = set()  # earlier outputs whose edits moved with a rename

    def outcomes(self, files) -> None:
        """After planning: the earlier outputs of renamed inputs that were merged into
        their new place (a copy kept) may go with the stale outputs."""
        moved = self.hand.moved
        self.followed = {moved[f.out_rel] for f in files if f.merge and f.out_rel in moved}

    def removable(self, rel: str, rec: FileRecord) -> bool:
        return rel in self.followed or untouched(self.out, rel, rec)

    def failed(self) -> None:
        if self.writer is not None:
            self.writer.discard()
        if self.hand.kept is not None:
            self.hand.kept.discard()

    def committed(self, manifest: Manifest | None) -> None:
        """``manifest``: the one the commit wrote (None: the last one still holds)."""
        if self.writer is None:
            return
        self.writer.close()
        if manifest is not None:
            collect(self.outdir, packs_named(r.base for r in manifest.files.values()))
