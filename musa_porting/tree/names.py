"""Output names: where each input of the tree goes in the output tree.

Source files change their extension (``.cu`` -> ``.mu``); everything else keeps its
name. With ``--rename-paths`` the vocabulary words in folder names and in the names
of source files change too (``csrc/cuda/gemm_cuda.cu`` -> ``csrc/musa/gemm_musa.mu``).
Names are decided top-down, a folder before what it holds, so a file inherits its
folder's new name; a new name that another input already has (a tree with both
``cuda/`` and ``musa/``), that the file system cannot hold or that is musa-port's own is
not taken, and a finding says so (MP0001, MP0003): one input's name never stops the
run. A source whose new name is a file that keeps its own name (``x.cuh`` beside a
hand-written ``x.muh``, ``x-cuda/cuda.h`` beside ``x-cuda/musa.h`` when ``x-cuda/`` becomes
``x-musa/``) is not ported: that file is the user's MUSA version, includes of the CUDA
file follow to it, and a finding names both (MP0002).
A vendored Thrust, CUB or libcu++ (``tree/vendored.py``) keeps every name: MUSA keeps
those libraries' file names (muAlg's ``util_arch.cuh``).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ..port.filenames import ported_name
from ..rules.vocabulary import Vocabulary
from ..write.manifest import RESERVED_NAMES, Manifest
from .collisions import unique_outputs
from .input_findings import FOLDER, NOT_PORTED, InputFinding
from .kinds import KindSelector
from .python_modules import kept_modules
from .twins import resolve_twins, users_file
from .unported import keep_unported_names
from .vendored import in_library
from .walk import Entry

NAME_MAX = 255  # bytes in one file name: Linux, macOS and Windows file systems alike


def _too_long(name: str, limit: int = NAME_MAX) -> bool:
    """A file name the file system cannot hold. Checked for every output before
    anything is written: found at the commit, it would stop a run half done."""
    return len(name) > limit // 4 and len(os.fsencode(name)) > limit


def name_max(out: str) -> int:
    """The longest file name (in bytes) the output folder's file system holds: 255, or
    less where it says so (eCryptfs: 143), asked of the nearest folder that exists."""
    path = os.path.abspath(out)
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        n = os.pathconf(path, "PC_NAME_MAX")
    except (OSError, ValueError):
        return NAME_MAX
    return min(n, NAME_MAX) if n > 0 else NAME_MAX


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
                 findings: list[InputFinding] | None = None,
                 set_aside: dict[str, str] | None = None, limit: int = NAME_MAX,
                 rename_exported: bool = False) -> dict[str, str]:
    """Each input's output path (inputs in walk order: a folder before its contents).
    ``vocabulary`` is given for --rename-paths; ``file_name`` replaces the extension
    renames for every file; in the ``libraries`` folders (vendored copies of libraries
    MUSA keeps) nothing is renamed.

    Two inputs never share an output, and none lands on musa-port's own names: a file
    and its MUSA twin (``twins.py``: ``x.cuh`` beside ``x.muh``, ``foo_cuda.cu`` beside
    ``foo_musa.cu``, ``cuda/roi_cuda.cu`` and ``musa/roi_musa.mu``, ``x-cuda/cuda.h`` and
    ``x-cuda/musa.h`` when ``x-cuda/`` becomes ``x-musa/``; a folder renamed onto a folder
    the tree already has is merged into it) leaves the CUDA one out, recorded in
    ``superseded`` (rel -> the twin's rel, or OUT's path when ``users`` says a file of the
    user's in the output is its twin); any other input that cannot have its new name
    keeps a name of its own (``collisions.py``), or is recorded in ``set_aside`` (rel ->
    why) when none is free; so is one whose own name is over ``limit`` bytes (the output
    file system's longest name). Each is said in ``findings`` (in ``warnings`` as text
    without it): never an error, so one input never stops the run. Python modules other
    code imports by name keep theirs (``python_modules.py``; ``rename_exported`` renames
    the public ones too).
    """
    say = _sayer(warnings, findings)
    # The paths are the walk's (no "." or "..", no doubled or trailing "/"): split and
    # joined as strings, which a large tree's re-run notices.
    out_rel_of: dict[str, str] = {}
    rank: dict[str, tuple[int, int]] = {}  # (its own name's change, its path's: twins.py)
    plain: dict[str, str] = {}  # the output name without vocabulary renames
    renamed: dict[str, str] = {}  # a name's vocabulary renaming (folders repeat)
    aside: dict[str, str] = set_aside if set_aside is not None else {}
    siblings = {e.rel for e in entries if e.kind != "dir"}  # what a folder's rename may not take
    kept = kept_modules(entries, kinds.python, rename_exported) if vocabulary is not None \
        else frozenset()
    for e in entries:
        parent, _, name = e.rel.rpartition("/")
        if parent in aside:
            aside[e.rel] = aside[parent]
            continue
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
        path_r = rank.get(parent, (0, 0))[1] if parent else 0
        kind = FOLDER if e.kind == "dir" else NOT_PORTED
        own_r = 1 if name_out != name else 0
        if vocabulary is not None and ported_kind and not vendored and e.rel not in kept:
            wanted = renamed.get(name_out)
            if wanted is None:
                wanted = renamed[name_out] = _renamed_component(name_out, vocabulary)
            if wanted != name_out and _too_long(wanted, limit):
                say(e.rel, "MP0003", f"not renamed to {wanted}: a name of "
                    f"{len(os.fsencode(wanted))} bytes, over the file system's {limit}",
                    kind=kind)
            elif wanted != name_out and e.kind == "dir" and (
                    f"{parent}/{wanted}" if parent else wanted) in siblings:
                say(e.rel, "MP0001", f"folder not renamed to {wanted}: the file "
                    f"{posixpath.join(parent, wanted)} has that name", kind=kind)
            elif wanted != name_out and not parent and wanted in RESERVED_NAMES:
                say(e.rel, "MP0003", f"not renamed to {wanted}: musa-port's own name", kind=kind)
            elif wanted != name_out:
                name_out, own_r = wanted, 2
        if name_out != name and not _too_long(name, limit) and (
                _too_long(name_out, limit) or (not parent and name_out in RESERVED_NAMES)):
            why = (f"a name of {len(os.fsencode(name_out))} bytes, over the file system's "
                   f"{limit}") if _too_long(name_out, limit) else "musa-port's own name"
            say(e.rel, "MP0003", f"kept its own name, not {name_out}: {why}", kind=kind)
            name_out, own_r = name, 0
            plain[e.rel] = f"{out_parent}/{name}" if out_parent else name
        if _too_long(name_out, limit):  # and so is its own name
            aside[e.rel] = (f"its name of {len(os.fsencode(name))} bytes is over the output "
                            f"file system's {limit}")
            say(e.rel, "MP0003", f"not ported: {aside[e.rel]}", severity="error")
            continue
        rank[e.rel] = (own_r, max(path_r, own_r))
        out_rel_of[e.rel] = f"{out_parent}/{name_out}" if out_parent else name_out
    named = [e for e in entries if e.rel not in aside]
    resolve_twins(src, named, out_rel_of, plain, rank, say, superseded, users)
    unique_outputs(named, out_rel_of, plain, rank, superseded or {}, aside, say)
    for rel in aside:
        out_rel_of.setdefault(rel, rel)  # not written: includes of it are left as they are
    for rel, keeper in (superseded or {}).items():
        out_rel_of[rel] = out_rel_of.get(keeper, keeper)
    return out_rel_of


def _sayer(warnings: list[str], findings: list[InputFinding] | None):
    """How a naming decision is said: a finding when the run collects them, else a
    warning line (SimplePorting's loop, the path choices of --base-from)."""

    def say(rel: str, cid: str, message: str, at: str = "", severity: str = "",
            kind: str = NOT_PORTED) -> None:
        if findings is not None:
            findings.append(InputFinding(rel, cid, f"{rel}: {message}", at, severity, kind))
        else:
            warnings.append(f"{rel}: {message}")

    return say


@dataclass
class Named:
    """Where a tree's inputs go: each input's output path, the inputs to port (those a
    MUSA twin stands for left out, and those set aside), those left out (still read by
    the symbol index), the twins copied as they are, the output folders (one per output
    path), the sources that keep their own names because they are not text, and what
    naming found to say about single inputs."""

    out_rel_of: dict[str, str]
    entries: list[Entry]
    twinned: list[Entry]
    verbatim: frozenset[str]
    dirs: list[Entry]
    unported: list[str]
    findings: list[InputFinding]


# How a file left out for its MUSA version shows among the ignored.
SUPERSEDED = "(its MUSA version is in the tree)"


def name_tree(src: str, entries: list[Entry], kinds: KindSelector, renames: Mapping[str, str],
              vocabulary: Vocabulary | None, result, file_name: Callable[[str], str] | None,
              libraries: frozenset[str], out: str, old: Manifest,
              twins_in_out: bool = True, rename_exported: bool = False) -> Named:
    """The names of a run (``result``, its PortResult, gets the warnings, the inputs left
    for their twins and the renamed paths; ``old``, the last run's manifest, says which
    sources were not text when they are as it saw them, and which files in ``out`` are
    the user's: with ``twins_in_out``, MUSA twins of the inputs too)."""
    users = users_file(out, old) if twins_in_out else None
    limit = name_max(out)
    superseded: dict[str, str] = {}  # x.cuh -> the user's x.muh beside it
    aside: dict[str, str] = {}  # inputs no name is free for (collisions.py)
    found: list[InputFinding] = []
    out_rel_of = output_names(src, entries, kinds, renames, vocabulary, result.warnings,
                              superseded, file_name, libraries, users, found, aside, limit,
                              rename_exported)
    files = {e.rel for e in entries if e.kind != "dir"}
    kept = [e for e in entries if e.rel not in superseded and e.rel not in aside]
    unported = keep_unported_names(src, kept, out_rel_of, kinds, old)
    result.renamed_paths = renamed_paths({r: o for r, o in out_rel_of.items() if r not in aside},
                                         renames)
    result.ignored.update({rel: SUPERSEDED for rel in superseded})
    # A folder renamed onto one the tree has (cuda/ onto musa/) is one output folder.
    dirs = list({out_rel_of[e.rel]: replace(e, rel=out_rel_of[e.rel])
                 for e in kept if e.kind == "dir"}.values())
    return Named(out_rel_of, kept, [e for e in entries if e.rel in superseded],
                 frozenset(superseded.values()) & files, dirs, unported, found)


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
