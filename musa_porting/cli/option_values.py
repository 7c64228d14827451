"""Checks and shell completion of option values that name something musa-port knows
(finding IDs, check levels, arches): click callbacks, so that a value given on the
command line and one from the settings file (``cli/settings.py`` runs the same
callback) are checked alike; the error says what is wrong, and the caller says where."""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem

from ..errors import PortError

# What --check fails on, from the least: unresolved merges only; also residuals and
# errors (the default); also warnings.
CHECK_LEVELS = ("conflicts", "error", "warning")


class FolderOrRef(click.ParamType):
    """``--base-from``: a folder, or a git ref of SRC's repository. In a settings file a
    folder is relative to the file's folder (as paths are); a ref is read as it is."""

    name = "folder or git ref"


def _refused_by(parse, value) -> None:
    """The library's own parser checks the value; its one-line error becomes the
    option's (click names the option)."""
    try:
        parse(value)
    except PortError as exc:
        raise click.BadParameter(str(exc)) from None


def checked_ids(ctx, param, value):
    """``--suppress``: IDs, names or families of findings."""
    if value:
        from ..analyze.checks import parse_ids

        _refused_by(parse_ids, value)
    return value


def checked_level(ctx, param, value):
    """``--check``: bare (``""``), or a level."""
    if value not in (None, "", *CHECK_LEVELS):
        raise click.BadParameter(f"{value!r} is not one of {', '.join(CHECK_LEVELS)}")
    return value


def checked_arches(ctx, param, value):
    """``--arch``: MUSA arches (``mp_31``, ``31``), comma-separated or repeated."""
    if value:
        from ..tree.options import parse_arches

        _refused_by(parse_arches, value)
    return value


def checked_vendor_word(ctx, param, value):
    """``--vendor-word``: a word of letters (it becomes part of names), lower-cased, or
    "" to keep NVIDIA."""
    if value is None:
        return value
    if not (value == "" or value.isascii() and value.isalpha()):
        raise click.BadParameter(f"{value!r} is not a word of letters")
    return value.lower()


def checked_build_args(ctx, param, value):
    """``--build-args``: split as a shell splits it, and read as ``musa-port build`` reads
    its options, before anything is ported: a value it cannot read (a quote not closed,
    an unknown option) stops the run with nothing written, not after."""
    if not value:
        return value
    import shlex

    from .build_cmd import build_cmd

    try:
        argv = shlex.split(value)
    except ValueError:
        raise click.BadParameter("a quote is not closed") from None
    try:
        build_cmd.make_context("musa-port build", ["OUT", *argv]).close()
    except click.ClickException as exc:
        raise click.BadParameter(exc.format_message()) from None
    except PortError as exc:  # a value an option's own check refuses (--launcher)
        raise PortError(f"--build-args: {exc}") from None
    return value


def complete_ids(ctx, param, incomplete: str) -> list[CompletionItem]:
    """Finding IDs, names and families; after a comma, the next one of a list
    (``MP1002,MP20``)."""
    from ..analyze.catalogue import CHECKS, FAMILIES

    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    words = [(c.id, f"{c.name} ({c.level})") for c in CHECKS.values()]
    words += [(c.name, c.id) for c in CHECKS.values()]
    words += [(key, f.title) for key, f in FAMILIES.items()]
    low = last.lower()
    return [CompletionItem(prefix + w, help=h) for w, h in words if w.lower().startswith(low)]


def complete_levels(ctx, param, incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(level) for level in CHECK_LEVELS if level.startswith(incomplete)]
