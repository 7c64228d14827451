"""The hand-edit side of one run, for ``tree/porter.py``: what the planner needs
(``HandEdits``), what the stale outputs' removal asks, and the tidying after the
commit (packs no record names) or after a failure (this run's packs and kept files)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..write.manifest import FileRecord, Manifest
from ..write.outdir import OutDir
from .bases import BASE_DIR, STATE_DIR, BaseWriter, collect, packs_named, sparse_packs
from .hand_edits import HandEdits, untouched
from .kept import KEPT_DIR, KeptFiles


class MergeRun:
    def __init__(self, out: str, old: Manifest, outdir: OutDir | None, adoption=None):
        self.out, self.outdir = out, outdir
        self.adoption = adoption  # base_from.Adoption, for --base-from
        self.writer = BaseWriter(outdir) if outdir is not None else None
        kept = KeptFiles(outdir) if outdir is not None else None
        more = (adoption.base_out,) if adoption is not None else ()
        if adoption is not None:
            adoption.extend(old, out)  # OUT's files are the fork's edits of the base port
        self.old = old
        self.hand = HandEdits(out, old, self.writer, kept, more)

    def attach(self, planner, src: str, out_rel_of: dict[str, str], files: list[str]) -> None:
        """Give the planner the hand-edit decisions, each new output whose input was
        renamed pointing at the old output (git is asked only when inputs are both new
        and gone)."""
        planner.hand = self.hand
        old = self.old
        outs = {out_rel_of[r] for r in files}
        fresh = [r for r in files if out_rel_of[r] not in old.files]
        left = {rec.src: rel for rel, rec in old.files.items()
                if rel not in outs and rec.kind != "symlink"}
        if not fresh or not left:
            return
        here = set(files)
        gone = {src: rel for src, rel in left.items() if src not in here}
        if not gone:
            return
        for new, was in renamed_inputs(src, old, self.adoption).items():
            out = out_rel_of.get(new)
            if out is not None and out not in old.files and was in gone:
                self.hand.moved[out] = gone[was]

    def check(self, files) -> None:
        """After planning: with ``--base-from``, each upstream file that changed must
        have been merged into the fork's file (``base_from.Adoption.check``)."""
        if self.adoption is not None:
            self.adoption.check(files, self.out)

    def removable(self, files) -> Callable[[str, FileRecord], bool]:
        """After planning (``files``: the outcomes): may an output whose input is gone be
        removed? One as musa-port wrote it, or the earlier output of a renamed input
        whose edits were merged into its new place (a copy kept)."""
        moved = self.hand.moved
        followed = {moved[f.out_rel] for f in files if f.merge and f.out_rel in moved}
        return lambda rel, rec: rel in followed or untouched(self.out, rel, rec)

    def repack(self, records: dict[str, FileRecord]) -> dict[str, FileRecord]:
        """The manifest's records, those whose base is in a pack mostly of dead bases
        given a copy of it in this run's pack (new records: the manifest is written,
        and the old pack removed after the commit)."""
        if self.writer is None:
            return records
        sparse = sparse_packs(self.outdir, (r.base for r in records.values()), self.writer.run)
        if not sparse:
            return records
        out = dict(records)
        for rel, rec in records.items():
            if rec.base.count(":") == 3 and rec.base.split(":")[1] in sparse:
                out[rel] = replace(rec, base=self.writer.move(rec.base))
        return out

    def failed(self) -> None:
        """The run stops before its commit: what it wrote in OUT/.musa-port goes, and
        the folders it made there (those left empty)."""
        if self.writer is None:
            return
        self.writer.discard()
        if self.hand.kept is not None:
            self.hand.kept.discard()
        for rel in (BASE_DIR, KEPT_DIR, STATE_DIR):
            try:
                self.outdir.rmdir(rel)
            except OSError:
                pass  # not there, or holds an earlier run's

    def committed(self, manifest: Manifest | None) -> None:
        """``manifest``: the one the commit wrote (None: the last one still holds)."""
        if self.writer is None:
            return
        self.writer.close()
        if self.adoption is not None:
            from .base_from import save_conventions

            save_conventions(self.outdir, self.adoption.conventions)
        if manifest is not None:
            collect(self.outdir, packs_named(r.base for r in manifest.files.values()))


def renamed_inputs(src: str, old: Manifest, adoption=None) -> dict[str, str]:
    """SRC's inputs renamed since the last port: from the commit its manifest recorded,
    or from ``--base-from`` (a folder, or a git ref of SRC: ``base_from.Adoption``)."""
    from .renames import COMMIT_KEY, renamed_between, renamed_since

    if adoption is not None:
        return renamed_since(src, adoption.commit) if adoption.commit else \
            renamed_between(adoption.old_src, src)
    return renamed_since(src, str(old.options.get(COMMIT_KEY, "")))


def with_commit(options: dict, src: str) -> dict:
    """The manifest's options, with SRC's git commit (what a later upgrade diffs from)."""
    from .renames import COMMIT_KEY, source_commit

    commit = source_commit(src)
    return {**options, COMMIT_KEY: commit} if commit else options
