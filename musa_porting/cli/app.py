"""The click group of ``musa-port`` and the error handling around every command.

``musa-port SRC ...`` ports (the default command); other commands are named
(``musa-port port SRC`` is the explicit form). Only the bare word selects a command:
``musa-port ./build`` and ``musa-port build/`` port a folder called build.
"""

from __future__ import annotations

import importlib
import os
import sys

import click
from click.shell_completion import CompletionItem

from .. import __version__, interrupts
from ..errors import PortError, internal_error
from ..shadow import shadow_warning
from .common import CONTEXT, EXIT_CLOSED_PIPE, EXIT_INTERNAL, EXIT_USAGE, fail
from .port_cmd import port_cmd
from .port_command import IMPLIED_PORT

COMPLETION = 'Completion: eval "$(_MUSA_PORT_COMPLETE=bash_source musa-port)" in ~/.bashrc'


# The commands besides ``port``, in the order the help lists them: each imported when
# it is named (or listed), so that a port does not import the build and rules commands.
LAZY = {"build": ("build_cmd", "build_cmd"), "verify": ("verify_cmd", "verify_cmd"),
        "rules": ("rules_cmd", "rules_cmd"), "explain": ("explain_cmd", "explain_cmd")}
NAMES = ("port", *LAZY)
_LOADED: dict[str, click.Command] = {}


class _DefaultToPort(click.Group):
    """A group whose first argument, when it is not a command name, is SRC. Its
    ``commands`` stay empty: what lists them (the help, shell completion, the docs'
    mkdocs-click) asks ``list_commands`` and ``get_command``, which load each on need."""

    def get_command(self, ctx, name):
        if name == "port":
            return port_cmd
        if name not in LAZY:
            return None
        if name not in _LOADED:
            module, attr = LAZY[name]
            _LOADED[name] = getattr(importlib.import_module(f".{module}", __package__), attr)
        return _LOADED[name]

    def list_commands(self, ctx):
        return list(NAMES)

    def parse_args(self, ctx, args):
        if args and args[0] not in NAMES and args[0] not in ("--help", "-h", "--version", "-V"):
            ctx.meta[IMPLIED_PORT] = True
            args = ["port", *args]
        return super().parse_args(ctx, args)

    def shell_complete(self, ctx, incomplete):
        """Command names, and paths: the first argument may be SRC; and before it, the
        options of a port (``musa-port --ch`` -> ``--check``)."""
        items = super().shell_complete(ctx, incomplete)
        if not incomplete.startswith("-"):
            items.append(CompletionItem(incomplete, type="file"))
            return items
        have = {item.value for item in items}
        for param in port_cmd.get_params(ctx):
            if isinstance(param, click.Option) and not param.hidden:
                items += [CompletionItem(name, help=param.help)
                          for name in (*param.opts, *param.secondary_opts)
                          if name.startswith(incomplete) and name not in have]
        return items

    def format_help(self, ctx, formatter):
        port = port_cmd
        with click.Context(port, info_name=ctx.info_name, **port.context_settings) as pctx:
            port.format_help(pctx, formatter)
        others = [(n, self.get_command(ctx, n).get_short_help_str(200)) for n in LAZY]
        if others:
            with formatter.section("Other commands (musa-port COMMAND --help)"):
                formatter.write_dl(others)
        formatter.write_paragraph()
        formatter.write_text(COMPLETION)


@click.group(cls=_DefaultToPort, context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="musa-port")
@click.pass_context
def cli(ctx):
    """musa-port: port CUDA source trees to MUSA."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(EXIT_USAGE)


def folder_hint(args) -> str | None:
    """When a bare command word is also a folder here, how to port that folder."""
    if args and args[0] in LAZY and os.path.isdir(args[0]):
        word = args[0]
        return (f"hint: `musa-port {word}` runs the {word} command; to port the folder "
                f"{word}, write musa-port ./{word}")
    return None


def main(args: list[str]) -> None:
    """Run the group on ``args``: errors are one line and an exit code."""
    shadowed = None if "_MUSA_PORT_COMPLETE" in os.environ else shadow_warning([os.getcwd()])
    if shadowed:
        click.echo(shadowed, err=True)
    hint = folder_hint(args)
    try:
        run(cli, args, "musa-port")
    except SystemExit as exc:
        if hint and exc.code not in (0, None):
            click.echo(hint, err=True)
        raise


def _option_named(exc: click.BadParameter) -> str:
    """The option a bad value was given to, as the user types it (``--jobs``)."""
    param = exc.param
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    if param is not None:
        return param.human_readable_name
    return (exc.param_hint or "value").strip("'\"") if isinstance(exc.param_hint, str) else "value"


def _closed_pipe() -> None:
    """The reader of stdout went away (``musa-port ... | head``): stop as a command that
    SIGPIPE ended looks to a shell (141), saying nothing, as other CLIs do; never 1, the
    code CI reads as a failed --check. Whatever is still buffered goes nowhere, so that
    Python's own flush at exit does not report the pipe a second time."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    sys.exit(EXIT_CLOSED_PIPE)


def run(command: click.Command, argv, prog_name: str) -> None:
    """Run a click command as a console script: errors are one line and an exit code
    (2 bad input, 3 a bug, 130 interrupted), never a traceback."""
    if f"_{prog_name.replace('-', '_').upper()}_COMPLETE" in os.environ:
        command.main(args=argv, prog_name=prog_name)  # click answers the shell, and exits
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
    except click.BadParameter as exc:
        if isinstance(exc, click.MissingParameter):
            exc.show()
            sys.exit(EXIT_USAGE)
        fail(f"{_option_named(exc)}: {exc.message}")  # one line, as a bad value in a file
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort:
        fail("aborted", 130)
    except BrokenPipeError:
        _closed_pipe()
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
        fail(internal_error(exc), EXIT_INTERNAL)
