"""Planning one file: read it, port it, find what is left, and decide what must be
written, without replacing any output (the write phase does that for all at once).

A pure step per file, so that it can run in forked workers (see ``parallel``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import PortError
from ..port.includes import IncludeResolver
from .active_rules import ActiveRules
from .files import files_equal, read_file, same_stat
from .kinds import PORTERS, FileContext, KindSelector
from .manifest import FileRecord, Manifest
from .options import PortOptions
from .paths import link_target
from .result import DiffItem, FileOutcome
from .walk import Entry


@dataclass
class Planned:
    """What the write phase must do for one output."""

    entry: Entry
    out_rel: str
    record: FileRecord
    data: bytes | None = None  # new bytes of a ported file that must be written
    link: str | None = None  # new target of a symlink that must be written
    copy: bool = False  # a copied file that must be written
    chmod: bool = False  # only the mode differs
    staged: bool = False  # new bytes already written to the temp file (see stage)


class Step(NamedTuple):
    """One planned file, with what the run reports about it."""

    planned: Planned
    outcome: FileOutcome
    diff_item: DiffItem | None
    warnings: list[str]
    size: int  # bytes read


class Planner:
    """Plans the files of one run. ``fast`` holds the manifest records of files whose
    input and output are as the last run left them; ``rules`` is None when no file
    needs porting (nothing loaded the tables)."""

    def __init__(self, opts: PortOptions, src: str, out: str, kinds: KindSelector,
                 out_rel_of: dict[str, str], resolver: IncludeResolver,
                 fast: dict[str, FileRecord], rules: ActiveRules | None):
        self.opts = opts
        self.src, self.out = src, out
        self.kinds = kinds
        self.out_rel_of = out_rel_of
        self.resolver = resolver
        self.fast = fast
        self.rules = rules
        self.collect_diff = opts.collect_diff
        self.symbols: dict[str, dict] = {}  # each source's index entry, kept in its record
        # Writes a planned output's new bytes to its temp file (None: do not stage).
        self.stage: Callable[[Planned, bytes], None] | None = None

    def needs_port(self, e: Entry) -> bool:
        """A source file the rules must run over (not skipped through the manifest)."""
        return e.kind == "file" and e.rel not in self.fast and (
            self.kinds.kind_of(e.rel) is not None or self.kinds.may_sniff(e.rel))

    def plan(self, e: Entry) -> Step:
        out_rel = self.out_rel_of[e.rel]
        if e.kind == "symlink":
            return self._plan_link(e, out_rel)
        prev = self.fast.get(e.rel)
        if prev is not None:
            # Input, rules and output as the last run left them: nothing to do.
            return Step(Planned(e, out_rel, prev), FileOutcome(e.rel, out_rel, prev.kind, False, prev),
                        None, list(prev.warnings), e.size)
        src_path = os.path.join(self.src, e.rel)
        kind = self.kinds.kind_of(e.rel)
        data = None
        if kind is None and self.kinds.may_sniff(e.rel) and _starts_with(src_path, b"#!"):
            data = read_file(src_path)  # a script: does it call nvcc?
            kind = self.kinds.sniff(data)
        rec = FileRecord(e.rel, "ported" if kind else "copied", e.size, e.mtime_ns, e.mode)
        if kind is not None:
            data = read_file(src_path) if data is None else data
            if b"\0" not in data:
                return self._plan_source(e, out_rel, src_path, data, rec, kind)
            rec.kind = "copied"  # NUL bytes: not text, copy as is
        return self._plan_copy(e, out_rel, src_path, rec)

    def _plan_link(self, e: Entry, out_rel: str) -> Step:
        src_path = os.path.join(self.src, e.rel)
        out_path = os.path.join(self.out, out_rel)
        try:
            target = link_target(self.src, self.out, e, self.out_rel_of)
            original = os.readlink(src_path)
        except OSError as exc:
            raise PortError(f"cannot read link: {exc.strerror or exc}", src_path) from None
        rec = FileRecord(e.rel, "symlink", src_mode=e.mode)
        try:
            current = os.readlink(out_path) if os.path.islink(out_path) else None
        except OSError:
            current = None
        p = Planned(e, out_rel, rec, link=None if current == target else target)
        item = None
        if self.collect_diff and (target != original or out_rel != e.rel):
            item = DiffItem(e.rel, out_rel, os.fsencode(original), os.fsencode(target),
                            0o120000, symlink=True)
        return Step(p, FileOutcome(e.rel, out_rel, "symlink", p.link is not None, rec), item, [], 0)

    def _plan_copy(self, e: Entry, out_rel: str, src_path: str, rec: FileRecord) -> Step:
        out_path = os.path.join(self.out, out_rel)
        if not os.access(src_path, os.R_OK):
            raise PortError("cannot read: Permission denied", src_path)
        same = os.path.isfile(out_path) and not os.path.islink(out_path) \
            and files_equal(src_path, out_path)
        p = Planned(e, out_rel, rec, copy=not same)
        p.chmod = same and stat.S_IMODE(os.lstat(out_path).st_mode) != e.mode
        item = None
        if self.collect_diff and out_rel != e.rel:  # a pure rename (a .cu holding NUL bytes)
            body = read_file(src_path)
            item = DiffItem(e.rel, out_rel, body, body, e.mode)
        return Step(p, FileOutcome(e.rel, out_rel, "copied", not same, rec), item, [], e.size)

    def _plan_source(self, e: Entry, out_rel: str, src_path: str, data: bytes,
                     rec: FileRecord, kind: str) -> Step:
        assert self.rules is not None, "a file to port, but no rules were loaded"
        ctx = FileContext(e.rel, self.rules, self.resolver, self.out_rel_of, self.opts)
        ported = PORTERS[kind](data, ctx)
        rec.lang = kind
        rec.symbols = self.symbols.get(e.rel)
        rec.edits = len(ported.edits)
        rec.lines_changed = len({ed.line for ed in ported.edits})
        rec.by_family = ported.by_family
        rec.by_rule = ported.by_rule
        rec.diagnostics = [d.to_list() for d in ported.diagnostics]
        rec.warnings = [f"{src_path}:{line}: warning: {msg}" for line, msg in ported.warnings]
        out_path = os.path.join(self.out, out_rel)
        same = False
        try:
            st = os.lstat(out_path)
            if stat.S_ISREG(st.st_mode) and st.st_size == len(ported.data):
                same = read_file(out_path) == ported.data
        except OSError:
            pass  # no output yet: it will be written
        p = Planned(e, out_rel, rec, data=None if same else ported.data)
        p.chmod = same and stat.S_IMODE(os.lstat(out_path).st_mode) != e.mode
        if not same and self.stage is not None:
            self.stage(p, ported.data)
        item = None
        if self.collect_diff and (ported.edits or out_rel != e.rel):
            item = DiffItem(e.rel, out_rel, data, ported.data, e.mode)
        return Step(p, FileOutcome(e.rel, out_rel, "ported", not same, rec), item,
                    list(rec.warnings), e.size)


def _starts_with(path: str, magic: bytes) -> bool:
    """Whether a file begins with ``magic`` (an unreadable one is left to the copy, which
    reports it)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(len(magic)) == magic
    except OSError:
        return False


def unchanged_record(out: str, e: Entry, out_rel: str, old: Manifest) -> FileRecord | None:
    """The manifest's record when input and output are as it recorded them."""
    prev = old.files.get(out_rel)
    if (prev is not None and prev.kind != "symlink" and prev.src == e.rel
            and prev.src_size == e.size and prev.src_mtime_ns == e.mtime_ns
            and prev.src_mode == e.mode
            and same_stat(os.path.join(out, out_rel), prev.out_size, prev.out_mtime_ns)):
        return prev
    return None
