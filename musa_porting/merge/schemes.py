"""Which of musa-port's namings of paths a fork follows (``--base-from``): vocabulary
words in paths or not, ``.cu`` -> ``.mu`` or kept, or the fork's own extensions
(``.cuh`` -> ``.h``). What none of them gives is the fork's layout (``layout``).

The first guess, before the fork's files are paired, is the naming that puts the most
of OLD_SRC's files where OUT has a file (``by_existence``). Once paired, the naming that
puts the most pairs at the fork's path, then gives the most of them the fork's file
name, then its extension, then renames the fewest names the fork did not rename (``by_pairs``): the
fork's own words are then the layout's, not musa-port's vocabulary and the layout's on
top; among equals, the user's.
"""

from __future__ import annotations

import os
import posixpath
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace

from ..errors import PortError
from ..port.filenames import RENAMES
from ..tree.options import PortOptions
from .pairing import HEADERS, SOURCES

AGREE = 0.6  # share of a fork's files of one extension that must agree on its new one

Scheme = tuple[bool, "dict[str, str] | None"]  # (rename_paths, extension renames)


def _names(opts: PortOptions, old_src: str, entries, scheme: Scheme, Porter) -> dict[str, str] | None:  # noqa: N803
    from ..tree.kinds import KindSelector
    from ..tree.names import output_names

    rename_paths, renames = scheme
    porter = Porter(replace(opts, rename_paths=rename_paths,
                            renames=renames if renames is not None else opts.renames))
    vocab = porter.vocabulary() if rename_paths else None
    try:
        return output_names(old_src, entries, KindSelector.from_options(opts), porter.renames,
                            vocab, [], {}, opts.file_name)
    except PortError:
        return None


def old_entries(opts: PortOptions, old_src: str) -> list:
    from ..tree.walk import Ignorer, walk

    return list(walk(old_src, Ignorer(opts.ignore), {}))


def by_existence(opts: PortOptions, old_src: str, entries, out: str, Porter) -> Scheme:  # noqa: N803
    """The naming that puts the most of OLD_SRC's files where OUT has one."""
    best, best_score = (opts.rename_paths, None), -1
    for scheme in ((opts.rename_paths, None), (False, None), (False, {})):
        names = _names(opts, old_src, entries, scheme, Porter)
        if names is None:
            continue
        score = sum(1 for e in entries if e.kind != "dir"
                    and os.path.lexists(os.path.join(out, names[e.rel])))
        if score > best_score:
            best, best_score = scheme, score
    return best


def by_pairs(opts: PortOptions, old_src: str, entries, pairs: Mapping[str, str],
             Porter) -> tuple[Scheme, dict[str, str]]:  # noqa: N803
    """The naming closest to the fork's pairs, and its output path of every input."""
    exts = fork_extensions(pairs)
    schemes: list[Scheme] = [(opts.rename_paths, None), (False, None), (False, {})]
    if exts is not None:
        schemes += [(False, exts), (opts.rename_paths, exts)]
    best, best_names, best_score = schemes[0], None, (-1, -1, -1, -len(pairs) - 1)
    for scheme in schemes:
        names = _names(opts, old_src, entries, scheme, Porter)
        if names is None:
            continue
        score = (sum(names.get(rel) == theirs for rel, theirs in pairs.items()),
                 sum(_name(names.get(rel, "")) == _name(theirs) for rel, theirs in pairs.items()),
                 sum(_ext(names.get(rel, "")) == _ext(theirs) for rel, theirs in pairs.items()),
                 -sum(_name(names.get(rel, "")) not in (_name(rel), _name(theirs))
                      for rel, theirs in pairs.items()))
        if score > best_score:
            best, best_names, best_score = scheme, names, score
    return best, best_names or {}


def _name(rel: str) -> str:
    """A file's name without its extension."""
    return posixpath.splitext(posixpath.basename(rel))[0]


def _ext(rel: str) -> str:
    return posixpath.splitext(rel)[1]


def fork_extensions(pairs: Mapping[str, str]) -> dict[str, str] | None:
    """The extension renames the fork's files show (``.cuh`` -> ``.h``), over ``.cu`` ->
    ``.mu`` and ``.cuh`` -> ``.muh``; None when they are those."""
    seen: dict[str, Counter] = {}
    for rel, theirs in pairs.items():
        ext, new = posixpath.splitext(rel)[1], posixpath.splitext(theirs)[1]
        if ext in SOURCES | HEADERS and new in SOURCES | HEADERS:
            seen.setdefault(ext, Counter())[new] += 1
    out = dict(RENAMES)
    for ext, count in seen.items():
        new, n = count.most_common(1)[0]
        if n >= AGREE * sum(count.values()) and (ext in out or new != ext):
            out[ext] = new
    return None if out == RENAMES else out
