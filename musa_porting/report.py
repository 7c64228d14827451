"""The end-of-run summary: what was ported, copied, ignored, and how fast."""

from __future__ import annotations

from .porter import PortResult


def total_line(r: PortResult) -> str:
    """The one-line total (also what ``-q`` prints)."""
    return (
        f"musa-port: {r.ported} ported ({r.changed} changed), {r.copied} copied, "
        f"{r.symlinks} links, {len(r.ignored)} ignored; {r.replacements} replacements; "
        f"{r.written} written, {len(r.removed)} removed; "
        f"{r.elapsed:.2f}s, {r.mb_per_s:.1f} MB/s -> {r.output}"
    )


def summary_lines(r: PortResult) -> list[str]:
    """A short human summary: totals, replacements by family, ignored paths."""
    lines = [f"Ported {r.src} -> {r.output} with {r.rules} rules"]
    lines.append(
        f"  files: {r.ported} ported ({r.changed} changed), {r.copied} copied unchanged, "
        f"{r.symlinks} symlinks, {len(r.ignored)} ignored"
    )
    lines.append(
        f"  outputs: {r.written} written, {len(r.files) - r.written} already up to date, "
        f"{len(r.removed)} stale removed"
    )
    if r.ignored:
        by_pat: dict[str, int] = {}
        for pat in r.ignored.values():
            by_pat[pat] = by_pat.get(pat, 0) + 1
        shown = ", ".join(f"{p} ({n})" for p, n in sorted(by_pat.items()))
        lines.append(f"  ignored by: {shown}")
    lines.append(f"  replacements: {r.replacements}")
    for fam, n in r.by_family.items():
        lines.append(f"    {fam:<12} {n}")
    lines.append(
        f"  {r.bytes_in / 1e6:.2f} MB in {r.elapsed:.2f}s ({r.mb_per_s:.1f} MB/s)"
    )
    return lines
