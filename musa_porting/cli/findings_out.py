"""Findings as compiler-style lines on stderr: why ``--check`` failed, and what a
single-file port found. Each line names the CUDA file and line, where the fix goes."""

from __future__ import annotations

from collections.abc import Iterable

import click

from ..analyze.checks import Diagnostic

SHOWN = 20  # --check failures listed before "... and N more"
LEVEL_MEANING = {"error": "residual CUDA names and headers, and error-level findings",
                 "warning": "residuals, errors and warning-level findings"}


def finding_line(path: str, d: Diagnostic) -> str:
    c = d.check
    kind = f"{d.level}, residual" if c.residual else d.level
    return f"{path}:{d.src_line}:{d.src_column}: {d.id} {c.name} ({kind}): {d.message}"


def echo_findings(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line, err=True)


def echo_check_failure(failures: list[tuple[str, Diagnostic]], level: str) -> None:
    """``failures``: (the CUDA file's path, the finding), in order."""
    click.echo(f"musa-port: --check={level} failed on {len(failures)} finding"
               f"{'s' if len(failures) != 1 else ''} ({LEVEL_MEANING[level]}; --suppress "
               "IDS or --keep NAMES to accept them):", err=True)
    echo_findings("  " + finding_line(p, d) for p, d in failures[:SHOWN])
    if len(failures) > SHOWN:
        click.echo(f"  ... and {len(failures) - SHOWN} more (--report-json or --sarif lists "
                   "them all)", err=True)
