"""Findings as compiler-style lines on stderr: why ``--check`` failed, and what a
single-file port found. Each line names the CUDA file and line, where the fix goes."""

from __future__ import annotations

from collections.abc import Iterable

import click

from ..analyze.checks import Diagnostic
from ..report.locations import finding_text

SHOWN = 20  # --check failures listed before "... and N more"
LEVEL_MEANING = {"error": "residual CUDA names and headers, and error-level findings",
                 "warning": "residuals, errors and warning-level findings"}


def finding_line(path: str, d: Diagnostic, line: int | None = None, column: int | None = None) -> str:
    """A finding at ``path`` (the CUDA file's line unless ``line`` is given), in the one
    format of every text output (``report.locations.finding_text``)."""
    return finding_text(path, d.src_line if line is None else line,
                        d.src_column if column is None else column, d)


def echo_findings(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line, err=True)


def echo_check_failure(failures: list[tuple], level: str) -> None:
    """``failures``: (path, the finding) with the CUDA file's path, or (path, line,
    column, the finding) with the place the user opens, in order."""
    click.echo(f"musa-port: --check={level} failed on {len(failures)} finding"
               f"{'s' if len(failures) != 1 else ''} ({LEVEL_MEANING[level]}; --suppress "
               "IDS or --keep NAMES to accept them):", err=True)
    echo_findings("  " + (finding_line(f[0], f[1]) if len(f) == 2 else finding_line(f[0], f[3], f[1], f[2]))
                  for f in failures[:SHOWN])
    if len(failures) > SHOWN:
        click.echo(f"  ... and {len(failures) - SHOWN} more (--report-json or --sarif lists "
                   "them all)", err=True)
