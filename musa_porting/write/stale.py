"""Outputs of an earlier run whose input is gone: which to remove. Only what the
manifest says musa-port wrote, and only if it is unchanged since: a user's edit is
kept (with a warning), and files musa-port did not write are never touched.

Decided before anything is written, so that what cannot be removed (a user's edit
where a new folder or file must go) stops the run with the output as it was.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .manifest import FileRecord, Manifest
from .output_state import PENDING, OutputState, conflict


@dataclass
class StalePlan:
    remove: list[str] = field(default_factory=list)  # files and links, removed first
    dirs: list[str] = field(default_factory=list)  # folders to remove if empty, deepest first
    kept: list[str] = field(default_factory=list)  # changed since written: left in place
    forced: list[str] = field(default_factory=list)  # the user's paths removed for --force
    replaced: list[str] = field(default_factory=list)  # the user's files replaced (--force)


def plan_stale(out: str, old: Manifest, outputs: dict[str, str], dirs: set[str],
               state: OutputState, untouched: Callable[[str, FileRecord], bool]) -> StalePlan:
    """``outputs``: each planned output and what it replaces ("dir", "forced-dir" or "");
    ``untouched(rel, record)``: the output is as musa-port wrote it (may be removed)."""
    plan = StalePlan()
    for rel, rec in sorted(old.files.items()):
        if rel in outputs:
            continue
        if not state.reachable(rel):
            continue  # under a folder that is a link now: not ours to look into
        if not os.path.lexists(os.path.join(out, rel)):
            continue
        if untouched(rel, rec):
            plan.remove.append(rel)
        else:
            plan.kept.append(rel)
    kept = set(plan.kept)
    for rel in kept:
        if state.dirs.get(rel) == PENDING:  # an edited output where a folder must go
            raise conflict(out, rel, "a file changed since musa-port wrote it is where a "
                                     "folder must go", old)
    plan.dirs = sorted((d for d in set(old.dirs) - dirs if state.reachable(d)),
                       key=lambda r: -r.count("/"))
    removed = set(plan.remove)
    for rel, what in outputs.items():
        if what == "forced-dir":
            plan.forced.append(rel)
        elif what == "forced":
            plan.replaced.append(rel)
        elif what == "dir":
            blocker = _first_foreign(out, rel, removed, set(old.dirs))
            if blocker is not None and not state.force:
                raise conflict(out, blocker, "a file in a folder that must become a file", old)
            if blocker is not None:
                plan.forced.append(rel)  # else the folder goes with stale.dirs
    plan.forced.extend(state.forced)
    return plan


def stale_warnings(out: str, stale: StalePlan, old: Manifest | None = None,
                   src: str = "", out_rel_of: Mapping[str, str] | None = None) -> list[str]:
    """What the run says of the outputs it replaced with --force and of the stale ones
    it keeps because the user changed them. ``old``, ``src`` and ``out_rel_of`` (this
    run's output of each input) tell an output whose input is gone from one whose input
    is still there but is ported under another name now (the path naming changed)."""
    said = [f"{os.path.join(out, rel)}: warning: replaced (--force); musa-port had not "
            "written it" for rel in sorted([*stale.forced, *stale.replaced])]
    for rel in stale.kept:
        rec = old.files.get(rel) if old is not None else None
        now = out_rel_of.get(rec.src) if rec is not None and out_rel_of is not None else None
        if now is not None and now != rel:
            said.append(f"{os.path.join(out, rel)}: warning: changed since musa-port wrote it, "
                        f"and its input {os.path.join(src, rec.src)} is ported to "
                        f"{os.path.join(out, now)} now (the naming of paths changed): the new "
                        "output is a fresh port, without your edits; they are in this file, "
                        "left in place: carry them over, then remove it")
        else:
            said.append(f"{os.path.join(out, rel)}: warning: its input is gone but it changed "
                        "since musa-port wrote it; left in place")
    return said


def _first_foreign(out: str, rel: str, removed: set[str], old_dirs: set[str]) -> str | None:
    """The first thing under output folder ``rel`` that this run will not remove."""
    for dirpath, dirnames, filenames in os.walk(os.path.join(out, rel)):
        base = os.path.relpath(dirpath, out).replace(os.sep, "/")
        for name in sorted(dirnames):
            r = f"{base}/{name}"
            if os.path.islink(os.path.join(dirpath, name)):
                if r not in removed:
                    return r
            elif r not in old_dirs:
                return r
        for name in sorted(filenames):
            if f"{base}/{name}" not in removed:
                return f"{base}/{name}"
    return None
