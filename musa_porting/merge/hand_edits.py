"""Deciding, for one output, between the new port and what the user made of the last
one. Called by the planner (``tree/plan.py``) for every output it ports or copies,
in forked workers too.

The record of each output keeps its base (``bases``). An output whose bytes are not
its base was edited by the user (its stat alone is not trusted: after a merge the
output holds the user's lines and is no longer the base). Then:

- the new port is the base again (nothing to merge): the user's file stays as it is;
- else the three are merged (``three_way``); the file as it was is kept
  (``kept``), and the run says so, naming the conflicts if there are any;
- where there is no merge (no base to merge with: an output of an older musa-port,
  one too large or not text; or no git to merge with), the new port is written and
  the user's file kept, counted as a conflict: never replaced without a word.

A copied link is a hand edit too when the porter re-pointed it (its base is the sha256
of the target musa-port gave it): it stays while the port gives the same target, and
is replaced with a warning naming the porter's target when the port changed too.
"""

from __future__ import annotations

import hashlib
import os
import stat
from typing import NamedTuple

from ..safe_open import read_regular
from ..write.manifest import FileRecord, Manifest
from .bases import MAX_BASE, BaseWriter, base_bytes, is_text, sha_of
from .kept import KeptFiles
from .three_way import NoMerge, count_conflicts, merge

# What happened to an output the user had edited (FileOutcome.merge).
MERGED, CONFLICT, NOT_MERGED = "merged", "conflict", "not merged"


class Settled(NamedTuple):
    data: bytes  # what the output must hold
    same: bool  # the output holds it already
    status: str  # "", MERGED, CONFLICT, NOT_MERGED
    warning: str


class HandEdits:
    """The hand-edit decisions of one run (``writer`` and ``kept`` are None in a dry run)."""

    def __init__(self, out: str, old: Manifest, writer: BaseWriter | None,
                 kept: KeptFiles | None, more_bases: tuple[str, ...] = ()):
        self.out, self.old = out, old
        self.writer, self.kept = writer, kept
        self.more_bases = more_bases  # folders whose packs hold bases too (--base-from)
        # New output -> the earlier output of the input it was renamed from (renames).
        self.moved: dict[str, str] = {}

    def settle(self, out_rel: str, st: os.stat_result | None, new: bytes, rec: FileRecord,
               same: bool) -> Settled:
        """``new``: the port of the output's input; ``st``: what is at ``out_rel`` now;
        ``same``: it holds ``new`` already. Sets the record's base, hand and conflicts."""
        sha = hashlib.sha256(new).hexdigest()
        prev_rel = out_rel
        prev = self.old.files.get(out_rel)
        if st is None and out_rel in self.moved:  # its input was renamed: follow it
            prev_rel = self.moved[out_rel]
            prev = self.old.files.get(prev_rel)
            st = _lstat(os.path.join(self.out, prev_rel))
        rec.base = self._base(new, sha, prev)
        if same or st is None or prev is None or not stat.S_ISREG(st.st_mode):
            return Settled(new, same, "", "")
        if not prev.hand and (st.st_size, st.st_mtime_ns) == (prev.out_size, prev.out_mtime_ns):
            return Settled(new, False, "", "")  # as musa-port left it
        try:
            cur = read_regular(os.path.join(self.out, prev_rel))
        except OSError:
            return Settled(new, False, "", "")  # unreadable: the commit reports it
        base_sha = sha_of(prev.base) if prev.base else ""
        if cur == new and prev_rel == out_rel:
            return Settled(new, True, "", "")
        if base_sha and hashlib.sha256(cur).hexdigest() == base_sha:
            return Settled(new, False, "", "")  # touched, not edited
        where = os.path.join(self.out, out_rel)
        if base_sha == sha and prev_rel == out_rel:
            # The port is what it was: the user's file stays, as they left it.
            rec.hand, rec.conflicts = True, count_conflicts(cur)
            return Settled(cur, True, "", "")
        base = base_bytes(self.out, prev.base, self.more_bases) if base_sha else None
        why = ""
        if len(cur) > MAX_BASE:
            why = (f"your file is {len(cur) / (1 << 20):.1f} MB, too large to merge: the limit "
                   f"is {MAX_BASE >> 20} MB")
        elif base is None or not (is_text(cur) and is_text(new)):
            why = ("it is not text" if base is not None or (base_sha and not is_text(cur))
                   else "musa-port kept no copy of what it wrote there")
        else:
            try:
                merged = merge(base, cur, new)
            except NoMerge as e:
                why = str(e)
        if why:
            kept = self._keep(prev_rel, cur, st)
            rec.conflicts = 1
            return Settled(new, False, NOT_MERGED, (
                f"{where}: warning: you edited it and the new port changed it; not merged "
                f"({why}): the new port is written, {kept}"))
        if merged.data == cur and prev_rel == out_rel:
            rec.hand, rec.conflicts = True, count_conflicts(cur)
            return Settled(cur, True, "", "")
        rec.hand = merged.data != new
        rec.conflicts = count_conflicts(merged.data)
        kept = self._keep(prev_rel, cur, st)
        moved = f" (its input was renamed: your edits of {prev_rel} follow it)" \
            if prev_rel != out_rel else ""
        if merged.conflicts:
            return Settled(merged.data, False, CONFLICT, (
                f"{where}: warning: you edited it and the new port changed it too{moved}: "
                f"merged with {merged.conflicts} conflict{'s' * (merged.conflicts != 1)} "
                f"(marked <<<<<<< yours ... >>>>>>> new port); {kept}"))
        return Settled(merged.data, False, MERGED, (
            f"{where}: note: your edits merged with the new port{moved}; {kept}"))

    def settle_large(self, out_rel: str, st: os.stat_result | None, rec: FileRecord,
                     same: bool) -> Settled | None:
        """A copy too large to keep a base of: an output the user changed (its stat is
        not the one musa-port left) is kept before it is replaced, with a warning."""
        prev = self.old.files.get(out_rel)
        rec.base = ""
        if same or st is None or prev is None or not stat.S_ISREG(st.st_mode) or (
                st.st_size, st.st_mtime_ns) == (prev.out_size, prev.out_mtime_ns):
            return None
        where = os.path.join(self.out, out_rel)
        if self.kept is None:
            kept = "your file would be kept (dry run)"
        else:
            kept = f"your file before the merge is kept as {self.kept.keep_copy(out_rel)}"
        rec.conflicts = 1
        return Settled(b"", False, NOT_MERGED, (
            f"{where}: warning: it changed since musa-port wrote it; not merged (too large): "
            f"the new copy is written, {kept}"))

    def settle_link(self, out_rel: str, current: str | None, target: str,
                    rec: FileRecord) -> tuple[str | None, str, str]:
        """A copied link: (the target to write, None when the link stays as it is; its
        status; a warning). ``current``: where the link in OUT points now (None: no
        link there). A link is a hand edit too: its base is where musa-port pointed it."""
        rec.base = link_base(target)
        if current is None or current == target:
            return (None if current == target else target), "", ""
        prev = self.old.files.get(out_rel)
        if prev is None or prev.kind != "symlink" or (prev.base and link_base(current) == prev.base):
            return target, "", ""  # not ours (the claim decides), or as musa-port left it
        if prev.base == rec.base:  # the port is what it was: the porter's link stays
            rec.hand = True
            return None, "", ""
        rec.conflicts = 1
        why = "the new port changed it too" if prev.base else \
            "musa-port kept no record of where it pointed it"
        return target, NOT_MERGED, (
            f"{os.path.join(self.out, out_rel)}: warning: you re-pointed this link to {current} "
            f"and {why}: the new port's link (to {target}) is written; yours pointed at "
            f"{current}")

    def _base(self, new: bytes, sha: str, prev: FileRecord | None) -> str:
        """The record's base pointer: the last one when the bytes are the same."""
        if prev is not None and prev.base and sha_of(prev.base) == sha and (
                prev.base.count(":") == 3 or len(new) > MAX_BASE or not is_text(new)) and (
                not self.more_bases):
            return prev.base
        if self.writer is None:
            return sha
        return self.writer.put(new, sha)

    def _keep(self, rel: str, data: bytes, st: os.stat_result) -> str:
        if self.kept is None:
            return "your file would be kept (dry run)"
        return f"your file before the merge is kept as {self.kept.keep(rel, data, st.st_mode)}"


def untouched(out: str, rel: str, rec: FileRecord) -> bool:
    """Whether an output is as musa-port wrote it (its stat, else its bytes against the
    base's hash): only such an output may be removed when its input is gone."""
    path = os.path.join(out, rel)
    st = _lstat(path)
    if st is None:
        return False
    if rec.kind == "symlink":
        if not stat.S_ISLNK(st.st_mode) or rec.hand:
            return False
        try:  # where musa-port pointed it (no record: a link of an older musa-port)
            return not rec.base or link_base(os.readlink(path)) == rec.base
        except OSError:
            return False
    if rec.hand:
        return False
    if (st.st_size, st.st_mtime_ns) == (rec.out_size, rec.out_mtime_ns):
        return True
    if not rec.base or not stat.S_ISREG(st.st_mode):
        return False
    try:
        return hashlib.sha256(read_regular(path)).hexdigest() == sha_of(rec.base)
    except OSError:
        return False


def link_base(target: str) -> str:
    """The base of a copied link: the sha256 of where musa-port pointed it."""
    return hashlib.sha256(os.fsencode(target)).hexdigest()


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None
