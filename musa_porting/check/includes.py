"""MP5006: every ``#include "..."`` of a project file resolves in the ported tree.

Includes are resolved as the port resolves them (``port/cxx/includes.py``: the
including file's folder, the top of the tree, then any file whose path ends with the
target, since a build adds include folders the port cannot see), once over OUT's
files and, for what resolves there to nothing, over the inputs: an include that named
an input the port wrote elsewhere (as written, from the input's folder, or with the
port's renames undone) did not follow. One that names nothing in either tree is a
system or third-party header written with quotes.
"""

from __future__ import annotations

import os

from ..port.cxx.includes import IncludeResolver
from .found import Found, finding
from .tree import OutTree


def unresolved_includes(tree: OutTree) -> list[Found]:
    rows = list(tree.rows("include"))
    if not rows:
        return []
    outputs = IncludeResolver(tree.records)
    inputs: IncludeResolver | None = None
    out: list[Found] = []
    for rel, (target, line, col) in rows:
        if outputs.resolve(rel, target) is not None:
            continue
        if tree.out_dir is not None and os.path.lexists(
                os.path.join(tree.out_dir, os.path.dirname(rel), target)):
            continue  # a file of the user's beside it
        if inputs is None:
            inputs = IncludeResolver({src for src, _ in tree.records.values()})
        src = tree.src_of(rel)
        for t in dict.fromkeys((target, tree.undo(target))):
            before = inputs.resolve(src, t)
            now = tree.output_of(before) if before is not None else None
            if now is not None and now != before:
                out.append(finding("MP5006", rel, line, col, target,
                                   f"#include \"{target}\" names no file of the ported tree; "
                                   f"it named {before} before the port, which is now {now}"))
                break
    return out
