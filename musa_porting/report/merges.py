"""What the summary says of the user's edits in the output: the files merged with the
new port and, above all, every file that holds conflicts, and every file of a fork an
upgrade did not reach (``--check`` fails on both)."""

from __future__ import annotations

import os

from ..tree.result import PortResult

SHOWN = 20


def conflict_lines(r: PortResult) -> list[str]:
    """Lines for stderr: empty when no output was merged and none holds conflicts."""
    lines = []
    merged, conflicted = r.merged, r.conflicted
    verb = "would merge" if r.dry_run else "merged"
    if merged:
        lines.append(f"musa-port: {verb} your edits with the new port in {len(merged)} "
                     f"file{'s' * (len(merged) != 1)} (your files before the merge: "
                     f"{os.path.join(r.output, '.musa-port', 'kept')}/)")
    if conflicted:
        lines.append(f"musa-port: {len(conflicted)} file{'s' * (len(conflicted) != 1)} with "
                     "conflicts to resolve by hand (between <<<<<<< yours and >>>>>>> new "
                     "port), or edits not merged:")
        lines += [f"  {os.path.join(r.output, rel)}" for rel in conflicted[:SHOWN]]
        if len(conflicted) > SHOWN:
            lines.append(f"  ... and {len(conflicted) - SHOWN} more (--report-json lists them all)")
    behind = r.not_upgraded
    if behind:
        n = len(behind)
        lines.append(f"musa-port: {n} file{'s' * (n != 1)} of the fork not upgraded (the new "
                     "release's changes did not reach them; listed until they change):")
        lines += [f"  {os.path.join(r.output, rel)}: {why}" for rel, why in list(behind.items())[:SHOWN]]
        if n > SHOWN:
            lines.append(f"  ... and {n - SHOWN} more (--report-json lists them all)")
    return lines
