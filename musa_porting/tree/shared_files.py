"""Porting one backend folder into its sibling: what the rest of the tree must add.

``musa-port src/backends/cuda --output src/backends/musa`` ports a multi-backend
project's CUDA backend into the MUSA one inside the same tree. The port sees only the
backend; the files that choose a backend (a registry, an enum of backends, ``#ifdef
WITH_CUDA``, the build's ``add_subdirectory(cuda)``) are shared and not ported, and
each needs a MUSA entry beside its CUDA one, by hand. This module finds them: every
line of the project outside SRC and OUT that names the CUDA backend (a name the port
renamed, SRC's folder, a gate on a CUDA enable macro, a ``Backend::Cuda``-style
enumerator), so the summary can point at each. The project is the user's, as SRC is:
its files are read as inputs are (regular files only, no link followed: a FIFO named
like a header would block the run, a link take the scan out of the project).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..rules.vocabulary import Vocabulary
from ..safe_open import open_regular

# What marks a project's top folder (the nearest .git wins; else the highest of these).
_ROOT_MARKERS = ("CMakeLists.txt", "setup.py", "pyproject.toml", "Makefile", "meson.build",
                 "WORKSPACE", "MODULE.bazel", "configure.ac")
_LEVELS = 5  # folders above SRC's parent looked at for a marker
_FILES_MAX = 20000  # files read at most (a monorepo is cut short, and the summary says so)
_BYTES_MAX = 64 << 20
_SCANNED = re.compile(r"\.(?:c|cc|cpp|cxx|h|hh|hpp|hxx|cu|cuh|inl|ipp|py|cmake|bzl|mk|txt)$")
_NAMED = ("CMakeLists.txt", "Makefile", "BUILD", "BUILD.bazel", "meson.build", "setup.py")
_SKIP_DIRS = frozenset(("build", "dist", "node_modules", "__pycache__", "third_party",
                        "3rdparty", "external", "site-packages"))
_GATE = re.compile(r"^\s*(?:#\s*(?:if|ifdef|ifndef|elif)\b|if\s*\(|elseif\s*\(|option\s*\()")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENABLE = re.compile(r"(?:^|_)(?:WITH|USE|ENABLE|HAVE|HAS|BUILD|SUPPORT)(?:_|$)|^__\w+CC__$|^__NVCC__$")
_ENUM = re.compile(r"\benum\b")
_QUALIFIED = re.compile(r"\b[A-Za-z_]\w*::([A-Za-z_]\w*)\b")


@dataclass(frozen=True)
class Mention:
    """A line of a shared file that names the CUDA backend."""

    file: str  # relative to the project's top folder
    line: int
    what: str

    def to_json(self) -> dict:
        return {"file": self.file, "line": self.line, "what": self.what}


def note_shared_files(result, src: str, out: str, vocabulary: Callable[[], Vocabulary]) -> None:
    """A backend folder ported into its sibling: put the shared files that name the CUDA
    backend in ``result`` (a PortResult). ``vocabulary`` loads the run's words."""
    if not backend_folder(src, out, vocabulary()):
        return
    project = result.project
    renamed = {r.old: r.new for r in project.renames.values()} if project is not None else {}
    result.shared_root, result.shared_mentions, result.shared_cut = shared_mentions(
        src, out, renamed, vocabulary())


def backend_folder(src: str, out: str, vocabulary: Vocabulary) -> bool:
    """``src`` is a backend folder ported into its sibling (``cuda`` -> ``musa``)."""
    return (os.path.dirname(src) == os.path.dirname(out)
            and vocabulary.rename(os.path.basename(src)) == os.path.basename(out))


def project_root(src: str) -> str:
    """The project around SRC: the nearest folder above with ``.git``, else the highest
    one (a few levels up) holding a build or project file, else SRC's parent."""
    here = os.path.dirname(src)
    best = here
    for _ in range(_LEVELS + 1):
        if os.path.exists(os.path.join(here, ".git")):
            return here
        if any(os.path.isfile(os.path.join(here, m)) for m in _ROOT_MARKERS):
            best = here
        up = os.path.dirname(here)
        if up == here:
            break
        here = up
    return best


def shared_mentions(src: str, out: str, renamed: Mapping[str, str],
                    vocabulary: Vocabulary) -> tuple[str, list[Mention], bool]:
    """(the project's top folder, the mentions, whether the scan was cut short)."""
    root = project_root(src)
    skip = {os.path.realpath(src), os.path.realpath(out)}
    rel_src = os.path.relpath(src, root).replace(os.sep, "/")
    tail = "/".join(rel_src.split("/")[-2:])  # backends/cuda: how includes and builds name it
    out_rel = os.path.relpath(out, root).replace(os.sep, "/")
    mentions: list[Mention] = []
    files = read = 0
    cut = False
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS
                             and not d.endswith("_musa")
                             and os.path.realpath(os.path.join(dirpath, d)) not in skip)
        for name in sorted(filenames):
            if name not in _NAMED and not _SCANNED.search(name):
                continue
            path = os.path.join(dirpath, name)
            if files >= _FILES_MAX or read >= _BYTES_MAX:
                cut = True
                break
            try:  # a regular file, not through a link (a FIFO would block, a link leave)
                fd, _ = open_regular(path)
            except OSError:
                continue
            with os.fdopen(fd, "rb") as f:
                try:
                    data = f.read(_BYTES_MAX - read)
                except OSError:
                    continue
            files += 1
            read += len(data)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            mentions += _mentions(rel, data.decode("utf-8", "replace"), renamed, vocabulary,
                                  tail, out_rel)
        if cut:
            break
    return root, mentions, cut


def _mentions(rel: str, text: str, renamed: Mapping[str, str], vocabulary: Vocabulary,
              tail: str, out_rel: str) -> list[Mention]:
    out = []
    build_file = rel.rsplit("/", 1)[-1] in _NAMED or rel.endswith((".cmake", ".mk", ".bzl"))
    words = vocabulary.forms()
    for n, line in enumerate(text.splitlines(), 1):
        if not vocabulary.contains_word(line) and tail not in line:
            continue  # most lines: no CUDA word at all
        whats = []
        if tail in line:
            whats.append(f"names {tail} (the port is {out_rel})")
        idents = set(_IDENT.findall(line))
        for old in sorted(idents & renamed.keys()):
            whats.append(f"uses {old} (the port names it {renamed[old]})")
        enables = sorted(i for i in idents if _ENABLE.search(i) and vocabulary.contains_word(i))
        if _GATE.match(line):
            whats += [f"a gate on {g}" for g in enables]
        elif build_file:
            whats += [f"sets {g}" for g in enables]
        if _ENUM.search(line):
            whats += [f"an enum with {i}" for i in sorted(idents) if i in words]
        for m in _QUALIFIED.finditer(line):
            word = m.group(1)
            if vocabulary.rename_part(word) is not None and word not in renamed:
                whats.append(f"the CUDA backend's {m.group(0)}")
        if whats:
            out.append(Mention(rel, n, "; ".join(dict.fromkeys(whats))))
    return out
