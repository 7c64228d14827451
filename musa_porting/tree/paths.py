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
    src_real, out_real = os.path.realpath(src_abs), os.path.realpath(out_abs)
    if inside(out_real, src_real):
        raise PortError(f"output folder {out_abs} is inside the source folder; choose another "
                        "with --output", src)
    if inside(src_real, out_real):
        raise PortError(f"the source folder is inside the output folder {out_abs}; choose "
                        "another with --output", src)
    if os.path.lexists(out_abs) and not os.path.isdir(out_abs):
        raise PortError("output exists and is not a folder", out_abs)
    return src_abs, out_abs


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
    been renamed)."""
    src_link = os.path.join(src, e.rel)
    target = os.readlink(src_link)
    link_dir_rel = posixpath.dirname(e.rel)
    out_dir_rel = posixpath.dirname(out_rel_of.get(e.rel, e.rel))
    if os.path.isabs(target):
        t_abs = os.path.normpath(target)
        if inside(t_abs, src):
            t_rel = os.path.relpath(t_abs, src).replace(os.sep, "/")
            return os.path.join(out, out_rel_of.get(t_rel, t_rel))
        return target
    t_rel = posixpath.normpath(posixpath.join(link_dir_rel, target))
    if t_rel == ".." or t_rel.startswith("../"):
        # Points outside the tree: keep pointing at the same place.
        t_abs = os.path.normpath(os.path.join(src, link_dir_rel, target))
        return os.path.relpath(t_abs, os.path.join(out, out_dir_rel))
    new_rel = out_rel_of.get(t_rel, t_rel)
    if new_rel == t_rel and out_dir_rel == link_dir_rel:
        return target
    return posixpath.relpath(new_rel, out_dir_rel or ".")
