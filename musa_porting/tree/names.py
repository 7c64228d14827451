"""Output names: where each input of the tree goes in the output tree.

Source files change their extension (``.cu`` -> ``.mu``); everything else keeps its
name. With ``--rename-paths`` the vocabulary words in folder names and in the names
of source files change too (``csrc/cuda/gemm_cuda.cu`` -> ``csrc/musa/gemm_musa.mu``).
Names are decided top-down, a folder before what it holds, so a file inherits its
folder's new name; a new name that another input already has (a tree with both
``cuda/`` and ``musa/``) is not taken, and a warning says so. A source whose new name
is a file beside it that keeps its name (``x.cuh`` beside a hand-written ``x.muh``) is
not ported: that file is the user's MUSA version, and includes of ``x.cuh`` follow to it.
No input is renamed onto musa-port's own names at the output's top (a source folder
``.cuda-port/`` would become its state folder ``.musa-port/``): it keeps its name.
A vendored Thrust, CUB or libcu++ (``tree/vendored.py``) keeps every name: MUSA keeps
those libraries' file names (muAlg's ``util_arch.cuh``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..errors import PortError
from ..port.filenames import ported_name
from ..rules.vocabulary import Vocabulary
from ..write.manifest import RESERVED_NAMES, Manifest
from .kinds import KindSelector
from .python_modules import kept_modules
from .twins import resolve_twins
from .unported import keep_unported_names
from .vendored import in_library
from .walk import Entry

NAME_MAX = 255  # bytes in one file name: Linux, macOS and Windows file systems alike


def _too_long(name: str) -> bool:
    """A file name the file system cannot hold. Checked for every output before
    anything is written: found at the commit, it would stop a run half done."""
    return len(name) > NAME_MAX // 4 and len(os.fsencode(name)) > NAME_MAX


def _renamed_component(name: str, vocabulary: Vocabulary) -> str:
    """A folder or file name with its vocabulary words replaced (dots separate parts:
    ``foo.cuda.cpp`` -> ``foo.musa.cpp``; the extension itself is not a word)."""
    stem, dot, ext = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    new = vocabulary.rename(stem)
    return name if new is None else new + dot + ext


def output_names(src: str, entries: list[Entry], kinds: KindSelector, renames: Mapping[str, str],
                 vocabulary: Vocabulary | None, warnings: list[str],
                 superseded: dict[str, str] | None = None,
                 file_name: Callable[[str], str] | None = None,
                 libraries: frozenset[str] = frozenset(),
                 users: Callable[[str], bool] | None = None,
                 rename_exported: bool = False) -> dict[str, str]:
    """Each input's output path (inputs in walk order: a folder before its contents).
    ``vocabulary`` is given for --rename-paths; ``file_name`` replaces the extension
    renames for every file; in the ``libraries`` folders (vendored copies of libraries
    MUSA keeps) nothing is renamed.

    Two inputs may not share an output, except a file and its MUSA twin (``twins.py``):
    ``x.cuh`` beside ``x.muh``, ``foo_cuda.cu`` beside ``foo_musa.cu``,
    ``cuda/roi_cuda.cu`` and ``musa/roi_musa.mu`` (a folder renamed onto a folder the
    tree already has is merged into it). The renamed one is left out, recorded in
    ``superseded`` (rel -> the twin's rel, or OUT's path when ``users`` says a file of
    the user's in the output is its twin). Without ``superseded``, or when neither of
    two files is the other's twin, the renamed one keeps its own name (a warning says so).
    Python modules other code imports by name keep theirs (``python_modules.py``;
    ``rename_exported`` renames the public ones too).
    """
    # The paths are the walk's (no "." or "..", no doubled or trailing "/"): split and
    # joined as strings, which a large tree's re-run notices.
    out_rel_of: dict[str, str] = {}
    rank: dict[str, int] = {}
    plain: dict[str, str] = {}  # the output name without vocabulary renames
    renamed: dict[str, str] = {}  # a name's vocabulary renaming (folders repeat)
    kept = kept_modules(entries, kinds.python, rename_exported) if vocabulary is not None \
        else frozenset()
    for e in entries:
        parent, _, name = e.rel.rpartition("/")
        out_parent = out_rel_of.get(parent, parent) if parent else ""
        ported_kind = e.kind == "dir" or kinds.kind_of(e.rel) is not None
        vendored = bool(libraries) and in_library(e.rel, libraries)
        if vendored:
            name_out = name
        elif e.kind != "dir" and file_name is not None:
            name_out = file_name(name)
        elif e.kind != "dir" and ported_kind:
            name_out = ported_name(name, renames)
        else:
            name_out = name
        plain[e.rel] = f"{out_parent}/{name_out}" if out_parent else name_out
        r = rank.get(parent, 0) if parent else 0
        if name_out != name:
            r = max(r, 1)
        if vocabulary is not None and ported_kind and not vendored and e.rel not in kept:
            wanted = renamed.get(name_out)
            if wanted is None:
                wanted = renamed[name_out] = _renamed_component(name_out, vocabulary)
            if wanted != name_out and _too_long(wanted):
                warnings.append(f"{e.rel}: warning: not renamed to {wanted}: a name of "
                                f"{len(os.fsencode(wanted))} bytes, over the file system's "
                                f"{NAME_MAX}")
            elif wanted != name_out:
                name_out, r = wanted, 2
        if not parent and name_out != name and name_out in RESERVED_NAMES:
            warnings.append(f"{e.rel}: warning: not renamed to {name_out}: musa-port's own "
                            "name in the output folder; it keeps its name")
            name_out, r = name, 0
        if _too_long(name_out):
            raise PortError(f"{e.rel}: its output name {name_out} would be "
                            f"{len(os.fsencode(name_out))} bytes, over the file system's "
                            f"{NAME_MAX}", src)
        rank[e.rel] = r
        out_rel_of[e.rel] = f"{out_parent}/{name_out}" if out_parent else name_out
    resolve_twins(src, entries, out_rel_of, plain, rank, warnings, superseded, users)
    owner: dict[str, str] = {}
    for e in entries:
        if superseded is not None and e.rel in superseded:
            continue
        o = out_rel_of[e.rel]
        if e.kind == "dir":
            continue  # a folder renamed onto one the tree has is merged into it
        if o in owner:
            raise PortError(f"both {owner[o]} and {e.rel} would be written to {o}", src)
        if o in RESERVED_NAMES:
            raise PortError(f"{e.rel} would overwrite musa-port's own {o}", src)
        owner[o] = e.rel
    for rel, keeper in (superseded or {}).items():
        out_rel_of[rel] = out_rel_of.get(keeper, keeper)
    return out_rel_of


@dataclass
class Named:
    """Where a tree's inputs go: each input's output path, the inputs to port (those a
    MUSA twin stands for left out), those left out (still read by the symbol index),
    the twins copied as they are, the output folders (one per output path) and the
    sources that keep their own names because they are not text."""

    out_rel_of: dict[str, str]
    entries: list[Entry]
    twinned: list[Entry]
    verbatim: frozenset[str]
    dirs: list[Entry]
    unported: list[str]


# How a file left out for its MUSA version shows among the ignored.
SUPERSEDED = "(its MUSA version is in the tree)"


def name_tree(src: str, entries: list[Entry], kinds: KindSelector, renames: Mapping[str, str],
              vocabulary: Vocabulary | None, result, file_name: Callable[[str], str] | None,
              libraries: frozenset[str], users: Callable[[str], bool] | None,
              old: Manifest, rename_exported: bool = False) -> Named:
    """The names of a run (``result``, its PortResult, gets the warnings, the inputs left
    for their twins and the renamed paths; ``old``, the last run's manifest, says which
    sources were not text when they are as it saw them)."""
    superseded: dict[str, str] = {}  # x.cuh -> the user's x.muh beside it
    out_rel_of = output_names(src, entries, kinds, renames, vocabulary, result.warnings,
                              superseded, file_name, libraries, users, rename_exported)
    files = {e.rel for e in entries if e.kind != "dir"}
    kept = [e for e in entries if e.rel not in superseded]
    unported = keep_unported_names(src, kept, out_rel_of, kinds, old)
    result.renamed_paths = renamed_paths(out_rel_of, renames)
    result.ignored.update({rel: SUPERSEDED for rel in superseded})
    # A folder renamed onto one the tree has (cuda/ onto musa/) is one output folder.
    dirs = list({out_rel_of[e.rel]: replace(e, rel=out_rel_of[e.rel])
                 for e in kept if e.kind == "dir"}.values())
    return Named(out_rel_of, kept, [e for e in entries if e.rel in superseded],
                 frozenset(superseded.values()) & files, dirs, unported)


def renamed_paths(out_rel_of: Mapping[str, str], renames: Mapping[str, str]) -> dict[str, str]:
    """The inputs whose own name changed beyond the extension renames (``csrc/cuda`` ->
    ``csrc/musa``, ``gemm_cuda.cu`` -> ``gemm_musa.mu``), with their output paths: what a
    build file outside SRC that names them must follow."""
    out = {}
    for rel, o in out_rel_of.items():
        old, new = posixpath.basename(rel), posixpath.basename(o)
        if new != old and new != ported_name(old, renames):
            out[rel] = o
    return dict(sorted(out.items()))
