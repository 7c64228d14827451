"""A project's musa-port settings: ``[tool.musa-port]`` in ``pyproject.toml``, or a
``.musa-port.toml`` (the same keys at its top level).

The nearest one wins, searched from SRC's folder upwards, as ruff does: in one folder
``.musa-port.toml`` comes before ``pyproject.toml``, and the search stops at the first
``pyproject.toml`` (the project's root, with or without the table) and at the root of
the repository (a folder holding ``.git``), so a settings file in a shared folder
above a project is never obeyed. A settings file found this way that another user may
change (owned by someone else than the user running musa-port or root, or writable by
others) is ignored with a warning: it could inject rules into the ported code. Paths
in it are relative to its folder. The keys are the command-line options they stand for::

    [tool.musa-port]
    ignore = ["common/mlu", "parrots"]      # --ignore
    rule = ["musa_rules.json"]              # --rule
    keep = ["cudaLaunchCooperativeKernel"]  # --keep
    suppress = ["MP2002"]                   # --suppress
    disable-family = ["nccl"]               # --disable-family
    enable-family = []                      # --enable-family
    check-level = "warning"                 # what a bare --check fails on
    rename-paths = false                    # --keep-paths (true: --rename-paths)
    vendor-word = "mthreads"                # --vendor-word

Command-line flags win: list values are added to (rule files after the config's, so
theirs win), a family switched by a flag overrides the config, ``--check=LEVEL``
overrides ``check-level`` and ``--rename-paths``/``--keep-paths`` ``rename-paths``.
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
LIST_KEYS = ("ignore", "rule", "keep", "suppress", "disable-family", "enable-family")
CHECK_LEVELS = ("error", "warning")
FLAG_KEYS = ("rename-paths",)
STRING_KEYS = ("vendor-word",)
KEYS = (*LIST_KEYS, "check-level", *FLAG_KEYS, *STRING_KEYS)


@dataclass
class Config:
    """The settings of one file (empty when there is none)."""

    path: str | None = None
    values: dict[str, list[str]] = field(default_factory=dict)
    check_level: str | None = None
    flags: dict[str, bool] = field(default_factory=dict)
    strings: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # settings files passed over, and why

    def flag(self, key: str, default: bool) -> bool:
        return self.flags.get(key, default)

    def value(self, key: str, default: str) -> str:
        return self.strings.get(key, default)

    @property
    def folder(self) -> str:
        return os.path.dirname(self.path) if self.path else os.getcwd()

    def get(self, key: str) -> list[str]:
        return list(self.values.get(key, ()))

    def rule_files(self) -> list[str]:
        return [p if os.path.isabs(p) else os.path.join(self.folder, p) for p in self.get("rule")]


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


def _line_of(text: str, key: str) -> int | None:
    m = re.search(rf'^[ \t]*"?{re.escape(key)}"?[ \t]*=', text, re.M)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load_config(path: str) -> Config:
    """Read and check one config file (errors name the file and, where known, the line)."""
    try:
        data = read_regular(path, follow=True)
    except OSError as exc:
        raise PortError(f"cannot read: {exc.strerror or exc}", path) from None
    table = _table_of(path, data) or {}
    text = data.decode("utf-8")
    cfg = Config(path)
    for key, value in table.items():
        line = _line_of(text, key)
        if key not in KEYS:
            import difflib  # only to name a near miss

            near = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise PortError(f"unknown key {key!r}{hint} (known: {', '.join(KEYS)})", path, line)
        if key == "check-level":
            if value not in CHECK_LEVELS:
                raise PortError(f"check-level must be one of {', '.join(CHECK_LEVELS)}", path, line)
            cfg.check_level = value
            continue
        if key in FLAG_KEYS:
            if not isinstance(value, bool):
                raise PortError(f"{key} must be true or false", path, line)
            cfg.flags[key] = value
            continue
        if key in STRING_KEYS:
            if not isinstance(value, str):
                raise PortError(f"{key} must be a string", path, line)
            cfg.strings[key] = value
            continue
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PortError(f"{key} must be a list of strings", path, line)
        cfg.values[key] = value
    return cfg


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
