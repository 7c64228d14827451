"""The catalogue as people read it: ``musa-port explain``'s text, the SARIF help
(text and Markdown) and ``--help-all``'s list, all from the one table in
``catalogue``; ``pages`` makes the documentation's pages from the same.
"""

from __future__ import annotations

import textwrap

from . import CHECKS, FAMILIES, Check

# The findings' pages in musa-port's repository: a page per family
# (docs/findings/FAMILY.md), an anchor per ID (pages.family_page). The documentation is
# not published on a site yet: where it is, SARIF's helpUri can name the page there.
FINDINGS_PAGES = "docs/findings/"


def help_page(c: Check) -> str:
    """``docs/findings/warp-size.md#mp2002``: the finding's page, in the repository."""
    return f"{FINDINGS_PAGES}{c.family}.md#{c.id.lower()}"


def _heading(c: Check) -> str:
    kind = "residual, " if c.residual else ""
    return f"{c.id} {c.name} ({kind}{c.levels}; {FAMILIES[c.family].title})"


def plain(text: str) -> str:
    """Markdown's code quotes, dropped for the terminal."""
    return text.replace("`", "")


def explain_text(c: Check, width: int = 88) -> str:
    """The long help of one finding, for the terminal (as ``ruff rule`` prints)."""

    def para(text: str) -> list[str]:
        return textwrap.wrap(plain(text), width, initial_indent="  ", subsequent_indent="  ")

    lines = [_heading(c), "", *para(c.description)]
    if c.why:
        lines += ["", "Why it matters", *para(c.why)]
    lines += ["", "Example", f"    {c.example}"]
    if c.instead:
        lines += ["", "What to do instead", *para(c.instead)]
    if c.fixed:
        lines += [f"    {c.fixed}"]
    where = "host and device code" if not c.device else "device code (not host-only code)"
    lines += ["", *textwrap.wrap(f"Reported in {where}. Suppress it with --suppress {c.id}, or "
                                 f"with a comment 'musa-port: ignore[{c.id}]' on its line.", width),
              f"More: {help_page(c)} in musa-port's repository"]
    return "\n".join(lines) + "\n"


def explain_markdown(c: Check) -> str:
    """The long help of one finding in Markdown (SARIF ``help.markdown``, the docs)."""
    out = [f"**{c.id} {c.name}** ({c.levels}; {FAMILIES[c.family].title})", "", c.description]
    if c.why:
        out += ["", "**Why it matters.** " + c.why]
    out += ["", "**Example**", "", "```cuda" if c.family not in ("build-files", "python")
            else "```", c.example, "```"]
    if c.instead:
        out += ["", "**What to do instead.** " + c.instead]
    if c.fixed:
        out += ["", "```cuda", c.fixed, "```"]
    out += ["", f"Suppress with `--suppress {c.id}` or `musa-port: ignore[{c.id}]` on the line."]
    return "\n".join(out)


def sarif_help(c: Check) -> dict:
    """The SARIF ``help`` of a rule: the same text as ``musa-port explain``."""
    return {"text": explain_text(c), "markdown": explain_markdown(c)}


def help_all_rows() -> list[tuple[str, str]]:
    """(term, text) of every finding, for ``--help-all``."""
    return [(f"{c.id} {c.name}", f"{c.levels}; {FAMILIES[c.family].title.lower()}: "
                                 f"{plain(c.description)}") for c in CHECKS.values()]
