"""The click class of ``musa-port SRC``: help that fits one screen, usage lines that
name what the user typed, and an optional-value ``--check`` that never eats SRC.

``musa-port --help`` describes the options most runs use and lists the rest by name
under "Advanced options"; ``--help-all`` describes every one, and lists every finding. When ``port`` was not
typed (``musa-port ./csrc --bogus``), errors say ``musa-port``, not ``musa-port port``.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from .option_values import CHECK_LEVELS

# Set in the group's context when it inserted ``port`` before the user's arguments.
IMPLIED_PORT = "musa_port.implied_port"
# Options whose value is optional: a bare one is given its default value here, so that
# ``--check ./csrc`` does not take ./csrc as its value. A next argument that is one of
# the option's own values is its value: ``--check warning`` as ``--check=warning``.
OPTIONAL_VALUE = {"--check": ("", CHECK_LEVELS), "--diff": ("-", ())}


class PortContext(click.Context):
    @property
    def command_path(self) -> str:
        if self.parent is not None and self.parent.meta.get(IMPLIED_PORT):
            return self.parent.command_path
        return super().command_path


def _show_all(ctx: click.Context, param, value) -> None:
    if value and not ctx.resilient_parsing:
        ctx.meta["musa_port.help_all"] = True
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


help_all_option = click.option(
    "--help-all", is_flag=True, expose_value=False, is_eager=True, callback=_show_all,
    help="Show every option with its description.")


class PortCommand(click.Command):
    """A command whose help shows ``common`` options in full and the others by name."""

    context_class = PortContext

    def __init__(self, *args, common: Sequence[str] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.common = frozenset(common)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        out = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                out += args[i:]
                break
            if arg in OPTIONAL_VALUE:
                bare, values = OPTIONAL_VALUE[arg]
                given = i + 1 < len(args) and args[i + 1] in values
                out.append(f"{arg}={args[i + 1] if given else bare}")
                i += 2 if given else 1
                continue
            out.append(arg)
            i += 1
        return super().parse_args(ctx, out)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        common, advanced, names = [], [], []
        help_option = self.get_help_option(ctx)
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None or isinstance(param, click.Argument):
                continue
            if param.name in self.common or param is help_option:
                common.append(record)
            else:
                advanced.append(record)
                names.append("/".join(o for o in (*param.opts, *param.secondary_opts)
                                      if o.startswith("--")))
        with formatter.section("Options"):
            formatter.write_dl(common)
        if not advanced:
            return
        if ctx.meta.get("musa_port.help_all"):
            with formatter.section("Advanced options"):
                formatter.write_dl(advanced)
            from ..analyze.catalogue.render import help_all_rows

            with formatter.section("Findings (musa-port explain ID says more)"):
                formatter.write_dl(help_all_rows())
            return
        with formatter.section("Advanced options (--help-all describes them)"):
            _write_packed(formatter, names)


def _write_packed(formatter: click.HelpFormatter, items: list[str]) -> None:
    """Comma-separated items in lines that fit, never breaking one (``--no-python``,
    ``--rename-paths/--keep-paths``) across lines."""
    indent = " " * formatter.current_indent
    width = max((formatter.width or 80) - formatter.current_indent, 40)
    line = ""
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line and len(line) + 1 + len(piece) > width:
            formatter.write(f"{indent}{line}\n")
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        formatter.write(f"{indent}{line}\n")
