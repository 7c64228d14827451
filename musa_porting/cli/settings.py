"""Every option of ``musa-port`` (port) as a setting of ``[tool.musa-port]``, under the
option's own name: ``arch = ["mp_31"]`` for ``--arch mp_31``, ``jobs = 4`` for
``--jobs 4``, ``keep-paths = true`` for ``--keep-paths`` (``python = false`` for
``--no-python``, too).

The keys are derived from the click command itself (``setting_keys``), and a value in
the file goes through the option's own type and callback, so an option added to the
command is a setting with no more work: its name, its checks and its errors come with
it. What is not a setting: the options about the run of musa-port itself
(``NOT_SETTINGS``: help, version, which settings file).

The command line wins: a value given there replaces the file's, except for the lists
that add up (``--ignore``, ``--rule``, ``--keep``, ``--suppress``...: the file's first,
then the command line's, so its rule files win); ``REPLACED`` names the lists the
command line replaces (``--arch``: one set of arches). ``check-level``, older than
``check``, says what a bare ``--check`` fails on.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import click
from click.core import ParameterSource

from ..config import COMMAND_TABLES, SIMPLE_PORTING, Config
from ..errors import PortError
from .option_values import CHECK_LEVELS, FolderOrRef
from .port_command import OPTIONAL_VALUE

NOT_SETTINGS = frozenset({"help", "help_all", "version", "config_file", "no_config",
                          "show_settings", "stdin_filename"})
REPLACED = frozenset({"arch"})
CHECK_LEVEL = "check-level"  # what a bare --check fails on (not an option of its own)
COMMAND_LINE = "command line"
DEFAULT = "default"


@dataclass(frozen=True)
class Key:
    """One key of the settings file: the option it sets, and whether its name says the
    opposite of the option's value (``keep-paths`` of ``--rename-paths/--keep-paths``,
    ``python`` of ``--no-python``)."""

    name: str
    param: click.Option
    invert: bool = False


def setting_keys(command: click.Command) -> dict[str, Key]:
    """The keys of every option of ``command`` that is a setting, in its order."""
    keys: dict[str, Key] = {}
    for p in command.params:
        if not isinstance(p, click.Option) or p.name in NOT_SETTINGS:
            continue
        for opt in p.opts:
            if opt.startswith("--"):
                keys[opt[2:]] = Key(opt[2:], p)
        for opt in p.secondary_opts:
            if opt.startswith("--"):
                keys[opt[2:]] = Key(opt[2:], p, invert=True)
        if p.is_flag and p.is_bool_flag and not p.secondary_opts:
            for opt in p.opts:
                if opt.startswith("--no-") and opt[5:] not in keys:
                    keys[opt[5:]] = Key(opt[5:], p, invert=True)
    return keys


def primary_key(p: click.Option) -> str:
    return next((o[2:] for o in p.opts if o.startswith("--")), p.name.replace("_", "-"))


@dataclass
class Resolved:
    """The values a run uses, and where each came from."""

    values: dict[str, object]  # parameter name -> value, as the command receives it
    origins: dict[str, str] = field(default_factory=dict)  # name -> "default", a file:line...
    file_parts: dict[str, tuple] = field(default_factory=dict)  # a list's items from the file
    check_level: str | None = None
    config: Config = field(default_factory=Config)

    def origin(self, name: str) -> str:
        return self.origins.get(name, DEFAULT)

    def from_command_line(self, name: str) -> bool:
        return self.origin(name) == COMMAND_LINE

    def split(self, name: str) -> tuple[tuple, tuple]:
        """A list's items from the settings file, and those from the command line."""
        items = tuple(self.values[name])
        origin = self.origin(name)
        if origin == COMMAND_LINE:
            return (), items
        if origin == DEFAULT:
            return items, ()
        first = self.file_parts.get(name, items)
        return first, items[len(first):]


def resolve(ctx: click.Context, cfg: Config, port: bool = True) -> Resolved:
    """The command line's values over the file's over the defaults; a bad key or value
    in the file is a ``PortError`` naming the file, the line and the key. ``port``: the
    port's table, which holds a few keys besides its options (and other commands'
    tables); else a command's own table (``Config.section``), its options' keys only."""
    keys = setting_keys(ctx.command)
    out = Resolved(dict(ctx.params), config=cfg)
    given: dict[str, str] = {}  # parameter name -> the key that set it
    for key, raw in cfg.table.items():
        if port and _port_key(cfg, out, key, raw):
            continue
        k = keys.get(key)
        if k is None:
            raise _unknown(cfg, key, [*keys, *([CHECK_LEVEL, SIMPLE_PORTING] if port else [])])
        if k.param.name in given:
            raise cfg.error(key, f"{given[k.param.name]!r} sets the same option; keep one")
        given[k.param.name] = key
    for name, key in given.items():
        k = keys[key]
        p = k.param
        on_line = ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
        value = _file_value(ctx, cfg, k, cfg.table[key], run_callback=not on_line or _adds(p))
        where = cfg.where(key)
        if not on_line:
            if p.expose_value:
                out.values[name] = value
            out.origins[name] = where
        elif _adds(p):
            out.file_parts[name] = tuple(value)
            out.values[name] = (*value, *out.values[name])
            out.origins[name] = f"{where} + {COMMAND_LINE}"
    for p in ctx.command.params:
        if p.name not in out.origins and ctx.get_parameter_source(p.name) == ParameterSource.COMMANDLINE:
            out.origins[p.name] = COMMAND_LINE
    return out


def _port_key(cfg: Config, out: Resolved, key: str, raw: object) -> bool:
    """Read a key of the port's table that is not an option of the port; False for
    an option's key."""
    if key == CHECK_LEVEL:
        if raw not in CHECK_LEVELS:
            raise cfg.error(key, f"must be one of {', '.join(CHECK_LEVELS)}")
        out.check_level = raw  # type: ignore[assignment]
        return True
    if key == SIMPLE_PORTING:  # SimplePorting's; checked here, used there
        cfg.simple_porting  # noqa: B018 - raises on a bad value
        return True
    if key in COMMAND_TABLES:  # another command's table, read by that command
        if not isinstance(raw, dict):
            raise cfg.error(key, "must be a table")
        return True
    return False


def _adds(p: click.Parameter) -> bool:
    """Whether the command line's items are added to the file's (not replacing them)."""
    return p.multiple and p.name not in REPLACED


def _unknown(cfg: Config, key: str, known: list[str]) -> PortError:
    import difflib  # only to name a near miss

    near = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    return PortError(f"unknown key {key!r}{hint} ('musa-port --show-settings' lists the keys)",
                     cfg.path, cfg.lines.get(key))


def _file_value(ctx: click.Context, cfg: Config, k: Key, raw: object, run_callback: bool):
    """``raw`` (as TOML read it) as the option's value: checked against what the option
    takes, converted by its type (paths relative to the file's folder), and passed to
    its callback (which checks IDs, arches...)."""
    p = k.param
    if p.is_flag and p.is_bool_flag:
        if not isinstance(raw, bool):
            raise cfg.error(k.name, "must be true or false")
        value: object = (not raw) if k.invert else raw
    else:
        bare = next((OPTIONAL_VALUE[o][0] for o in p.opts if o in OPTIONAL_VALUE), None)
        if bare is not None and isinstance(raw, bool):
            value = bare if raw else None
        elif p.multiple:
            items = [v.strip() for v in raw.split(",") if v.strip()] if isinstance(raw, str) else raw
            if not isinstance(items, list) or not all(_scalar_ok(p, v) for v in items):
                raise cfg.error(k.name, f"must be a list of {_wanted(p)}s")
            value = tuple(_convert(ctx, cfg, k, v) for v in items)
        else:
            if not _scalar_ok(p, raw):
                raise cfg.error(k.name, f"must be {_article(_wanted(p))}")
            value = _convert(ctx, cfg, k, raw)
    if run_callback and p.callback is not None:
        try:
            value = p.callback(ctx, p, value)
        except click.BadParameter as exc:
            raise cfg.error(k.name, exc.message) from None
        except PortError as exc:
            raise cfg.error(k.name, str(exc)) from None
    return value


def _wanted(p: click.Parameter) -> str:
    if isinstance(p.type, click.types.IntParamType):
        return "integer"
    if isinstance(p.type, click.types.FloatParamType):
        return "number"
    return "string"


def _article(what: str) -> str:
    return f"an {what}" if what[0] in "aeiou" else f"a {what}"


def _scalar_ok(p: click.Parameter, v: object) -> bool:
    if isinstance(v, bool):
        return False
    wanted = _wanted(p)
    if wanted == "integer":
        return isinstance(v, (int, str))
    if wanted == "number":
        return isinstance(v, (int, float, str))
    return isinstance(v, str)


def _convert(ctx: click.Context, cfg: Config, k: Key, v: object) -> object:
    try:
        value = k.param.type.convert(v, None, ctx)
    except click.BadParameter as exc:
        raise cfg.error(k.name, exc.message) from None
    if isinstance(value, str) and value != "-" and not os.path.isabs(value):
        if isinstance(k.param.type, click.Path):
            value = os.path.join(cfg.folder, value)
        elif isinstance(k.param.type, FolderOrRef) and os.path.isdir(os.path.join(cfg.folder, value)):
            value = os.path.join(cfg.folder, value)
    return value


# -- musa-port --show-settings -------------------------------------------------------------

def show_settings(ctx: click.Context, r: Resolved, shown: dict[str, object]) -> str:
    """Every setting with its value and where it came from, as lines a settings file
    could hold (``shown``: values to show instead of the raw ones, such as the colour)."""
    cfg = r.config
    where = f"{cfg.path}" if cfg.path else "no settings file"
    lines = [f"# musa-port settings for {ctx.params.get('src') or '.'} ({where}; the command "
             "line wins)"]
    rows = []
    for p in ctx.command.params:
        if not isinstance(p, click.Option) or p.name in NOT_SETTINGS:
            continue
        value = shown.get(p.name, r.values.get(p.name))
        rows.append((f"{primary_key(p)} = {_toml(value)}", r.origin(p.name)))
    level = r.check_level
    rows.append((f"{CHECK_LEVEL} = {_toml(level or 'error')}",
                  cfg.where(CHECK_LEVEL) if level else DEFAULT))
    width = min(max(len(a) for a, _ in rows), 36)
    lines += [f"{a:<{width}}  # {b}" for a, b in rows]
    return "\n".join(lines)


def _toml(value: object) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)
