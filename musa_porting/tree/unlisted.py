"""Folders of SRC the walk could not list or search: nothing under them is ported, and
the outputs the last run made of what they held are kept as they are.

Such a folder's files may all still be there: removing their outputs as stale would
lose a port for a permission, and writing the manifest without them would make them
the user's files at the next run. So each output of the last run whose input is under
the folder, and that is still in OUT, stays in place with its record, untrusted (the
next run that can list the folder ports its files again), and one finding about the
folder says how many were kept (MP0004: a warning then, an error when nothing of the
folder is in OUT).
"""

from __future__ import annotations

from dataclasses import replace

from ..write.manifest import UNTRUSTED, Manifest
from ..write.output_state import OutputState
from .input_findings import FOLDER, InputFinding
from .plan import Planned
from .walk import Entry


def keep_unlisted(unlisted: dict[str, str], old: Manifest, state: OutputState,
                  taken: set[str], planned: list[Planned]) -> list[InputFinding]:
    """Add to ``planned`` the last run's outputs of the files under the ``unlisted``
    folders (rel -> why), as plans that write nothing; returns a finding per folder.
    ``taken``: this run's output paths (a new input's output wins over a kept one)."""
    if not unlisted:
        return []
    prefixes = tuple(rel + "/" for rel in unlisted)
    kept: dict[str, int] = dict.fromkeys(unlisted, 0)
    plans = []
    for out_rel, rec in old.files.items():
        if not rec.src.startswith(prefixes) or out_rel in taken or state.lstat(out_rel) is None:
            continue
        folder = next(rel for rel in unlisted if rec.src.startswith(rel + "/"))
        kept[folder] += 1
        kind = "symlink" if rec.kind == "symlink" else "file"
        entry = Entry(rec.src, kind, rec.src_mode, rec.src_size, rec.src_mtime_ns,
                      rec.src_ctime_ns)
        plans.append(Planned(entry, out_rel, replace(rec, src_size=UNTRUSTED)))
    found = []
    for rel, why in sorted(unlisted.items()):
        n = kept[rel]
        what = (f"the last run's {n} output{'s' if n != 1 else ''} of its files "
                f"{'are' if n != 1 else 'is'} kept as {'they were' if n != 1 else 'it was'}"
                if n else "nothing of it is written")
        found.append(InputFinding(rel, "MP0004", f"{rel}: not ported: {why}; {what}",
                                  severity="warning" if n else "", kind=FOLDER))
    planned += plans
    return found
