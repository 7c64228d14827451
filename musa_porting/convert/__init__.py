"""Converting a project's Python files in place: the library under ``musa-converter``
(torch_musa's second tool, section 10.2 of its manual), made safe.

    from musa_porting.convert import ConvertOptions, convert
    result = convert(ConvertOptions("./yolov5", launch=["./yolov5/train.py"]))

Every file is planned first (read, ported, checked against git); only then is
anything written, so a refusal leaves the project as it was. The porting itself is
musa-port's Python porter (``port/python``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..analyze.checks import Diagnostic
from ..errors import PortError
from ..port.python import PathMap, port_python, python_rules
from ..safe_open import read_regular
from ..tree.result import DiffItem
from ..write.files import replace_atomically
from ..write.manifest import MANIFEST_NAME
from . import safety
from .ported_trees import find_ported_trees

_SKIP_DIRS = frozenset({"__pycache__", "node_modules"})


@dataclass
class ConvertOptions:
    """The manual's flags (``-r``, ``-l``, ``-e``) and the safety switches."""

    root: str  # a .py file or a folder
    launch: Sequence[str] = ()  # files that get `import torch_musa`
    excluded: Sequence[str] = ()  # files or folders to leave alone
    force: bool = False  # convert files with uncommitted changes too
    backup: bool = True  # .orig copies of files git does not hold
    dry_run: bool = False
    collect_diff: bool = False


@dataclass
class Converted:
    """One file that converting changes (or would)."""

    path: str  # absolute
    rel: str  # relative to the base folder (the root, or the root file's folder)
    old: bytes
    new: bytes
    mode: int
    replacements: int
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)
    backup: str | None = None


@dataclass
class ConvertResult:
    base: str
    scanned: int = 0
    files: list[Converted] = field(default_factory=list)  # every file with changes or findings
    written: int = 0
    dry_run: bool = False

    @property
    def changed(self) -> list[Converted]:
        return [f for f in self.files if f.new != f.old]

    @property
    def diff_items(self) -> list[DiffItem]:
        return [DiffItem(f.rel, f.rel, f.old, f.new, f.mode) for f in self.changed]


def convert(opts: ConvertOptions) -> ConvertResult:
    """Convert ``opts.root`` in place (see the module docstring)."""
    root = os.path.abspath(opts.root)
    if not os.path.exists(root):
        raise PortError("root path not found", opts.root)
    base = root if os.path.isdir(root) else os.path.dirname(root)
    excluded = [_existing(p, base) for p in opts.excluded]
    files = _python_files(_linked_file(root, base), excluded)
    launch = {_linked_file(_existing(p, base), base) for p in opts.launch}
    for p in sorted(launch):
        if not os.path.isfile(p):
            raise PortError("launch file not found", p)
        if p not in files:
            raise PortError("launch file is not among the files converted (under the root "
                            "path, not excluded)", p)
    trees, renames, modules = find_ported_trees(base)
    rules = python_rules(renames, PathMap(trees) if trees else None, extensions=modules)
    result = ConvertResult(base, scanned=len(files), dry_run=opts.dry_run)
    for path in files:
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        try:
            data = read_regular(path, follow=True)  # never a FIFO's or a device's bytes
        except OSError as exc:
            raise PortError(f"cannot read: {exc.strerror or exc}", path) from None
        if b"\0" in data:
            continue
        folder = os.path.dirname(rel)
        p = port_python(data, rules, bases=(folder, "") if folder else ("",),
                        launch=path in launch, module=rel)
        if p.data != data or p.diagnostics or p.warnings:
            result.files.append(Converted(path, rel, data, p.data, os.stat(path).st_mode & 0o7777,
                                          len(p.edits), p.diagnostics, p.warnings))
    changed = result.changed
    if not changed or opts.dry_run:
        return result
    states = safety.git_states([f.path for f in changed])
    unsafe = [f for f in changed if states[f.path] in (safety.DIRTY, safety.UNTRACKED)]
    if unsafe and not opts.force:
        names = ", ".join(f.rel for f in unsafe[:3]) + (" ..." if len(unsafe) > 3 else "")
        what = "has" if len(unsafe) == 1 else f"and {len(unsafe) - 1} more have"
        raise PortError(f"{names} {what} changes git does not hold (uncommitted or untracked); "
                        "commit or stash them first, or use --force", unsafe[0].path)
    for f in changed:
        if not os.access(os.path.dirname(f.path), os.W_OK) or not os.access(f.path, os.W_OK):
            raise PortError("cannot write: Permission denied", f.path)
    for f in changed:  # every backup before any file is replaced
        if opts.backup and states[f.path] != safety.CLEAN:
            f.backup = safety.write_backup(f.path)
    for f in changed:
        replace_atomically(f.path, f.new, f.mode)
        result.written += 1
    return result


def _linked_file(path: str, base: str) -> str:
    """The file a link names, when it is a link to a file in ``base`` (the folder of
    the file the user named): that file is converted and the link kept (replacing the
    link with a converted copy left the real script unconverted). A link that leads
    out of ``base`` is refused: converting a file elsewhere is not asked for."""
    if not os.path.islink(path) or not os.path.isfile(path):
        return path
    real = os.path.realpath(path)
    home = os.path.realpath(base)
    if not real.startswith(home.rstrip(os.sep) + os.sep):
        raise PortError(f"a link to {real}, outside {base}: convert that file itself "
                        f"(musa-converter -r {real}), or copy it here", path)
    return real


def _existing(path: str, base: str) -> str:
    """A path the user gave: relative to the current folder, or else to the base."""
    a = os.path.abspath(path)
    if not os.path.exists(a) and os.path.exists(os.path.join(base, path)):
        a = os.path.abspath(os.path.join(base, path))
    return a


def _python_files(root: str, excluded: Sequence[str]) -> list[str]:
    """The .py files to convert: ``root`` itself, or every .py file under it, in path
    order, except excluded paths, hidden folders, links, and musa-port's output trees
    (musa-port writes those)."""

    def is_excluded(p: str) -> bool:
        return any(p == e or p.startswith(e.rstrip(os.sep) + os.sep) for e in excluded)

    if os.path.isfile(root):
        return [] if is_excluded(root) else [root]
    out = []
    for folder, dirs, names in os.walk(root):
        if MANIFEST_NAME in names and folder != root:
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS
                         and not is_excluded(os.path.join(folder, d)))
        for name in sorted(names):
            p = os.path.join(folder, name)
            if name.endswith(".py") and not os.path.islink(p) and not is_excluded(p):
                out.append(p)
    return sorted(out)
