"""What the commands share: exit codes, one-line errors, comma-separated options,
the console and the progress bar."""

from __future__ import annotations

import sys

import click

EXIT_OK = 0
EXIT_CHECK = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3
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
    """Bytes to stdout (``-``) or to a file: a diff keeps its bytes either way."""
    if target == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        with open(target, "wb") as fh:
            fh.write(data)


def console_for(stderr: bool):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def progress_bar(console):
    """A progress bar for long runs, on a terminal only."""
    if not console.is_terminal:
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=console, transient=True)


