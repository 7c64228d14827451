"""Porting a tree: walk, plan every output, then write, then tidy.

The plan phase reads every input and computes every output without replacing
anything, so bad input (an unreadable file, a rename collision) stops the run with
the output tree as it was. The write phase replaces each changed output atomically
(temp file, then rename) and leaves unchanged outputs alone, bytes and mtime, so a
``setup.py`` that ports on every build does not trigger a full recompile.

The steps live in their own modules: ``walk`` (what is in SRC), ``plan`` (one file),
``parallel`` (many files), ``stage`` (temp files while planning), ``write`` (the
renames and the manifest), ``stale`` (outputs whose input is gone), ``journal``
(recovery after an interruption).
"""

from __future__ import annotations

import os
import time

from ..errors import PortError
from ..port.filenames import RENAMES, REVERSE_RENAMES, ported_name
from ..port.includes import IncludeResolver
from .active_rules import load_active_rules, rule_options
from .fingerprint import options_fingerprint, rules_stamp
from .kinds import TABLE_FREE, KindSelector
from .manifest import JOURNAL_NAME, MANIFEST_NAME, FileRecord, Manifest, load_manifest
from .options import SKIP_KINDS, PortOptions
from .parallel import plan_all
from .paths import check_paths, include_dirs_rel
from .plan import Planned, Planner, unchanged_record
from .python_run import launch_files
from .result import PortResult
from .stage import Stager
from .walk import Entry, Ignorer, walk
from .write import finish, write_outputs


class Porter:
    """One porting run. ``Porter(options).run()`` is the library entry point."""

    def __init__(self, options: PortOptions):
        self.opts = options
        for kind in options.skip:
            if kind not in SKIP_KINDS:
                raise PortError(f"unknown --skip kind {kind!r}; use comments, strings")
        self.src, self.out = check_paths(options.src, options.output, options.reverse)
        self.renames = REVERSE_RENAMES if options.reverse else RENAMES
        self.kinds = KindSelector.from_options(options)

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
        if e.kind == "file" and self.kinds.kind_of(e.rel) is None:
            return e.rel  # copied under its own name
        return ported_name(e.rel, self.renames)

    def _output_names(self, entries: list[Entry]) -> dict[str, str]:
        """Each input's output path; two inputs may not share one."""
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
        return out_rel_of

    def run(self) -> PortResult:
        t0 = time.perf_counter()
        opts = self.opts
        result = PortResult(self.src, self.out, dry_run=opts.dry_run)
        entries = self._walk(result)
        out_rel_of = self._output_names(entries)
        tree_files = sorted(e.rel for e in entries if e.kind != "dir")
        bad = sorted(r for r in launch_files(self.src, opts.launch)
                     if self.kinds.kind_of(r) != "python" or r not in tree_files)
        if bad:
            raise PortError("--launch: not a Python file this port ports (outside SRC, ignored, "
                            "or --no-python)", os.path.join(self.src, bad[0]))
        resolver = IncludeResolver(tree_files, include_dirs_rel(self.src, opts.include_dirs),
                                   self.renames)
        fingerprint = options_fingerprint(opts, rules_stamp(opts), tree_files)
        old = load_manifest(self.out)
        # A manifest from the same rules and tree lets unchanged files be skipped; a
        # diff needs every file's bytes, so it never skips.
        trusted = old.fingerprint == fingerprint and not opts.collect_diff
        dirs = [e for e in entries if e.kind == "dir"]
        files = [e for e in entries if e.kind != "dir"]
        # Files whose input and output are as the manifest recorded: decided once here,
        # used by the planning below (and inherited by forked workers).
        fast: dict[str, FileRecord] = {}
        if trusted:
            for e in files:
                rec = unchanged_record(self.out, e, out_rel_of[e.rel], old) if e.kind == "file" else None
                if rec is not None:
                    fast[e.rel] = rec
        planner = Planner(opts, self.src, self.out, self.kinds, out_rel_of, resolver, fast, None)
        to_port = {self.kinds.kind_of(e.rel) for e in files if planner.needs_port(e)}
        if not trusted or to_port:
            # Also checks the rule files, even for a tree with no sources. The tables are
            # skipped when every file to port is of a kind that uses only user rules.
            planner.rules = load_active_rules(opts, tables=not to_port or not to_port <= TABLE_FREE)
        result.rules = len(planner.rules.matcher.rules) if planner.rules is not None else old.rules
        # New bytes go straight to temp files beside their outputs while planning runs
        # (the renames happen after planning).
        stager = Stager(self.out) if not opts.dry_run and planner.rules is not None else None
        out_rels = [out_rel_of[e.rel] for e in files]
        if stager is not None:
            stager.prepare(out_rels, dirs)
            planner.stage = stager.stage
        planned: list[Planned] = []
        try:
            for step in plan_all(planner, files, opts.jobs, opts.progress):
                planned.append(step.planned)
                result.files.append(step.outcome)
                result.warnings.extend(step.warnings)
                result.bytes_in += step.size
                if step.diff_item is not None:
                    result.diff_items.append(step.diff_item)
        except BaseException:
            if stager is not None:
                stager.unstage(out_rels)
            raise
        if not opts.dry_run:
            write_outputs(self.src, self.out, planned, dirs, staged=stager is not None)
            manifest = Manifest(self.src, fingerprint, {p.out_rel: p.record for p in planned},
                                [d.rel for d in dirs], result.rules, rule_options(opts))
            finish(self.out, planned, dirs, old, manifest, result)
        result.elapsed = time.perf_counter() - t0
        return result


def port_tree(options: PortOptions) -> PortResult:
    """Port ``options.src`` into its output folder; see :class:`PortOptions`."""
    return Porter(options).run()
