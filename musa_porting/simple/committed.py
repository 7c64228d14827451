"""A committed output folder: a project that commits the tree torch_musa's SimplePorting
wrote (vLLM's MUSA forks commit ``csrc_musa/``, with their hand fixes).

torch_musa's SimplePorting deletes and rewrites that folder on every call. musa-port
replaces nothing it did not write unless told (``force=True``), because a file there may
be the porter's only copy of a hand edit. A committed folder is the case where nothing
can be lost: when every file the port would replace is tracked by git and unchanged
since the last commit, git gives each back, and the call proceeds as torch_musa's does
(the files it does not write are kept, unlike torch_musa's). The port records its bases
(``merge/``), so a file git gives back afterwards is the porter's edit from then on:
kept by the next call, and merged three ways with a new port of its source. Otherwise the call stops,
naming the first file git could not give back.

git runs through ``safe_git`` (the folder's repository is the project's, and its
configuration may name commands), and a git that fails or times out cannot vouch for a
file: the call stops as for a changed one, saying what git said.
"""

from __future__ import annotations

import os
import subprocess

from ..errors import PortError
from ..safe_git import run_git
from ..tree.options import PortOptions
from ..write.manifest import MANIFEST_NAME

GIT_TIMEOUT = 120.0


def foreign_output(out: str) -> bool:
    """The output folder exists and musa-port did not write it (no manifest)."""
    return os.path.isdir(out) and not os.path.lexists(os.path.join(out, MANIFEST_NAME))


def replaced_paths(opts: PortOptions, out: str) -> list[str]:
    """The files in ``out`` (relative paths) that the port of ``opts`` would replace: what
    is at an output's path, and everything under a folder where an output must go."""
    from ..port.filenames import RENAMES
    from ..tree.kinds import KindSelector
    from ..tree.names import output_names
    from ..tree.vocabulary import run_vocabulary
    from ..tree.walk import Ignorer, walk

    src = os.path.abspath(opts.src)
    entries = list(walk(src, Ignorer(opts.ignore), {}))
    renames = dict(opts.renames) if opts.renames is not None else RENAMES
    vocabulary = run_vocabulary(opts) if opts.rename_paths else None
    aside: dict[str, str] = {}  # not written: no name free for it
    out_rel_of = output_names(src, entries, KindSelector.from_options(opts), renames, vocabulary,
                              [], {}, opts.file_name, set_aside=aside,
                              rename_exported=opts.rename_exported)
    found = []
    for e in entries:
        if e.rel in aside:
            continue
        path = os.path.join(out, out_rel_of[e.rel])
        if e.kind == "dir" or not os.path.lexists(path):
            if e.kind == "dir" and os.path.lexists(path) and not os.path.isdir(path):
                found.append(out_rel_of[e.rel])  # a file where a folder must go
            continue
        if os.path.isdir(path) and not os.path.islink(path):
            for dirpath, _, names in os.walk(path):
                found += [os.path.relpath(os.path.join(dirpath, n), out) for n in sorted(names)]
        else:
            found.append(out_rel_of[e.rel])
    return sorted(set(found))


def first_not_in_git(out: str, paths: list[str]) -> tuple[str, str] | None:
    """The first of ``paths`` (relative to ``out``) that git cannot give back, with why
    ("not tracked by git", "changed since the last commit"); None when git has them all.
    A git that fails or takes too long says nothing about a file, so it cannot vouch
    for one: the first path is then named, with what git said."""
    if not paths:
        return None
    top, err = _git(out, "rev-parse", "--show-toplevel")
    if top is None:
        return paths[0], "not in a git repository" if "not a git repository" in err else \
            f"not known to git ({err})"
    root = top.rstrip("\n")
    real_root = os.path.realpath(root)
    where = os.path.relpath(os.path.realpath(out), real_root).replace(os.sep, "/")
    listed, err = _git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", where)
    if listed is None:
        return paths[0], f"not known to git ({err})"
    status, err = _git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", where)
    if status is None:
        return paths[0], f"not known to git to be unchanged ({err})"
    committed = set(listed.split("\0"))
    changed = set()
    for item in status.split("\0"):
        if len(item) > 3:
            changed.add(item[3:])
        elif item:  # the old name of a rename: changed too
            changed.add(item)
    for p in paths:
        rel = os.path.relpath(os.path.realpath(os.path.join(out, p)), real_root).replace(os.sep, "/")
        if rel not in committed:
            return p, "not tracked by git"
        if rel in changed:
            return p, "changed since the last commit"
    return None


def _git(cwd: str, *args: str) -> tuple[str | None, str]:
    """git's output (None when it failed) and, when it failed, what it said. Through the
    runner that runs nothing the repository's configuration names (``safe_git``): the
    committed folder is the project's, and so is its ``.git``."""
    what = f"`git {args[0]}`"
    try:
        proc = run_git(cwd, *args, timeout=GIT_TIMEOUT, filters=args[0] == "status")
    except subprocess.TimeoutExpired:
        return None, f"{what} took over {GIT_TIMEOUT:.0f} s"
    except FileNotFoundError:
        return None, "git is not installed"
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{what} did not run: {exc}"
    if proc.returncode == 0:
        return proc.stdout.decode("utf-8", "surrogateescape"), ""
    said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return None, f"{what} failed: {said[0] if said else f'exit {proc.returncode}'}"


def committed_output(opts: PortOptions) -> str | None:
    """For a call without ``force=True`` whose output folder musa-port did not write:
    a note that the port replaces what git can give back (the call then forces), or a
    PortError naming the first file git cannot; None when there is nothing to decide."""
    out = opts.output
    if opts.force or out is None or not foreign_output(out):
        return None
    paths = replaced_paths(opts, out)
    if not paths:
        return None
    blocker = first_not_in_git(out, paths)
    if blocker is not None:
        path, why = blocker
        raise PortError(f"the output folder holds files musa-port did not write, and this one is "
                        f"{why}, so git could not give it back: commit it or move it away, or "
                        "pass force=True to SimplePorting to replace it", os.path.join(out, path))
    return (f"{out}: warning: the output folder is a committed port: every file of it the "
            "port would replace is tracked by git and unchanged since the last commit (`git "
            f"checkout -- {out}` gives them back, and every later call keeps them as hand "
            "edits, merged with each new port), so the port goes ahead as torch_musa's "
            "SimplePorting does; the files the port does not write are kept")


# How the engine says it replaced a file it did not write, and what is said instead here.
FORCED = "(--force)"
FROM_GIT = "(tracked by git, unchanged)"
