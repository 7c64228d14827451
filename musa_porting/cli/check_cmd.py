"""``musa-port check OUT``: does a ported tree hang together? What to run before the
first MUSA build; the same check every port runs (``musa_porting/check``)."""

from __future__ import annotations

import json
import os

import click

from .common import CONTEXT, EXIT_CHECK
from .option_values import complete_ids


@click.command("check", context_settings=CONTEXT,
               short_help="Does a ported tree hang together? Run it before the first build.")
@click.argument("output", type=click.Path(exists=True, file_okay=False))
@click.option("--suppress", multiple=True, metavar="IDS", shell_complete=complete_ids,
              help="Finding IDs, names or families not to report (comma-separated).")
@click.option("--output-format", type=click.Choice(["text", "json", "github"]), default="text",
              show_default=True, help="text: file:line: lines; json: a list of findings; "
                                      "github: workflow annotations.")
@click.option("-q", "--quiet", is_flag=True, help="No summary line on stderr.")
def check_cmd(output, suppress, output_format, quiet):
    """Check that the ported tree OUTPUT hangs together: every file its build names is
    there, every extension's init name is the build's name for it, every op and
    binding its Python reads is one its C++ defines, every project #include resolves.

    It reads only OUTPUT (and the manifest musa-port keeps there). Exit 1 when a
    finding is an error, as `musa-port --check` (which runs the same check after a port).

    \b
    Examples:
      musa-port check ./csrc_musa
      musa-port check ./pkg_musa --output-format github
    """
    from ..analyze.checks import parse_ids
    from ..check.run import check_output
    from ..report.annotations import github_line
    from ..report.counts import fails_check
    from .findings_out import finding_line

    hidden = parse_ids(suppress)
    found = [(rel, d) for rel, d in check_output(output) if d.id not in hidden]
    shown = [(os.path.join(output, rel), d) for rel, d in found]
    if output_format == "json":
        click.echo(json.dumps([{"id": d.id, "name": d.check.name, "level": d.level,
                                "file": rel, "line": d.line, "column": d.column,
                                "text": d.text, "message": d.message} for rel, d in found],
                              indent=1))
    else:
        line = github_line if output_format == "github" else finding_line
        for path, d in shown:
            click.echo(line(path, d))
    failing = sum(1 for _, d in found if fails_check(d))
    if not quiet:
        files = len({rel for rel, _ in found})
        click.echo(f"musa-port check: {output} hangs together" if not found else
                   f"musa-port check: {len(found)} finding{'s' * (len(found) != 1)} in {files} "
                   f"file{'s' * (files != 1)} of {output} ('musa-port explain ID' says what "
                   "each means)", err=True)
    if failing:
        raise SystemExit(EXIT_CHECK)
