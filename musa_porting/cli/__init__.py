"""The ``musa-port`` command line: a thin layer over the library (``tree.porter``,
``compile.build``, ``compile.verify``, ``rules``); one module per command.

``musa-port SRC ...`` ports (the default command); other commands are named
(``musa-port port SRC`` is the explicit form, useful when SRC is called like one).
Exit codes: 0 success, 1 residuals remain under --check, 2 bad input or usage (nothing
written), 3 internal error, 130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP).
"""

from __future__ import annotations

import os
import sys

import click

from .. import __version__, interrupts
from ..errors import PortError
from .build_cmd import build_cmd, verify_cmd
from .common import CONTEXT, EXIT_INTERNAL, EXIT_USAGE, fail
from .port_cmd import port_cmd
from .rules_cmd import rules_cmd


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


@click.group(cls=_DefaultToPort, context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, "--version", prog_name="musa-port")
@click.pass_context
def cli(ctx):
    """musa-port: port CUDA source trees to MUSA."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(EXIT_USAGE)


for _command in (port_cmd, build_cmd, verify_cmd, rules_cmd):
    cli.add_command(_command)


def main(argv=None) -> None:
    """Console entry point: turns errors into one line and an exit code."""
    run(cli, argv, "musa-port")


def run(command: click.Command, argv, prog_name: str) -> None:
    """Run a click command as a console script: errors are one line and an exit code
    (2 bad input, 3 a bug, 130 interrupted), never a traceback."""
    interrupts.install()
    try:
        # Not command.main(): it turns Ctrl-C into an Abort after printing an empty line.
        args = sys.argv[1:] if argv is None else list(argv)
        with command.make_context(prog_name, args) as ctx:
            rc = command.invoke(ctx)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except PortError as exc:
        fail(str(exc), exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort:
        fail("aborted", 130)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}")
    except interrupts.Terminated as exc:
        fail("terminated; outputs are each old or new, run again to complete", 128 + exc.signum)
    except KeyboardInterrupt:
        fail("interrupted; outputs are each old or new, run again to complete", 130)
    except Exception as exc:  # a bug: say so in one line, keep the trace for debugging
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        fail(f"internal error: {type(exc).__name__}: {exc} (set MUSA_PORT_DEBUG=1 for "
              "details; please report it)", EXIT_INTERNAL)
