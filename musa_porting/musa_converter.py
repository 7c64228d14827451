"""``musa-converter``: torch_musa's Python converter (manual section 10.2), with its
flags, converting in place, but safe (see docs/python.md, "musa-converter").

    musa-converter -r ./yolov5 -l ./yolov5/train.py [-e ./yolov5/utils/loggers]
    python -m musa_porting.musa_converter -r ./yolov5 -l ./yolov5/train.py --dry-run --diff

A thin layer over ``musa_porting.convert``.
"""

from __future__ import annotations

import os

import click

from . import __version__
from .cli.common import CONTEXT, is_stdout, split_csv, write_output


@click.command("musa-converter", context_settings=CONTEXT)
@click.option("-r", "--root_path", "root", required=True, metavar="PATH",
              help="A .py file, or a folder whose .py files are converted.")
@click.option("-l", "--launch_path", "launch", multiple=True, metavar="FILES",
              help="The scripts that start a run (several after one -l, comma-separated, or "
                   "repeated): each gets `import torch_musa` after its first `import torch`.")
@click.option("-e", "--excluded_path", "excluded", multiple=True, metavar="PATHS",
              help="Files or folders to leave alone (several after one -e, comma-separated, "
                   "or repeated).")
@click.option("--force", is_flag=True,
              help="Also convert files with changes git does not hold (uncommitted, untracked).")
@click.option("--no-backup", is_flag=True,
              help="Do not write a .orig copy of a changed file that git does not hold.")
@click.option("-n", "--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--diff", "diff", is_flag=False, flag_value="-", default=None, metavar="[FILE]",
              help="Print a git-apply-able diff of the changes (--diff=FILE writes it to FILE).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total.")
@click.version_option(__version__, "-V", "--version", prog_name="musa-converter")
def converter_cmd(root, launch, excluded, force, no_backup, dry_run, diff, quiet):
    """Convert PyTorch scripts in place from CUDA to MUSA: torch.cuda -> torch.musa,
    .cuda() -> .musa(), "cuda" devices -> "musa", nccl -> mccl, CUDAExtension ->
    MUSAExtension, and `import torch_musa` in the launch scripts.

    Files in a git work tree are converted only when git holds them as they are
    (--force overrides); other files get a .orig backup (--no-backup skips it).
    """
    from .convert import ConvertOptions, convert

    opts = ConvertOptions(root, split_csv(launch), split_csv(excluded), force=force,
                          backup=not no_backup, dry_run=dry_run, collect_diff=diff is not None)
    result = convert(opts)
    err = is_stdout(diff)  # stdout carries the diff: the summary goes to stderr
    if diff is not None:
        from .report.diff import tree_diff

        write_output(tree_diff(result.diff_items), diff)
    for f in result.files:
        for line, message in f.warnings:
            click.echo(f"{f.path}:{line}: warning: {message}", err=True)
        if quiet:
            continue
        if f.new != f.old:
            verb = "would convert" if dry_run else "converted"
            extra = f" (backup {os.path.basename(f.backup)})" if f.backup else ""
            click.echo(f"{verb} {f.rel}: {f.replacements} replacements{extra}", err=err)
        for d in f.diagnostics:
            c = d.check
            click.echo(f"{f.path}:{d.line}:{d.column}: {d.level}: {d.message} [{d.id} {c.name}]",
                       err=err)
    findings = sum(len(f.diagnostics) for f in result.files)
    verb = "would change" if dry_run else "changed"
    click.echo(f"musa-converter: {result.scanned} Python files, {len(result.changed)} {verb}, "
               f"{sum(f.replacements for f in result.changed)} replacements, {findings} findings"
               f" -> {result.base}", err=err)


# Options that take several values, as torch_musa's argparse (nargs="+") takes them:
# ``-e a.py b.py``; click takes one value per option, so the values are joined.
_MANY = frozenset({"-e", "--excluded_path", "-l", "--launch_path"})


def several_values(argv: list[str]) -> list[str]:
    """``-e a b -r x`` -> ``-e a,b -r x`` (a value is every word up to the next option)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        out.append(arg)
        i += 1
        if arg in _MANY:
            values = []
            while i < len(argv) and (not argv[i].startswith("-") or not values) and argv[i] != "--":
                values.append(argv[i])
                i += 1
            if values:
                out.append(",".join(values))
    return out


def main(argv=None) -> None:
    """Console entry point: errors are one line and an exit code (2: bad input or a
    refusal, nothing written)."""
    import sys

    from .cli.app import run

    run(converter_cmd, several_values(list(sys.argv[1:] if argv is None else argv)),
        "musa-converter")


if __name__ == "__main__":
    main()
