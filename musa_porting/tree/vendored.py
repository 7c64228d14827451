"""Vendored copies of the CUDA libraries MUSA keeps under their own names.

MUSA keeps Thrust, CUB and libcu++ (muThrust and muAlg are drop-ins): ``thrust::``,
``cub::``, ``cuda::std``, their ``.cuh`` file names and their public names, down to
``thrust::cuda_cub`` and ``CUDA_CUB_RET_IF_FAIL``. A tree that carries a copy of one
(``third_party/cub/cub/util_arch.cuh``), or that is one, keeps the copy's file and folder
names (``util_arch.cuh`` stays ``.cuh``, and so do the includes that name it) and the
names it defines (they are not project symbols); its code is ported like the rest.

A copy is recognised by the header its library always has, under the library's folder
name: ``thrust/version.h``, ``cub/cub.cuh`` or ``cub/version.cuh``, libc++'s
``cuda/std/<header>`` (no extension) and ``nv/target``. The library's repository
around it (a folder named ``thrust``, ``cub``, ``cccl`` or ``libcudacxx`` that holds
the header folder, with its tests and examples) is the library's too.

Whether such a library is a *vendored* copy (``vendored_roots``: its findings are
summed up as another project's, ``library_findings.py``) or the tree's own is another
question. A copy is vendored when it lies inside another project: under a folder that
holds other projects (``third_party/``, ``external/``, ``3rdparty/``, ``deps/``...), in
a git submodule, or beside code of the tree's own. A tree that is the library (its
folder named after it, ``cub-2.2.0``, ``thrust_main``), or holds nothing but the library
and what serves it (tests, examples, benchmarks, docs, build files), is the library
ported as itself: its findings are its porter's own.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable

from ..safe_open import read_regular

# A file that only the library has, as (path pattern, how many leading components
# name the library's header folder).
_MARKERS = (
    (re.compile(r"(?:^|/)thrust/version\.h$"), 1),
    (re.compile(r"(?:^|/)cub/(?:cub|version)\.cuh$"), 1),
    (re.compile(r"(?:^|/)cuda/std/[A-Za-z_]+$"), 1),  # libcu++: cuda/std/atomic
    (re.compile(r"(?:^|/)nv/target$"), 1),
)
# The same headers when SRC is the library's header folder itself.
_TOP = {"thrust": ("version.h",), "cub": ("cub.cuh", "version.cuh"), "nv": ("target",)}
REPOSITORIES = frozenset({"thrust", "cub", "cccl", "libcudacxx"})
_AROUND = REPOSITORIES | {"include", "dependencies"}


def library_roots(src: str, files: Iterable[str]) -> frozenset[str]:
    """The folders of SRC (relative POSIX paths; "" for SRC itself) that hold a vendored
    Thrust, CUB or libcu++: the header folder and the repository around it."""
    files = list(files)
    top = posixpath.basename(posixpath.normpath(src))
    if any(f in _TOP.get(top, ()) for f in files) or (
            top == "cuda" and any(re.fullmatch(r"std/[A-Za-z_]+", f) for f in files)):
        return frozenset({""})  # the tree is the library
    roots: set[str] = set()
    for f in files:
        for pattern, depth in _MARKERS:
            m = pattern.search(f)
            if m is None:
                continue
            head = f[:m.start()].rstrip("/") if m.start() else ""
            lib = f[m.start():].lstrip("/").split("/")[:depth]
            roots.add(posixpath.join(head, *lib))
            # The repository around it: cccl/thrust/thrust/version.h is cccl's, and
            # cccl/libcudacxx/include/cuda/std/atomic too (the outermost of a run of
            # such folders, "include" and "dependencies" between them).
            parts = head.split("/") if head else []
            i = len(parts)
            while i and parts[i - 1].lower() in _AROUND:
                if parts[i - 1].lower() in REPOSITORIES:
                    roots.add("/".join(parts[:i]))
                i -= 1
            if i == 0 and top.lower() in REPOSITORIES:
                return frozenset({""})  # SRC is the repository
    # A root inside another is covered by it.
    return frozenset(r for r in roots if not any(o != r and inside(r, o) for o in roots))


def inside(rel: str, root: str) -> bool:
    """Whether the path ``rel`` is ``root`` or under it ("" holds everything)."""
    return root == "" or rel == root or rel.startswith(root + "/")


def in_library(rel: str, roots: frozenset[str]) -> bool:
    return any(inside(rel, r) for r in roots)


# Folders that hold other projects' code.
VENDORING = frozenset({"third_party", "third-party", "thirdparty", "3rdparty", "3rd_party",
                       "3rd-party", "external", "externals", "extern", "deps", "dependencies",
                       "vendor", "vendored", "submodules", "contrib"})
# Folders that serve a library (its repository's), not code of a project of their own.
SERVING = frozenset({"test", "tests", "testing", "unittest", "unittests", "example", "examples",
                     "sample", "samples", "benchmark", "benchmarks", "bench", "perf", "doc", "docs",
                     "cmake", "ci", ".ci", "scripts", "tools", "utils", "util", "internal",
                     "experimental", "c2h", ".github", ".devcontainer", ".upstream-tests"})
# What code of a project of its own is, by extension (a library's headers have none).
_CODE = re.compile(r"\.(?:cu|cuh|c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|inl|ipp|tcc|py)$", re.I)
_NAME_PARTS = re.compile(r"[-_.\s]+")
_SUBMODULE_PATH = re.compile(rb"^\s*path\s*=\s*(.+?)\s*$", re.M)


def vendored_roots(src: str, files: Iterable[str], roots: frozenset[str]) -> frozenset[str]:
    """Of ``roots`` (``library_roots``), the vendored copies: those inside another
    project. The rest are the tree's own library (see the module's docstring)."""
    roots = frozenset(r for r in roots if r)
    if not roots:
        return frozenset()
    out = {r for r in roots if VENDORING.intersection(r.lower().split("/"))}
    modules = _submodules(src)
    out |= {r for r in roots - out if any(inside(r, m) for m in modules) or _checkout(src, r)}
    rest = roots - out
    if rest and not _named_after_library(src) and _own_code(files, roots):
        out |= rest  # beside the project's own code: a copy it carries
    return frozenset(out)


def _named_after_library(src: str) -> bool:
    """``cub-2.2.0``, ``thrust_main``, ``nvidia-cccl``: the tree is a library's checkout."""
    parts = [p for p in _NAME_PARTS.split(posixpath.basename(os.path.normpath(src)).lower()) if p]
    if parts[:1] == ["nvidia"]:
        parts = parts[1:]
    return bool(parts) and parts[0] in REPOSITORIES


def _own_code(files: Iterable[str], roots: frozenset[str]) -> bool:
    """Whether the tree holds code outside the libraries and what serves them: a
    project of its own, which the libraries are copies in."""
    for f in files:
        if _CODE.search(f) is None or any(inside(f, r) for r in roots):
            continue
        if not SERVING.intersection(f.lower().split("/")[:-1]):
            return True
    return False


def _checkout(src: str, root: str) -> bool:
    """Whether ``root`` or a folder around it below SRC is a git checkout of its own
    (a submodule's ``.git`` file, or a clone's folder)."""
    parts = root.split("/")
    return any(os.path.lexists(os.path.join(src, *parts[:i], ".git"))
               for i in range(1, len(parts) + 1))


def _submodules(src: str) -> list[str]:
    """The paths, relative to SRC, of the submodules the ``.gitmodules`` of SRC's git
    work tree lists (SRC itself or the nearest folder above it with a ``.git``)."""
    here = os.path.abspath(src)
    for _ in range(64):
        modules = os.path.join(here, ".gitmodules")
        if os.path.lexists(modules) or os.path.lexists(os.path.join(here, ".git")):
            try:
                data = read_regular(modules)
            except OSError:
                return []
            out = []
            for m in _SUBMODULE_PATH.finditer(data):
                path = os.path.normpath(os.path.join(here, os.fsdecode(m.group(1))))
                rel = os.path.relpath(path, os.path.abspath(src))
                if rel != os.pardir and not rel.startswith(os.pardir + os.sep):
                    out.append(rel.replace(os.sep, "/"))
            return out
        up = os.path.dirname(here)
        if up == here:
            return []
        here = up
    return []
