"""The three-way merge of one output: what the user changed since musa-port wrote it
(base -> yours) and what the new port changes (base -> new port), both kept where they
do not overlap; where they do, the output gets ``git merge-file --diff3``'s conflict
markers, each side labelled with what it is.

The merge is git's (``git merge-file``), not ours: a merge is needed only for an output
the user edited whose port changed, so one process per such file is cheap, and git
is there wherever a fork is kept. It runs on three temp files in a folder of its own,
outside any repository (so no repository's configuration applies), and prints the
merge: bytes in, bytes out, so CRLF, a BOM and bytes that are not UTF-8 come through
as they are, and a side whose last line has no newline still ends before the next
marker. Without git (or when it fails) there is no merge: ``NoMerge`` says why, and
the caller keeps the user's file and writes the new port.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

# The labels say what each side is; OURS starts every conflict, and counting it is
# how a later run knows the markers are still there.
YOURS_LABEL = "yours (the output as you edited it)"
BASE_LABEL = "base (musa-port's last port)"
NEW_LABEL = "new port (musa-port)"
OURS = b"<<<<<<< " + YOURS_LABEL.encode()
TIMEOUT = 300  # seconds: git merges an 8 MB file (bases.MAX_BASE) in well under one


@dataclass
class Merged:
    data: bytes
    conflicts: int  # conflict regions written with markers


class NoMerge(Exception):
    """No merge could be made: the message says why (git not found, git failed)."""


def merge(base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """``ours`` (the user's file) and ``theirs`` (the new port), both made from ``base``."""
    import shutil  # (with subprocess and tempfile: only where a file is merged)
    import subprocess
    import tempfile

    git = shutil.which("git")
    if git is None:
        raise NoMerge("git was not found on PATH to merge it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    with tempfile.TemporaryDirectory(prefix="musa-port-merge-") as tmp:
        env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
                   GIT_CEILING_DIRECTORIES=os.path.dirname(tmp))
        for name, data in (("yours", ours), ("base", base), ("new", theirs)):
            with open(os.path.join(tmp, name), "wb") as fh:
                fh.write(data)
        try:
            proc = subprocess.run(
                [git, "merge-file", "-p", "--diff3", "-L", YOURS_LABEL, "-L", BASE_LABEL,
                 "-L", NEW_LABEL, "yours", "base", "new"], cwd=tmp, env=env, capture_output=True,
                stdin=subprocess.DEVNULL, timeout=TIMEOUT)
        except (OSError, subprocess.SubprocessError) as e:
            raise NoMerge(f"git merge-file failed: {e}") from None
    # The exit code is the number of conflicts (at most 127), negative on an error.
    if not 0 <= proc.returncode <= 127:
        why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise NoMerge("git merge-file failed" + (f": {why[-1]}" if why else ""))
    conflicts = proc.returncode
    if conflicts == 127:
        conflicts = max(conflicts, count_conflicts(proc.stdout))
    return Merged(proc.stdout, conflicts)


def count_conflicts(data: bytes) -> int:
    """The conflicts a merge left in ``data`` that are still there."""
    n = data.count(b"\n" + OURS) + data.count(b"\r" + OURS)
    return n + (1 if data.startswith(OURS) else 0)
