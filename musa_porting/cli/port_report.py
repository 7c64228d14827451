"""A tree's port and what it prints and writes: the progress bar, the diff, the
reports, the findings in the chosen ``--output-format``, the summary, ``--check`` and
``--build``."""

from __future__ import annotations

import sys
from collections.abc import Set

import click

from .common import EXIT_CHECK, console_for, is_stdout, progress_bar, write_output


def port_and_report(opts, v: dict, ignores: dict, suppressed: Set[str], level: str | None,
                    build_argv: list[str]) -> None:
    """Port ``opts.src`` (a folder); ``v``: the run's option values (``settings``)."""
    from ..report import counts, summary
    from ..report.merges import conflict_lines
    from ..tree import timings
    from ..tree.ignores import unmatched
    from ..tree.porter import port_tree

    fmt, quiet = v["output_format"], v["quiet"]
    # A machine format on stdout is the whole output, as ruff's: no summary, no lines on
    # stderr (the warnings are in it); the exit code says whether --check failed.
    machine = fmt in ("json", "sarif")
    quiet = quiet or machine
    diff, report_json, report_csv, sarif = v["diff"], v["report_json"], v["report_csv"], v["sarif"]
    # The summary goes to stderr when stdout carries the diff, a report or the findings.
    to_stdout = any(map(is_stdout, (diff, report_json, report_csv, sarif))) or fmt != "text"
    console = None if quiet else console_for(stderr=to_stdout)  # -q: rich is not imported
    progress = None if console is None else progress_bar(console)
    if progress is not None:
        with progress:
            task = progress.add_task("porting", total=0)  # rich 12.0 takes no total=None
            opts.progress = lambda done, total: progress.update(task, completed=done, total=total)
            result = port_tree(opts)
    else:
        result = port_tree(opts)
    timings.mark("port (the phases above)")
    result.warnings += [f"warning: ignore pattern {entry} matched nothing in {opts.src}"
                        for entry in unmatched(ignores, result.ignored)]
    if not machine:
        for w in result.warnings:
            click.echo(w, err=True)
    if diff is not None:
        from ..report.diff import tree_diff

        write_output(tree_diff(result.diff_items), diff)
    if report_json or fmt == "json":
        from ..report import json_report

        for target in {report_json, "-" if fmt == "json" else None} - {None}:
            json_report.write_json(result, target, suppressed)
    if report_csv:
        from ..report import csv_report

        csv_report.write_csv(result, report_csv, suppressed)
    if sarif or fmt == "sarif":
        from ..report import sarif as sarif_report

        for target in {sarif, "-" if fmt == "sarif" else None} - {None}:
            sarif_report.write_sarif(result, target, suppressed)
    if fmt in ("github", "grouped"):
        from ..report import annotations

        text = "\n".join(annotations.github_lines(result, suppressed, v["verbose"])) \
            if fmt == "github" else annotations.grouped_text(result, suppressed, v["verbose"])
        if text:
            click.echo(text)
    if not machine:  # a JSON or SARIF report is the only output
        if quiet:
            click.echo(summary.total_line(result, suppressed), err=to_stdout)
        else:
            summary.print_summary(result, console, suppressed, v["report_files"],
                                  max_findings=None if v["verbose"] else 200, notes=v["verbose"])
        for line in conflict_lines(result):
            click.echo(line, err=True)
    timings.mark("reports and summary")
    timings.report()
    failed = level is not None and counts.check_count(result, suppressed, level)
    if failed and not machine:
        from ..report.locations import finding_place
        from .findings_out import echo_check_failure

        failures = counts.check_failures(result, suppressed, level)
        echo_check_failure([(*finding_place(result, f, d), d) for f, d in failures], level)
    if level is not None and result.conflicted and not machine:
        n = len(result.conflicted)
        click.echo(f"musa-port: --check failed: {n} output{'s' * (n != 1)} "
                   f"{'hold' if n != 1 else 'holds'} conflicts (listed above)", err=True)
    if level is not None and result.not_upgraded and not machine:
        n = len(result.not_upgraded)
        click.echo(f"musa-port: --check failed: {n} file{'s' * (n != 1)} of the fork not "
                   "upgraded (listed above)", err=True)
    if failed or (level is not None and (result.conflicted or result.not_upgraded)):
        sys.exit(EXIT_CHECK)
    if v["then_build"] and not opts.dry_run:
        from .build_cmd import build_cmd

        build_cmd.main([result.output, *build_argv, *(["-q"] if quiet else [])],
                       prog_name="musa-port build", standalone_mode=False)
