"""The check of a ported tree: every check over the join of the outputs' facts.

After a port the facts come with the run's records (gathered where each file was
ported, or kept in the manifest for a file that did not change); ``musa-port check
OUT`` reads them from OUT's manifest. A record without facts (a manifest of an older
musa-port) has its output read once, here.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from ..errors import PortError
from ..safe_open import read_regular
from .built import Modules
from .facts import kind_by_name
from .found import Found
from .gather import gather
from .includes import unresolved_includes
from .modules import module_inits, python_modules
from .names import binding_reads, op_reads
from .sources import missing_files
from .tree import OutTree


def check_tree(tree: OutTree) -> list[Found]:
    """Every finding of the check, quieted by the files' ``musa-port: ignore`` markers,
    in path and line order."""
    mods = Modules(tree)
    found = [*missing_files(tree), *module_inits(tree, mods), *python_modules(tree, mods),
             *op_reads(tree), *binding_reads(tree, mods), *unresolved_includes(tree)]
    return sorted(_unquieted(tree, found), key=lambda f: (f[0], f[1].line, f[1].column, f[1].id))


def _unquieted(tree: OutTree, found: list[Found]) -> Iterable[Found]:
    for rel, d in found:
        facts = tree.records[rel][1] or {}
        quiet = {line: ids for line, ids in facts.get("quiet", ())}
        ids = quiet.get(d.line, ())
        if ids is None or d.id in ids:
            continue
        yield rel, d


def tree_of(records: Mapping, out_dir: str | None, reverse: bool = False,
            edited: bool = False, owned: Collection[str] = ()) -> OutTree:
    """The check's view of OUT from manifest records (``write.manifest.FileRecord``),
    each output's facts read from OUT where a record has none. ``edited``: OUT may have
    changed since the records were made (``musa-port check`` after hand edits): an
    output that is gone is left out, one whose size or mtime changed is read again."""
    view: dict[str, tuple[str, dict | None]] = {}
    for rel, rec in records.items():
        facts = rec.facts
        if edited and out_dir is not None and rec.kind != "symlink":
            try:
                st = os.lstat(os.path.join(out_dir, rel))
            except OSError:
                continue  # removed by hand: what names it names nothing
            if (st.st_size, st.st_mtime_ns) != (rec.out_size, rec.out_mtime_ns):
                facts = None
        if facts is None and rec.kind != "symlink" and out_dir is not None:
            kind = rec.lang if rec.lang in ("cxx", "python", "cmake", "make") else kind_by_name(rel)
            if kind is not None:
                try:
                    facts = gather(kind, rel, read_regular(os.path.join(out_dir, rel)))
                except (OSError, PortError):
                    facts = None  # gone or unreadable: named by nothing it holds
        view[rel] = (rec.src, facts)
    return OutTree(view, out_dir, reverse, owned)


def check_output(out_dir: str) -> list[Found]:
    """``musa-port check OUT``: the findings of the ported tree ``out_dir``."""
    from ..compile.build import check_finished
    from ..write.manifest import MANIFEST_NAME, load_manifest

    if not os.path.isdir(out_dir):
        raise PortError("not a folder", out_dir)
    check_finished(Path(out_dir), "check")  # a port writing it now, or one killed in its commit
    manifest = load_manifest(out_dir)
    if manifest.problem:
        raise PortError(manifest.problem, out_dir)
    if not manifest.files and not os.path.lexists(os.path.join(out_dir, MANIFEST_NAME)):
        raise PortError(f"no {MANIFEST_NAME}: not a tree musa-port ported (port it first)",
                        out_dir)
    return check_tree(tree_of(manifest.files, out_dir, bool(manifest.options.get("reverse")),
                              edited=True, owned=manifest.files))
