"""What the commands share: exit codes, one-line errors, comma-separated options,
colour, the console and the progress bar."""

from __future__ import annotations

import os
import sys

import click

EXIT_OK = 0
EXIT_CHECK = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE: what a shell shows for a command a closed pipe ended
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def split_csv(values) -> list[str]:
    out = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def write_output(data: bytes, target: str) -> None:
    """Bytes to stdout (``-``) or to a file (atomically): a diff keeps its bytes
    either way."""
    from ..report.output import write_bytes

    write_bytes(target, data)


def is_stdout(path: str | None) -> bool:
    """``-``, or a path that names our stdout (``/dev/stdout``): the summary then goes
    to stderr, and no other output may go there too."""
    if not path:
        return False
    if path == "-":
        return True
    from ..write.through import own_fd

    return own_fd(path) == 1


def check_outputs(**targets: str | None) -> None:
    """Before a command runs: each report path can be written, and at most one goes
    to stdout (two would be glued together). ``targets``: option name -> path."""
    from ..report.output import check_target

    given = {f"--{k.replace('_', '-')}": v for k, v in targets.items() if v is not None}
    dashes = [k for k, v in given.items() if is_stdout(v)]
    if len(dashes) > 1:
        raise click.UsageError(f"{' and '.join(dashes)} all write to stdout (-); send all but "
                               "one to files")
    for option, path in given.items():
        if option != "--output-format":
            check_target(path, option)


COLOR_MODES = ("auto", "always", "never")
_color: str | None = None  # the --color of this run (None: not given)


def _set_color(ctx, param, value):
    global _color
    _color = value  # None (not given) too: a run in the same process starts afresh
    return value


color_option = click.option(
    "--color", type=click.Choice(COLOR_MODES), default=None, expose_value=False, is_eager=True,
    callback=_set_color, metavar="WHEN", help="auto, always or never (NO_COLOR: never).")


def color_mode() -> str:
    """``--color`` if given; else ``never`` when NO_COLOR is set (to anything but an
    empty string, per no-color.org), else ``auto``."""
    if _color is not None:
        return _color
    return "never" if os.environ.get("NO_COLOR") else "auto"


NO_WRAP = 1 << 14  # the width of a console that is not a terminal: lines are never broken


def console_for(stderr: bool):
    """The rich console for a command's output: no escape codes at all with ``never``
    (styles included, not just colours), forced ones with ``always``. Not on a terminal
    (a pipe, a CI log) no line is wrapped, whatever COLUMNS says: a finding or a path
    broken at 80 columns defeats grep."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    isatty = getattr(stream, "isatty", None)
    wide = {} if isatty is not None and isatty() else {"width": NO_WRAP, "soft_wrap": True}
    mode = color_mode()
    if mode == "never":
        console = Console(stderr=stderr, highlight=False, color_system=None, no_color=True, **wide)
    elif mode == "always" or os.environ.get("FORCE_COLOR"):
        # FORCE_COLOR (force-color.org) read here, not left to rich: rich obeys it only
        # from 12.6, and the lowest rich allowed is older.
        console = Console(stderr=stderr, highlight=False, force_terminal=True, **wide)
    else:
        console = Console(stderr=stderr, highlight=False, **wide)
    console.on_broken_pipe = _broken_pipe  # rich's own exits 1, a failed --check's code
    return console


def _broken_pipe() -> None:
    """A closed stdout is the command line's to end (``app.run``: quietly, 141)."""
    raise BrokenPipeError


def progress_bar(console):
    """A progress bar for long runs, on a real terminal only: not when --color=always or
    FORCE_COLOR forces escape codes into a pipe, and not with NO_COLOR (--color never)
    or TERM=dumb, which promise a terminal no escape codes (a bar moves the cursor)."""
    if not console.is_terminal or color_mode() == "never" or os.environ.get("TERM") == "dumb":
        return None
    if color_mode() == "always" or os.environ.get("FORCE_COLOR"):
        isatty = getattr(console.file, "isatty", None)
        if isatty is None or not isatty():
            return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=console, transient=True)
