"""The ``musa-port`` command line: a thin layer over :mod:`musa_porting.porter`.

``musa-port SRC ...`` ports (the default command); other commands are named
(``musa-port port SRC`` is the explicit form, useful when SRC is called like one).
Exit codes: 0 success, 2 bad input or usage (nothing written), 3 internal error.
"""

from __future__ import annotations

import os
import sys

import click

from . import __version__
from .errors import PortError

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERNAL = 3


def _split_csv(values) -> list[str]:
    out = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


class _DefaultToPort(click.Group):
    """A group whose first positional argument, when not a command name, is SRC."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["port", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx, formatter):
        port = self.commands["port"]
        with click.Context(port, info_name=ctx.info_name, **port.context_settings) as pctx:
            port.format_help(pctx, formatter)
        others = [(n, c.get_short_help_str(70)) for n, c in self.commands.items() if n != "port"]
        if others:
            with formatter.section("Other commands"):
                formatter.write_dl(others)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=_DefaultToPort, context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, "--version", prog_name="musa-port")
@click.pass_context
def cli(ctx):
    """musa-port: port CUDA source trees to MUSA."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(EXIT_USAGE)


@cli.command("port", context_settings=CONTEXT)
@click.argument("src", type=click.Path(file_okay=True, dir_okay=True, path_type=str))
@click.option("-o", "--output", metavar="DIR",
              help="Output folder. Default: SRC_musa beside SRC (a trailing slash on SRC "
                   "changes nothing).")
@click.option("--ignore", "ignore", multiple=True, metavar="PATTERNS",
              help="Comma-separated gitignore-style patterns, repeatable. A bare name (mlu) "
                   "ignores that folder or file at any depth; common/mlu only the one under "
                   "the root.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=str),
              help="User rules: a JSON object or YAML mapping of CUDA text to MUSA text. "
                   "Repeatable; user rules win over the default tables, later files over "
                   "earlier ones.")
@click.option("--no-default-rules", is_flag=True,
              help="Use only the --rule files, not the default tables.")
@click.option("--mapping-dir", metavar="DIR",
              help="Use the JSON tables in DIR instead of the default tables (torch_musa's "
                   "flat mapping folders work).")
@click.option("--skip", "skip", multiple=True, metavar="KINDS",
              help="Do not rewrite in these regions: comments, strings (comma-separated). "
                   "#include targets are always rewritten.")
@click.option("-I", "--include-dir", "include_dirs", multiple=True, metavar="DIR",
              help="Extra folder (inside SRC) to resolve #include targets in, so includes of "
                   "renamed headers follow the rename. Repeatable.")
@click.option("--extensions", metavar="EXTS",
              help="Comma-separated source extensions to rewrite (default: .cu,.cuh,.c,.cc,"
                   ".cpp,.cxx,.h,.hh,.hpp,.hxx,.inl,.inc,.ipp,.tpp). Other files are copied.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total.")
def port_cmd(src, output, ignore, rules, no_default_rules, mapping_dir, skip, include_dirs,
             extensions, quiet):
    """Port the CUDA tree SRC into SRC_musa.

    Source files are rewritten with the default tables plus your rules (literal,
    leftmost-longest, identifier-boundary aware); .cu/.cuh become .mu/.muh and
    includes follow; every other file is copied byte for byte. Re-runs rewrite only
    what changed. Protect code with MUSIFY_EXCL_LINE, MUSIFY_EXCL_START/STOP or
    "musa-port: off"/"musa-port: on" comments.

    \b
    Example:
      musa-port ./csrc --ignore mlu,npu --rule extra.json
    """
    from .porter import PortOptions, port_tree
    from .report import summary_lines, total_line
    from .walker import DEFAULT_SOURCE_EXTENSIONS

    exts = tuple(_split_csv([extensions])) if extensions else DEFAULT_SOURCE_EXTENSIONS
    opts = PortOptions(
        src=src,
        output=output,
        ignore=_split_csv(ignore),
        rule_files=list(rules),
        default_rules=not no_default_rules,
        mapping_dir=mapping_dir,
        skip=_split_csv(skip),
        include_dirs=list(include_dirs),
        extensions=exts,
    )
    result = port_tree(opts)
    for w in result.warnings:
        click.echo(w, err=True)
    if quiet:
        click.echo(total_line(result))
    else:
        click.echo("\n".join(summary_lines(result)))


def main(argv=None) -> None:
    """Console entry point: turns errors into one line and an exit code."""
    try:
        rc = cli.main(args=argv, prog_name="musa-port", standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except PortError as exc:
        _fail(str(exc), exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        _fail("interrupted; outputs are each old or new, run again to complete", 130)
    except Exception as exc:  # a bug: say so in one line, keep the trace for debugging
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set MUSA_PORT_DEBUG=1 for "
              "details; please report it)", EXIT_INTERNAL)
