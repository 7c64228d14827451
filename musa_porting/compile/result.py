"""The outcome of a build: one ``FileBuild`` per compile (and the link), with what
the compiler said, mapped back to the CUDA sources."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from .. import __version__
from .diagnostics import CompilerDiagnostic


@dataclass
class FileBuild:
    """One compile: its source (ported file), object, and what the compiler said."""

    path: str  # ported file, relative to the tree
    source: str | None  # the CUDA original (absolute), when the manifest knows it
    obj: str
    command: list[str]
    status: str = "not built"  # "ok", "failed", "not built"
    output: str = ""  # the first and last 64 KB of it (compile/ninja_output.py)
    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)  # in ``output``
    # What was cut from the middle of a long output: lines, bytes, and the errors and
    # warnings among them (counted in the totals, not listed).
    cut_lines: int = 0
    cut_bytes: int = 0
    cut_errors: int = 0
    cut_warnings: int = 0

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error) + self.cut_errors

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning") + self.cut_warnings

    def first_error(self) -> CompilerDiagnostic | None:
        return next((d for d in self.diagnostics if d.is_error), None)


@dataclass
class BuildResult:
    out: str
    build_dir: str
    profile: str
    files: list[FileBuild]
    link: FileBuild | None = None
    ninja_output: str = ""
    elapsed: float = 0.0
    up_to_date: bool = False
    notes: list[str] = field(default_factory=list)  # what the run took from where (verify)

    @property
    def failed(self) -> list[FileBuild]:
        items = [*self.files, *([self.link] if self.link else [])]
        return [f for f in items if f.status == "failed"]

    @property
    def ok(self) -> bool:
        return not self.failed and all(f.status == "ok" for f in self.files) and (
            self.link is None or self.link.status == "ok")

    def to_dict(self) -> dict:
        def one(f: FileBuild) -> dict:
            first = f.first_error()
            return {
                "file": f.path, "source": f.source, "object": f.obj, "status": f.status,
                "errors": f.errors, "warnings": f.warnings,
                "first_error": first.to_dict() if first else None,
                "diagnostics": [d.to_dict() for d in f.diagnostics],
                "output_cut": {"lines": f.cut_lines, "bytes": f.cut_bytes} if f.cut_lines else None,
                "command": shlex.join(f.command),
            }
        return {
            "schema_version": 1,
            "tool": {"name": "musa-port", "version": __version__},
            "kind": "build",
            "profile": self.profile,
            "out": self.out,
            "build_dir": self.build_dir,
            "ok": self.ok,
            "up_to_date": self.up_to_date,
            "notes": list(self.notes),
            "totals": {
                "files": len(self.files),
                "ok": sum(1 for f in self.files if f.status == "ok"),
                "failed": sum(1 for f in self.files if f.status == "failed"),
                "not_built": sum(1 for f in self.files if f.status == "not built"),
                "errors": sum(f.errors for f in self.files),
                "warnings": sum(f.warnings for f in self.files),
            },
            "files": [one(f) for f in self.files],
            "link": one(self.link) if self.link else None,
            "run": {"elapsed_s": round(self.elapsed, 3)},
        }

