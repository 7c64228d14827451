"""The project-symbol pass of a run: index the tree's C/C++/CUDA files, then plan
which names the tree defines are renamed (see ``rules/project.py``).

It runs before any file is ported, since a file's port depends on the names other
files define. A file whose input and output are as the manifest recorded keeps its
index entry from the manifest, so a re-run reads only the files that changed; when
none changed, the last run's plan is reused without loading the rule tables.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable

from ..analyze.build_symbols import scan_build
from ..analyze.symbols import FileSymbols, scan_lexer
from ..analyze.word_finder import WordFinder
from ..errors import InputError
from ..port.engine import HEADER_KEY, WORD_KEY, Matcher
from ..port.lines import cr_only
from ..port.text import port_text
from ..rules import RuleSet
from ..rules.project import ProjectPlan, Site, plan_renames
from ..rules.vocabulary import Vocabulary
from ..write.files import read_file
from ..write.manifest import FileRecord
from ..write.manifest_check import indexed
from .backends import shared_names
from .options import PortOptions
from .parallel import map_forked
from .plan import one_line
from .twins import musa_side
from .walk import Entry


class SymbolPass:
    """Indexes a tree's sources with the chosen back end and plans the renames."""

    def __init__(self, opts: PortOptions, src: str, vocabulary: Vocabulary,
                 kind_of: Callable[[str], str | None] = lambda rel: "cxx",
                 vendored: Callable[[str], bool] = lambda rel: False):
        self.kind_of = kind_of  # a build file's macros are indexed by analyze/build_symbols
        self.vendored = vendored  # a file of a vendored Thrust/CUB/libcu++ (tree/vendored.py)
        self.library_names: frozenset[str] = frozenset()  # what those files define: kept
        self.opts = opts
        self.src = src
        self.vocabulary = vocabulary
        self.words = WordFinder(vocabulary)
        self.target = WordFinder(vocabulary.reversed())
        self.clang = None
        if opts.symbols_backend == "clang":
            from ..analyze.clang_symbols import ClangIndexer

            self.clang = ClangIndexer(src, opts.include_dirs, opts.defines, opts.compile_commands)
        self.reindexed: list[str] = []  # files read this run (the rest came from the manifest)
        self.failed: dict[str, str] = {}  # files the index failed on -> what failed (MP0005)
        self._seen: dict[str, tuple[int, int] | None] = {}  # rel -> what the walk saw

    def index(self, sources: list[Entry], fast: dict[str, FileRecord]
              ) -> Callable[[], dict[str, FileSymbols]]:
        """Start indexing: each source's entry comes from the manifest when the file is
        unchanged, else it is read and scanned (in ``--jobs`` workers with the lexer
        back end). The returned function waits for the index."""
        out: dict[str, FileSymbols] = {}
        todo = []
        self._seen = {e.rel: e.identity for e in sources}
        for e in sources:
            rec = fast.get(e.rel)
            if rec is not None and indexed(rec.symbols):
                out[e.rel] = FileSymbols.from_json(rec.symbols)
            else:
                todo.append(e.rel)
        if self.clang is not None:
            from ..analyze.clang_symbols import SOURCE_EXTS

            tu_sources = [e.rel for e in sources if os.path.splitext(e.rel)[1] in SOURCE_EXTS]
            cxx = [r for r in todo if self.kind_of(r) == "cxx"]
            # The units to parse: the changed sources, and every source when a header
            # changed (which sources reach it is what parsing tells).
            units = tu_sources if any(os.path.splitext(r)[1] not in SOURCE_EXTS for r in cxx) \
                else [r for r in cxx if os.path.splitext(r)[1] in SOURCE_EXTS]
            self.clang.parse_all(units, self.opts.jobs)  # type: ignore[union-attr]
            scanned = [_or_failure(self._clang_one, rel, tu_sources) if self.kind_of(rel) == "cxx"
                       else _or_failure(self._lexer_one, rel) for rel in todo]
            wait: Callable[[], list] = lambda: scanned  # noqa: E731
        else:
            wait = map_forked(functools.partial(_or_failure, self._lexer_one), todo, self.opts.jobs)

        def finish() -> dict[str, FileSymbols]:
            for rel, fs in zip(todo, wait()):
                if isinstance(fs, str):
                    self.failed[rel] = fs
                elif fs is not None:
                    out[rel] = fs
                    self.reindexed.append(rel)
            return out

        return finish

    def _read(self, rel: str) -> bytes | None:
        try:
            data = read_file(os.path.join(self.src, rel), self._seen.get(rel))
        except InputError:
            return None  # not indexed: its port cannot read it either, and says so (MP0004)
        if b"\0" in data:
            return None  # not text: copied, not ported
        return data.replace(b"\r", b"\n") if cr_only(data) else data  # as porters.py reads it

    def _lexer_one(self, rel: str) -> FileSymbols | None:
        data = self._read(rel)
        if data is None:
            return None
        kind = self.kind_of(rel)
        if kind != "cxx":
            return scan_build(data, kind or "", self.words, self.target)
        return scan_lexer(data, self.words, self.target)

    def _clang_one(self, rel: str, tu_sources: list[str]) -> FileSymbols | None:
        data = self._read(rel)
        if data is None:
            return None
        return self.clang.index(rel, data, self.words, self.target, tu_sources)  # type: ignore[union-attr]

    def plan(self, index: dict[str, FileSymbols], ruleset: RuleSet,
             matcher: Matcher | None = None) -> ProjectPlan:
        """The renames; ``matcher``, the rules compiled for this run, when there is one."""
        defs: dict[str, list[Site]] = {}
        taken: set[str] = set()
        musa_words = None if self.opts.reverse else self.vocabulary.reversed()
        existing: set[str] = set()  # names the tree's MUSA side (musa/, *.mu) already has
        library: set[str] = set()  # what a vendored Thrust/CUB/libcu++ defines keeps its name
        exported: dict[str, Site] = {}
        for rel, fs in sorted(index.items()):
            taken.update(fs.taken)
            if musa_words is not None and fs.taken and musa_side(rel, musa_words):
                existing.update(fs.taken)
            if self.vendored(rel):
                library.update(d.name for d in fs.defs)
                continue
            for d in fs.defs:
                defs.setdefault(d.name, []).append(Site(rel, d.line, d.column, d.kind))
            for name, line, column, how in fs.exported:
                exported.setdefault(name, Site(rel, line, column, how))
        self.library_names = frozenset(library)
        shared = {} if musa_words is None else shared_names(index, defs, self.vocabulary)
        rules = ruleset.rules
        rule_names = set(rules) | {r.value for r in rules.values() if r.value is not None}
        return plan_renames(defs, taken, self.vocabulary, rule_names=rule_names,
                            rule_keys=set(rules), keep=self.opts.keep, library=library,
                            refine=_inside_names(ruleset, self.opts.reverse, matcher),
                            exported=exported, rename_exported=self.opts.rename_exported,
                            existing=existing, shared=shared,
                            outside_renames=self.opts.outside_renames,
                            outside_kept=self.opts.outside_kept)


def _or_failure(index, rel: str, *args) -> FileSymbols | str | None:
    """``index(rel, *args)``, or what failed (a bug, on this one file): the file is not
    indexed, the run goes on and says so (``MUSA_PORT_DEBUG=1`` lets it through)."""
    try:
        return index(rel, *args)
    except Exception as exc:  # noqa: BLE001 - any bug of the index's, on this one file
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        return one_line(exc)


def _inside_names(ruleset: RuleSet, reverse: bool, compiled: Matcher | None = None):
    """The rules that act inside a name (keys with a ``_`` or punctuation edge, such
    as ``_CUH``), as a function on a new name."""
    if compiled is not None:
        matcher = compiled.inner()
        if not matcher:
            return None
    else:
        inner = {k: r for k, r in (ruleset.reversed() if reverse else ruleset.rewriting()).items()
                 if not WORD_KEY.fullmatch(k.encode()) and not HEADER_KEY.fullmatch(k.encode())}
        if not inner:
            return None
        matcher = Matcher(inner)

    def refine(name: str) -> str:
        return port_text(name, matcher)[0]

    return refine
