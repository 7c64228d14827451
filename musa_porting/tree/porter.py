"""Porting a tree: walk, plan every output, then write, then tidy.

The plan phase reads every input and computes every output into temp files without
replacing anything, so bad input (an unreadable file, a rename collision, a user's
file where an output must go) or a full disk stops the run with the output tree as it
was. The commit then renames each changed output into place and leaves unchanged
outputs alone, bytes and mtime, so a ``setup.py`` that ports on every build does not
trigger a full recompile.

The steps live in their own modules: ``walk`` (what is in SRC), ``lock`` (one writer
per output), ``journal`` (recovery after an interruption), ``output_state`` (what the
output holds, and whose it is), ``plan`` (one file), ``parallel`` (many files),
``stage`` (temp files while planning), ``stale`` (outputs whose input is gone) and
``write`` (the commit).
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Sequence
from dataclasses import replace

from ..errors import PortError
from ..merge.base_from import saved_conventions
from ..merge.behind import still_behind
from ..merge.run import MergeRun, with_commit
from ..port.cxx.includes import IncludeResolver
from ..port.filenames import RENAMES, REVERSE_RENAMES
from ..rules.project import ProjectPlan, status_counts
from ..rules.vocabulary import Vocabulary
from ..write.commit import commit
from ..write.fingerprint import options_fingerprint, rule_options, rules_stamp
from ..write.journal import pending_intent, recover
from ..write.lock import OutputLock
from ..write.manifest import (
    BUILD_DIR_NAME,
    RESERVED_NAMES,
    STATE_DIR_NAME,
    FileRecord,
    Manifest,
    load_manifest,
)
from ..write.manifest_check import indexed
from ..write.outdir import OutDir
from ..write.output_state import OutputState
from ..write.stage import Stager
from ..write.stale import plan_stale, stale_warnings
from . import timings
from .active_rules import compile_rules, keeping, with_project
from .build_kind import MACRO_KINDS
from .consistency import check_port
from .input_findings import attach
from .kinds import TABLE_FREE, KindSelector, load_porters
from .library_findings import summarise_libraries
from .names import name_tree
from .options import SKIP_KINDS, PortOptions
from .parallel import plan_all
from .paths import check_paths, include_dirs_rel
from .plan import Planned, Planner, unchanged_records
from .python_run import check_launch_files
from .rename_map import with_outside
from .result import PortResult
from .shared_files import note_shared_files
from .templates import left_alone
from .unlisted import keep_unlisted
from .vendor_folders import tree_vendor_word
from .vendored import in_library, library_roots, vendored_roots
from .vocabulary import run_vocabulary
from .walk import Entry, Ignorer, walk

# The kinds the symbol index reads: sources, and build files for their macros.
INDEXED = MACRO_KINDS | {"cxx"}


def _dropped_flags(compile_commands: str | None, clang) -> list[str]:
    """The note on the compile_commands flags libclang was not given (it would misread them)."""
    dropped = clang.dropped if clang is not None else []
    if not dropped:
        return []
    shown = ", ".join(dropped[:8]) + (f" and {len(dropped) - 8} more" if len(dropped) > 8 else "")
    return [f"{compile_commands}: note: flags not given to libclang (it takes -I, -D, -U, -std, "
            f"-isystem, -include, -x, -W, -f): {shown}"]


class Porter:
    """One porting run. ``Porter(options).run()`` is the library entry point."""

    def __init__(self, options: PortOptions, adoption=None):
        options = with_outside(options)  # the renames of the outputs it includes from
        self.opts = options
        self.adoption = adoption  # --base-from: the bases of a port musa-port did not make
        _check_skip(options.skip)
        self.src, self.out = check_paths(options.src, options.output, options.reverse)
        self.renames = dict(options.renames) if options.renames is not None else (
            REVERSE_RENAMES if options.reverse else RENAMES)
        self.kinds = KindSelector.from_options(options)
        self._vocabulary: Vocabulary | None = None
        self.libraries: frozenset[str] = frozenset()  # vendored Thrust/CUB/libcu++ (tree/vendored.py)
        self.library_names: frozenset[str] = frozenset()  # the names they define
        self._twinned: list[Entry] = []  # CUDA files left for their MUSA twins (tree/twins.py)
        self.unlisted: dict[str, str] = {}  # folders of SRC the walk could not list (-> why)

    def run(self) -> PortResult:
        t0 = time.perf_counter()
        opts = self.opts
        result = PortResult(self.src, self.out, dry_run=opts.dry_run,
                            symbols_backend=opts.symbols_backend)
        entries = _tree_entries(self.src, self.opts.ignore, result, self.unlisted)
        timings.mark("walk")
        if opts.vendor_word is None:  # the tree's word, by its backend folders' naming
            self.opts = opts = replace(opts, vendor_word=tree_vendor_word(entries))
        try:
            if opts.dry_run:
                old = _load_manifest(self.out)
                old.adopt(pending_intent(self.out, old.warnings), self.out)
                result.warnings.extend(old.warnings)
                self._port(result, entries, old, None)
            else:
                with OutputLock(self.out, opts.wait), OutDir(self.out) as outdir:
                    old = _load_manifest(self.out)
                    try:
                        intent = recover(outdir, old.dirs)
                    except OSError as exc:
                        raise PortError(f"cannot clean up after an interrupted run: "
                                        f"{exc.strerror or exc}", exc.filename or self.out) from None
                    old.adopt(intent, self.out)
                    result.warnings.extend(old.warnings)
                    self._port(result, entries, old, outdir)
        finally:
            gc.unfreeze()  # a library caller's later collections see everything again
        if not opts.reverse and os.path.dirname(self.src) == os.path.dirname(self.out):
            note_shared_files(result, self.src, self.out, self.vocabulary)  # a backend folder
        result.elapsed = time.perf_counter() - t0
        return result

    def _port(self, result: PortResult, entries: list[Entry], old: Manifest,
              outdir: OutDir | None) -> None:
        """Plan, stage and commit the port (``outdir`` None: a dry run)."""
        opts = self.opts
        merging = MergeRun(self.out, old, outdir, self.adoption)  # the user's edits
        tree_files = sorted(e.rel for e in entries if e.kind != "dir")
        self.libraries = library_roots(self.src, tree_files) if not opts.reverse else frozenset()
        named = name_tree(self.src, entries, self.kinds, self.renames,
                          self.vocabulary() if opts.rename_paths else None, result, opts.file_name,
                          self.libraries, self.out, old, twins_in_out=not opts.reverse,
                          rename_exported=opts.rename_exported, layout=opts.layout)
        out_rel_of, entries, self._twinned = named.out_rel_of, named.entries, named.twinned
        self.kinds = replace(self.kinds, verbatim=named.verbatim)  # the porter's MUSA versions
        check_launch_files(self.src, opts.launch, self.kinds.kind_of, tree_files)
        resolver = IncludeResolver(tree_files, include_dirs_rel(self.src, opts.include_dirs),
                                   self.renames, out_rel_of)
        fingerprint = options_fingerprint(opts, rules_stamp(opts), tree_files,  # twins: see below
                                          [os.path.join(self.src, e.rel) for e in self._twinned],
                                          named.unported)
        # A manifest from the same rules and tree lets unchanged files be skipped; a
        # diff needs every file's bytes, so it never skips.
        trusted = old.fingerprint == fingerprint and not opts.collect_diff
        timings.mark("names, includes, manifest")
        dirs = named.dirs
        files = [e for e in entries if e.kind != "dir"]
        state = OutputState(self.out, old, opts.force)
        state.classify([d.rel for d in dirs])
        # Files whose input and output are as the manifest recorded: decided once here,
        # used by the planning below (and inherited by forked workers).
        fast = unchanged_records(self.out, self.src, files, out_rel_of, old, state,
                                 opts.paranoid) if trusted else {}
        planner = Planner(opts, self.src, self.out, self.kinds, out_rel_of, resolver, fast, None)
        planner.outputs, planner.libraries = state, self.libraries
        merging.attach(planner, self.src, out_rel_of, [e.rel for e in files if e.kind == "file"])
        base = None  # the rules compiled while the symbol index ran, if it did
        project = None
        if opts.project_symbols:
            base, project, fast = _project_symbols(self, files, fast, old, trusted, planner, result)
            planner.fast = fast
            timings.mark("project symbols (index, tables, plan)")
        to_port = {self.kinds.kind_of(e.rel) for e in files if planner.needs_port(e)}
        if base is not None or not trusted or to_port:
            # Also checks the rule files, even for a tree with no sources. The tables are
            # skipped when every file to port is of a kind that uses only user rules.
            load_porters(to_port)  # in the parent: the forked workers inherit them
            if base is None:
                tables = not to_port or not to_port <= TABLE_FREE
                base = compile_rules(opts, None, self.vocabulary(), tables)
            # Names kept on purpose (a note says why) are not residuals: a vendored
            # library's, and the names the plan keeps because others resolve them by string.
            kept = frozenset(c.old for c in project.kept) if project is not None else frozenset()
            planner.rules = keeping(with_project(base, project), self.library_names | kept)
            # The 30,000 rules live until the run ends: out of the cyclic collector's
            # sight, its collections during the port no longer walk them (and forked
            # workers do not touch their pages for it).
            gc.freeze()
        result.rules, result.rule_status = _rule_counts(planner.rules, old)
        timings.mark("rules compiled")
        result.project = project
        # New bytes go to temp files beside their outputs while planning runs (renamed after).
        stager = None if outdir is None else Stager(self.src, outdir, state, out_rel_of.values())
        planned: list[Planned] = []
        shared: dict = {}  # see FileRecord.compact
        try:
            if stager is not None:
                stager.prepare([d.rel for d in dirs])
                planner.stage_to(stager)
            for step in plan_all(planner, files, opts.jobs, opts.progress):
                if step.planned is not None:  # else nothing of it in OUT (plan.Planner.plan)
                    step.planned.record.compact(shared)
                    planned.append(step.planned)
                result.files.append(step.outcome)
                result.warnings.extend(step.warnings)
                result.bytes_in += step.size
                if step.diff_item is not None:
                    result.diff_items.append(step.diff_item)
            found = keep_unlisted(self.unlisted, old, state, set(out_rel_of.values()), planned)
            timings.mark("files ported and staged")
            if self.libraries:  # the copies in another project, not the tree's own library
                result.libraries = summarise_libraries(
                    result.files, vendored_roots(self.src, tree_files, self.libraries))
            merging.check(result.files)  # --base-from: each changed file merged into the fork's
            result.warnings += _near_misses(self.src, planner, files, result)
            result.warnings += left_alone(result.files, self.kinds.template)
            check_port(result, planned, self.out, opts.reverse, old)  # does OUT hang together?
            stale = plan_stale(self.out, old, {p.out_rel: p.over for p in planned},
                               {d.rel for d in dirs}, state, merging.removable(result.files))
            result.warnings += stale_warnings(self.out, stale, old, self.src, out_rel_of)
            result.kept_stale += stale.kept
            attach(result.files, named.findings + found, out_rel_of)  # one input's problems
            if stager is None:
                return
            manifest = _manifest(self.src, fingerprint, planned, dirs, result, opts, project, merging)
            stager.probe({os.path.dirname(r) for r in [*stale.remove, *stale.dirs, *stale.forced]})
            if _manifest_changed(old, manifest, stale.remove):
                stager.stage_manifest(manifest)
        except BaseException:
            if stager is not None:
                stager.unstage()
                merging.failed()
            raise
        commit(planned, dirs, stale, stager, result)
        merging.committed(manifest if stager.manifest_staged else None)
        timings.mark("outputs and manifest written")

    def vocabulary(self) -> Vocabulary:
        """The run's vocabulary, loaded on first need (a no-change re-run has none)."""
        if self._vocabulary is None:
            self._vocabulary = run_vocabulary(self.opts)
        return self._vocabulary

def _project_symbols(porter: Porter, files: list[Entry], fast: dict[str, FileRecord], old: Manifest,
                     trusted: bool, planner: Planner, result: PortResult):
    """Index the sources and plan the renames. Returns the rules when they had to be
    compiled (before the plan: the tables' matcher is built while the workers
    index), the plan, and the files still skipped: when the renames differ from the
    last run's, every file is ported again."""
    # C/C++ sources, and the build files whose macros are the project's too.
    kind_of = porter.kinds.kind_of
    sources = [e for e in files if e.kind == "file" and kind_of(e.rel) in INDEXED]
    if not any(kind_of(e.rel) == "cxx" for e in sources):
        return None, ProjectPlan(), fast  # no C/C++ source: nothing can be renamed
    old_plan = ProjectPlan.from_json(old.project) if trusted and old.project else None
    known = [fast[e.rel].symbols for e in sources if e.rel in fast]
    if old_plan is not None and len(known) == len(sources) and all(map(indexed, known)):
        # Nothing changed: the last run's plan holds, and no table is loaded.
        result.symbol_notes = {e.rel: fast[e.rel].symbols.get("note", "") for e in sources
                               if fast[e.rel].symbols.get("note")}
        result.symbol_uses = {u for x in known for u in x.get("uses", ())}
        return None, old_plan, fast
    from .project_symbols import SymbolPass
    symbols = SymbolPass(porter.opts, porter.src, porter.vocabulary(), kind_of,
                         lambda rel: in_library(rel, porter.libraries))
    result.warnings += _dropped_flags(porter.opts.compile_commands, symbols.clang)
    # The CUDA files left for their MUSA twins define the names the twins rename (read by
    # the index only: a change to one changes the fingerprint, above).
    wait = symbols.index(sources + [e for e in porter._twinned if kind_of(e.rel) == "cxx"], fast)
    # The tables load and compile while the workers index (a tree of sources nearly
    # always defines a name to rename, and its sources need the tables anyway).
    base = compile_rules(porter.opts, None, porter.vocabulary())
    ruleset = base.ruleset
    index = wait()
    result.symbols_indexed = len(symbols.reindexed)
    result.symbol_notes = {rel: fs.note for rel, fs in index.items() if fs.note}
    result.symbol_uses = {u for fs in index.values() for u in fs.uses}
    if not any(fs.defs or fs.modules or fs.like for fs in index.values()) \
            and not porter.opts.outside_renames:
        plan = ProjectPlan()  # nothing to rename
    else:
        plan = symbols.plan(index, ruleset, base.matcher)
    porter.library_names = symbols.library_names
    for rel in symbols.reindexed:
        rec = planner.fast.get(rel)
        if rec is not None:
            rec.symbols = index[rel].to_json()
    planner.symbols, planner.index_failed = index, symbols.failed  # JSON where each is ported
    if old_plan is None or old_plan.key() != plan.key():
        fast = {}
    return base, plan, fast


def _load_manifest(out: str) -> Manifest:
    """The last run's manifest, out of the cyclic collector's sight until the run ends
    (``run`` unfreezes): its 100,000 lists and dicts hold no cycle, and every collection
    of the run would walk them."""
    old = load_manifest(out)
    gc.freeze()
    return old


def _check_skip(kinds: Sequence[str]) -> None:
    for kind in kinds:
        if kind not in SKIP_KINDS:
            raise PortError(f"unknown --skip kind {kind!r}; use comments, strings")


def _tree_entries(src: str, ignore: Sequence[str], result: PortResult,
                  unlisted: dict[str, str]) -> list[Entry]:
    """SRC's entries, without what the walk skips (reported) and musa-port's own names;
    ``unlisted`` gets the folders under SRC that cannot be listed (see unlisted.py)."""
    ignorer = Ignorer(ignore)
    skipped: list[tuple[str, str]] = []
    try:
        entries = list(walk(src, ignorer, result.ignored, skipped, unlisted))
    except OSError as exc:
        raise PortError(f"cannot list folder: {exc.strerror or exc}",
                        exc.filename or src) from None
    for rel, what in skipped:
        result.warnings.append(f"{os.path.join(src, rel)}: warning: skipped: {what}, "
                               "not a file, folder or link")
    kept = []
    for e in entries:
        if e.rel in RESERVED_NAMES:
            result.warnings.append(f"{os.path.join(src, e.rel)}: skipped (reserved name)")
            continue
        if e.rel.startswith((BUILD_DIR_NAME + "/", STATE_DIR_NAME + "/")):
            continue  # inside a folder skipped above
        kept.append(e)
    return kept


def _rule_counts(rules, old: Manifest) -> tuple[int, dict[str, int]]:
    """The rules in force and their counts by status; those of the last run when no
    rule was compiled (a re-run with nothing to port)."""
    if rules is None:
        return old.rules, old.rule_status
    return len(rules.matcher.rules), status_counts(rules.matcher.rules)


def _manifest(src: str, fingerprint: str, planned: list[Planned], dirs: list[Entry],
              result: PortResult, opts: PortOptions, project: ProjectPlan | None,
              merging: MergeRun) -> Manifest:
    """The manifest of the run (with SRC's git commit, what a later upgrade diffs from;
    the bases of packs mostly dead moved to this run's)."""
    return Manifest(src, fingerprint, merging.repack({p.out_rel: p.record for p in planned}),
                    [d.rel for d in dirs], result.rules, with_commit(rule_options(opts), src),
                    project.to_json() if project is not None else {}, result.rule_status,
                    result.consistency)


def _near_misses(src: str, planner: Planner, files: list[Entry], result: PortResult) -> list[str]:
    """Warnings on near misses of the rules, when some file was ported."""
    if planner.rules is None or planner.rules.text_rules:  # torch_musa's rules: no near misses
        return []
    from ..analyze.near_misses import near_miss_warnings

    return near_miss_warnings(src, [e.rel for e in files if planner.kinds.kind_of(e.rel) == "cxx"],
                              planner.rules.ruleset, result.by_rule)


def _manifest_changed(old: Manifest, new: Manifest, removed: list[str]) -> bool:
    """Whether the manifest must be written: else every record is the one the manifest
    already holds, and a no-change re-run writes nothing at all."""
    return not (old.fingerprint == new.fingerprint and not removed and old.project == new.project
                and old.consistency == new.consistency
                and new.files.keys() == old.files.keys()
                and all(rec is old.files[k] for k, rec in new.files.items())
                and sorted(old.dirs) == sorted(new.dirs))


def port_tree(options: PortOptions) -> PortResult:
    """Port ``options.src`` into its output folder; see :class:`PortOptions`."""
    if not options.base_from:  # with what an earlier --base-from learned of OUT, if anything
        options, conv = saved_conventions(options)
        result = Porter(options).run()
        if conv is not None:
            result.not_upgraded = still_behind(result.output, conv.behind)
        return result
    from ..merge.base_from import prepare

    options, adoption = prepare(options, Porter)
    try:
        result = Porter(options, adoption).run()
    finally:
        adoption.close()
    result.warnings.insert(0, f"{result.output}: note: adopted as a port of {options.base_from} "
                              f"(--base-from); its conventions: {adoption.conventions.describe()}")
    result.not_upgraded = still_behind(result.output, adoption.conventions.behind)
    return result
