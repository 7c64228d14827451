"""A CUDA file and its MUSA twin: trees that already hold part of a MUSA port.

MUSA support often lands op by op: ``cuda/roi_align_cuda.cu`` beside a hand-written
``musa/roi_align_musa.mu``, ``foo_cuda.cu`` beside ``foo_musa.cu``, ``k.cuh`` beside
``k.muh``. When the port's name for a CUDA file is a name another input keeps (a file
whose own name needs fewer changes, best none), that input is the CUDA file's MUSA
version: the CUDA file is not ported (it would define the same names twice), includes
of it follow to the twin, and the twin is copied as it is (the porter's work). A file
of the user's already in the output can be the twin too (``musa-port backends/cuda -o
backends/musa`` into a backend folder begun by hand).

Unless the twin includes the CUDA file: then it wraps it rather than replaces it, and
the CUDA file is ported under its own name, so the include still finds it.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable

from ..port.cxx.lexer import includes
from ..write.manifest import Manifest
from .walk import Entry

# How much of a twin is read to see whether it includes the CUDA file.
_READ_LIMIT = 4 << 20


def resolve_twins(src: str, entries: list[Entry], out_rel_of: dict[str, str],
                  plain: dict[str, str], rank: dict[str, tuple[int, int]], say,
                  superseded: dict[str, str] | None,
                  users: Callable[[str], bool] | None = None) -> None:
    """Settle the files that want the same output path. ``rank``: how much an input's
    own name changed (0 none, 1 its extension, 2 vocabulary words) and how much its
    path did (its folders' renames too); ``plain``: its output path without vocabulary
    renames (the fallback when it has no twin); ``say(rel, ID, message, at)``: how a
    decision is reported; ``users``: is this output path a file of the user's in the
    output? Updates ``out_rel_of`` and ``superseded`` (rel -> the twin's rel, or the
    output path of the user's file).

    The twin is the one file whose own name changed least: its folder's rename is not
    its own (``x-cuda/musa.h`` is the MUSA version of ``x-cuda/cuda.h`` though both
    move to ``x-musa/``); between files whose own names changed alike, the one whose
    path changed least (``musa/a.cpp``, beside ``cuda/a.cpp``). Files no rank tells
    apart each keep a name of their own: the first, in walk order, the wanted one."""
    by_out: dict[str, list[str]] = {}
    for e in entries:
        if e.kind != "dir":
            by_out.setdefault(out_rel_of[e.rel], []).append(e.rel)
    for o, rels in by_out.items():
        if len(rels) == 1:
            rel = rels[0]
            if superseded is not None and users is not None and rank[rel][1] == 2 and users(o):
                superseded[rel] = o
                say(rel, "MP0002", f"not ported: {o} in the output is its MUSA version "
                    "(yours: kept as it is; includes of it name that file)", at=o)
            continue
        best = min(rank[r] for r in rels)
        keepers = [r for r in rels if rank[r] == best]
        if superseded is None or len(keepers) != 1:
            first = keepers[0]
            for r in rels:
                if r != first and out_rel_of[r] != plain[r]:
                    say(r, "MP0001", f"not renamed to {posixpath.basename(o)}: {first} has "
                        f"that name in the output ({o})")
                    out_rel_of[r] = plain[r]
            continue  # the rest: collisions.unique_outputs
        twin = keepers[0]
        for r in rels:
            if r == twin:
                continue
            if _includes(src, twin, r):
                own = posixpath.join(posixpath.dirname(out_rel_of[r]), posixpath.basename(r))
                out_rel_of[r] = own
                say(r, "MP0001", f"ported as {own}, not {o}: {twin} includes it, so it is "
                    f"not that file's MUSA version (which keeps {o})")
                continue
            superseded[r] = twin
            folder = posixpath.dirname(twin)
            where = f"({twin})" if folder != posixpath.dirname(r) else \
                f"beside it ({twin})" if folder else "beside it"
            say(r, "MP0002", f"not ported: {posixpath.basename(twin)} {where} is its MUSA "
                f"version (kept as {o}; includes of it name that file)", at=o)


def _includes(src: str, rel: str, target: str) -> bool:
    """``rel`` has an ``#include`` naming ``target``'s file name."""
    try:
        with open(os.path.join(src, rel), "rb") as f:
            data = f.read(_READ_LIMIT)
    except OSError:
        return False
    if posixpath.basename(target).encode() not in data:
        return False
    name = posixpath.basename(target)
    return any(posixpath.basename(inc.target) == name for inc in includes(data))


MUSA_EXTENSIONS = (".mu", ".muh")


def musa_side(rel: str, musa_words) -> bool:
    """A file of the tree's MUSA side: a ``.mu``/``.muh`` file, or one in a folder or with
    a name that holds a MUSA word (``musa/roi_align.cpp``, ``helper_musa.h``).
    ``musa_words``: the vocabulary reversed (MUSA words to CUDA words)."""
    if rel.endswith(MUSA_EXTENSIONS):
        return True
    for part in rel.split("/"):
        stem = part.split(".", 1)[0] if not part.startswith(".") else part
        if stem and musa_words.rename(stem) is not None:
            return True
    return False


def users_file(out: str, old: Manifest) -> Callable[[str], bool]:
    """Is this output path a file of the user's (in OUT, not written by musa-port)?"""

    def users(out_rel: str) -> bool:
        return not old.owns(out_rel) and os.path.isfile(os.path.join(out, out_rel))

    return users
