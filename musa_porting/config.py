"""A project's musa-port settings: ``[tool.musa-port]`` in ``pyproject.toml``, or a
``.musa-port.toml`` (the same keys at its top level).

The nearest one wins, searched from SRC's folder upwards, as ruff does: in one folder
``.musa-port.toml`` comes before ``pyproject.toml``, and the search stops at the first
``pyproject.toml`` (the project's root, with or without the table) and at the root of
the repository (a folder holding ``.git``), so a settings file in a shared folder
above a project is never obeyed. A settings file found this way that another user may
change (owned by someone else than the user running musa-port or root, or writable by
others) is ignored with a warning: it could inject rules into the ported code.

This module reads the file and knows where each key stands in it; which keys exist and
what their values mean is the command's business (``cli/settings.py`` derives them
from the options of ``musa-port``, so that every option is a setting under its own
name). Paths in the file are relative to its folder.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, field

from .errors import PortError
from .safe_open import read_regular

FILE_NAMES = (".musa-port.toml", "pyproject.toml")
TABLE = "tool.musa-port"
# A key for SimplePorting only (docs/simple-porting.md): torch_musa's tree by default, or
# musa-port's whole port; the command line has no such option.
SIMPLE_PORTING = "simple-porting"
SIMPLE_PORTING_MODES = ("compatible", "extended")
# Tables of the settings of other commands than the port, under their name:
# ``[tool.musa-port.verify]`` (``[verify]`` in a .musa-port.toml) for ``musa-port verify``.
COMMAND_TABLES = ("verify",)


@dataclass
class Config:
    """The settings of one file, as the file gives them (empty when there is none):
    ``table`` holds the values TOML read, ``lines`` the line of each key."""

    path: str | None = None
    table: dict[str, object] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # settings files passed over, and why
    # The line of each key of a command's table (COMMAND_TABLES): table -> key -> line.
    section_lines: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()

    @property
    def simple_porting(self) -> str | None:
        """SimplePorting's mode, when the file sets it (a bad value names file and line)."""
        value = self.table.get(SIMPLE_PORTING)
        if value is not None and value not in SIMPLE_PORTING_MODES:
            raise self.error(SIMPLE_PORTING, f"must be one of {', '.join(SIMPLE_PORTING_MODES)}")
        return value

    def where(self, key: str) -> str:
        """``pyproject.toml:12``: where the key is set (the file alone when the line is
        not known)."""
        line = self.lines.get(key)
        return f"{self.path}:{line}" if line else str(self.path)

    def section(self, name: str) -> Config:
        """The settings of command ``name`` (``[tool.musa-port.NAME]``), as a Config of
        their own: the same file, its table's keys and lines."""
        table = self.table.get(name, {})
        if not isinstance(table, dict):
            raise self.error(name, "must be a table")
        return Config(self.path, dict(table), self.section_lines.get(name, {}), self.warnings)

    def error(self, key: str, message: str) -> PortError:
        """The one-line error of a bad value: the file, the key's line, the key."""
        return PortError(f"{key}: {message}", self.path, self.lines.get(key))


def _toml():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.9 and 3.10
        import tomli as tomllib
    return tomllib


def _parse(path: str, data: bytes) -> dict:
    toml = _toml()
    try:
        return toml.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PortError(f"not UTF-8: {exc.reason}", path) from None
    except toml.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
        if m:
            raise PortError(msg[: m.start()], path, int(m.group(1)), int(m.group(2))) from None
        raise PortError(msg, path) from None


def _table_of(path: str, data: bytes) -> dict | None:
    doc = _parse(path, data)
    if os.path.basename(path) != "pyproject.toml":
        return doc
    tool = doc.get("tool", {})
    table = tool.get("musa-port") if isinstance(tool, dict) else None  # `tool = "x"`: none
    if table is not None and not isinstance(table, dict):
        raise PortError("[tool] musa-port must be a table", path)
    return table


def find_config(start: str, warnings: list[str] | None = None) -> str | None:
    """The nearest settings file at or above ``start`` (a folder, or a file's folder),
    up to the project's root (see the module docstring); ``warnings`` gets the files
    passed over because another user may change them."""
    folder = os.path.abspath(start)
    if not os.path.isdir(folder):
        folder = os.path.dirname(folder)
    notes = warnings if warnings is not None else []
    while True:
        for name in FILE_NAMES:
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            if name == "pyproject.toml":  # the project's root: the search ends here
                return path if _trusted(path, notes) and _mentions_table(path) else None
            if _trusted(path, notes):
                return path
        parent = os.path.dirname(folder)
        if parent == folder or os.path.lexists(os.path.join(folder, ".git")):
            return None
        folder = parent


def _trusted(path: str, warnings: list[str]) -> bool:
    """Whether only the user running musa-port (or root) can change the file."""
    if not hasattr(os, "geteuid"):
        return True  # Windows: no owners to compare
    st = os.stat(path)
    if st.st_uid not in (os.geteuid(), 0):
        why = f"owned by another user (uid {st.st_uid})"
    elif st.st_mode & stat.S_IWOTH:
        why = "writable by every user"
    else:
        return True
    warnings.append(f"{path}: warning: settings ignored: {why}; anyone who can change it "
                    "could change what the port writes (use --config FILE to read it anyway)")
    return False


def _mentions_table(path: str) -> bool:
    try:
        data = read_regular(path, follow=True)
    except OSError:
        return False
    return b"musa-port" in data and _table_of(path, data) is not None


def _lines_of(text: str, keys, pyproject: bool, section: str | None = None) -> dict[str, int]:
    """The line of each key: in a pyproject.toml, from the ``[tool.musa-port]`` header on
    (a ``name =`` of ``[project]`` is not ours); a command's keys from its table's header."""
    start = 0
    parts = [*(["tool", "musa-port"] if pyproject else []), *([section] if section else [])]
    if parts:
        dotted = r"[ \t]*\.[ \t]*".join(f'"?{re.escape(p)}"?' for p in parts)
        m = re.search(rf"^[ \t]*\[[ \t]*{dotted}[ \t]*\]", text, re.M)
        start = m.end() if m else 0
    out = {}
    for key in keys:
        m = re.compile(rf'^[ \t]*["\']?{re.escape(key)}["\']?[ \t]*=', re.M).search(text, start)
        if m:
            out[key] = text.count("\n", 0, m.start()) + 1
    return out


def load_config(path: str) -> Config:
    """Read one settings file (errors name the file and, where known, the line)."""
    try:
        data = read_regular(path, follow=True)
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", path) from None
    table = _table_of(path, data) or {}
    text = data.decode("utf-8")
    pyproject = os.path.basename(path) == "pyproject.toml"
    lines = _lines_of(text, table, pyproject)
    sections = {name: _lines_of(text, table[name], pyproject, name) for name in COMMAND_TABLES
                if isinstance(table.get(name), dict)}
    return Config(path, dict(table), lines, section_lines=sections)


def project_config(start: str, explicit: str | None = None, enabled: bool = True) -> Config:
    """The config for a port of ``start``: ``explicit`` (``--config FILE``), else the
    nearest one, else none (also with ``enabled=False``, ``--no-config``)."""
    if explicit is not None:
        if not os.path.exists(explicit):
            raise PortError("config file not found", explicit)
        return load_config(explicit)
    if not enabled:
        return Config()
    warnings: list[str] = []
    path = find_config(start, warnings)
    cfg = load_config(path) if path else Config()
    cfg.warnings = warnings
    return cfg
