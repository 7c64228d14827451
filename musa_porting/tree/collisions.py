"""One output path per input: what is left of two inputs that want one name once the
MUSA twins are settled (``twins.py``).

An input whose new name is taken (by another input's output, by a folder of the
output, or by musa-port's own ``.musa-port*`` names) keeps a name of its own, as the
docs promise for taken names: its path without the vocabulary renames, then its own
file name in its output folder, then its own path. The inputs that keep their wanted
names are chosen first, best rank first (the one whose own name changed least), then
in walk order, so the outcome is the same at every run and for any ``--jobs``. Only
an input none of whose names is free is set aside (not ported), and said so: it never
stops the run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from ..write.manifest import RESERVED_NAMES
from .walk import Entry


def reserved(out_rel: str) -> bool:
    """An output path in musa-port's own files or folders of the output."""
    return out_rel.split("/", 1)[0] in RESERVED_NAMES


def unique_outputs(entries: list[Entry], out_rel_of: dict[str, str], plain: Mapping[str, str],
                   rank: Mapping[str, tuple[int, int]], superseded: Mapping[str, str],
                   aside: dict[str, str], say) -> None:
    """Give every file of ``entries`` (but those ``superseded``) an output path no other
    has; ``aside`` gets the inputs left with none (rel -> why), ``say(rel, ID, message,
    ...)`` reports each decision."""
    dirs = {out_rel_of[e.rel] for e in entries if e.kind == "dir"}
    order = {e.rel: i for i, e in enumerate(entries)}
    files = sorted((e.rel for e in entries if e.kind != "dir" and e.rel not in superseded),
                   key=lambda rel: (rank.get(rel, (0, 0)), order[rel]))
    owner: dict[str, str] = {}
    losers = []
    for rel in files:
        o = out_rel_of[rel]
        if o in owner or o in dirs or reserved(o):
            losers.append(rel)
        else:
            owner[o] = rel
    for rel in sorted(losers, key=order.__getitem__):
        o = out_rel_of[rel]
        why = (f"{owner[o]} has that name" if o in owner else
               "a folder of the output has that path" if o in dirs else "musa-port's own path")
        folder = posixpath.dirname(o)
        own = posixpath.join(folder, posixpath.basename(rel))
        up = posixpath.dirname(rel)
        mine = [plain[rel], own] + ([rel] if not up or up in dirs else [])
        free = next((c for c in mine if c != o and c not in owner and c not in dirs
                     and not reserved(c)), None)
        if free is None:
            aside[rel] = f"{o} is taken ({why}), and so is every name of its own"
            say(rel, "MP0001", f"not ported: {aside[rel]}", severity="error")
            continue
        owner[free] = rel
        out_rel_of[rel] = free
        say(rel, "MP0001", f"ported as {free}, not {o}: {why}")
