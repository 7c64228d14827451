"""``musa-port explain ID``: the long help of a finding, as ``ruff rule`` prints it."""

from __future__ import annotations

import click

from ..errors import PortError
from .common import CONTEXT
from .option_values import complete_ids


@click.command("explain", context_settings=CONTEXT,
               short_help="What a finding means and what to do.")
@click.argument("ids", nargs=-1, metavar="[ID|NAME|FAMILY]...", shell_complete=complete_ids)
@click.option("--markdown", is_flag=True, help="Print Markdown (as the SARIF rules carry it).")
def explain_cmd(ids, markdown):
    """Explain findings: what each finds, why it matters, an example, what to do instead.

    \b
    Examples:
      musa-port explain MP2004
      musa-port explain warp-size-32      (by name)
      musa-port explain warp-size         (every finding of a family)
      musa-port explain                   (the list of findings)
    """
    from ..analyze.catalogue import CHECKS, FAMILIES, family_checks
    from ..analyze.catalogue.render import explain_markdown, explain_text

    if not ids:
        for fam in FAMILIES.values():
            checks = family_checks(fam.key)
            if checks:
                click.echo(f"{fam.title} ({fam.key})")
                for c in checks:
                    click.echo(f"  {c.id}  {c.name:<28} {c.level}")
        click.echo("\n'musa-port explain ID' prints one in full.")
        return
    by_name = {c.name: c for c in CHECKS.values()}
    chosen = []
    for word in ids:
        if word in FAMILIES:
            chosen += family_checks(word)
        elif word.upper() in CHECKS or word in by_name:
            chosen.append(by_name.get(word) or CHECKS[word.upper()])
        else:
            raise PortError(f"unknown finding {word!r}: 'musa-port explain' lists the IDs, names "
                            "and families")
    render = explain_markdown if markdown else explain_text
    click.echo("\n".join(render(c).rstrip("\n") + "\n" for c in chosen).rstrip("\n"))
