"""Ignore entries as users write them, and the ones that ignored nothing.

The walk takes gitignore-style patterns relative to SRC (``mlu``, ``common/mlu``), but
users also write paths: torch_musa's ``ignore_dir_paths`` are paths from the working
folder (``./mmcv/ops/csrc/common/mlu``), and so is what a shell completes. A pattern
that matches nothing is silently useless, so each entry is turned into the pattern
that means what was written, and the ones that still match nothing are reported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from ..errors import PortError
from .gitignore import GitIgnore, compile_pattern
from .walk import normalize_patterns

_GLOB = set("*?[!")


def ignore_pattern(entry: str, src: str, bases: Sequence[str] = ()) -> str:
    """The walk's pattern for one entry.

    A path that names something inside SRC, given relative to one of ``bases`` (the
    working folder, a config file's folder), to SRC, or absolute, becomes a pattern
    anchored at SRC's root (``/common/mlu``: exactly that one). Bare names
    (``mlu``: at any depth), globs and anything else stay as they are.
    """
    text = entry.strip()
    bare = text.strip("/").strip(os.sep)
    if not bare or _GLOB & set(text) or ("/" not in bare and os.sep not in bare):
        return entry
    root = os.path.realpath(src)
    candidates = [text] if os.path.isabs(text) else [
        *(os.path.join(b, text) for b in bases), os.path.join(root, text)]
    for cand in candidates:
        real = os.path.realpath(cand)
        if os.path.lexists(cand) and real != root and real.startswith(root + os.sep):
            return "/" + os.path.relpath(real, root).replace(os.sep, "/")
    return entry


def ignore_patterns(entries: Iterable[str], src: str, bases: Sequence[str] = (),
                    where: str | None = None) -> dict[str, str]:
    """Each entry (comma-separated lists split) -> its pattern, in order. ``where``: the
    settings file the entries come from, named by the error of a pattern that is not
    valid (the user fixes it there)."""
    out: dict[str, str] = {}
    for entry in entries:
        for item in entry.split(","):
            if item.strip():
                out[item.strip()] = pattern = ignore_pattern(item.strip(), src, bases)
                if where is not None:
                    try:
                        compile_pattern(normalize_patterns([pattern])[0])
                    except PortError as exc:
                        raise PortError(exc.message, where) from None
    return out


def unmatched(patterns: Mapping[str, str], ignored: Mapping[str, str]) -> list[str]:
    """The entries of ``patterns`` (entry -> pattern) that ignored nothing, given what
    a run ignored (rel -> the pattern credited with it; a path two patterns match is
    credited to the later one, so the earlier one is checked against it too)."""
    credited = set(ignored.values())
    out = []
    for entry, pattern in patterns.items():
        normal = normalize_patterns([pattern])
        if not normal or normal[0] in credited:
            continue
        spec = GitIgnore(normal)
        if not any(spec.match_file(rel) or spec.match_file(rel + "/") for rel in ignored):
            out.append(entry)
    return out
