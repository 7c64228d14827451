"""Following renames through ``#include``: which includes name a file of the tree.

An include that resolves to a file of the ported tree is rewritten to that file's
ported name (``foo.cuh`` -> ``foo.muh``) and nothing else touches it, so a broad
user rule such as ``/cuda/ -> /musa/`` cannot break the path of a header the tree
itself provides. An include that does not resolve is left to the rules: that is how
``<cuda_runtime.h>`` becomes ``<musa_runtime.h>`` while ``"decode_jpegs_cuda.h"``
of another package stays.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping

from ..filenames import RENAMES, ported_name


class IncludeResolver:
    """Resolves include targets against the set of files in the tree.

    Search order, like a compiler's: the including file's folder, the tree root,
    the user's include folders (relative to the tree root); then, because real
    projects add include paths in their build files that we cannot see (mmcv adds
    ``common/cuda``), any tree file whose path ends with the target.

    The answer depends only on the including file's folder and the target, and the
    files of one folder include the same headers over and over: answers are kept
    per (folder, target). The last step does not depend on the folder: each tree path
    is tabled by its trailing folder and file names, per file name on first need, so
    that thousands of folders with the same header cost no more than one (checking
    every same-named file per folder cost folders x files).
    """

    def __init__(self, files: Iterable[str], include_dirs: Iterable[str] = (),
                 renames: dict[str, str] = RENAMES, out_rel_of: Mapping[str, str] | None = None):
        self.renames = renames
        self.out_rel_of = out_rel_of  # each tree file's output path, when the port knows it
        self.files = set(files)
        self.include_dirs = [d.strip("/") for d in include_dirs]
        self._by_base: dict[str, list[str]] = {}
        for rel in self.files:
            self._by_base.setdefault(posixpath.basename(rel), []).append(rel)
        self._by_tail: dict[str, dict[str, str]] = {}  # file name -> trailing names -> path
        self._cache: dict[tuple[str, str], str | None] = {}

    def resolve(self, including: str, target: str) -> str | None:
        """The tree file (rel path) that ``#include target`` in ``including`` names."""
        here = including.rpartition("/")[0]
        key = (here, target)
        try:
            return self._cache[key]
        except KeyError:
            found = self._cache[key] = self._resolve(here, target)
            return found

    def _resolve(self, here: str, target: str) -> str | None:
        if not target or target.startswith("/") or "\\" in target:
            return None
        for base in (here, "", *self.include_dirs):
            cand = posixpath.normpath(posixpath.join(base, target)) if base else posixpath.normpath(target)
            if cand.startswith("../") or cand == "..":
                continue
            if cand in self.files:
                return cand
        norm = posixpath.normpath(target)
        if norm.startswith("..") or "/../" in norm:
            return None
        return self._tails(posixpath.basename(norm)).get(norm)

    def _tails(self, name: str) -> dict[str, str]:
        """The tree paths of file ``name`` by each of their trailing parts (``k.h``,
        ``sub/k.h``, ``lib/sub/k.h``); where two paths end alike, the shallower, then
        the first in sorted order, wins (the same answer on every run)."""
        tails = self._by_tail.get(name)
        if tails is None:
            tails = self._by_tail[name] = {}
            for rel in sorted(self._by_base.get(name, ()), key=lambda r: (r.count("/"), r)):
                parts = rel.split("/")
                for k in range(1, len(parts) + 1):
                    tails.setdefault("/".join(parts[-k:]), rel)
        return tails

    def ported_target(self, including: str, target: str) -> str | None:
        """The include text after porting, or None when the target is not in the tree."""
        rel = self.resolve(including, target)
        if rel is None:
            return None
        if self.out_rel_of is not None:
            return _follow(target, rel, self.out_rel_of.get(rel, rel))
        new_base = ported_name(posixpath.basename(rel), self.renames)
        old_base = posixpath.basename(rel)
        if new_base == old_base:
            return target
        # Only the final extension changes: keep the user's spelling of the path.
        return target[: len(target) - len(old_base)] + new_base if target.endswith(old_base) \
            else ported_name(target, self.renames)


def _follow(target: str, rel: str, out: str) -> str:
    """``target`` (which names ``rel``) naming ``out`` instead. The target's trailing
    folder and file names are the last ones of ``rel``: they become the last ones of
    ``out`` (folders renamed with ``--rename-paths`` too); a leading ``../`` stays."""
    if out == rel:
        return target
    parts = target.split("/")
    k = 0
    for part in reversed(parts):
        if part in (".", "..", ""):
            break
        k += 1
    rel_parts, out_parts = rel.split("/"), out.split("/")
    if k == 0 or k > len(rel_parts) or rel_parts[-k:] != parts[-k:]:
        return target[: len(target) - len(rel_parts[-1])] + out_parts[-1] \
            if target.endswith(rel_parts[-1]) else target
    return "/".join(parts[:-k] + out_parts[-k:])
