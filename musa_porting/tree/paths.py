"""Where things go: the output folder, include folders relative to the tree, and the
target a copied symlink must point at after its target was renamed."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

from ..errors import PortError
from .walk import Entry


def default_output(src: str, reverse: bool = False) -> str:
    """``./csrc`` and ``./csrc/`` both give ``./csrc_musa`` (``./csrc_cuda`` reversed)."""
    return os.path.abspath(src).rstrip(os.sep) + ("_cuda" if reverse else "_musa")


def inside(child: str, parent: str) -> bool:
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def check_paths(src: str, output: str | None, reverse: bool = False) -> tuple[str, str]:
    """Validate SRC and the output folder; return both as absolute paths."""
    if not os.path.exists(src):
        raise PortError("source folder not found", src)
    if not os.path.isdir(src):
        raise PortError("source is not a folder", src)
    if output is not None and not output.strip():
        raise PortError("--output: the output folder's path is empty")
    src_abs = os.path.abspath(src)
    out_abs = os.path.abspath(output) if output else default_output(src, reverse)
    if folder_within(out_abs, src_abs):
        raise PortError(f"output folder {out_abs} is inside the source folder; choose another "
                        "with --output", src)
    if folder_within(src_abs, out_abs):
        raise PortError(f"the source folder is inside the output folder {out_abs}; choose "
                        "another with --output", src)
    if os.path.lexists(out_abs) and not os.path.isdir(out_abs):
        raise PortError("output exists and is not a folder", out_abs)
    return src_abs, out_abs


def folder_within(child: str, parent: str) -> bool:
    """Whether ``child`` is ``parent`` or inside it, by real path and by the (device,
    inode) of the folders above it (a bind mount or a link is another path of the same
    folder)."""
    child_real, parent_real = os.path.realpath(child), os.path.realpath(parent)
    return inside(child_real, parent_real) or _folder_id(parent_real) in _ids_up(child_real)


def _folder_id(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _ids_up(path: str) -> set[tuple[int, int] | None]:
    """The (device, inode) of ``path``'s nearest existing folder and of each folder
    above it. Comparing these, not path strings, sees that a bind mount or another
    path of the same folder puts the output inside SRC."""
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    ids: set[tuple[int, int] | None] = set()
    while True:
        found = _folder_id(path)
        if found is not None:
            ids.add(found)
        parent = os.path.dirname(path)
        if parent == path:
            return ids - {None}
        path = parent


def include_dirs_rel(src_abs: str, dirs: Sequence[str]) -> list[str]:
    """-I folders as paths relative to the tree root (given relative to it or to cwd)."""
    out = []
    for d in dirs:
        a = os.path.abspath(d)
        if os.path.isdir(a) and inside(os.path.realpath(a), os.path.realpath(src_abs)):
            rel = os.path.relpath(os.path.realpath(a), os.path.realpath(src_abs))
        else:
            rel = d
        rel = posixpath.normpath(rel.replace(os.sep, "/"))
        out.append("" if rel == "." else rel)
    return out


def link_target(src: str, out: str, e: Entry, out_rel_of: dict[str, str]) -> str:
    """What the ported copy of symlink ``e`` points at: a file or folder of the tree by
    its ported name (``k.cuh -> k.muh``), anything outside the tree where it pointed.
    Relative targets are relative to where the link is written (its folder may have
    been renamed). A target that leaves the tree and comes back into it
    (``../csrc/real.cuh`` in ``csrc/``) is a file of the tree, as the kernel sees it."""
    target = os.readlink(os.path.join(src, e.rel))
    link_dir_rel = posixpath.dirname(e.rel)
    out_dir_rel = posixpath.dirname(out_rel_of.get(e.rel, e.rel))
    t_rel = posixpath.normpath(posixpath.join(link_dir_rel, target))
    leaves = os.path.isabs(target) or t_rel == ".." or t_rel.startswith("../")
    if leaves:
        back = _back_in_tree(src, link_dir_rel, target)
        if back is None:  # outside the tree: keep pointing at the same place
            if os.path.isabs(target):
                return target
            t_abs = os.path.normpath(os.path.join(src, link_dir_rel, target))
            return os.path.relpath(t_abs, os.path.join(out, out_dir_rel))
        t_rel = back
    new_rel = out_rel_of.get(t_rel, t_rel)
    if os.path.isabs(target):
        return os.path.join(out, new_rel) if new_rel != "." else out
    if not leaves and new_rel == t_rel and out_dir_rel == link_dir_rel:
        return target
    return posixpath.relpath(new_rel, out_dir_rel or ".")


def _back_in_tree(src: str, link_dir_rel: str, target: str) -> str | None:
    """The tree path a link's target names when it leaves the tree's folders, as the
    kernel resolves it (every folder on the way, not the last name), or None when it
    ends outside the tree."""
    head, tail = os.path.split(target)
    base = os.path.join(src, link_dir_rel, head)
    if tail in ("", ".", ".."):
        full = os.path.realpath(os.path.join(base, tail))
    else:
        full = os.path.join(os.path.realpath(base), tail)
    root = os.path.realpath(src)
    if not inside(full, root):
        return None
    return os.path.relpath(full, root).replace(os.sep, "/")
