"""Counting a port's findings, shared by every report: which findings are shown
(after ``--suppress``), how many are residuals, and the conversion rate."""

from __future__ import annotations

from collections.abc import Set
from operator import itemgetter

from ..analyze.catalogue import FAMILIES
from ..analyze.checks import CHECKS, Diagnostic
from ..tree.result import FileOutcome, PortResult

TOP_RULES = 15
_ID = itemgetter(0)  # a stored finding's check ID (analyze.checks.Diagnostic.to_list)


def findings(r: PortResult, suppress: Set[str] = frozenset()) -> list[tuple[FileOutcome, Diagnostic]]:
    """Every diagnostic not suppressed, with its file, in path and position order."""
    out = []
    for f in sorted(r.files, key=lambda f: f.out_rel):
        for d in f.diagnostics:
            if d.id not in suppress:
                out.append((f, d))
    return out


def _count(f: FileOutcome, ids: Set[str]) -> int:
    """A file's findings with these IDs: the rows kept, and those beyond the cap per
    file (analyze.findings.MAX_PER_FILE), which are only counted."""
    rec = f.record
    n = sum(map(ids.__contains__, map(_ID, rec.diagnostics))) if rec.diagnostics else 0
    if rec.findings_dropped:
        n += sum(c for cid, c in rec.findings_dropped.items() if cid in ids)
    return n


def residual_count(r: PortResult, suppress: Set[str] = frozenset()) -> int:
    """Residuals left (counted on the stored rows: a large tree has thousands)."""
    ids = {cid for cid, c in CHECKS.items() if c.residual and cid not in suppress}
    return sum(_count(f, ids) for f in r.files)


def file_residuals(f: FileOutcome, suppress: Set[str] = frozenset()) -> int:
    return _count(f, {cid for cid, c in CHECKS.items() if c.residual and cid not in suppress})


def counts_by_id(r: PortResult, suppress: Set[str] = frozenset()) -> dict[str, int]:
    """Findings per ID, those beyond the cap per file included."""
    out: dict[str, int] = {}
    for f in r.files:
        for row in f.record.diagnostics:
            out[row[0]] = out.get(row[0], 0) + 1
        for cid, n in f.record.findings_dropped.items():
            out[cid] = out.get(cid, 0) + n
    return {cid: n for cid, n in out.items() if cid not in suppress}


def levels_by_id(r: PortResult, suppress: Set[str] = frozenset()) -> dict[str, dict[str, int]]:
    """Findings per ID and per the level each was reported at (MP2002 is a warning where
    a warp-level step crosses 32 lanes and a note where it stays in its group): a table
    that gives a count a level gives the findings' own. Those beyond the cap per file are
    only counted, at their check's level."""
    out: dict[str, dict[str, int]] = {}
    for f in r.files:
        for row in f.record.diagnostics:
            cid = row[0]
            if cid in suppress or cid not in CHECKS:
                continue
            level = (row[8] if len(row) > 8 else "") or CHECKS[cid].level
            by_level = out.setdefault(cid, {})
            by_level[level] = by_level.get(level, 0) + 1
        for cid, n in f.record.findings_dropped.items():
            if cid in CHECKS and cid not in suppress:
                by_level = out.setdefault(cid, {})
                by_level[CHECKS[cid].level] = by_level.get(CHECKS[cid].level, 0) + n
    return out


def findings_by_family(r: PortResult, suppress: Set[str] = frozenset(), top: int = 3
                       ) -> list[tuple[str, int, list[tuple[str, int]], list[tuple[str, int]]]]:
    """(family, findings, [(ID, count)], [(ported file, count)] of its top files) for
    each family with findings, in the catalogue's order: the size of the hand work at a
    glance."""
    per_file: dict[str, dict[str, int]] = {}
    per_id: dict[str, int] = {}
    for f in r.files:
        rows = [(row[0], 1) for row in f.record.diagnostics] + list(f.record.findings_dropped.items())
        for cid, n in rows:
            if cid in suppress or cid not in CHECKS:
                continue
            fam = CHECKS[cid].family
            per_id[cid] = per_id.get(cid, 0) + n
            files = per_file.setdefault(fam, {})
            files[f.out_rel] = files.get(f.out_rel, 0) + n
    out = []
    for fam in FAMILIES:
        if fam not in per_file:
            continue
        ids = [(cid, n) for cid, n in sorted(per_id.items()) if CHECKS[cid].family == fam]
        files = sorted(per_file[fam].items(), key=lambda x: (-x[1], x[0]))[:top]
        out.append((fam, sum(n for _, n in ids), ids, files))
    return out


def by_lang(r: PortResult, suppress: Set[str] = frozenset()) -> dict[str, dict[str, int]]:
    """Ported files, changes and findings per file kind (``cxx``, ``python``...), so
    that a project's Python side is counted apart from its C++ side."""
    found = set(CHECKS) - set(suppress)
    residuals = {cid for cid in found if CHECKS[cid].residual}
    out: dict[str, dict[str, int]] = {}
    for f in r.files:
        if f.kind != "ported" or not f.record.lang:
            continue
        row = out.setdefault(f.record.lang, {"files": 0, "changed": 0, "replacements": 0,
                                             "residuals": 0, "findings": 0})
        row["files"] += 1
        row["changed"] += 1 if f.edits else 0
        row["replacements"] += f.edits
        row["findings"] += _count(f, found)
        row["residuals"] += _count(f, residuals)
    return dict(sorted(out.items()))


def fails_check(d: Diagnostic, level: str = "error") -> bool:
    """Whether a finding fails ``--check=level``: ``error`` (the default) fails on every
    residual (a CUDA name or header left, warnings included) and every error-level
    finding, such as the build-file errors MP3101 and MP3102; ``warning`` also on every
    warning-level finding (hazards such as MP2002). Notes never fail (a check's findings
    at note level neither)."""
    return _fails(d.check.residual, d.level, level)


def _fails(residual: bool, found: str, level: str) -> bool:
    if found == "note":
        return False
    return residual or found == "error" or (level == "warning" and found == "warning")


def check_failures(r: PortResult, suppress: Set[str] = frozenset(),
                   level: str = "error") -> list[tuple[FileOutcome, Diagnostic]]:
    """The findings ``--check=level`` fails on (after ``--suppress``), in path order."""
    return [(f, d) for f, d in findings(r, suppress) if fails_check(d, level)]


def check_count(r: PortResult, suppress: Set[str] = frozenset(), level: str = "error") -> int:
    """How many findings ``--check=level`` fails on (counted on the stored rows and the
    counts beyond the cap per file: a large tree has thousands). A row's own level
    (``Diagnostic.severity``, its ninth field) wins over its check's."""
    ids = {cid for cid, c in CHECKS.items() if _fails(c.residual, c.level, level)
           and cid not in suppress}
    n = 0
    for f in r.files:
        rec = f.record
        for row in rec.diagnostics:
            cid = row[0]
            own = row[8] if len(row) > 8 else ""
            if not own:
                n += cid in ids
            elif cid not in suppress:
                n += _fails(CHECKS[cid].residual, own, level)
        if rec.findings_dropped:
            n += sum(c for cid, c in rec.findings_dropped.items() if cid in ids)
    return n


def rate(converted: int, residual: int) -> float | None:
    total = converted + residual
    return round(converted / total, 4) if total else None


def pct(rate: float | None) -> str:
    return "-" if rate is None else f"{100 * rate:.1f}%"

