"""Reports of a port: the terminal summary, JSON, CSV and SARIF.

The JSON report follows ``musa_porting/schemas/report.schema.json`` (its
``schema_version`` changes only when a field changes meaning). Everything that
depends on the invocation rather than on the port (timing, what this run had to
write) is under ``run``, so two runs of the same port give the same report apart
from ``run``.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Set

from . import __version__
from .diagnostics import CHECKS, Diagnostic
from .porter import FileOutcome, PortResult

SCHEMA_VERSION = 1
TOP_RULES = 15


# -- findings ----------------------------------------------------------------------

def findings(r: PortResult, suppress: Set[str] = frozenset()) -> list[tuple[FileOutcome, Diagnostic]]:
    """Every diagnostic not suppressed, with its file, in path and position order."""
    out = []
    for f in sorted(r.files, key=lambda f: f.out_rel):
        for d in f.diagnostics:
            if d.id not in suppress:
                out.append((f, d))
    return out


def residual_count(r: PortResult, suppress: Set[str] = frozenset()) -> int:
    """Residuals left (counted on the stored rows: a large tree has thousands)."""
    ids = {cid for cid, c in CHECKS.items() if c.residual and cid not in suppress}
    return sum(1 for f in r.files for row in f.record.diagnostics if row[0] in ids)


def _rate(converted: int, residual: int) -> float | None:
    total = converted + residual
    return round(converted / total, 4) if total else None


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"


# -- one-line total and terminal summary ---------------------------------------------

def total_line(r: PortResult, suppress: Set[str] = frozenset()) -> str:
    """The one-line total (also what ``-q`` prints)."""
    res = residual_count(r, suppress)
    verb = "would write" if r.dry_run else "written"
    return (
        f"musa-port: {r.ported} ported ({r.changed} changed), {r.copied} copied, "
        f"{r.symlinks} links, {len(r.ignored)} ignored; {r.replacements} replacements, "
        f"{res} residuals ({_pct(_rate(r.replacements, res))} converted); "
        f"{r.written} {verb}, {len(r.removed)} removed; "
        f"{r.elapsed:.2f}s, {r.mb_per_s:.1f} MB/s -> {r.output}"
    )


def print_summary(r: PortResult, console, suppress: Set[str] = frozenset(),
                  report_files: bool = False, max_findings: int = 200) -> None:
    """A rich summary: tables, colours only on a terminal (rich decides)."""
    from rich import box
    from rich.table import Table as RichTable

    style = box.SIMPLE_HEAVY if console.is_terminal else box.ASCII

    def Table(title: str | None = None, **kw):  # noqa: N802 - a heading, then a table
        if title:
            console.print(f"[bold]{title}[/bold]")
        return RichTable(box=style, **kw)

    found = findings(r, suppress)
    res = sum(1 for _, d in found if d.check.residual)
    title = "Dry run of" if r.dry_run else "Ported"
    console.print(f"[bold]{title}[/bold] {r.src} -> {r.output} with {r.rules} rules")

    t = Table("Totals", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows = [
        ("files scanned", len(r.files)),
        ("ported (rewritten sources)", r.ported),
        ("  of which changed", r.changed),
        ("copied unchanged", r.copied),
        ("symlinks", r.symlinks),
        ("ignored", len(r.ignored)),
        ("bytes", r.bytes_in),
        ("lines changed", r.lines_changed),
        ("replacements", r.replacements),
        ("residuals", res),
        ("conversion rate", _pct(_rate(r.replacements, res))),
        ("would write" if r.dry_run else "written", r.written),
        ("stale removed", len(r.removed)),
        ("elapsed", f"{r.elapsed:.2f}s ({r.mb_per_s:.1f} MB/s)"),
    ]
    for k, v in rows:
        t.add_row(k, str(v))
    console.print(t)

    if r.ignored:
        by_pat: dict[str, int] = {}
        for pat in r.ignored.values():
            by_pat[pat] = by_pat.get(pat, 0) + 1
        console.print("ignored by: " + ", ".join(f"{p} ({n})" for p, n in sorted(by_pat.items())))

    if r.replacements:
        fam = Table("Replacements by family")
        fam.add_column("family")
        fam.add_column("count", justify="right")
        for name, n in r.by_family.items():
            fam.add_row(name, str(n))
        console.print(fam)
        top = Table(f"Top rules (of {len(r.by_rule)})")
        top.add_column("rule")
        top.add_column("count", justify="right")
        for key, n in list(r.by_rule.items())[:TOP_RULES]:
            top.add_row(key, str(n))
        console.print(top)

    if report_files:
        ft = Table("Files")
        for col in ("file", "replacements", "residuals", "converted"):
            ft.add_column(col, justify="left" if col == "file" else "right")
        for f in sorted(r.files, key=lambda f: f.rel):
            if f.kind != "ported":
                continue
            fres = sum(1 for d in f.diagnostics if d.check.residual and d.id not in suppress)
            ft.add_row(f.out_rel, str(f.edits), str(fres), _pct(_rate(f.edits, fres)))
        console.print(ft)

    if found:
        counts: dict[str, int] = {}
        for _, d in found:
            counts[d.id] = counts.get(d.id, 0) + 1
        ct = Table("Findings")
        for col in ("id", "name", "level", "count"):
            ct.add_column(col, justify="right" if col == "count" else "left")
        for cid in sorted(counts):
            c = CHECKS[cid]
            ct.add_row(cid, c.name, c.level, str(counts[cid]))
        console.print(ct)
        for f, d in found[:max_findings]:
            console.print(f"{os.path.join(r.output, f.out_rel)}:{d.line}:{d.column}: "
                          f"{d.check.level}: {d.message} [{d.id} {d.check.name}]",
                          markup=False, highlight=False, soft_wrap=True)
        if len(found) > max_findings:
            console.print(f"... and {len(found) - max_findings} more (see --report-json / "
                          "--report-csv)")


# -- JSON ---------------------------------------------------------------------------

def _diag_dict(f: FileOutcome, d: Diagnostic) -> dict:
    return {
        "id": d.id,
        "name": d.check.name,
        "level": d.check.level,
        "residual": d.check.residual,
        "text": d.text,
        "message": d.message,
        "file": f.out_rel,
        "line": d.line,
        "column": d.column,
        "source_file": f.rel,
        "source_line": d.src_line,
        "source_column": d.src_column,
    }


def report_dict(r: PortResult, suppress: Set[str] = frozenset()) -> dict:
    """The JSON report (see the schema in musa_porting/schemas)."""
    found = findings(r, suppress)
    res = sum(1 for _, d in found if d.check.residual)
    by_pattern: dict[str, int] = {}
    for pat in r.ignored.values():
        by_pattern[pat] = by_pattern.get(pat, 0) + 1
    files = []
    for f in sorted(r.files, key=lambda f: f.rel):
        fres = sum(1 for d in f.diagnostics if d.check.residual and d.id not in suppress)
        files.append({
            "path": f.rel,
            "output": f.out_rel,
            "kind": f.kind,
            "replacements": f.edits,
            "lines_changed": f.record.lines_changed,
            "residuals": fres,
            "conversion_rate": _rate(f.edits, fres),
            "families": dict(sorted(f.by_family.items())),
        })
    counts: dict[str, int] = {}
    for _, d in found:
        counts[d.id] = counts.get(d.id, 0) + 1
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "musa-port", "version": __version__},
        "src": r.src,
        "output": r.output,
        "dry_run": r.dry_run,
        "rules": r.rules,
        "suppressed": sorted(suppress),
        "totals": {
            "files_scanned": len(r.files),
            "ported": r.ported,
            "changed": r.changed,
            "copied": r.copied,
            "symlinks": r.symlinks,
            "ignored": len(r.ignored),
            "bytes": r.bytes_in,
            "lines_changed": r.lines_changed,
            "replacements": r.replacements,
            "residuals": res,
            "findings": len(found),
            "conversion_rate": _rate(r.replacements, res),
        },
        "ignored": {
            "patterns": dict(sorted(by_pattern.items())),
            "paths": [{"path": p, "pattern": pat} for p, pat in sorted(r.ignored.items())],
        },
        "families": dict(sorted(r.by_family.items())),
        "top_rules": [{"rule": k, "count": n} for k, n in list(r.by_rule.items())[:TOP_RULES]],
        "files": files,
        "diagnostic_counts": dict(sorted(counts.items())),
        "diagnostics": [_diag_dict(f, d) for f, d in found],
        "checks": {c.id: {"name": c.name, "level": c.level, "residual": c.residual,
                          "description": c.description} for c in CHECKS.values()},
        "warnings": list(r.warnings),
        "run": {
            "elapsed_s": round(r.elapsed, 4),
            "mb_per_s": round(r.mb_per_s, 2),
            "written": r.written,
            "removed": sorted(r.removed),
        },
    }


def write_json(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    _write_text(path, json.dumps(report_dict(r, suppress), indent=1, sort_keys=False) + "\n")


# -- CSV ----------------------------------------------------------------------------

CSV_COLUMNS = ("id", "name", "level", "file", "line", "column", "source_file", "source_line",
               "source_column", "text", "message")


def write_csv(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    """One row per finding (residuals and hazards)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for f, d in findings(r, suppress):
        row = _diag_dict(f, d)
        w.writerow([row[c] for c in CSV_COLUMNS])
    _write_text(path, buf.getvalue())


# -- SARIF --------------------------------------------------------------------------

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri_base(path: str) -> str:
    from pathlib import Path

    return Path(path).resolve().as_uri() + "/"


def sarif_dict(r: PortResult, suppress: Set[str] = frozenset()) -> dict:
    """SARIF 2.1.0: one result per finding, located in the ported file, with the CUDA
    source line as a related location."""
    ids = sorted(CHECKS)
    rules = [{
        "id": cid,
        "name": CHECKS[cid].name,
        "shortDescription": {"text": CHECKS[cid].name.replace("-", " ")},
        "fullDescription": {"text": CHECKS[cid].description},
        "defaultConfiguration": {"level": CHECKS[cid].level},
        "help": {"text": f"{CHECKS[cid].description} Example: {CHECKS[cid].example}"},
    } for cid in ids]
    results = []
    for f, d in findings(r, suppress):
        end_col = d.column + len(d.text.encode("utf-8"))
        results.append({
            "ruleId": d.id,
            "ruleIndex": ids.index(d.id),
            "level": d.check.level,
            "message": {"text": d.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.out_rel, "uriBaseId": "OUTROOT"},
                "region": {"startLine": d.line, "startColumn": d.column, "endColumn": end_col},
            }}],
            "relatedLocations": [{
                "id": 1,
                "message": {"text": "the CUDA source line"},
                "physicalLocation": {
                    "artifactLocation": {"uri": f.rel, "uriBaseId": "SRCROOT"},
                    "region": {"startLine": d.src_line, "startColumn": d.src_column},
                },
            }],
            "partialFingerprints": {"musaPort/v1": f"{f.rel}:{d.id}:{d.text}:{d.src_line}"},
        })
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "musa-port",
                "version": __version__,
                "informationUri": "https://pypi.org/project/musa-port/",
                "rules": rules,
            }},
            "originalUriBaseIds": {
                "SRCROOT": {"uri": _uri_base(r.src)},
                "OUTROOT": {"uri": _uri_base(r.output)},
            },
            "results": results,
        }],
    }


def write_sarif(r: PortResult, path: str, suppress: Set[str] = frozenset()) -> None:
    _write_text(path, json.dumps(sarif_dict(r, suppress), indent=1) + "\n")


def _write_text(path: str, text: str) -> None:
    """Write a report file atomically (a CI job may read it while we write)."""
    if path == "-":
        import sys

        sys.stdout.write(text)
        return
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)


def parse_ids(values: Iterable[str]) -> frozenset[str]:
    """``--suppress MP1002,MP2001`` (names work too: unknown-cuda-name)."""
    by_name = {c.name: c.id for c in CHECKS.values()}
    out = set()
    for v in values:
        for item in v.split(","):
            item = item.strip()
            if not item:
                continue
            cid = by_name.get(item, item.upper())
            if cid not in CHECKS:
                from .errors import PortError

                raise PortError(f"unknown diagnostic {item!r} for --suppress; known: "
                                + ", ".join(sorted(CHECKS)))
            out.add(cid)
    return frozenset(out)


# -- builds (musa-port build / verify) ------------------------------------------------

def print_build_summary(b, console, title: str = "Build") -> None:
    """Per file: ok / failed, error and warning counts, first error at its CUDA line;
    then every error with its hint."""
    from rich import box
    from rich.table import Table as RichTable

    style = box.SIMPLE_HEAVY if console.is_terminal else box.ASCII
    data = b.to_dict()
    t = data["totals"]
    state = "up to date" if b.up_to_date else ("ok" if b.ok else "FAILED")
    console.print(f"[bold]{title}[/bold] {b.out} ({b.profile}): {state}; {t['ok']} ok, "
                  f"{t['failed']} failed, {t['not_built']} not built; {t['errors']} errors, "
                  f"{t['warnings']} warnings; {b.elapsed:.2f}s", highlight=False)
    # Every file for a small build; the ones with something to say for a large one.
    rows = b.files if len(b.files) <= 40 else [f for f in b.files if f.status != "ok" or f.diagnostics]
    if rows:
        table = RichTable(box=style)
        for col in ("file", "status", "errors", "warnings", "first error"):
            table.add_column(col, overflow="fold")
        for f in rows:
            first = f.first_error()
            table.add_row(f.path, f.status, str(f.errors), str(f.warnings),
                          f"{first.where()}: {first.message}" if first else "")
        console.print(table)
    for f in [*b.files, *([b.link] if b.link else [])]:
        if f.status == "failed" and not any(d.is_error for d in f.diagnostics):
            _print_tail(console, f"{f.path}: failed; the compiler said:", f.output)
        for d in f.diagnostics:
            if not d.is_error:
                continue
            console.print(f"{d.where() or f.path}: {d.severity}: {d.message}",
                          markup=False, highlight=False, soft_wrap=True)
            if d.hint:
                console.print(f"  hint [{d.hint_id}]: {d.hint}", markup=False, highlight=False,
                              soft_wrap=True)
    if b.link is not None and b.link.status == "ok":
        console.print(f"shared library: {b.link.obj}", highlight=False)
    if not b.ok and not b.failed:
        _print_tail(console, "no compile failed, but ninja did not finish; it said:", b.ninja_output)


def _print_tail(console, title: str, text: str, lines: int = 20) -> None:
    """Raw tool output, for a failure no diagnostic explains (never fail silently)."""
    console.print(title, markup=False, highlight=False)
    for line in text.strip().splitlines()[-lines:]:
        console.print(f"  {line}", markup=False, highlight=False, soft_wrap=True)


def write_build_json(b, path: str) -> None:
    _write_text(path, json.dumps(b.to_dict(), indent=1) + "\n")
