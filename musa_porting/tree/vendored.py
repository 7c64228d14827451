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
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

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
