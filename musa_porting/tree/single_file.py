"""Porting files one at a time, outside a tree walk: ``musa-port x.cu`` (the port to
stdout or ``-o FILE``, as hipify-perl does) and ``SimplePorting.modify_file``.

A file is ported by its kind's port function with the run's rules, exactly as in a
tree port, so the bytes are the same; what a lone file cannot have is the tree around
it. Includes follow renames among the files of the folder given as its tree (for the
command line, the file's own folder), and the tree's own CUDA-named symbols are not
renamed, since that needs the whole tree's definitions.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field

from ..analyze.checks import Diagnostic
from ..errors import PortError
from ..port.cxx.includes import IncludeResolver
from ..port.filenames import RENAMES, REVERSE_RENAMES, ported_name
from ..write.files import read_file
from .active_rules import ActiveRules, load_active_rules
from .kinds import KindSelector
from .options import PortOptions
from .ported import FileContext
from .porters import PORTERS
from .unported import not_text
from .vocabulary import run_vocabulary


@dataclass
class FilePort:
    """One ported file: its new bytes (the input's when it is copied), the name it
    would have in a tree port, and what was found."""

    data: bytes
    out_name: str
    kind: str | None  # None: not a kind musa-port ports (copied as it is)
    edits: int = 0
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class FilePorter:
    """Ports single files with one set of rules, loaded on first use.

    ``root`` is the folder whose files count as the file's tree, for includes that
    follow renames (``#include "k.cuh"`` -> ``"k.muh"``); ``recursive`` lists it
    with its subfolders (a SimplePorting tree) or alone (a file on the command line).
    """

    def __init__(self, opts: PortOptions, root: str | None = None, recursive: bool = False):
        self.opts = opts
        self.root = root
        self.recursive = recursive
        self.kinds = KindSelector.from_options(opts)
        self.renames = dict(opts.renames) if opts.renames is not None else (
            REVERSE_RENAMES if opts.reverse else RENAMES)
        self._rules: ActiveRules | None = None
        self._tree: tuple[list[str], dict[str, str]] | None = None

    def rules(self) -> ActiveRules:
        if self._rules is None:
            self._rules = load_active_rules(self.opts, vocabulary=run_vocabulary(self.opts))
        return self._rules

    def _tree_files(self, root: str) -> tuple[list[str], dict[str, str]]:
        if self._tree is None:
            files: list[str] = []
            if self.recursive:
                for dirpath, dirnames, names in os.walk(root):
                    dirnames.sort()
                    rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
                    files += [n if rel_dir == "." else f"{rel_dir}/{n}" for n in sorted(names)]
            else:
                files = sorted(n for n in os.listdir(root) if os.path.isfile(os.path.join(root, n))) \
                    if os.path.isdir(root) else []  # standard input named into no folder
            out = {rel: self.out_rel(rel) for rel in files}
            self._tree = (files, out)
        return self._tree

    def out_rel(self, rel: str) -> str:
        """The output path a tree port gives ``rel`` (its folders keep their names)."""
        head, name = posixpath.split(rel)
        if self.opts.file_name is not None:
            new = self.opts.file_name(name)
        elif self.kinds.kind_of(rel) is not None:
            new = ported_name(name, self.renames)
        else:
            new = name
        return posixpath.join(head, new) if head else new

    def port(self, path: str, data: bytes | None = None) -> FilePort:
        """Port the file at ``path`` (raises PortError when it cannot be read), or
        ``data`` as the file at ``path`` (standard input: the path need not exist, and its
        folder's files are its tree when it does)."""
        if data is None and os.path.isdir(path):
            raise PortError("is a folder, not a file", path)
        root = self.root if self.root is not None else os.path.dirname(os.path.abspath(path))
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
        if rel.startswith("../"):
            root, rel = os.path.dirname(os.path.abspath(path)), os.path.basename(path)
        if data is None:
            data = read_file(path, follow=True)  # the file the user named, a link or not
        kind = self.kinds.kind_of(rel)
        if kind is None and self.kinds.may_sniff(rel):
            kind = self.kinds.sniff(data, rel)
        out_name = posixpath.basename(self.out_rel(rel))
        if kind is None:  # not a kind we port: as it is
            return FilePort(data, out_name, None)
        if not_text(data):  # as it is, under its own name, as in a tree port
            return FilePort(data, posixpath.basename(rel), None)
        files, out_rel_of = self._tree_files(root)
        if rel not in out_rel_of:
            files, out_rel_of = [*files, rel], {**out_rel_of, rel: self.out_rel(rel)}
        resolver = IncludeResolver(files, (), self.renames, out_rel_of)
        ctx = FileContext(rel, self.rules(), resolver, out_rel_of, self.opts)
        ported = PORTERS[kind](data, ctx)
        warnings = [f"{path}:{line}: {msg}" for line, msg in ported.warnings]
        return FilePort(ported.data, out_name, kind, len(ported.edits), list(ported.diagnostics),
                        warnings)
