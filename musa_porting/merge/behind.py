"""The fork's files an upgrade did not reach: never left behind in silence.

``--base-from`` pairs each upstream file with the fork's (``pairing``). What it cannot
bring up to the new release it lists as *not upgraded*, in the summary and the JSON,
and ``--check`` fails on it (every level, ``conflicts`` too):

- a fork file that looks like an upstream file that changed, but is not its port: a
  copy of the CUDA file the fork keeps beside its port (``csrc/`` beside
  ``csrc_musa/``, ``nvidia/`` beside ``moore/``), or a second port of it;
- a fork file that may be the port of an upstream file that changed, too far from it to
  be paired (``pairing.MAYBE``);
- the port of an upstream file that changed, which the run did not merge into it.

Each is kept in OUT/.musa-port/conventions.json with the sha256 of its bytes then, and
listed by every run while its bytes are those: the porter brings it up to date (or
removes it), and it is no longer listed.
"""

from __future__ import annotations

import hashlib
import os

from ..safe_open import read_regular


def sha_of(out: str, rel: str) -> str:
    """The sha256 of OUT's file ``rel`` ("" when it cannot be read)."""
    try:
        return hashlib.sha256(read_regular(os.path.join(out, rel))).hexdigest()
    except OSError:
        return ""


def still_behind(out: str, behind: dict[str, list[str]]) -> dict[str, str]:
    """The files of ``behind`` (path -> [sha256, why]) whose bytes are as they were: path -> why."""
    return {rel: why for rel, (sha, why) in sorted(behind.items()) if sha and sha_of(out, rel) == sha}


def upstream_changes(old_src: str, new_src: str, rels) -> set[str]:
    """The files of ``rels`` that are in both folders with other bytes."""
    changed = set()
    for rel in rels:
        try:
            old = read_regular(os.path.join(old_src, rel))
            new = read_regular(os.path.join(new_src, rel))
        except OSError:
            continue
        if old != new:
            changed.add(rel)
    return changed


def new_bytes(new_src: str, rel: str) -> bytes | None:
    try:
        return read_regular(os.path.join(new_src, rel))
    except OSError:
        return None


def behind_after_pairing(pairing, changed: set[str], out: str, new_src: str) -> dict[str, list[str]]:
    """What the pairing leaves behind of the upstream files that ``changed``."""
    behind: dict[str, list[str]] = {}
    for rel in sorted(changed):
        fresh = new_bytes(new_src, rel)
        port = pairing.pairs.get(rel)
        for theirs in pairing.others.get(rel, ()):
            sha = sha_of(out, theirs)
            if not sha or (fresh is not None and sha == hashlib.sha256(fresh).hexdigest()):
                continue  # already the new release's
            port_is = f"its port, {port}, is upgraded" if port else "the fork has no port of it"
            behind[theirs] = [sha, f"a copy of {rel} as the old release had it (or alike); {rel} "
                                   f"changed upstream, and {port_is}"]
        if rel in pairing.unsure:
            theirs = pairing.unsure[rel]
            sha = sha_of(out, theirs)
            if sha:
                behind.setdefault(theirs, [sha, f"may be the port of {rel}, which changed upstream, "
                                               "but is too unlike it to be merged"])
    return behind
