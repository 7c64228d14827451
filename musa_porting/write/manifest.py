"""The manifest: what musa-port wrote into an output tree, and from what.

It lets a re-run (every ``setup.py`` build runs one) skip files whose input, rules
and output are all as they were, remove outputs whose input is gone, and never touch
files in the output that it did not write.
"""

from __future__ import annotations

import gc
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import starmap
from operator import attrgetter

MANIFEST_NAME = ".musa-port-manifest.json"
JOURNAL_NAME = ".musa-port-journal"
LOCK_NAME = ".musa-port-lock"  # held while a run writes (write/lock.py)
# Where `musa-port build` and `verify` keep their build files in the output: a tree that
# ships one (a link, say) is not ported into it.
BUILD_DIR_NAME = ".musa-port-build"
# OUT's musa-port folder: the bases of the outputs and the user's files kept before a
# merge (merge/bases.py, merge/kept.py).
STATE_DIR_NAME = ".musa-port"
RESERVED_NAMES = (MANIFEST_NAME, JOURNAL_NAME, LOCK_NAME, BUILD_DIR_NAME, STATE_DIR_NAME)
TMP_SUFFIX = ".musa-port-tmp"
# A temp file or folder of a run: the run's random token and a hash of the output's
# path, in a folder of the output (write/files.temp_name); the journal says which
# folders may hold them, and the token. (Before the token, a run's temp name was the
# hash alone: a journal without a token is cleaned by that pattern.)
TEMP_RE = re.compile(r"\.(?:[0-9a-f]{16}\.)?[0-9a-f]{16}" + re.escape(TMP_SUFFIX) + r"\Z")
OLD_TEMP_RE = re.compile(r"\.[0-9a-f]{16}" + re.escape(TMP_SUFFIX) + r"\Z")
VERSION = 3
UNTRUSTED = -1  # src_size of a record that must not skip its file (see Manifest.adopt)


@dataclass(slots=True)  # no per-record __dict__: 100,000 of them within the memory budget
class FileRecord:
    """One output written by the tool."""

    src: str
    kind: str  # "ported", "copied", "symlink"
    src_size: int = 0
    src_mtime_ns: int = 0
    src_mode: int = 0
    out_size: int = 0
    out_mtime_ns: int = 0
    edits: int = 0
    lines_changed: int = 0
    warnings: list[str] = field(default_factory=list)
    by_family: dict[str, int] = field(default_factory=dict)
    by_rule: dict[str, int] = field(default_factory=dict)
    # Findings as lists (see analyze.checks.Diagnostic.to_list), so a re-run that skips
    # an unchanged file still reports what is left in it.
    diagnostics: list[list] = field(default_factory=list)
    lang: str = ""  # the file kind that ported it ("cxx"; see tree/kinds.py), "" if none
    # Its part of the symbol index (analyze/symbols.FileSymbols.to_json), so that a
    # re-run indexes only the files that changed.
    symbols: dict | None = None
    # The input's ctime: an edit that restores size and mtime (cp -p, touch -r) still
    # changes it. And its sha256 under --paranoid, compared when the stat matches.
    src_ctime_ns: int = 0
    src_sha256: str = ""
    # Findings beyond the number kept per file (analyze.findings.MAX_PER_FILE), per ID.
    findings_dropped: dict[str, int] = field(default_factory=dict)
    # The bytes this run's port of the input would be (merge/bases.py: "sha256:pack:
    # offset:length", or the sha256 alone), whether the output held the user's edits
    # when the run left it, and the conflicts marked in it (merge/hand_edits.py).
    base: str = ""
    hand: bool = False
    conflicts: int = 0
    # What the output names and defines that other outputs rely on (check/facts.py),
    # so that the check after a re-run reads no unchanged file. None: not gathered.
    facts: dict | None = None

    def compact(self, shared: dict) -> None:
        """Share equal small values with the other records of a run (through ``shared``):
        100,000 files' counts, empty lists and empty symbol entries are a few distinct
        values, and one copy each keeps a large tree's run within its memory budget.
        Records are never changed after planning, so sharing is safe. Written out field
        by field: a no-change re-run compacts every record of the manifest it loads."""
        keep = shared.setdefault
        v = self.by_family
        if len(v) <= 4:
            self.by_family = keep(("by_family", *sorted(v.items())) if v else ("by_family",), v)
        v = self.by_rule
        if len(v) <= 4:
            self.by_rule = keep(("by_rule", *sorted(v.items())) if v else ("by_rule",), v)
        v = self.findings_dropped
        if len(v) <= 4:
            self.findings_dropped = keep(("findings_dropped", *sorted(v.items())) if v
                                         else ("findings_dropped",), v)
        if not self.warnings:
            self.warnings = keep(("warnings",), self.warnings)
        if not self.diagnostics:
            self.diagnostics = keep(("diagnostics",), self.diagnostics)
        if self.facts is not None and not self.facts:
            self.facts = keep(("facts",), self.facts)
        # A file that defines nothing of the project's shares its symbol entry with every
        # file that uses the same few names (most small files use one or two).
        sym = self.symbols
        if sym and not (sym.get("defs") or sym.get("taken") or sym.get("exports")
                        or sym.get("modules")):
            uses = sym.get("uses") or ()
            if len(uses) <= 4:
                self.symbols = keep(("symbols", *sorted(sym), *uses), sym)


_RECORD_FIELDS = tuple(FileRecord.__dataclass_fields__)


@dataclass
class Manifest:
    src: str = ""
    fingerprint: str = ""
    files: dict[str, FileRecord] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    rules: int = 0  # rules in force when it was written (reported by a no-change re-run)
    # How the tree was ported (rule files, inline rules, families...): `musa-port verify`
    # rebuilds the same rules from it to generate its shim.
    options: dict = field(default_factory=dict)
    # The project-symbol plan of the run (rules/project.ProjectPlan.to_json).
    project: dict = field(default_factory=dict)
    rule_status: dict = field(default_factory=dict)  # the rules by status (status_counts)
    # The check's findings on the tree as written ([output, *Diagnostic.to_list()]), for a
    # re-run that changes nothing (None: not recorded; check/run.py).
    consistency: list | None = None
    # Why a manifest that is there could not be used ("" when absent or read): every
    # output then looks like the user's, and an error must say why.
    problem: str = ""
    # Entries it held that were ignored (a path outside the output: see load_manifest).
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return "".join(self.json_lines())

    def json_lines(self) -> Iterator[str]:
        """The manifest's JSON, a line at a time (100,000 files: written as it is made,
        never held whole in memory)."""
        # The fields read one by one, not asdict(): asdict deep-copies every list, which
        # cost more than the port itself on a re-run of a large tree. One line per file
        # keeps it diffable.
        head = {
            "version": VERSION,
            "tool": "musa-port",
            "src": self.src,
            "fingerprint": self.fingerprint,
            "dirs": sorted(self.dirs),
            "rules": self.rules,
            "options": self.options,
            "project": self.project,
            "rule_status": self.rule_status,
        }
        if self.consistency is not None:  # else the last check failed: the next run checks
            head["consistency"] = self.consistency
        dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
        yield dumps(head)[:-1] + ',"files":{\n'
        keys = sorted(self.files)
        for i, k in enumerate(keys):
            rec = self.files[k]
            yield dumps(k) + ":" + dumps({f: getattr(rec, f) for f in _RECORD_FIELDS}) + (
                ",\n" if i < len(keys) - 1 else "\n")
        yield "}}\n"

    def owns(self, rel: str) -> bool:
        """Whether musa-port wrote the file or link at ``rel`` (else it is the user's)."""
        return rel in self.files

    def adopt(self, intent: Manifest, out: str) -> None:
        """Take over what an interrupted run wrote: the records of its staged manifest
        whose output is in place (same size and mtime: a rename keeps them), and its
        folders that exist. They are marked untrusted, so their files are planned again
        (and, if unchanged, not rewritten), but they are ours: a later run may replace
        them, or remove them when their input is gone."""
        for rel, rec in intent.files.items():
            path = os.path.join(out, rel)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if rec.kind == "symlink":
                if not stat.S_ISLNK(st.st_mode):
                    continue
            elif not (stat.S_ISREG(st.st_mode) and st.st_size == rec.out_size
                      and st.st_mtime_ns == rec.out_mtime_ns):
                continue
            rec.src_size = UNTRUSTED
            self.files[rel] = rec
        known = set(self.dirs)
        self.dirs.extend(d for d in intent.dirs if d not in known
                         and os.path.isdir(os.path.join(out, d)))
        self.warnings.extend(intent.warnings)


def load_manifest(out_dir: str, name: str = MANIFEST_NAME) -> Manifest:
    """The previous run's manifest, or an empty one if absent or unusable (saying why).

    The manifest sits in the output, where anyone who ships a ``SRC_musa/`` folder can
    edit it: it is read only if it is a regular file (not a link, a FIFO or a device),
    and a record whose path (or source) is not inside the output (``..``, absolute), or
    whose values are not what a run writes (``manifest_check``), is ignored with a
    warning naming it, so that no later step removes, reads or trips over it."""
    gc_was_on = gc.isenabled()
    gc.disable()  # 100,000 new lists and dicts, none in a cycle: nothing to collect
    try:
        return _load(out_dir, name)
    finally:
        if gc_was_on:
            gc.enable()


def _load(out_dir: str, name: str) -> Manifest:
    from ..safe_open import read_regular
    from . import manifest_cache
    from .manifest_check import head_ok, record_ok
    from .outdir import inside_rel

    path = os.path.join(out_dir, name)
    try:
        raw = read_regular(path)
        cached = manifest_cache.load(out_dir, raw, _RECORD_FIELDS) if name == MANIFEST_NAME else None
        if cached is not None:
            return _from_cache(cached)
        data = json.loads(raw)
        if type(data) is not dict or data.get("version") != VERSION:
            return Manifest(problem=f"its manifest {path} is from another version of musa-port")
        if not head_ok(data):
            return Manifest(problem=f"its manifest {path} is not one musa-port wrote")
        fields = FileRecord.__dataclass_fields__.keys()
        bad: list[str] = []
        files = {}
        shared: dict = {}
        for k, v in data.pop("files", {}).items():
            if inside_rel(k) and k not in RESERVED_NAMES and record_ok(v) and inside_rel(v["src"]):
                rec = FileRecord(**v) if v.keys() <= fields else FileRecord(
                    **{f: x for f, x in v.items() if f in fields})
                rec.compact(shared)
                files[k] = rec
            else:
                bad.append(k)
        dirs = data.get("dirs", [])
        bad += [d if isinstance(d, str) else repr(d) for d in dirs if not inside_rel(d)]
        found = Manifest(data.get("src", ""), data.get("fingerprint", ""), files,
                         [d for d in dirs if inside_rel(d)], data.get("rules", 0),
                         data.get("options", {}), data.get("project", {}),
                         data.get("rule_status", {}), data.get("consistency"))
        if bad:
            shown = ", ".join(repr(b) for b in bad[:5]) + (f" and {len(bad) - 5} more"
                                                           if len(bad) > 5 else "")
            found.warnings.append(f"{path}: warning: ignored entries that are not paths inside "
                                  f"the output, or not as musa-port writes them: {shown}")
        elif name == MANIFEST_NAME:
            _cache(out_dir, raw, found)
        return found
    except FileNotFoundError:
        return Manifest()
    except OSError as exc:
        return Manifest(problem=f"its manifest {path} is unreadable ({exc.strerror or exc})")
    except (ValueError, TypeError, AttributeError):
        return Manifest(problem=f"its manifest {path} is unreadable")


def cache_written(out_dir: str, records: int) -> None:
    """The manifest a run just put in ``out_dir``, read back once into the cache so
    that the next run finds it there; not when the cache would not keep one of this
    many records (reading it would only hold a second copy of a large manifest)."""
    from .manifest_cache import MAX_RECORDS

    if records <= MAX_RECORDS:
        load_manifest(out_dir)


def _cache(out_dir: str, raw: bytes, m: Manifest) -> None:
    """Keep ``m``, what a manifest of the bytes ``raw`` holds, for the next run's
    ``load_manifest`` (see ``manifest_cache``)."""
    from . import manifest_cache

    rows = list(map(attrgetter(*_RECORD_FIELDS), m.files.values()))
    manifest_cache.save(out_dir, raw, _RECORD_FIELDS, len(rows),
                        ((m.src, m.fingerprint), list(m.files), rows,
                         (m.dirs, m.rules, m.options, m.project, m.rule_status,
                          m.consistency)))


def _from_cache(content: tuple) -> Manifest:
    # Compacted already: marshal keeps one copy of a value the records shared.
    head, keys, rows, tail = content
    return Manifest(*head, dict(zip(keys, starmap(FileRecord, rows))), *tail)

