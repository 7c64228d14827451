"""git in a folder whose repository is not trusted: it runs nothing its configuration
names.

A tree may ship a ``.git`` of its own (SRC, a training project), and its
``.git/config`` can name commands that ``git status`` or ``git diff`` run
(``core.fsmonitor``, a clean filter for the files it compares, hooks). Every git
process musa-port starts goes through ``run_git``: no fsmonitor, no hooks, no pager,
no optional index write, and, when the command compares file contents, every filter
driver the repository defines emptied. One runner for the converter's safety checks
(``convert/safety.py``), the port's rename following (``merge/git.py``) and
SimplePorting's committed output folder (``simple/committed.py``).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # git runs in few runs: subprocess is imported where it does
    import subprocess

_SAFE = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager"]


def run_git(folder: str, *args: str, timeout: float, filters: bool = False
            ) -> subprocess.CompletedProcess:
    """``git -C folder args`` that runs nothing the repository's configuration names.
    ``filters``: the command may compare file contents, so each filter driver the
    repository defines is emptied first (reading the configuration runs nothing)."""
    import subprocess

    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    env.pop("GIT_EXTERNAL_DIFF", None)
    extra: list[str] = []
    if filters:
        listed = subprocess.run(["git", *_SAFE, "-C", folder, "config", "--name-only",
                                 "--get-regexp", r"^filter\."], capture_output=True, text=True,
                                env=env, timeout=timeout)
        drivers = {k.rsplit(".", 1)[0] for k in listed.stdout.split()}
        for d in sorted(drivers):
            extra += ["-c", f"{d}.clean=", "-c", f"{d}.smudge=", "-c", f"{d}.process=",
                      "-c", f"{d}.required=false"]
    return subprocess.run(["git", *_SAFE, *extra, "-C", folder, *args], capture_output=True,
                          env=env, timeout=timeout)


def work_tree_root(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` (taken as given: the caller chooses
    whether links are resolved) holding a ``.git``, a folder or a file; None when none
    does."""
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        up = os.path.dirname(folder)
        if up == folder:
            return None
        folder = up
