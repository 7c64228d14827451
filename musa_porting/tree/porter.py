"""Porting a tree: plan every output first, then write, then tidy.

The plan phase reads every input and computes every output without writing
anything, so bad input (an unreadable file, a rename collision) stops the run with
the output tree as it was. The write phase replaces each changed output atomically
(temp file, then rename) and leaves unchanged outputs alone, bytes and mtime, so a
``setup.py`` that ports on every build does not trigger a full recompile.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import shutil
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__, lexer
from .diagnostics import Diagnostic, Knowledge, find_diagnostics
from .engine import Matcher
from .errors import PortError
from .fileport import INCLUDE_FAMILY, port_bytes
from .includes import IncludeResolver
from .manifest import (
    JOURNAL_NAME,
    MANIFEST_NAME,
    TMP_SUFFIX,
    FileRecord,
    Manifest,
    load_manifest,
)
from .rules import RuleSet, build_ruleset, default_mapping_dir
from .walker import (
    DEFAULT_SOURCE_EXTENSIONS,
    RENAMES,
    REVERSE_RENAMES,
    Entry,
    Ignorer,
    ported_name,
    walk,
)

SKIP_KINDS = ("comments", "strings")


@dataclass
class PortOptions:
    """Everything that decides what a port produces."""

    src: str
    output: str | None = None
    ignore: Sequence[str] = ()
    rule_files: Sequence[str] = ()
    inline_rules: Mapping[str, str] | None = None
    default_rules: bool = True
    mapping_dir: str | None = None
    skip: Sequence[str] = ()
    include_dirs: Sequence[str] = ()
    extensions: Sequence[str] = DEFAULT_SOURCE_EXTENSIONS
    keep: Sequence[str] = ()  # CUDA-looking names that are meant to stay (not residuals)
    disable_families: Sequence[str] = ()  # table families to switch off (e.g. "nccl")
    enable_families: Sequence[str] = ()  # families that are off by default, switched on
    reverse: bool = False  # MUSA -> CUDA with the inverted tables (.mu -> .cu)
    jobs: int | None = None  # processes for porting files (None: the number of CPUs)
    dry_run: bool = False  # compute everything, write nothing
    collect_diff: bool = False  # keep old and new bytes of every changed file
    progress: Callable[[int, int], None] | None = None  # (files done, files total)


@dataclass
class DiffItem:
    """A change the diff shows: old and new path, bytes (link target for a symlink), mode."""

    old_rel: str
    new_rel: str
    old: bytes
    new: bytes
    mode: int
    symlink: bool = False


@dataclass
class FileOutcome:
    """What happened to one input; ``record`` holds its counts and findings."""

    rel: str
    out_rel: str
    kind: str  # "ported", "copied", "symlink"
    written: bool = False
    record: FileRecord = field(default_factory=lambda: FileRecord("", ""))

    @property
    def edits(self) -> int:
        return self.record.edits

    @property
    def by_family(self) -> dict[str, int]:
        return self.record.by_family

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [Diagnostic.from_list(d) for d in self.record.diagnostics]


@dataclass
class PortResult:
    """The counts of a run, for the report and for ``SimplePorting.run()``."""

    src: str
    output: str
    files: list[FileOutcome] = field(default_factory=list)
    ignored: dict[str, str] = field(default_factory=dict)  # rel -> pattern
    removed: list[str] = field(default_factory=list)
    kept_stale: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    bytes_in: int = 0
    elapsed: float = 0.0
    rules: int = 0
    dry_run: bool = False
    diff_items: list[DiffItem] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for f in self.files if f.kind == kind)

    @property
    def ported(self) -> int:
        return self.count("ported")

    @property
    def copied(self) -> int:
        return self.count("copied")

    @property
    def symlinks(self) -> int:
        return self.count("symlink")

    @property
    def written(self) -> int:
        return sum(1 for f in self.files if f.written)

    @property
    def changed(self) -> int:
        """Ported files whose text the rules changed."""
        return sum(1 for f in self.files if f.kind == "ported" and f.edits)

    @property
    def replacements(self) -> int:
        return sum(f.edits for f in self.files)

    @property
    def by_family(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.files:
            for fam, n in f.by_family.items():
                out[fam] = out.get(fam, 0) + n
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def by_rule(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.files:
            for key, n in f.record.by_rule.items():
                out[key] = out.get(key, 0) + n
        return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    @property
    def lines_changed(self) -> int:
        return sum(f.record.lines_changed for f in self.files)

    @property
    def mb_per_s(self) -> float:
        return self.bytes_in / 1e6 / self.elapsed if self.elapsed > 0 else 0.0


@dataclass
class _Planned:
    entry: Entry
    out_rel: str
    record: FileRecord
    data: bytes | None = None  # new bytes of a ported file that must be written
    link: str | None = None  # new target of a symlink that must be written
    copy: bool = False  # a copied file that must be written
    chmod: bool = False  # only the mode differs
    staged: bool = False  # new bytes already written to the temp file (see _stage)


def default_output(src: str, reverse: bool = False) -> str:
    """``./csrc`` and ``./csrc/`` both give ``./csrc_musa`` (``./csrc_cuda`` reversed)."""
    return os.path.abspath(src).rstrip(os.sep) + ("_cuda" if reverse else "_musa")


def _inside(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def check_paths(src: str, output: str | None, reverse: bool = False) -> tuple[str, str]:
    """Validate SRC and the output folder; return both as absolute paths."""
    if not os.path.exists(src):
        raise PortError("source folder not found", src)
    if not os.path.isdir(src):
        raise PortError("source is not a folder", src)
    src_abs = os.path.abspath(src)
    out_abs = os.path.abspath(output) if output else default_output(src, reverse)
    src_real, out_real = os.path.realpath(src_abs), os.path.realpath(out_abs)
    if _inside(out_real, src_real):
        raise PortError(f"output folder {out_abs} is inside the source folder; choose another "
                        "with --output", src)
    if _inside(src_real, out_real):
        raise PortError(f"the source folder is inside the output folder {out_abs}; choose "
                        "another with --output", src)
    if os.path.lexists(out_abs) and not os.path.isdir(out_abs):
        raise PortError("output exists and is not a folder", out_abs)
    return src_abs, out_abs


def rules_stamp(opts: PortOptions) -> str:
    """What the rules in force depend on, without loading them: the options and the
    size and mtime of every table and rule file."""
    parts: list[object] = [opts.default_rules, opts.mapping_dir, sorted(opts.disable_families),
                           sorted(opts.enable_families), opts.reverse,
                           sorted((opts.inline_rules or {}).items())]
    table_dir = opts.mapping_dir if opts.mapping_dir is not None else (
        str(default_mapping_dir()) if opts.default_rules else None)
    paths = sorted(str(p) for p in Path(table_dir).glob("*.json")) if table_dir else []
    for path in [*paths, *map(str, opts.rule_files)]:
        try:
            st = os.stat(path)
            parts.append((os.path.abspath(path), st.st_size, st.st_mtime_ns))
        except OSError:
            parts.append((os.path.abspath(path), "missing"))
    return repr(parts)


def _options_fingerprint(opts: PortOptions, stamp: str, tree_files: Sequence[str]) -> str:
    h = hashlib.sha256()
    h.update(__version__.encode())
    h.update(stamp.encode("utf-8", "surrogateescape"))
    h.update(repr((sorted(opts.skip), list(opts.include_dirs), sorted(opts.extensions),
                   sorted(opts.keep), opts.reverse)).encode())
    for rel in tree_files:
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def _include_dirs_rel(src_abs: str, dirs: Sequence[str]) -> list[str]:
    """-I folders as paths relative to the tree root (given relative to it or to cwd)."""
    out = []
    for d in dirs:
        a = os.path.abspath(d)
        if os.path.isdir(a) and _inside(os.path.realpath(a), os.path.realpath(src_abs)):
            rel = os.path.relpath(os.path.realpath(a), os.path.realpath(src_abs))
        else:
            rel = d
        rel = posixpath.normpath(rel.replace(os.sep, "/"))
        out.append("" if rel == "." else rel)
    return out


def _same_stat(path: str, size: int, mtime_ns: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return st.st_size == size and st.st_mtime_ns == mtime_ns


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", path) from None


def _files_equal(a: str, b: str) -> bool:
    try:
        if os.path.getsize(a) != os.path.getsize(b) or os.path.islink(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError as exc:
        if not os.path.exists(a) or not os.access(a, os.R_OK):
            raise PortError(f"cannot read: {exc.strerror or exc}", a) from None
        return False


class Porter:
    """One porting run. ``Porter(options).run()`` is the library entry point."""

    def __init__(self, options: PortOptions):
        self.opts = options
        for kind in options.skip:
            if kind not in SKIP_KINDS:
                raise PortError(f"unknown --skip kind {kind!r}; use comments, strings")
        self.src, self.out = check_paths(options.src, options.output, options.reverse)
        self.renames = REVERSE_RENAMES if options.reverse else RENAMES
        self.extensions = frozenset(e if e.startswith(".") else "." + e for e in options.extensions)
        self.ruleset: RuleSet | None = None  # loaded on first need: see load_rules()

    def rule_options(self) -> dict:
        """The options that decide the rules, as the manifest records them."""
        o = self.opts
        return {
            "default_rules": o.default_rules,
            "mapping_dir": os.path.abspath(o.mapping_dir) if o.mapping_dir else None,
            "rule_files": [os.path.abspath(f) for f in o.rule_files],
            "inline_rules": dict(o.inline_rules or {}),
            "disable_families": list(o.disable_families),
            "enable_families": list(o.enable_families),
            "reverse": o.reverse,
        }

    def load_rules(self) -> None:
        """Load the tables and compile the matcher. A re-run where every input, rule
        file and output is as the manifest recorded never needs them, and they are
        most of a no-change run's time."""
        if self.ruleset is not None:
            return
        opts = self.opts
        self.ruleset = build_ruleset(
            rule_files=opts.rule_files,
            inline_rules=opts.inline_rules,
            default_rules=opts.default_rules,
            mapping_dir=opts.mapping_dir,
            disable_families=opts.disable_families,
            enable_families=opts.enable_families,
        )
        self.matcher = Matcher(self.ruleset.reversed() if opts.reverse
                               else self.ruleset.rewriting())
        # Header names the default tables produce (user rules that produce another
        # header for an out-of-tree include get a warning).
        self.known_headers = frozenset(
            value.decode("utf-8", "surrogateescape").strip('<>"')
            for _, value, rule in self.matcher.headers.values()
            if not getattr(rule, "is_user", False)
        )
        self.knowledge = self._knowledge()

    # -- plan ---------------------------------------------------------------------
    def _walk(self, result: PortResult) -> list[Entry]:
        ignorer = Ignorer(self.opts.ignore)
        try:
            entries = list(walk(self.src, ignorer, result.ignored))
        except OSError as exc:
            raise PortError(f"cannot list folder: {exc.strerror or exc}",
                            exc.filename or self.src) from None
        kept = []
        for e in entries:
            if e.rel in (MANIFEST_NAME, JOURNAL_NAME):
                result.warnings.append(f"{os.path.join(self.src, e.rel)}: skipped (reserved name)")
                continue
            kept.append(e)
        return kept

    def _out_rel(self, e: Entry) -> str:
        if e.kind == "dir":
            return e.rel
        if e.kind == "file" and posixpath.splitext(e.rel)[1] not in self.extensions:
            return e.rel
        return ported_name(e.rel, self.renames)

    def _link_target(self, e: Entry, out_rel_of: dict[str, str]) -> str:
        src_link = os.path.join(self.src, e.rel)
        target = os.readlink(src_link)
        link_dir_rel = posixpath.dirname(e.rel)
        if os.path.isabs(target):
            t_abs = os.path.normpath(target)
            if _inside(t_abs, self.src):
                t_rel = os.path.relpath(t_abs, self.src).replace(os.sep, "/")
                return os.path.join(self.out, out_rel_of.get(t_rel, t_rel))
            return target
        t_rel = posixpath.normpath(posixpath.join(link_dir_rel, target))
        if t_rel == ".." or t_rel.startswith("../"):
            # Points outside the tree: keep pointing at the same place.
            t_abs = os.path.normpath(os.path.join(self.src, link_dir_rel, target))
            out_dir = os.path.join(self.out, link_dir_rel)
            return os.path.relpath(t_abs, out_dir)
        new_rel = out_rel_of.get(t_rel, t_rel)
        if new_rel == t_rel:
            return target
        return posixpath.relpath(new_rel, link_dir_rel or ".")

    def _knowledge(self) -> Knowledge:
        rules = self.ruleset.rules  # type: ignore[union-attr]
        keep = set(self.opts.keep) | {k for k, r in rules.items() if r.value == k}
        off = self.ruleset.disabled  # type: ignore[union-attr]
        known = {k for k, r in rules.items() if r.value is None or (r.family in off and not r.is_user)}
        headers = {k.strip('<>"') for k in rules if k[:1] in '<"' and k[-1:] in '>"'}
        return Knowledge(frozenset(known), frozenset(keep), frozenset(headers))

    def run(self) -> PortResult:
        t0 = time.perf_counter()
        result = PortResult(self.src, self.out, dry_run=self.opts.dry_run)
        entries = self._walk(result)
        out_rel_of: dict[str, str] = {}
        owner: dict[str, str] = {}
        for e in entries:
            o = self._out_rel(e)
            if o in owner:
                raise PortError(f"both {owner[o]} and {e.rel} would be written to {o}", self.src)
            if o in (MANIFEST_NAME, JOURNAL_NAME):
                raise PortError(f"{e.rel} would overwrite the manifest", self.src)
            owner[o] = e.rel
            out_rel_of[e.rel] = o
        tree_files = sorted(e.rel for e in entries if e.kind != "dir")
        resolver = IncludeResolver(tree_files, _include_dirs_rel(self.src, self.opts.include_dirs),
                                   self.renames)
        fingerprint = _options_fingerprint(self.opts, rules_stamp(self.opts), tree_files)
        old = load_manifest(self.out)
        # A manifest from the same rules and tree lets unchanged files be skipped; a
        # diff needs every file's bytes, so it never skips.
        trusted = old.fingerprint == fingerprint and not self.opts.collect_diff
        dirs = [e for e in entries if e.kind == "dir"]
        files = [e for e in entries if e.kind != "dir"]
        # Files whose input and output are as the manifest recorded: decided once here,
        # used by the planning below (and inherited by forked workers).
        self._fast: dict[str, FileRecord] = {}
        if trusted:
            for e in files:
                rec = self._unchanged(e, out_rel_of[e.rel], old) if e.kind == "file" else None
                if rec is not None:
                    self._fast[e.rel] = rec
        if not trusted or any(self._needs_port(e) for e in files):
            self.load_rules()  # also checks the rule files, even for a tree with no sources
        result.rules = len(self.matcher.rules) if self.ruleset is not None else old.rules
        self._ctx = (out_rel_of, resolver)
        # Workers write new bytes straight to temp files beside their outputs (the
        # renames happen after planning), so writing is spread over the workers too.
        self._staging = not self.opts.dry_run and self.ruleset is not None
        if self._staging:
            created = self._prepare_staging([out_rel_of[e.rel] for e in files], dirs)
        planned: list[_Planned] = []
        try:
            for step in self._plan_all(files):
                p, outcome, diff_item, warnings, size = step
                planned.append(p)
                result.files.append(outcome)
                result.warnings.extend(warnings)
                result.bytes_in += size
                if diff_item is not None:
                    result.diff_items.append(diff_item)
        except BaseException:
            if self._staging:
                self._unstage([out_rel_of[e.rel] for e in files], created)
            raise
        if not self.opts.dry_run:
            self._write(planned, dirs, old, fingerprint, result)
        result.elapsed = time.perf_counter() - t0
        return result

    def _prepare_staging(self, out_rels: list[str], dirs: list[Entry]) -> list[str]:
        """Recover from an interrupted run, create the output folder and write the
        journal of every temp name this run may use. Returns the folders it created."""
        journal = os.path.join(self.out, JOURNAL_NAME)
        self._recover(journal)
        created = [d for d in ["", *(d.rel for d in dirs)]
                   if not os.path.isdir(os.path.join(self.out, d))]
        os.makedirs(self.out, exist_ok=True)
        with open(journal, "w", encoding="utf-8") as fh:
            fh.write("\n".join(_tmp_rel(o) for o in out_rels) + "\n")
        return created

    def _unstage(self, out_rels: list[str], created: list[str]) -> None:
        """Undo staging after a failed plan: the output is left as it was."""
        for o in out_rels:
            tmp = os.path.join(self.out, _tmp_rel(o))
            if os.path.lexists(tmp):
                os.unlink(tmp)
        journal = os.path.join(self.out, JOURNAL_NAME)
        if os.path.exists(journal):
            os.unlink(journal)
        for d in sorted(created, key=lambda r: -r.count("/") - (r != "")):
            try:
                os.rmdir(os.path.join(self.out, d) if d else self.out)
            except OSError:
                pass  # not empty (holds files we did not write) or already gone

    def _stage(self, p: _Planned, data: bytes) -> None:
        """Write a planned output's new bytes to its temp file now, when possible."""
        if not self._staging:
            return
        tmp = os.path.join(self.out, _tmp_rel(p.out_rel))
        try:
            parent = os.path.dirname(tmp)
            if not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
            _write_file(tmp, data, p.entry.mode)
        except OSError:
            return  # e.g. a file where a folder must go: the write phase sorts it out
        p.staged, p.data = True, None

    def _plan_all(self, files: list[Entry]):
        """Plan every file, in ``files`` order, in this process or ``jobs`` processes.

        Only source files that must be ported go to the workers (forked, so they share
        the compiled rules); the rest is planned here. Steps come back in ``files``
        order, so the result is the same for any number of jobs.
        """
        progress = self.opts.progress
        jobs = self.opts.jobs if self.opts.jobs is not None else (os.cpu_count() or 1)
        todo = len(files)
        heavy = [i for i, e in enumerate(files) if self._needs_port(e)]
        if jobs <= 1 or len(heavy) < _MIN_PARALLEL_FILES or "fork" not in _mp_methods():
            for i, e in enumerate(files):
                yield self._plan(e)
                if progress is not None:
                    progress(i + 1, todo)
            return
        import multiprocessing

        global _ACTIVE
        _ACTIVE = (self, files)
        chunks = [heavy[i:i + _CHUNK] for i in range(0, len(heavy), _CHUNK)]
        results: dict[int, object] = {}
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(chunks))) as pool:
                pending = pool.imap_unordered(_plan_chunk, chunks)
                heavy_set = set(heavy)
                for i, e in enumerate(files):  # the light ones while the workers run
                    if i not in heavy_set:
                        results[i] = self._plan(e)
                for steps in pending:
                    for i, step in steps:
                        p = step[0]
                        if p.data is not None:
                            self._stage(p, p.data)
                        results[i] = step
                    if progress is not None:
                        progress(len(results), todo)
        finally:
            _ACTIVE = None
        for i in range(todo):
            yield results[i]

    def _plan(self, e: Entry):
        """Plan one file: (planned, outcome, diff item or None, warnings, bytes read)."""
        out_rel_of, resolver = self._ctx
        out_rel = out_rel_of[e.rel]
        out_path = os.path.join(self.out, out_rel)
        src_path = os.path.join(self.src, e.rel)
        diff = self.opts.collect_diff

        if e.kind == "symlink":
            try:
                target = self._link_target(e, out_rel_of)
                original = os.readlink(src_path)
            except OSError as exc:
                raise PortError(f"cannot read link: {exc.strerror or exc}", src_path) from None
            rec = FileRecord(e.rel, "symlink", src_mode=e.mode)
            try:
                current = os.readlink(out_path) if os.path.islink(out_path) else None
            except OSError:
                current = None
            p = _Planned(e, out_rel, rec, link=None if current == target else target)
            item = None
            if diff and (target != original or out_rel != e.rel):
                item = DiffItem(e.rel, out_rel, os.fsencode(original), os.fsencode(target),
                                0o120000, symlink=True)
            return p, FileOutcome(e.rel, out_rel, "symlink", p.link is not None, rec), item, [], 0

        is_source = posixpath.splitext(e.rel)[1] in self.extensions
        kind = "ported" if is_source else "copied"
        prev = self._fast.get(e.rel)
        if prev is not None:
            # Input, rules and output as the last run left them: nothing to do.
            return (_Planned(e, out_rel, prev), FileOutcome(e.rel, out_rel, prev.kind, False, prev),
                    None, list(prev.warnings), e.size)

        rec = FileRecord(e.rel, kind, e.size, e.mtime_ns, e.mode)
        if is_source:
            data = _read(src_path)
            if b"\0" in data:
                kind = rec.kind = "copied"  # NUL bytes: not text, copy as is
            else:
                return self._plan_source(e, out_rel, out_path, src_path, data, rec, resolver)

        if not os.access(src_path, os.R_OK):
            raise PortError("cannot read: Permission denied", src_path)
        same = os.path.isfile(out_path) and not os.path.islink(out_path) \
            and _files_equal(src_path, out_path)
        p = _Planned(e, out_rel, rec, copy=not same)
        p.chmod = same and stat.S_IMODE(os.lstat(out_path).st_mode) != e.mode
        item = None
        if diff and out_rel != e.rel:  # a pure rename (a .cu holding NUL bytes)
            body = _read(src_path)
            item = DiffItem(e.rel, out_rel, body, body, e.mode)
        return p, FileOutcome(e.rel, out_rel, "copied", not same, rec), item, [], e.size

    def _needs_port(self, e: Entry) -> bool:
        """A source file the rules must run over (not skipped through the manifest)."""
        return (e.kind == "file" and e.rel not in self._fast
                and posixpath.splitext(e.rel)[1] in self.extensions)

    def _unchanged(self, e: Entry, out_rel: str, old: Manifest) -> FileRecord | None:
        """The manifest's record when input and output are as it recorded them."""
        prev = old.files.get(out_rel)
        if (prev is not None and prev.kind != "symlink" and prev.src == e.rel
                and prev.src_size == e.size and prev.src_mtime_ns == e.mtime_ns
                and prev.src_mode == e.mode
                and _same_stat(os.path.join(self.out, out_rel), prev.out_size, prev.out_mtime_ns)):
            return prev
        return None

    def _plan_source(self, e, out_rel, out_path, src_path, data, rec, resolver):
        ported = port_bytes(
            data,
            self.matcher,
            include_mapper=lambda t, rel=e.rel: resolver.ported_target(rel, t),
            skip=frozenset(self.opts.skip),
            known_headers=self.known_headers,
        )
        knowledge = Knowledge(self.knowledge.known, self.knowledge.keep,
                              self.knowledge.cuda_headers,
                              lambda t, rel=e.rel: resolver.resolve(rel, t) is not None)
        # Residuals and hazards are CUDA's: a reverse port (MUSA -> CUDA) has none.
        found = [] if self.opts.reverse else find_diagnostics(
            data, ported.data, ported.edits, knowledge, lexer.marker_spans(ported.data))
        rec.edits = len(ported.edits)
        rec.lines_changed = len({ed.line for ed in ported.edits})
        rec.by_family = ported.by_family()
        rec.by_rule = ported.by_rule()
        rec.diagnostics = [d.to_list() for d in found]
        rec.warnings = [f"{src_path}:{line}: warning: {msg}" for line, msg in ported.warnings]
        same = False
        try:
            st = os.lstat(out_path)
            if stat.S_ISREG(st.st_mode) and st.st_size == len(ported.data):
                same = _read(out_path) == ported.data
        except OSError:
            pass  # no output yet: it will be written
        p = _Planned(e, out_rel, rec, data=None if same else ported.data)
        p.chmod = same and stat.S_IMODE(os.lstat(out_path).st_mode) != e.mode
        if not same:
            self._stage(p, ported.data)
        item = None
        if self.opts.collect_diff and (ported.edits or out_rel != e.rel):
            item = DiffItem(e.rel, out_rel, data, ported.data, e.mode)
        return (p, FileOutcome(e.rel, out_rel, "ported", not same, rec), item,
                list(rec.warnings), e.size)

    # -- write --------------------------------------------------------------------
    def _write(self, planned: list[_Planned], dirs: list[Entry], old: Manifest,
               fingerprint: str, result: PortResult) -> None:
        out = self.out
        journal = os.path.join(out, JOURNAL_NAME)
        todo = [p for p in planned if p.data is not None or p.link is not None or p.copy]
        if not self._staging:
            self._recover(journal)
            os.makedirs(out, exist_ok=True)
            if todo:
                with open(journal, "w", encoding="utf-8") as fh:
                    fh.write("\n".join(_tmp_rel(p.out_rel) for p in todo) + "\n")
        for d in dirs:
            path = os.path.join(out, d.rel)
            if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
                os.unlink(path)  # a file or link we wrote where a folder now is
            os.makedirs(path, exist_ok=True)
            want = d.mode | stat.S_IRWXU  # we must be able to write into it next run
            if stat.S_IMODE(os.stat(path).st_mode) != want:
                os.chmod(path, want)
        for p in planned:
            path = os.path.join(out, p.out_rel)
            parent = os.path.dirname(path)
            if not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
            tmp = os.path.join(out, _tmp_rel(p.out_rel))
            if p.staged:
                os.replace(tmp, path)
            elif p.data is not None:
                _atomic_bytes(tmp, path, p.data, p.entry.mode)
            elif p.copy:
                _atomic_copy(tmp, path, os.path.join(self.src, p.entry.rel), p.entry.mode)
            elif p.link is not None:
                if os.path.lexists(tmp):
                    os.unlink(tmp)
                os.symlink(p.link, tmp)
                os.replace(tmp, path)
            elif p.chmod:
                os.chmod(path, p.entry.mode)
            if p.record.kind != "symlink":
                st = os.lstat(path)
                p.record.out_size, p.record.out_mtime_ns = st.st_size, st.st_mtime_ns
        new_outputs = {p.out_rel for p in planned}
        self._remove_stale(old, new_outputs, {d.rel for d in dirs}, result)
        records = {p.out_rel: p.record for p in planned}
        if (old.fingerprint == fingerprint and not result.removed and records.keys() == old.files.keys()
                and all(rec is old.files[k] for k, rec in records.items())
                and sorted(old.dirs) == sorted(d.rel for d in dirs)):
            if os.path.exists(journal):
                os.unlink(journal)
            return  # every record is the one the manifest already holds
        manifest = Manifest(self.src, fingerprint, records, [d.rel for d in dirs], result.rules,
                            self.rule_options())
        manifest_path = os.path.join(out, MANIFEST_NAME)
        data = manifest.to_json().encode()
        try:
            with open(manifest_path, "rb") as fh:
                unchanged = fh.read() == data
        except OSError:
            unchanged = False
        if not unchanged:
            _atomic_bytes(os.path.join(out, _tmp_rel(MANIFEST_NAME)), manifest_path, data, 0o644)
        if os.path.exists(journal):
            os.unlink(journal)

    def _recover(self, journal: str) -> None:
        """Remove temp files an interrupted run left (listed in its journal)."""
        try:
            with open(journal, encoding="utf-8") as fh:
                names = [line.strip() for line in fh if line.strip()]
        except OSError:
            return
        for rel in names:
            path = os.path.join(self.out, rel)
            if rel.endswith(TMP_SUFFIX) and os.path.lexists(path):
                os.unlink(path)
        os.unlink(journal)

    def _remove_stale(self, old: Manifest, outputs: set[str], dirs: set[str],
                      result: PortResult) -> None:
        for rel, rec in sorted(old.files.items()):
            if rel in outputs:
                continue
            path = os.path.join(self.out, rel)
            if not os.path.lexists(path):
                continue
            if rec.kind == "symlink" and os.path.islink(path) or \
                    _same_stat(path, rec.out_size, rec.out_mtime_ns):
                os.unlink(path)
                result.removed.append(rel)
            else:
                result.kept_stale.append(rel)
                result.warnings.append(f"{path}: warning: its input is gone but it changed since "
                                       "musa-port wrote it; left in place")
        for rel in sorted(set(old.dirs) - dirs, key=lambda r: -r.count("/")):
            try:
                os.rmdir(os.path.join(self.out, rel))
            except OSError:
                pass  # not empty: holds files we did not write


# Parallel planning: below this many files a pool costs more than it saves.
_MIN_PARALLEL_FILES = 64
_CHUNK = 16
_ACTIVE = None  # (porter, files) while a pool runs; inherited by forked workers


def _mp_methods() -> list[str]:
    import multiprocessing

    return multiprocessing.get_all_start_methods()


def _plan_chunk(indices: list[int]):
    porter, files = _ACTIVE  # type: ignore[misc]
    # Workers only compute: the parent writes what comes back while they go on (file
    # creation from several processes at once contends in the file system and was
    # slower than one writer).
    porter._staging = False
    return [(i, porter._plan(files[i])) for i in indices]


def _tmp_rel(out_rel: str) -> str:
    head, tail = posixpath.split(out_rel)
    return posixpath.join(head, f".{tail}{TMP_SUFFIX}")


def _write_file(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _atomic_bytes(tmp: str, path: str, data: bytes, mode: int) -> None:
    _write_file(tmp, data, mode)
    os.replace(tmp, path)


def _atomic_copy(tmp: str, path: str, src: str, mode: int) -> None:
    if os.path.lexists(tmp):
        os.unlink(tmp)
    try:
        shutil.copyfile(src, tmp)
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", src) from None
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def port_tree(options: PortOptions) -> PortResult:
    """Port ``options.src`` into its output folder; see :class:`PortOptions`."""
    return Porter(options).run()


__all__ = ["PortOptions", "PortResult", "FileOutcome", "Porter", "port_tree", "INCLUDE_FAMILY"]
