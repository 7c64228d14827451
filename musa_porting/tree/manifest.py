"""The manifest: what musa-port wrote into an output tree, and from what.

It lets a re-run (every ``setup.py`` build runs one) skip files whose input, rules
and output are all as they were, remove outputs whose input is gone, and never touch
files in the output that it did not write.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

MANIFEST_NAME = ".musa-port-manifest.json"
JOURNAL_NAME = ".musa-port-journal"
TMP_SUFFIX = ".musa-port-tmp"
VERSION = 3


@dataclass
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

    def to_json(self) -> str:
        # vars(), not asdict(): asdict deep-copies every list, which cost more than the
        # port itself on a re-run of a large tree. One line per file keeps it diffable.
        head = {
            "version": VERSION,
            "tool": "musa-port",
            "src": self.src,
            "fingerprint": self.fingerprint,
            "dirs": sorted(self.dirs),
            "rules": self.rules,
            "options": self.options,
            "project": self.project,
        }
        dumps = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
        lines = [dumps(head)[:-1] + ',"files":{']
        items = sorted(self.files.items())
        for i, (k, v) in enumerate(items):
            lines.append(dumps(k) + ":" + dumps(vars(v)) + ("," if i < len(items) - 1 else ""))
        lines.append("}}")
        return "\n".join(lines) + "\n"


def load_manifest(out_dir: str) -> Manifest:
    """The previous run's manifest, or an empty one if absent or unreadable."""
    path = os.path.join(out_dir, MANIFEST_NAME)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data.get("version") != VERSION:
            return Manifest()
        files = {k: FileRecord(**v) for k, v in data.get("files", {}).items()}
        return Manifest(data.get("src", ""), data.get("fingerprint", ""), files,
                        list(data.get("dirs", [])), int(data.get("rules", 0)),
                        dict(data.get("options", {})), dict(data.get("project", {})))
    except (OSError, ValueError, TypeError):
        return Manifest()
