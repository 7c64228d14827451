"""Sources the rules cannot port keep their own names, decided before anything is
ported.

A source that is not text (UTF-16 or UTF-32, NUL bytes: MP1006) is copied as it is,
under its own name (``k.cuh`` stays ``k.cuh``). Every other file that names it (an
``#include "k.cuh"`` in ``b.cu``, a link ``l.cuh -> k.cuh``, a build file) is ported
against the output names, in parallel with it, so the name must be known before
planning starts: decided here, for the renamed sources only, from the last run's
manifest when the source is as it recorded it, else by reading the file.
"""

from __future__ import annotations

import os
import posixpath

from ..safe_open import regular_chunks
from ..write.manifest import Manifest
from .kinds import KindSelector
from .walk import Entry

_CHUNK = 1 << 20


def not_text(data: bytes) -> str:
    """Why a source file is not text the rules can port ("" if it is): NUL bytes, or a
    UTF-16/UTF-32 byte-order mark."""
    if data[:4] in (b"\xff\xfe\0\0", b"\0\0\xfe\xff"):
        return "UTF-32 text"
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "UTF-16 text"
    if b"\0" in data:
        return "NUL bytes (binary, or UTF-16 text without a byte-order mark)"
    return ""


def own_name(rel: str, out_rel: str) -> str:
    """``rel``'s own file name in ``out_rel``'s folder."""
    return posixpath.join(posixpath.dirname(out_rel), posixpath.basename(rel))


def keep_unported_names(src: str, entries: list[Entry], out_rel_of: dict[str, str],
                        kinds: KindSelector, old: Manifest) -> list[str]:
    """Give each renamed source that is not text its own name in ``out_rel_of``, unless
    another input's output has that name (then it keeps the new one, as the plan does:
    ``Planner._unported_name``). Returns the sources it gave their own names."""
    kept: list[str] = []
    taken: set[str] | None = None
    for e in entries:
        if e.kind != "file":
            continue
        out_rel = out_rel_of[e.rel]
        own = own_name(e.rel, out_rel)
        if own == out_rel or kinds.kind_of(e.rel) is None:
            continue
        known = _recorded(old, e, out_rel, own)
        if not (known if known is not None else _file_not_text(os.path.join(src, e.rel), e)):
            continue
        if taken is None:
            taken = set(out_rel_of.values())
        if own not in taken:
            out_rel_of[e.rel] = own
            taken.add(own)
            kept.append(e.rel)
    return kept


def _recorded(old: Manifest, e: Entry, out_rel: str, own: str) -> bool | None:
    """Whether the last run found the source not text, when it is as that run saw it
    (size, mtime, ctime); None when the manifest cannot say."""
    for key, copied in ((out_rel, False), (own, True)):
        prev = old.files.get(key)
        if (prev is not None and prev.src == e.rel and prev.src_size == e.size
                and prev.src_mtime_ns == e.mtime_ns and prev.src_ctime_ns == e.ctime_ns
                and (prev.kind == "copied") == copied):
            return copied
    return None


def _file_not_text(path: str, e: Entry) -> bool:
    """Whether the file is not text, read in pieces (a 1 GB source is never held
    whole); one that cannot be read is left to the plan, which reports it."""
    chunks = regular_chunks(path, _CHUNK, e.identity)
    first = next(chunks, b"")
    return bool(not_text(first)) or any(b"\0" in chunk for chunk in chunks)
