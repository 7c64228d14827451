"""What a port did: per file and in total, for the reports and ``SimplePorting.run()``."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analyze.checks import Diagnostic
from ..rules.project import ProjectPlan
from ..write.manifest import FileRecord


@dataclass
class DiffItem:
    """A change the diff shows: old and new path, bytes (link target for a symlink), mode."""

    old_rel: str
    new_rel: str
    old: bytes
    new: bytes
    mode: int
    symlink: bool = False


# The kind of an input's outcome when its output is not this run's port of it (it could
# not be read, no name was free, musa-port failed on it, or its MUSA twin stands for it),
# and of a folder's that carries a finding (tree/input_findings.py).
NOT_PORTED, FOLDER = "not-ported", "folder"


@dataclass
class FileOutcome:
    """What happened to one input; ``record`` holds its counts and findings."""

    rel: str
    out_rel: str
    kind: str  # "ported", "copied", "symlink"; NOT_PORTED, FOLDER
    written: bool = False
    record: FileRecord = field(default_factory=lambda: FileRecord("", ""))
    merge: str = ""  # what became of the user's edits of the output (merge/hand_edits.py)

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
    rule_status: dict[str, int] = field(default_factory=dict)  # rules.project.status_counts
    dry_run: bool = False
    diff_items: list[DiffItem] = field(default_factory=list)
    project: ProjectPlan | None = None  # the tree's own names renamed (or colliding)
    symbol_notes: dict[str, str] = field(default_factory=dict)  # how a file was indexed, if odd
    symbols_backend: str = "lexer"
    symbol_uses: set[str] = field(default_factory=set)  # names with a CUDA word used, not defined
    symbols_indexed: int = 0  # sources read for the symbol index (the rest: from the manifest)
    # Inputs whose names the port changed beyond .cu -> .mu (folders and files), -> output
    renamed_paths: dict[str, str] = field(default_factory=dict)
    # A backend folder ported into its sibling (tree/shared_files.py): the project's top
    # folder, the lines of its other files that name the CUDA backend, and whether the
    # scan stopped at its limit.
    shared_root: str = ""
    shared_mentions: list = field(default_factory=list)
    shared_cut: bool = False

    @property
    def merged(self) -> list[str]:
        """Outputs where the user's edits were merged with the new port."""
        return [f.out_rel for f in self.files if f.merge in ("merged", "conflict")]

    @property
    def conflicted(self) -> list[str]:
        """Outputs holding conflict markers, or edits that could not be merged."""
        return [f.out_rel for f in self.files if f.record.conflicts]

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
    def not_ported(self) -> int:
        """Inputs the run could not port (unreadable: no output, or the last run's kept;
        no name free; copied unchanged because musa-port failed on them); not those left
        for their MUSA twins, which are among the ignored."""
        return sum(1 for f in self.files if f.kind == NOT_PORTED and f.rel not in self.ignored)

    @property
    def scanned(self) -> int:
        """The files of the tree the run looked at: those it ported, copied, linked, or
        could not port."""
        return self.ported + self.copied + self.symlinks + self.not_ported

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
    def project_places(self) -> int:
        """Replacements made by project-symbol renames."""
        return sum(f.by_family.get("project", 0) for f in self.files)

    @property
    def lines_changed(self) -> int:
        return sum(f.record.lines_changed for f in self.files)

    @property
    def mb_per_s(self) -> float:
        return self.bytes_in / 1e6 / self.elapsed if self.elapsed > 0 else 0.0
