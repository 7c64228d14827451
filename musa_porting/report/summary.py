"""The terminal summary of a port and its one-line total (what ``-q`` prints).
Tables are plain ASCII when the output is not a terminal; rich decides colours."""

from __future__ import annotations

from collections.abc import Set

from ..analyze.catalogue import FAMILIES
from ..analyze.checks import CHECKS
from ..tree.result import PortResult
from .counts import (
    TOP_RULES,
    by_lang,
    counts_by_id,
    file_residuals,
    findings,
    findings_by_family,
    levels_by_id,
    pct,
    rate,
    residual_count,
)
from .locations import finding_place, finding_text, shown_path
from .shared import shared_files_text
from .triage import triage_lines

LEVEL_ORDER = ("error", "warning", "note")


def plural(n: int, noun: str) -> str:
    """``1 link``, ``2 links``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def throughput(r: PortResult) -> str:
    """``12.3 MB/s``, or nothing when the run read too little for a rate to mean
    anything (start-up, not reading, is what its time measures)."""
    if r.bytes_in < 1_000_000 or r.elapsed <= 0:
        return ""
    return f"{r.mb_per_s:.1f} MB/s"


STATUS_WORDS = {"user": "yours", "project": "the tree's own"}


def rules_text(r: PortResult) -> str:
    """``32,865 rules (10,177 supported, 22,686 unknown, 2 yours)``: what the rules in
    force are, by status (see ``rules.project.status_counts``)."""
    order = ("supported", "unknown", "user", "project")
    parts = [f"{n:,} {STATUS_WORDS.get(s, s)}"
             for s, n in sorted(r.rule_status.items(), key=lambda x: (order + (x[0],)).index(x[0]))]
    return f"{r.rules:,} rules" + (f" ({', '.join(parts)})" if parts else "")


def total_line(r: PortResult, suppress: Set[str] = frozenset()) -> str:
    """The one-line total (also what ``-q`` prints)."""
    res = residual_count(r, suppress)
    verb = "would write" if r.dry_run else "written"
    py = by_lang(r, suppress).get("python")
    python = f"; Python: {plural(py['files'], 'file')}, {py['changed']} changed, " \
             f"{plural(py['findings'], 'finding')}" if py else ""
    n = len(r.renamed_paths)
    renamed = f", {plural(n, 'path')} renamed" if n else ""
    speed = throughput(r)
    return (
        f"musa-port: {r.ported} ported ({r.changed} changed{python}), {r.copied} copied, "
        f"{plural(r.symlinks, 'link')}, {len(r.ignored)} ignored{renamed}"
        f"{f', {r.not_ported} not ported' if r.not_ported else ''}; "
        f"{plural(r.replacements, 'replacement')}, {plural(res, 'residual')} "
        f"({pct(rate(r.replacements, res))} converted); "
        f"{r.written} {verb}, {len(r.removed)} removed; "
        f"{r.elapsed:.2f}s{', ' + speed if speed else ''} -> {shown_path(r.output, '')}"
    )


def print_summary(r: PortResult, console, suppress: Set[str] = frozenset(),
                  report_files: bool = False, max_findings: int | None = 200,
                  notes: bool = False) -> None:
    """A rich summary: tables, colours only on a terminal (rich decides). The findings
    are listed up to ``max_findings`` (None: all), notes only with ``notes``."""
    from rich import box
    from rich.table import Table as RichTable

    style = box.SIMPLE_HEAVY if console.is_terminal else box.ASCII

    def Table(title: str | None = None, **kw):  # noqa: N802 - a heading, then a table
        if title:
            console.print(f"[bold]{title}[/bold]")
        return RichTable(box=style, **kw)

    found = findings(r, suppress)
    res = residual_count(r, suppress)
    title = "Dry run of" if r.dry_run else "Ported"
    console.print(f"[bold]{title}[/bold] {shown_path(r.src, '')} -> {shown_path(r.output, '')} "
                  f"with {rules_text(r)}",
                  highlight=False)

    t = Table("Totals", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows = [
        ("files scanned", r.scanned),
        ("ported (rewritten sources)", r.ported),
        ("  of which changed", r.changed),
        ("copied unchanged", r.copied),
        ("symlinks", r.symlinks),
        ("ignored", len(r.ignored)),
        *([("not ported (see the MP00xx findings)", r.not_ported)] if r.not_ported else []),
        ("bytes", r.bytes_in),
        ("lines changed", r.lines_changed),
        ("replacements", r.replacements),
        *_project_rows(r),
        ("residuals", res),
        ("conversion rate", pct(rate(r.replacements, res))),
        ("would write" if r.dry_run else "written", r.written),
        ("stale removed", len(r.removed)),
        ("elapsed", f"{r.elapsed:.2f}s" + (f" ({throughput(r)})" if throughput(r) else "")),
    ]
    for k, v in rows:
        t.add_row(k, str(v))
    console.print(t)

    unattested = counts_by_id(r, suppress).get("MP1010", 0)
    if unattested:
        console.print(f"{plural(unattested, 'file')} renamed CUDA names to MUSA names of unknown "
                      "status, which the naming pattern made and no vendor table or source "
                      "shows: check those first (MP1010 notes; -v lists them)",
                      markup=False, highlight=False)

    kinds = by_lang(r, suppress)
    if len(kinds) > 1 or "python" in kinds:
        kt = Table("By file kind")
        for col in ("kind", "files", "changed", "replacements", "residuals", "findings"):
            kt.add_column(col, justify="left" if col == "kind" else "right")
        for lang, row in kinds.items():
            kt.add_row(lang, *(str(row[k]) for k in ("files", "changed", "replacements",
                                                     "residuals", "findings")))
        console.print(kt)

    renamed = renamed_paths_text(r)
    if renamed:
        console.print(renamed, markup=False, highlight=False, emoji=False, soft_wrap=True)
    shared = shared_files_text(r)
    if shared:
        console.print(shared, markup=False, highlight=False, emoji=False, soft_wrap=True)

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
            fres = file_residuals(f, suppress)
            ft.add_row(f.out_rel, str(f.edits), str(fres), pct(rate(f.edits, fres)))
        console.print(ft)

    if found:
        families = findings_by_family(r, suppress)
        levels = levels_by_id(r, suppress)
        ct = Table("Findings by family ('musa-port explain ID' says what to do)")
        for col in ("family / finding", "level", "count"):
            ct.add_column(col, justify="right" if col == "count" else "left")
        for fam, total, ids, _ in families:
            ct.add_row(FAMILIES[fam].title, "", str(total))
            for cid, _n in ids:
                for level in LEVEL_ORDER:  # a row per level the findings of the ID have
                    if levels.get(cid, {}).get(level):
                        ct.add_row(f"  {cid} {CHECKS[cid].name}", level, str(levels[cid][level]))
        console.print(ct)
        console.print("Top files by family:")
        for fam, _, _, files in families:
            console.print(f"  {FAMILIES[fam].title}: " + ", ".join(f"{p} ({n})" for p, n in files),
                          markup=False, highlight=False, emoji=False, soft_wrap=True)
        # Notes (each project-symbol rename) are counted above, listed in the reports
        # (and here with --verbose).
        if not notes:
            found = [(f, d) for f, d in found if d.level != "note"]
        if max_findings is None:
            max_findings = len(found)
        for f, d in found[:max_findings]:
            console.print(finding_text(*finding_place(r, f, d), d),
                          markup=False, highlight=False, emoji=False, soft_wrap=True)
        if len(found) > max_findings:
            console.print(f"... and {len(found) - max_findings} more (see --report-json / "
                          "--report-csv)")
    for line in triage_lines(r, suppress):  # where to start: the files ranked by hand work
        console.print(line, markup=False, highlight=False, emoji=False, soft_wrap=True)



def renamed_paths_text(r: PortResult, shown: int = 8) -> str:
    """Which folders and files the port renamed (``csrc/cuda -> csrc/musa``): a build file
    outside SRC cannot be seen, so whatever names them there must follow by hand."""
    if not r.renamed_paths:
        return ""
    files = {f.rel for f in r.files}
    dirs = [(a, b) for a, b in r.renamed_paths.items() if a not in files]
    named = [(a, b) for a, b in r.renamed_paths.items() if a in files]
    parts = []
    if dirs:
        parts.append(f"{len(dirs)} folder{'s' * (len(dirs) != 1)} ("
                     + ", ".join(f"{a} -> {b}" for a, b in dirs[:shown])
                     + (", ..." if len(dirs) > shown else "") + ")")
    if named:
        parts.append(f"{len(named)} file{'s' * (len(named) != 1)} ("
                     + ", ".join(f"{a} -> {b}" for a, b in named[:3])
                     + (", ..." if len(named) > 3 else "") + ")")
    verb = "would rename" if r.dry_run else "renamed"
    return (f"paths {verb}: {' and '.join(parts)}; a build file outside {r.src} that names "
            "them must follow (the JSON report lists them all; --keep-paths keeps them)")


def _project_rows(r: PortResult) -> list[tuple[str, object]]:
    """``project symbols renamed: 37 names, 412 places`` (and the names left)."""
    if r.project is None:
        return []
    rows: list[tuple[str, object]] = [
        ("project symbols renamed", f"{len(r.project.renames)} names, {r.project_places} places")]
    if r.project.collisions:
        rows.append(("  not renamed (name taken)", len(r.project.collisions)))
    if r.project.kept:
        rows.append(("  kept: exported to Python", len(r.project.kept)))
    if r.project.left:
        rows.append(("  kept: other reasons (see the report)", len(r.project.left)))
    return rows
