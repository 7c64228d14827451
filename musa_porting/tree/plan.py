"""Planning one file: read it, port it, find what is left, and decide what must be
written, without replacing any output (the write phase does that for all at once).

A pure step per file, so that it can run in forked workers (see ``parallel``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from ..analyze.checks import Diagnostic
from ..errors import InputError, PortError
from ..merge.bases import MAX_BASE
from ..port.cxx.includes import IncludeResolver
from ..safe_open import regular_chunks
from ..write.files import cannot_read, files_equal, read_file, read_source, same_stat, sha256_of
from ..write.manifest import UNTRUSTED, FileRecord, Manifest
from ..write.output_state import OutputState
from .input_findings import NOT_PORTED, InputFinding
from .kinds import KindSelector
from .options import PortOptions
from .paths import link_target
from .ported import FileContext, Ported
from .result import DiffItem, FileOutcome
from .unported import not_text as unported_reason
from .unported import own_name
from .walk import Entry

if TYPE_CHECKING:
    from ..analyze.symbols import FileSymbols
    from ..merge.hand_edits import HandEdits
    from .active_rules import ActiveRules


@dataclass(slots=True)
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
    over: str = ""  # what it replaces besides a file of ours (see OutputState.claim)


class Step(NamedTuple):
    """One planned file, with what the run reports about it (``planned`` None: nothing
    of it is in the output, see ``Planner.plan``)."""

    planned: Planned | None
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
        self.symbols: dict[str, FileSymbols] = {}  # each source's index entry, kept in its record
        self.index_failed: dict[str, str] = {}  # sources the index failed on -> what failed
        # Writes what a planned output needs to its temp file (None: do not stage).
        self.stage: Callable[[Planned], None] | None = None
        # Called in this process before forked workers start staging (see parallel).
        self.before_workers: Callable[[], None] | None = None
        self.outputs: OutputState | None = None  # what the output holds (set by the run)
        self.hand: HandEdits | None = None  # the user's edits of the outputs (set by the run)
        self._taken: set[str] | None = None
        self._defined: frozenset[str] | None = None

    def defined_names(self) -> frozenset[str]:
        """The names the tree's sources define, from the symbol index (once per process)."""
        if self._defined is None:
            self._defined = frozenset(d.name for fs in self.symbols.values() for d in fs.defs)
        return self._defined

    def stage_to(self, stager) -> None:
        """Write each planned output's temp file with ``stager`` (a write.stage.Stager),
        in forked workers too, after it has written its journal (see parallel)."""
        self.stage, self.before_workers = stager.stage, stager.before_workers

    def needs_port(self, e: Entry) -> bool:
        """A source file the rules must run over (not skipped through the manifest)."""
        return e.kind == "file" and e.rel not in self.fast and (
            self.kinds.kind_of(e.rel) is not None or self.kinds.may_sniff(e.rel))

    def plan(self, e: Entry) -> Step:
        """Plan one input. One that cannot be read (permission, deleted or replaced after
        the walk) is not ported: its output stays as the last run left it, or there is
        none, and a finding says so (MP0004); it never stops the run."""
        try:
            step = self._plan(e)
        except InputError as exc:
            if exc.path != os.path.join(self.src, e.rel):
                raise  # not this input (an output that cannot be read)
            return unread_step(e, self.out_rel_of[e.rel], exc, self.outputs)
        failed = self.index_failed.get(e.rel)
        return step if failed is None else with_finding(step, InputFinding(
            e.rel, "MP0005", f"{e.rel}: the symbol index failed on it ({failed}): the names it "
            "defines are not renamed, here or where they are used; please report it",
            severity="warning"))

    def _plan(self, e: Entry) -> Step:
        out_rel = self.out_rel_of[e.rel]
        if e.kind == "symlink":
            return link_step(self, e, out_rel)
        prev = self.fast.get(e.rel)
        if prev is not None:
            # Input, rules and output as the last run left them: nothing to do.
            return Step(Planned(e, out_rel, prev), FileOutcome(e.rel, out_rel, prev.kind, False, prev),
                        None, list(prev.warnings), e.size)
        src_path = os.path.join(self.src, e.rel)
        kind = self.kinds.kind_of(e.rel)
        data = None
        if kind is None and self.kinds.may_sniff(e.rel) and (
                self.kinds.template(e.rel) or _starts_with(src_path, b"#!", e)):
            data = read_file(src_path, e.identity)  # a template, or a script calling nvcc?
            kind = self.kinds.sniff(data, e.rel)
        rec = FileRecord(e.rel, "ported" if kind else "copied", e.size, e.mtime_ns, e.mode,
                         src_ctime_ns=e.ctime_ns)
        warnings = []
        if kind is not None:
            if data is None:
                data, st = read_source(src_path, e.identity)
                if (st.st_size, st.st_mtime_ns) != (e.size, e.mtime_ns):
                    rec.src_size = UNTRUSTED  # the next run ports it again
                    warnings.append(f"{src_path}: warning: changed while it was ported; run "
                                    "again to port the new version")
            if self.opts.paranoid:
                rec.src_sha256 = sha256_of(data)
            not_text = unported_reason(data)
            if not not_text:
                step = self._plan_source(e, out_rel, src_path, data, rec, kind)
                step.warnings.extend(warnings)
                return step
            rec.kind = "copied"  # not text: copied as is, under its own name
            out_rel = self._unported_name(e.rel, out_rel)
            rec.diagnostics = [Diagnostic("MP1006", not_text, 1, 1, 1, 1,
                                          f"{not_text}: copied unchanged under its own name; "
                                          "convert it to UTF-8 text to port it").to_list()]
        elif self.opts.paranoid:
            rec.src_sha256 = sha256_of(read_file(src_path, e.identity))
        return self._plan_copy(e, out_rel, src_path, rec)

    def _unported_name(self, rel: str, out_rel: str) -> str:
        """A source that is not ported keeps its own name (``k.cu``, not ``k.mu``),
        unless another input's output already has that name."""
        own = own_name(rel, out_rel)
        if self._taken is None:
            self._taken = set(self.out_rel_of.values())
        return out_rel if own != out_rel and own in self._taken else own

    def _settle(self, p: Planned, st: os.stat_result | None, same: bool) -> Planned:
        """Claim ``p``'s output path; an output that already holds the bytes keeps them
        (only its mode may change), any other is staged."""
        p.over = self.outputs.claim(p.out_rel, st, same)
        if same:
            assert st is not None
            p.chmod = stat.S_IMODE(st.st_mode) != p.entry.mode
            p.record.out_size, p.record.out_mtime_ns = st.st_size, st.st_mtime_ns
        elif self.stage is not None:
            self.stage(p)
        return p

    def _plan_copy(self, e: Entry, out_rel: str, src_path: str, rec: FileRecord) -> Step:
        out_path = os.path.join(self.out, out_rel)
        if not os.access(src_path, os.R_OK):
            raise cannot_read(PermissionError(13, "Permission denied"), src_path)
        st = self.outputs.lstat(out_rel)
        settled = None
        if self.hand is not None and e.size <= MAX_BASE:  # its bytes are the base
            body = read_file(src_path, e.identity)
            same = st is not None and stat.S_ISREG(st.st_mode) and st.st_size == len(body) \
                and read_file(out_path) == body
            settled = self.hand.settle(out_rel, st, body, rec, same)
            planned = Planned(e, out_rel, rec, data=None if settled.same else settled.data)
            same = settled.same
        else:
            same = st is not None and stat.S_ISREG(st.st_mode) and files_equal(src_path, out_path,
                                                                                e.identity)
            if self.hand is not None:
                settled = self.hand.settle_large(out_rel, st, rec, same)
            planned = Planned(e, out_rel, rec, copy=not same)
        p = self._settle(planned, st, same)
        item = None
        if self.collect_diff and out_rel != e.rel:  # a pure rename (a .cu holding NUL bytes)
            body = read_file(src_path, e.identity)
            item = DiffItem(e.rel, out_rel, body, body, e.mode)
        return Step(p, FileOutcome(e.rel, out_rel, "copied", not same, rec,
                                   settled.status if settled else ""),
                    item, [settled.warning] if settled and settled.warning else [], e.size)

    def _plan_source(self, e: Entry, out_rel: str, src_path: str, data: bytes,
                     rec: FileRecord, kind: str) -> Step:
        assert self.rules is not None, "a file to port, but no rules were loaded"
        from .porters import MAX_PER_FILE, PORTERS  # loaded by the run before it forks

        ctx = FileContext(e.rel, self.rules, self.resolver, self.out_rel_of, self.opts,
                          self.defined_names())
        ported, failed = port_or_keep(PORTERS[kind], data, ctx)
        rec.lang = kind if failed is None else ""
        indexed = self.symbols.get(e.rel)
        rec.symbols = indexed.to_json() if indexed is not None else None
        rec.edits = len(ported.edits)
        rec.lines_changed = len({ed.line for ed in ported.edits})
        rec.by_family = ported.by_family
        rec.by_rule = ported.by_rule
        rec.diagnostics = [d.to_list() for d in ported.diagnostics[:MAX_PER_FILE]]
        rec.findings_dropped = dict(ported.findings_dropped)
        for d in ported.diagnostics[MAX_PER_FILE:]:  # the cap, for every kind
            rec.findings_dropped[d.id] = rec.findings_dropped.get(d.id, 0) + 1
        rec.warnings = [f"{src_path}:{line}: warning: {msg}" for line, msg in ported.warnings]
        out_path = os.path.join(self.out, out_rel)
        st = self.outputs.lstat(out_rel)
        same = st is not None and stat.S_ISREG(st.st_mode) and st.st_size == len(ported.data) \
            and read_file(out_path) == ported.data
        new, status, warnings = ported.data, "", list(rec.warnings)
        if self.hand is not None:
            settled = self.hand.settle(out_rel, st, new, rec, same)
            new, same, status = settled.data, settled.same, settled.status
            if settled.warning:  # said by this run only (not kept in the record)
                warnings.append(settled.warning)
        p = self._settle(Planned(e, out_rel, rec, data=None if same else new), st, same)
        item = None
        if self.collect_diff and (ported.edits or out_rel != e.rel):
            item = DiffItem(e.rel, out_rel, data, ported.data, e.mode)
        shown, kind = rec, "ported"
        if failed is not None:  # copied as it is; ported again by the next run
            rec.kind, rec.src_size, kind = "copied", UNTRUSTED, NOT_PORTED
            said = InputFinding(e.rel, "MP0005", f"{e.rel}: not ported: musa-port failed on it "
                                f"({failed}); copied unchanged as {out_rel}; please report it")
            shown = replace(rec, diagnostics=[said.diagnostic().to_list()])
        return Step(p, FileOutcome(e.rel, out_rel, kind, not same, shown, status), item,
                    warnings, e.size)


def link_step(planner: Planner, e: Entry, out_rel: str) -> Step:
    """A symlink's step: its new target (a file of the tree by its ported name), staged."""
    src_path = os.path.join(planner.src, e.rel)
    out_path = os.path.join(planner.out, out_rel)
    try:
        target = link_target(planner.src, planner.out, e, planner.out_rel_of)
        original = os.readlink(src_path)
    except OSError as exc:
        if not os.path.lexists(src_path):
            raise cannot_read(exc, src_path) from None
        raise InputError(f"cannot read link: {exc.strerror or exc}", src_path) from None
    rec = FileRecord(e.rel, "symlink", src_mode=e.mode)
    st = planner.outputs.lstat(out_rel)
    try:
        current = os.readlink(out_path) if st is not None and stat.S_ISLNK(st.st_mode) else None
    except OSError:
        current = None
    write, status, warning = (None if current == target else target), "", ""
    if planner.hand is not None:  # a link the porter re-pointed is a hand edit
        write, status, warning = planner.hand.settle_link(out_rel, current, target, rec)
    p = Planned(e, out_rel, rec, link=write)
    p.over = planner.outputs.claim(out_rel, st, write is None)
    if planner.stage is not None:
        planner.stage(p)
    item = None
    if planner.collect_diff and write is not None and (target != original or out_rel != e.rel):
        item = DiffItem(e.rel, out_rel, os.fsencode(original), os.fsencode(target),
                        0o120000, symlink=True)
    return Step(p, FileOutcome(e.rel, out_rel, "symlink", p.link is not None, rec, status), item,
                [warning] if warning else [], 0)


def port_or_keep(porter, data: bytes, ctx: FileContext) -> tuple[Ported, str | None]:
    """The file's port, or, when musa-port fails on it (a bug, an input it cannot
    handle), its bytes as they are and what failed: one file never ends the run
    (``MUSA_PORT_DEBUG=1`` lets the error through, with its traceback)."""
    try:
        return porter(data, ctx), None
    except Exception as exc:  # noqa: BLE001 - any bug of the porter's, on this one file
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        return Ported(data, []), one_line(exc)


def one_line(exc: BaseException, limit: int = 200) -> str:
    """``RecursionError: maximum recursion depth exceeded``, on one line, cut at ``limit``."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def with_finding(step: Step, found: InputFinding) -> Step:
    """``step`` with ``found`` among its outcome's findings (this run's: not in the record
    the manifest keeps)."""
    o = step.outcome
    rec = replace(o.record, diagnostics=[found.diagnostic().to_list(), *o.record.diagnostics])
    return step._replace(outcome=replace(o, record=rec))


def unread_step(e: Entry, out_rel: str, exc: InputError, outputs: OutputState | None) -> Step:
    """The step of an input that could not be read: the last run's output of it kept
    (its record untrusted, so the next run ports it again), or nothing written."""
    prev = outputs.old.files.get(out_rel) if outputs is not None else None
    st = outputs.lstat(out_rel) if outputs is not None and prev is not None else None
    if outputs is not None and prev is not None and prev.src == e.rel and st is not None:
        rec = replace(prev, src_size=UNTRUSTED)
        p = Planned(e, out_rel, rec)
        p.over = outputs.claim(out_rel, st, True)
        said = InputFinding(e.rel, "MP0004", f"{e.rel}: not ported this run: {exc.message}; "
                            f"{out_rel} is kept as the last run made it", severity="warning")
        shown = replace(rec, diagnostics=[said.diagnostic().to_list(), *rec.diagnostics])
        return Step(p, FileOutcome(e.rel, out_rel, NOT_PORTED, False, shown), None, [], 0)
    said = InputFinding(e.rel, "MP0004", f"{e.rel}: not ported: {exc.message}; nothing is "
                        f"written at {out_rel}")
    rec = FileRecord(e.rel, NOT_PORTED, diagnostics=[said.diagnostic().to_list()])
    return Step(None, FileOutcome(e.rel, out_rel, NOT_PORTED, False, rec), None, [], 0)


def _starts_with(path: str, magic: bytes, e: Entry) -> bool:
    """Whether a file begins with ``magic`` (an unreadable one is left to the copy, which
    reports it)."""
    return next(regular_chunks(path, len(magic), e.identity), b"") == magic


def unchanged_records(out: str, src: str, files: list[Entry], out_rel_of: dict[str, str],
                      old: Manifest, state: OutputState, paranoid: bool) -> dict[str, FileRecord]:
    """The files whose input and output are as the manifest recorded (see
    ``unchanged_record``): decided once, before planning (forked workers inherit it)."""
    fast: dict[str, FileRecord] = {}
    for e in files:
        if e.kind != "file" or not state.reachable(out_rel_of[e.rel]):
            continue
        rec = unchanged_record(out, e, out_rel_of[e.rel], old,
                               os.path.join(src, e.rel) if paranoid else None)
        if rec is not None:
            fast[e.rel] = rec
    return fast


def unchanged_record(out: str, e: Entry, out_rel: str, old: Manifest,
                     paranoid_src: str | None = None) -> FileRecord | None:
    """The manifest's record when input and output are as it recorded them: the input's
    size, mtime, ctime and mode, the output's size and mtime; with ``paranoid_src``
    (the input's path, under --paranoid) also the input's sha256."""
    prev = old.files.get(out_rel)
    if (prev is not None and prev.kind != "symlink" and prev.src == e.rel
            and prev.src_size == e.size and prev.src_mtime_ns == e.mtime_ns
            and prev.src_ctime_ns == e.ctime_ns and prev.src_mode == e.mode
            and same_stat(os.path.join(out, out_rel), prev.out_size, prev.out_mtime_ns)):
        if paranoid_src is not None:
            try:
                if sha256_of(read_file(paranoid_src, e.identity)) != prev.src_sha256:
                    return None
            except PortError:
                return None  # planned again, which reports it
        return prev
    return None
