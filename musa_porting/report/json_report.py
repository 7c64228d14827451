"""The JSON report. It follows ``schemas/report.schema.json`` (its ``schema_version``
changes only when a field changes meaning). Everything that depends on the invocation
rather than on the port (timing, what this run had to write) is under ``run``, so two
runs of the same port give the same report apart from ``run``."""

from __future__ import annotations

import json
from collections.abc import Set

from .. import __version__
from ..analyze.catalogue import FAMILIES
from ..analyze.catalogue.render import help_page
from ..analyze.checks import CHECKS, Check, Diagnostic
from ..tree.result import FileOutcome, PortResult
from .counts import (
    TOP_RULES,
    by_lang,
    counts_by_id,
    file_residuals,
    findings,
    findings_by_family,
    rate,
    residual_count,
)
from .output import write_text

SCHEMA_VERSION = 1


def diag_dict(f: FileOutcome, d: Diagnostic) -> dict:
    return {
        "id": d.id,
        "name": d.check.name,
        "level": d.level,
        "residual": d.check.residual,
        "text": d.text,
        "message": d.message,
        "file": f.out_rel,
        "line": d.line,
        "column": d.column,
        "end_line": d.last_line,
        "source_file": f.rel,
        "source_line": d.src_line,
        "source_column": d.src_column,
        "lang": f.record.lang,
    }


def report_dict(r: PortResult, suppress: Set[str] = frozenset()) -> dict:
    """The JSON report (see the schema in musa_porting/report/schemas)."""
    found = findings(r, suppress)
    res = residual_count(r, suppress)
    by_pattern: dict[str, int] = {}
    for pat in r.ignored.values():
        by_pattern[pat] = by_pattern.get(pat, 0) + 1
    files = []
    for f in sorted(r.files, key=lambda f: f.rel):
        fres = file_residuals(f, suppress)
        files.append({
            "path": f.rel,
            "output": f.out_rel,
            "kind": f.kind,
            "lang": f.record.lang,
            "replacements": f.edits,
            "lines_changed": f.record.lines_changed,
            "residuals": fres,
            "conversion_rate": rate(f.edits, fres),
            "families": dict(sorted(f.by_family.items())),
        })
    counts = counts_by_id(r, suppress)
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "musa-port", "version": __version__},
        "src": r.src,
        "output": r.output,
        "dry_run": r.dry_run,
        "rules": r.rules,
        "rule_status": r.rule_status,
        "suppressed": sorted(suppress),
        "totals": {
            "files_scanned": r.scanned,
            "ported": r.ported,
            "changed": r.changed,
            "copied": r.copied,
            "symlinks": r.symlinks,
            "ignored": len(r.ignored),
            "not_ported": r.not_ported,
            "bytes": r.bytes_in,
            "lines_changed": r.lines_changed,
            "replacements": r.replacements,
            "residuals": res,
            "findings": sum(counts.values()),
            "conversion_rate": rate(r.replacements, res),
        },
        "ignored": {
            "patterns": dict(sorted(by_pattern.items())),
            "paths": [{"path": p, "pattern": pat} for p, pat in sorted(r.ignored.items())],
        },
        "by_lang": by_lang(r, suppress),
        "families": dict(sorted(r.by_family.items())),
        "top_rules": [{"rule": k, "count": n} for k, n in list(r.by_rule.items())[:TOP_RULES]],
        "files": files,
        "diagnostic_counts": dict(sorted(counts.items())),
        "findings_by_family": {
            fam: {"title": FAMILIES[fam].title, "count": total, "ids": dict(ids),
                  "top_files": [{"file": p, "count": n} for p, n in files]}
            for fam, total, ids, files in findings_by_family(r, suppress)},
        "diagnostics": [diag_dict(f, d) for f, d in found],
        "checks": {c.id: check_dict(c) for c in CHECKS.values()},
        "warnings": list(r.warnings),
        "project_symbols": project_dict(r),
        "renamed_paths": [{"path": a, "output": b} for a, b in r.renamed_paths.items()],
        "shared_files": {"root": r.shared_root, "cut": r.shared_cut,
                         "mentions": [m.to_json() for m in r.shared_mentions]},
        "run": {
            "elapsed_s": round(r.elapsed, 4),
            "mb_per_s": round(r.mb_per_s, 2),
            "written": r.written,
            "removed": sorted(r.removed),
            "merged": r.merged,
            "conflicts": r.conflicted,
        },
    }


def check_dict(c: Check) -> dict:
    """A finding's entry of the catalogue, as ``musa-port explain`` tells it."""
    return {"name": c.name, "level": c.level, "residual": c.residual,
            "description": c.description, "family": c.family, "device": c.device, "why": c.why,
            "instead": c.instead, "example": c.example, "fixed": c.fixed, "help_uri": help_page(c)}


def write_json(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    write_text(path, json.dumps(report_dict(r, suppress), indent=1, sort_keys=False) + "\n")



def _sites(sites) -> list[dict]:
    return [{"file": x.file, "line": x.line, "column": x.column, "kind": x.kind} for x in sites]


def project_dict(r: PortResult) -> dict:
    """The project-symbol renames: each name, where the tree defines it and how many
    places changed; and the names left because their MUSA name is taken."""
    plan = r.project
    places: dict[str, int] = {}
    for f in r.files:
        for key, n in f.record.by_rule.items():
            if plan is not None and key in plan.renames:
                places[key] = places.get(key, 0) + n
    return {
        "backend": r.symbols_backend if plan is not None else None,
        "places": sum(places.values()),
        "renamed": [] if plan is None else [
            {"name": x.old, "new": x.new, "reason": x.reason(), "sites": _sites(x.sites),
             "places": places.get(x.old, 0)}
            for x in sorted(plan.renames.values(), key=lambda x: x.old)],
        "collisions": [] if plan is None else [
            {"name": c.old, "new": c.new, "reason": c.reason, "sites": _sites(c.sites)}
            for c in plan.collisions],
        "kept": [] if plan is None else [
            {"name": c.old, "new": c.new, "reason": c.reason, "sites": _sites(c.sites)}
            for c in [*plan.kept, *sorted(plan.left, key=lambda c: c.old)]],
        "notes": dict(sorted(r.symbol_notes.items())),
    }
